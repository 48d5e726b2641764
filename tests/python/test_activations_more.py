# test_activations_more.py: the activations relu6, hardswish, hardsigmoid,
# hardshrink, softshrink, tanhshrink, softsign, elu, selu, celu, mish,
# logsigmoid, hardtanh, threshold, rrelu, prelu, glu, softmin and
# gumbel_softmax, functional, in place, at torch level and as modules,
# against PyTorch: values, gradients (and their node names), gradcheck,
# printed modules, state dicts and errors.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import pickle

import numpy as np
import pytest
import torch

from conftest import Dl, NONCONTIG, assert_same, pair, rand_np, rand_pair

F = Dl.nn.functional
TF = torch.nn.functional

# (name, libdl function, torch function, torch's node): the element-wise
# activations of one tensor
ELEMENTWISE = [
    ("relu6", F.relu6, TF.relu6, "HardtanhBackward0"),
    ("hardswish", F.hardswish, TF.hardswish, "HardswishBackward0"),
    ("hardsigmoid", F.hardsigmoid, TF.hardsigmoid, "HardsigmoidBackward0"),
    ("hardshrink", F.hardshrink, TF.hardshrink, "HardshrinkBackward0"),
    ("hardshrink_1", lambda x: F.hardshrink(x, 1.0), lambda t: TF.hardshrink(t, 1.0),
     "HardshrinkBackward0"),
    ("softshrink", F.softshrink, TF.softshrink, "SoftshrinkBackward0"),
    ("softshrink_2", lambda x: F.softshrink(x, lambd=2), lambda t: TF.softshrink(t, lambd=2),
     "SoftshrinkBackward0"),
    ("tanhshrink", F.tanhshrink, TF.tanhshrink, "SubBackward0"),
    ("softsign", F.softsign, TF.softsign, "DivBackward0"),
    ("elu", F.elu, TF.elu, "EluBackward0"),
    ("elu_alpha", lambda x: F.elu(x, 0.3), lambda t: TF.elu(t, 0.3), "EluBackward0"),
    ("selu", F.selu, TF.selu, "EluBackward0"),
    ("celu", F.celu, TF.celu, "CeluBackward0"),
    ("celu_alpha", lambda x: F.celu(x, alpha=2.5), lambda t: TF.celu(t, alpha=2.5),
     "CeluBackward0"),
    ("mish", F.mish, TF.mish, "MishBackward0"),
    ("logsigmoid", F.logsigmoid, TF.logsigmoid, "LogSigmoidBackward0"),
    ("hardtanh", F.hardtanh, TF.hardtanh, "HardtanhBackward0"),
    ("hardtanh_bounds", lambda x: F.hardtanh(x, -2, 0.5), lambda t: TF.hardtanh(t, -2, 0.5),
     "HardtanhBackward0"),
    ("threshold", lambda x: F.threshold(x, 0.5, -2.0), lambda t: TF.threshold(t, 0.5, -2.0),
     "ThresholdBackward0"),
    ("rrelu_eval", F.rrelu, TF.rrelu, "RreluWithNoiseBackward0"),
]
IDS = [e[0] for e in ELEMENTWISE]


def _grid(name):
    """Values on both sides of every kink (+-3, +-lambd, 0.5, 0) but not on
    them, and large ones."""
    v = np.array([-7.0, -3.2, -2.9, -1.3, -0.7, -0.45, -0.2, 0.1, 0.3, 0.55, 0.9, 1.7,
                  2.8, 3.1, 6.5, 25.0])
    return v.astype(np.float32 if name == "float32" else np.float64)


@pytest.mark.parametrize("entry", ELEMENTWISE, ids=IDS)
@pytest.mark.parametrize("name", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(16,), (4, 4), (2, 2, 4)])
def test_values_and_gradients(entry, name, shape):
    _, f, tf, node = entry
    x, t = pair(_grid(name).reshape(shape), name, requires_grad=True)
    y, u = f(x), tf(t)
    assert_same(y, u)
    assert y.grad_fn.name() == u.grad_fn.name() == node
    g = np.linspace(-1, 2, 16).reshape(shape)
    gx, gt = pair(g, name)
    y.backward(gx)
    u.backward(gt)
    assert_same(x.grad, t.grad)


@pytest.mark.parametrize("entry", ELEMENTWISE, ids=IDS)
@pytest.mark.parametrize("view", NONCONTIG, ids=[v[0] for v in NONCONTIG])
def test_noncontiguous(rng, entry, view):
    _, f, tf, _ = entry
    _, base, make = view
    x, t = rand_pair(rng, base, "float64", low=-5, high=5)
    assert_same(f(make(x)), tf(make(t)))


@pytest.mark.parametrize("entry", ELEMENTWISE, ids=IDS)
def test_gradcheck(rng, entry):
    _, f, _, _ = entry
    a = rand_np(rng, (3, 5), "float64", low=-4, high=4)
    a[np.abs(a) < 0.05] = 0.3
    for k in (-3.0, 3.0, 0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 6.0):
        a[np.abs(a - k) < 0.02] += 0.07       # away from the kinks
    x = Dl.from_numpy(a).requires_grad_(True)
    assert Dl.autograd.gradcheck(f, (x,))


@pytest.mark.parametrize("name,f,tf,args", [
    ("relu6", F.relu6, TF.relu6, ()),
    ("hardswish", F.hardswish, TF.hardswish, ()),
    ("hardsigmoid", F.hardsigmoid, TF.hardsigmoid, ()),
    ("mish", F.mish, TF.mish, ()),
    ("elu", F.elu, TF.elu, (0.7,)),
    ("selu", F.selu, TF.selu, ()),
    ("celu", F.celu, TF.celu, (1.5,)),
    ("hardtanh", F.hardtanh, TF.hardtanh, (-0.5, 0.25)),
    ("threshold", F.threshold, TF.threshold, (0.1, 9.0)),
])
def test_inplace_flag(rng, name, f, tf, args):
    x, t = rand_pair(rng, (3, 4), "float64")
    r = f(x, *args, inplace=True)
    tf(t, *args, inplace=True)
    assert r is x
    assert_same(x, t)


@pytest.mark.parametrize("name,f,tf,args", [
    ("relu_", F.relu_, TF.relu_, ()),
    ("elu_", F.elu_, TF.elu_, (0.5,)),
    ("selu_", F.selu_, TF.selu_, ()),
    ("celu_", F.celu_, TF.celu_, (2.0,)),
    ("hardtanh_", F.hardtanh_, TF.hardtanh_, (-2.0, 2.0)),
    ("threshold_", F.threshold_, TF.threshold_, (0.0, -1.0)),
    ("leaky_relu_", F.leaky_relu_, TF.leaky_relu_, (0.2,)),
    ("torch.relu_", Dl.relu_, torch.relu_, ()),
    ("torch.selu_", Dl.selu_, torch.selu_, ()),
    ("torch.celu_", Dl.celu_, torch.celu_, ()),
    ("torch.threshold_", Dl.threshold_, torch.threshold_, (0.3, 0.0)),
])
def test_inplace_functions(rng, name, f, tf, args):
    x, t = rand_pair(rng, (2, 5), "float32")
    assert f(x, *args) is x
    tf(t, *args)
    assert_same(x, t)


def test_inplace_gradient_through_non_leaf(rng):
    a, b = rand_pair(rng, (3, 4), "float64", requires_grad=True)
    y, u = a * 2, b * 2
    F.elu_(y, 0.5)
    TF.elu_(u, 0.5)
    y.sum().backward()
    u.sum().backward()
    assert_same(a.grad, b.grad)
    assert_same(y, u)


def test_torch_level_functions(rng):
    x, t = rand_pair(rng, (3, 4), "float64")
    assert_same(Dl.selu(x), torch.selu(t))
    assert_same(Dl.celu(x, 0.5), torch.celu(t, 0.5))
    assert_same(Dl.threshold(x, 0.2, 5.0), torch.threshold(t, 0.2, 5.0))
    assert_same(Dl.hardshrink(x), torch.hardshrink(t))
    assert_same(Dl.hardshrink(x, 1.5), torch.hardshrink(t, 1.5))
    assert_same(x.hardshrink(), t.hardshrink())
    assert_same(x.hardshrink(lambd=0.1), t.hardshrink(lambd=0.1))
    w, v = pair(np.array([0.1, -0.3, 2.0, 0.5]), "float64")
    assert_same(Dl.prelu(x, w), torch.prelu(t, v))
    assert_same(x.prelu(w), t.prelu(v))
    assert_same(Dl.rrelu(x), torch.rrelu(t))


def test_special_values():
    vals = np.array([-np.inf, -1.0, -0.0, 0.0, 2.0, np.inf, np.nan])
    x, t = pair(vals, "float64")
    for f, tf in [(F.relu6, TF.relu6), (F.hardswish, TF.hardswish),
                  (F.hardsigmoid, TF.hardsigmoid), (F.softsign, TF.softsign),
                  (F.logsigmoid, TF.logsigmoid), (F.selu, TF.selu), (F.elu, TF.elu),
                  (F.softshrink, TF.softshrink), (F.hardshrink, TF.hardshrink),
                  (F.hardtanh, TF.hardtanh)]:
        assert_same(f(x), tf(t))
    # mish and tanhshrink at infinities give NaN in both (inf - inf)
    assert_same(F.mish(x[1:5]), TF.mish(t[1:5]))
    # logsigmoid keeps its precision where ln (sigmoid (x)) underflows
    big, tbig = pair(np.array([-800.0, -50.0, 50.0, 800.0]), "float64")
    assert_same(F.logsigmoid(big), TF.logsigmoid(tbig))


@pytest.mark.parametrize("name", ["float32", "float64"])
def test_rrelu_training(name):
    Dl.manual_seed(3)
    a = np.linspace(-4, 4, 200).reshape(10, 20)
    x, t = pair(a, name, requires_grad=True)
    y = F.rrelu(x, 0.1, 0.3, training=True)
    assert y.grad_fn.name() == "RreluWithNoiseBackward0"
    yn, xn = y.detach().numpy(), a
    neg = xn <= 0
    slopes = yn[neg & (xn < 0)] / xn[neg & (xn < 0)]
    assert np.all(slopes >= 0.1 - 1e-6) and np.all(slopes <= 0.3 + 1e-6)
    assert np.unique(np.round(slopes, 5)).size > 50       # drawn per element
    np.testing.assert_array_equal(yn[~neg], xn[~neg].astype(yn.dtype))
    y.sum().backward()
    gx = x.grad.numpy()
    np.testing.assert_allclose(gx[neg & (xn < 0)], slopes, rtol=1e-5)
    np.testing.assert_array_equal(gx[~neg], 1)
    # the same seed draws the same slopes; training=False is leaky_relu
    Dl.manual_seed(3)
    assert np.array_equal(F.rrelu(x.detach(), 0.1, 0.3, training=True).numpy(), yn)
    assert_same(F.rrelu(x.detach(), 0.1, 0.3), TF.rrelu(torch.from_numpy(a).to(
        getattr(torch, name)), 0.1, 0.3))
    g = Dl.Generator().manual_seed(5)
    r1 = F.rrelu(x.detach(), training=True, generator=g).numpy()
    g.manual_seed(5)
    assert np.array_equal(F.rrelu(x.detach(), training=True, generator=g).numpy(), r1)


def test_rrelu_inplace_and_module():
    x = Dl.tensor([[-1.0, 2.0, -3.0]])
    m = Dl.nn.RReLU(0.2, 0.2, inplace=True)
    assert m(x) is x
    assert np.allclose(x.numpy(), [[-0.2, 2.0, -0.6]])
    m.eval()
    y = Dl.nn.RReLU()(Dl.tensor([-3.0]))
    z = torch.nn.RReLU().eval()(torch.tensor([-3.0]))
    assert_same(Dl.nn.RReLU().eval()(Dl.tensor([-3.0])), z)
    assert y.shape == (1,)


@pytest.mark.parametrize("name", ["float32", "float64"])
@pytest.mark.parametrize("shape,nw", [((4, 3), 3), ((2, 3, 5), 3), ((2, 4, 3, 2), 4),
                                      ((2, 4, 3, 2), 1), ((5,), 1), ((), 1)])
def test_prelu(rng, name, shape, nw):
    x, t = rand_pair(rng, shape, name, requires_grad=True)
    w, v = rand_pair(rng, (nw,), name, requires_grad=True)
    y, u = F.prelu(x, w), TF.prelu(t, v)
    assert_same(y, u)
    assert y.grad_fn.name() == u.grad_fn.name()
    gx, gt = rand_pair(rng, shape, name)
    y.backward(gx)
    u.backward(gt)
    assert_same(x.grad, t.grad)
    assert_same(w.grad, v.grad, rtol=1e-4 if name == "float32" else None)


def test_prelu_gradcheck_and_errors(rng):
    x = Dl.from_numpy(rand_np(rng, (2, 3, 4), "float64", nonzero=True)).requires_grad_(True)
    w = Dl.tensor([0.2, -0.4, 1.3], dtype=Dl.float64, requires_grad=True)
    assert Dl.autograd.gradcheck(F.prelu, (x, w))
    x, t = rand_pair(rng, (2, 3, 4), "float64")
    for bad in (np.ones(2), np.ones((3, 1))):
        w, v = pair(bad, "float64")
        with pytest.raises(RuntimeError):
            TF.prelu(t, v)
        with pytest.raises(RuntimeError):
            F.prelu(x, w)


@pytest.mark.parametrize("name", ["float32", "float64"])
@pytest.mark.parametrize("shape,dim", [((4, 6), -1), ((4, 6), 0), ((2, 4, 3), 1), ((8,), 0)])
def test_glu(rng, name, shape, dim):
    x, t = rand_pair(rng, shape, name, requires_grad=True)
    y, u = F.glu(x, dim), TF.glu(t, dim)
    assert_same(y, u)
    assert y.grad_fn.name() == u.grad_fn.name() == "GluBackward0"
    gx, gt = rand_pair(rng, tuple(u.shape), name)
    y.backward(gx)
    u.backward(gt)
    assert_same(x.grad, t.grad)
    xt, tt = rand_pair(rng, (6, 4), name)
    assert_same(F.glu(xt.t(), 0), TF.glu(tt.t(), 0))


def test_glu_gradcheck_and_errors(rng):
    x = Dl.from_numpy(rand_np(rng, (3, 4), "float64")).requires_grad_(True)
    assert Dl.autograd.gradcheck(lambda a: F.glu(a, 1), (x,))
    assert Dl.autograd.gradgradcheck(lambda a: F.glu(a, 1), (x,))
    x, t = rand_pair(rng, (3, 5), "float64")
    with pytest.raises(RuntimeError):
        TF.glu(t)
    with pytest.raises(RuntimeError, match="Halving dimension must be even"):
        F.glu(x)
    with pytest.raises(IndexError):
        TF.glu(t, 2)
    with pytest.raises(IndexError):
        F.glu(x, 2)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmin(rng, dim):
    x, t = rand_pair(rng, (3, 4), "float64", requires_grad=True)
    y, u = F.softmin(x, dim), TF.softmin(t, dim)
    assert_same(y, u)
    y.backward(Dl.ones_like(y))
    u.backward(torch.ones_like(u))
    assert_same(x.grad, t.grad)
    assert_same(F.softmin(x.detach(), dim, dtype=Dl.float32),
                TF.softmin(t.detach(), dim, dtype=torch.float32))
    assert_same(Dl.nn.Softmin(dim)(x.detach()), torch.nn.Softmin(dim)(t.detach()))


def test_softmin_implicit_dim(rng):
    x, t = rand_pair(rng, (3, 4), "float64")
    with pytest.warns(UserWarning):
        expected = TF.softmin(t)
    with pytest.warns(UserWarning):
        assert_same(F.softmin(x), expected)


def test_softmax2d(rng):
    for shape in [(2, 3, 4, 5), (3, 2, 2)]:
        x, t = rand_pair(rng, shape, "float64")
        assert_same(Dl.nn.Softmax2d()(x), torch.nn.Softmax2d()(t))
    x, t = rand_pair(rng, (3, 4), "float64")
    with pytest.raises(AssertionError):
        torch.nn.Softmax2d()(t)
    with pytest.raises(AssertionError):
        Dl.nn.Softmax2d()(x)


def test_gumbel_softmax():
    Dl.manual_seed(0)
    logits = Dl.tensor([[1.0, 2.0, 0.5, -1.0], [0.0, 0.0, 3.0, 0.1]], requires_grad=True)
    y = F.gumbel_softmax(logits, tau=0.5)
    assert y.shape == (2, 4)
    np.testing.assert_allclose(y.detach().sum(-1).numpy(), [1, 1], rtol=1e-6)
    assert (y.detach().numpy() >= 0).all()
    h = F.gumbel_softmax(logits, tau=1.0, hard=True)
    hn = h.detach().numpy()
    assert set(np.unique(hn)) <= {0.0, 1.0} and np.array_equal(hn.sum(-1), [1, 1])
    (h * Dl.arange(4.0)).sum().backward()
    assert logits.grad is not None and np.abs(logits.grad.numpy()).sum() > 0
    # the soft samples follow the softmax of the logits: the mean over many
    # draws is close to it
    Dl.manual_seed(1)
    many = F.gumbel_softmax(Dl.zeros(4000, 3) + Dl.tensor([0.0, 1.0, 2.0]), hard=True)
    freq = many.mean(0).numpy()
    p = np.exp([0.0, 1.0, 2.0]) / np.exp([0.0, 1.0, 2.0]).sum()
    np.testing.assert_allclose(freq, p, atol=0.03)


def test_errors_as_torch(rng):
    x, t = rand_pair(rng, (3,), "float64")
    # torch 1.13 checks softshrink's lambd, not hardshrink's, nor hardtanh's bounds
    assert_same(F.hardshrink(x, -1.0), TF.hardshrink(t, -1.0))
    assert_same(F.hardtanh(x, 1.0, -1.0), TF.hardtanh(t, 1.0, -1.0))
    for f, tf in [(lambda a: F.softshrink(a, -0.5), lambda a: TF.softshrink(a, -0.5)),
                  (lambda a: F.rrelu(a, 0.5, 0.1, True), lambda a: TF.rrelu(a, 0.5, 0.1, True)),
                  ]:
        with pytest.raises(RuntimeError):
            tf(t)
        with pytest.raises(RuntimeError):
            f(x)
    xi, ti = pair(np.array([1, -2, 3]), "int64")
    for f, tf in [(F.hardswish, TF.hardswish), (F.mish, TF.mish), (F.selu, TF.selu),
                  (F.logsigmoid, TF.logsigmoid), (F.hardshrink, TF.hardshrink)]:
        with pytest.raises(RuntimeError):
            tf(ti)
        with pytest.raises(RuntimeError):
            f(xi)


# ---- modules ---------------------------------------------------------------------

MODULES = [
    ("ReLU6", (), {}), ("ReLU6", (), {"inplace": True}),
    ("Hardswish", (), {}), ("Hardswish", (), {"inplace": True}),
    ("Hardsigmoid", (), {}), ("Hardshrink", (), {}), ("Hardshrink", (1,), {}),
    ("Softshrink", (), {}), ("Softshrink", (0.25,), {}), ("Tanhshrink", (), {}),
    ("Softsign", (), {}), ("SELU", (), {}), ("SELU", (), {"inplace": True}),
    ("CELU", (), {}), ("CELU", (2,), {"inplace": True}), ("Mish", (), {}),
    ("LogSigmoid", (), {}), ("Threshold", (0.1, 20), {}),
    ("Threshold", (0.5, -1.0), {"inplace": True}), ("RReLU", (), {}),
    ("RReLU", (0.1, 0.2), {"inplace": True}), ("PReLU", (), {}),
    ("PReLU", (4,), {"init": 0.1}), ("GLU", (), {}), ("GLU", (1,), {}),
    ("Softmin", (1,), {}), ("Softmax2d", (), {}), ("ELU", (0.5,), {}),
    ("Hardtanh", (-2, 3), {"inplace": True}),
]


@pytest.mark.parametrize("cls,args,kwargs", MODULES,
                         ids=["%s%r%r" % m for m in MODULES])
def test_module(rng, cls, args, kwargs):
    m = getattr(Dl.nn, cls)(*args, **kwargs)
    tm = getattr(torch.nn, cls)(*args, **kwargs)
    m.eval()
    tm.eval()
    assert repr(m) == repr(tm)
    assert list(m.state_dict().keys()) == list(tm.state_dict().keys())
    for k, v in tm.state_dict().items():
        assert_same(m.state_dict()[k], v)
    x, t = rand_pair(rng, (2, 4, 4, 2), "float32")
    y, u = m(x), tm(t)
    assert_same(y, u)
    assert (y is x) == (u is t)
    assert isinstance(m, Dl.nn.Module)


@pytest.mark.parametrize("cls,args,kwargs", MODULES,
                         ids=["%s%r%r" % m for m in MODULES])
def test_module_pickles(rng, cls, args, kwargs):
    m = getattr(Dl.nn, cls)(*args, **kwargs)
    m.eval()
    m2 = pickle.loads(pickle.dumps(m))
    assert type(m2) is type(m) and repr(m2) == repr(m)
    x = Dl.from_numpy(rand_np(rng, (2, 4, 4, 2), "float32"))
    assert_same(m2(x.clone()), torch.from_numpy(m(x.clone()).detach().numpy()))


def test_module_in_sequential_and_print():
    m = Dl.nn.Sequential(Dl.nn.Linear(4, 3), Dl.nn.PReLU(3), Dl.nn.Hardswish(),
                         Dl.nn.Softshrink(0.3))
    t = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.PReLU(3), torch.nn.Hardswish(),
                            torch.nn.Softshrink(0.3))
    assert str(m) == str(t)
    assert list(m.state_dict()) == list(t.state_dict())
    t.load_state_dict({k: torch.from_numpy(v.detach().numpy().copy())
                       for k, v in m.state_dict().items()})
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    assert_same(m(Dl.from_numpy(x)), t(torch.from_numpy(x)))


def test_prelu_module_training():
    m = Dl.nn.PReLU(2, init=0.5)
    tm = torch.nn.PReLU(2, init=0.5)
    assert m.weight.requires_grad and tuple(m.weight.shape) == (2,)
    assert [n for n, _ in m.named_parameters()] == ["weight"]
    a = np.array([[[-1.0, 2.0], [3.0, -4.0]], [[-0.5, 0.5], [-2.0, 1.0]]], dtype=np.float32)
    m(Dl.from_numpy(a)).sum().backward()
    tm(torch.from_numpy(a)).sum().backward()
    assert_same(m.weight.grad, tm.weight.grad)
    m64 = Dl.nn.PReLU(dtype=Dl.float64)
    assert m64.weight.dtype == Dl.float64
    with pytest.raises(RuntimeError):
        torch.nn.PReLU(-1)
    with pytest.raises(RuntimeError):
        Dl.nn.PReLU(-1)


def test_module_errors():
    assert repr(Dl.nn.Softmin()) == repr(torch.nn.Softmin()) == 'Softmin(dim=None)'
    with pytest.raises(RuntimeError):
        torch.nn.Softshrink(-1.0)(torch.ones(2))
    with pytest.raises(RuntimeError):
        Dl.nn.Softshrink(-1.0)(Dl.ones(2))
    with pytest.raises(RuntimeError):
        Dl.nn.GLU()(Dl.ones(3, 5))


@pytest.mark.parametrize("shape", [(), (5,), (2, 3), (2, 3, 4), (2, 3, 4, 2)])
@pytest.mark.parametrize("name", ["softmax", "log_softmax", "softmin"])
def test_softmax_implicit_dim(rng, shape, name):
    """F.log_softmax(x) without dim (pre-0.3 scripts such as the NLP
    tutorial's LSTM tagger): torch's _get_softmax_dim picks 0 for 0-, 1-
    and 3-dim input, else 1, and warns, naming the function and pointing
    at the caller's line; a dtype still goes by keyword."""
    x, t = rand_pair(rng, shape, "float64", requires_grad=True)
    with pytest.warns(UserWarning, match="Implicit dimension choice for %s has been deprecated"
                      % name) as rec:
        y = getattr(F, name)(x)
    with pytest.warns(UserWarning) as trec:
        u = getattr(TF, name)(t)
    assert str(rec[0].message) == str(trec[0].message)
    assert rec[0].filename == trec[0].filename == __file__
    assert_same(y, u)
    y.backward(Dl.ones_like(y))
    u.backward(torch.ones_like(u))
    assert_same(x.grad, t.grad)
    with pytest.warns(UserWarning):
        assert_same(getattr(F, name)(x.detach(), dtype=Dl.float32),
                    getattr(TF, name)(t.detach(), dtype=torch.float32))
    # the third positional argument is _stacklevel, as in torch, not dtype
    with pytest.warns(UserWarning):
        assert_same(getattr(F, name)(x.detach(), None, 3), getattr(TF, name)(t.detach(), None, 3))
