# test_devices.py: the cross-device suite (`meson test --suite devices`):
# every op of the table run on each device other than the CPU against the
# CPU backend, as ggml's test-backend-ops does.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Two tables:
#   WALK (test_gradcheck_walk's, one entry per autograd node the library
#        makes): float64 inputs, contiguous or strided, each case's outputs
#        and the gradients of a backward pass through them;
#   POINTWISE below: ops over dtypes (float32, float64, int32, int64,
#        bool), broadcasts and strided layouts.
# Each case runs on the CPU and, from the same inputs, on the device:
#   meta  every output and gradient has the CPU's shape, dtype and strides
#         (tensors there have no values);
#   cuda  the same, and the values agree with the CPU's within the dtype's
#         tolerance (exactly for integers and bools).
# An input the CPU refuses must be refused on the device with the same
# error. On a device whose backend lacks an op's kernel (a NULL slot: a
# not-supported error naming the op and the device) the case is skipped
# and says so, as test-backend-ops reports "not supported". Without a GPU
# the CUDA cases skip with a message saying that no GPU is available.

import numpy as np
import pytest
from gi.repository import GLib

import dl
from conftest import Dl
from test_gradcheck_walk import WALK, _draw, _leaf

# torch warns that scatter_reduce is in beta
pytestmark = pytest.mark.filterwarnings('ignore:scatter_reduce')

# 'cpu' against itself checks the comparison of values that runs on CUDA,
# so that it is exercised where there is no GPU
DEVICES = ['meta', 'cuda', 'cpu']


def _why_no_gpu():
    try:
        Dl.Device.get('cuda')
    except GLib.Error as e:
        return e.message
    return None


NO_GPU = _why_no_gpu() if Dl.cuda.device_count() == 0 else None

# The nodes whose cases need values that a meta tensor does not have, with
# what the error says: they must fail with that error, nothing else.
META_REFUSES = {
}

# |device - cpu| <= atol + rtol * |cpu| per float dtype: the device may sum
# in another order and use other math libraries
TOLERANCE = {'float32': (1e-4, 1e-5), 'float64': (1e-9, 1e-12)}


def _available(device):
    if device == 'cuda' and NO_GPU is not None:
        pytest.skip('no GPU is available, the CUDA cases of the cross-device suite did not run: '
                    + NO_GPU)


def _not_supported(e):
    """Whether @e says the device's backend has no kernel for the op."""
    if isinstance(e, GLib.Error) and e.domain == 'dl-error-quark':
        return e.code == int(Dl.Error.NOT_SUPPORTED)
    return 'not supported on device' in str(e)


def _outputs(out):
    """The tensors an op returned, in order."""
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _outputs(o)]
    return [out] if isinstance(out, dl.Tensor) else []


def _geometry(t):
    return None if t is None else (tuple(t.shape), t.dtype, t.stride())


def _same(on_device, on_cpu, device, what, values=True):
    """@on_device (a tensor of @device) matches @on_cpu: its geometry, and
    its values unless @values is False or the device is meta."""
    assert (on_device is None) == (on_cpu is None), what
    if on_cpu is None:
        return
    assert on_device.device == dl.device(device) or (
        device == 'cuda' and on_device.device.type == 'cuda'), f'{what} is on {on_device.device}'
    assert _geometry(on_device) == _geometry(on_cpu), what
    if device == 'meta' or not values:
        return
    got, want = on_device.detach().cpu().numpy(), on_cpu.detach().numpy()
    name = str(on_cpu.dtype).replace('torch.', '')
    if name in TOLERANCE:
        rtol, atol = TOLERANCE[name]
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


# ---- the autograd walk ---------------------------------------------------------

def _run(case, arrays, contiguous, device):
    """The case's outputs and the gradients of their sum (each output
    weighted by ones) with respect to its inputs, on @device. The inputs,
    and what the case makes itself (indices, masks), are made on the
    default device, @device."""
    with dl.device(device):
        xs = [_leaf(dl, a, contiguous) for a in arrays]
        outs = _outputs(case.fn(dl, *xs))
        diff = [o for o in outs if o.requires_grad]
        grads = (dl.autograd.grad(diff, xs, [dl.ones_like(o) for o in diff], allow_unused=True)
                 if diff else [None] * len(xs))
    return outs, grads


@pytest.mark.parametrize('device', DEVICES)
@pytest.mark.parametrize('name', sorted(n for n in WALK if WALK[n] is not None))
@pytest.mark.parametrize('contiguous', [True, False], ids=['contiguous', 'strided'])
def test_walk(device, name, contiguous, rng):
    _available(device)
    for case in WALK[name]:
        arrays = _draw(rng, case)
        outs, grads = _run(case, arrays, contiguous, 'cpu')
        if device == 'meta' and name in META_REFUSES:
            with pytest.raises(RuntimeError, match=META_REFUSES[name]):
                _run(case, arrays, contiguous, device)
            continue
        try:
            dev_outs, dev_grads = _run(case, arrays, contiguous, device)
        except Exception as e:
            if _not_supported(e):
                pytest.skip(f'{name}: not supported on {device}: {e}')
            raise
        # a random op's numbers are compared by geometry only: the device's
        # generator is not the CPU's
        values = not case.random
        assert len(dev_outs) == len(outs), name
        for i, (d, c) in enumerate(zip(dev_outs, outs)):
            _same(d, c, device, f'{name}: output {i}', values)
        for i, (d, c) in enumerate(zip(dev_grads, grads)):
            _same(d, c, device, f'{name}: gradient {i}', values)


def test_value_comparison_catches_differences():
    """The checks of _same fail on a value, a dtype or a stride that
    differs, and only on the geometry for meta."""
    a = dl.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=dl.float32)
    _same(a * 1, a, 'cpu', 'equal')
    _same(a + 1e-6, a, 'cpu', 'within the tolerance')
    for other in (a + 1e-3, a.to(dl.float64), a.t().contiguous().t()):
        with pytest.raises(AssertionError):
            _same(other, a, 'cpu', 'different')
    n = dl.tensor([1, 2, 3])
    with pytest.raises(AssertionError):
        _same(n + dl.tensor([0, 0, 1]), n, 'cpu', 'an integer off by one')
    _same((a + 1).to('meta'), a, 'meta', 'meta has no values')


def test_walk_refusals_are_current():
    """Every refusal listed is of a node that still has an entry."""
    assert set(META_REFUSES) <= set(WALK)


# ---- ops over dtypes, broadcasts and layouts -------------------------------------

DTYPES = ['float32', 'float64', 'int32', 'int64', 'bool']

# shapes of the two operands: equal, broadcast one way, both ways, a 0-d one
SHAPES = [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 1, 3), (4, 1)), ((), (2, 3))]

# what each op does with operands a and b of the module m
POINTWISE = {
    'add': lambda m, a, b: a + b,
    'sub': lambda m, a, b: a - b,
    'mul': lambda m, a, b: a * b,
    'div': lambda m, a, b: a / b,
    'maximum': lambda m, a, b: m.maximum(a, b),
    'eq': lambda m, a, b: a == b,
    'lt': lambda m, a, b: a < b,
    'where': lambda m, a, b: m.where(a > b, a, b),
    'neg': lambda m, a, b: -a,
    'abs': lambda m, a, b: a.abs(),
    'exp': lambda m, a, b: a.exp(),
    'sum': lambda m, a, b: a.sum(-1) if a.dim() else a.sum(),
    'amax': lambda m, a, b: a.amax(-1) if a.dim() else a.amax(),
    'cumsum': lambda m, a, b: a.cumsum(-1) if a.dim() else a.cumsum(0),
    'to_float64': lambda m, a, b: a.to(m.float64),
    'bitwise_and': lambda m, a, b: a & b,
}


def _array(rng, shape, dtype):
    if dtype == 'bool':
        return rng.random(shape) < 0.5
    if dtype.startswith('int'):
        # no zeros: div of integers by zero is its own case
        return (rng.integers(1, 6, shape) * rng.choice([-1, 1], shape)).astype(dtype)
    return rng.uniform(-2, 2, shape).astype(dtype)


def _tensor(a, layout, device):
    """@a as a tensor of @device: contiguous, transposed (the last two dims
    swapped in memory) or every other element of a buffer twice as long."""
    if layout == 'transposed' and a.ndim >= 2:
        return dl.tensor(np.ascontiguousarray(np.swapaxes(a, -1, -2))).to(device).transpose(-1,
                                                                                          -2)
    if layout == 'sliced' and a.ndim >= 1:
        buf = np.repeat(a, 2, axis=-1)
        return dl.tensor(buf).to(device)[..., ::2]
    return dl.tensor(a).to(device)


def _outcome(fn):
    try:
        return fn(), None
    except Exception as e:  # noqa: BLE001: compared below
        return None, e


def _on_both(device, what, run):
    """(run(device), run('cpu')), or None where the CPU refuses the input,
    which the device must then refuse with the same error; skips where
    the device's backend lacks the op's kernel."""
    want, cpu_error = _outcome(lambda: run('cpu'))
    got, dev_error = _outcome(lambda: run(device))
    if dev_error is not None and cpu_error is None and _not_supported(dev_error):
        pytest.skip(f'{what}: not supported on {device}: {dev_error}')
    if cpu_error is not None:
        assert type(dev_error) is type(cpu_error), what
        assert str(dev_error) == str(cpu_error), what
        return None
    assert dev_error is None, f'{what}: {dev_error}'
    return got, want


@pytest.mark.parametrize('device', DEVICES)
@pytest.mark.parametrize('op', sorted(POINTWISE))
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('layout', ['contiguous', 'transposed', 'sliced'])
def test_pointwise(device, op, dtype, layout, rng):
    _available(device)
    for sa, sb in SHAPES:
        a, b = _array(rng, sa, dtype), _array(rng, sb, dtype)
        what = f'{op} {dtype} {sa} {sb} {layout}'
        both = _on_both(device, what, lambda dev: POINTWISE[op](dl, _tensor(a, layout, dev),
                                                                _tensor(b, layout, dev)))
        if both is not None:
            _same(*both, device, what)


# ---- indexing, sorting and grouping over dtypes ------------------------------------

# last dims short (a sort in one block), long (sorted tiles merged) and
# empty, and a 1-d tensor
INDEX_SHAPES = [(3, 7), (2, 3000), (2, 0), (300,)]


def _ties(rng, shape, dtype):
    """Few distinct values, so that sorts and extrema meet ties, and NaNs
    and signed zeros among floats."""
    if dtype == 'bool':
        return rng.random(shape) < 0.5
    a = rng.integers(-3, 4, shape)
    if dtype.startswith('int'):
        return a.astype(dtype)
    a = a.astype(dtype)
    a[rng.random(shape) < 0.1] = np.nan
    a[a == 0] *= rng.choice([-1, 1], int((a == 0).sum()))
    return a


# what each op does with a tensor a, i (int64 indices into a's last dim,
# shaped as a, with repeats) and p (a permutation of each row of a's last
# dim): the outputs of the index, sort, scan_extremum, nonzero,
# gather_rows, scatter_rows and unique_sorted kernels
INDEXING = {
    'sort': lambda m, a, i, p: a.sort(-1, stable=True),
    'sort_descending': lambda m, a, i, p: a.sort(-1, descending=True, stable=True),
    'argsort': lambda m, a, i, p: a.argsort(-1, stable=True),
    'topk': lambda m, a, i, p: a.topk(min(3, a.shape[-1]), -1),
    'kthvalue': lambda m, a, i, p: a.kthvalue(max(1, a.shape[-1] // 2), -1),
    'median': lambda m, a, i, p: a.median(-1),
    'cummax': lambda m, a, i, p: a.cummax(-1),
    'cummin': lambda m, a, i, p: a.cummin(-1),
    'nonzero': lambda m, a, i, p: a.nonzero(),
    'unique': lambda m, a, i, p: m.unique(a, return_inverse=True, return_counts=True),
    'unique_consecutive': lambda m, a, i, p: m.unique_consecutive(a, return_inverse=True,
                                                                  return_counts=True),
    'gather': lambda m, a, i, p: a.gather(-1, i),
    'scatter': lambda m, a, i, p: m.zeros_like(a).scatter(-1, p, a),
    'scatter_add': lambda m, a, i, p: m.zeros_like(a).scatter_add(-1, i, a),
    'scatter_amax': lambda m, a, i, p: a.scatter_reduce(-1, i, a, 'amax', include_self=False),
    'scatter_amin': lambda m, a, i, p: a.scatter_reduce(-1, i, a, 'amin'),
}


@pytest.mark.parametrize('device', DEVICES)
@pytest.mark.parametrize('op', sorted(INDEXING))
@pytest.mark.parametrize('dtype', DTYPES)
def test_indexing(device, op, dtype, rng):
    _available(device)
    for shape in INDEX_SHAPES:
        a = _ties(rng, shape, dtype)
        n = shape[-1]
        i = rng.integers(0, max(n, 1), shape) if n else np.zeros(shape, np.int64)
        p = np.argsort(rng.random(shape), axis=-1)
        what = f'{op} {dtype} {shape}'

        both = _on_both(device, what, lambda dev: INDEXING[op](
            dl, dl.tensor(a).to(dev), dl.tensor(i).to(dev), dl.tensor(p).to(dev)))
        if both is None:
            continue
        got, want = _outputs(both[0]), _outputs(both[1])
        assert len(got) == len(want), what
        for k, (g, w) in enumerate(zip(got, want)):
            _same(g, w, device, f'{what}: output {k}')
