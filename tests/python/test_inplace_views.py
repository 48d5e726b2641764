# test_inplace_views.py: in-place writes through views of tensors in the
# autograd graph (PyTorch's CopySlices and regenerated view histories), and
# the overwrite ops (fill_, zero_, copy_, the random fills) on tensors with
# history, compared against PyTorch: values, grad_fn names and gradients.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import numpy as np
import pytest
import torch

from conftest import Dl, assert_same, dl_from_np, rand_np, th_from_np


def run(rng, fn, shapes, name="float32", names=None, check_names=True):
    """Runs fn(lib, *leaves) with libdl and with torch on the same random
    leaves (requiring grad); compares the output, its grad_fn name and the
    leaves' gradients after a backward with a random gradient."""
    xs, ts = [], []
    for shape in shapes:
        a = rand_np(rng, shape, name)
        xs.append(dl_from_np(a, name).requires_grad_())
        ts.append(th_from_np(a, name).requires_grad_())
    y, u = fn(Dl, *xs), fn(torch, *ts)
    assert_same(y, u)
    assert y.requires_grad == u.requires_grad
    if check_names:
        assert y.grad_fn.name() == type(u.grad_fn).__name__
    g = rand_np(rng, tuple(u.shape), name)
    y.backward(dl_from_np(g, name))
    u.backward(th_from_np(g, name))
    for i, (x, t) in enumerate(zip(xs, ts)):
        if t.grad is None:
            assert x.grad is None, "input %d" % i
        else:
            assert x.grad is not None, "input %d has no grad" % i
            assert_same(x.grad, t.grad, msg="grad of input %d" % i)


def test_mul_through_row_view(rng):
    def f(lib, x):
        y = x * 1
        y[1].mul_(5)
        return y
    run(rng, f, [(3, 4)])


def test_add_tensor_into_column_slice(rng):
    def f(lib, x, w):
        y = x.clone()
        y[:, 1:3] += w
        return y
    run(rng, f, [(4, 5), (4, 2)])


def test_assign_into_zeros_gives_copyslices(rng):
    def f(lib, w):
        z = lib.zeros(3, 4)
        z[0] = w
        z[2, 1:] = w[1:] * 2
        return z
    run(rng, f, [(4,)])


def test_assign_into_view_of_zeros(rng):
    def f(lib, w):
        z = lib.zeros(3, 4)
        v = z[1]
        v.copy_(w)
        assert z.requires_grad
        return z * 1
    run(rng, f, [(4,)])


def test_transposed_view(rng):
    def f(lib, x):
        y = x * 2
        y.t().mul_(3)
        return y
    run(rng, f, [(3, 4)])


def test_view_of_view(rng):
    def f(lib, x, w):
        y = x * 1
        y[1][2:].add_(w)
        y[0, ::2].div_(w[:2] + 4)
        return y
    run(rng, f, [(3, 4), (2,)])


def test_reshaped_view(rng):
    def f(lib, x):
        y = x + 0
        y.view(-1)[3:9].sub_(1)
        y.view(2, 6)[1].mul_(y.view(2, 6)[0].detach().clone())
        return y
    run(rng, f, [(3, 4)])


def test_output_is_the_view(rng):
    def f(lib, x, w):
        y = x * 1
        v = y[1:]
        v.mul_(w)
        return v
    run(rng, f, [(3, 4), (4,)])


def test_stale_view_is_regenerated(rng):
    def f(lib, x):
        y = x * 1
        a = y[0]
        y[1].mul_(2)
        return a * 3 + y
    run(rng, f, [(3, 4)])


def test_stale_view_grad_fn_name(rng):
    for lib in (Dl, torch):
        x = lib.ones(3, 4, requires_grad=True)
        y = x * 1
        a = y[0]
        y.mul_(2)
        assert a.grad_fn.name() == "AsStridedBackward0"
        assert y.grad_fn.name() == "MulBackward0"


def test_stale_expanded_view(rng):
    def f(lib, x):
        y = x * 1
        e = y.expand(3, 4)
        y.mul_(2)
        return e
    run(rng, f, [(4,)])


def test_base_written_then_view_used(rng):
    def f(lib, x, w):
        y = x * 1
        cols = y[:, 1]
        y.add_(w)
        return cols * cols
    run(rng, f, [(3, 4), (3, 4)])


def test_fill_and_zero_on_views(rng):
    def f(lib, x):
        y = x * 1
        y[0].fill_(7)
        y[:, 2].zero_()
        return y * y
    run(rng, f, [(3, 4)])


def test_fill_on_non_leaf(rng):
    def f(lib, x):
        y = x * 2
        y.fill_(3)
        return y * x
    run(rng, f, [(2, 3)])


def test_copy_broadcast_and_dtype(rng):
    xs = rand_np(rng, (3, 4), "float32")
    ws = rand_np(rng, (4,), "float64")
    out = []
    for lib, mk in ((Dl, dl_from_np), (torch, th_from_np)):
        x = mk(xs, "float32").requires_grad_()
        w = mk(ws, "float64").requires_grad_()
        y = x * 1
        y[1:].copy_(w)
        y.sum().backward()
        out.append((y, x.grad, w.grad))
    for a, b in zip(out[0], out[1]):
        assert_same(a, b)


@pytest.mark.parametrize("op", ["relu_", "clamp_", "masked_fill_", "sub_", "div_"])
def test_pointwise_inplace_family_on_views(rng, op):
    def f(lib, x):
        y = x * 1
        v = y[1:, ::2]
        if op == "relu_":
            v.relu_()
        elif op == "clamp_":
            v.clamp_(min=-0.5, max=0.5)
        elif op == "masked_fill_":
            v.masked_fill_(v.detach() > 0, 0.25)
        elif op == "sub_":
            v.sub_(x[0, :3], alpha=2)
        else:
            v.div_(2.5)
        return y * 1
    run(rng, f, [(3, 5)])


def test_index_put_and_advanced_assignment_on_views(rng):
    def f(lib, x, w):
        y = x * 1
        v = y[1:]
        v[lib.tensor([0, 1]), lib.tensor([2, 0])] = w
        v[0][v[0].detach() < 0] = 0.0
        return y
    run(rng, f, [(3, 4), (2,)])


def test_random_fill_on_non_leaf_gives_zero_grad(rng):
    def f(lib, x):
        lib.manual_seed(0)
        y = x * 1
        y[0].normal_()
        return (y * 0 + 1) * x
    run(rng, f, [(2, 3)])
    x = Dl.ones(2, 3, requires_grad=True)
    y = x * 1
    y.uniform_()
    assert y.grad_fn.name() == "UniformBackward0"
    y.sum().backward()
    assert_same(x.grad, torch.zeros(2, 3))


def test_float64(rng):
    def f(lib, x, w):
        y = x * 1
        y[:, 1].mul_(w)
        return y
    run(rng, f, [(3, 4), (3,)], name="float64")


def test_second_write_to_same_view(rng):
    def f(lib, x, w):
        y = x * 1
        v = y[1]
        v.mul_(w)
        v.add_(w)
        v.mul_(2)
        return y
    run(rng, f, [(3, 4), (4,)])


def test_overlapping_views_written_in_turn(rng):
    def f(lib, x):
        y = x * 1
        y[0:2].mul_(2)
        y[1:3].mul_(3)
        return y
    run(rng, f, [(3, 4)])


def test_finite_differences_through_views(rng):
    """The gradient through CopySlices against central differences."""
    def fn(x, w):
        y = x * 1
        y[1].mul_(w)
        y[:, 0].add_(w[:3].sum() * w[0])
        return (y * y).sum()
    xa, wa = rand_np(rng, (3, 4), "float64"), rand_np(rng, (4,), "float64")
    x = dl_from_np(xa, "float64").requires_grad_()
    w = dl_from_np(wa, "float64").requires_grad_()
    fn(x, w).backward()
    eps = 1e-6
    for leaf, arr, others in ((x, xa, lambda a: (a, wa)), (w, wa, lambda a: (xa, a))):
        num = np.zeros_like(arr)
        for i in np.ndindex(arr.shape):
            hi, lo = arr.copy(), arr.copy()
            hi[i] += eps
            lo[i] -= eps
            fh = fn(*[dl_from_np(v, "float64") for v in others(hi)]).item()
            fl = fn(*[dl_from_np(v, "float64") for v in others(lo)]).item()
            num[i] = (fh - fl) / (2 * eps)
        np.testing.assert_allclose(leaf.grad.numpy(), num, rtol=1e-5, atol=1e-6)


# -- what PyTorch refuses, libdl refuses too ----------------------------------

def test_view_of_leaf_is_refused():
    for lib in (Dl, torch):
        x = lib.ones(3, requires_grad=True)
        with pytest.raises(RuntimeError, match="view of a leaf Variable"):
            x[1:].mul_(2)
        with lib.no_grad():
            x[1:].mul_(2)
        assert x.tolist() == [1.0, 2.0, 2.0]


def test_view_made_in_no_grad_mode_is_refused():
    for lib in (Dl, torch):
        x = lib.ones(3, requires_grad=True)
        y = x * 1
        with lib.no_grad():
            v = y[1:]
        with pytest.raises(RuntimeError, match="no_grad mode"):
            v.mul_(2)


def test_leaf_fill_and_copy_are_refused():
    for lib in (Dl, torch):
        x = lib.ones(3, requires_grad=True)
        with pytest.raises(RuntimeError, match="leaf Variable"):
            x.fill_(2)
        with pytest.raises(RuntimeError, match="leaf Variable"):
            x.copy_(lib.zeros(3))
        with pytest.raises(RuntimeError, match="leaf Variable"):
            x.normal_()
        with lib.no_grad():
            x.fill_(2)
        assert x.tolist() == [2.0, 2.0, 2.0]


def test_saved_view_modified_then_backward_fails():
    for lib in (Dl, torch):
        x = lib.ones(3, requires_grad=True)
        y = x * 1
        v = y[1:]
        z = (v * v).sum()
        y[0].mul_(2)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            z.backward()


def test_no_grad_writes_keep_working():
    x = Dl.zeros(3, 4)
    x[1].fill_(2)
    x[:, 0].copy_(Dl.arange(3.0))
    x.t()[1].add_(1)
    t = torch.zeros(3, 4)
    t[1].fill_(2)
    t[:, 0].copy_(torch.arange(3.0))
    t.t()[1].add_(1)
    assert_same(x, t)
    assert not x.requires_grad


def test_base_with_permuted_layout(rng):
    def f(lib, x, w):
        y = x.t() * 1  # laid out as x.t() is: a dense permutation
        y[1].mul_(w)
        y[:, 2].add_(1)
        return y
    run(rng, f, [(4, 3), (4,)])


def test_base_with_storage_offset(rng):
    def f(lib, x, w):
        big = lib.zeros(5, 4)
        b = big[1:].detach()  # an alias at a storage offset, itself no view
        b[2].copy_(w)
        b[0, 1:].mul_(w[:3])
        return b * x
    run(rng, f, [(4, 4), (4,)], check_names=False)
