// test-dl.js: libdl through the typelib from GJS: tensors, ops, errors, a
// Dl.Module subclass with vfunc_forward, and a few SGD steps.
//
// Run: GI_TYPELIB_PATH=build/introspection LD_LIBRARY_PATH=build/libdl \
//      gjs -m tests/javascript/test-dl.js
// Prints TAP; exits non-zero if any test fails.
//
// Copyright 2026 The libdl authors
// SPDX-License-Identifier: LGPL-2.1-or-later

import Dl from 'gi://Dl?version=1.0';
import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import GObject from 'gi://GObject';
import System from 'system';
import {test, run, assert, assertDlError} from './harness.js';

const F32 = Dl.DType.FLOAT32;
const F64 = Dl.DType.FLOAT64;

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

// Tensor contents, in row-major order, as a JS array of numbers.
function values(t) {
    const bytes = t.to_dtype(F64).to_bytes();
    const u8 = Uint8Array.from(bytes.get_data()); // an aligned copy
    return Array.from(new Float64Array(u8.buffer));
}

function fromArray(array, shape, dtype = F32) {
    const bytes = new GLib.Bytes(new Uint8Array(new Float64Array(array).buffer));
    return Dl.Tensor.new_from_bytes(bytes, shape, F64).to_dtype(dtype);
}

// Tests

test('lapack: inv, det, eigh', () => {
    const a = fromArray([2, 1, 1, 3], [2, 2], F64);
    assertClose(values(a.linalg_inv()), [0.6, -0.2, -0.2, 0.4], 1e-14, 'inv');
    assertClose(values(a.linalg_det()), [5], 1e-14, 'det');
    // out arguments: (ok, eigenvalues, eigenvectors)
    const [ok, w, v] = a.linalg_eigh(false, true);
    assert(ok && v.get_shape().length === 2, 'eigh');
    assertClose(values(w), [(5 - Math.sqrt(5)) / 2, (5 + Math.sqrt(5)) / 2], 1e-14, 'eigenvalues');
    assertDlError(() => fromArray([1, 2, 2, 4], [2, 2], F64).linalg_inv(), Dl.Error.ARGUMENT,
        'singular');
});

test('samplers: exponential_ and standard_gamma', () => {
    const g = Dl.Generator.new(null);
    g.manual_seed(21);
    const n = 20000;
    const t = Dl.empty([n], F64, null);
    t.exponential_(4, g);
    const v = values(t);
    const mean = v.reduce((a, b) => a + b, 0) / n;
    assert(v.every(x => x >= 0), 'exponential_ draws are not negative');
    assertClose([mean], [0.25], 0.01, 'exponential_ mean');
    const alpha = Dl.full([n], 3, F64, null);
    const x = values(Dl.standard_gamma(alpha, g));
    const gmean = x.reduce((a, b) => a + b, 0) / n;
    assertClose([gmean], [3], 0.02, 'gamma mean');
    assertDlError(() => t.exponential_(-1, null), Dl.Error.ARGUMENT, 'exponential_');
});

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
    const t = Dl.Tensor.new_from_bytes(new GLib.Bytes(new Uint8Array (data.buffer)), [ 2, 3 ], F32);
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

test('inverse trigonometric, special and logit ops', () => {
    const x = fromArray([0.5, -0.25, 0], [3], F64);
    assertClose(values(x.asin()), [Math.asin(0.5), Math.asin(-0.25), 0], 1e-15, 'asin');
    assertClose(values(x.atanh()), [Math.atanh(0.5), Math.atanh(-0.25), 0], 1e-15, 'atanh');
    // erfinv undoes erf
    assertClose(values(x.erf().erfinv()), [0.5, -0.25, 0], 1e-14, 'erfinv (erf (x))');
    // logit with no clamp (a negative eps) and with eps = 0.3
    const p = fromArray([0.25, 0.5, 0.9], [3], F64);
    assertClose(values(p.logit(-1)), [Math.log(1 / 3), 0, Math.log(9)], 1e-15, 'logit');
    assertClose(values(p.logit(0.3)), [Math.log(3 / 7), 0, Math.log(7 / 3)], 1e-15, 'logit eps');
    assert(Number.isNaN(values(fromArray([2], [1], F64).asin())[0]), 'asin (2) is NaN');
});

test('views share storage', () => {
    const base = Dl.zeros([2, 3], F32, null);
    const t = base.t();
    assertArrayEqual(t.get_shape(), [3, 2], 'transposed shape');
    assert(!t.is_contiguous(), 'transpose is not contiguous');
    t.copy_(fromArray([1, 2, 3, 4, 5, 6], [3, 2]));
    assertArrayEqual(values(base), [1, 3, 5, 2, 4, 6], 'written through the view');
});

test('unfold windows and in-place transpose', () => {
    const a = fromArray([0, 1, 2, 3, 4], [5]);
    const w = a.unfold(0, 3, 1);
    assertArrayEqual(w.get_shape(), [3, 3], 'unfold shape');
    assertArrayEqual(values(w), [0, 1, 2, 1, 2, 3, 2, 3, 4], 'overlapping windows');
    // the windows view a's memory
    a.fill_(7);
    assertArrayEqual(values(w), [7, 7, 7, 7, 7, 7, 7, 7, 7], 'a view of the input');
    const m = fromArray([1, 2, 3, 4, 5, 6], [2, 3]);
    assert(m.transpose_(0, 1) === m, 'transpose_ returns self');
    assertArrayEqual(m.get_shape(), [3, 2], 'in-place transposed shape');
    assertArrayEqual(values(m), [1, 4, 2, 5, 3, 6], 'in-place transposed values');
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

test('gradcheck and gradgradcheck with a JS function', () => {
    const x = fromArray([0.5, -1.25, 2], [3], F64);
    const y = fromArray([1.5, 0.25, -0.75], [3], F64);
    x.set_requires_grad(true);
    y.set_requires_grad(true);
    let calls = 0;
    // two outputs: x * sin (y) and the sum of x * x
    const f = inputs => {
        calls++;
        const [a, b] = inputs;
        return [a.mul(b.sin()), a.mul(a).sum()];
    };
    assert(Dl.autograd_gradcheck(f, [x, y], 1e-6, 1e-5, 1e-3, true, 0, true), 'gradcheck');
    assert(calls > 12, `the function ran for each perturbation (${calls} calls)`);
    assert(Dl.autograd_gradgradcheck(f, [x, y], null, 1e-6, 1e-5, 1e-3, false, true, 0, true),
        'gradgradcheck');
    assertArrayEqual(values(x), [0.5, -1.25, 2], 'inputs restored');
    // a gradient that misses a term: x * |x| with |x| detached
    const wrong = inputs => [inputs[0].mul(inputs[0].abs().detach())];
    const e = assertDlError(() => Dl.autograd_gradcheck(wrong, [x], 1e-6, 1e-5, 1e-3, true, 0, true),
        Dl.Error.AUTOGRAD, 'mismatch');
    assert(e.message.startsWith('Jacobian mismatch for output 0 with respect to input 0'),
        e.message);
    assert(e.message.includes('d output 0[0] / d input 0[0]: numerical 1'), e.message);
    assert(!Dl.autograd_gradcheck(wrong, [x], 1e-6, 1e-5, 1e-3, false, 0, true), 'no raise');
    assert(Dl.autograd_get_node_names().includes('MulBackward0'), 'node names');
});

test('autograd through an in-place write into a view', () => {
    const x = fromArray([1, 2, 3, 4], [2, 2], F64);
    x.set_requires_grad(true);
    const y = x.mul_scalar(1);
    y.select(0, 1).mul_scalar_(3);
    assert(y.get_grad_fn().get_name() === 'CopySlices', 'base grad_fn name');
    y.sum().backward(null, false, false);
    assertArrayEqual(values(x.get_grad()), [1, 1, 3, 3], 'd(sum)/dx');
});

test('autograd.grad, hooks, retain_grad, detach_ and anomaly mode', () => {
    const x = fromArray([1, 2, 3], [3], F64);
    x.set_requires_grad(true);
    // grad of sum(x^3) with create_graph, then of its sum: 3x^2 and 6x
    const s = x.mul(x).mul(x).sum();
    const [g] = Dl.autograd_grad([s], [x], null, true, true, false);
    assertArrayEqual(values(g), [3, 12, 27], 'first derivative');
    const [h] = Dl.autograd_grad([g.sum()], [x], null, false, false, false);
    assertArrayEqual(values(h), [6, 12, 18], 'second derivative');
    assert(x.get_grad() === null, 'grad leaves .grad alone');

    // a JS hook replaces the gradient; retain_grad keeps the one before it
    const y = x.mul_scalar(2);
    y.retain_grad();
    let calls = 0;
    const id = y.register_hook(grad => {
        calls++;
        return grad.mul_scalar(10);
    });
    y.sum().backward(null, true, false);
    assertArrayEqual(values(y.get_grad()), [1, 1, 1], 'retained gradient');
    assertArrayEqual(values(x.get_grad()), [20, 20, 20], 'hooked gradient');
    assert(calls === 1 && y.get_retains_grad(), 'hook ran once');
    assert(Dl.autograd_remove_hook(id), 'hook removed');
    assertDlError(() => Dl.autograd_grad([y], [x], null, false, false, false), Dl.Error.AUTOGRAD,
        'non-scalar output');

    const z = x.mul(x);
    z.detach_();
    assert(!z.get_requires_grad() && z.get_grad_fn() === null, 'detach_');

    Dl.autograd_set_detect_anomaly(true);
    Dl.autograd_set_anomaly_trace_func(() => new Error().stack);
    try {
        const r = fromArray([0, 1], [2], F64);
        r.set_requires_grad(true);
        const e = assertDlError(() => r.sqrt().mul_scalar(0).sum().backward(null, false, false),
            Dl.Error.AUTOGRAD, 'NaN in backward');
        assert(e.message.includes("Function 'SqrtBackward0' returned nan"), e.message);
        assert(e.message.includes('test-dl.js'), e.message);
    } finally {
        Dl.autograd_set_detect_anomaly(false);
        Dl.autograd_set_anomaly_trace_func(null);
    }
});

test('convolutions: Dl.conv2d and the Dl.Conv2d layer', () => {
    const x = fromArray([1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 1, 3, 3], F64);
    x.set_requires_grad(true);
    const w = fromArray([1, 0, 0, -1], [1, 1, 2, 2], F64);
    const y = Dl.conv2d(x, w, null, [1, 1], [0, 0], [1, 1], 1);
    assertArrayEqual(values(y), [-4, -4, -4, -4], 'x[i][j] - x[i+1][j+1]');
    assert(y.get_grad_fn().get_name() === 'ConvolutionBackward0', 'the fused conv2d node');
    y.sum().backward(null, false, false);
    assertArrayEqual(values(x.get_grad()), [1, 1, 0, 1, 0, -1, 0, -1, -1], 'input gradient');

    const conv = new Dl.Conv2d({in_channels: 2, out_channels: 4, kernel_height: 3,
        kernel_width: 3, padding_height: 1, padding_width: 1});
    const out = conv.forward(Dl.randn([3, 2, 5, 5], F32, null));
    assertArrayEqual(Array.from(out.get_shape()), [3, 4, 5, 5], 'output shape');
    out.sum().backward(null, false, false);
    assert(conv.get_parameter('weight').get_grad() !== null, 'weight gradient');
    assertDlError(() => conv.forward(Dl.randn([1, 3, 5, 5], F32, null)), Dl.Error.SHAPE,
        'wrong channels');

    const [pooled, where] = Dl.max_pool2d(x, [2, 2], [1, 1], [0, 0], [1, 1], false);
    assertArrayEqual(values(pooled), [5, 6, 8, 9], 'max pooling');
    assertArrayEqual(values(where), [4, 5, 7, 8], 'max positions');

    conv.register_buffer('steps', fromArray([3], [1], F64), true);
    conv.register_buffer('scratch', fromArray([0], [1], F64), false);
    assert(conv.get_buffer('steps').item() === 3, 'buffer');
    assert(conv.buffer_names().join() === 'steps,scratch', conv.buffer_names().join());
    assert(conv.state_dict().get_names().join() === 'weight,bias,steps',
        conv.state_dict().get_names().join());
});

test('3-d convolution and pooling: the Dl.Conv3d layer, Dl.max_pool3d', () => {
    const conv = new Dl.Conv3d({in_channels: 2, out_channels: 4, kernel_depth: 3,
        kernel_height: 1, kernel_width: 2, stride_depth: 2, padding_width: 1, groups: 2});
    assertArrayEqual(Array.from(conv.get_parameter('weight').get_shape()), [4, 1, 3, 1, 2],
        'weight shape');
    const out = conv.forward(Dl.randn([3, 2, 5, 4, 3], F32, null));
    assertArrayEqual(Array.from(out.get_shape()), [3, 4, 2, 4, 4], 'output shape');
    out.sum().backward(null, false, false);
    assert(conv.get_parameter('bias').get_grad() !== null, 'bias gradient');
    const bad = new Dl.Conv3d({in_channels: 2, out_channels: 4, kernel_depth: 0,
        kernel_height: 1, kernel_width: 1});
    assertDlError(() => bad.init(null), Dl.Error.ARGUMENT, 'kernel_depth 0');

    const v = fromArray([3, 1, 4, 1, 5, 9, 2, 6], [1, 1, 2, 2, 2], F64);
    const [m, where] = Dl.max_pool3d(v, [2, 2, 2], [2, 2, 2], [0, 0, 0], [1, 1, 1], false);
    assertArrayEqual(values(m), [9], 'max_pool3d');
    assertArrayEqual(values(where), [5], 'its position');
    assertArrayEqual(values(Dl.max_unpool(m, where, [2, 2, 2])), [0, 0, 0, 0, 0, 9, 0, 0],
        'max_unpool');
    const layer = new Dl.MaxPool3d({kernel_depth: 2, kernel_height: 1, kernel_width: 2});
    assertArrayEqual(values(layer.forward(v)), [9, 6], 'the MaxPool3d layer');
});

test('padding, pooling, interpolation, dropout and Conv2d padding modes', () => {
    const x = fromArray([1, 2, 3], [1, 1, 3], F64);
    x.set_requires_grad(true);
    const y = Dl.pad(x, [2, 1], Dl.PadMode.REFLECT, 0);
    assertArrayEqual(values(y), [3, 2, 1, 2, 3, 2], 'reflect padding');
    y.sum().backward(null, false, false);
    assertArrayEqual(values(x.get_grad()), [1, 3, 2], 'reflect padding gradient');
    assertDlError(() => Dl.pad(x, [3, 0], Dl.PadMode.REFLECT, 0), Dl.Error.ARGUMENT,
        'padding as large as the input');

    const img = Dl.arange(1, 17, 1, F64, null).reshape([1, 1, 4, 4]);
    assertArrayEqual(values(Dl.avg_pool2d(img, [2, 2], [2, 2], [0, 0], false, true, 0)),
        [3.5, 5.5, 11.5, 13.5], 'average pooling');
    assertArrayEqual(values(Dl.adaptive_avg_pool2d(img, [1, 1])), [8.5], 'global pooling');
    const up = Dl.interpolate(fromArray([1, 2], [1, 1, 2], F64), [4], null,
        Dl.InterpolateMode.LINEAR, true);
    assert(values(up).every((v, i) => Math.abs(v - (1 + i / 3)) < 1e-12), `${values(up)}`);

    const gen = Dl.Generator.new(null);
    gen.manual_seed(5);
    const d = Dl.dropout(Dl.ones([1000], F32, null), 0.5, true, gen);
    const kept = values(d).filter(v => v !== 0);
    assert(kept.every(v => v === 2) && Math.abs(kept.length - 500) < 80, `${kept.length} kept`);

    const conv = new Dl.Conv2d({in_channels: 1, out_channels: 1, kernel_height: 1,
        kernel_width: 1, padding_height: 1, padding_width: 1, bias: false,
        padding_mode: Dl.PadMode.CIRCULAR});
    assert(conv.padding_mode === Dl.PadMode.CIRCULAR, 'padding-mode property');
    const out = conv.forward(Dl.randn([2, 1, 3, 3], F32, null));
    assertArrayEqual(Array.from(out.get_shape()), [2, 1, 5, 5], 'circular conv shape');
    out.sum().backward(null, false, false);
    assert(conv.get_parameter('weight').get_grad() !== null, 'weight gradient');
});

test('pooling, dropout, embedding, activation and Conv1d/ConvTranspose2d layers', () => {
    const img = Dl.arange(1, 17, 1, F64, null).reshape([1, 1, 4, 4]);
    img.set_requires_grad(true);
    const mp = new Dl.MaxPool2d({kernel_height: 2, kernel_width: 2});
    assertArrayEqual(values(mp.forward(img)), [6, 8, 14, 16], 'MaxPool2d');
    const ap = new Dl.AvgPool2d({kernel_height: 2, kernel_width: 2, stride_height: 1,
        stride_width: 2, count_include_pad: false});
    const pooled = ap.forward(img);
    assertArrayEqual(Array.from(pooled.get_shape()), [1, 1, 3, 2], 'AvgPool2d shape');
    pooled.sum().backward(null, false, false);
    assertArrayEqual(values(img.get_grad()).slice(0, 4), [0.25, 0.25, 0.25, 0.25],
        'AvgPool2d gradient');
    const aap = new Dl.AdaptiveAvgPool2d({output_height: 2, output_width: 1});
    assertArrayEqual(values(aap.forward(img)), [4.5, 12.5], 'AdaptiveAvgPool2d');
    const bad = new Dl.MaxPool2d({kernel_height: 2});
    assertDlError(() => bad.forward(img), Dl.Error.ARGUMENT, 'a missing kernel width');

    const drop = new Dl.Dropout({p: 0.5});
    drop.set_training(false);
    assert(drop.forward(img) === img, 'Dropout in eval mode');

    const emb = new Dl.Embedding({num_embeddings: 4, embedding_dim: 2, padding_idx: 1});
    const e = emb.forward(Dl.arange(0, 4, 1, I64, null));
    assertArrayEqual(values(e).slice(2, 4), [0, 0], 'padding row');
    e.sum().backward(null, false, false);
    assertArrayEqual(values(emb.get_parameter('weight').get_grad()), [1, 1, 0, 0, 1, 1, 1, 1],
        'Embedding gradient');

    const v = fromArray([-1, 0.5, 3], [3], F64);
    assertArrayEqual(values(new Dl.Hardtanh({min_val: 0, max_val: 1}).forward(v)), [0, 0.5, 1],
        'Hardtanh');
    assert(Math.abs(values(new Dl.Elu({alpha: 2}).forward(v))[0] - 2 * Math.expm1(-1)) < 1e-12,
        'ELU');
    assert(Math.abs(values(new Dl.Softplus({beta: 2}).forward(v))[2] - 3) < 1e-2, 'Softplus');
    const prelu = new Dl.Prelu({num_parameters: 2, init: 0.25});
    const py = prelu.forward(fromArray([-4, 2, 1, -8], [2, 2]));
    assertArrayEqual(values(py), [-1, 2, 1, -2], 'PReLU');
    py.sum().backward(null, false, false);
    assertArrayEqual(values(prelu.get_parameter('weight').get_grad()), [-4, -8],
        'PReLU weight gradient');
    assert(prelu.to_string() === 'PReLU(num_parameters=2)', 'PReLU printed');
    assertArrayEqual(values(new Dl.Hardshrink({lambd: 0.5}).forward(v)), [-1, 0, 3], 'Hardshrink');

    const c1 = new Dl.Conv1d({in_channels: 2, out_channels: 3, kernel_size: 3, padding: 1,
        padding_mode: Dl.PadMode.REFLECT});
    const y1 = c1.forward(Dl.randn([2, 2, 6], F32, null));
    assertArrayEqual(Array.from(y1.get_shape()), [2, 3, 6], 'Conv1d shape');
    y1.sum().backward(null, false, false);
    assert(c1.get_parameter('bias').get_grad() !== null, 'Conv1d bias gradient');
    const ct = new Dl.ConvTranspose2d({in_channels: 2, out_channels: 1, kernel_height: 2,
        kernel_width: 2, stride_height: 2, stride_width: 2});
    assertArrayEqual(Array.from(ct.forward(Dl.randn([1, 2, 3, 3], F32, null)).get_shape()),
        [1, 1, 6, 6], 'ConvTranspose2d shape');
});

test('layers in float64 through the dtype construct property', () => {
    // Linear: weights and output in float64, the output x W^T + b to float64's precision
    const fc = new Dl.Linear({in_features: 3, out_features: 2, dtype: F64});
    fc.init(null);
    assert(fc.dtype === F64, 'the property read back');
    const w = fc.get_parameter('weight'), b = fc.get_parameter('bias');
    assert(w.get_dtype() === F64 && b.get_dtype() === F64, 'float64 parameters');
    const x = fromArray([0.1, -0.2, 0.3, 1.5, 2.5, -3.5], [2, 3], F64);
    const y = fc.forward(x);
    assert(y.get_dtype() === F64, 'a float64 output');
    const wv = values(w), bv = values(b), xv = values(x);
    const expected = [];
    for (let i = 0; i < 2; i++) {
        for (let o = 0; o < 2; o++) {
            let sum = bv[o];
            for (let k = 0; k < 3; k++)
                sum += xv[i * 3 + k] * wv[o * 3 + k];
            expected.push(sum);
        }
    }
    assertClose(values(y), expected, 1e-14, 'Linear in float64');

    // BatchNorm1d: float64 statistics, an int64 count, a training step in float64
    const bn = new Dl.BatchNorm1d({num_features: 2, dtype: F64});
    bn.init(null);
    assert(bn.get_buffer('running_mean').get_dtype() === F64, 'float64 running_mean');
    assert(bn.get_buffer('num_batches_tracked').get_dtype() === I64, 'int64 count');
    const z = bn.forward(fromArray([1, 10, 2, 20, 4, 40], [3, 2], F64));
    assert(z.get_dtype() === F64, 'a float64 output');
    const m = 7 / 3, sd = Math.sqrt(((1 - m) ** 2 + (2 - m) ** 2 + (4 - m) ** 2) / 3 + 1e-5);
    assertClose(values(z).filter((_, i) => i % 2 === 0), [1, 2, 4].map(v => (v - m) / sd), 1e-12,
        'BatchNorm1d in float64');
    assertClose(values(bn.get_buffer('running_mean')), [0.1 * m, 0.1 * 70 / 3], 1e-12,
        'running_mean');

    // an integer dtype is refused, as torch refuses an integer parameter
    const bad = new Dl.Linear({in_features: 3, out_features: 2, dtype: I64});
    assertDlError(() => bad.init(null), Dl.Error.DTYPE, 'an int64 Linear');
});

// Every op family through the typelib, checked against hand-computed values

const I64 = Dl.DType.INT64;
const BOOL = Dl.DType.BOOL;

test('math ops', () => {
    const x = fromArray([-1.5, -0.5, 0.5, 2.5], [4], F64);
    assertClose(values(x.sin()), [-1.5, -0.5, 0.5, 2.5].map(Math.sin), 1e-12, 'sin');
    assertClose(values(x.exp()), [-1.5, -0.5, 0.5, 2.5].map(Math.exp), 1e-12, 'exp');
    assertArrayEqual(values(x.pow_scalar(2)), [2.25, 0.25, 0.25, 6.25], 'pow_scalar');
    assertArrayEqual(values(x.floor()), [-2, -1, 0, 2], 'floor');
    // clamp with nullable min / max tensors
    const lo = Dl.full([1], -1, F64, null);
    const hi = fromArray([0, 0, 1, 1], [4], F64);
    assertArrayEqual(values(x.clamp(lo, null)), [-1, -0.5, 0.5, 2.5], 'clamp min only');
    assertArrayEqual(values(x.clamp(null, hi)), [-1.5, -0.5, 0.5, 1], 'clamp max only');
    assertArrayEqual(values(x.clamp(lo, hi)), [-1, -0.5, 0.5, 1], 'clamp both');
    assertArrayEqual(values(x.clamp_min(lo)), [-1, -0.5, 0.5, 2.5], 'clamp_min');
    assertArrayEqual(values(x.clamp_max(hi)), [-1.5, -0.5, 0.5, 1], 'clamp_max');
    assertArrayEqual(values(x.clamp_scalar(-1, 1)), [-1, -0.5, 0.5, 1], 'clamp_scalar');
    // in place: the same object back, its values clamped (-Infinity: no bound)
    const xc = x.clone();
    assert(xc.clamp_scalar_(-Infinity, 0) === xc, 'clamp_scalar_ returns self');
    assertArrayEqual(values(xc), [-1.5, -0.5, 0, 0], 'clamp_scalar_');
    // alias (t[...]): another tensor object over the same elements
    const al = xc.alias();
    assert(al !== xc, 'alias is a new object');
    assert(al.get_base() === xc && xc.get_base() === null, 'get_base: the viewed tensor');
    al.fill_(3);
    assertArrayEqual(values(xc), [3, 3, 3, 3], 'alias writes through');
    // Python-style floor division and remainder (sign of the divisor)
    const a = fromArray([7, -7, 7, -7], [4], I64);
    const b = fromArray([2, 2, -2, -2], [4], I64);
    assertArrayEqual(values(a.floor_divide(b)), [3, -4, -4, 3], 'floor_divide');
    assertArrayEqual(values(a.remainder(b)), [1, 1, -1, -1], 'remainder');
    assertArrayEqual(values(a.fmod(b)), [1, -1, 1, -1], 'fmod: the sign of the dividend');
    assertArrayEqual(values(a.bitwise_left_shift_scalar(2)), [28, -28, 28, -28], 'a << 2');
    assertArrayEqual(values(fromArray([0, 1], [2], F64).addcdiv(fromArray([3, 4], [2], F64),
        fromArray([2, 8], [2], F64), 2)), [3, 2], 'addcdiv');
    assert(a.remainder(b).get_dtype() === I64, 'remainder keeps int64');
    assertArrayEqual(values(fromArray([5.5, -5.5], [2], F64).remainder_scalar(2)), [1.5, 0.5],
        'remainder_scalar');
    const n = fromArray([0, NaN, Infinity, -1], [4], F64);
    const nan = n.isnan();
    assert(nan.get_dtype() === BOOL, 'isnan gives bool');
    assertArrayEqual(values(nan), [0, 1, 0, 0], 'isnan');
    assertArrayEqual(values(n.isfinite()), [1, 0, 0, 1], 'isfinite');
    assertArrayEqual(values(n.nan_to_num(9, 8, 7)), [0, 9, 8, -1], 'nan_to_num');
    // integer division by zero is an argument error
    assertDlError(() => a.floor_divide(Dl.zeros([4], I64, null)), Dl.Error.ARGUMENT,
        'integer floor_divide by zero');
    assertDlError(() => x.clamp(null, null), Dl.Error.ARGUMENT, 'clamp without bounds');
});

test('reductions and scans', () => {
    const a = fromArray([1, 2, 3, 4, 5, 6], [2, 3], F64);
    assertArrayEqual(values(a.prod_dims([1], false)), [6, 120], 'prod_dims');
    assertArrayEqual(values(a.var([1], 1, false)), [1, 1], 'var');
    assertClose(values(a.std([0], 1, false)), [Math.sqrt(4.5), Math.sqrt(4.5), Math.sqrt(4.5)],
        1e-12, 'std');
    assertArrayEqual(values(a.amax([0], false)), [4, 5, 6], 'amax');
    const lse = a.logsumexp([1], true);
    assertArrayEqual(lse.get_shape(), [2, 1], 'logsumexp keepdim shape');
    assertClose(values(lse), [Math.log(Math.E + Math.E ** 2 + Math.E ** 3),
        Math.log(Math.E ** 4 + Math.E ** 5 + Math.E ** 6)], 1e-12, 'logsumexp');
    assertArrayEqual(values(a.cumsum(1)), [1, 3, 6, 4, 9, 15], 'cumsum dim 1');
    assertArrayEqual(values(a.cumsum(0)), [1, 2, 3, 5, 7, 9], 'cumsum dim 0');
    const t = fromArray([3, 1, 4, 1, 5], [5], F64);
    const [sorted, order] = t.sort(0, false);
    assertArrayEqual(values(sorted), [1, 1, 3, 4, 5], 'sort values');
    assert(order.get_dtype() === I64, 'sort indices are int64');
    // ties may come in either order
    const ov = values(order);
    assert(ov[2] === 0 && ov[3] === 2 && ov[4] === 4 &&
           [ov[0], ov[1]].sort().join() === '1,3', `sort indices ${ov}`);
    const [desc, descIdx] = t.sort(0, true);
    assertArrayEqual(values(desc), [5, 4, 3, 1, 1], 'sort descending');
    assertArrayEqual(values(descIdx).slice(0, 3), [4, 2, 0], 'sort descending indices');
    const [top, topIdx] = t.topk(2, 0, true);
    assertArrayEqual(values(top), [5, 4], 'topk values');
    assertArrayEqual(values(topIdx), [4, 2], 'topk indices');
    const [bottom, bottomIdx] = fromArray([3, 1, 4, 2], [4], F64).topk(2, 0, false);
    assertArrayEqual(values(bottom), [1, 2], 'topk smallest');
    assertArrayEqual(values(bottomIdx), [1, 3], 'topk smallest indices');
    const m = fromArray([1, 0, 1, 1, 1, 1], [2, 3], F64);
    const all = m.all([1], false);
    assert(all.get_dtype() === BOOL, 'all gives bool');
    assertArrayEqual(values(all), [0, 1], 'all');
    assertArrayEqual(values(m.sub_scalar(1).any([1], false)), [1, 0], 'any');
    assertArrayEqual(values(m.all([], false)), [0], 'all over every dim');
    assertDlError(() => t.topk(6, 0, true), Dl.Error.ARGUMENT, 'topk k too large');
    assertDlError(() => a.amax([2], false), Dl.Error.INDEX, 'amax dim out of range');
});

// The pointwise op table, as the library lists it: every listed op is a
// method, and the in-place variants write into their tensor.
test('pointwise op table', () => {
    const all = Dl.pointwise_op_names(Dl.OpFlags.NONE);
    const inplace = Dl.pointwise_op_names(Dl.OpFlags.UNARY | Dl.OpFlags.INPLACE);
    assert(all.includes('exp') && all.includes('atan2'), 'exp and atan2 listed');
    assert(inplace.includes('sin') && !inplace.includes('gelu'), 'sin_ exists, gelu_ does not');
    for (const name of all)
        assert(typeof Dl.Tensor.prototype[name] === 'function', `Tensor.${name}`);
    const x = fromArray([0.5, -1, 2], [3], F64);
    const same = x.sin_();
    assert(same === x, 'sin_ returns its tensor');
    assertClose(values(x), [Math.sin(0.5), Math.sin(-1), Math.sin(2)], 1e-15, 'sin_');
    assertClose(values(x.sub_scaled(fromArray([1, 1, 1], [3], F64), 2)),
        [Math.sin(0.5) - 2, Math.sin(-1) - 2, Math.sin(2) - 2], 1e-15, 'sub_scaled');
});

test('indexing and joining', () => {
    const a = fromArray([1, 2, 3, 4, 5, 6], [2, 3], F64);
    const gi = fromArray([0, 0, 2, 1], [2, 2], I64);
    assertArrayEqual(values(a.gather(1, gi)), [1, 1, 6, 5], 'gather');
    assertArrayEqual(values(a.index_select(0, fromArray([1, 0, 1], [3], I64))),
        [4, 5, 6, 1, 2, 3, 4, 5, 6], 'index_select');
    assertArrayEqual(values(a.index_select(1, fromArray([2], [1], I64))), [3, 6],
        'index_select dim 1');
    const mask = a.gt_scalar(3);
    assert(mask.get_dtype() === BOOL, 'gt_scalar gives bool');
    assertArrayEqual(values(a.masked_fill(mask, -1)), [1, 2, 3, -1, -1, -1], 'masked_fill');
    const cond = fromArray([1, 0, 1], [3], BOOL);
    assertArrayEqual(values(Dl.where(cond, a, a.neg())), [1, -2, 3, 4, -5, 6], 'where');
    const nz = fromArray([0, 1, 2, 0], [2, 2], F64).nonzero();
    assertArrayEqual(nz.get_shape(), [2, 2], 'nonzero shape');
    assert(nz.get_dtype() === I64, 'nonzero gives int64');
    assertArrayEqual(values(nz), [0, 1, 1, 0], 'nonzero');
    const b = fromArray([7, 8, 9], [1, 3], F64);
    const c0 = Dl.cat([a, b], 0);
    assertArrayEqual(c0.get_shape(), [3, 3], 'cat shape');
    assertArrayEqual(values(c0), [1, 2, 3, 4, 5, 6, 7, 8, 9], 'cat dim 0');
    assertArrayEqual(values(Dl.cat([a, a], 1)), [1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6], 'cat dim 1');
    const x = fromArray([1, 2], [2], F64), y = fromArray([3, 4], [2], F64);
    const s0 = Dl.stack([x, y, x], 0);
    assertArrayEqual(s0.get_shape(), [3, 2], 'stack dim 0 shape');
    assertArrayEqual(values(s0), [1, 2, 3, 4, 1, 2], 'stack dim 0');
    const s1 = Dl.stack([x, y], 1);
    assertArrayEqual(s1.get_shape(), [2, 2], 'stack dim 1 shape');
    assertArrayEqual(values(s1), [1, 3, 2, 4], 'stack dim 1');
    assertArrayEqual(values(a.flip([1])), [3, 2, 1, 6, 5, 4], 'flip dim 1');
    assertArrayEqual(values(a.flip([0, 1])), [6, 5, 4, 3, 2, 1], 'flip both dims');
    const sq = Dl.arange(1, 10, 1, F64, null).view([3, 3]);
    assertArrayEqual(values(sq.tril(0)), [1, 0, 0, 4, 5, 0, 7, 8, 9], 'tril');
    assertArrayEqual(values(sq.tril(-1)), [0, 0, 0, 4, 0, 0, 7, 8, 0], 'tril -1');
    assertArrayEqual(values(sq.triu(1)), [0, 2, 3, 0, 0, 6, 0, 0, 0], 'triu 1');
    // unbind and chunk return arrays of views of the same storage
    const base = fromArray([1, 2, 3, 4, 5, 6], [2, 3], F64);
    const rows = base.unbind(0);
    assert(rows.length === 2, 'unbind count');
    assertArrayEqual(values(rows[0]), [1, 2, 3], 'unbind row 0');
    assertArrayEqual(values(rows[1]), [4, 5, 6], 'unbind row 1');
    rows[1].copy_(Dl.full([3], 0, F64, null));
    assertArrayEqual(values(base), [1, 2, 3, 0, 0, 0], 'unbind gives views');
    const cols = base.chunk(2, 1);
    assert(cols.length === 2, 'chunk count');
    assertArrayEqual(cols[0].get_shape(), [2, 2], 'first chunk shape');
    assertArrayEqual(cols[1].get_shape(), [2, 1], 'last chunk shape');
    assertArrayEqual(values(cols[0]), [1, 2, 0, 0], 'chunk 0');
    assertArrayEqual(values(cols[1]), [3, 0], 'chunk 1');
    cols[1].copy_(Dl.full([2, 1], 9, F64, null));
    assertArrayEqual(values(base), [1, 2, 9, 0, 0, 9], 'chunk gives views');
    // with grad, one node has every piece as an output (torch's SplitBackward0)
    const leaf = fromArray([1, 2, 3, 4], [4], F64);
    leaf.set_requires_grad(true);
    const halves = leaf.chunk(2, 0);
    assert(halves[0].get_grad_fn() === halves[1].get_grad_fn(), 'chunk: one node');
    assert(halves[1].get_output_nr() === 1, 'output_nr of the second piece');
    assert(halves[1].get_base() === leaf, 'pieces are views of the leaf');
    // unsafe_split: torch's UnsafeSplitBackward0, pieces that are no views
    const loose = leaf.unsafe_split(3, 0);
    assert(loose[0].get_grad_fn().get_name() === 'UnsafeSplitBackward0', 'unsafe_split node');
    assert(loose[1].get_base() === null && loose[1].get_output_nr() === 1, 'unsafe pieces');
    // reducing scatters, with a repeated index along dim 0
    const si = fromArray([0, 0, 0, 0, 1, 0], [2, 3], I64);
    const src = fromArray([1, 2, 3, 4, 5, 6], [2, 3], F64);
    assertArrayEqual(values(a.scatter_reduce(0, si, src, 'sum', true)), [6, 4, 12, 4, 10, 6],
        'scatter_reduce sum');
    assertArrayEqual(values(a.scatter_reduce(0, si, src, 'amax', false)), [4, 2, 6, 4, 5, 6],
        'scatter_reduce amax without self');
    assertArrayEqual(values(a.scatter_with_reduce(0, si, src, 'multiply')),
        [4, 4, 54, 4, 25, 6], 'scatter reduce=multiply');
    assertArrayEqual(values(a.scatter_value_with_reduce(0, si, 1, 'add')), [3, 3, 5, 4, 6, 6],
        'scatter a number, reduce=add');
    assertDlError(() => a.scatter_reduce(0, si, src, 'max', true), Dl.Error.ARGUMENT,
        'scatter_reduce with an unknown reduction');
    // unique rows: [1, 2] twice and [0, 5]
    const [rowsU, rowsInv, rowsCount] = fromArray([1, 2, 1, 2, 0, 5], [3, 2], F64).unique_dim(0);
    assertArrayEqual(rowsU.get_shape(), [2, 2], 'unique_dim shape');
    assertArrayEqual(values(rowsU), [0, 5, 1, 2], 'unique_dim values');
    assertArrayEqual(values(rowsInv), [1, 1, 0], 'unique_dim inverse');
    assertArrayEqual(values(rowsCount), [1, 2], 'unique_dim counts');
    const [runs] = fromArray([1, 1, 2, 2, 1, 1], [3, 2], F64).unique_consecutive_dim(1);
    assertArrayEqual(values(runs), [1, 2, 1], 'unique_consecutive_dim');
    assertDlError(() => a.gather(1, fromArray([0, 3], [2, 1], I64)), Dl.Error.INDEX,
        'gather index out of range');
    assertDlError(() => a.index_select(0, fromArray([2], [1], I64)), Dl.Error.INDEX,
        'index_select index out of range');
    assertDlError(() => a.gather(1, fromArray([0, 1], [2, 1], F32)), Dl.Error.DTYPE,
        'gather with a float index');
    assertDlError(() => Dl.cat([a, fromArray([1, 2], [1, 2], F64)], 0), Dl.Error.SHAPE,
        'cat with mismatched sizes');
    assertDlError(() => Dl.stack([], 0), Dl.Error.ARGUMENT, 'stack of nothing');
});

test('creation and random', () => {
    assertClose(values(Dl.linspace(0, 1, 5, F64, null)), [0, 0.25, 0.5, 0.75, 1], 1e-15, 'linspace');
    assertArrayEqual(values(Dl.linspace(2, -2, 3, F32, null)), [2, 0, -2], 'linspace down');
    const e = Dl.eye(2, 3, F32, null);
    assertArrayEqual(e.get_shape(), [2, 3], 'eye shape');
    assertArrayEqual(values(e), [1, 0, 0, 0, 1, 0], 'eye');
    // one generator seeded twice repeats itself; another seeded alike matches
    const g = Dl.Generator.new(null);
    g.manual_seed(1234);
    assert(g.initial_seed() === 1234, 'initial_seed');
    const r1 = values(Dl.rand_gen([6], F64, null, g));
    const n1 = values(Dl.randn_gen([6], F64, null, g));
    g.manual_seed(1234);
    const r2 = values(Dl.rand_gen([6], F64, null, g));
    const n2 = values(Dl.randn_gen([6], F64, null, g));
    assertArrayEqual(r2, r1, 'rand_gen repeats');
    assertArrayEqual(n2, n1, 'randn_gen repeats');
    assert(r1.every(v => v >= 0 && v < 1), `rand in [0, 1): ${r1}`);
    assert(new Set(r1).size === 6, 'rand values differ');
    const h = Dl.Generator.new(null);
    h.manual_seed(1234);
    assertArrayEqual(values(Dl.rand_gen([6], F64, null, h)), r1, 'second generator, same seed');
    h.manual_seed(4321);
    assert(values(Dl.rand_gen([6], F64, null, h)).join() !== r1.join(), 'another seed differs');
    // a CPU generator gives PyTorch's numbers: torch.manual_seed(0), then
    // torch.rand(3), torch.randperm(6), and its state is torch's 5056 bytes
    h.manual_seed(0);
    assertArrayEqual(values(Dl.rand_gen([3], Dl.DType.FLOAT32, null, h)),
        [0.49625658988952637, 0.7682217955589294, 0.08847743272781372], 'torch.rand');
    h.manual_seed(0);
    assertArrayEqual(values(Dl.randperm(6, I64, null, h)), [2, 5, 3, 0, 1, 4], 'torch.randperm');
    assert(h.get_state().get_size() === 5056, 'torch.get_rng_state size');
    // Tensor.random_(0, 10) draws as torch's after torch.manual_seed(0)
    h.manual_seed(0);
    const ints = Dl.zeros([4], I64, null).random_range_(0, 10, h);
    assertArrayEqual(values(ints), [4, 9, 3, 0], 'random_(from, to)');
    const p = Dl.randperm(10, I64, null, g);
    assert(p.get_dtype() === I64, 'randperm dtype');
    assertArrayEqual(values(p).sort((u, v) => u - v), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
        'randperm is a permutation');
    g.manual_seed(7);
    const p1 = values(Dl.randperm(10, I64, null, g));
    g.manual_seed(7);
    assertArrayEqual(values(Dl.randperm(10, I64, null, g)), p1, 'randperm repeats');
    assertDlError(() => Dl.linspace(0, 1, -1, F32, null), Dl.Error.ARGUMENT, 'linspace steps < 0');
    assertDlError(() => Dl.randperm(-1, I64, null, g), Dl.Error.ARGUMENT, 'randperm n < 0');
});

test('linear algebra', () => {
    const a = fromArray([1, 2, 3, 4, 5, 6], [2, 3], F64);
    const b = fromArray([1, 0, 0, 1, 1, 1], [3, 2], F64);
    assertArrayEqual(values(a.mm(b)), [4, 5, 10, 11], 'mm');
    // a batch of two 2x2 products
    const p = fromArray([1, 2, 3, 4, 1, 0, 0, 2], [2, 2, 2], F64);
    const q = fromArray([5, 6, 7, 8, 1, 1, 1, 1], [2, 2, 2], F64);
    const pq = p.bmm(q);
    assertArrayEqual(pq.get_shape(), [2, 2, 2], 'bmm shape');
    assertArrayEqual(values(pq), [19, 22, 43, 50, 1, 1, 2, 2], 'bmm');
    const u = fromArray([1, 2, 3], [3], F64), v = fromArray([4, 5, 6], [3], F64);
    assert(u.dot(v).item() === 32, 'dot');
    const o = fromArray([1, 2], [2], F64).outer(u);
    assertArrayEqual(o.get_shape(), [2, 3], 'outer shape');
    assertArrayEqual(values(o), [1, 2, 3, 2, 4, 6], 'outer');
    assertArrayEqual(values(Dl.einsum('ij,jk->ik', [a, b])), [4, 5, 10, 11], 'einsum matmul');
    assertArrayEqual(values(Dl.einsum('ij->ji', [a])), [1, 4, 2, 5, 3, 6], 'einsum transpose');
    assert(Dl.einsum('i,i->', [u, v]).item() === 32, 'einsum dot');
    assert(Dl.einsum('ii', [Dl.arange(1, 10, 1, F64, null).view([3, 3])]).item() === 15,
        'einsum trace');
    assertArrayEqual(values(Dl.einsum('bij,bjk->bik', [p, q])), [19, 22, 43, 50, 1, 1, 2, 2],
        'einsum batched');
    assertDlError(() => u.dot(fromArray([1, 2], [2], F64)), Dl.Error.SHAPE, 'dot size mismatch');
    assertDlError(() => a.mm(a), Dl.Error.SHAPE, 'mm shape mismatch');
    assertDlError(() => Dl.einsum('ij,jk->ik', [a]), Dl.Error.ARGUMENT, 'einsum operand count');
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

// The general form of forward: (a, [b]) -> (a + b, a * b), written in JS;
// b defaults to a.
const Pair = GObject.registerClass(
class Pair extends Dl.Module {
    vfunc_forward_many(inputs) {
        if (inputs.length < 1 || inputs.length > 2) {
            throw new GLib.Error(Dl.Error, Dl.Error.ARGUMENT,
                `Pair: takes 1 or 2 inputs, got ${inputs.length}`);
        }
        const [a, b = a] = inputs;
        return [a.add(b), a.mul(b)];
    }
});

// One output from several inputs: their sum.
const Sum = GObject.registerClass(
class Sum extends Dl.Module {
    vfunc_forward_many(inputs) {
        return [inputs.reduce((acc, t) => acc.add(t))];
    }
});

test('forward_many: several inputs and outputs', () => {
    const a = fromArray([1, 2], [2], F64), b = fromArray([3, 5], [2], F64);
    const pair = new Pair();
    for (let k = 0; k < 3; k++) {
        const out = pair.forward_many([a, b]);
        System.gc(); // the outputs belong to the caller, not to the collected call
        assert(out.length === 2, 'two outputs');
        assertArrayEqual(values(out[0]), [4, 7], 'a + b');
        assertArrayEqual(values(out[1]), [3, 10], 'a * b');
    }
    assertDlError(() => pair.forward_many([]), Dl.Error.ARGUMENT, 'the subclass\'s own error');
    // forward needs exactly one output
    const e = assertDlError(() => pair.forward(a), Dl.Error.ARGUMENT, 'forward on two outputs');
    assert(e.message.includes('gave 2 outputs'), e.message);

    const sum = new Sum();
    assertArrayEqual(values(sum.forward(a)), [1, 2], 'forward reaches vfunc_forward_many');
    assertArrayEqual(values(sum.forward_many([a, b, a])[0]), [5, 9], 'three inputs');

    // a one-in/one-out subclass through the general entry point
    const net = new Mlp(2, 3, 2);
    const out = net.forward_many([Dl.randn([4, 2], F32, null)]);
    assert(out.length === 1 && net.calls === 1, 'forward_many reaches vfunc_forward');
    assertArrayEqual(out[0].get_shape(), [4, 2], 'its shape');
    assertDlError(() => net.forward_many([a, b]), Dl.Error.ARGUMENT, 'two inputs to forward');
    assertDlError(() => new Dl.Module().forward_many([a]), Dl.Error.NOT_SUPPORTED, 'neither');
});

test('Dl.Linear from construct properties', () => {
    const l = new Dl.Linear({in_features: 4, out_features: 2});
    l.init(null);
    assert(l.in_features === 4 && l.out_features === 2 && l.bias === true, 'properties');
    assert(l.parameter_names().join() === 'weight,bias', 'parameters');
    assertArrayEqual(l.forward(Dl.randn([3, 4], F32, null)).get_shape(), [3, 2], 'forward');
    const noBias = new Dl.Linear({in_features: 3, out_features: 5, bias: false});
    assert(noBias.bias === false && noBias.get_parameter('bias') === null, 'bias: false');

    // a missing value: the constructor does not call init; init and
    // forward report it
    const broken = new Dl.Linear({in_features: 4});
    const e = assertDlError(() => broken.init(null), Dl.Error.ARGUMENT, 'init');
    assert(e.message.includes('out_features is missing'), e.message);
    assertDlError(() => broken.forward(Dl.randn([3, 4], F32, null)), Dl.Error.ARGUMENT, 'forward');
    assertDlError(() => Dl.Linear.new(-1, 2, true), Dl.Error.ARGUMENT, 'the C convenience');
});

test('Dl.Bilinear: two inputs through forward_many', () => {
    const l = new Dl.Bilinear({in1_features: 2, in2_features: 3, out_features: 2, dtype: F64});
    l.init(null);
    assert(l.in1_features === 2 && l.in2_features === 3 && l.out_features === 2, 'properties');
    assert(l.parameter_names().join() === 'weight,bias', 'parameters');
    const x1 = fromArray([1, -2, 0.5, 3], [2, 2], F64);
    const x2 = fromArray([0.1, 0.2, -0.3, 1.5, -1, 2], [2, 3], F64);
    const out = l.forward_many([x1, x2]);
    assert(out.length === 1, 'one output');
    assertArrayEqual(out[0].get_shape(), [2, 2], 'its shape');
    const w = values(l.get_parameter('weight')), b = values(l.get_parameter('bias'));
    const v1 = values(x1), v2 = values(x2), expected = [];
    for (let n = 0; n < 2; n++) {
        for (let o = 0; o < 2; o++) {
            let sum = b[o];
            for (let i = 0; i < 2; i++) {
                for (let j = 0; j < 3; j++)
                    sum += v1[n * 2 + i] * w[(o * 2 + i) * 3 + j] * v2[n * 3 + j];
            }
            expected.push(sum);
        }
    }
    assertClose(values(out[0]), expected, 1e-12, 'x1^T A x2 + b');
    assertClose(values(Dl.bilinear(x1, x2, l.get_parameter('weight'), null)),
        expected.map((v, k) => v - b[k % 2]), 1e-12, 'Dl.bilinear without a bias');
    assertDlError(() => l.forward(x1), Dl.Error.ARGUMENT, 'one input');
    assertDlError(() => l.forward_many([x2, x1]), Dl.Error.SHAPE, 'swapped inputs');
    assertDlError(() => Dl.Bilinear.new(2, -3, 1, true), Dl.Error.ARGUMENT, 'a negative size');
});

test('Dl.Sgd from construct properties', () => {
    const w = Dl.zeros([2], F64, null);
    w.set_requires_grad(true);
    // the parameters go through a Gio.ListStore: no property takes a JS array
    const params = new Gio.ListStore({item_type: Dl.Tensor});
    params.splice(0, 0, [w]);
    const sgd = new Dl.Sgd({params, lr: 0.5, momentum: 0.9});
    sgd.init(null);
    assert(sgd.lr === 0.5 && sgd.momentum === 0.9 && sgd.weight_decay === 0 &&
        sgd.nesterov === false, 'hyperparameters');
    assert(sgd.params.get_n_items() === 1, 'params read back');
    w.mul_scalar(3).sum().backward(null, false, false);
    sgd.step();
    assertArrayEqual(values(w), [-1.5, -1.5], 'one step');
    sgd.lr = -1;
    const e = assertDlError(() => sgd.step(), Dl.Error.ARGUMENT, 'negative lr');
    assert(e.message === 'SGD: Invalid learning rate: -1', e.message);
    assertDlError(() => new Dl.Sgd({lr: 0.1}).init(null), Dl.Error.ARGUMENT, 'no parameters');
    assertDlError(() => new Dl.Sgd({params, weight_decay: -1}).step(), Dl.Error.ARGUMENT,
        'a bad value reaches step');
});

test('activation modules from construct properties', () => {
    const x = fromArray([-2, -0.5, 0, 1.5, 3, -1], [2, 3], F64);
    const same = (m, ref, what) => {
        m.init(null);
        assertClose(values(m.forward(x)), values(ref), 0, what);
    };
    same(new Dl.Relu(), x.relu(), 'ReLU');
    same(new Dl.Sigmoid(), x.sigmoid(), 'Sigmoid');
    same(new Dl.Tanh(), x.tanh(), 'Tanh');
    same(new Dl.Gelu(), x.gelu(), 'GELU');
    same(new Dl.Gelu({approximate: 'tanh'}), x.gelu_tanh(), 'GELU tanh');
    same(new Dl.Silu(), x.silu(), 'SiLU');
    assertDlError(() => new Dl.Gelu({approximate: 'cubic'}).init(null), Dl.Error.ARGUMENT,
        'GELU approximate');
    same(new Dl.Softmax({dim: 1}), x.softmax(1), 'Softmax');
    same(new Dl.LogSoftmax({dim: -1}), x.log_softmax(1), 'LogSoftmax');
    const id = new Dl.Identity();
    assert(id.forward(x) === x, 'Identity gives its input');

    const copy = x.clone();
    const relu = new Dl.Relu({inplace: true});
    assert(relu.inplace === true, 'inplace property');
    relu.forward(copy);
    assertArrayEqual(values(copy), [0, 0, 0, 1.5, 3, 0], 'ReLU in place');

    // LeakyReLU: the module, the op and its in-place form, and its gradient
    const leaky = new Dl.LeakyRelu({negative_slope: 0.2});
    assert(leaky.negative_slope === 0.2 && leaky.inplace === false, 'LeakyReLU properties');
    assertClose(values(leaky.forward(x)), [-0.4, -0.1, 0, 1.5, 3, -0.2], 1e-15, 'LeakyReLU');
    assertClose(values(new Dl.LeakyRelu().forward(x)), [-0.02, -0.005, 0, 1.5, 3, -0.01], 1e-15,
        'LeakyReLU default slope');
    const lcopy = x.clone();
    assert(lcopy.leaky_relu_(0.5) === lcopy, 'leaky_relu_ returns its tensor');
    assertClose(values(lcopy), [-1, -0.25, 0, 1.5, 3, -0.5], 1e-15, 'leaky_relu_');
    const xg = x.detach();
    xg.set_requires_grad(true);
    xg.leaky_relu(0.3).sum().backward(null, false, false);
    assertClose(values(xg.get_grad()), [0.3, 0.3, 0.3, 1, 1, 0.3], 1e-15, 'leaky_relu gradient');

    const x4 = Dl.zeros([2, 3, 4, 5], F32, null);
    const flat = new Dl.Flatten();
    assert(flat.start_dim === 1 && flat.end_dim === -1, 'Flatten defaults');
    assertArrayEqual(flat.forward(x4).get_shape(), [2, 60], 'Flatten');
    assertArrayEqual(new Dl.Flatten({start_dim: 0, end_dim: 1}).forward(x4).get_shape(),
        [6, 4, 5], 'Flatten 0..1');

    const noDim = new Dl.Softmax();
    const e = assertDlError(() => noDim.init(null), Dl.Error.ARGUMENT, 'Softmax without dim');
    assert(e.message.includes('dim is missing'), e.message);
    assertDlError(() => noDim.forward(x), Dl.Error.ARGUMENT, 'its forward');
});

test('Dl.Sequential', () => {
    const modules = new Gio.ListStore({item_type: Dl.Module});
    modules.splice(0, 0, [new Dl.Linear({in_features: 4, out_features: 6}), new Dl.Relu()]);
    const seq = new Dl.Sequential({modules});
    seq.append(new Dl.Linear({in_features: 6, out_features: 2}));
    seq.init(null);
    assert(seq.get_length() === 3, 'length');
    assert(seq.parameter_names().join() === '0.weight,0.bias,2.weight,2.bias',
        `names: ${seq.parameter_names()}`);
    assert(seq.get(-1) instanceof Dl.Linear && seq.get(1) instanceof Dl.Relu, 'get');
    assertDlError(() => seq.get(3), Dl.Error.INDEX, 'get out of range');
    const x = Dl.randn([3, 4], F32, null);
    const ref = seq.get(2).forward(seq.get(0).forward(x).relu());
    assertClose(values(seq.forward(x)), values(ref), 0, 'forward chains');
    // the C convenience takes a JS array
    const seq2 = Dl.Sequential.new([new Dl.Tanh(), new Dl.Identity()]);
    assert(seq2.modules.get_n_items() === 2, 'modules read back');
    assert(new Dl.Sequential().forward(x) === x, 'empty gives its input');
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

test('loss modules', () => {
    const logits = fromArray([0.5, -1, 2, 0, 1, -0.5], [2, 3], F64);
    const target = fromArray([2, 0], [2], Dl.DType.INT64);
    const ce = new Dl.CrossEntropyLoss();
    assert(ce.reduction === Dl.Reduction.MEAN, 'reduction');
    const [loss] = ce.forward_many([logits, target]);
    assertClose([loss.item()], [Dl.cross_entropy(logits, target).item()], 0, 'CrossEntropyLoss');
    const [nll] = new Dl.NllLoss().forward_many([logits.log_softmax(1), target]);
    assertClose([nll.item()], [loss.item()], 1e-15, 'NllLoss');
    assertDlError(() => ce.forward(logits), Dl.Error.ARGUMENT, 'one input');
    assertDlError(() => new Dl.CrossEntropyLoss({reduction: Dl.Reduction.BATCHMEAN}).init(null),
        Dl.Error.ARGUMENT, 'batchmean');
});

// the margin and embedding losses and the distances: modules with their
// options as construct properties, and the functions
test('margin losses and distances', () => {
    const a = fromArray([0, 0], [2], F64);
    const p = fromArray([3, 4], [2], F64);
    const n = fromArray([0, 1], [2], F64);
    const triplet = new Dl.TripletMarginLoss({margin: 2, eps: 0, reduction: Dl.Reduction.SUM});
    assert(triplet.margin === 2 && triplet.p === 2 && !triplet.swap, 'TripletMarginLoss options');
    // max (0, 2 + |a - p| - |a - n|)
    const [loss] = triplet.forward_many([a, p, n]);
    assertClose([loss.item()], [6], 1e-12, 'TripletMarginLoss');
    assertClose([Dl.triplet_margin_loss(a, p, n, 2, 2, 0, true, Dl.Reduction.MEAN).item()], [6],
        1e-12, 'triplet_margin_loss with swap');
    // torch's documented examples: 0.85 and 0.325
    const scores = fromArray([0.1, 0.2, 0.4, 0.8], [1, 4], F64);
    const labels = fromArray([3, 0, -1, 1], [1, 4], Dl.DType.INT64);
    const [ml] = new Dl.MultiLabelMarginLoss().forward_many([scores, labels]);
    assertClose([ml.item()], [0.85], 1e-12, 'MultiLabelMarginLoss');
    const cls = fromArray([3], [1], Dl.DType.INT64);
    assertClose([Dl.multi_margin_loss(scores, cls, 1, 1, null, Dl.Reduction.MEAN).item()],
        [0.325], 1e-12, 'multi_margin_loss');
    const [d] = new Dl.PairwiseDistance({eps: 0}).forward_many([a, p]);
    assertClose([d.item()], [5], 1e-12, 'PairwiseDistance');
    assertClose(values(Dl.pdist(fromArray([0, 0, 3, 4, 6, 8], [3, 2], F64), 2)), [5, 10, 5],
        1e-12, 'pdist');
    assertDlError(() => new Dl.MultiMarginLoss({p: 3}).init(null), Dl.Error.ARGUMENT, 'p = 3');
    assertDlError(() => triplet.forward_many([a, p]), Dl.Error.ARGUMENT, 'two inputs of three');
});

// the other losses as modules (options as construct properties) and as
// functions, nn.init and clip_grad_norm_
test('losses, init and clip_grad_norm_', () => {
    const x = fromArray([0.5, -1, 2, 0], [2, 2], F64);
    const y = fromArray([1, 1, -0.5, 0.25], [2, 2], F64);
    const mse = new Dl.MseLoss({reduction: Dl.Reduction.SUM});
    const [sum] = mse.forward_many([x, y]);
    assertClose([sum.item()], [10.5625], 1e-15, 'MseLoss sum');
    assertClose(values(Dl.mse_loss(x, y, Dl.Reduction.NONE)), [0.25, 4, 6.25, 0.0625], 1e-15,
        'mse_loss none');
    const q = fromArray([0, 1, 0.25, 1], [4], F64);
    const z = fromArray([-1000, 1000, 0.5, -3], [4], F64);
    const pw = fromArray([2, 0.5, 1, 3], [4], F64);
    const bce = new Dl.BceWithLogitsLoss({pos_weight: pw, reduction: Dl.Reduction.NONE});
    const [perElement] = bce.forward_many([z, q]);
    assertClose(values(perElement), [0, 0, 0.8490769841801067, 9.145762054721226], 1e-14,
        'BceWithLogitsLoss');
    assertClose(values(Dl.binary_cross_entropy_with_logits(z, q, null, pw, Dl.Reduction.NONE)),
        values(perElement), 0, 'binary_cross_entropy_with_logits');
    const logits = fromArray([1, 2, 0.5, -1, 0, 0, 0, 0, 3, -2, 1, 0.5], [3, 4], F64);
    const target = fromArray([1, -100, 3], [3], Dl.DType.INT64);
    const ce = new Dl.CrossEntropyLoss({label_smoothing: 0.1, reduction: Dl.Reduction.SUM});
    const expected = Dl.cross_entropy_full(logits, target, null, -100, Dl.Reduction.SUM, 0.1);
    assertClose([ce.forward_many([logits, target])[0].item()], [expected.item()], 0,
        'CrossEntropyLoss label_smoothing');
    assertDlError(() => new Dl.HuberLoss({delta: -1}).init(null), Dl.Error.ARGUMENT, 'delta');

    const w = Dl.empty([30, 40], F32, null);
    Dl.init_kaiming_uniform_(w, Math.sqrt(5), 'fan_in', 'leaky_relu', null);
    const bound = 1 / Math.sqrt(40);
    assert(values(w).every(v => Math.abs(v) <= bound * (1 + 1e-6)), 'kaiming bound');
    assertDlError(() => Dl.init_kaiming_uniform_(w, 0, 'fan_in', 'swish', null),
        Dl.Error.ARGUMENT, 'nonlinearity');

    const p = fromArray([1, 2, 3], [3], F32);
    p.set_requires_grad(true);
    Dl.mse_loss(p, fromArray([4, -2, 3], [3], F32), Dl.Reduction.SUM).backward(null, false, false);
    // gradient 2 (p - t) = [-6, 8, 0]: norm 10, clipped to norm 1
    const total = Dl.clip_grad_norm_([p], 1.0, 2.0, false);
    assertClose([total.item()], [10], 1e-6, 'total norm');
    assertClose(values(p.get_grad()), [-0.6, 0.8, 0], 1e-6, 'clipped gradient');

    // weight_norm's weight: rows [3, 4] and [0, 2] scaled to norms 10 and 1
    const v = fromArray([3, 4, 0, 2], [2, 2], F64);
    v.set_requires_grad(true);
    const wn = Dl.weight_norm(v, fromArray([10, 1], [2, 1], F64), 0);
    assertClose(values(wn), [6, 8, 0, 1], 1e-12, 'weight_norm');
    assert(wn.get_grad_fn().get_name() === 'WeightNormInterfaceBackward0', 'weight_norm node');

    // a layer's input size is writable after construction (the lazy layers')
    const lazy = new Dl.Linear({in_features: 0, out_features: 2});
    lazy.in_features = 3;
    assert(lazy.get_in_features() === 3, 'in_features set after construction');
    const bn = new Dl.BatchNorm2d({num_features: 0});
    bn.num_features = 4;
    assert(bn.num_features === 4, 'num_features set after construction');
    assertDlError(() => Dl.weight_norm(v, v, 2), Dl.Error.INDEX, 'weight_norm dim');
});

// Sequential (Linear, ReLU, Linear), CrossEntropyLoss and SGD, all built
// from construct properties
test('Sequential trained with CrossEntropyLoss', () => {
    Dl.manual_seed(1);
    const modules = new Gio.ListStore({item_type: Dl.Module});
    modules.splice(0, 0, [
        new Dl.Linear({in_features: 2, out_features: 16}),
        new Dl.Relu(),
        new Dl.Linear({in_features: 16, out_features: 2}),
    ]);
    const model = new Dl.Sequential({modules});
    const lossFn = new Dl.CrossEntropyLoss();
    const params = new Gio.ListStore({item_type: Dl.Tensor});
    params.splice(0, 0, model.parameters());
    const sgd = new Dl.Sgd({params, lr: 0.5, momentum: 0.9});
    for (const object of [model, lossFn, sgd])
        object.init(null);
    const x = Dl.rand([64, 2], F32, null).mul_scalar(2).sub_scalar(1);
    const xv = values(x);
    const labels = [];
    for (let i = 0; i < 64; i++)
        labels.push(xv[2 * i] * xv[2 * i + 1] > 0 ? 1 : 0);
    const target = fromArray(labels, [64], Dl.DType.INT64);
    let first = null, last = null;
    for (let step = 0; step < 100; step++) {
        const [loss] = lossFn.forward_many([model.forward(x), target]);
        sgd.zero_grad(true);
        loss.backward(null, false, false);
        sgd.step();
        last = loss.item();
        if (first === null)
            first = last;
    }
    print(`# loss ${first.toFixed(4)} -> ${last.toFixed(4)}`);
    assert(last < 0.6 * first, `loss went down: ${first} -> ${last}`);
});

// Autograd functions: Dl.Function subclasses. GJS cannot put null into
// an array it gives C, so a backward gives any tensor (here the incoming
// gradient) for an input that needs no gradient; it is ignored.

// clamp (x, -0.5, 0.5) with a straight-through gradient
const ClampSt = GObject.registerClass({GTypeName: 'JsClampSt'},
class ClampSt extends Dl.Function {
    vfunc_forward([x]) {
        return [x.clamp_scalar(-0.5, 0.5)];
    }

    vfunc_backward([g]) {
        return [g];
    }
});

// (a, b) -> (a * b, a + alpha b), b broadcast to a; alpha a JS field
const MulAdd = GObject.registerClass({GTypeName: 'JsMulAdd'},
class MulAdd extends Dl.Function {
    vfunc_forward([a, b]) {
        this.save_for_backward([a, b]);
        this.alpha = 0.5;
        return [a.mul(b), a.add(b.mul_scalar(this.alpha))];
    }

    vfunc_backward([g0, g1]) {
        const [a, b] = this.get_saved_tensors();
        const ga = g0.mul(b).add(g1);
        // summed to b's shape by the function
        const gb = this.needs_input_grad(1) ? g0.mul(a).add(g1.mul_scalar(this.alpha)) : g0;
        return [ga, gb];
    }
});

// x^3, its backward written with ops: differentiable again
const Cube = GObject.registerClass({GTypeName: 'JsCube'},
class Cube extends Dl.Function {
    vfunc_forward([x]) {
        this.save_for_backward([x]);
        return [x.mul(x).mul(x)];
    }

    vfunc_backward([g]) {
        const [x] = this.get_saved_tensors();
        return [x.mul(x).mul_scalar(3).mul(g)];
    }
});

const BadFunction = GObject.registerClass({GTypeName: 'JsBadFunction'},
class BadFunction extends Dl.Function {
    vfunc_forward([x]) {
        return [x.mul_scalar(2)];
    }

    vfunc_backward([g]) {
        if (this.kind === 'count')
            return [g, g];
        if (this.kind === 'shape')
            return [Dl.zeros([5], F64, null)];
        return [new Dl.Generator()];
    }
});

function leaf(array, shape) {
    const t = fromArray(array, shape, F64);
    t.set_requires_grad(true);
    return t;
}

test('Dl.Function: gradients', () => {
    const x = leaf([-1, -0.25, 0.25, 1], [4]);
    const [y] = new ClampSt().apply([x]);
    System.gc(); // the function lives on as the grad_fn
    assertArrayEqual(values(y), [-0.5, -0.25, 0.25, 0.5], 'clamped');
    assert(y.get_grad_fn().get_name() === 'JsClampSt', 'grad_fn');
    y.mul(fromArray([1, 2, 3, 4], [4], F64)).sum().backward(null, false, false);
    assertArrayEqual(values(x.get_grad()), [1, 2, 3, 4], 'straight through');

    for (const needB of [false, true]) {
        const a = leaf([1, 2, 3, 4, 5, 6], [2, 3]);
        const b = fromArray([1, -1, 2], [3], F64);
        b.set_requires_grad(needB);
        const [p, s] = new MulAdd().apply([a, b]);
        System.gc();
        assertArrayEqual(values(p), [1, -2, 6, 4, -5, 12], 'a * b');
        assertArrayEqual(values(s), [1.5, 1.5, 4, 4.5, 4.5, 7], 'a + b / 2');
        p.add(s).sum().backward(null, false, false);
        assertArrayEqual(values(a.get_grad()), [2, 0, 3, 2, 0, 3], 'd/da');
        if (needB)
            assertArrayEqual(values(b.get_grad()), [6, 8, 10], 'd/db, summed to [3]');
        else
            assert(b.get_grad() === null, 'no gradient for b');
    }
});

test('Dl.Function: double backward', () => {
    const x = leaf([1, -2, 3], [3]);
    const [y] = new Cube().apply([x]);
    y.sum().backward(null, true, true);
    const g = x.get_grad();
    assertArrayEqual(values(g), [3, 12, 27], '3 x^2');
    x.set_grad(null);
    g.sum().backward(null, false, false);
    assertArrayEqual(values(x.get_grad()), [6, -12, 18], '6 x');
});

test('Dl.Function: errors', () => {
    const expected = {
        count: 'function JsBadFunction returned an incorrect number of gradients (expected 1, got 2)',
        shape: 'Function JsBadFunction returned an invalid gradient at index 0 - got [5] but ' +
            'expected shape compatible with [2]',
    };
    for (const kind of Object.keys(expected)) {
        const x = leaf([1, 2], [2]);
        const fn = new BadFunction();
        fn.kind = kind;
        const [y] = fn.apply([x]);
        const e = assertDlError(() => y.sum().backward(null, false, false),
            Dl.Error.AUTOGRAD, kind);
        assert(e.message.includes(expected[kind]), e.message);
    }
    // a non-tensor: GJS itself refuses to give it to C
    {
        const fn = new BadFunction();
        fn.kind = 'type';
        const [y] = fn.apply([leaf([1, 2], [2])]);
        let threw = null;
        try {
            y.sum().backward(null, false, false);
        } catch (err) {
            threw = err;
        }
        assert(threw !== null && `${threw}`.includes('cannot convert to DlTensor'), `${threw}`);
    }
    // backward twice, a saved tensor changed, apply twice
    const x = leaf([1, 2], [2]);
    const fn = new Cube();
    const [y] = fn.apply([x]);
    const loss = y.sum();
    loss.backward(null, false, false);
    let e = assertDlError(() => loss.backward(null, false, false), Dl.Error.AUTOGRAD, 'twice');
    assert(e.message.includes('backward through the graph a second time'), e.message);
    e = assertDlError(() => fn.apply([x]), Dl.Error.AUTOGRAD, 'apply twice');
    const h = x.mul_scalar(1);
    const [z] = new Cube().apply([h]);
    h.mul_scalar_(2);
    e = assertDlError(() => z.sum().backward(null, false, false), Dl.Error.AUTOGRAD, 'version');
    assert(e.message.includes('modified by an inplace operation'), e.message);
});

// Optimizers and schedulers: each optimizer stepped once, an optimizer
// written in JS (vfunc_step, driven by DlOptimizer's step), parameter
// groups, state and a scheduler.

function paramStore(...tensors) {
    const store = new Gio.ListStore({item_type: Dl.Tensor});
    store.splice(0, 0, tensors);
    return store;
}

function leafWithGrad() {
    const p = fromArray([1, -2, 3], [3], F64);
    p.set_requires_grad(true);
    p.set_grad(fromArray([0.5, -1, 2], [3], F64));
    return p;
}

test ('each optimizer steps once as torch.optim does', () => {
  // torch.optim 1.13's first step from these values, lr 0.1 (RMSprop 0.01)
  const cases = [
    [ Dl.Adam, { lr : 0.1 }, [ 0.9, -1.9, 2.9 ] ],
    [ Dl.AdamW, { lr : 0.1 }, [ 0.899, -1.898, 2.897 ] ],
    [ Dl.Rmsprop, { lr : 0.01 }, [ 0.9, -1.9, 2.9 ] ],
    [ Dl.Adagrad, { lr : 0.1 }, [ 0.9, -1.9, 2.9 ] ],
    [ Dl.Sgd, { lr : 0.1, momentum : 0.9, maximize : true }, [ 1.05, -2.1, 3.2 ] ],
    [ Dl.Adadelta, { lr : 0.1 }, [ 0.9996837785583488, -1.99968377381511, 2.9996837726292673 ] ],
    [ Dl.Adamax, { lr : 0.1 }, [ 0.900000002, -1.900000001, 2.9000000005 ] ],
    [ Dl.Nadam, { lr : 0.1 }, [ 0.8950468838442651, -1.895046882794734, 2.8950468822699684 ] ],
    [ Dl.Radam, { lr : 0.1 }, [ 0.95, -1.9, 2.8 ] ],
    [ Dl.Rprop, { lr : 0.1 }, [ 0.9, -1.9, 2.9 ] ],
    [ Dl.Asgd, { lr : 0.1 }, [ 0.9499899992547929, -1.8999799985095858, 2.7999699970193204 ] ],
  ];
  for (const [cls, props, expected] of cases)
    {
      const p = leafWithGrad ();
      const opt = new cls ({ params : paramStore (p), ...props });
      opt.init(null);
      opt.step();
      assertClose (values (p), expected, 1e-6, `${cls.name} one step`);
      assert (opt.list_state(0).length > 0, `${cls.name} keeps a state`);
    }
  const adam = new Dl.Adam({ params : paramStore (leafWithGrad ()), lr : 0.1, beta1 : 0.5 });
  adam.step();
  assert (adam.list_state(0).join() === 'exp_avg,exp_avg_sq,step', adam.list_state(0).join());
  assert (adam.get_state(0, 'step').item() === 1, 'step count');
  assertDlError (() => new Dl.Adam({ params : paramStore (leafWithGrad ()), beta2 : 1 }).init(null),
                 Dl.Error.ARGUMENT, 'bad beta');
  // NAdam's second step from its constructor, and its state in torch's names
  const nadam = Dl.Nadam.new([ leafWithGrad () ], 0.1, 0.9, 0.999, 1e-8, 0, 4e-3);
  nadam.step();
  nadam.step();
  assertClose (values (nadam.get_params()[0]),
               [ 0.8171707556281658, -1.8171707537998734, 2.817170752885727 ], 1e-6,
               'NAdam two steps');
  assert (nadam.list_state(0).join() === 'exp_avg,exp_avg_sq,mu_product,step',
          nadam.list_state(0).join());
  assertDlError (() => Dl.Rprop.new([ leafWithGrad () ], 0.1, 1.5, 2, 1e-6, 50), Dl.Error.ARGUMENT,
                 'bad etas');
});

test ('CyclicLR from JS, its rates and momenta as torch.optim 1.13', () => {
  const sgd = Dl.Sgd.new([ leafWithGrad () ], 0.1, 0.9, 0, 0, false);
  const clr = Dl.CyclicLr.new(sgd, 0.01, 0.1, 2, 0, 'triangular2', 1, true, 0.8, 0.9);
  const lrs = [ sgd.get_group_lr(0) ], momenta = [ sgd.get_group_option(0, 'momentum') ];
  for (let i = 0; i < 8; i++)
    {
      clr.step();
      lrs.push(sgd.get_group_lr(0));
      momenta.push(sgd.get_group_option(0, 'momentum'));
    }
  assertClose (lrs, [ 0.01, 0.055, 0.1, 0.055, 0.01, 0.0325, 0.055, 0.0325, 0.01 ], 1e-12,
               'CyclicLR rates');
  assertClose (momenta, [ 0.9, 0.85, 0.8, 0.85, 0.9, 0.875, 0.85, 0.875, 0.9 ], 1e-12,
               'CyclicLR momenta');
});

test('parameter groups and state from JS', () => {
    const a = leafWithGrad(), b = leafWithGrad();
    const sgd = new Dl.Sgd({params: paramStore(a), lr: 0.1, momentum: 0.9});
    sgd.add_param_group([b], ['lr', 'momentum'], [1, 0]);
    assert(sgd.get_n_param_groups() === 2, 'two groups');
    sgd.set_group_lr(1, 0.5);
    sgd.step();
    assertClose(values(a), [0.95, -1.9, 2.8], 1e-12, 'group 0');
    assertClose(values(b), [0.75, -1.5, 2], 1e-12, 'group 1');
    // no momentum in group 1: the entry holds no tensor, as PyTorch's None
    assert(sgd.get_state(1, 'momentum_buffer') === null, 'no momentum in group 1');
    assert(sgd.list_state(1).join() === 'momentum_buffer', `entries ${sgd.list_state(1)}`);
    sgd.clear_state(1);
    assert(sgd.list_state(1).length === 0, 'cleared');
    const adagrad = Dl.Adagrad.new([leafWithGrad()], 0.1, 0, 0, 0.25, 1e-10);
    assert(adagrad.list_state(0).join() === 'step,sum', 'Adagrad state at construction');
    assertArrayEqual(values(adagrad.get_state(0, 'sum')), [0.25, 0.25, 0.25], 'sum');
    const buf = sgd.get_state(0, 'momentum_buffer');
    const fresh = new Dl.Sgd({params: paramStore(leafWithGrad()), lr: 0.1, momentum: 0.9});
    fresh.set_state(0, 'momentum_buffer', buf);
    assertArrayEqual(values(fresh.get_state(0, 'momentum_buffer')), values(buf), 'restored');
});

test('an optimizer checkpoint through a file', () => {
    const dir = GLib.dir_make_tmp('dl-gjs-XXXXXX');
    const file = Gio.File.new_for_path(GLib.build_filenamev([dir, 'adam.safetensors']));
    const run = (opt, p, steps) => {
        for (let i = 0; i < steps; i++) {
            p.set_grad(fromArray([0.5 * (i + 1), -1, 2], [3], F64));
            opt.step();
        }
    };
    const p = leafWithGrad(), q = leafWithGrad();
    const straight = Dl.Adam.new([p], 0.1, 0.9, 0.999, 1e-8, 0, true);
    run(straight, p, 4);
    const first = Dl.Adam.new([q], 0.1, 0.9, 0.999, 1e-8, 0, true);
    run(first, q, 2);
    first.save_state(file, null);
    const second = Dl.Adam.new([q], 0.1, 0.9, 0.999, 1e-8, 0, true);
    second.load_state(file, null);
    assert(second.list_state(0).join() === 'exp_avg,exp_avg_sq,max_exp_avg_sq,step',
        `state ${second.list_state(0)}`);
    for (let i = 2; i < 4; i++) {
        q.set_grad(fromArray([0.5 * (i + 1), -1, 2], [3], F64));
        second.step();
    }
    assertArrayEqual(values(q), Array.from(values(p)), 'resumed as the uninterrupted run');
    const two = Dl.Adam.new([leafWithGrad(), leafWithGrad()], 0.1, 0.9, 0.999, 1e-8, 0, false);
    assertDlError(() => two.load_state(file, null), Dl.Error.ARGUMENT, 'group size');
    file.delete(null);
    Gio.File.new_for_path(dir).delete(null);
});

test('LBFGS with a JS closure', () => {
    const p = fromArray([1, -2, 3], [3], F64);
    p.set_requires_grad(true);
    const centre = fromArray([1, 2, 3], [3], F64);
    const lbfgs = Dl.Lbfgs.new([p], 1, 20, 10, 'strong_wolfe');
    let calls = 0;
    const loss = lbfgs.step_closure(() => {
        calls++;
        p.set_grad(null);
        const d = p.sub(centre);
        const l = d.mul(d).sum();
        l.backward(null, false, false);
        return l;
    });
    assert(loss.item() === 16, `first loss ${loss.item()}`);
    assertClose(values(p), [1, 2, 3], 1e-6, 'minimum');
    assert(calls > 1, 'several evaluations');
    // the history is the first parameter's state, PyTorch's keys
    const names = lbfgs.list_state(0).join();
    assert(names === 'H_diag,al,d,func_evals,n_iter,old_dirs,old_stps,prev_flat_grad,' +
        'prev_loss,ro,t', `state ${names}`);
    const dirs = lbfgs.get_state(0, 'old_dirs');
    assert(dirs.get_shape()[1] === 3 && dirs.get_shape()[0] ===
        lbfgs.get_state(0, 'ro').get_shape()[0], 'old_dirs rows and ro');
    assert(lbfgs.get_state(0, 'func_evals').item() === calls, 'func_evals');
});

const SignSgd = GObject.registerClass(
class SignSgd extends Dl.Optimizer {
    vfunc_step() {
        for (let g = 0; g < this.get_n_param_groups(); g++) {
            const lr = this.get_group_lr(g);
            for (const p of this.get_group_params(g)) {
                const grad = p.get_grad();
                if (grad)
                    p.add_scaled_(grad.sign(), -lr);
            }
        }
        return true;
    }
});

test('an optimizer written in JS, with a scheduler', () => {
    const p = leafWithGrad();
    const opt = new SignSgd({params: paramStore(p), lr: 0.5});
    opt.init(null);
    const sched = Dl.StepLr.new(opt, 1, 0.5);
    opt.step();
    assertArrayEqual(values(p), [0.5, -1.5, 2.5], 'JS step');
    sched.step();
    assert(sched.get_last_lr()[0] === 0.25 && opt.lr === 0.25, 'StepLR halves');
    opt.step();
    assertArrayEqual(values(p), [0.25, -1.25, 2.25], 'second step at the new rate');
    const state = sched.get_state().deepUnpack();
    assert(state.last_epoch.unpack() === 1, 'scheduler state');
});

// A scheduler written in JS: compute_lr hands its rate back through an out
// parameter (GJS 1.74 turns a returned double into 0), so the JS function
// just returns the number
const HalvingLr = GObject.registerClass(class HalvingLr extends Dl.LrScheduler {
    vfunc_compute_lr(group, currentLr) {
        const e = this.get_last_epoch();
        if (e < 0)
            throw new Error('compute_lr before the first epoch');
        return e > 0 && e % 2 === 0 ? currentLr / 2 : currentLr;
    }
});

test('LambdaLR with a JS function, and a scheduler written in JS', () => {
    const p = leafWithGrad();
    const q = leafWithGrad();
    const opt = Dl.Sgd.new([p], 0.1, 0, 0, 0, false);
    opt.add_param_group([q], ['lr'], [0.5]);
    const factors = [e => 0.95 ** e, e => 1 / (e + 1)];
    const lambda = Dl.LambdaLr.new(opt, (group, epoch) => factors[group](epoch));
    const expected = e => [0.1 * 0.95 ** e, 0.5 / (e + 1)];
    assertClose(lambda.get_last_lr(), expected(0), 1e-15, 'epoch 0');
    for (let e = 1; e <= 4; e++) {
        lambda.step();
        assertClose(lambda.get_last_lr(), expected(e), 1e-15, `epoch ${e}`);
        assertClose([opt.get_group_lr(0), opt.get_group_lr(1)], expected(e), 1e-15,
            `the optimizer's rates at epoch ${e}`);
    }
    // an exception in the function fails the step with it
    const failing = Dl.LambdaLr.new(opt, (group, epoch) => {
        if (epoch > 0)
            throw new Error('no factor past epoch 0');
        return 1;
    });
    let message = '';
    try {
        failing.step();
    } catch (e) {
        message = `${e}`;
    }
    assert(message.includes('no factor past epoch 0'), `the step fails: ${message}`);

    // the JS subclass over the C stepping: 1, 1, 1/2, 1/2, 1/4 of the rates
    const opt2 = Dl.Sgd.new([p], 0.1, 0, 0, 0, false);
    const halving = new HalvingLr({optimizer: opt2});
    halving.init(null);
    const lrs = [];
    for (let i = 0; i < 5; i++) {
        halving.step();
        lrs.push(halving.get_last_lr()[0]);
    }
    assertClose(lrs, [0.1, 0.05, 0.05, 0.025, 0.025], 1e-15, 'JS scheduler');
    // and called from C through the class
    assertClose([halving.get_lr(0, 0.8)], [0.8], 0, 'get_lr at an odd epoch');
});

test('safetensors: a module state dict round trip through a file', () => {
    const dir = GLib.dir_make_tmp('dl-gjs-XXXXXX');
    const file = Gio.File.new_for_path(GLib.build_filenamev([dir, 'model.safetensors']));
    const a = Dl.Linear.new(4, 3, true);
    const b = Dl.Linear.new(4, 3, true);
    a.save_state(file, null);
    b.load_state(file, true, null);
    assertArrayEqual(values(b.get_parameter('weight')), values(a.get_parameter('weight')), 'weight');
    assertArrayEqual(values(b.get_parameter('bias')), values(a.get_parameter('bias')), 'bias');

    // a dict of tensors with metadata, every name and value back
    const dict = new Dl.TensorDict();
    dict.insert('x', fromArray([1, 2, 3, 4, 5, 6], [2, 3], Dl.DType.BFLOAT16).transpose(0, 1));
    dict.insert('n', fromArray([7], [], Dl.DType.INT64));
    dict.set_metadata('epoch', '3');
    Dl.safetensors_save(dict, file, null);
    const back = Dl.safetensors_load(file, null);
    assert(back.get_names().join() === 'n,x', `names ${back.get_names()}`);
    assertArrayEqual(values(back.lookup('x')), [1, 4, 2, 5, 3, 6], 'transposed values');
    assert(back.lookup('x').get_dtype() === Dl.DType.BFLOAT16, 'dtype');
    assertArrayEqual(values(back.lookup('n')), [7], '0-d');
    assert(back.get_metadata('epoch') === '3', 'metadata');

    const state = a.state_dict();
    assert(state.get_names().join() === 'weight,bias', `state names ${state.get_names()}`);
    const [ok, missing, unexpected] = Dl.Linear.new(4, 3, false).load_state_dict(state, false);
    assert(ok && missing.length === 0 && unexpected.join() === 'bias', 'non-strict keys');
    const e = assertDlError(() => Dl.Linear.new(5, 3, true).load_state(file, true, null),
        Dl.Error.ARGUMENT, 'mismatch');
    assert(e.message.includes('Unexpected key(s)'), e.message);
    assertDlError(() => Dl.safetensors_load_bytes(new GLib.Bytes(new Uint8Array([1, 2, 3]))),
        Dl.Error.FORMAT, 'a truncated file');
    file.delete(null);
    Gio.File.new_for_path(dir).delete(null);
});

test('module toolkit: named_modules, apply, to(), hooks, ModuleList, ModuleDict', () => {
    const net = new Dl.Module();
    const features = Dl.Sequential.new([Dl.Linear.new(2, 3, true), Dl.Relu.new(false)]);
    net.add_module('features', features);
    const heads = Dl.ModuleList.new([Dl.Linear.new(3, 1, false)]);
    heads.append(Dl.Tanh.new());
    heads.insert(0, Dl.Linear.new(3, 2, true));
    net.add_module('heads', heads);
    const [mods, names] = net.named_modules(true);
    assert(names.join() === ',features,features.0,features.1,heads,heads.0,heads.1,heads.2',
        `names ${names}`);
    assert(mods.length === 8, 'modules');
    const [params, pnames] = net.named_parameters(true);
    assert(pnames.join() === 'features.0.weight,features.0.bias,heads.0.weight,heads.0.bias,' +
        'heads.1.weight', `params ${pnames}`);
    assert(params.every(p => p.is_parameter()), 'marked as parameters');
    assertDlError(() => net.add_module('a.b', Dl.Relu.new(false)), Dl.Error.ARGUMENT, 'a dot');

    const seen = [];
    net.apply(m => seen.push(GObject.type_name(m.constructor.$gtype)));
    assert(seen[seen.length - 1] === 'DlModule' && seen.length === 8, `apply ${seen}`);

    const w = params[0];
    assert(net.to_dtype(F64), 'to_dtype');
    assert(w.get_dtype() === F64 && net.named_parameters(true)[0][0] === w, 'same object');
    net.to_dtype(F32);

    const dict = Dl.ModuleDict.new();
    dict.insert('act', Dl.Relu.new(false));
    assert(dict.get_keys().join() === 'act' && dict.get_length() === 1, 'dict');
    assertDlError(() => dict.pop('none'), Dl.Error.INDEX, 'missing key');

    const log = [];
    const relu = features.get(1);
    const id = relu.register_forward_hook((m, inputs, outputs) => {
        log.push(`post ${inputs.length} ${outputs.length}`);
        return null;
    });
    const pre = relu.register_forward_pre_hook((m, inputs) => {
        log.push('pre');
        return null;
    });
    const y = features.forward(fromArray([1, -1], [1, 2]));
    assert(y.get_shape().join() === '1,3', 'forward');
    assert(log.join() === 'pre,post 1 1', `hooks ${log}`);
    assert(relu.remove_hook(id) && relu.remove_hook(pre) && !relu.remove_hook(pre), 'removed');
    features.forward(fromArray([1, -1], [1, 2]));
    assert(log.length === 2, 'no more hooks');

    // hooks that replace the inputs and the outputs
    const neg = Dl.Relu.new(false);
    neg.register_forward_pre_hook((m, inputs) => [inputs[0].mul_scalar(-1)]);
    neg.register_forward_hook((m, inputs, outputs) => [outputs[0].add_scalar(10)]);
    assertArrayEqual(values(neg.forward(fromArray([1, -2], [2]))), [10, 12], 'replaced');

    const un = Dl.Unflatten.new(1, [2, 2]);
    assert(un.forward(fromArray([1, 2, 3, 4], [1, 4])).get_shape().join() === '1,2,2',
        'unflatten');
    assert(features.to_string().startsWith('Sequential(\n  (0): Linear(in_features=2'),
        features.to_string());
});

test('data: a JS data set, TensorDataset and DataLoader', () => {
    // a data set written in JS: sample i is ([i, 2 i], i); JS runs on the
    // caller's thread only, so the loader loads it there even with workers
    const Pairs = GObject.registerClass(
    class Pairs extends Dl.Dataset {
        vfunc_get_length() {
            return 10;
        }

        vfunc_load_item(index) {
            if (index === 7)
                throw new GLib.Error(Dl.Error, Dl.Error.IO, 'sample 7 is broken');
            return [fromArray([index, 2 * index], [2]), fromArray([index], [], Dl.DType.INT64)];
        }
    });
    const pairs = new Pairs();
    assert(!pairs.is_thread_safe(), 'a JS data set is not thread-safe');
    const loader = new Dl.DataLoader({dataset: pairs, batch_size: 3, num_workers: 2});
    loader.init(null);
    assert(loader.get_length() === 4, `length ${loader.get_length()}`);
    const it = loader.iterate();
    let [ok, batch] = it.next();
    assert(ok && batch.length === 2, 'first batch');
    assertArrayEqual(values(batch[0]), [0, 0, 1, 2, 2, 4], 'stacked images');
    assertArrayEqual(values(batch[1]), [0, 1, 2], 'stacked labels');
    [ok, batch] = it.next();
    assert(ok, 'second batch');
    assertDlError(() => it.next(), Dl.Error.IO, 'the broken sample');
    [ok] = it.next();
    assert(!ok, 'the pass ends after an error');

    // TensorDataset, shuffled with a seeded generator, on worker threads
    const xs = fromArray([...Array(20).keys()], [10, 2]);
    const ys = fromArray([...Array(10).keys()], [10], Dl.DType.INT64);
    const ds = Dl.TensorDataset.new([xs, ys]);
    const order = workers => {
        const gen = new Dl.Generator();
        gen.manual_seed(5);
        const l = new Dl.DataLoader({dataset: ds, batch_size: 4, shuffle: true,
            num_workers: workers, generator: gen});
        const pass = l.iterate();
        const seen = [];
        for (let [more, b] = pass.next(); more; [more, b] = pass.next())
            seen.push(...values(b[1]));
        return seen;
    };
    const a = order(0), b = order(2);
    assertArrayEqual(a, b, 'the same order with and without workers');
    assertArrayEqual([...a].sort((u, v) => u - v), [...Array(10).keys()], 'a permutation');
    const parts = Dl.random_split(ds, [0.7, 0.3], null);
    assert(parts.length === 2 && parts[0].get_length() === 7, 'random_split');
    assertDlError(() => Dl.DataLoader.new(ds, 0, false), Dl.Error.ARGUMENT, 'batch size 0');
});

test('normalisation: Dl.batch_norm and the BatchNorm2d, LayerNorm, GroupNorm layers', () => {
    const x = fromArray([1, 10, 3, 20], [2, 2], F32);
    const rm = fromArray([0, 0], [2], F32), rv = fromArray([1, 1], [2], F32);
    const y = Dl.batch_norm(x, rm, rv, null, null, true, 0.1, 0);
    assertClose(values(y), [-1, -1, 1, 1], 1e-6, 'batch statistics');
    assertClose(values(rm), [0.2, 1.5], 1e-6, 'running mean');

    const bn = new Dl.BatchNorm2d({num_features: 3, momentum: -1});
    const img = Dl.randn([4, 3, 2, 2], F32, null);
    img.set_requires_grad(true);
    const out = bn.forward(img);
    out.mul(out).sum().backward(null, false, false);
    assert(img.get_grad() !== null && bn.get_parameter('bias').get_grad() !== null, 'gradients');
    assert(bn.get_buffer('num_batches_tracked').item() === 1, 'batches tracked');
    assert(bn.state_dict().get_names().join() ===
        'weight,bias,running_mean,running_var,num_batches_tracked', bn.state_dict().get_names());
    const e = assertDlError(() => bn.forward(Dl.randn([4, 3, 2], F32, null)), Dl.Error.SHAPE,
        'rank');
    assert(e.message === 'BatchNorm2d: expected 4D input (got 3D input)', e.message);

    const ln = new Dl.LayerNorm({normalized_shape: new GLib.Variant('ax', [2, 2])});
    const lo = ln.forward(img);
    lo.sum().backward(null, false, false);
    assert(ln.get_parameter('weight').get_grad() !== null, 'layer norm weight gradient');
    assertArrayEqual(Array.from(ln.get_normalized_shape()), [2, 2], 'normalized shape');

    const gn = new Dl.GroupNorm({num_groups: 3, num_channels: 3});
    const go = gn.forward(img);
    go.sum().backward(null, false, false);
    assert(gn.get_parameter('weight').get_grad() !== null, 'group norm weight gradient');
    assertDlError(() => Dl.GroupNorm.new(4, 6), Dl.Error.ARGUMENT, 'groups not dividing');
});

test('diagonal, diag, trace and bincount', () => {
    const m = fromArray([1, 2, 3, 4, 5, 6], [2, 3]);
    assertArrayEqual(values(m.diagonal(1, 0, 1)), [2, 6], 'diagonal above the main one');
    assertArrayEqual(values(m.diag(0)), [1, 5], 'diag of a matrix');
    assert(m.trace().item() === 6, 'trace');
    assertArrayEqual(values(fromArray([7, 8], [2]).diag(1)), [0, 7, 0, 0, 0, 8, 0, 0, 0],
        'diag of a vector');
    const counts = fromArray([0, 2, 2, 5], [4], Dl.DType.INT64).bincount(null, 0);
    assertArrayEqual(values(counts), [1, 0, 2, 0, 0, 1], 'bincount');
    assertDlError(() => m.diagonal(0, 1, 1), Dl.Error.ARGUMENT, 'identical dims');
});

test('in-place forms: an exponential moving average (lerp_), addmm_, cumsum_; as_strided', () => {
    const ema = fromArray([0, 10], [2]);
    assert(ema.lerp_scalar_(fromArray([10, 0], [2]), 0.25) === ema, 'lerp_ returns self');
    assertArrayEqual(values(ema), [2.5, 7.5], 'ema moved a quarter of the way');
    const c = fromArray([1, 1, 1, 1], [2, 2]);
    c.addmm_(fromArray([1, 2], [2, 1]), fromArray([3, 4], [1, 2]), 0.5, 2);
    assertArrayEqual(values(c), [6.5, 8.5, 12.5, 16.5], 'beta c + alpha a b');
    assertArrayEqual(values(fromArray([1, 2, 3], [3]).cumsum_(0)), [1, 3, 6], 'cumsum_');
    assertDlError(() => fromArray([1, 2], [2]).addmm_(c, c, 1, 1), Dl.Error.SHAPE, 'addmm');
    // as_strided: sliding windows of three over a vector, sharing its memory
    const windows = fromArray([1, 2, 3, 4, 5], [5]).as_strided([3, 3], [1, 1], 0);
    assertArrayEqual(values(windows.contiguous()), [1, 2, 3, 2, 3, 4, 3, 4, 5], 'windows');
    // resize_: the label buffer of the DCGAN example, grown and then filled
    const label = fromArray([0], [1]);
    assert(label.resize_([4]) === label, 'resize_ returns self');
    assertArrayEqual(values(label.fill_(1)), [1, 1, 1, 1], 'resized and filled');
});

test('scaled dot product attention', () => {
    // keys all zero: uniform weights over the keys each query may attend
    const q = fromArray([0.3, -1, 2, 0.5], [1, 2, 2]);
    const k = Dl.zeros([1, 3, 2], F32, null);
    const v = fromArray([1, 2, 3, 4, 5, 6], [1, 3, 2]);
    v.set_requires_grad(true);
    const out = Dl.scaled_dot_product_attention(q, k, v, null, 0, true, 0, null);
    assertClose(values(out), [1, 2, 2, 3], 1e-6, 'causal attention');
    out.sum().backward(null, false, false);
    assertClose(values(v.get_grad()), [1.5, 1.5, 0.5, 0.5, 0, 0], 1e-6, 'value gradient');
    assertDlError(() => Dl.scaled_dot_product_attention(q, v.t(), v, null, 0, false, 0, null),
        Dl.Error.SHAPE, 'embedding dims differ');
});

test('recurrent layers: an LSTM built, run and backpropagated, a GRU cell', () => {
    const lstm = new Dl.Lstm({input_size: 3, hidden_size: 4, num_layers: 2, bidirectional: true});
    const x = Dl.randn([5, 2, 3], Dl.DType.FLOAT32, null);
    x.set_requires_grad(true);
    const [y, hN, cN] = lstm.forward_state(x, null, null);
    assertArrayEqual(Array.from(y.get_shape()), [5, 2, 8], 'output shape');
    assertArrayEqual(Array.from(hN.get_shape()), [4, 2, 4], 'h_n shape');
    assertArrayEqual(Array.from(cN.get_shape()), [4, 2, 4], 'c_n shape');
    y.sum().add(cN.sum()).backward(null, false, false);
    assert(x.get_grad() !== null, 'input gradient');
    assert(lstm.get_parameter('weight_hh_l1_reverse').get_grad() !== null, 'weight gradient');
    assert(lstm.get_mode() === Dl.RnnMode.LSTM, 'mode');
    const outs = lstm.forward_many([x, hN, cN]);
    assert(outs.length === 3, 'forward_many gives output, h_n, c_n');
    assertDlError(() => lstm.forward(Dl.randn([5, 2, 7], Dl.DType.FLOAT32, null)),
        Dl.Error.SHAPE, 'wrong input size');

    const cell = Dl.GruCell.new(3, 4, true);
    const h = cell.step(Dl.randn([2, 3], Dl.DType.FLOAT32, null), null);
    assertArrayEqual(Array.from(h.get_shape()), [2, 4], 'cell state shape');
});

test('multi-head attention and a transformer encoder layer', () => {
    const x = fromArray(Array.from({length: 24}, (_, i) => Math.sin(i)), [3, 2, 4]);
    x.set_requires_grad(true);
    const mha = new Dl.MultiheadAttention({embed_dim: 4, num_heads: 2});
    const [out, weights] = mha.attend(x, x, x, null, true, null, true, false);
    assertArrayEqual(Array.from(out.get_shape()), [3, 2, 4], 'attention output shape');
    assertArrayEqual(Array.from(weights.get_shape()), [2, 3, 3], 'averaged weights shape');
    assertClose(values(weights.sum_dims([2], false)), [1, 1, 1, 1, 1, 1], 1e-6,
        'weights sum to one');
    const [fused, none] = mha.attend(x, x, x, null, false, null, true, false);
    assert(none === null, 'no weights without need_weights');
    assertClose(values(fused), values(out), 1e-5, 'fused and materialised attention agree');
    out.sum().backward(null, false, false);
    assert(mha.get_parameter('in_proj_weight').get_grad() !== null, 'in_proj_weight gradient');
    assert(x.get_grad() !== null, 'input gradient');
    assertDlError(() => Dl.MultiheadAttention.new(5, 2, 0, true, false, false, 0, 0, false),
        Dl.Error.ARGUMENT, 'embed_dim not divisible by num_heads');

    const layer = new Dl.TransformerEncoderLayer({d_model: 4, nhead: 2, dim_feedforward: 8,
        dropout: 0, activation: Dl.TransformerActivation.GELU});
    const mask = Dl.Transformer.generate_square_subsequent_mask(3);
    const y = layer.encode(x, mask, null, false);
    assertArrayEqual(Array.from(y.get_shape()), [3, 2, 4], 'encoder layer output shape');
    y.sum().backward(null, false, false);
    assert(layer.get_module('linear1').get_parameter('weight').get_grad() !== null,
        'linear1 gradient');
    assertDlError(() => layer.encode(x, Dl.zeros([2, 2], F32, null), null, false),
        Dl.Error.SHAPE, 'mask of the wrong shape');
});

test('pytorch: a Linear runs on the weights of a torch.save state dict', () => {
    // tests/data/pytorch-*.pt, written by tests/data/make-pytorch-fixtures.py
    const data = GLib.build_filenamev([GLib.path_get_dirname(GLib.filename_from_uri(import.meta.url)[0]), '..', 'data']);
    const load = name => Dl.pytorch_load_state_dict(
        Gio.File.new_for_path(GLib.build_filenamev([data, name])), null);
    const state = load('pytorch-linear.pt');
    assert([...state.get_names()].join(',') === 'weight,bias', 'names in the file\'s order');
    const io = load('pytorch-linear-io.pt');
    const lin = Dl.Linear.new(4, 3, true);
    lin.load_state_dict(state, true);
    assertArrayEqual(Array.from(lin.get_parameter('weight').get_shape()), [3, 4], 'weight shape');
    const y = lin.forward(io.lookup('input'));
    assertClose(values(y), values(io.lookup('output')), 1e-5, 'outputs of PyTorch');

    // a checkpoint: nested dicts give dotted names; views share storage
    const mixed = load('pytorch-mixed.pt');
    assertArrayEqual(values(mixed.lookup('model.f32_slice')), [3, 4, 5, 6, 7, 8], 'slice view');
    assert(mixed.lookup('model.bf16').dtype === Dl.DType.BFLOAT16, 'bfloat16 storage');
    assertArrayEqual(values(mixed.lookup('state.0.step')), [12], 'int keys in decimal');
    // the same checkpoint in PyTorch's legacy (pre-1.6, non-zip) format
    const legacy = load('pytorch-legacy-mixed.pt');
    assertArrayEqual(values(legacy.lookup('model.f32_slice')), [3, 4, 5, 6, 7, 8],
        'legacy slice view');
    assertArrayEqual(values(legacy.lookup('state.0.step')), [12], 'legacy int keys');
    assertDlError(() => Dl.pytorch_load_state_dict_bytes(new GLib.Bytes(new Uint8Array([1, 2, 3]))),
        Dl.Error.FORMAT, 'not a zip archive');
});

test('streams, events and memory figures on the CPU and meta', () => {
    const cpu = Dl.Device.get('cpu');
    const meta = Dl.Device.get('meta');
    // what each device is
    assert(cpu.product_name.length > 0 && cpu.product_name === cpu.get_product_name(),
        'the CPU has a product name');
    assert(cpu.total_memory > 0 && cpu.multi_processor_count >= 1, 'the CPU has memory and processors');
    const [major, minor] = meta.get_capability();
    assert(meta.product_name === 'meta' && major === 0 && minor === 0, 'meta describes itself');
    // the default stream is the current one until another is set
    const def = Dl.Stream.get_default(cpu);
    assert(Dl.Stream.get_current(cpu) === def, 'the current stream is the default one');
    const s = Dl.Stream.new(cpu, -1);
    assert(s.priority === -1 && s.get_device() === cpu, 'a stream of the CPU');
    s.set_current();
    assert(Dl.Stream.get_current(null) === s, 'set_current');
    def.set_current();
    // the CPU's streams are always complete; its events read the clock
    const start = Dl.Event.new(true, false);
    const end = s.record_event(Dl.Event.new(true, false));
    start.record(s);
    assert(start.query() && s.query() && s.synchronize(), 'complete at once');
    assert(start.get_device() === cpu, 'recorded on the CPU');
    end.record(s);
    const ms = start.elapsed_time(end);
    assert(ms >= 0 && ms < 5000, `elapsed ${ms} ms`);
    assertDlError(() => start.elapsed_time(Dl.Event.new(false, false)), Dl.Error.ARGUMENT,
        'elapsed_time of an event never recorded');
    assertDlError(() => start.record(Dl.Stream.get_default(meta)), Dl.Error.DEVICE,
        'an event of the CPU recorded on meta');
    // memory figures: a tensor's bytes, the peak until it is reset
    cpu.reset_peak_memory_stats();
    const before = cpu.get_memory_stats();
    let t = Dl.zeros([256, 256], F32, cpu);
    const during = cpu.get_memory_stats();
    assert(during.allocated_bytes - before.allocated_bytes >= 256 * 256 * 4,
        `allocated ${during.allocated_bytes - before.allocated_bytes} bytes`);
    assert(during.max_allocated_bytes >= during.allocated_bytes, 'the peak');
    assert(cpu.get_max_memory_reserved() >= cpu.get_memory_reserved(), 'the reserved peak');
    t.release();
    t = null;
    const after = cpu.get_memory_stats().allocated_bytes;
    // (small inline storages made meanwhile count too)
    assert(during.allocated_bytes - after >= 256 * 256 * 4 - 1024,
        `released: ${during.allocated_bytes} -> ${after} bytes`);
    assert(meta.get_memory_stats().reserved_bytes === 0, 'meta holds nothing');
    assert(cpu.synchronize(), 'synchronize');
});

test('the CPU thread count', () => {
    const before = Dl.get_num_threads();
    assert(before >= 1, 'at least one thread');
    const a = Dl.randn([64, 96], F32, null);
    const b = Dl.randn([96, 48], F32, null);
    const many = a.matmul(b);
    assert(Dl.set_num_threads(1) && Dl.get_num_threads() === 1, 'set to one');
    const one = a.matmul(b);
    assert(one.allclose(many, 1e-5, 1e-5, false), 'the same product on one thread');
    const e = assertDlError(() => Dl.set_num_threads(0), Dl.Error.ARGUMENT, 'set_num_threads(0)');
    assert(e.message.includes('positive integer'), e.message);
    assert(Dl.set_num_threads(before) && Dl.get_num_threads() === before, 'restored');
});

test('autocast and flush-denormal', () => {
    // matmul under CPU autocast gives bfloat16 (here exact: small integers)
    const a = Dl.ones([2, 3], F32, null);
    const b = Dl.ones([3, 4], F32, null);
    assert(!Dl.autocast_is_enabled(Dl.DeviceType.CPU), 'off by default');
    assert(Dl.autocast_get_dtype(Dl.DeviceType.CPU) === Dl.DType.BFLOAT16, 'bfloat16 on the CPU');
    Dl.autocast_set_enabled(Dl.DeviceType.CPU, true);
    const c = a.matmul(b);
    const d = Dl.ones([3], F64, null).matmul(Dl.ones([3], F64, null));
    Dl.autocast_set_enabled(Dl.DeviceType.CPU, false);
    assert(c.get_dtype() === Dl.DType.BFLOAT16, `dtype ${c.get_dtype()}`);
    assert(c.sum().item() === 24, 'the products');
    assert(d.get_dtype() === F64, 'float64 is left alone');
    assert(a.matmul(b).get_dtype() === F32, 'off again');
    assertDlError(() => Dl.autocast_set_dtype(Dl.DeviceType.CPU, Dl.DType.INT32), Dl.Error.DTYPE,
        'an integer autocast dtype');
    // denormal float32 values read as zero while flushing is on
    const tiny = Dl.full([2], 1e-40, F32, null);
    if (Dl.set_flush_denormal(true)) {
        const flushed = tiny.mul_scalar(2);
        Dl.set_flush_denormal(false);
        assert(flushed.sum().item() === 0, 'flushed to zero');
        assert(tiny.mul_scalar(2).sum().item() > 0, 'kept when off');
    }
});

// A parametrization written in JS: the layer's C forward reads its weight
// as twice the JS module's "original", and the gradient reaches original.
const Twice = GObject.registerClass(
class Twice extends Dl.Module {
    vfunc_forward_many(inputs) {
        return [this.get_parameter('original').mul_scalar(2)];
    }
});

test('a parametrized weight computed in JS', () => {
    const l = new Dl.Linear({in_features: 2, out_features: 1, bias: false, dtype: F64});
    l.init(null);
    const twice = new Twice();
    const w = fromArray([0.5, -1], [1, 2], F64);
    w.set_requires_grad(true);
    twice.register_parameter('original', w);
    assert(l.remove('weight'), 'the original leaves the layer');
    l.register_parametrization('weight', twice);
    assert(l.get_parametrization('weight') === twice, 'get_parametrization');
    const y = l.forward(fromArray([1, 2, 3, 4], [2, 2], F64));
    assertArrayEqual(values(y), [-3, -5], 'x (2 w)^T');
    y.sum().backward(null, false, false);
    assertArrayEqual(values(w.get_grad()), [8, 12], 'gradient of original');
    assert(l.get_parameter('weight') === null, 'no weight outside a forward');
    assert(l.remove_parametrization('weight'), 'removed');
    assertDlError(() => l.forward(fromArray([1, 2], [1, 2], F64)), Dl.Error.ARGUMENT, 'no weight');
});

run();
