# test_autograd_api.py: autograd.grad, tensor hooks and retain_grad,
# detach_, anomaly mode, autograd.functional and deep graphs, each compared
# with PyTorch on the same inputs.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import gc
import weakref

import pytest
import torch

from conftest import Dl, assert_same, pair, rand_np


def both(rng, *shapes, name='float64'):
    """Leaves that require grad, the same values in libdl and torch."""
    ds, ts = [], []
    for s in shapes:
        d, t = pair(rand_np(rng, s, name), name, requires_grad=True)
        ds.append(d)
        ts.append(t)
    return ds, ts


def grads_same(gs, hs, **tol):
    assert len(gs) == len(hs)
    for g, h in zip(gs, hs):
        if h is None:
            assert g is None
        else:
            assert_same(g, h, **tol)


def f_mix(lib, x, y):
    return [(x.exp() * y).sum(), (x.tanh() * y.sigmoid()).mean()]


def test_grad_several_outputs_and_inputs(rng):
    (x, y), (tx, ty) = both(rng, (3, 4), (4,))
    gs = Dl.autograd.grad(f_mix(Dl, x, y), [x, y])
    hs = torch.autograd.grad(f_mix(torch, tx, ty), [tx, ty])
    grads_same(gs, hs)
    assert x.grad is None and y.grad is None
    assert not gs[0].requires_grad


def test_grad_outputs_and_intermediate(rng):
    (x,), (tx,) = both(rng, (2, 3))
    v = rand_np(rng, (2, 3), 'float64')
    dv, tv = pair(v, 'float64')
    m, tm = x * 2, tx * 2
    y, ty = m.sin() * m, tm.sin() * tm
    gs = Dl.autograd.grad(y, [m, x], grad_outputs=dv)
    hs = torch.autograd.grad(ty, [tm, tx], grad_outputs=tv)
    grads_same(gs, hs)


@pytest.mark.parametrize('fn', [
    lambda x: (x.exp() * x).sum(),
    lambda x: (x.tanh() ** 2).sum(),
    lambda x: x.sigmoid().prod(),
    lambda x: x.softmax(-1)[..., 0].sum(),
    lambda x: x.log_softmax(-1).sum() * x.sum(),
    lambda x: (x @ x.t()).relu().sum(),
    lambda x: x.pow(3).mean() + x.abs().sqrt().sum(),
])
def test_hessian_vector_product(rng, fn):
    (x,), (tx,) = both(rng, (3, 3))
    v = rand_np(rng, (3, 3), 'float64')
    dv, tv = pair(v, 'float64')
    g, = Dl.autograd.grad(fn(x), x, create_graph=True)
    h, = torch.autograd.grad(fn(tx), tx, create_graph=True)
    assert_same(g, h)
    assert g.requires_grad
    hv, = Dl.autograd.grad((g * dv).sum(), x)
    tv2, = torch.autograd.grad((h * tv).sum(), tx)
    assert_same(hv, tv2)


def test_gradient_penalty(rng):
    (x, w), (tx, tw) = both(rng, (4, 3), (3, 2))
    out, tout = (x @ w).tanh().sum(), (tx @ tw).tanh().sum()
    g, = Dl.autograd.grad(out, x, create_graph=True)
    h, = torch.autograd.grad(tout, tx, create_graph=True)
    ((g.norm() - 1) ** 2).backward()
    ((h.norm() - 1) ** 2).backward()
    assert_same(w.grad, tw.grad)
    assert_same(x.grad, tx.grad)


def test_grad_allow_unused_and_errors(rng):
    (x, z), _ = both(rng, (3,), (3,))
    s = (x * x).sum()
    gx, gz = Dl.autograd.grad(s, [x, z], retain_graph=True, allow_unused=True)
    assert gz is None
    with pytest.raises(RuntimeError, match='allow_unused'):
        Dl.autograd.grad(s, [z], retain_graph=True)
    with pytest.raises(RuntimeError, match='scalar outputs'):
        Dl.autograd.grad(x * 2, x)
    with pytest.raises(RuntimeError, match=r'\[4\].*\[3\]'):
        Dl.autograd.grad(x * 2, x, grad_outputs=Dl.ones(4, dtype=Dl.float64))
    with pytest.raises(RuntimeError, match='does not require grad'):
        Dl.autograd.grad(s, Dl.ones(3))
    with pytest.raises(RuntimeError, match='have to be Tensors'):
        Dl.autograd.grad(s, [x, 3])
    Dl.autograd.grad(s, x)
    with pytest.raises(RuntimeError, match='second time'):
        Dl.autograd.grad(s, x)


def test_hooks_match_torch(rng):
    (x,), (tx,) = both(rng, (3,))
    seen, tseen = [], []
    results = []
    for lib, t, log in ((Dl, x, seen), (torch, tx, tseen)):
        y = t * 2
        y.retain_grad()
        h = y.register_hook(lambda g, log=log: log.append(g.clone()) or g * 10)
        y.register_hook(lambda g: g + 1)
        t.register_hook(lambda g: g * 3)
        (y * y).sum().backward(retain_graph=True)
        results.append((y.grad.clone(), t.grad.clone()))
        h.remove()
        h.remove()
        t.grad = None
        (y * y).sum().backward()
        results.append((y.grad, t.grad))
        assert y.retains_grad and not t.retains_grad
    (a1, b1), (a2, b2), (c1, d1), (c2, d2) = results
    assert_same(a1, c1)
    assert_same(b1, d1)
    assert_same(a2, c2)
    assert_same(b2, d2)
    assert_same(seen[0], tseen[0])


def test_hook_errors():
    x = Dl.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        Dl.ones(2).register_hook(lambda g: g)
    y = x * 2
    y.register_hook(lambda g: 3)
    with pytest.raises(TypeError, match='hook returned'):
        y.sum().backward()
    y = x * 2
    y.register_hook(lambda g: Dl.ones(3))
    with pytest.raises(RuntimeError, match='changed the size'):
        y.sum().backward()
    y = x * 2
    y.register_hook(lambda g: g.double())
    with pytest.raises(RuntimeError, match='changed the type'):
        y.sum().backward()

    class Boom(Exception):
        pass

    def boom(g):
        raise Boom('from the hook')
    y = x * 2
    y.register_hook(boom)
    with pytest.raises(Boom, match='from the hook'):
        y.sum().backward()
    # the engine is usable afterwards
    x.grad = None
    (x * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


def test_hooks_make_no_cycles():
    x = Dl.ones(3, requires_grad=True)
    y = x * 2
    # the hook closes over the tensor it is registered on
    y.register_hook(lambda g: g * y.detach())
    y.retain_grad()
    x.register_hook(lambda g: g + x.detach())
    # torch's nodes take no weak references
    wfn = weakref.ref(y.grad_fn) if Dl is not torch else (lambda: None)
    wy, wx = weakref.ref(y), weakref.ref(x)
    y.sum().backward()
    del y
    gc.collect()
    assert wy() is None and wfn() is None
    del x
    gc.collect()
    assert wx() is None


def test_detach_():
    x, tx = Dl.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
    for t in (x, tx):
        y = t * 2
        assert y.detach_() is y
        assert not y.requires_grad and y.grad_fn is None and y.is_leaf
        with pytest.raises(RuntimeError, match='detach views in-place'):
            t[:1].detach_()


def test_requires_grad_errors():
    y = Dl.ones(2, requires_grad=True) * 2
    with pytest.raises(RuntimeError, match='leaf variables'):
        y.requires_grad_(False)
    with pytest.raises(RuntimeError, match='floating point'):
        Dl.ones(2, dtype=Dl.int64).requires_grad_()


def test_anomaly_names_op_and_line():
    with Dl.autograd.detect_anomaly():
        assert Dl.is_anomaly_enabled()
        a = Dl.tensor([0.0, 1.0], requires_grad=True)
        b = a.sqrt() * 0  # the line anomaly mode must point at
        with pytest.raises(RuntimeError) as info:
            b.sum().backward()
    assert not Dl.is_anomaly_enabled()
    msg = str(info.value)
    assert "Function 'SqrtBackward0' returned nan values" in msg
    if Dl is not torch:  # torch prints the trace as a warning
        assert 'the line anomaly mode must point at' in msg
    # off: the NaN goes through, as in PyTorch
    a = Dl.tensor([0.0, 1.0], requires_grad=True)
    (a.sqrt() * 0).sum().backward()
    assert a.grad[0].isnan().item()


FUNCS = {
    'one': (lambda lib: (lambda x: (x.exp() * x.sin()).sum(-1)), [(3, 2)]),
    'two': (lambda lib: (lambda x, y: (x.tanh() @ y, (x * x).sum())), [(2, 3), (3, 2)]),
}


@pytest.mark.parametrize('name', sorted(FUNCS))
@pytest.mark.parametrize('create_graph', [False, True])
def test_functional_jacobian_vjp_jvp(rng, name, create_graph):
    make, shapes = FUNCS[name]
    ds, ts = both(rng, *shapes)
    f, tf = make(Dl), make(torch)
    inp = tuple(ds) if len(ds) > 1 else ds[0]
    tinp = tuple(ts) if len(ts) > 1 else ts[0]

    def flat(a):
        return list(a) if isinstance(a, tuple) else [a]

    J = Dl.autograd.functional.jacobian(f, inp, create_graph=create_graph)
    TJ = torch.autograd.functional.jacobian(tf, tinp, create_graph=create_graph)
    if isinstance(TJ, tuple) and TJ and isinstance(TJ[0], tuple):
        for r, tr in zip(J, TJ):
            grads_same(flat(r), flat(tr))
    else:
        grads_same(flat(J), flat(TJ))

    tout = tf(*ts) if len(ts) > 1 else tf(ts[0])
    vs = [rand_np(rng, tuple(o.shape), 'float64') for o in flat(tout)]
    dv = tuple(pair(v, 'float64')[0] for v in vs)
    tv = tuple(pair(v, 'float64')[1] for v in vs)
    out, vjp = Dl.autograd.functional.vjp(f, inp, dv if len(dv) > 1 else dv[0],
                                          create_graph=create_graph)
    tout, tvjp = torch.autograd.functional.vjp(tf, tinp, tv if len(tv) > 1 else tv[0],
                                               create_graph=create_graph)
    grads_same(flat(out), flat(tout))
    grads_same(flat(vjp), flat(tvjp))

    us = [rand_np(rng, s, 'float64') for s in shapes]
    du = tuple(pair(u, 'float64')[0] for u in us)
    tu = tuple(pair(u, 'float64')[1] for u in us)
    out, jvp = Dl.autograd.functional.jvp(f, inp, du if len(du) > 1 else du[0],
                                          create_graph=create_graph)
    tout, tjvp = torch.autograd.functional.jvp(tf, tinp, tu if len(tu) > 1 else tu[0],
                                               create_graph=create_graph)
    grads_same(flat(jvp), flat(tjvp))


def test_functional_hessian_hvp_vhp(rng):
    ds, ts = both(rng, (3,), (2,))

    def f(lib):
        return lambda x, y: (x.exp().sum() * y.tanh().sum() + (x ** 3).sum())

    H = Dl.autograd.functional.hessian(f(Dl), tuple(ds))
    TH = torch.autograd.functional.hessian(f(torch), tuple(ts))
    for r, tr in zip(H, TH):
        grads_same(list(r), list(tr))
    H1 = Dl.autograd.functional.hessian(lambda x: (x ** 3).sum() * x.sin().sum(), ds[0])
    TH1 = torch.autograd.functional.hessian(lambda x: (x ** 3).sum() * x.sin().sum(), ts[0])
    assert_same(H1, TH1)
    vs = [rand_np(rng, s, 'float64') for s in ((3,), (2,))]
    dv = tuple(pair(v, 'float64')[0] for v in vs)
    tv = tuple(pair(v, 'float64')[1] for v in vs)
    for name in ('hvp', 'vhp'):
        out, r = getattr(Dl.autograd.functional, name)(f(Dl), tuple(ds), dv)
        tout, tr = getattr(torch.autograd.functional, name)(f(torch), tuple(ts), tv)
        assert_same(out, tout)
        grads_same(list(r), list(tr))


def test_functional_errors(rng):
    with pytest.raises(TypeError, match='Tensor or a tuple of Tensors'):
        Dl.autograd.functional.vjp(lambda x: x, 3)
    x = Dl.ones(3, dtype=Dl.float64)
    with pytest.raises(RuntimeError, match='v can only be None'):
        Dl.autograd.functional.vjp(lambda x: x * 2, x)
    with pytest.raises(RuntimeError, match='invalid size'):
        Dl.autograd.functional.vjp(lambda x: x * 2, x, Dl.ones(4, dtype=Dl.float64))
    with pytest.raises(RuntimeError, match='strict mode'):
        Dl.autograd.functional.jacobian(lambda x: Dl.ones(2, dtype=Dl.float64), x, strict=True)


def test_deep_chain_builds_backprops_and_frees():
    x = Dl.ones(4, requires_grad=True)
    y = x
    for _ in range(200000):
        y = y * 1.0
    w = weakref.ref(y.grad_fn) if Dl is not torch else (lambda: None)
    y.sum().backward()
    assert x.grad.tolist() == [1.0] * 4
    del y
    gc.collect()
    assert w() is None
    # a graph kept alive by mistake only grows
    total = 0
    for _ in range(150000):
        total = total + (x * 2).sum()
    del total


def test_retain_grad_accumulates_and_create_graph(rng):
    (x,), (tx,) = both(rng, (3,))
    res = []
    for t in (x, tx):
        y = t.exp()
        y.retain_grad()
        z = (y * y).sum()
        z.backward(retain_graph=True)
        z.backward(create_graph=True)
        res.append(y.grad)
    assert_same(res[0], res[1])
    assert res[0].requires_grad == res[1].requires_grad


def test_autograd_backward_function(rng):
    (x,), (tx,) = both(rng, (3,))
    Dl.autograd.backward([(x * 2).sum(), (x.exp()).sum()])
    torch.autograd.backward([(tx * 2).sum(), (tx.exp()).sum()])
    assert_same(x.grad, tx.grad)


def _setitem(y, index, value):
    y[index] = value
    return y


VIEW_CASES = {
    'setitem': lambda x: (_setitem(x.clone(), (slice(None), 1), x[:, 1] ** 2) ** 3).sum(),
    'setitem_exp': lambda x: (_setitem(x.clone(), (slice(None), 1), x[:, 1].exp()) ** 3).sum(),
    'setitem_product': lambda x: (_setitem(x.clone(), (slice(None), 1), x[:, 0] * x[:, 2])
                                  ** 3).sum(),
    'views': lambda x: (x.t()[1:] ** 3).sum(),
    'view_of_result': lambda x: ((x * 1).t()[1:] ** 2).sum() * x.sum(),
    'stale_view': lambda x: (lambda y, v: (y.mul_(2), (v ** 3).sum())[1])(
        *(lambda y: (y, y[0]))(x.clone())),
    'transposed_write': lambda x: (lambda y: (_setitem(y.t(), 0, x[:, 2] * x[:, 1]), y.t()
                                              .sin() * y.sum())[1])(x.clone()).sum(),
}


@pytest.mark.parametrize('name', sorted(VIEW_CASES))
def test_second_order_through_views_and_copyslices(rng, name):
    (x,), (tx,) = both(rng, (2, 3))
    f = VIEW_CASES[name]
    g, = Dl.autograd.grad(f(x), x, create_graph=True)
    h, = torch.autograd.grad(f(tx), tx, create_graph=True)
    assert_same(g, h)
    gg, = Dl.autograd.grad((g * g.exp()).sum(), x)
    hh, = torch.autograd.grad((h * h.exp()).sum(), tx)
    assert_same(gg, hh, rtol=1e-9)


def test_backward_inputs(rng):
    (x, y), (tx, ty) = both(rng, (3,), (3,))
    for a, b in ((x, y), (tx, ty)):
        m = a * b
        loss = (m.exp() * b).sum()
        loss.backward(inputs=[a, m], retain_graph=True)
        loss.backward(inputs=a)
    assert y.grad is None and ty.grad is None
    assert_same(x.grad, tx.grad)
    with pytest.raises(RuntimeError, match='cannot be empty'):
        (x * 2).sum().backward(inputs=[])
