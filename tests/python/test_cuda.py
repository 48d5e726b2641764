# test_cuda.py: torch.cuda and the 'cuda' device through the typelib. On a
# machine without a GPU (CI's) is_available() is False, device_count() 0,
# and what needs a CUDA device is a RuntimeError naming why: the module
# was not built or not found, or it found no driver or no device.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
import os
import re
import subprocess
import sys

import pytest
from gi.repository import GLib

from conftest import Dl

# what the error says after "'cuda' is not available: " in each case
NO_GPU = re.compile(r"'cuda(:\d+)?' is not available: (no CUDA driver|no CUDA device|"
                    r"the CUDA backend module libdl-cuda-1\.0\.so was not built)")
MISSING = re.compile(r"'cuda' is not available: the CUDA backend module libdl-cuda-1\.0\.so "
                     r"was not (found \(looked in .*DL_BACKEND_PATH\)|built)")

needs_no_gpu = pytest.mark.skipif(Dl.cuda.device_count() > 0, reason='a GPU is available')
needs_gpu = pytest.mark.skipif(Dl.cuda.device_count() == 0, reason='no GPU is available')


@needs_no_gpu
def test_no_gpu_is_available():
    assert Dl.cuda.is_available() is False
    assert Dl.cuda.device_count() == 0
    assert Dl.cuda_is_available() is False and Dl.cuda_device_count() == 0


@needs_no_gpu
@pytest.mark.parametrize('make', [
    lambda: Dl.zeros(2, device='cuda'),
    lambda: Dl.zeros(2).to('cuda'),
    lambda: Dl.zeros(2).to('cuda:0'),
    lambda: Dl.zeros(2).cuda(),
    lambda: Dl.zeros(2).cuda(0),
], ids=['zeros', 'to', 'to-index', 'cuda', 'cuda-index'])
def test_cuda_tensors_refused_with_the_reason(make):
    with pytest.raises(RuntimeError, match=NO_GPU):
        make()


MISSING_SCRIPT = '''
import re, sys
from gi.repository import Dl
assert Dl.cuda.is_available() is False and Dl.cuda.device_count() == 0
try:
    Dl.zeros(2).cuda()
except RuntimeError as e:
    print(e)
    sys.exit(0)
sys.exit('no error')
'''


def test_module_missing(tmp_path):
    # DL_BACKEND_PATH, where libdl looks for its backend modules, names an
    # empty folder: the module is looked for once per process, so in a child
    env = dict(os.environ, DL_BACKEND_PATH=str(tmp_path))
    out = subprocess.run([sys.executable, '-c', MISSING_SCRIPT], env=env, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert MISSING.search(out.stdout), out.stdout
    assert str(tmp_path) in out.stdout or 'was not built' in out.stdout


@needs_gpu
def test_round_trip_through_the_gpu():
    a = Dl.tensor([[1.5, -2.0, 3.25], [0.0, 7.0, -0.5]])
    b = a.cuda()
    assert b.is_cuda
    assert b.cpu().tolist() == a.tolist()


# ---- torch.cuda without a GPU: what PyTorch's CPU-only build does ----------
#
# Each call runs under python3-torch (built without CUDA here) and under
# dl: both raise the same exception type, or both return the same value.

TORCH_CPU_CALLS = {
    'Stream()': lambda m: m.cuda.Stream(),
    'Stream(priority=-1)': lambda m: m.cuda.Stream(priority=-1),
    'Event()': lambda m: m.cuda.Event(),
    'Event(enable_timing=True)': lambda m: m.cuda.Event(enable_timing=True),
    'current_stream()': lambda m: m.cuda.current_stream(),
    'current_stream(0)': lambda m: m.cuda.current_stream(0),
    'default_stream()': lambda m: m.cuda.default_stream(),
    'stream(None)': lambda m: m.cuda.stream(None).__enter__(),
    'synchronize()': lambda m: m.cuda.synchronize(),
    'set_device(0)': lambda m: m.cuda.set_device(0),
    'set_device(-1)': lambda m: m.cuda.set_device(-1),
    'current_device()': lambda m: m.cuda.current_device(),
    'get_device_name()': lambda m: m.cuda.get_device_name(),
    'get_device_name(0)': lambda m: m.cuda.get_device_name(0),
    'get_device_properties(0)': lambda m: m.cuda.get_device_properties(0),
    'get_device_capability()': lambda m: m.cuda.get_device_capability(),
    'is_bf16_supported()': lambda m: m.cuda.is_bf16_supported(),
    'memory_allocated()': lambda m: m.cuda.memory_allocated(),
    'memory_allocated(0)': lambda m: m.cuda.memory_allocated(0),
    "memory_allocated('cuda:1')": lambda m: m.cuda.memory_allocated('cuda:1'),
    'max_memory_allocated()': lambda m: m.cuda.max_memory_allocated(),
    'memory_reserved()': lambda m: m.cuda.memory_reserved(),
    'max_memory_reserved()': lambda m: m.cuda.max_memory_reserved(),
    'reset_peak_memory_stats()': lambda m: m.cuda.reset_peak_memory_stats(),
    'empty_cache()': lambda m: m.cuda.empty_cache(),
    'memory_stats()': lambda m: m.cuda.memory_stats(),
    'memory_stats(0)': lambda m: m.cuda.memory_stats(0),
    'is_available()': lambda m: m.cuda.is_available(),
    'is_initialized()': lambda m: m.cuda.is_initialized(),
    'device_count()': lambda m: m.cuda.device_count(),
}


def _outcome(fn, m):
    try:
        return 'returns', fn(m)
    except Exception as e:  # noqa: BLE001: the type is what is compared
        return 'raises', type(e)


@needs_no_gpu
@pytest.mark.parametrize('call', sorted(TORCH_CPU_CALLS))
def test_no_gpu_calls_behave_as_torch_cpu_build(call):
    torch = pytest.importorskip('torch')
    if torch.cuda.is_available():
        pytest.skip("python3-torch has a GPU here: it is not the CPU-only build's behaviour")
    import dl
    expected = _outcome(TORCH_CPU_CALLS[call], torch)
    got = _outcome(TORCH_CPU_CALLS[call], dl)
    assert got == expected, call
    if got[0] == 'raises' and got[1] is not TypeError:
        # the messages say why there is no CUDA device
        with pytest.raises(got[1], match=NO_GPU):
            TORCH_CPU_CALLS[call](dl)


@needs_no_gpu
def test_no_gpu_stream_context_is_a_no_op():
    import dl
    with dl.cuda.stream(None) as s:
        assert s is None
    assert dl.cuda.memory_stats() == {}


# ---- with a GPU: streams, events and memory figures -------------------------

@needs_gpu
def test_streams_and_current_stream():
    import dl
    default = dl.cuda.default_stream()
    assert dl.cuda.current_stream() == default and default.cuda_stream == 0
    s = dl.cuda.Stream(priority=-1)
    assert s != default and s.cuda_stream != 0 and s.device == dl.device('cuda:0')
    with dl.cuda.stream(s):
        assert dl.cuda.current_stream() == s
        x = dl.tensor([[1.0, 2.0], [3.0, 4.0]]).cuda()
        # reading values waits for the current stream
        assert x.cpu().tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert dl.cuda.current_stream() == default
    s.synchronize()
    assert s.query()
    other = dl.cuda.Stream()
    other.wait_stream(s)
    other.synchronize()


@needs_gpu
def test_events_time_the_work_between_them():
    import dl
    start, end = dl.cuda.Event(enable_timing=True), dl.cuda.Event(enable_timing=True)
    assert start.query()
    start.record()
    x = dl.ones(1 << 20).cuda()
    end.record()
    end.synchronize()
    assert end.query()
    assert start.elapsed_time(end) >= 0
    with pytest.raises(RuntimeError, match='enable_timing'):
        dl.cuda.Event().elapsed_time(end)
    del x


@needs_gpu
def test_memory_figures_follow_the_tensors():
    import dl
    dl.cuda.empty_cache()
    base = dl.cuda.memory_allocated()
    x = dl.ones(1 << 20).cuda()
    assert dl.cuda.memory_allocated() == base + (4 << 20)
    assert dl.cuda.max_memory_allocated() >= base + (4 << 20)
    assert dl.cuda.memory_reserved() >= dl.cuda.memory_allocated()
    stats = dl.cuda.memory_stats()
    assert stats['allocated_bytes.all.current'] == dl.cuda.memory_allocated()
    assert stats['segment.all.current'] >= 1
    del x
    dl.cuda.synchronize()
    assert dl.cuda.memory_allocated() == base
    dl.cuda.reset_peak_memory_stats()
    assert dl.cuda.max_memory_allocated() == base
    dl.cuda.empty_cache()
    assert dl.cuda.memory_reserved() <= dl.cuda.max_memory_reserved()

# The same seed gives the same numbers on the GPU as on the CPU (both draw
# from dl-philox.h): bit for bit where the numbers come from integer
# arithmetic and exactly rounded operations; normal's Box-Muller goes
# through log, sin and cos, which CUDA's device library rounds differently
# in the last place of a double
@needs_gpu
@pytest.mark.parametrize('n', [1, 7, 1000, 70001])
def test_random_numbers_as_on_the_cpu(n):
    def draws(dev):
        g = Dl.Generator(device=dev).manual_seed(2026 + n)
        return {
            'rand32': Dl.rand(n, generator=g, device=dev),
            'rand64': Dl.rand(n, dtype=Dl.float64, generator=g, device=dev),
            'rand16': Dl.rand(n, dtype=Dl.float16, generator=g, device=dev),
            'randbf16': Dl.rand(n, dtype=Dl.bfloat16, generator=g, device=dev),
            'uniform': Dl.empty(n, device=dev).uniform_(-3, 5, generator=g),
            'bernoulli': Dl.empty(n, device=dev).bernoulli_(0.3, generator=g),
            'randperm': Dl.randperm(n, generator=g, device=dev),
            'multinomial': Dl.multinomial(Dl.rand(5, 40, dtype=Dl.float64, generator=g, device=dev),
                                          min(n, 40), generator=g),
            'multinomial-repl': Dl.multinomial(Dl.rand(5, 40, generator=g, device=dev), n % 50 + 1,
                                               True, generator=g),
            'randn32': Dl.randn(n, generator=g, device=dev),
            'randn64': Dl.randn(n, dtype=Dl.float64, generator=g, device=dev),
        }

    cpu, gpu = draws('cpu'), draws('cuda')
    for name in cpu:
        assert gpu[name].is_cuda, name
        a, b = cpu[name], gpu[name].cpu()
        assert a.dtype == b.dtype and a.shape == b.shape, name
        if name.startswith('randn'):
            tol = 1e-12 if a.dtype == Dl.float64 else 1e-6
            assert Dl.allclose(a, b, rtol=tol, atol=tol), name
        else:
            assert Dl.equal(a, b), name


# dropout draws from the device's default generator: torch.manual_seed
# seeds the CPU's and every GPU's alike, so the masks are the CPU's
@needs_gpu
def test_dropout_as_on_the_cpu_after_manual_seed():
    x = Dl.ones(4099)
    Dl.manual_seed(77)
    cpu = Dl.nn.functional.dropout(x, 0.25)
    Dl.manual_seed(77)
    gpu = Dl.nn.functional.dropout(x.cuda(), 0.25)
    assert Dl.equal(cpu, gpu.cpu())
    Dl.cuda.manual_seed(78)
    again = Dl.nn.functional.dropout(x.cuda(), 0.25)
    Dl.cuda.manual_seed_all(78)
    assert Dl.equal(again.cpu(), Dl.nn.functional.dropout(x.cuda(), 0.25).cpu())


# conv2d (cuDNN), max pooling and the norms (the module's kernels) on the
# GPU against the CPU, forward and backward
@needs_gpu
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('op', ['conv2d', 'max_pool2d', 'batch_norm', 'batch_norm_eval',
                                'group_norm', 'layer_norm'])
def test_cnn_ops_as_on_the_cpu(op, dtype):
    import numpy as np
    F = Dl.nn.functional
    dt = getattr(Dl, dtype)
    rng = np.random.default_rng(15)
    x_np = rng.standard_normal((3, 4, 9, 8))
    w_np = rng.standard_normal((5, 4, 3, 2))
    p_np = rng.standard_normal(4) + 1

    def run(dev):
        x = Dl.tensor(x_np, dtype=dt, device=dev, requires_grad=True)
        w = Dl.tensor(w_np, dtype=dt, device=dev, requires_grad=True)
        p = Dl.tensor(p_np, dtype=dt, device=dev, requires_grad=True)
        b = Dl.tensor(p_np[::-1].copy(), dtype=dt, device=dev, requires_grad=True)
        if op == 'conv2d':
            y = F.conv2d(x, w, b[:4].repeat(2)[:5], stride=(2, 1), padding=1, dilation=(1, 2))
        elif op == 'max_pool2d':
            y = F.max_pool2d(x, 3, stride=2, padding=1, ceil_mode=True)
        elif op == 'batch_norm':
            y = F.batch_norm(x, None, None, p, b, True)
        elif op == 'batch_norm_eval':
            y = F.batch_norm(x, p.detach().abs(), p.detach().abs() + 0.5, p, b, False)
        elif op == 'group_norm':
            y = F.group_norm(x, 2, p, b)
        else:
            y = F.layer_norm(x, (9, 8))
        (y * y).sum().backward()
        grads = [t.grad for t in (x, w, p, b) if t.grad is not None]
        return [y] + grads

    tol = 1e-4 if dtype == 'float32' else 1e-10
    for a, g in zip(run('cpu'), run('cuda')):
        assert g.is_cuda
        np.testing.assert_allclose(g.detach().cpu().numpy(), a.detach().numpy(), rtol=tol,
                                   atol=tol)


# gathers and scatters check their indices on the device: a bad one fails
# the next read, not the op (PyTorch's device-side assert), and only once
@needs_gpu
@pytest.mark.parametrize('op', ['gather', 'scatter_add'])
def test_bad_index_reported_at_the_next_read(op):
    x = Dl.arange(6, dtype=Dl.float32).cuda()
    bad = Dl.tensor([0, 7, 1]).cuda()
    y = x.gather(0, bad) if op == 'gather' else Dl.zeros(6).cuda().scatter_add(0, bad, x[:3])
    with pytest.raises(GLib.Error, match='failed a check.*index 7 is out of bounds'):
        y.cpu()
    assert Dl.equal(x.cpu(), Dl.arange(6, dtype=Dl.float32))


# the indexing kernels on sizes the cross-device suite leaves out: rows
# sorted in a block and merged from tiles, many tiles of nonzero and
# unique, long running extrema
@needs_gpu
@pytest.mark.parametrize('n', [1, 255, 2048, 2049, 70001])
def test_sorts_and_groups_as_on_the_cpu(n):
    import numpy as np
    rng = np.random.default_rng(n)
    a_np = rng.integers(-50, 50, (3, n)).astype(np.float32)
    a_np[rng.random((3, n)) < 0.05] = np.nan

    def run(dev):
        a = Dl.tensor(a_np, device=dev)
        s = a.sort(-1, descending=n % 2 == 1, stable=True)
        return [s.values, s.indices, *a.topk(min(n, 5), -1), *a.cummin(-1), a.isnan().nonzero(),
                *Dl.unique(a.nan_to_num(), return_inverse=True, return_counts=True),
                a.nan_to_num().argsort(0, stable=True)]

    for k, (c, g) in enumerate(zip(run('cpu'), run('cuda'))):
        assert g.is_cuda, k
        assert Dl.equal(c, g.cpu()) or Dl.allclose(c, g.cpu(), equal_nan=True, rtol=0, atol=0), k


# the optimizers' fused step (the module's optim_step kernel) on the GPU
# against the CPU: three steps of each kind and option set
@needs_gpu
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('name, kw', [
    ('SGD', dict(lr=0.1)),
    ('SGD', dict(lr=0.1, momentum=0.9, dampening=0.1, weight_decay=0.01, maximize=True)),
    ('SGD', dict(lr=0.1, momentum=0.9, nesterov=True)),
    ('Adam', dict(lr=0.01)),
    ('Adam', dict(lr=0.01, weight_decay=0.1, amsgrad=True)),
    ('AdamW', dict(lr=0.01, weight_decay=0.1)),
    ('RMSprop', dict(lr=0.01)),
    ('RMSprop', dict(lr=0.01, momentum=0.5, centered=True, weight_decay=0.01)),
    ('Adagrad', dict(lr=0.1, lr_decay=0.01, weight_decay=0.01)),
])
def test_optimizer_steps_as_on_the_cpu(name, kw, dtype):
    import numpy as np
    import dl
    rng = np.random.default_rng(16)
    p_np, t_np = rng.standard_normal((2, 3, 5))

    def run(dev):
        p = dl.tensor(p_np, dtype=getattr(dl, dtype), device=dev, requires_grad=True)
        t = dl.tensor(t_np, dtype=getattr(dl, dtype), device=dev)
        opt = getattr(dl.optim, name)([p], **kw)
        for _ in range(3):
            opt.zero_grad()
            ((p - t) ** 2 * t).sum().backward()
            opt.step()
        return p.detach().cpu().numpy()

    tol = 1e-5 if dtype == 'float32' else 1e-12
    np.testing.assert_allclose(run('cuda'), run('cpu'), rtol=tol, atol=tol)


# attention with dropout: the GPU's kernels draw the CPU's mask after
# torch.manual_seed, so the values and gradients are the CPU's
@needs_gpu
@pytest.mark.parametrize('causal', [False, True])
def test_attention_dropout_as_on_the_cpu(causal):
    import numpy as np
    import dl
    rng = np.random.default_rng(17)
    arrays = [rng.standard_normal((2, 3, 5, 4)) for _ in range(3)]

    def run(dev):
        q, k, v = (dl.tensor(a, device=dev, requires_grad=True) for a in arrays)
        dl.manual_seed(5)
        y = dl.nn.functional.scaled_dot_product_attention(q, k, v, dropout_p=0.4, is_causal=causal)
        (y * y).sum().backward()
        return [t.detach().cpu().numpy() for t in (y, q.grad, k.grad, v.grad)]

    for g, c in zip(run('cuda'), run('cpu')):
        np.testing.assert_allclose(g, c, rtol=1e-10, atol=1e-12)


# the module's im2col/col2im, resampling, attention and recurrent kernels
# on the GPU against the CPU, forward and backward, in both float dtypes
# (the cross-device suite's walk runs them in float64)
@needs_gpu
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('op', ['unfold', 'fold', 'avg_pool2d', 'adaptive_avg_pool2d',
                                'adaptive_max_pool2d', 'bilinear', 'bicubic', 'nearest',
                                'reflect', 'attention_bool_mask', 'attention_float_mask',
                                'attention_causal', 'lstm', 'gru', 'rnn_relu'])
def test_nn_ops_as_on_the_cpu(op, dtype):
    import numpy as np
    import dl
    F = dl.nn.functional
    rng = np.random.default_rng(18)
    x_np = rng.standard_normal((3, 4, 9, 8))
    mask_np = rng.standard_normal((9, 9))

    def run(dev):
        x = dl.tensor(x_np, dtype=getattr(dl, dtype), device=dev, requires_grad=True)
        mask = dl.tensor(mask_np, dtype=getattr(dl, dtype), device=dev)
        if op == 'unfold':
            y = F.unfold(x, (2, 3), dilation=(1, 2), padding=1, stride=(2, 1))
        elif op == 'fold':
            y = F.fold(F.unfold(x, 3, padding=1, stride=2), (9, 8), 3, padding=1, stride=2)
        elif op == 'avg_pool2d':
            y = F.avg_pool2d(x, 3, stride=2, padding=1, count_include_pad=False)
        elif op == 'adaptive_avg_pool2d':
            y = F.adaptive_avg_pool2d(x, (4, 3))
        elif op == 'adaptive_max_pool2d':
            y = F.adaptive_max_pool2d(x, (4, 5))
        elif op in ('bilinear', 'bicubic'):
            y = F.interpolate(x, scale_factor=1.5, mode=op, align_corners=False)
        elif op == 'nearest':
            y = F.interpolate(x, size=(5, 11), mode='nearest')
        elif op == 'reflect':
            y = F.pad(x, (2, 1, 1, 2), 'reflect')
        elif op.startswith('attention'):
            q, k, v = x, x.flip(-2) * 0.5, x.flip(-1)
            if op == 'attention_bool_mask':
                y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask > -0.5)
            elif op == 'attention_float_mask':
                y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
            else:
                y = F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=0.3)
        else:
            kind = {'lstm': 'LSTM', 'gru': 'GRU', 'rnn_relu': 'RNN'}[op]
            kw = {'lstm': dict(proj_size=3), 'gru': dict(),
                  'rnn_relu': dict(nonlinearity='relu', num_layers=2)}[op]
            layer = getattr(dl.nn, kind)(8, 5, batch_first=True, bidirectional=True, **kw)
            wrng = np.random.default_rng(19)
            with dl.no_grad():
                for p in layer.parameters():
                    p.copy_(dl.tensor(wrng.uniform(-0.5, 0.5, tuple(p.shape))))
            layer = layer.to(device=dev, dtype=getattr(dl, dtype))
            y = layer(x.reshape(12, 9, 8))[0]
        (y * y).sum().backward()
        return [y, x.grad]

    tol = 1e-4 if dtype == 'float32' else 1e-10
    for a, g in zip(run('cpu'), run('cuda')):
        assert g.is_cuda
        np.testing.assert_allclose(g.detach().cpu().numpy(), a.detach().numpy(), rtol=tol,
                                   atol=tol)


# the device's description comes from cudaGetDeviceProperties: a product
# name (not "cuda:0"), its memory, a capability of at least 5.0 (the oldest
# architecture CUDA 13 builds for) and its multiprocessors
@needs_gpu
def test_device_properties():
    import dl
    p = dl.cuda.get_device_properties(0)
    assert dl.cuda.get_device_name(0) == p.name and not p.name.startswith('cuda')
    assert dl.cuda.get_device_capability(0) == (p.major, p.minor) and p.major >= 5
    assert p.total_memory > 2 ** 30 and p.multi_processor_count > 0
    assert p.name in repr(p)


# torch 1.13's answer: bfloat16 from compute capability 8.0 on; there, a
# bfloat16 product on the device is the CPU's
@needs_gpu
def test_is_bf16_supported_by_capability():
    import dl
    major = dl.cuda.get_device_capability()[0]
    assert dl.cuda.is_bf16_supported() is (major >= 8)
    if major >= 8:
        a = dl.tensor([[1.5, -2.0], [0.25, 3.0]], dtype=dl.bfloat16)
        assert (a.cuda() @ a.cuda()).cpu().tolist() == (a @ a).tolist()


# batch norm on the GPU (through cuDNN where the module finds it: the
# forward in training and eval mode, the training backward; the own
# kernels otherwise) against the CPU: two training steps updating the
# running statistics, then one in eval mode, with weight and bias, bias
# alone or neither, a constant channel (biased variance 0), both dtypes
@needs_gpu
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('params', ['weight_bias', 'bias', 'none'])
@pytest.mark.parametrize('shape', [(6, 3, 5, 4), (7, 4), (2, 3, 1)])
def test_batch_norm_as_on_the_cpu(shape, params, dtype):
    import numpy as np
    import dl
    F = dl.nn.functional
    rng = np.random.default_rng(20)
    xs = [rng.standard_normal(shape) * 3 + 1 for _ in range(3)]
    xs[0][:, 1] = 2.5
    dys = [rng.standard_normal(shape) for _ in range(3)]
    w_np, b_np = rng.uniform(0.5, 1.5, shape[1]), rng.standard_normal(shape[1])

    def run(dev):
        dt = getattr(dl, dtype)
        rm = dl.zeros(shape[1], dtype=dt, device=dev)
        rv = dl.ones(shape[1], dtype=dt, device=dev)
        w = dl.tensor(w_np, dtype=dt, device=dev, requires_grad=True) \
            if params == 'weight_bias' else None
        b = dl.tensor(b_np, dtype=dt, device=dev, requires_grad=True) if params != 'none' else None
        out = []
        for k, (x_np, dy_np) in enumerate(zip(xs, dys)):
            x = dl.tensor(x_np, dtype=dt, device=dev, requires_grad=True)
            y = F.batch_norm(x, rm, rv, w, b, training=k < 2, momentum=0.3, eps=1e-3)
            (y * dl.tensor(dy_np, dtype=dt, device=dev)).sum().backward()
            out += [y, x.grad, rm.clone(), rv.clone()]
        out += [t.grad for t in (w, b) if t is not None]
        return [t.detach().cpu().numpy() for t in out]

    tol = 1e-4 if dtype == 'float32' else 1e-10
    for k, (g, c) in enumerate(zip(run('cuda'), run('cpu'))):
        np.testing.assert_allclose(g, c, rtol=tol, atol=tol, err_msg=str(k))


# batch norm's statistics on the GPU: the batch's mean and biased variance
# (var from cuDNN's running variance, see dl-cuda-dnn-plan.h) reach the
# running statistics with momentum 1, the running variance unbiased
@needs_gpu
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_batch_norm_running_statistics_on_the_gpu(dtype):
    import numpy as np
    import dl
    rng = np.random.default_rng(21)
    x_np = rng.standard_normal((5, 4, 3, 2)) * 2 - 1
    x_np[:, 2] = -0.75
    dt = getattr(dl, dtype)
    rm, rv = dl.zeros(4, dtype=dt, device='cuda'), dl.zeros(4, dtype=dt, device='cuda')
    y = dl.nn.functional.batch_norm(dl.tensor(x_np, dtype=dt, device='cuda'), rm, rv,
                                    training=True, momentum=1.0, eps=1e-5)
    tol = 1e-5 if dtype == 'float32' else 1e-12
    per_channel = x_np.transpose(1, 0, 2, 3).reshape(4, -1)
    np.testing.assert_allclose(rm.cpu().numpy(), per_channel.mean(1), rtol=tol, atol=tol)
    np.testing.assert_allclose(rv.cpu().numpy(), per_channel.var(1, ddof=1), rtol=tol, atol=tol)
    assert rv.cpu().numpy()[2] == 0
    mean, var = per_channel.mean(1), per_channel.var(1)
    ref = (x_np - mean[None, :, None, None]) / np.sqrt(var[None, :, None, None] + 1e-5)
    np.testing.assert_allclose(y.cpu().numpy(), ref, rtol=tol, atol=tol)


# max pooling on the GPU against the CPU: nn.MaxPool2d with nothing
# recorded asks for no indices (through cuDNN where the geometry allows:
# no dilation, no ceil mode's extra windows), with a gradient the own
# kernel and its indices; NaN wins either way, the maxima are exact
@needs_gpu
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('kw', [dict(kernel_size=3, stride=2, padding=1),
                                dict(kernel_size=(2, 3), stride=(1, 2)),
                                dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
                                dict(kernel_size=(2, 3), stride=(2, 3), ceil_mode=True),
                                dict(kernel_size=2, dilation=2)],
                         ids=['padded', 'strided', 'ceil-extra', 'ceil-same', 'dilated'])
def test_max_pool_as_on_the_cpu(kw, dtype):
    import numpy as np
    import dl
    rng = np.random.default_rng(22)
    x_np = rng.standard_normal((2, 3, 8, 9))
    x_np[0, 1, 2, 3] = np.nan
    x_np[1, 2, :3, :3] = -np.inf

    def run(dev):
        pool = dl.nn.MaxPool2d(**kw)
        with dl.no_grad():
            bare = pool(dl.tensor(x_np, dtype=getattr(dl, dtype), device=dev))
        x = dl.tensor(x_np, dtype=getattr(dl, dtype), device=dev, requires_grad=True)
        y = pool(x)
        (y * y.isfinite()).sum().backward()
        return [t.detach().cpu().numpy() for t in (bare, y, x.grad)]

    for k, (g, c) in enumerate(zip(run('cuda'), run('cpu'))):
        np.testing.assert_array_equal(g, c, err_msg=str(k))
