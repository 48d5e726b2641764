# test_autograd.py: gradients compared against PyTorch's for the same
# inputs, and autograd semantics (no_grad, retain_graph, accumulation,
# leaves, errors).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import numpy as np
import pytest
import torch

from conftest import (Dl, assert_same, dl_from_np, rand_np, th_from_np)


def leaves(rng, specs, name):
    """specs: list of (shape, kind) with kind in '', 'pos', 'nz'."""
    xs, ts = [], []
    for shape, kind in specs:
        a = rand_np(rng, shape, name, positive=kind == "pos", nonzero=kind == "nz")
        xs.append(dl_from_np(a, name).requires_grad_())
        ts.append(th_from_np(a, name).requires_grad_())
    return xs, ts


def run_grad(rng, fn, specs, name="float32", tol=None):
    tol = tol or {}
    xs, ts = leaves(rng, specs, name)
    y, u = fn(*xs), fn(*ts)
    assert_same(y, u, **tol)
    assert y.requires_grad
    assert not y.is_leaf
    if u.dim() == 0:
        y.backward()
        u.backward()
    else:
        g = rand_np(rng, tuple(u.shape), name)
        y.backward(dl_from_np(g, name))
        u.backward(th_from_np(g, name))
    for i, (x, t) in enumerate(zip(xs, ts)):
        assert x.grad is not None, "input %d has no grad" % i
        assert_same(x.grad, t.grad, msg="grad of input %d: " % i, **tol)
        assert x.grad.dtype == x.dtype


S = ((3, 4), "")
CASES = {
    "add_bcast": (lambda a, b: a + b, [((3, 1), ""), ((1, 4), "")]),
    "add_bcast_3d": (lambda a, b: a + b, [((2, 3, 4), ""), ((4,), "")]),
    "add_zero_dim": (lambda a, b: a + b, [((2, 3), ""), ((), "")]),
    "sub_bcast": (lambda a, b: a - b, [((3, 4), ""), ((3, 1), "")]),
    "mul_bcast": (lambda a, b: a * b, [((2, 1, 3), ""), ((4, 1), "")]),
    "div_bcast": (lambda a, b: a / b, [((3, 4), ""), ((4,), "nz")]),
    "div_both": (lambda a, b: b / a, [((2, 3), "nz"), ((2, 3), "")]),
    "scalar_ops": (lambda a: (2 - a) * 3 / 4 + 1 - a * 0.5, [S]),
    "rdiv": (lambda a: 2 / a, [((5,), "nz")]),
    "neg": (lambda a: -a, [S]),
    "exp": (lambda a: a.exp(), [S]),
    "log": (lambda a: a.log(), [((3, 4), "pos")]),
    "relu": (lambda a: a.relu(), [((3, 4), "nz")]),
    "abs": (lambda a: a.abs(), [((3, 4), "nz")]),
    "sqrt": (lambda a: a.sqrt(), [((3, 4), "pos")]),
    "tanh": (lambda a: a.tanh(), [S]),
    "sigmoid": (lambda a: a.sigmoid(), [S]),
    "square_reuse": (lambda a: a * a + a, [S]),
    "two_paths": (lambda a, b: (a * b).exp() + (a - b).tanh() * a, [S, S]),
    "mm": (lambda a, b: a @ b, [((3, 4), ""), ((4, 5), "")]),
    "mv": (lambda a, b: a @ b, [((3, 4), ""), ((4,), "")]),
    "vm": (lambda a, b: a @ b, [((4,), ""), ((4, 5), "")]),
    "dot": (lambda a, b: a @ b, [((4,), ""), ((4,), "")]),
    "bmm": (lambda a, b: a.matmul(b), [((2, 3, 4), ""), ((2, 4, 5), "")]),
    "bmm_bcast": (lambda a, b: a @ b, [((2, 1, 3, 4), ""), ((5, 4, 2), "")]),
    "bmm_2d_rhs": (lambda a, b: a @ b, [((2, 3, 4), ""), ((4, 5), "")]),
    "mm_transposed": (lambda a, b: a.t() @ b.t(), [((4, 3), ""), ((5, 4), "")]),
    "sum": (lambda a: a.sum(), [((2, 3, 4), "")]),
    "sum_dim": (lambda a: a.sum(1), [((2, 3, 4), "")]),
    "sum_dims_keep": (lambda a: a.sum((0, 2), keepdim=True), [((2, 3, 4), "")]),
    "mean": (lambda a: a.mean(), [((2, 3, 4), "")]),
    "mean_dim": (lambda a: a.mean(-1), [((2, 3, 4), "")]),
    "mean_dims": (lambda a: a.mean((0, 1)), [((2, 3, 4), "")]),
    "max_all": (lambda a: a.max(), [S]),
    "min_all": (lambda a: a.min() * 2, [S]),
    "max_dim": (lambda a: a.max(1).values, [((3, 5), "")]),
    "max_dim_keep": (lambda a: a.max(0, keepdim=True)[0], [((3, 5), "")]),
    "min_dim": (lambda a: a.min(dim=-1).values, [((2, 3, 4), "")]),
    "log_softmax": (lambda a: a.log_softmax(1), [((4, 6), "")]),
    "log_softmax_dim0": (lambda a: a.log_softmax(0), [((2, 3, 4), "")]),
    "softmax": (lambda a: a.softmax(-1), [((4, 6), "")]),
    "F_softmax": (lambda a: Dl.nn.functional.softmax(a, dim=1) if not isinstance(a, torch.Tensor)
                  else torch.nn.functional.softmax(a, dim=1), [((4, 6), "")]),
    "views": (lambda a: a.view(6, 4).t().reshape(2, 12).unsqueeze(0).squeeze(0).flatten()
              * 2, [((2, 3, 4), "")]),
    "permute": (lambda a: a.permute(2, 0, 1) * a.permute(2, 0, 1).exp(), [((2, 3, 4), "")]),
    "transpose_contig": (lambda a: a.transpose(0, 1).contiguous().view(-1), [S]),
    "expand": (lambda a, b: a.expand(3, 4) * b, [((1, 4), ""), S]),
    "expand_new_dims": (lambda a: a.expand(2, 3, 4), [((3, 1), "")]),
    "clone": (lambda a: a.clone() * a, [S]),
    "cast": (lambda a: (a.double() * 2).float() + a.to(Dl.float64 if not isinstance(a, torch.Tensor)
                                                        else torch.float64).sum().float(), [S]),
    "mlp": (lambda x, w, b, w2: ((x @ w + b).relu() @ w2).log_softmax(1).mean(),
            [((8, 5), ""), ((5, 6), ""), ((6,), ""), ((6, 3), "")]),
    "mlp_sigmoid_tanh": (lambda x, w: (x @ w).sigmoid().sum(0) + (x @ w).tanh().mean(0),
                         [((4, 3), ""), ((3, 2), "")]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_grad(rng, case):
    fn, specs = CASES[case]
    run_grad(rng, fn, specs)


@pytest.mark.parametrize("case", ["add_bcast", "div_bcast", "mm", "bmm_bcast", "log_softmax",
                                  "max_dim", "mean_dims", "mlp", "sqrt", "sigmoid"])
def test_grad_float64(rng, case):
    fn, specs = CASES[case]
    run_grad(rng, fn, specs, name="float64")


@pytest.mark.parametrize("case", ["add_bcast", "mul_bcast", "exp", "sum_dim", "mm"])
def test_grad_bfloat16(rng, case):
    fn, specs = CASES[case]
    run_grad(rng, fn, specs, name="bfloat16", tol=dict(rtol=2e-2, atol=2e-2))


def test_grad_large_mlp(rng):
    # atol 5e-5 (values up to about 0.5): the two libraries' GEMMs may run
    # different OpenBLAS kernels, which sum in different orders (libdl
    # picks the AVX-512 ones where torch's OpenBLAS fell back to SSE3)
    run_grad(rng, CASES["mlp"][0], [((64, 100), ""), ((100, 50), ""), ((50,), ""), ((50, 10), "")],
             tol=dict(rtol=1e-4, atol=5e-5))


# ---- grad_fn ------------------------------------------------------------

GRAD_FN = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b, "neg": lambda a, b: -a, "exp": lambda a, b: a.exp(),
    "log": lambda a, b: a.log(), "relu": lambda a, b: a.relu(), "abs": lambda a, b: a.abs(),
    "sqrt": lambda a, b: a.sqrt(), "tanh": lambda a, b: a.tanh(),
    "sigmoid": lambda a, b: a.sigmoid(), "mm": lambda a, b: a @ b.t(),
    "sum": lambda a, b: a.sum(), "sum_dim": lambda a, b: a.sum(1),
    "mean": lambda a, b: a.mean(), "mean_dim": lambda a, b: a.mean(0),
    "max": lambda a, b: a.max(), "max_dim": lambda a, b: a.max(1).values,
    "min": lambda a, b: a.min(), "min_dim": lambda a, b: a.min(1)[0],
    "view": lambda a, b: a.view(-1), "t": lambda a, b: a.t(),
    "transpose": lambda a, b: a.transpose(0, 1), "permute": lambda a, b: a.permute(1, 0),
    "unsqueeze": lambda a, b: a.unsqueeze(0), "squeeze_dim": lambda a, b: a.unsqueeze(0).squeeze(0),
    "expand": lambda a, b: a.unsqueeze(0).expand(2, 3, 4), "clone": lambda a, b: a.clone(),
    "to": lambda a, b: a.double(), "add_scalar": lambda a, b: a + 2,
    "mul_scalar": lambda a, b: a * 2, "sub_scalar": lambda a, b: a - 2,
    "div_scalar": lambda a, b: a / 2, "log_softmax": lambda a, b: a.log_softmax(1),
    "softmax": lambda a, b: a.softmax(1),
}


@pytest.mark.parametrize("op", list(GRAD_FN))
def test_grad_fn_name(rng, op):
    xs, ts = leaves(rng, [((3, 4), "pos"), ((3, 4), "pos")], "float32")
    y, u = GRAD_FN[op](*xs), GRAD_FN[op](*ts)
    assert y.grad_fn is not None
    assert y.grad_fn.name() == u.grad_fn.name()


def test_grad_fn_absent_without_grad():
    x = Dl.ones(2, 3)
    y = x * 2 + 1
    assert y.grad_fn is None
    assert y.requires_grad is False
    assert y.is_leaf


# ---- semantics ------------------------------------------------------------

def test_no_grad():
    x = Dl.tensor([1.0, 2.0], requires_grad=True)
    assert Dl.is_grad_enabled()
    with Dl.no_grad():
        assert not Dl.is_grad_enabled()
        y = x * 2
        with Dl.no_grad():
            z = y + x
        assert not Dl.is_grad_enabled()
    assert Dl.is_grad_enabled()
    assert y.requires_grad is False and y.grad_fn is None and y.is_leaf
    assert z.requires_grad is False
    w = x * 2
    assert w.requires_grad and w.grad_fn is not None


def test_no_grad_restored_after_exception():
    with pytest.raises(ZeroDivisionError):
        with Dl.no_grad():
            1 / 0
    assert Dl.is_grad_enabled()


def test_no_grad_inplace_update_of_leaf():
    w = Dl.tensor([1.0, 2.0], requires_grad=True)
    (w * w).sum().backward()
    with Dl.no_grad():
        w -= 0.5 * w.grad
        w.add_(1.0)
    assert w.tolist() == [1.0, 1.0]
    assert w.is_leaf and w.requires_grad
    assert w.grad_fn is None


def test_leaf_accumulation():
    for lib in (Dl, torch):
        x = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
        (x * x).sum().backward()
        (x * 3).sum().backward()
        assert x.grad.tolist() == [5.0, -1.0, 9.0]
        x.grad.zero_()
        x.exp().sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), np.exp([1.0, -2.0, 3.0]).astype(np.float32),
                                   rtol=1e-6)
        x.grad = None
        (x * 2).sum().backward()
        assert x.grad.tolist() == [2.0, 2.0, 2.0]


# A gradient that nothing else can reach becomes the leaf's grad without a
# copy; one that the user, another leaf or a view can reach is copied. Each
# case changes the other holder afterwards and checks the grad kept its
# values.
def test_leaf_grad_not_aliased():
    # the user's own gradient, passed straight through a view: libdl copies
    # it (PyTorch 1.13 counts references to the tensor, not to its storage,
    # and makes x.grad an alias of g here)
    x = Dl.zeros(2, 3, requires_grad=True)
    g = Dl.ones(6)
    x.view(6).backward(g)
    g.mul_(5)
    assert x.grad.tolist() == [[1.0] * 3] * 2
    for lib in (Dl, torch):
        # one gradient for two leaves (add hands the same values to both)
        a = lib.zeros(3, requires_grad=True)
        b = lib.zeros(3, requires_grad=True)
        (a + b).sum().backward()
        a.grad.add_(1)
        assert b.grad.tolist() == [1.0, 1.0, 1.0]
        assert a.grad.tolist() == [2.0, 2.0, 2.0]
        # views of one gradient (cat's backward narrows it)
        c = lib.zeros(2, requires_grad=True)
        d = lib.zeros(2, requires_grad=True)
        (lib.cat([c, d]) * lib.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
        c.grad.zero_()
        assert d.grad.tolist() == [3.0, 4.0]
        # a gradient the graph kept (retain_graph) stays the graph's
        e = lib.ones(3, requires_grad=True)
        y = e * 2
        y.sum().backward(retain_graph=True)
        e.grad.mul_(10)
        y.sum().backward()
        assert e.grad.tolist() == [22.0, 22.0, 22.0]


@pytest.mark.parametrize("layout", ["plain", "weight_t", "input_t", "both_t"])
def test_mm_grad_layouts(rng, layout):
    # the weight of a linear layer enters mm transposed: its gradient is
    # computed the other way round, so that it arrives contiguous
    a_np = rand_np(rng, (5, 7), "float32")
    w_np = rand_np(rng, (3, 7), "float32")
    got = []
    for lib, make in ((Dl, dl_from_np), (torch, th_from_np)):
        a = make(a_np if "input" not in layout and layout != "both_t"
                 else np.ascontiguousarray(a_np.T))
        w = make(w_np)
        a.requires_grad_(True)
        w.requires_grad_(True)
        lhs = a if "input" not in layout and layout != "both_t" else a.t()
        rhs = w.t() if layout != "plain" and layout != "input_t" else w.t().contiguous()
        (lhs @ rhs * lib.arange(15).view(5, 3)).sum().backward()
        got.append((a.grad, w.grad))
        assert w.grad.is_contiguous() and a.grad.is_contiguous()
    assert_same(got[0][0], got[1][0], rtol=1e-5, atol=1e-5)
    assert_same(got[0][1], got[1][1], rtol=1e-5, atol=1e-5)


def test_retain_graph():
    x = Dl.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.tolist() == [4.0, 8.0]


@pytest.mark.parametrize("fn", [lambda x: (x * x).sum(), lambda x: x.exp().sum(),
                                lambda x: (x.unsqueeze(0) @ x.unsqueeze(1)).sum(),
                                lambda x: x.log_softmax(0).sum()])
def test_second_backward_raises(fn):
    for lib in (torch, Dl):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = fn(x)
        y.backward()
        with pytest.raises(RuntimeError):
            y.backward()


def test_backward_nonscalar_needs_gradient():
    with pytest.raises(RuntimeError):
        (torch.ones(2, requires_grad=True) * 2).backward()
    with pytest.raises(RuntimeError):
        (Dl.ones(2, requires_grad=True) * 2).backward()


def test_backward_gradient_shape_mismatch():
    with pytest.raises(RuntimeError):
        (torch.ones(2, requires_grad=True) * 2).backward(torch.ones(3))
    with pytest.raises(RuntimeError):
        (Dl.ones(2, requires_grad=True) * 2).backward(Dl.ones(3))


def test_backward_without_grad_raises():
    with pytest.raises(RuntimeError):
        torch.ones(2).sum().backward()
    with pytest.raises(RuntimeError):
        Dl.ones(2).sum().backward()


def test_requires_grad_integer_raises():
    with pytest.raises(RuntimeError):
        torch.tensor([1, 2], requires_grad=True)
    with pytest.raises(RuntimeError):
        Dl.tensor([1, 2], requires_grad=True)
    with pytest.raises(RuntimeError):
        Dl.tensor([1, 2]).requires_grad_()


def test_inplace_on_leaf_requiring_grad_raises():
    with pytest.raises(RuntimeError):
        torch.ones(2, requires_grad=True).add_(1)
    x = Dl.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError):
        x.add_(1)
    with pytest.raises(RuntimeError):
        x += 1
    assert x.tolist() == [1.0, 1.0]


def test_modified_saved_tensor_raises():
    for lib in (torch, Dl):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        a = x * 2
        b = a * a
        a.add_(1)
        with pytest.raises(RuntimeError):
            b.sum().backward()


def test_inplace_on_nonleaf_gradient():
    # in-place ops on non-leaves are recorded: the gradient must match torch
    rng = np.random.default_rng(5)
    a = rng.standard_normal((3, 4)).astype(np.float32)
    out = []
    for lib, mk in ((Dl, dl_from_np), (torch, th_from_np)):
        x = mk(a).requires_grad_()
        y = x * 2
        y.mul_(x)
        y.add_(1)
        y.sum().backward()
        out.append(x.grad)
    assert_same(out[0], out[1])


def test_detach_stops_gradient():
    x = Dl.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    d = y.detach()
    assert d.requires_grad is False and d.is_leaf and d.grad_fn is None
    z = (d * x).sum()
    z.backward()
    assert x.grad.tolist() == [2.0, 4.0]


def test_requires_grad_attribute_and_propagation():
    x = Dl.zeros(3)
    assert x.requires_grad is False
    x.requires_grad = True
    assert x.requires_grad
    assert x.requires_grad_(False) is x
    assert not x.requires_grad
    x.requires_grad_()
    c = Dl.ones(3)
    y = x + c
    assert y.requires_grad and not y.is_leaf
    assert (c * 2).requires_grad is False
    assert x.is_leaf and c.is_leaf
    assert x.grad is None


def test_grad_of_unused_input_stays_none():
    x = Dl.tensor([1.0], requires_grad=True)
    y = Dl.tensor([2.0], requires_grad=True)
    (x * 3).sum().backward()
    assert y.grad is None
    assert x.grad.tolist() == [3.0]


def test_backward_explicit_gradient_and_kwargs():
    rng = np.random.default_rng(7)
    a = rng.standard_normal((2, 3)).astype(np.float32)
    g = rng.standard_normal((2, 3)).astype(np.float32)
    res = []
    for lib, mk in ((Dl, dl_from_np), (torch, th_from_np)):
        x = mk(a).requires_grad_()
        y = x.tanh() * x
        y.backward(gradient=mk(g), retain_graph=True)
        y.backward(mk(g), None, False)
        res.append(x.grad)
    assert_same(res[0], res[1])
