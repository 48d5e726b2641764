# test_generator.py: Dl.Generator and the random creation functions:
# reproducibility from a seed (also across thread counts), independence of
# generators, state round trips, and the distributions' moments.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import os
import subprocess
import sys

import numpy as np
import pytest
import torch

from conftest import SELF_CHECK, Dl, dtype_name, to_np

FLOATS = ["float32", "float64", "float16", "bfloat16"]


def draws(gen):
    """One of each random op, drawn from `gen`, as numpy arrays."""
    out = [Dl.rand(5, 3, generator=gen), Dl.randn(7, generator=gen),
           Dl.randint(0, 10, (6,), generator=gen), Dl.randperm(9, generator=gen),
           Dl.empty(4).uniform_(-2, 3, generator=gen), Dl.empty(4).normal_(1, 2, generator=gen),
           Dl.empty(6).bernoulli_(0.5, generator=gen)]
    return [to_np(t) for t in out]


def same(a, b):
    return len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b))


def test_same_seed_same_numbers():
    g1 = Dl.Generator().manual_seed(1234)
    g2 = Dl.Generator().manual_seed(1234)
    assert same(draws(g1), draws(g2))
    g3 = Dl.Generator().manual_seed(1235)
    assert not same(draws(Dl.Generator().manual_seed(1234)), draws(g3))


def test_manual_seed_returns_self_and_restarts():
    g = Dl.Generator()
    assert g.manual_seed(7) is g
    first = draws(g)
    second = draws(g)
    assert not same(first, second)
    g.manual_seed(7)
    assert same(draws(g), first)
    assert g.initial_seed() == 7


def test_default_generator():
    g = Dl.manual_seed(99)
    assert isinstance(g, Dl.Generator)
    assert g.initial_seed() == 99 and Dl.initial_seed() == 99
    a = to_np(Dl.rand(100))
    b = to_np(Dl.randn(10))
    Dl.manual_seed(99)
    assert np.array_equal(to_np(Dl.rand(100)), a)
    assert np.array_equal(to_np(Dl.randn(10)), b)
    # the default generator is the one manual_seed returns
    Dl.manual_seed(99)
    assert np.array_equal(to_np(Dl.rand(100, generator=g)), a)
    if not SELF_CHECK:
        assert g is Dl.default_generator


def test_generators_are_independent():
    g1 = Dl.Generator().manual_seed(5)
    ref = draws(g1)
    g1.manual_seed(5)
    g2 = Dl.Generator().manual_seed(5)
    # interleaving draws from g2 and the default generator does not move g1
    out = []
    for fn in (lambda g: Dl.rand(5, 3, generator=g), lambda g: Dl.randn(7, generator=g)):
        Dl.rand(11)
        Dl.rand(3, generator=g2)
        out.append(to_np(fn(g1)))
    assert np.array_equal(out[0], ref[0]) and np.array_equal(out[1], ref[1])


def test_state_round_trip():
    g = Dl.Generator().manual_seed(42)
    Dl.rand(10, generator=g)
    state = g.get_state()
    assert state.dtype == Dl.uint8 and state.dim() == 1
    a = draws(g)
    g.manual_seed(0)
    g.set_state(state)
    assert same(draws(g), a)
    # a state moves between generators
    h = Dl.Generator()
    h.set_state(state)
    assert same(draws(h), a)
    # the default generator's state
    s = Dl.get_rng_state()
    x = to_np(Dl.randn(50))
    Dl.set_rng_state(s)
    assert np.array_equal(to_np(Dl.randn(50)), x)


@pytest.mark.skipif(SELF_CHECK, reason="libdl's own state format")
def test_set_state_rejects_garbage():
    g = Dl.Generator()
    with pytest.raises(RuntimeError):
        g.set_state(Dl.zeros(24, dtype=Dl.uint8))
    with pytest.raises(RuntimeError):
        g.set_state(Dl.zeros(5, dtype=Dl.uint8))
    with pytest.raises(TypeError):
        g.set_state(Dl.zeros(24))


def test_seed_is_random():
    g = Dl.Generator()
    s1, s2 = g.seed(), g.seed()
    assert s1 != s2
    assert g.initial_seed() == s2
    assert isinstance(Dl.seed(), int)


def test_generator_device():
    g = Dl.Generator(device="cpu")
    assert str(g.device) == "cpu"
    with pytest.raises(TypeError):
        Dl.rand(3, generator=5)


_THREADS_SCRIPT = r"""
import hashlib, sys
import gi
gi.require_version('Dl', '1.0')
from gi.repository import Dl
g = Dl.Generator().manual_seed(2026)
h = hashlib.sha256()
for t in (Dl.rand(1 << 20, generator=g), Dl.randn(1 << 20, generator=g),
          Dl.rand(1 << 19, dtype=Dl.float64, generator=g),
          Dl.randn(300001, dtype=Dl.float64, generator=g),
          Dl.randint(-5, 100, (1 << 18,), generator=g), Dl.randperm(100000, generator=g),
          Dl.empty(1 << 20).bernoulli_(0.3, generator=g),
          Dl.multinomial(Dl.rand(3000, 100, generator=g), 40, generator=g),
          Dl.multinomial(Dl.rand(3000, 100, generator=g), 40, True, generator=g)):
    h.update(t.numpy().tobytes())
print(h.hexdigest())
"""


@pytest.mark.skipif(SELF_CHECK, reason="libdl's counter-based stream")
def test_same_numbers_whatever_the_thread_count():
    outs = []
    for n in ("1", "2", "3"):
        env = dict(os.environ, OMP_NUM_THREADS=n)
        r = subprocess.run([sys.executable, "-c", _THREADS_SCRIPT], env=env,
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        outs.append(r.stdout.strip())
    assert outs[0] == outs[1] == outs[2]


@pytest.mark.parametrize("name", FLOATS)
def test_rand_moments(name):
    g = Dl.Generator().manual_seed(3)
    a = to_np(Dl.rand(40000, dtype=getattr(Dl, name), generator=g)).astype(np.float64)
    assert a.min() >= 0 and a.max() <= 1
    assert abs(a.mean() - 0.5) < 0.01 and abs(a.var() - 1 / 12) < 0.005
    n = to_np(Dl.randn(40000, dtype=getattr(Dl, name), generator=g)).astype(np.float64)
    assert abs(n.mean()) < 0.03 and abs(n.std() - 1) < 0.03


@pytest.mark.parametrize("name", FLOATS)
def test_uniform_normal_params(name):
    g = Dl.Generator().manual_seed(4)
    x = Dl.empty(20000, dtype=getattr(Dl, name))
    assert x.uniform_(-3, 5, generator=g) is x
    a = to_np(x).astype(np.float64)
    assert a.min() >= -3 and a.max() <= 5 and abs(a.mean() - 1) < 0.1
    assert x.normal_(2, 0.5, generator=g) is x
    a = to_np(x).astype(np.float64)
    assert abs(a.mean() - 2) < 0.02 and abs(a.std() - 0.5) < 0.02


def test_uniform_normal_noncontiguous():
    g = Dl.Generator().manual_seed(8)
    base = Dl.zeros(6, 4)
    view = base.t()[:, ::2]
    view.uniform_(1, 2, generator=g)
    b = to_np(base)
    assert (b[::2] >= 1).all() and (b[1::2] == 0).all()
    view.normal_(generator=g)
    assert (to_np(base)[1::2] == 0).all()


def test_random_errors():
    with pytest.raises(RuntimeError):
        torch.empty(3, dtype=torch.int64).uniform_()
    with pytest.raises(RuntimeError):
        Dl.empty(3, dtype=Dl.int64).uniform_()
    with pytest.raises(RuntimeError):
        Dl.empty(3).uniform_(2, 1)
    with pytest.raises(RuntimeError):
        torch.empty(3).normal_(0, -1)
    with pytest.raises(RuntimeError):
        Dl.empty(3).normal_(0, -1)
    with pytest.raises(RuntimeError):
        Dl.empty(3).bernoulli_(1.5)
    with pytest.raises(RuntimeError):
        Dl.randint(5, 5, (3,))
    with pytest.raises(RuntimeError):
        torch.randperm(-1)
    with pytest.raises(RuntimeError):
        Dl.randperm(-1)
    with pytest.raises(RuntimeError):
        Dl.rand(2, dtype=Dl.int32)


@pytest.mark.parametrize("name", ["int64", "int32", "uint8", "float32", "float64"])
@pytest.mark.parametrize("n", [0, 1, 2, 10, 1000])
def test_randperm(name, n):
    g = Dl.Generator().manual_seed(n)
    if name == "uint8" and n > 256:
        with pytest.raises(RuntimeError):
            torch.randperm(n, dtype=torch.uint8)
        with pytest.raises(RuntimeError):
            Dl.randperm(n, dtype=Dl.uint8, generator=g)
        return
    p = Dl.randperm(n, dtype=getattr(Dl, name), generator=g)
    t = torch.randperm(n, dtype=getattr(torch, name))
    assert dtype_name(p.dtype) == dtype_name(t.dtype) and tuple(p.shape) == tuple(t.shape)
    assert sorted(to_np(p).astype(np.int64).tolist()) == list(range(n))


def test_randperm_is_uniform():
    g = Dl.Generator().manual_seed(11)
    counts = np.zeros((4, 4))
    for _ in range(2400):
        p = to_np(Dl.randperm(4, generator=g))
        counts[np.arange(4), p] += 1
    assert np.abs(counts / 2400 - 0.25).max() < 0.05
    assert Dl.randperm(3).dtype == torch.randperm(3).dtype if SELF_CHECK else \
        Dl.randperm(3).dtype == Dl.int64


@pytest.mark.parametrize("name", ["int64", "int32", "uint8", "float32", "float64", "bool"])
def test_randint(name):
    g = Dl.Generator().manual_seed(9)
    lo, hi = (0, 2) if name in ("bool", "uint8") else (-7, 13)
    x = Dl.randint(lo, hi, (3000,), dtype=getattr(Dl, name), generator=g)
    t = torch.randint(lo, hi, (3000,), dtype=getattr(torch, name))
    assert dtype_name(x.dtype) == dtype_name(t.dtype) and tuple(x.shape) == (3000,)
    a = to_np(x).astype(np.int64)
    assert a.min() == lo and a.max() == hi - 1
    assert Dl.randint(5, (2, 3)).dtype == Dl.int64
    assert tuple(Dl.randint(3, 5, size=(2, 0)).shape) == (2, 0)


def test_bernoulli():
    g = Dl.Generator().manual_seed(12)
    for name in ("float32", "float64", "int64", "bool", "uint8"):
        x = Dl.empty(20000, dtype=getattr(Dl, name)).bernoulli_(0.25, generator=g)
        a = to_np(x).astype(np.float64)
        assert set(np.unique(a)) <= {0.0, 1.0} and abs(a.mean() - 0.25) < 0.02
    for p in (0.0, 1.0):
        assert (to_np(Dl.empty(100).bernoulli_(p)) == p).all()
    probs = Dl.tensor([0.0, 1.0, 0.0, 1.0])
    assert np.array_equal(to_np(Dl.bernoulli(probs, generator=g)), [0, 1, 0, 1])
    assert np.array_equal(to_np(probs.bernoulli()), [0, 1, 0, 1])
    assert np.array_equal(to_np(Dl.empty(4).bernoulli_(probs)), [0, 1, 0, 1])


def test_normal_function():
    g = Dl.Generator().manual_seed(13)
    x = Dl.normal(3.0, 2.0, (20000,), generator=g)
    a = to_np(x)
    assert abs(a.mean() - 3) < 0.05 and abs(a.std() - 2) < 0.05
    m = Dl.zeros(3, 4)
    assert tuple(Dl.normal(m, 1.0, generator=g).shape) == (3, 4)


def test_rand_like_generator_kwargs():
    x = Dl.zeros(2, 3, dtype=Dl.float64)
    assert Dl.rand_like(x).dtype == Dl.float64
    assert Dl.randn_like(x, dtype=Dl.float32).dtype == Dl.float32
    assert Dl.rand_like(x, requires_grad=True).requires_grad
    with pytest.raises(RuntimeError):
        Dl.rand_like(Dl.zeros(2, dtype=Dl.int64))


@pytest.mark.parametrize("replacement", [False, True])
@pytest.mark.parametrize("name", ["float32", "float64", "float16", "bfloat16"])
def test_multinomial_shapes_and_values(replacement, name):
    g = Dl.Generator().manual_seed(21)
    w = [[0.0, 1.0, 2.0, 0.0, 3.0], [5.0, 0.0, 0.0, 1.0, 1.0]]
    if SELF_CHECK and name == "float16":
        pytest.skip("torch 1.13 has no float16 multinomial on CPU")
    for probs_d, probs_t in ((Dl.tensor(w, dtype=getattr(Dl, name)), torch.tensor(w)),
                             (Dl.tensor(w[0], dtype=getattr(Dl, name)), torch.tensor(w[0]))):
        n = 3
        x = Dl.multinomial(probs_d, n, replacement, generator=g)
        t = torch.multinomial(probs_t, n, replacement)
        assert tuple(x.shape) == tuple(t.shape) and dtype_name(x.dtype) == "int64"
        a = to_np(x).reshape(-1, n)
        wz = np.array(w if probs_d.dim() == 2 else [w[0]])
        for row, weights in zip(a, wz):
            assert (weights[row] > 0).all()          # zero weights are never drawn
            if not replacement:
                assert len(set(row.tolist())) == n   # no category twice


def test_multinomial_distribution():
    g = Dl.Generator().manual_seed(22)
    p = Dl.tensor([0.1, 0.2, 0.3, 0.4])
    x = to_np(Dl.multinomial(p, 40000, True, generator=g))
    freq = np.bincount(x, minlength=4) / 40000
    assert np.abs(freq - [0.1, 0.2, 0.3, 0.4]).max() < 0.015
    # without replacement, the first draw follows the weights too
    first = np.array([to_np(p.multinomial(2, generator=g))[0] for _ in range(3000)])
    freq = np.bincount(first, minlength=4) / 3000
    assert np.abs(freq - [0.1, 0.2, 0.3, 0.4]).max() < 0.04
    # reproducible
    g.manual_seed(1)
    a = to_np(Dl.multinomial(p.expand(5, 4), 4, generator=g))
    g.manual_seed(1)
    assert np.array_equal(a, to_np(Dl.multinomial(p.expand(5, 4), 4, generator=g)))
    assert (np.sort(a, axis=1) == np.arange(4)).all()


@pytest.mark.parametrize("probs,n,repl", [
    ([0.5, -0.1, 0.6], 1, True), ([0.0, 0.0], 1, True), ([1.0, float("nan")], 1, True),
    ([1.0, float("inf")], 1, True), ([0.5, 0.5], 3, False),
    ([0.5, 0.5], 0, True), ([[[0.5]]], 1, True), ([], 1, True),
], ids=str)
def test_multinomial_errors(probs, n, repl):
    with pytest.raises(RuntimeError):
        torch.multinomial(torch.tensor(probs), n, repl)
    with pytest.raises(RuntimeError):
        Dl.multinomial(Dl.tensor(probs), n, repl)


def test_multinomial_zero_weights_last():
    # torch draws the zero-weight categories once the others are used up
    g = Dl.Generator().manual_seed(23)
    for _ in range(20):
        r = to_np(Dl.multinomial(Dl.tensor([0.0, 1.0, 0.0, 0.0]), 4, generator=g)).tolist()
        assert r[0] == 1 and sorted(r) == [0, 1, 2, 3]
    t = torch.multinomial(torch.tensor([0.0, 1.0, 0.0, 0.0]), 4).tolist()
    assert t[0] == 1 and sorted(t) == [0, 1, 2, 3]


def test_multinomial_int_input():
    with pytest.raises(RuntimeError):
        torch.multinomial(torch.tensor([1, 2]), 1)
    with pytest.raises(RuntimeError):
        Dl.multinomial(Dl.tensor([1, 2]), 1)


def test_manual_seed_seeds_every_devices_default_generator():
    # torch.manual_seed seeds the CPU and every GPU; libdl every device's
    # default generator, made before the call or after it
    if Dl is torch:
        pytest.skip('a libdl device registry')
    from gi.repository import Dl as typelib
    meta = typelib.Device.get('meta').get_default_generator()
    meta.manual_seed(1)
    Dl.manual_seed(1234)
    assert meta.initial_seed() == 1234
    assert Dl.initial_seed() == 1234
    Dl.manual_seed(99)
    assert meta.initial_seed() == 99
    # torch.cuda's seeding is a no-op without a GPU, as in PyTorch
    Dl.cuda.manual_seed(5)
    Dl.cuda.manual_seed_all(5)
    assert meta.initial_seed() == 99 and Dl.initial_seed() == 99
