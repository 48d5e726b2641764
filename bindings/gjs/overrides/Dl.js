// Dl.js: GJS's override of the Dl namespace. GJS runs _init() when a
// program first imports the namespace (`import Dl from 'gi://Dl'` or
// `imports.gi.Dl`), finding this file as overrides/Dl.js in a directory of
// its search path: <datadir>/gjs-1.0 once installed (meson installs it
// there beside the typelib), or a directory on GJS_PATH (the tests point
// it at bindings/gjs).
//
// Sugar only; the logic stays in C. It adds:
//  - optional arguments: trailing arguments that may be null, a trailing
//    dtype, and the trailing booleans PyTorch defaults to false may be left
//    out (`loss.backward()`, `opt.zero_grad()`, `Dl.randn([2, 2])`);
//  - Tensor.toString() as PyTorch prints; shape, grad (and the GObject
//    properties dtype, device, ndim, requires_grad) as JS properties;
//  - a number or a tensor wherever the library has both forms (`a.add(2)`,
//    `a.mul(b)`, `a.clamp(0, 1)`), in place too (`a.mul_(2)`);
//  - Dl.tensor() from nested arrays and typed arrays, Tensor.toArray() to a
//    typed array of the tensor's type;
//  - for...of over a DataLoader;
//  - Dl.tidy(fn), a scope that releases the tensors made inside it but
//    those fn returns, and Dl.keep(t), as TensorFlow.js's tf.tidy and
//    tf.keep;
//  - bounded memory without System.gc() in user code: the JS collector
//    does not see the bytes tensors hold, so the module watches the bytes
//    the library has allocated and runs the collector itself when they
//    have grown past a budget since the last collection (see
//    docs/gnome-developers.md).
//
// Copyright 2026 The libdl authors
// SPDX-License-Identifier: LGPL-2.1-or-later

const {GIRepository, GLib} = imports.gi;
const System = imports.system;

let Dl;

// ---- memory -------------------------------------------------------------

// The budget: collect when the library's allocated bytes, or the
// process's resident memory, have grown by more than `minBytes` since the
// last collection, or by `factor` times the bytes then still allocated
// (the live tensors: parameters, optimizer state) when that is more, as
// the collector's own heap grows. Both measures: the allocated bytes are
// one cheap C call but miss what else a dropped tensor holds on to (its
// GObject and JS wrapper, its autograd nodes, and the C heap they keep
// from shrinking: a loop whose storages grew by 32-36 KiB a step grew the
// RSS by 63-75 KiB a step, and in some runs by 1 MiB, where the budget on
// the allocated bytes alone let it reach 986 MiB before collecting); the
// RSS costs a read of /proc/self/statm (about 25 us), so every 16th check
// reads it.
const memoryPolicy = {minBytes: 32 * 1024 * 1024, factor: 1.0, watchRss: true};
const memoryStats = {collections: 0, checks: 0, gcMicroseconds: 0};
const RSS_EVERY = 16;
let baseline = 0;
let rssBaseline = 0;
let devices = null;
let opCalls = 0;
const decoder = new TextDecoder();

function allocatedBytes() {
    let total = 0;
    for (const d of devices)
        total += d.get_memory_allocated();
    return total;
}

function residentBytes() {
    try {
        const [, statm] = GLib.file_get_contents('/proc/self/statm');
        return Number(decoder.decode(statm).split(' ')[1]) * 4096;
    } catch (e) {
        return 0; // no /proc: the allocated bytes alone
    }
}

// Runs the collector when memory has grown past the budget. Called at
// every step-sized call (forward, backward, an optimizer step, a batch)
// and every 64th wrapped tensor op: one C call, a few hundred ns.
function checkMemory() {
    memoryStats.checks++;
    const budget = Math.max(memoryPolicy.minBytes, memoryPolicy.factor * baseline);
    if (allocatedBytes() - baseline > budget ||
        (memoryPolicy.watchRss && memoryStats.checks % RSS_EVERY === 0 &&
         residentBytes() - rssBaseline > budget))
        collect();
}

function collect() {
    const start = GLib.get_monotonic_time();
    System.gc();
    memoryStats.gcMicroseconds += GLib.get_monotonic_time() - start;
    memoryStats.collections++;
    baseline = allocatedBytes();
    rssBaseline = residentBytes();
}

function countOp() {
    if (++opCalls >= 64) {
        opCalls = 0;
        checkMemory();
    }
}

// ---- scopes: Dl.tidy ------------------------------------------------------

// The open scopes, innermost last: each a Set of the tensors that library
// calls returned (transfer full) while it was innermost.
const scopes = [];
// tensors exempt from every scope (Dl.keep)
const kept = new WeakSet();

// Calls @visit on each tensor in @value: a tensor, or one inside arrays
// and plain objects, however deep.
function eachTensor(value, visit, seen = new Set()) {
    if (value instanceof Dl.Tensor) {
        visit(value);
    } else if (value !== null && typeof value === 'object' && !seen.has(value) &&
               (Array.isArray(value) || Object.getPrototypeOf(value) === Object.prototype)) {
        seen.add(value);
        for (const v of Object.values(value))
            eachTensor(v, visit, seen);
    }
}

// Records in the innermost scope the tensors a library call returned, but
// not those it was given (an op may hand back its own input, as
// contiguous() does) and not those it found elsewhere (transfer none).
function track(result, self, args) {
    eachTensor(result, t => {
        if (t !== self && !args.includes(t))
            scopes[scopes.length - 1].add(t);
    });
}

// The tensors a scope lets go of: not a returned one, not one kept, not a
// parameter or another leaf that requires grad (like TensorFlow.js's
// variables).
function releaseScope(scope, survivors) {
    for (const t of scope) {
        if (!survivors.has(t) && !kept.has(t) && !t.is_parameter() &&
            !(t.requires_grad && t.is_leaf()))
            t.release();
    }
}

// Runs fn(); then releases every tensor a library call made while it ran
// (Tensor.release()), but those fn returns (alone or inside arrays and
// objects), those given to Dl.keep(), parameters and leaves that require
// grad. The
// returned ones pass to the enclosing scope, if any. If fn throws, the
// scope's tensors are released and the exception goes on.
function tidy(fn) {
    if (typeof fn !== 'function')
        throw new TypeError('Dl.tidy: expected a function');
    const scope = new Set();
    const survivors = new Set();
    scopes.push(scope);
    try {
        const result = fn();
        eachTensor(result, t => survivors.add(t));
        return result;
    } finally {
        // after a throw there are no survivors: the whole scope goes
        scopes.pop();
        releaseScope(scope, survivors);
        const outer = scopes[scopes.length - 1];
        for (const t of survivors) {
            if (outer && scope.has(t))
                outer.add(t);
        }
    }
}

// Exempts @t from the scopes' release; returns it.
function keep(t) {
    if (!(t instanceof Dl.Tensor))
        throw new TypeError('Dl.keep: expected a Dl.Tensor');
    kept.add(t);
    return t;
}

// Whether a callable hands back new objects: transfer full of an object or
// of an array or list of them.
function returnsOwned(info) {
    if (GIRepository.callable_info_get_caller_owns(info) !== GIRepository.Transfer.EVERYTHING)
        return false;
    const tag = GIRepository.type_info_get_tag(GIRepository.callable_info_get_return_type(info));
    return tag === T.INTERFACE || tag === T.ARRAY || tag === T.GLIST || tag === T.GSLIST;
}

function addTracking(target, info, jsName) {
    const orig = target[jsName];
    if (typeof orig !== 'function' || !returnsOwned(info))
        return;
    target[jsName] = function (...args) {
        const result = orig.apply(this, args);
        if (scopes.length > 0)
            track(result, this, args);
        return result;
    };
}

// ---- optional arguments, read from the typelib ----------------------------

const T = GIRepository.TypeTag;
// trailing booleans whose PyTorch default is false
const FALSE_BY_DEFAULT = new Set(['keepdim', 'retain_graph', 'create_graph', 'set_to_none',
    'replacement', 'stable', 'descending']);
// creation functions whose dtype defaults to int64 rather than the default dtype
const INTEGRAL_DTYPE = new Set(['randint', 'randint_gen', 'randperm']);

// The JavaScript-visible in-arguments of a callable: no out arguments,
// array lengths, closures' user data or destroy notifies.
function visibleArgs(info) {
    const n = GIRepository.callable_info_get_n_args(info);
    const hidden = new Set();
    const args = [];
    for (let i = 0; i < n; i++) {
        const arg = GIRepository.callable_info_get_arg(info, i);
        const type = GIRepository.arg_info_get_type(arg);
        if (GIRepository.type_info_get_tag(type) === T.ARRAY) {
            const len = GIRepository.type_info_get_array_length(type);
            if (len >= 0)
                hidden.add(len);
        }
        const closure = GIRepository.arg_info_get_closure(arg);
        const destroy = GIRepository.arg_info_get_destroy(arg);
        if (closure >= 0 && closure !== i)
            hidden.add(closure);
        if (destroy >= 0)
            hidden.add(destroy);
        args.push(arg);
    }
    return args.filter((arg, i) => !hidden.has(i) &&
        GIRepository.arg_info_get_direction(arg) !== GIRepository.Direction.OUT);
}

// The defaults of the trailing arguments of @info (a function or method
// named @name), as thunks, first to last; [] when none may be left out.
function trailingDefaults(info, name) {
    const args = visibleArgs(info);
    const defaults = [];
    for (let i = args.length - 1; i >= 0; i--) {
        const arg = args[i];
        const argName = arg.get_name();
        const type = GIRepository.arg_info_get_type(arg);
        const tag = GIRepository.type_info_get_tag(type);
        let value;
        if (GIRepository.arg_info_may_be_null(arg)) {
            value = () => null;
        } else if (argName === 'dtype' && tag === T.INTERFACE) {
            value = INTEGRAL_DTYPE.has(name) ? () => Dl.DType.INT64 : () => Dl.get_default_dtype();
        } else if (tag === T.BOOLEAN && FALSE_BY_DEFAULT.has(argName)) {
            value = () => false;
        } else {
            break;
        }
        defaults.unshift(value);
    }
    return [args.length, defaults];
}

// Wraps fn so that missing trailing arguments get their defaults.
function withDefaults(fn, nArgs, defaults) {
    const first = nArgs - defaults.length;
    return function (...args) {
        for (let i = args.length; i < nArgs && i >= first; i++)
            args.push(defaults[i - first]());
        return fn.apply(this, args);
    };
}

// Whether the last C argument of @info could have a default: a cheap test
// that spares most callables the full reading (importing Dl reads them all).
function mayHaveDefaults(info) {
    const n = GIRepository.callable_info_get_n_args(info);
    if (n === 0)
        return false;
    const arg = GIRepository.callable_info_get_arg(info, n - 1);
    if (GIRepository.arg_info_get_direction(arg) !== GIRepository.Direction.IN)
        return true; // an out argument hides what comes before it
    if (GIRepository.arg_info_may_be_null(arg))
        return true;
    const tag = GIRepository.type_info_get_tag(GIRepository.arg_info_get_type(arg));
    return tag === T.BOOLEAN || tag === T.INTERFACE;
}

function addDefaults(target, info, jsName) {
    if (!mayHaveDefaults(info))
        return;
    const [nArgs, defaults] = trailingDefaults(info, info.get_name());
    const orig = defaults.length > 0 ? target[jsName] : null;
    if (typeof orig === 'function')
        target[jsName] = withDefaults(orig, nArgs, defaults);
}

// Calls visit(target, info, jsName) for each function of the namespace
// (target Dl) and each constructor, method and static function of its
// classes (target the class, or its prototype for a method).
function eachCallable(visit) {
    const repo = GIRepository.Repository.get_default();
    const n = repo.get_n_infos('Dl');
    for (let i = 0; i < n; i++) {
        const info = repo.get_info('Dl', i);
        const type = info.get_type();
        if (type === GIRepository.InfoType.FUNCTION) {
            visit(Dl, info, info.get_name());
        } else if (type === GIRepository.InfoType.OBJECT) {
            const klass = Dl[info.get_name()];
            if (!klass)
                continue;
            const nMethods = GIRepository.object_info_get_n_methods(info);
            for (let j = 0; j < nMethods; j++) {
                const m = GIRepository.object_info_get_method(info, j);
                const flags = GIRepository.function_info_get_flags(m);
                const isMethod = (flags & GIRepository.FunctionInfoFlags.IS_METHOD) &&
                    !(flags & GIRepository.FunctionInfoFlags.IS_CONSTRUCTOR);
                visit(isMethod ? klass.prototype : klass, m, m.get_name());
            }
        }
    }
}

// ---- tensors ------------------------------------------------------------

// typed array types by dtype; float16 and bfloat16 come out as float32
function arrayTypeOf(dtype) {
    switch (dtype) {
    case Dl.DType.FLOAT64: return [Float64Array, dtype];
    case Dl.DType.INT32: return [Int32Array, dtype];
    case Dl.DType.INT64: return [BigInt64Array, dtype];
    case Dl.DType.UINT8: return [Uint8Array, dtype];
    case Dl.DType.BOOL: return [Uint8Array, dtype];
    default: return [Float32Array, Dl.DType.FLOAT32];
    }
}

function dtypeOfArray(array) {
    if (array instanceof Float32Array)
        return Dl.DType.FLOAT32;
    if (array instanceof Float64Array)
        return Dl.DType.FLOAT64;
    if (array instanceof Int32Array)
        return Dl.DType.INT32;
    if (array instanceof BigInt64Array)
        return Dl.DType.INT64;
    if (array instanceof Uint8Array)
        return Dl.DType.UINT8;
    return null;
}

// Shape and row-major values of a nested array of numbers or booleans.
function flatten(data) {
    const shape = [];
    for (let d = data; Array.isArray(d) || ArrayBuffer.isView(d); d = d[0]) {
        shape.push(d.length);
        if (d.length === 0)
            break;
    }
    const flat = [];
    const walk = (d, dim) => {
        if (dim === shape.length) {
            if (Array.isArray(d) || ArrayBuffer.isView(d))
                throw new TypeError(`Dl.tensor: a sequence at dim ${dim}, where numbers were expected`);
            flat.push(d);
            return;
        }
        if (!(Array.isArray(d) || ArrayBuffer.isView(d)) || d.length !== shape[dim])
            throw new TypeError(`Dl.tensor: expected a sequence of length ${shape[dim]} at dim ${dim}`);
        for (let i = 0; i < d.length; i++)
            walk(d[i], dim + 1);
    };
    walk(data, 0);
    return [shape, flat];
}

function bytesOf(typed) {
    return new GLib.Bytes(new Uint8Array(typed.buffer, typed.byteOffset, typed.byteLength));
}

// Dl.tensor(data, {dtype, device, requires_grad}): data is a number, a
// boolean, a (nested) array of them, or a typed array (its shape is its
// length unless options.shape says otherwise). As torch.tensor, integers
// become int64, booleans bool, other numbers the default dtype.
function tensor(data, options = {}) {
    let typed, dtype, shape, wanted;
    const arrayDtype = ArrayBuffer.isView(data) ? dtypeOfArray(data) : null;
    if (arrayDtype !== null) {
        typed = data;
        dtype = wanted = arrayDtype;
        shape = options.shape ?? [data.length];
    } else {
        let flat;
        [shape, flat] = flatten(data);
        if (flat.length > 0 && flat.every(v => typeof v === 'boolean')) {
            typed = Uint8Array.from(flat, v => v ? 1 : 0);
            dtype = wanted = Dl.DType.BOOL;
        } else if (flat.length > 0 && flat.every(v => typeof v === 'bigint' || Number.isInteger(v))) {
            typed = BigInt64Array.from(flat, v => BigInt(v));
            dtype = wanted = Dl.DType.INT64;
        } else {
            if (!flat.every(v => typeof v === 'number'))
                throw new TypeError('Dl.tensor: expected numbers, booleans, bigints or typed arrays');
            typed = Float64Array.from(flat);
            dtype = Dl.DType.FLOAT64;
            wanted = Dl.get_default_dtype();
        }
    }
    wanted = options.dtype ?? wanted;
    const t = Dl.Tensor.new_from_bytes(bytesOf(typed), shape, dtype);
    return finish(wanted === dtype ? t : t.to_dtype(wanted), options);
}

function finish(t, options) {
    if (options.device)
        t = t.to(typeof options.device === 'string' ? Dl.Device.get(options.device) : options.device);
    if (options.requires_grad)
        t.set_requires_grad(true);
    return t;
}

// The tensor's values in row-major order, in a typed array of its dtype
// (Float32Array for float32, BigInt64Array for int64, Uint8Array for bool
// and uint8; float16 and bfloat16 as Float32Array).
function toArray() {
    const [ArrayType, dtype] = arrayTypeOf(this.dtype);
    const t = dtype === this.dtype ? this : this.to_dtype(dtype);
    const data = t.to_bytes().get_data();
    const buffer = data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength);
    return new ArrayType(buffer);
}

// a.add(x) with x a number or a tensor; likewise every op with a _scalar form
function addScalarForms(proto) {
    for (const name of Object.getOwnPropertyNames(proto)) {
        const scalar = name.endsWith('_') ? `${name.slice(0, -1)}_scalar_` : `${name}_scalar`;
        if (name.includes('_scalar') || typeof proto[scalar] !== 'function')
            continue;
        const tensorForm = proto[name];
        const scalarForm = proto[scalar];
        proto[name] = function (...args) {
            countOp();
            return args.some(a => typeof a === 'number')
                ? scalarForm.apply(this, args) : tensorForm.apply(this, args);
        };
    }
}

function wrapCheck(proto, name) {
    const orig = proto[name];
    proto[name] = function (...args) {
        checkMemory();
        return orig.apply(this, args);
    };
}

function _init() {
    Dl = this;
    eachCallable(addDefaults);

    const Tensor = Dl.Tensor.prototype;
    // GJS resolves introspected methods lazily: touch the _scalar ones so
    // that getOwnPropertyNames sees them
    const repo = GIRepository.Repository.get_default();
    const info = repo.find_by_name('Dl', 'Tensor');
    for (let j = 0; j < GIRepository.object_info_get_n_methods(info); j++)
        void Tensor[GIRepository.object_info_get_method(info, j).get_name()];
    addScalarForms(Tensor);

    Tensor.toString = function () {
        return this.to_string();
    };
    Tensor.toArray = toArray;
    Object.defineProperty(Tensor, 'shape', {
        get() {
            return Array.from(this.get_shape(), Number);
        },
        configurable: true,
    });
    Object.defineProperty(Tensor, 'grad', {
        get() {
            return this.get_grad();
        },
        set(value) {
            this.set_grad(value);
        },
        configurable: true,
    });
    Dl.tensor = tensor;
    // last, over the wrappers above: what the scopes of Dl.tidy see
    eachCallable(addTracking);
    Dl.tidy = tidy;
    Dl.keep = keep;

    // step-sized calls check the library's memory
    wrapCheck(Tensor, 'backward');
    wrapCheck(Dl.Module.prototype, 'forward');
    wrapCheck(Dl.Module.prototype, 'forward_many');
    wrapCheck(Dl.Optimizer.prototype, 'step');
    wrapCheck(Dl.Optimizer.prototype, 'zero_grad');

    Dl.DataLoader.prototype[Symbol.iterator] = function* () {
        const it = this.iterate();
        for (;;) {
            checkMemory();
            const [more, batch] = it.next();
            if (!more)
                return;
            yield batch;
        }
    };

    devices = [Dl.Device.get('cpu')];
    const defaultDevice = Dl.Device.get_default();
    if (defaultDevice.name !== 'cpu')
        devices.push(defaultDevice);

    // the memory budget: Dl.memory.minBytes, .factor; Dl.memory.stats
    Dl.memory = {
        get minBytes() {
            return memoryPolicy.minBytes;
        },
        set minBytes(v) {
            memoryPolicy.minBytes = v;
        },
        get factor() {
            return memoryPolicy.factor;
        },
        set factor(v) {
            memoryPolicy.factor = v;
        },
        get watchRss() {
            return memoryPolicy.watchRss;
        },
        set watchRss(v) {
            memoryPolicy.watchRss = v;
        },
        stats: memoryStats,
        check: checkMemory,
    };
    rssBaseline = residentBytes();
}
