# test_memory_format.py: the layout of clone() and of the *_like
# factories (torch.preserve_format, their default, and
# torch.contiguous_format): strides compared with PyTorch's.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import pytest
import torch

from conftest import Dl, assert_same, rand_pair

# (shape, view applied alike to both libraries)
LAYOUTS = {
    "contiguous": ((3, 4), lambda a: a),
    "transposed": ((3, 4), lambda a: a.t()),
    "permuted": ((2, 3, 4), lambda a: a.permute(2, 0, 1)),
    "permuted-4d": ((2, 3, 4, 5), lambda a: a.permute(0, 2, 3, 1)),
    "size-one-dim": ((4, 1), lambda a: a.t()),
    "sliced-steps": ((4, 6), lambda a: a[:, ::2]),
    "transposed-sliced": ((4, 6), lambda a: a.t()[::2]),
    "narrowed": ((4, 6), lambda a: a[1:3, 2:5]),
    "expanded": ((3, 1, 4), lambda a: a.expand(3, 2, 4)),
    "permuted-expanded": ((3, 1, 4), lambda a: a.expand(3, 2, 4).permute(2, 1, 0)),
    "scalar": ((), lambda a: a),
}


def views(rng, layout, name="float32"):
    shape, view = LAYOUTS[layout]
    x, t = rand_pair(rng, shape, name)
    return view(x), view(t)


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_clone_preserves_layout(rng, layout):
    x, t = views(rng, layout)
    for kw in ({}, {"memory_format": "preserve"}, {"memory_format": "contiguous"}):
        if kw:
            fmt = kw["memory_format"] + "_format"
            c, d = x.clone(memory_format=getattr(Dl, fmt)), t.clone(
                memory_format=getattr(torch, fmt))
        else:
            c, d = x.clone(), t.clone()
        assert c.stride() == d.stride(), (layout, kw)
        assert c.is_contiguous() == d.is_contiguous()
        assert_same(c, d)
    assert Dl.clone(x).stride() == torch.clone(t).stride()


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("fn", ["empty_like", "zeros_like", "ones_like", "rand_like",
                                "randn_like"])
def test_like_factories_follow_layout(rng, layout, fn):
    x, t = views(rng, layout)
    a, b = getattr(Dl, fn)(x), getattr(torch, fn)(t)
    assert a.stride() == b.stride() and a.shape == b.shape and a.dtype == Dl.float32
    if fn in ("zeros_like", "ones_like"):
        assert_same(a, b)
    a = getattr(Dl, fn)(x, memory_format=Dl.contiguous_format, dtype=Dl.float64)
    b = getattr(torch, fn)(t, memory_format=torch.contiguous_format, dtype=torch.float64)
    assert a.stride() == b.stride() and a.dtype == Dl.float64


@pytest.mark.parametrize("layout", ["transposed", "transposed-sliced", "permuted"])
def test_full_and_randint_like(rng, layout):
    x, t = views(rng, layout)
    a, b = Dl.full_like(x, 2.5), torch.full_like(t, 2.5)
    assert a.stride() == b.stride()
    assert_same(a, b)
    a, b = Dl.randint_like(x, 3, 6), torch.randint_like(t, 3, 6)
    assert a.stride() == b.stride()
    v = a.numpy()
    assert ((v >= 3) & (v < 6)).all()
    r = Dl.rand_like(x, requires_grad=True)
    assert r.requires_grad and r.is_leaf and r.stride() == torch.rand_like(t).stride()


def test_clone_keeps_autograd_and_own_storage(rng):
    x, t = rand_pair(rng, (3, 4), requires_grad=True)
    c, d = x.t().clone(), t.t().clone()
    assert c.grad_fn.name() == d.grad_fn.name() == "CloneBackward0"
    (c * Dl.arange(12.0).reshape(4, 3)).sum().backward()
    (d * torch.arange(12.0).reshape(4, 3)).sum().backward()
    assert_same(x.grad, t.grad)
    y = x.detach().t()
    z = y.clone()
    z.fill_(7)
    assert float(y.abs().max()) < 7


def test_contiguous_and_reshape_stay_row_major(rng):
    x, t = views(rng, "transposed")
    assert x.contiguous().stride() == t.contiguous().stride() == (3, 1)
    assert x.contiguous(memory_format=Dl.contiguous_format).stride() == (3, 1)
    assert x.reshape(12).stride() == t.reshape(12).stride()
    assert_same(x.reshape(2, 6), t.reshape(2, 6))


def test_empty_tensors():
    for shape, view in (((0, 3), lambda a: a.t()), ((0, 3, 2), lambda a: a.permute(2, 0, 1))):
        x, t = view(Dl.zeros(*shape)), view(torch.zeros(*shape))
        assert x.stride() == t.stride()
        assert x.clone().stride() == t.clone().stride()
        assert Dl.empty_like(x).stride() == torch.empty_like(t).stride()


def test_bad_memory_format():
    x = Dl.ones(2, 3)
    with pytest.raises(TypeError):
        x.clone(memory_format="contiguous")
    with pytest.raises(TypeError):
        Dl.zeros_like(x, memory_format=1)
    assert repr(Dl.preserve_format) == repr(torch.preserve_format)
    assert repr(Dl.contiguous_format) == repr(torch.contiguous_format)
