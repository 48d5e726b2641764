# test_multiprocessing.py: shared-memory tensors and dl.multiprocessing,
# as torch.multiprocessing behaves; the Hogwild example.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import os
import subprocess
import sys

import numpy as np
import pytest

import torch

from conftest import Dl

mp = Dl.multiprocessing
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def fds():
    return len(os.listdir('/proc/self/fd'))


def test_share_memory_keeps_values_and_views(rng):
    a = rng.standard_normal((4, 5)).astype(np.float32)
    t = Dl.tensor(a)
    view = t[1:3, ::2]
    assert not t.is_shared()
    assert t.share_memory_() is t
    assert t.is_shared() and view.is_shared()
    np.testing.assert_array_equal(t.numpy(), a)
    view.fill_(7)
    a[1:3, ::2] = 7
    np.testing.assert_array_equal(t.numpy(), a)
    t.share_memory_()  # a second time changes nothing
    np.testing.assert_array_equal(t.numpy(), a)
    small = Dl.tensor([1, 2, 3], dtype=Dl.int64).share_memory_()
    assert small.tolist() == [1, 2, 3] and small.is_shared()
    assert Dl.zeros(0).share_memory_().is_shared()


def _child_sends_parameter(q, done):
    q.put(Dl.nn.Linear(3, 2).weight)
    done.wait()


def test_parameters_and_modules_share():
    m = Dl.nn.Linear(3, 2)
    assert m.share_memory() is m
    assert all(p.is_shared() for p in m.parameters())
    q, done = mp.Queue(), mp.Event()
    p = mp.Process(target=_child_sends_parameter, args=(q, done))
    p.start()
    w = q.get()
    done.set()
    p.join()
    assert isinstance(w, Dl.nn.Parameter) and w.requires_grad and tuple(w.shape) == (2, 3)


def _child_adds_and_sends(t, q, done):
    t += 1
    q.put(t[1:3])
    q.put(Dl.arange(4).float() * 2)
    done.wait()


def test_tensors_cross_processes_without_copies():
    t = Dl.zeros(5).share_memory_()
    q, done = mp.Queue(), mp.Event()
    p = mp.Process(target=_child_adds_and_sends, args=(t, q, done))
    p.start()
    part = q.get()
    fresh = q.get()
    done.set()
    p.join()
    assert p.exitcode == 0
    assert t.tolist() == [1.0] * 5  # the child's write is seen here
    assert part.is_shared() and fresh.is_shared()
    assert fresh.tolist() == [0.0, 2.0, 4.0, 6.0]
    part[0] = 7  # the received view is the same memory
    assert t.tolist() == [1.0, 7.0, 1.0, 1.0, 1.0]


def test_non_leaf_requiring_grad_refuses_to_cross():
    x = Dl.ones(3, requires_grad=True)
    q = mp.Queue()
    with pytest.raises(RuntimeError, match='Cowardly refusing'):
        from multiprocessing.reduction import ForkingPickler
        ForkingPickler.dumps(x * 2)
    q.close()


def _child_echo(q_in, q_out, n, done):
    for _ in range(n):
        q_out.put(q_in.get())
    done.wait()


def test_no_fd_leak():
    q_in, q_out, done = mp.Queue(), mp.Queue(), mp.Event()
    p = mp.Process(target=_child_echo, args=(q_in, q_out, 20, done))
    p.start()
    received = []
    for i in range(20):
        q_in.put(Dl.full((100,), float(i)))
        received.append(q_out.get())
    done.set()
    p.join()
    assert [r[0].item() for r in received] == list(range(20))
    before = fds()
    del received
    import gc
    gc.collect()
    assert fds() < before  # each received tensor held one descriptor, now closed
    q_in.close()
    q_out.close()


@pytest.mark.skipif(Dl is torch, reason="runs libdl's example")
def test_hogwild_example():
    env = dict(os.environ)
    out = subprocess.run([sys.executable, os.path.join(ROOT, 'examples', 'python', 'hogwild.py'),
                          '--processes', '2', '--steps', '200'],
                         env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert 'steps per process: [200, 200]' in out.stdout
