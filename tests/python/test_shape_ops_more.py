# test_shape_ops_more.py: the view and shape ops beyond the basic views
# (broadcast_to, ravel, movedim, swapaxes, the in-place views squeeze_,
# unsqueeze_, t_, transpose_, tile, repeat_interleave, unfold,
# tensor_split, hsplit/vsplit/dsplit, rot90, diag_embed, diagflat, diff,
# kron) against PyTorch: values, dtypes, negative dims, non-contiguous
# inputs, which results share storage, gradients and bad arguments.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import warnings

import numpy as np
import pytest
import torch

from conftest import (DTYPES, Dl, NONCONTIG, assert_same, compare_grads, pair, rand_np,
                      rand_pair, same_pairs as same)


def shares(x, base):
    """Whether libdl tensor x views base's memory."""
    n = base.numel() * base.element_size()
    return x.numel() > 0 and base.data_ptr() <= x.data_ptr() < base.data_ptr() + max(n, 1)


def check_views(fn, x, t):
    """fn's result shares x's storage exactly when torch's shares t's."""
    gt, gx = fn(t), fn(x)
    outs_t = gt if isinstance(gt, tuple) else (gt,)
    outs_x = gx if isinstance(gx, tuple) else (gx,)
    for ox, ot in zip(outs_x, outs_t):
        if ot.numel() == 0:
            continue
        th_shares = ot.storage().data_ptr() == t.storage().data_ptr()
        assert shares(ox, x) == th_shares


def check_grad(fn, *arrays):
    """Gradients of sum(fn(inputs) * w) equal torch's, and gradcheck."""
    compare_grads(fn, fn, *arrays)
    inputs = tuple(pair(a, "float64", requires_grad=True)[0] for a in arrays)
    assert Dl.autograd.gradcheck(lambda *xs: fn(*xs), inputs)


def inputs(rng, shape, name):
    """(label, libdl, torch) of contiguous and non-contiguous tensors."""
    x, t = rand_pair(rng, shape, name)
    yield "contig", x, t
    if len(shape) >= 2:
        a = rand_np(rng, shape[::-1], name)
        x2, t2 = pair(a, name)
        perm = list(range(len(shape)))[::-1]
        yield "permuted", x2.permute(*perm), t2.permute(*perm)


SHAPES = [(5,), (3, 4), (2, 3, 4), (2, 1, 3, 2)]


@pytest.mark.parametrize("name", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_views_values_and_storage(rng, name, shape):
    nd = len(shape)
    fns = [lambda t: t.broadcast_to((2,) + tuple(t.shape)),
           lambda t: torch.broadcast_to(t, (3,) + tuple(t.shape)) if t.__class__ is torch.Tensor
           else Dl.broadcast_to(t, (3,) + tuple(t.shape)),
           lambda t: t.ravel(),
           lambda t: t.movedim(0, -1),
           lambda t: t.moveaxis(-1, 0),
           lambda t: t.movedim((0, -1), (-1, 0)) if nd >= 2 else t.movedim((0,), (0,)),
           lambda t: t.swapaxes(0, -1),
           lambda t: t.swapdims(-1, 0),
           lambda t: t.unfold(-1, 2, 1),
           lambda t: t.unfold(0, 1, 2),
           lambda t: t.tensor_split(3, -1),
           lambda t: t.tensor_split([1, 3, 2, 9], 0),
           lambda t: t.tensor_split((-1,), dim=-1)]
    for label, x, t in inputs(rng, shape, name):
        for fn in fns:
            same(fn, fn, (x, t))
            check_views(fn, x, t)


@pytest.mark.parametrize("name", ["float32", "int64", "bool", "bfloat16"])
@pytest.mark.parametrize("shape", SHAPES + [(0, 3)])
def test_composites_values(rng, name, shape):
    nd = len(shape)
    fns = [lambda t: t.tile((2,)), lambda t: t.tile((2, 1, 3)),
           lambda t: t.repeat_interleave(2), lambda t: t.repeat_interleave(3, dim=-1),
           lambda t: t.rot90(), lambda t: t.rot90(2, (-1, 0)), lambda t: t.rot90(-1, [1, 0]),
           lambda t: t.rot90(3), lambda t: t.rot90(4),
           lambda t: t.diag_embed(), lambda t: t.diag_embed(1, 0, -1),
           lambda t: t.diag_embed(-2, dim1=-1, dim2=0),
           lambda t: t.diagflat(), lambda t: t.diagflat(-1)]
    if name != "bool":
        fns += [lambda t: t.diff(), lambda t: t.diff(2, 0), lambda t: t.diff(n=3, dim=-1)]
    else:
        fns += [lambda t: t.diff(), lambda t: t.diff(2, 0)]
    for label, x, t in inputs(rng, shape, name):
        for fn in fns:
            if same(fn, fn, (x, t)) is not None:
                # these copy, as torch's do
                check_views(fn, x, t)
    if nd >= 2:
        x, t = rand_pair(rng, shape, name)
        for fn in (lambda t: t.hsplit(1), lambda t: t.vsplit([1]),
                   lambda t: t.hsplit([0, 2, 1])):
            same(fn, fn, (x, t))
            check_views(fn, x, t)


@pytest.mark.parametrize("name", ["float32", "float64", "int32", "uint8"])
@pytest.mark.parametrize("shapes", [((3, 4), (2, 5)), ((2, 3, 2), (3,)), ((4,), (2, 2, 1)),
                                    ((), (3,)), ((0, 2), (2, 3))])
def test_kron(rng, name, shapes):
    for label, x, t in inputs(rng, shapes[0], name):
        y, u = rand_pair(rng, shapes[1], name)
        # torch 1.13's kron views its first operand, which fails for some
        # permuted layouts: its reference gets a contiguous copy
        assert_same(Dl.kron(x, y), torch.kron(t.contiguous(), u))
        assert_same(x.kron(y.t() if y.dim() == 2 else y),
                    t.contiguous().kron((u.t() if u.dim() == 2 else u).contiguous()))


def test_repeat_interleave_forms(rng):
    x, t = rand_pair(rng, (3, 4), "float32")
    rx, rt = pair(np.array([1, 0, 2]), "int64")
    same(lambda a, r: a.repeat_interleave(r, dim=0), lambda a, r: a.repeat_interleave(r, dim=0),
         (x, t), (rx, rt))
    same(lambda a, r: Dl.repeat_interleave(a, r, 0, output_size=3),
         lambda a, r: torch.repeat_interleave(a, r, 0, output_size=3), (x, t), (rx, rt))
    same(lambda r: Dl.repeat_interleave(r), lambda r: torch.repeat_interleave(r), (rx, rt))
    same(lambda a: a.repeat_interleave(Dl.tensor(2), dim=1) if isinstance(a, Dl.Tensor)
         else a.repeat_interleave(torch.tensor(2), dim=1), lambda a: a.repeat_interleave(
             torch.tensor(2), dim=1), (x, t))
    # scalar input
    s, st = rand_pair(rng, (), "float64")
    same(lambda a: a.repeat_interleave(3), lambda a: a.repeat_interleave(3), (s, st))
    for bad in ([1, 2], [-1, 1, 1]):
        with pytest.raises(RuntimeError):
            torch.repeat_interleave(t, torch.tensor(bad), 0)
        with pytest.raises(RuntimeError, match="repeat_interleave"):
            Dl.repeat_interleave(x, Dl.tensor(bad), 0)
    with pytest.raises(RuntimeError, match="repeat_interleave"):
        x.repeat_interleave(Dl.tensor([1.0, 2.0, 3.0]), dim=0)


def test_noncontiguous_inputs(rng):
    for label, shape, make in NONCONTIG:
        a = rand_np(rng, shape, "float32")
        x, t = pair(a, "float32")
        x, t = make(x), make(t)
        for fn in (lambda t: t.tile(2, 1), lambda t: t.rot90(1, (0, 1)),
                   lambda t: t.diff(1, 0), lambda t: t.kron(t),
                   lambda t: t.repeat_interleave(2, 1), lambda t: t.unfold(1, 2, 1),
                   lambda t: t.movedim(0, 1), lambda t: t.diag_embed()):
            same(fn, fn, (x, t))


def test_diff_prepend_append(rng):
    x, t = rand_pair(rng, (3, 4), "float64")
    p, pt = rand_pair(rng, (3, 2), "float64")
    q, qt = rand_pair(rng, (1, 4), "float64")
    same(lambda a, b: a.diff(dim=1, prepend=b), lambda a, b: a.diff(dim=1, prepend=b),
         (x, t), (p, pt))
    same(lambda a, b: a.diff(2, 0, append=b), lambda a, b: a.diff(2, 0, append=b),
         (x, t), (q, qt))
    same(lambda a, b: Dl.diff(a, 1, 1, b, b), lambda a, b: torch.diff(a, 1, 1, b, b),
         (x, t), (p, pt))
    for n in (0, 9, -1):
        same(lambda a: a.diff(n), lambda a: a.diff(n), (x, t))
        check_views(lambda a: a.diff(n), x, t)
    # torch 1.13 takes a negative order as 0
    same(lambda a, b: a.diff(-2, 1, prepend=b), lambda a, b: a.diff(-2, 1, prepend=b),
         (x, t), (p, pt))


def test_gradients():
    rng = np.random.default_rng(7)
    a = rng.standard_normal((3, 5))
    b = rng.standard_normal((2, 3))
    check_grad(lambda t: t.unfold(1, 3, 1), a)
    check_grad(lambda t: t.unfold(1, 2, 2), a)
    check_grad(lambda t: t.unfold(0, 2, 1).unfold(1, 3, 2), a)
    check_grad(lambda t: t.movedim((0, 1), (1, 0)), a)
    check_grad(lambda t: t.tile((2, 1, 2)), a)
    check_grad(lambda t: t.repeat_interleave(2, dim=1), a)
    check_grad(lambda t: t.rot90(1), a)
    check_grad(lambda t: t.rot90(-1, (1, 0)), a)
    check_grad(lambda t: t.diag_embed(1), a)
    check_grad(lambda t: t.diagflat(), b)
    check_grad(lambda t: t.diff(2, -1), a)
    check_grad(lambda t, u: t.diff(1, 1, prepend=u.t(), append=u.t() * 2), a, b)
    check_grad(lambda t, u: t.kron(u), a, b)
    check_grad(lambda t: t.tensor_split(2, 1)[1] * 1, a)
    check_grad(lambda t: t.swapaxes(0, 1).ravel(), a)
    check_grad(lambda t: t.broadcast_to((2, 3, 5)), a)


def test_inplace_views(rng):
    for label, x, t in inputs(rng, (3, 1, 4), "float32"):
        x, t = x.clone(), t.clone()
        for op in (lambda t: t.unsqueeze_(-1), lambda t: t.squeeze_(1), lambda t: t.squeeze_(),
                   lambda t: t.transpose_(0, -1), lambda t: t.swapaxes_(0, 1),
                   lambda t: t.swapdims_(1, 0), lambda t: t.unsqueeze_(0)):
            ptr = x.data_ptr()
            rx, rt = op(x), op(t)
            assert rx is x and rt is t
            assert x.data_ptr() == ptr
            assert_same(x, t)
            assert x.stride() == t.stride()
    m, mt = rand_pair(rng, (2, 3), "float32")
    m.t_()
    mt.t_()
    assert_same(m, mt)
    assert m.stride() == mt.stride()
    v, vt = rand_pair(rng, (3,), "float32")
    assert v.t_() is v and v.shape == vt.t_().shape


def test_inplace_views_autograd(rng):
    a = rand_np(rng, (3, 4), "float64")
    x, t = pair(a, "float64", requires_grad=True)
    # a leaf that requires grad: refused, as torch does
    with pytest.raises(RuntimeError, match="leaf Variable"):
        t.unsqueeze_(0)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        x.unsqueeze_(0)
    w = rng.standard_normal((4, 1, 3))
    wx, wt = pair(w, "float64")
    yx, yt = x * 2, t * 2
    yx.transpose_(0, 1).unsqueeze_(1)
    yt.transpose_(0, 1).unsqueeze_(1)
    assert yx.shape == yt.shape and yx.stride() == yt.stride()
    (yx * wx).sum().backward()
    (yt * wt).sum().backward()
    assert_same(x.grad, t.grad)
    # the in-place view bumps the version: a saved input goes stale
    x2, t2 = pair(a, "float64", requires_grad=True)
    zx = x2 * 1
    px = zx * zx
    zx.t_()
    with pytest.raises(RuntimeError):
        px.sum().backward()
    # a view of a non-leaf changed in place keeps its history over the base
    x3, t3 = pair(a, "float64", requires_grad=True)
    bx, bt = x3 * 3, t3 * 3
    vx, vt = bx[1:], bt[1:]
    vx.unsqueeze_(0)
    vt.unsqueeze_(0)
    assert_same(vx, vt)
    (vx * vx).sum().backward()
    (vt * vt).sum().backward()
    assert_same(x3.grad, t3.grad)


def test_movedim_sequences(rng):
    x, t = rand_pair(rng, (2, 3, 4, 5), "float32")
    for src, dst in (((0, 1), (2, 3)), ((3, 0), (0, 3)), ([-1], [1]), ((1, 2, 3), (0, 1, 2))):
        same(lambda a: Dl.movedim(a, src, dst), lambda a: torch.movedim(a, src, dst), (x, t))
        same(lambda a: a.moveaxis(src, dst), lambda a: a.moveaxis(src, dst), (x, t))


def test_bad_arguments(rng):
    x, t = rand_pair(rng, (3, 4), "float32")
    cases = [
        (lambda a: a.movedim((0, 1), (0,)), "movedim"),
        (lambda a: a.movedim((0, 0), (0, 1)), "movedim"),
        (lambda a: a.movedim(2, 0), None),
        (lambda a: a.unfold(1, 5, 1), "unfold"),
        (lambda a: a.unfold(1, 2, 0), "unfold"),
        (lambda a: a.unfold(2, 1, 1), None),
        (lambda a: a.rot90(1, (0, 0)), "rot90"),
        (lambda a: a.rot90(1, (0, 1, 1)), "rotation dims"),
        (lambda a: a.reshape(-1).rot90(), "rot90"),
        (lambda a: a.tensor_split(0), "sections"),
        (lambda a: a.reshape(-1)[0].tensor_split(2), "tensor_split"),
        (lambda a: a.hsplit(3), "hsplit"),
        (lambda a: a.vsplit(2), "vsplit"),
        (lambda a: a.dsplit(2), "dsplit"),
        (lambda a: a.diag_embed(0, 1, 1), "diag_embed"),
        (lambda a: a.reshape(-1)[0].diff(), "diff expects input to be at least one-dimensional"),
        (lambda a: a.diff(1, 0, a.reshape(-1)), "diff expects prepend or append"),
        (lambda a: a.swapaxes(0, 5), None),
        (lambda a: a.squeeze_(3), None),
        (lambda a: a.transpose_(0, 2), None),
        (lambda a: a.unsqueeze(0).t_(), "t"),
        (lambda a: a.kron(3), None),
        (lambda a: a.tile(1.5), None),
        (lambda a: a.broadcast_to((5, 4)), None),
    ]
    for fn, words in cases:
        try:
            fn(t.clone())
        except (RuntimeError, IndexError, TypeError, ValueError) as e:
            kind = type(e)
        else:
            raise AssertionError("torch accepted a bad argument")
        with pytest.raises(kind) as info:
            fn(x.clone())
        if words is not None:
            assert words in str(info.value)


# ---- torch functions composed of other ops -----------------------------------

def test_meshgrid(rng):
    a, at = rand_pair(rng, (3,), "float32")
    b, bt = rand_pair(rng, (4,), "float32")
    c, ct = rand_pair(rng, (), "float32")
    for indexing in ("ij", "xy"):
        same(lambda *ts: Dl.meshgrid(*ts, indexing=indexing),
             lambda *ts: torch.meshgrid(*ts, indexing=indexing), (a, at), (b, bt), (c, ct))
        same(lambda *ts: Dl.meshgrid(list(ts), indexing=indexing),
             lambda *ts: torch.meshgrid(list(ts), indexing=indexing), (a, at), (b, bt))
        got = Dl.meshgrid(a, b, indexing=indexing)
        assert all(shares(g, a) or shares(g, b) for g in got)
    with pytest.warns(UserWarning, match="indexing"):
        got = Dl.meshgrid(a, b)
    with pytest.warns(UserWarning):
        ref = torch.meshgrid(at, bt)
    for g, r in zip(got, ref):
        assert_same(g, r)
    with pytest.raises(RuntimeError, match="indexing"):
        Dl.meshgrid(a, b, indexing="yx")
    check_grad(lambda x, y: torch.stack(torch.meshgrid(x, y, indexing="xy")).sin()
               if isinstance(x, torch.Tensor) else
               Dl.stack(Dl.meshgrid(x, y, indexing="xy")).sin(),
               rng.standard_normal(3), rng.standard_normal(2))


def test_broadcasting_functions(rng):
    for shapes in (((3, 1), (1, 4)), ((2, 1, 3), (4, 1), ()), ((0, 1), (3,))):
        pairs = [rand_pair(rng, s, "float32") for s in shapes]
        same(lambda *ts: Dl.broadcast_tensors(*ts), lambda *ts: torch.broadcast_tensors(*ts),
             *pairs)
        assert Dl.broadcast_shapes(*shapes) == torch.broadcast_shapes(*shapes)
    assert Dl.broadcast_shapes(3, (2, 1)) == torch.broadcast_shapes(3, (2, 1))
    with pytest.raises(RuntimeError):
        torch.broadcast_shapes((2,), (3,))
    with pytest.raises(RuntimeError, match="broadcast"):
        Dl.broadcast_shapes((2,), (3,))
    with pytest.raises(RuntimeError, match="broadcast_tensors"):
        Dl.broadcast_tensors(Dl.zeros(2), Dl.zeros(3))


def test_atleast_and_stacks(rng):
    shapes = [(), (3,), (2, 3), (2, 3, 1), (1, 2, 3, 4)]
    for s in shapes:
        x, t = rand_pair(rng, s, "int64")
        for name in ("atleast_1d", "atleast_2d", "atleast_3d"):
            same(getattr(Dl, name), getattr(torch, name), (x, t))
            assert shares(getattr(Dl, name)(x), x)
    pairs = [rand_pair(rng, s, "float32") for s in ((), (3,), (2, 3))]
    same(lambda *ts: Dl.atleast_2d(*ts), lambda *ts: torch.atleast_2d(*ts), *pairs)
    same(lambda *ts: Dl.atleast_3d(list(ts)), lambda *ts: torch.atleast_3d(list(ts)), *pairs)
    for shapes in (((3,), (3,)), ((2, 3), (2, 3)), ((2, 3, 2), (2, 3, 1))):
        pairs = [rand_pair(rng, s, "float32") for s in shapes]
        same(lambda *ts: Dl.dstack(ts), lambda *ts: torch.dstack(ts), *pairs)
        same(lambda *ts: Dl.row_stack(list(ts)), lambda *ts: torch.row_stack(list(ts)), *pairs)
    for shapes in (((3,), (3,)), ((3, 2), (3,)), ((), ())):
        pairs = [rand_pair(rng, s, "float32") for s in shapes]
        same(lambda *ts: Dl.column_stack(ts), lambda *ts: torch.column_stack(ts), *pairs)
    check_grad(lambda x, y: torch.column_stack((x, y)) if isinstance(x, torch.Tensor)
               else Dl.column_stack((x, y)), rng.standard_normal((3, 2)),
               rng.standard_normal(3))


def test_block_diag_cartesian_prod(rng):
    pairs = [rand_pair(rng, (2, 2), "float32"), rand_pair(rng, (3,), "float32"),
             rand_pair(rng, (), "float32"), rand_pair(rng, (0, 2), "float32"),
             rand_pair(rng, (1, 3), "int64")]
    same(lambda *ts: Dl.block_diag(*ts), lambda *ts: torch.block_diag(*ts), *pairs)
    same(lambda *ts: Dl.block_diag(*ts), lambda *ts: torch.block_diag(*ts), *pairs[:3])
    with pytest.raises(RuntimeError, match="block_diag"):
        Dl.block_diag(Dl.zeros(1, 1, 1))
    check_grad(lambda a, b: torch.block_diag(a, b) if isinstance(a, torch.Tensor)
               else Dl.block_diag(a, b), rng.standard_normal((2, 3)), rng.standard_normal(2))
    vs = [rand_pair(rng, (n,), "int64") for n in (2, 3, 1)]
    same(lambda *ts: Dl.cartesian_prod(*ts), lambda *ts: torch.cartesian_prod(*ts), *vs)
    same(lambda *ts: Dl.cartesian_prod(*ts), lambda *ts: torch.cartesian_prod(*ts), *vs[:1])
    with pytest.raises(RuntimeError, match="1D"):
        Dl.cartesian_prod(Dl.zeros(2, 2), Dl.zeros(2))


def test_logspace():
    for args, kw in (((0, 2, 3), {}), ((0, 2, 3), {"base": 2}), ((0, 1, 0), {}),
                     ((0, 3, 4), {"dtype": "int64"}), ((-1, 1, 5), {"dtype": "float64"}),
                     ((1, -2, 4), {"base": 3.5})):
        kd = {k: (getattr(Dl, v) if k == "dtype" else v) for k, v in kw.items()}
        kt = {k: (getattr(torch, v) if k == "dtype" else v) for k, v in kw.items()}
        assert_same(Dl.logspace(*args, **kd), torch.logspace(*args, **kt))


@pytest.mark.parametrize("p", [2.0, 1.0, 0.0, 3.0, 0.5, float("inf")])
@pytest.mark.parametrize("shapes", [((4, 3), (5, 3)), ((2, 4, 3), (5, 3)), ((30, 2), (27, 2)),
                                    ((1, 3, 2), (2, 1, 4, 2))])
def test_cdist(rng, p, shapes):
    x, t = rand_pair(rng, shapes[0], "float64")
    y, u = rand_pair(rng, shapes[1], "float64")
    assert_same(Dl.cdist(x, y, p), torch.cdist(t, u, p), rtol=1e-7, atol=1e-7)
    if p in (2.0, 1.0, 3.0):
        check_grad(lambda a, b: torch.cdist(a, b, p) if isinstance(a, torch.Tensor)
                   else Dl.cdist(a, b, p), rng.standard_normal(shapes[0]),
                   rng.standard_normal(shapes[1]))
    for mode in ("use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist"):
        assert_same(Dl.cdist(x, y, p, compute_mode=mode),
                    torch.cdist(t, u, p, compute_mode=mode), rtol=1e-7, atol=1e-7)


def test_cdist_zero_distances():
    # cdist(x, x): zero distances on the diagonal, whose gradient is 0
    rng = np.random.default_rng(11)
    # the product form: cancellation leaves distances of ~1e-8 on the
    # diagonal on either side; the values agree to that, the gradients are
    # finite
    a = rng.standard_normal((30, 3))
    x, t = pair(a, "float64", requires_grad=True)
    assert_same(Dl.cdist(x, x), torch.cdist(t, t), atol=1e-7)
    Dl.cdist(x, x).sum().backward()
    assert bool(x.grad.isfinite().all())
    for rows, p, mode in ((4, 2.0, "donot_use_mm_for_euclid_dist"), (4, 3.0, None),
                          (4, 0.5, None), (4, 1.0, None), (4, float("inf"), None)):
        a = rng.standard_normal((rows, 3))
        kw = {} if mode is None else {"compute_mode": mode}
        compare_grads(lambda v: Dl.cdist(v, v, p, **kw), lambda v: torch.cdist(v, v, p, **kw), a)


def test_cdist_float32_and_errors(rng):
    x, t = rand_pair(rng, (40, 8), "float32")
    y, u = rand_pair(rng, (30, 8), "float32")
    assert_same(Dl.cdist(x, y), torch.cdist(t, u), rtol=1e-4, atol=1e-4)
    for a, b in (((3,), (3, 3)), ((3, 2), (3, 3)), ((2, 2), (2, 2))):
        xa, ta = rand_pair(rng, a, "float32" if a != (2, 2) else "int64")
        xb, tb = rand_pair(rng, b, "float32" if a != (2, 2) else "int64")
        with pytest.raises(RuntimeError):
            torch.cdist(ta, tb)
        with pytest.raises(RuntimeError):
            Dl.cdist(xa, xb)
    with pytest.raises(RuntimeError):
        Dl.cdist(x, y, -1.0)


def test_dist_renorm(rng):
    x, t = rand_pair(rng, (3, 4), "float64")
    y, u = rand_pair(rng, (4,), "float64")
    for p in (2, 1, 0, 3.5, float("inf"), -float("inf")):
        assert_same(Dl.dist(x, y, p), torch.dist(t, u, p))
        assert_same(x.dist(y, p), t.dist(u, p))
    for p, dim, maxnorm in ((2, 0, 1.0), (1, 1, 2.5), (3, -1, 0.5), (2, 1, 100.0)):
        assert_same(Dl.renorm(x, p, dim, maxnorm), torch.renorm(t, p, dim, maxnorm))
        assert_same(x.renorm(p, dim, maxnorm), t.renorm(p, dim, maxnorm))
    check_grad(lambda a: a.renorm(2, 0, 1.0), rng.standard_normal((3, 4)))
    # a zero slice: norm 0, gradient as torch's (not NaN)
    z = rng.standard_normal((3, 4))
    z[1] = 0
    for p in (2, 0.5, 3):
        compare_grads(lambda a: a.renorm(p, 0, 1.0), lambda a: a.renorm(p, 0, 1.0), z)
    check_grad(lambda a, b: a.dist(b, 3), rng.standard_normal((3, 4)), rng.standard_normal(4))
    for args in ((2, 0, -1.0), (0, 0, 1.0)):
        with pytest.raises(RuntimeError):
            t.renorm(*args)
        with pytest.raises(RuntimeError, match="renorm"):
            x.renorm(*args)
    with pytest.raises(RuntimeError, match="renorm"):
        y.renorm(2, 0, 1.0)


def test_cov_corrcoef(rng):
    for shape in ((3, 5), (5,), (1, 4), (2, 1)):
        x, t = rand_pair(rng, shape, "float64")
        with warnings.catch_warnings(record=True) as wt:
            warnings.simplefilter("always")
            ref = (torch.cov(t), torch.corrcoef(t))
        with warnings.catch_warnings(record=True) as wx:
            warnings.simplefilter("always")
            got = (Dl.cov(x), Dl.corrcoef(x))
        assert len(wx) == len(wt)
        for g, r in zip(got, ref):
            assert_same(g, r)
        assert_same(x.cov(correction=0), t.cov(correction=0))
    x, t = rand_pair(rng, (3, 6), "float64")
    fw, fwt = pair(np.array([1, 2, 0, 3, 1, 1]), "int64")
    aw, awt = pair(rng.uniform(0.1, 1, 6), "float64")
    assert_same(Dl.cov(x, fweights=fw), torch.cov(t, fweights=fwt))
    assert_same(Dl.cov(x, aweights=aw), torch.cov(t, aweights=awt))
    assert_same(Dl.cov(x, correction=2, fweights=fw, aweights=aw),
                torch.cov(t, correction=2, fweights=fwt, aweights=awt))
    xi, ti = rand_pair(rng, (2, 5), "int64")
    assert_same(Dl.cov(xi), torch.cov(ti))
    check_grad(lambda a: a.cov(), rng.standard_normal((3, 5)))
    check_grad(lambda a: a.corrcoef(), rng.standard_normal((3, 5)))
    with pytest.raises(RuntimeError, match="cov"):
        Dl.cov(Dl.zeros(2, 2, 2))


def test_histc(rng):
    for name in ("float32", "float64"):
        x, t = rand_pair(rng, (50,), name)
        for kw in ({}, {"bins": 7}, {"bins": 5, "min": -1, "max": 1}, {"bins": 3, "min": 1,
                                                                         "max": 1}):
            assert_same(Dl.histc(x, **kw), torch.histc(t, **kw))
            assert_same(x.histc(**kw), t.histc(**kw))
    assert_same(Dl.histc(Dl.tensor([2.0, 2.0]), bins=4), torch.histc(torch.tensor([2.0, 2.0]),
                                                                     bins=4))
    for fn in (lambda m: m.histc(m.tensor([1, 2]), bins=3),
               lambda m: m.histc(m.tensor([1.0]), bins=0),
               lambda m: m.histc(m.tensor([1.0]), bins=3, min=3, max=1),
               lambda m: m.histc(m.tensor([1.0, float("nan")]), bins=3)):
        with pytest.raises(RuntimeError) as th:
            fn(torch)
        with pytest.raises(RuntimeError) as dl:
            fn(Dl)
        # torch prints its NaN bounds as -nan
        assert str(dl.value).replace("-nan", "nan") == str(th.value).replace("-nan", "nan")


@pytest.mark.parametrize("name", ["float32", "int64", "float64"])
def test_searchsorted_bucketize(rng, name):
    bnd = np.sort(rand_np(rng, (7,), name))
    b, bt = pair(bnd, name)
    v, vt = rand_pair(rng, (3, 4), name)
    vals = np.concatenate([bnd[:3], rand_np(rng, (5,), name)])
    w, wt = pair(vals, name)
    for kw in ({}, {"right": True}, {"side": "right"}, {"side": "left"}, {"out_int32": True}):
        assert_same(Dl.searchsorted(b, v, **kw), torch.searchsorted(bt, vt, **kw))
        assert_same(Dl.searchsorted(b, w, **kw), torch.searchsorted(bt, wt, **kw))
    kw = {"right": True}
    assert_same(Dl.bucketize(w, b, **kw), torch.bucketize(wt, bt, **kw))
    assert_same(Dl.bucketize(v, b), torch.bucketize(vt, bt))
    assert_same(Dl.searchsorted(b, 0), torch.searchsorted(bt, 0))
    # batched boundaries and a sorter
    bb = np.sort(rand_np(rng, (3, 6), name), axis=-1)
    b2, bt2 = pair(bb, name)
    v2, vt2 = rand_pair(rng, (3, 2), name)
    assert_same(Dl.searchsorted(b2, v2), torch.searchsorted(bt2, vt2))
    perm = rng.permutation(7)
    u, ut = pair(bnd[perm], name)
    srt, srtt = pair(np.argsort(bnd[perm], kind="stable"), "int64")
    assert_same(Dl.searchsorted(u, w, sorter=srt), torch.searchsorted(ut, wt, sorter=srtt))
    for fn in (lambda m, a, c: m.searchsorted(a.reshape(1, -1), c.reshape(-1)[:2]),
               lambda m, a, c: m.searchsorted(a, c, side="x"),
               lambda m, a, c: m.searchsorted(a, c, side="left", right=True),
               lambda m, a, c: m.bucketize(c, a.reshape(1, -1))):
        with pytest.raises(RuntimeError) as th:
            fn(torch, bt, vt)
        with pytest.raises(RuntimeError) as dl:
            fn(Dl, b, v)
        assert str(dl.value) == str(th.value)


def test_isin(rng):
    x, t = pair(rng.integers(0, 6, (3, 4)), "int64")
    y, u = pair(np.array([1, 4, 9]), "int64")
    assert_same(Dl.isin(x, y), torch.isin(t, u))
    assert_same(Dl.isin(x, y, invert=True), torch.isin(t, u, invert=True))
    assert_same(Dl.isin(x, 3), torch.isin(t, 3))
    assert_same(Dl.isin(4, y), torch.isin(4, u))
    f, ft = pair(np.array([0.5, 1.0, 2.0]), "float32")
    assert_same(Dl.isin(f, Dl.tensor([1.0, 3.0])), torch.isin(ft, torch.tensor([1.0, 3.0])))


def test_logcumsumexp(rng):
    for shape, dim in (((5,), 0), ((3, 4), 1), ((3, 4), -2), ((2, 3, 4), 1), ((), 0), ((0, 3), 0)):
        x, t = rand_pair(rng, shape, "float64", low=-5, high=5)
        assert_same(Dl.logcumsumexp(x, dim), torch.logcumsumexp(t, dim))
        assert_same(x.logcumsumexp(dim), t.logcumsumexp(dim))
    # widely spread values: no underflow to -inf
    a = np.array([[-1000.0, 0.0, 1.0, -2000.0], [3.0, -np.inf, 800.0, 2.0]])
    x, t = pair(a, "float64")
    assert_same(Dl.logcumsumexp(x, 1), torch.logcumsumexp(t, 1))
    x, t = rand_pair(rng, (3, 5), "float32")
    assert_same(x.logcumsumexp(1), t.logcumsumexp(1))
    check_grad(lambda v: v.logcumsumexp(1), rng.standard_normal((3, 5)))
    check_grad(lambda v: v.logcumsumexp(0), np.array([[-1000.0, 1.0], [0.0, 2.0], [900.0, 0]]))


def test_searchsorted_edges(rng):
    nan = float("nan")
    b, bt = pair(np.array([1.0, 2.0, 2.0, nan]), "float32")
    v, vt = pair(np.array([nan, 2.0, -np.inf, np.inf, 0.5]), "float32")
    for right in (False, True):
        assert_same(Dl.searchsorted(b, v, right=right), torch.searchsorted(bt, vt, right=right))
    # mixed dtypes compare in the wider kind
    bi, bit = pair(np.array([1, 3, 5]), "int64")
    f, ft = pair(np.array([3.0, 3.5, 0.0]), "float64")
    assert_same(Dl.searchsorted(bi, f), torch.searchsorted(bit, ft))
    assert_same(Dl.searchsorted(f.sort()[0], bi), torch.searchsorted(ft.sort()[0], bit))
    # empty boundaries and empty values
    e, et = pair(np.zeros(0), "float32")
    assert_same(Dl.searchsorted(e, v), torch.searchsorted(et, vt))
    assert_same(Dl.searchsorted(b, e), torch.searchsorted(bt, et))
    # a long input: a binary search, not a comparison with every boundary
    big = np.sort(rng.standard_normal(200000))
    q = rng.standard_normal(300000)
    x, t = pair(big, "float64")
    y, u = pair(q, "float64")
    assert_same(Dl.searchsorted(x, y), torch.searchsorted(t, u))
    assert_same(Dl.isin(y[:5000], x), torch.isin(u[:5000], t))
    for fn in (lambda m: m.searchsorted(m.tensor(1.0), m.tensor([3.0])),
               lambda m: m.searchsorted(m.tensor([1, 3]), m.tensor([3]),
                                        sorter=m.tensor([0, 1], dtype=m.int32))):
        with pytest.raises(RuntimeError) as th:
            fn(torch)
        with pytest.raises(RuntimeError) as dl:
            fn(Dl)
        assert str(dl.value) == str(th.value)
    with pytest.raises(RuntimeError):
        torch.searchsorted(torch.tensor([True, False]), torch.tensor([True]))
    with pytest.raises(RuntimeError, match="searchsorted"):
        Dl.searchsorted(Dl.tensor([True, False]), Dl.tensor([True]))
    with pytest.raises(IndexError, match="sorter"):
        Dl.searchsorted(Dl.tensor([1, 3]), Dl.tensor([3]), sorter=Dl.tensor([0, 2]))
    assert_same(Dl.isin(Dl.tensor([1, 2]), Dl.tensor([], dtype=Dl.int64)),
                torch.isin(torch.tensor([1, 2]), torch.tensor([], dtype=torch.int64)))
