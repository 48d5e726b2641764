// test-dl.js: libdl through the typelib from GJS: tensors, ops, errors, a
// Dl.Module subclass with vfunc_forward, and a few SGD steps.
//
// Run: GI_TYPELIB_PATH=build/introspection LD_LIBRARY_PATH=build/libdl \
//      gjs tests/javascript/test-dl.js
// Prints TAP; exits non-zero if any test fails.
//
// Copyright 2026 The libdl authors
// SPDX-License-Identifier: LGPL-2.1-or-later

imports.gi.versions.Dl = '1.0';
const {Dl, GLib, GObject} = imports.gi;
const System = imports.system;

const F32 = Dl.DType.FLOAT32;
const F64 = Dl.DType.FLOAT64;

// A minimal TAP harness

const tests = [];
function test(name, fn) {
    tests.push([name, fn]);
}

function assert(cond, what) {
    if (!cond)
        throw new Error(`assertion failed: ${what}`);
}

function assertClose(got, expected, tol, what) {
    assert(got.length === expected.length,
        `${what}: length ${got.length} != ${expected.length}`);
    for (let i = 0; i < got.length; i++) {
        if (!(Math.abs(got[i] - expected[i]) <= tol * (1 + Math.abs(expected[i]))))
            throw new Error(`${what}[${i}]: got ${got[i]}, expected ${expected[i]}`);
    }
}

function assertArrayEqual(got, expected, what) {
    assertClose(Array.from(got), expected, 0, what);
}

// Expects fn to throw a GLib.Error of Dl.Error `code`; returns it.
function assertDlError(fn, code, what) {
    try {
        fn();
    } catch (e) {
        assert(e instanceof GLib.Error, `${what}: threw ${e}, not a GLib.Error`);
        assert(e.matches(Dl.Error, code),
            `${what}: error ${e.domain}:${e.code} (${e.message}), expected code ${code}`);
        return e;
    }
    throw new Error(`${what}: no error thrown`);
}

// Tensor contents, in row-major order, as a JS array of numbers.
function values(t) {
    const bytes = t.to_dtype(F64).to_bytes();
    const u8 = Uint8Array.from(bytes.get_data()); // an aligned copy
    return Array.from(new Float64Array(u8.buffer));
}

function fromArray(array, shape, dtype = F32) {
    const bytes = new GLib.Bytes(new Uint8Array(new Float64Array(array).buffer));
    return Dl.Tensor.new_from_bytes(bytes, F64, shape).to_dtype(dtype);
}

// Tests

test('creation', () => {
    const z = Dl.zeros([2, 3], F32, null);
    assertArrayEqual(z.get_shape(), [2, 3], 'shape');
    assertArrayEqual(z.get_strides(), [3, 1], 'strides');
    assert(z.numel() === 6, 'numel');
    assert(z.get_dtype() === F32, 'dtype');
    assert(z.ndim === 2, 'ndim property');
    assertArrayEqual(values(z), [0, 0, 0, 0, 0, 0], 'zeros');
    assertArrayEqual(values(Dl.full([2], 1.5, F64, null)), [1.5, 1.5], 'full');
    assertArrayEqual(values(Dl.arange(0, 5, 1, Dl.DType.INT64, null)), [0, 1, 2, 3, 4], 'arange');
    assert(Dl.Tensor.new_scalar(2.5, F64).item() === 2.5, 'scalar item');
});

test('repr', () => {
    const m = Dl.arange(1, 5, 1, F32, null).view([2, 2]);
    assert(m.to_string() === 'tensor([[1., 2.],\n        [3., 4.]])', `repr: ${m.to_string()}`);
});

test('bytes round trip', () => {
    const data = new Float32Array([1.5, -2, 3.25, 4, 0.5, -7.5]);
    const t = Dl.Tensor.new_from_bytes(new GLib.Bytes(new Uint8Array(data.buffer)), F32, [2, 3]);
    const back = new Float32Array(Uint8Array.from(t.to_bytes().get_data()).buffer);
    assertArrayEqual(back, Array.from(data), 'to_bytes');
    // a transposed view comes out in its own order
    assertArrayEqual(values(t.t()), [1.5, 4, -2, 0.5, 3.25, -7.5], 'transposed');
});

test('broadcasting ops', () => {
    const a = fromArray([1, 2, 3, 4, 5, 6], [2, 3]);
    const b = fromArray([10, 20, 30], [3]);
    const c = fromArray([2, 4], [2, 1]);
    assertArrayEqual(values(a.add(b)), [11, 22, 33, 14, 25, 36], 'add');
    assertArrayEqual(values(a.mul(c)), [2, 4, 6, 16, 20, 24], 'mul');
    assertArrayEqual(values(a.div(c)), [0.5, 1, 1.5, 1, 1.25, 1.5], 'div');
    assertArrayEqual(values(a.sub_scalar(1).relu()), [0, 1, 2, 3, 4, 5], 'sub_scalar relu');
    assertClose(values(a.exp().log()), [1, 2, 3, 4, 5, 6], 1e-6, 'exp log');
});

test('views share storage', () => {
    const base = Dl.zeros([2, 3], F32, null);
    const t = base.t();
    assertArrayEqual(t.get_shape(), [3, 2], 'transposed shape');
    assert(!t.is_contiguous(), 'transpose is not contiguous');
    t.copy_(fromArray([1, 2, 3, 4, 5, 6], [3, 2]));
    assertArrayEqual(values(base), [1, 3, 5, 2, 4, 6], 'written through the view');
});

test('reductions and matmul', () => {
    const a = fromArray([1, 2, 3, 4, 5, 6], [2, 3]);
    assert(a.sum().item() === 21, 'sum');
    assert(a.mean().item() === 3.5, 'mean');
    assertArrayEqual(values(a.sum_dims([0], false)), [5, 7, 9], 'sum over dim 0');
    const s = a.sum_dims([1], true);
    assertArrayEqual(s.get_shape(), [2, 1], 'keepdim shape');
    const [vals, idx] = a.max_dim(1, false);
    assertArrayEqual(values(vals), [3, 6], 'max values');
    assertArrayEqual(values(idx), [2, 2], 'max indices');
    assert(idx.get_dtype() === Dl.DType.INT64, 'indices are int64');
    const b = fromArray([1, 0, 0, 1, 1, 1], [3, 2]);
    assertArrayEqual(values(a.matmul(b)), [4, 5, 10, 11], 'matmul');
    assertArrayEqual(values(a.matmul(a.t())), [14, 32, 32, 77], 'matmul with a transposed operand');
});

test('errors are GLib.Error in the Dl.Error domain', () => {
    const a = Dl.ones([2, 3], F32, null);
    const e = assertDlError(() => a.add(Dl.ones([4], F32, null)), Dl.Error.SHAPE, 'broadcast');
    assert(e.message.includes('add') && e.message.includes('[2, 3]') && e.message.includes('[4]'),
        `message names the op and shapes: ${e.message}`);
    assert(e.domain === Dl.Error.quark(), 'domain is Dl.Error.quark()');
    assertDlError(() => a.matmul(Dl.ones([4, 5], F32, null)), Dl.Error.SHAPE, 'matmul');
    assertDlError(() => a.view([4]), Dl.Error.SHAPE, 'view');
    assertDlError(() => a.transpose(0, 5), Dl.Error.INDEX, 'transpose');
    assertDlError(() => Dl.zeros([-1], F32, null), Dl.Error.ARGUMENT, 'negative size');
    assertDlError(() => Dl.ones([3], Dl.DType.INT64, null).mean(), Dl.Error.DTYPE, 'mean of int64');
    assertDlError(() => Dl.Device.get('cuda'), Dl.Error.DEVICE, 'cuda');
    assertDlError(() => Dl.read_idx('/nonexistent/file-idx1-ubyte', null), Dl.Error.IO, 'missing file');
});

test('autograd', () => {
    const x = fromArray([1, -2, 3], [3], F64);
    x.set_requires_grad(true);
    const y = x.mul(x).sum();
    assert(y.get_grad_fn().get_name() === 'SumBackward0', 'grad_fn name');
    y.backward(null, false, false);
    assertArrayEqual(values(x.get_grad()), [2, -4, 6], 'd(sum x^2)/dx');
    assertDlError(() => y.backward(null, false, false), Dl.Error.AUTOGRAD, 'second backward');
});

// A Dl.Module subclass: a two-layer MLP with its forward in JavaScript.
const Mlp = GObject.registerClass(
class Mlp extends Dl.Module {
    _init(nIn, nHidden, nOut) {
        super._init();
        this.fc1 = Dl.Linear.new(nIn, nHidden, true);
        this.fc2 = Dl.Linear.new(nHidden, nOut, true);
        this.register_module('fc1', this.fc1);
        this.register_module('fc2', this.fc2);
        this.calls = 0;
    }

    vfunc_forward(input) {
        this.calls++;
        return this.fc2.forward(this.fc1.forward(input).relu());
    }
});

test('Dl.Module subclass', () => {
    const net = new Mlp(4, 8, 3);
    const names = net.parameter_names();
    assert(names.join() === 'fc1.weight,fc1.bias,fc2.weight,fc2.bias', `names: ${names}`);
    assert(net.parameters().length === 4, 'four parameters');
    const out = net.forward(Dl.randn([5, 4], F32, null));
    assert(net.calls === 1, 'vfunc_forward ran');
    assertArrayEqual(out.get_shape(), [5, 3], 'output shape');
    // an error raised inside the JS forward reaches the caller
    assertDlError(() => net.forward(Dl.randn([5, 7], F32, null)), Dl.Error.SHAPE, 'bad input');
});

test('training lowers the loss', () => {
    Dl.manual_seed(0);
    const net = new Mlp(2, 16, 2);
    // two classes: inside or outside the circle of radius 0.7
    const n = 64;
    const x = Dl.rand([n, 2], F32, null).mul_scalar(2).sub_scalar(1);
    const xv = values(x);
    const labels = [];
    for (let i = 0; i < n; i++)
        labels.push(xv[2 * i] ** 2 + xv[2 * i + 1] ** 2 < 0.49 ? 1 : 0);
    const target = fromArray(labels, [n], Dl.DType.INT64);
    const sgd = Dl.Sgd.new(net.parameters(), 0.5, 0.9, 0, 0, false);
    let first = null, last = null;
    for (let step = 0; step < 150; step++) {
        const loss = Dl.cross_entropy(net.forward(x), target);
        sgd.zero_grad(true);
        loss.backward(null, false, false);
        sgd.step();
        last = loss.item();
        if (first === null)
            first = last;
        if (step % 10 === 9)
            System.gc(); // the collector alone frees the step's tensors
    }
    print(`# loss ${first.toFixed(4)} -> ${last.toFixed(4)}`);
    assert(last < 0.7 * first, `loss went down: ${first} -> ${last}`);
});

// Run

let failed = 0;
print(`1..${tests.length}`);
tests.forEach(([name, fn], i) => {
    try {
        fn();
        print(`ok ${i + 1} - ${name}`);
    } catch (e) {
        failed++;
        print(`not ok ${i + 1} - ${name}`);
        for (const line of `${e}\n${e.stack || ''}`.split('\n'))
            print(`# ${line}`);
    }
    System.gc();
});
if (failed > 0)
    System.exit(1);
