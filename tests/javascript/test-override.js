// test-override.js: the GJS companion module, bindings/gjs/overrides/Dl.js,
// which GJS loads when a program imports Dl (GJS_PATH points at
// bindings/gjs in tests/meson.build): defaulted arguments, printing,
// properties, numbers or tensors in arithmetic, Dl.tensor and toArray,
// for...of over a DataLoader, the memory budget, and release().
//
// Run: GJS_PATH=bindings/gjs GI_TYPELIB_PATH=build/introspection \
//      LD_LIBRARY_PATH=build/libdl gjs -m tests/javascript/test-override.js
//
// Copyright 2026 The libdl authors
// SPDX-License-Identifier: LGPL-2.1-or-later

import GLib from 'gi://GLib';
import Gio from 'gi://Gio';
import Dl from 'gi://Dl?version=1.0';
import GIRepository from 'gi://GIRepository';
import {test, run, assert, assertArrayEqual, assertDlError} from './harness.js';

test('the override is loaded for gi://Dl', () => {
    assert(typeof Dl.tensor === 'function', 'Dl.tensor');
    assert(typeof Dl.memory === 'object', 'Dl.memory');
});

test('the override is loaded for imports.gi.Dl', () => {
    const gjs = GLib.find_program_in_path('gjs');
    const script = "imports.gi.versions.Dl = '1.0'; print(imports.gi.Dl.tensor([[1, 2]]).add(1));";
    const [, out, err, status] = GLib.spawn_sync(null, [gjs, '-c', script], null,
        GLib.SpawnFlags.DEFAULT, null);
    const text = new TextDecoder().decode(out);
    assert(status === 0, `gjs -c exited with ${status}: ${new TextDecoder().decode(err)}`);
    assert(text === 'tensor([[2, 3]])\n', `legacy imports printed ${JSON.stringify(text)}`);
});

test('printing as PyTorch prints', () => {
    const m = Dl.tensor([[1, 2], [3, 4]], {dtype: Dl.DType.FLOAT32});
    assert(m.toString() === 'tensor([[1., 2.],\n        [3., 4.]])', `toString: ${m}`);
    assert(`${Dl.tensor(2.5)}` === 'tensor(2.5000)', 'template string');
    const w = Dl.tensor([1.0, 2.5], {requires_grad: true});
    assert(`${w.mul(2).sum()}` === 'tensor(7., grad_fn=<SumBackward0>)', `${w.mul(2).sum()}`);
});

test('Dl.tensor from nested arrays and typed arrays', () => {
    const i = Dl.tensor([[1, 2], [3, 4]]);
    assertArrayEqual(i.shape, [2, 2], 'shape');
    assert(i.dtype === Dl.DType.INT64, 'integers are int64, as torch.tensor');
    const f = Dl.tensor([[1.5, 2], [3, 4]]);
    assert(f.dtype === Dl.get_default_dtype(), 'other numbers the default dtype');
    assert(Dl.tensor([true, false]).dtype === Dl.DType.BOOL, 'booleans');
    assert(Dl.tensor(3).ndim === 0, 'a number is 0-d');
    assertArrayEqual(Dl.tensor([]).shape, [0], 'empty');
    const typed = [[Float32Array, Dl.DType.FLOAT32], [Float64Array, Dl.DType.FLOAT64],
        [Int32Array, Dl.DType.INT32], [Uint8Array, Dl.DType.UINT8]];
    for (const [Type, dtype] of typed) {
        const t = Dl.tensor(new Type([1, 2, 3, 4, 5, 6]), {shape: [2, 3]});
        assert(t.dtype === dtype, `${Type.name} dtype`);
        assertArrayEqual(t.shape, [2, 3], `${Type.name} shape`);
        const back = t.toArray();
        assert(back instanceof Type, `${Type.name} toArray type`);
        assertArrayEqual(back, [1, 2, 3, 4, 5, 6], `${Type.name} values`);
    }
    const big = Dl.tensor(new BigInt64Array([1n, -2n]));
    assert(big.dtype === Dl.DType.INT64 && big.toArray() instanceof BigInt64Array, 'int64');
    assertArrayEqual(big.toArray(), [1, -2], 'int64 values');
    // a view comes out in its own order; float16 as Float32Array
    assertArrayEqual(Dl.tensor([[1, 2], [3, 4]]).t().toArray(), [1, 3, 2, 4], 'transposed');
    const half = Dl.tensor([0.5, 1.5], {dtype: Dl.DType.FLOAT16}).toArray();
    assert(half instanceof Float32Array, 'float16 as Float32Array');
    assertArrayEqual(half, [0.5, 1.5], 'float16 values');
    assert(Dl.tensor([1, 2], {requires_grad: true, dtype: Dl.DType.FLOAT64}).requires_grad,
        'requires_grad option');
    let threw = false;
    try {
        Dl.tensor([[1, 2], [3]]);
    } catch (e) {
        threw = e instanceof TypeError;
    }
    assert(threw, 'ragged arrays are a TypeError');
});

test('Tensor.new_from_data copies bytes, and checks their length', () => {
    const bytes = new Uint8Array(new Float32Array([1, 2, 3, 4, 5, 6]).buffer);
    const t = Dl.Tensor.new_from_data(bytes, [ 2, 3 ], Dl.DType.FLOAT32);
    assert(`${t}` === 'tensor([[1., 2., 3.],\n        [4., 5., 6.]])', `${t}`);
    assertDlError (() => Dl.Tensor.new_from_data(bytes.subarray(1), [ 2, 3 ], Dl.DType.FLOAT32),
                   Dl.Error.SHAPE, 'a byte short');
});

test('shape, dtype, device and grad are properties', () => {
    const x = Dl.randn([3, 4]);
    assertArrayEqual(x.shape, [3, 4], 'shape');
    assert(Array.isArray(x.shape), 'shape is an Array');
    assert(x.dtype === Dl.DType.FLOAT32, 'dtype');
    assert(x.device.name === 'cpu', 'device');
    assert(x.grad === null, 'no grad yet');
    x.requires_grad = true;
    x.mul(x).sum().backward();
    assertArrayEqual(x.grad.shape, [3, 4], 'grad after backward');
    x.grad = null;
    assert(x.grad === null, 'grad set to null');
    assertDlError(() => {
        x.grad = Dl.zeros([2]);
    }, Dl.Error.SHAPE, 'a grad of the wrong shape');
});

test('arithmetic takes numbers or tensors', () => {
    const a = Dl.tensor([[1, 2], [3, 4]], {dtype: Dl.DType.FLOAT32});
    const b = Dl.tensor([10, 20], {dtype: Dl.DType.FLOAT32});
    assertArrayEqual(a.add(2).toArray(), [3, 4, 5, 6], 'add number');
    assertArrayEqual(a.add(b).toArray(), [11, 22, 13, 24], 'add tensor');
    assertArrayEqual(a.sub(1).toArray(), [0, 1, 2, 3], 'sub');
    assertArrayEqual(a.mul(b).toArray(), [10, 40, 30, 80], 'mul tensor');
    assertArrayEqual(a.mul(0.5).toArray(), [0.5, 1, 1.5, 2], 'mul number');
    assertArrayEqual(a.div(2).toArray(), [0.5, 1, 1.5, 2], 'div');
    assertArrayEqual(a.pow(2).toArray(), [1, 4, 9, 16], 'pow');
    assertArrayEqual(a.gt(2).toArray(), [0, 0, 1, 1], 'gt');
    assertArrayEqual(a.clamp(2, 3).toArray(), [2, 2, 3, 3], 'clamp numbers');
    assertArrayEqual(a.rsub_scalar(1).toArray(), [0, -1, -2, -3], 'the _scalar forms stay');
    const c = a.clone();
    c.mul_(2).add_(b);
    assertArrayEqual(c.toArray(), [12, 24, 16, 28], 'in place');
    assertDlError(() => a.add(Dl.ones([3])), Dl.Error.SHAPE, 'errors still raise');
});

test('optional arguments may be left out', () => {
    const r = Dl.randn([2, 2]);
    assert(r.dtype === Dl.DType.FLOAT32, 'randn dtype');
    assert(Dl.zeros([2]).dtype === Dl.DType.FLOAT32, 'zeros');
    assert(Dl.randint(0, 5, [3]).dtype === Dl.DType.INT64, 'randint defaults to int64');
    assert(Dl.arange(0, 3, 1).dtype === Dl.DType.FLOAT32, 'arange');
    assertArrayEqual(Dl.tensor([[1, 2], [3, 4]]).sum_dims([1]).shape, [2], 'keepdim=false');
    // explicit arguments still go through
    assert(Dl.randn([2], Dl.DType.FLOAT64, null).dtype === Dl.DType.FLOAT64, 'explicit dtype');

    const fc = new Dl.Linear({in_features: 3, out_features: 1});
    const params = new Gio.ListStore({item_type: Dl.Tensor});
    params.splice(0, 0, fc.parameters());
    const opt = new Dl.Sgd({params, lr: 0.1});
    const x = Dl.randn([8, 3]);
    const y = x.sum_dims([1], true);
    let first = null, last = null;
    for (let i = 0; i < 30; i++) {
        opt.zero_grad();
        const loss = Dl.mse_loss(fc.forward(x), y, Dl.Reduction.MEAN);
        loss.backward();
        opt.step();
        first ??= loss.item();
        last = loss.item();
    }
    assert(last < first, `training lowers the loss: ${first} -> ${last}`);
});

test('for...of over a DataLoader', () => {
    const xs = Dl.arange(0, 10, 1).view([10, 1]);
    const ys = Dl.arange(0, 10, 1, Dl.DType.INT64);
    const loader = new Dl.DataLoader({dataset: Dl.TensorDataset.new([xs, ys]), batch_size: 4});
    const sizes = [];
    let total = 0;
    for (const [bx, by] of loader) {
        sizes.push(bx.shape[0]);
        total += by.sum().item();
    }
    assertArrayEqual(sizes, [4, 4, 2], 'batch sizes');
    assert(total === 45, 'every sample once');
    let n = 0;
    for (const batch of loader)
        n += batch.length === 2 ? 1 : 0;
    assert(n === 3, 'a second pass');
});

test('a released tensor is an error in every op', () => {
    const x = Dl.tensor([1, 2, 3], {dtype: Dl.DType.FLOAT32});
    const y = Dl.tensor([1, 2, 3], {dtype: Dl.DType.FLOAT32});
    x.release();
    const msg = assertDlError(() => x.add(1), Dl.Error.ARGUMENT, 'add_scalar').message;
    assert(msg.includes('released'), `message: ${msg}`);
    assertDlError(() => y.mul(x), Dl.Error.ARGUMENT, 'as the other operand');
    assertDlError(() => x.sum(), Dl.Error.ARGUMENT, 'sum');
    assertDlError(() => x.view([3]), Dl.Error.ARGUMENT, 'view');
    assertDlError(() => x.toArray(), Dl.Error.ARGUMENT, 'toArray');
    assertDlError(() => x.item(), Dl.Error.ARGUMENT, 'item');
});

// Every Tensor method that takes no argument, or one tensor, read from the
// typelib, refuses a released tensor (as self and as the argument), but for
// the accessors, which read metadata only.
const ACCESSORS = new Set(['detach', 'detach_', 'get_data_ptr', 'get_retains_grad',
    'get_shared_fd', 'get_storage', 'get_storage_nbytes', 'is_parameter', 'mark_read_only',
    'release', 'is_released', 'to_string', 'get_shape', 'get_strides', 'get_dtype', 'get_ndim',
    'numel', 'get_grad', 'get_grad_fn', 'is_leaf', 'get_requires_grad', 'dim', 'get_device',
    'is_contiguous', 'element_size', 'get_output_nr', 'is_read_only', 'get_storage_offset',
    'is_shared', 'get_base', 'is_wrapped_number', 'get_version', 'is_floating_point',
    'nbytes', 'retain_grad']);

test('every tensor method refuses a released tensor', () => {
    const repo = GIRepository.Repository.get_default();
    const info = repo.find_by_name('Dl', 'Tensor');
    const x = Dl.tensor([[1, 2], [3, 4]], {dtype: Dl.DType.FLOAT32});
    const wrong = [];
    let n = 0;
    const expectReleased = (what, fn) => {
        n++;
        try {
            fn();
            wrong.push(`${what}: no error`);
        } catch (e) {
            if (!(e instanceof GLib.Error && e.matches(Dl.Error, Dl.Error.ARGUMENT) &&
                  e.message.endsWith(': tensor was released')))
                wrong.push(`${what}: ${e.message}`);
        }
    };
    for (let j = 0; j < GIRepository.object_info_get_n_methods(info); j++) {
        const m = GIRepository.object_info_get_method(info, j);
        const name = m.get_name();
        if (!(GIRepository.function_info_get_flags(m) & GIRepository.FunctionInfoFlags.IS_METHOD) ||
            ACCESSORS.has(name))
            continue;
        const nArgs = GIRepository.callable_info_get_n_args(m);
        const released = () => {
            const r = x.clone();
            r.release();
            return r;
        };
        if (nArgs === 0) {
            expectReleased(name, () => released()[name]());
        } else if (nArgs === 1) {
            const arg = GIRepository.callable_info_get_arg(m, 0);
            const type = GIRepository.arg_info_get_type(arg);
            if (GIRepository.type_info_get_tag(type) !== GIRepository.TypeTag.INTERFACE ||
                GIRepository.type_info_get_interface(type).get_name() !== 'Tensor' ||
                GIRepository.arg_info_get_direction(arg) !== GIRepository.Direction.IN)
                continue;
            expectReleased(`${name}(self)`, () => released()[name](x.clone()));
            expectReleased(`${name}(other)`, () => x.clone()[name](released()));
        }
    }
    assert(n > 100, `${n} calls`);
    assert(wrong.length === 0, `${wrong.length} of ${n} calls:\n${wrong.join('\n')}`);
});

test('memory stays bounded without System.gc()', () => {
    const device = Dl.Device.get('cpu');
    const before = device.get_memory_allocated();
    const stats = {...Dl.memory.stats};
    const x = Dl.randn([256, 256]);
    // 1000 x 256 KiB = 250 MiB made and dropped; the budget collects
    for (let i = 0; i < 1000; i++)
        x.mul(2);
    const grown = device.get_memory_allocated() - before;
    assert(Dl.memory.stats.collections > stats.collections, 'the module collected');
    assert(grown < 2 * Dl.memory.minBytes + (1 << 20),
        `allocated bytes grew by ${grown >> 20} MiB`);
});

run();
