"""torch.set_num_threads / get_num_threads: the CPU kernels' thread count,
shared with PyTorch in one process (one OpenMP pool), per calling thread."""
import threading

import numpy as np
import pytest
import torch

from gi.repository import Dl


@pytest.fixture
def restore_threads():
    before = Dl.get_num_threads()
    yield before
    Dl.set_num_threads(before)


@pytest.mark.parametrize('n', [1, 2, 3])
def test_set_get(restore_threads, n):
    Dl.set_num_threads(n)
    assert Dl.get_num_threads() == n
    # one OpenMP count for both libraries, as docs/threading.md says
    assert torch.get_num_threads() == n


def test_results_do_not_depend_on_the_count(restore_threads):
    g = np.random.default_rng(19)
    a = g.standard_normal((300, 257)).astype(np.float32)
    b = g.standard_normal((257, 130)).astype(np.float32)
    x = g.standard_normal(1 << 18).astype(np.float32)
    out = {}
    for n in (1, 2, 4):
        Dl.set_num_threads(n)
        out[n] = (Dl.from_numpy(a).matmul(Dl.from_numpy(b)).numpy(),
                  Dl.from_numpy(x).exp().numpy(), Dl.from_numpy(x).sum().item())
    ref = a.astype(np.float64) @ b.astype(np.float64)
    for n, (mm, ex, s) in out.items():
        np.testing.assert_allclose(mm, ref, rtol=1e-4, atol=1e-4)
        np.testing.assert_array_equal(ex, out[1][1])
        assert s == pytest.approx(float(x.astype(np.float64).sum()), rel=1e-4, abs=1e-2)


@pytest.mark.parametrize('bad', [0, -1, 1.5, True, '2', 2 ** 31])
def test_bad_counts(restore_threads, bad):
    with pytest.raises(RuntimeError, match='set_num_threads expects'):
        Dl.set_num_threads(bad)
    assert Dl.get_num_threads() == restore_threads
    # torch raises the same kind of error for the same values
    if not isinstance(bad, str) and bad != 2 ** 31:
        with pytest.raises(RuntimeError, match='set_num_threads expects'):
            torch.set_num_threads(bad)


def test_typelib_error():
    from gi.repository import GLib
    import gi
    typelib = gi.module.get_introspection_module('Dl')
    with pytest.raises(GLib.Error, match='positive integer'):
        typelib.set_num_threads(0)


def test_per_thread(restore_threads):
    """The count is the calling thread's: another thread keeps its own."""
    Dl.set_num_threads(1)
    seen = []

    def worker():
        Dl.set_num_threads(3)
        seen.append(Dl.get_num_threads())

    t = threading.Thread(target=worker)
    t.start()
    t.join()
    assert seen == [3]
    assert Dl.get_num_threads() == 1
