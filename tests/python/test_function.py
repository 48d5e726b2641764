# test_function.py: Dl.autograd.Function, each Function written once and
# defined for both libraries (libdl and PyTorch, the oracle): values and
# gradients on seeded random inputs, ctx (saved tensors, needs_input_grad,
# attributes, mark_dirty, mark_non_differentiable, set_materialize_grads),
# the errors of a bad backward, Python exceptions, double backward, and
# that neither the graph nor the ctx outlives the outputs.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import gc
import weakref

import pytest
import torch

from conftest import Dl, assert_same, dl_from_np, rand_np, th_from_np


def functions(lib):
    """The same Functions, on @lib (Dl or torch)."""
    F = lib.autograd.Function

    class ClampST(F):
        """clamp with a straight-through gradient, bounds as arguments"""
        @staticmethod
        def forward(ctx, x, lo, hi):
            ctx.bounds = (lo, hi)
            return x.clamp(lo, hi)

        @staticmethod
        def backward(ctx, g):
            assert ctx.bounds == (-0.5, 0.5)
            return g, None, None

    class MulAdd(F):
        """(a, b, alpha) -> (a * b, a + alpha * b), b broadcast to a; the
        gradients computed only where needed and written with ops"""
        @staticmethod
        def forward(ctx, a, b, alpha):
            ctx.save_for_backward(a, b)
            ctx.alpha = alpha
            ctx.seen = ctx.needs_input_grad
            return a * b, a + alpha * b

        @staticmethod
        def backward(ctx, g0, g1):
            a, b = ctx.saved_tensors
            ga = gb = None
            if ctx.needs_input_grad[0]:
                ga = g0 * b + g1
            if ctx.needs_input_grad[1]:
                gb = g0 * a + ctx.alpha * g1   # [2, 3], summed to b's shape
            return ga, gb, None

    class Cube(F):
        """x^3, saving the output too; backward with ops, differentiable"""
        @staticmethod
        def forward(ctx, x):
            y = x ** 3
            ctx.save_for_backward(x, None, y)
            return y

        @staticmethod
        def backward(ctx, g):
            x, none, y = ctx.saved_tensors
            assert none is None
            return 3 * x * x * g

    class CubeOnce(F):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        @lib.autograd.function.once_differentiable
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 3 * x * x * g

    class AddOne(F):
        """x += 1 in place"""
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    class WithMask(F):
        """x -> (2 x, mask, x itself, a number)"""
        @staticmethod
        def forward(ctx, x):
            mask = (x > 0).to(x.dtype)
            ctx.mark_non_differentiable(mask)
            return 2 * x, mask, x, 7

        @staticmethod
        def backward(ctx, g0, g1, g2, g3):
            assert float(g1.abs().sum()) == 0
            return 2 * g0 + g2

    class Unmaterialized(F):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g0, g1):
            ctx_log.append((g0 is None, g1 is None))
            return (g0 if g0 is not None else 0) * 2 + (g1 if g1 is not None else 0) * 3

    class Bad(F):
        @staticmethod
        def forward(ctx, x, kind):
            ctx.kind = kind
            return x * 2

        @staticmethod
        def backward(ctx, g):
            if ctx.kind == 'count':
                return g, None, g
            if ctx.kind == 'shape':
                return g.new_zeros(5) if hasattr(g, 'new_zeros') else lib.zeros(5), None
            if ctx.kind == 'type':
                return 3, None
            if ctx.kind == 'not-a-variable':
                return g, g
            raise ValueError('boom in backward')

    class BadForward(F):
        @staticmethod
        def forward(ctx, x):
            raise KeyError('boom in forward')

        @staticmethod
        def backward(ctx, g):
            return g

    ctx_log = []
    return dict(ClampST=ClampST, MulAdd=MulAdd, Cube=Cube, CubeOnce=CubeOnce, AddOne=AddOne,
                WithMask=WithMask, Unmaterialized=Unmaterialized, Bad=Bad,
                BadForward=BadForward, log=ctx_log)


def both(rng, shape, name='float64'):
    a = rand_np(rng, shape, name, low=-1, high=1)
    return dl_from_np(a, name).requires_grad_(), th_from_np(a, name).requires_grad_()


@pytest.fixture
def fns():
    return functions(Dl), functions(torch)


def test_clamp_straight_through(rng, fns):
    (d, t), (x, u) = fns, both(rng, (3, 4))
    y, v = d['ClampST'].apply(x, -0.5, 0.5), t['ClampST'].apply(u, -0.5, 0.5)
    assert_same(y, v)
    assert type(y.grad_fn).__name__ == type(v.grad_fn).__name__ == 'ClampSTBackward'
    w = rand_np(rng, (3, 4), 'float64')
    (y * dl_from_np(w)).sum().backward()
    (v * th_from_np(w)).sum().backward()
    assert_same(x.grad, u.grad)


@pytest.mark.parametrize('need', [(True, True), (True, False), (False, True)])
def test_two_in_two_out(rng, fns, need):
    d, t = fns
    (a, a_t), (b, b_t) = both(rng, (2, 3)), both(rng, (3,))
    a.requires_grad_(need[0]), a_t.requires_grad_(need[0])
    b.requires_grad_(need[1]), b_t.requires_grad_(need[1])
    p, s = d['MulAdd'].apply(a, b, 0.5)
    p_t, s_t = t['MulAdd'].apply(a_t, b_t, 0.5)
    assert_same(p, p_t)
    assert_same(s, s_t)
    assert p.grad_fn.seen == p_t.grad_fn.seen == need + (False,)
    w0, w1 = rand_np(rng, (2, 3), 'float64'), rand_np(rng, (2, 3), 'float64')
    (p * dl_from_np(w0) + s * dl_from_np(w1)).sum().backward()
    (p_t * th_from_np(w0) + s_t * th_from_np(w1)).sum().backward()
    for x, u, n in ((a, a_t, need[0]), (b, b_t, need[1])):
        assert (x.grad is None) == (u.grad is None) == (not n)
        if n:
            assert_same(x.grad, u.grad)


def test_not_recorded(rng, fns):
    d, t = fns
    for lib, fn, x in ((Dl, d['ClampST'], both(rng, (3,))[0]),
                       (torch, t['ClampST'], both(rng, (3,))[1])):
        with lib.no_grad():
            y = fn.apply(x, -0.5, 0.5)
        assert not y.requires_grad and y.grad_fn is None
        y = fn.apply(x.detach(), -0.5, 0.5)
        assert not y.requires_grad and y.grad_fn is None


def test_mark_dirty(rng, fns):
    d, t = fns
    (x, u) = both(rng, (4,))
    y, v = x * 3, u * 3
    out, out_t = d['AddOne'].apply(y), t['AddOne'].apply(v)
    assert out is y and out_t is v
    assert type(y.grad_fn).__name__ == type(v.grad_fn).__name__ == 'AddOneBackward'
    assert_same(y, v)
    (y * y).sum().backward()
    (v * v).sum().backward()
    assert_same(x.grad, u.grad)
    # a row of a matrix, changed in place: the matrix's history records it
    (m, m_t) = both(rng, (2, 3))
    z, z_t = m * 2, m_t * 2
    d['AddOne'].apply(z[1])
    t['AddOne'].apply(z_t[1])
    assert_same(z, z_t)
    (z * z).sum().backward()
    (z_t * z_t).sum().backward()
    assert_same(m.grad, m_t.grad)
    # a leaf that requires grad
    for fn, leaf in ((d['AddOne'], x), (t['AddOne'], u)):
        with pytest.raises(RuntimeError, match='a leaf Variable that requires grad'):
            fn.apply(leaf)


def test_non_differentiable_and_input_outputs(rng, fns):
    d, t = fns
    (x, u) = both(rng, (5,))
    r, r_t = d['WithMask'].apply(x), t['WithMask'].apply(u)
    for (y2, mask, same, seven), xx in ((r, x), (r_t, u)):
        assert y2.requires_grad and not mask.requires_grad
        assert same is not xx and same.requires_grad and seven == 7
    assert_same(r[1], r_t[1])
    (r[0] + r[2]).sum().backward()
    (r_t[0] + r_t[2]).sum().backward()
    assert_same(x.grad, u.grad)


def test_set_materialize_grads(rng, fns):
    d, t = fns
    (x, u) = both(rng, (3,))
    d['Unmaterialized'].apply(x)[0].sum().backward()
    t['Unmaterialized'].apply(u)[0].sum().backward()
    assert d['log'] == t['log'] == [(False, True)]
    assert_same(x.grad, u.grad)


@pytest.mark.parametrize('kind,exc,message', [
    ('count', RuntimeError,
     'function BadBackward returned an incorrect number of gradients (expected 2, got 3)'),
    ('shape', RuntimeError, 'Function BadBackward returned an invalid gradient at index 0 - '
     'got [5] but expected shape compatible with [2, 3]'),
    ('type', RuntimeError, 'expected Variable or None (got int)'),
    ('not-a-variable', RuntimeError, 'function BadBackward returned a gradient different '
     'than None at position 2, but the corresponding forward input was not a Variable'),
    ('raise', ValueError, 'boom in backward'),
])
def test_bad_backward(rng, fns, kind, exc, message):
    for f, x in ((fns[0], both(rng, (2, 3))[0]), (fns[1], both(rng, (2, 3))[1])):
        y = f['Bad'].apply(x, kind).sum()
        with pytest.raises(exc) as info:
            y.backward()
        assert type(info.value) is exc or issubclass(type(info.value), exc)
        assert message in str(info.value)
        assert x.grad is None


def test_python_error_in_forward(rng, fns):
    for f, x in ((fns[0], both(rng, (2,))[0]), (fns[1], both(rng, (2,))[1])):
        with pytest.raises(KeyError, match='boom in forward'):
            f['BadForward'].apply(x)


def test_saved_tensor_errors(rng, fns):
    for f, lib, (x, _) in ((fns[0], Dl, both(rng, (3,))), (fns[1], torch, both(rng, (3,))[::-1])):
        a = x * 1
        p, s = f['MulAdd'].apply(x, a, 1.0)
        loss = p.sum()
        loss.backward()
        with pytest.raises(RuntimeError, match='Trying to backward through the graph a second'):
            loss.backward()
        with pytest.raises(RuntimeError, match='saved tensors after they have already been'):
            p.grad_fn.saved_tensors
        p, s = f['MulAdd'].apply(x, a, 1.0)
        with lib.no_grad():
            a.mul_(2)
        with pytest.raises(RuntimeError, match='modified by an inplace operation'):
            p.sum().backward()


@pytest.mark.filterwarnings('ignore:Using backward\\(\\) with create_graph=True')
def test_double_backward(rng, fns):
    d, t = fns
    (x, u) = both(rng, (4,))
    y, v = d['Cube'].apply(x), t['Cube'].apply(u)
    y.sum().backward(create_graph=True)
    v.sum().backward(create_graph=True)
    assert x.grad.requires_grad and u.grad.requires_grad
    assert_same(x.grad, u.grad)
    g, g_t = x.grad, u.grad
    x.grad = None
    u.grad = None
    w = rand_np(rng, (4,), 'float64')
    (g * dl_from_np(w)).sum().backward()
    (g_t * th_from_np(w)).sum().backward()
    assert_same(x.grad, u.grad)


def test_once_differentiable(rng, fns):
    for f, x in ((fns[0], both(rng, (3,))[0]), (fns[1], both(rng, (3,))[1])):
        y = f['CubeOnce'].apply(x)
        (y * y).sum().backward(create_graph=True)   # a gradient that requires grad
        g = x.grad
        assert g.requires_grad
        with pytest.raises(RuntimeError, match='trying to differentiate twice a function that '
                                               'was marked with @once_differentiable'):
            g.sum().backward()
        x.grad = None
        f['CubeOnce'].apply(x).sum().backward()
        assert not x.grad.requires_grad


def finalized(obj):
    """A function telling whether @obj is gone: for a GObject, whether the
    object itself (not its Python wrapper) was finalized."""
    if Dl is not torch:
        gone = []
        obj.weak_ref(lambda: gone.append(True))
        return lambda: bool(gone)
    try:
        ref = weakref.ref(obj)
    except TypeError:   # torch's C++ nodes: not checked
        return lambda: True
    return lambda: ref() is None


@pytest.mark.parametrize('run_backward', [False, True])
def test_no_reference_cycles(rng, fns, run_backward):
    f = fns[0] if Dl is not torch else fns[1]
    lib_x = both(rng, (3,))[0 if Dl is not torch else 1]
    b = lib_x * 2
    p, s = f['MulAdd'].apply(lib_x, b, 1.0)
    y = f['Cube'].apply(p)        # saves its output
    ctx_gone = finalized(p.grad_fn)
    cube_gone = finalized(y.grad_fn)
    b_node_gone = finalized(b.grad_fn)
    loss = (y + s).sum()
    del p, s, y, b
    if run_backward:
        loss.backward()
    del loss
    gc.collect()
    assert ctx_gone() and cube_gone() and b_node_gone()


@pytest.mark.skipif(Dl is torch, reason='libdl only: what torch does differently or not')
def test_libdl_only(rng, fns):
    d = fns[0]
    x = both(rng, (3,))[0]

    class Scale(Dl.autograd.Function):
        @staticmethod
        def forward(ctx, x, *, factor):
            ctx.factor = factor
            return x * factor

        @staticmethod
        def backward(ctx, g):
            return g * ctx.factor

    # keyword arguments reach forward
    Scale.apply(x, factor=3.0).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0, 3.0]
    # two classes of one name: two GTypes
    again = functions(Dl)['ClampST']
    assert again is not d['ClampST']
    y = again.apply(x, -0.5, 0.5)
    assert type(y.grad_fn).__name__ == 'ClampSTBackward'
    with pytest.raises(RuntimeError, match='non-static forward'):
        d['ClampST']()
