# test_parametrize.py: dl.nn.utils.parametrize, parametrizations
# (orthogonal, spectral_norm), the hook forms weight_norm and spectral_norm,
# stateless.functional_call, skip_init and Module's load_state_dict post
# hooks, side by side with torch 1.13: values, gradients of the original
# parameters (float64, the same weights in both), state dict keys, printed
# modules and errors. libdl's layers (Linear, Conv2d) run their forward in
# C, which reads the parametrized weight through
# dl_module_register_parametrization().
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import copy
import gc
import warnings

import numpy as np
import pytest
import torch

import dl

LIBS = (torch, dl)


def _np(t):
    return np.array(t.detach().tolist())


def _same(a, b, rtol=1e-10, atol=1e-12):
    a, b = _np(a), _np(b)
    assert not np.isnan(a).any()
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def _copy_state(src, dst):
    """dst takes src's state dict values (torch to dl, by key)."""
    state = {k: dl.tensor(_np(v), dtype=dl.float64) if v.is_floating_point()
             else dl.tensor(_np(v)) for k, v in src.state_dict().items()}
    dst.load_state_dict(state)


def _symmetric(lib):
    class Symmetric(lib.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)
    return Symmetric


def _exp(lib):
    class Exp(lib.nn.Module):
        def forward(self, X):
            return X.exp()

        def right_inverse(self, Y):
            return Y.log()
    return Exp


def _pair(lib):
    class Sum(lib.nn.Module):
        def forward(self, A, B):
            return A + 2 * B

        def right_inverse(self, X):
            return (X / 3, X / 3)
    return Sum


def _scale(lib):
    class Scale(lib.nn.Module):
        def __init__(self, s):
            super().__init__()
            self.s = s

        def forward(self, X):
            return X * self.s

        def right_inverse(self, Y):
            return Y / self.s
    return Scale


def _grads(model):
    return {n: p.grad for n, p in model.named_parameters()}


def _compare_models(mt, md, x_shape, seed=0):
    """The same input through both: outputs, then the gradients of every
    parameter (by name) after a backward of a weighted sum."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(x_shape)
    yt = mt(torch.tensor(x))
    yd = md(dl.tensor(x, dtype=dl.float64))
    _same(yt, yd)
    w = rng.standard_normal(tuple(yt.shape))
    (yt * torch.tensor(w)).sum().backward()
    (yd * dl.tensor(w, dtype=dl.float64)).sum().backward()
    gt, gd = _grads(mt), _grads(md)
    assert list(gt) == list(gd)
    for name in gt:
        _same(gt[name], gd[name])


def _linear_pair(n_in=3, n_out=3, seed=1):
    torch.manual_seed(seed)
    mt = torch.nn.Linear(n_in, n_out, dtype=torch.float64)
    md = dl.nn.Linear(n_in, n_out, dtype=dl.float64)
    _copy_state(mt, md)
    return mt, md


def test_register_on_a_c_layer_as_torch():
    mt, md = _linear_pair()
    for lib, m in ((torch, mt), (dl, md)):
        out = lib.nn.utils.parametrize.register_parametrization(m, 'weight', _symmetric(lib)())
        assert out is m
    assert type(md).__name__ == type(mt).__name__ == 'ParametrizedLinear'
    assert isinstance(md, dl.nn.Linear)
    assert repr(md) == repr(mt)
    assert list(md.state_dict()) == list(mt.state_dict()) == [
        'bias', 'parametrizations.weight.original']
    assert [n for n, _ in md.named_parameters()] == [n for n, _ in mt.named_parameters()]
    _same(mt.weight, md.weight)
    _same(md.weight, md.weight.t())
    assert md.parametrizations.weight.original.grad_fn is None
    assert md.weight.grad_fn is not None
    _compare_models(mt, md, (4, 3))
    for lib, m in ((torch, mt), (dl, md)):
        assert lib.nn.utils.parametrize.is_parametrized(m)
        assert lib.nn.utils.parametrize.is_parametrized(m, 'weight')
        assert not lib.nn.utils.parametrize.is_parametrized(m, 'bias')
        assert lib.nn.utils.parametrize.type_before_parametrizations(m) is lib.nn.Linear


def test_conv2d_and_a_python_module():
    torch.manual_seed(2)
    ct = torch.nn.Conv2d(2, 3, 3, dtype=torch.float64)
    cd = dl.nn.Conv2d(2, 3, 3, dtype=dl.float64)
    _copy_state(ct, cd)
    for lib, m in ((torch, ct), (dl, cd)):
        with lib.no_grad():
            m.bias.abs_().add_(0.1)  # positive, for Exp's right_inverse (log)
        lib.nn.utils.parametrize.register_parametrization(m, 'weight', _scale(lib)(0.5))
        lib.nn.utils.parametrize.register_parametrization(m, 'bias', _exp(lib)())
    assert repr(cd) == repr(ct)
    assert list(cd.state_dict()) == list(ct.state_dict())
    _compare_models(ct, cd, (2, 2, 5, 5))

    def user(lib):
        class Net(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.weight = lib.nn.Parameter(lib.ones(3, 3, dtype=lib.float64))

            def forward(self, x):
                return x @ self.weight
        return Net()
    nt, nd = user(torch), user(dl)
    with torch.no_grad():
        nt.weight.copy_(torch.arange(9.0, dtype=torch.float64).reshape(3, 3))
    _copy_state(nt, nd)
    for lib, m in ((torch, nt), (dl, nd)):
        lib.nn.utils.parametrize.register_parametrization(m, 'weight', _symmetric(lib)())
    assert type(nd).__name__ == 'ParametrizedNet'
    assert repr(nd) == repr(nt)
    _compare_models(nt, nd, (2, 3))


def test_chain_right_inverse_and_assignment():
    mt, md = _linear_pair(seed=3)
    for lib, m in ((torch, mt), (dl, md)):
        with lib.no_grad():
            m.weight.abs_().add_(0.1)  # positive, for Exp's right_inverse (log)
        P = lib.nn.utils.parametrize
        P.register_parametrization(m, 'weight', _exp(lib)())
        P.register_parametrization(m, 'weight', _scale(lib)(2.0))
    assert repr(md) == repr(mt)
    _same(mt.parametrizations.weight.original, md.parametrizations.weight.original)
    _same(mt.weight, md.weight)
    _compare_models(mt, md, (2, 3))
    value = np.full((3, 3), 4.0)
    mt.weight = torch.tensor(value)
    md.weight = dl.tensor(value, dtype=dl.float64)
    _same(mt.parametrizations.weight.original, md.parametrizations.weight.original)
    _same(md.weight, dl.tensor(value))


def test_original_split_in_two_tensors():
    mt, md = _linear_pair(seed=4)
    for lib, m in ((torch, mt), (dl, md)):
        lib.nn.utils.parametrize.register_parametrization(m, 'weight', _pair(lib)())
    assert list(md.state_dict()) == list(mt.state_dict()) == [
        'bias', 'parametrizations.weight.original0', 'parametrizations.weight.original1']
    _compare_models(mt, md, (2, 3))
    for lib, m in ((torch, mt), (dl, md)):
        with pytest.raises(ValueError) as e:
            lib.nn.utils.parametrize.remove_parametrizations(m, 'weight',
                                                             leave_parametrized=False)
        assert 'Cannot leave unparametrized' in str(e.value)
        lib.nn.utils.parametrize.remove_parametrizations(m, 'weight')
    assert type(md) is dl.nn.Linear
    assert list(md.state_dict()) == list(mt.state_dict()) == ['bias', 'weight']
    _same(mt.weight, md.weight)


@pytest.mark.parametrize('leave', [True, False])
def test_remove(leave):
    mt, md = _linear_pair(seed=5)
    for lib, m in ((torch, mt), (dl, md)):
        P = lib.nn.utils.parametrize
        original = m.weight
        P.register_parametrization(m, 'weight', _scale(lib)(3.0))
        P.remove_parametrizations(m, 'weight', leave_parametrized=leave)
        assert m.weight is original  # the same Parameter, its values set
        assert type(m) is lib.nn.Linear
        assert not hasattr(m, 'parametrizations')
        assert not P.is_parametrized(m)
    assert repr(md) == repr(mt)
    assert list(md.state_dict()) == list(mt.state_dict())
    _compare_models(mt, md, (2, 3))


def test_unsafe_shape_change_and_errors():
    def errors(lib):
        m = lib.nn.Linear(3, 3, dtype=lib.float64)
        P = lib.nn.utils.parametrize

        class Flat(lib.nn.Module):
            def forward(self, X):
                return X.reshape(-1)
        got = []
        for call in (lambda: P.register_parametrization(m, 'nope', Flat()),
                     lambda: P.register_parametrization(m, 'weight', Flat()),
                     lambda: P.remove_parametrizations(m, 'bias')):
            with pytest.raises(ValueError) as e:
                call()
            got.append(str(e.value))
        P.register_parametrization(m, 'weight', Flat(), unsafe=True)
        got.append(tuple(m.weight.shape))
        got.append(type(m).__name__)
        # a second parametrization checked against the first's result
        m2 = lib.nn.Linear(3, 3, dtype=lib.float64)
        P.register_parametrization(m2, 'weight', _scale(lib)(2.0))
        with pytest.raises(ValueError) as e:
            P.register_parametrization(m2, 'weight', Flat())
        got.append(str(e.value))

        class BadInverse(lib.nn.Module):
            def forward(self, X):
                return X

            def right_inverse(self, X):
                return X.float()
        with pytest.raises(ValueError) as e:
            P.register_parametrization(m2, 'weight', BadInverse())
        got.append(str(e.value))
        return got
    gt, gd = errors(torch), errors(dl)
    assert gd == gt


def test_cached_computes_once():
    counts = {}

    def counting(lib):
        class Counting(lib.nn.Module):
            def forward(self, X):
                counts[lib] = counts.get(lib, 0) + 1
                return X * 2
        return Counting()
    mt, md = _linear_pair(seed=6)
    x = np.ones((2, 3))
    for lib, m in ((torch, mt), (dl, md)):
        P = lib.nn.utils.parametrize
        P.register_parametrization(m, 'weight', counting(lib))
        counts[lib] = 0
        with P.cached():
            w1 = m.weight
            w2 = m.weight
            m(lib.tensor(x, dtype=lib.float64))  # the C forward reads the cached one
            assert w1 is w2
        assert counts[lib] == 1
        m(lib.tensor(x, dtype=lib.float64))
        assert counts[lib] == 2
        assert m.weight is not m.weight


def test_hooks_and_sequential_from_c():
    # a parametrized layer with a forward hook, inside a Sequential run in C,
    # after Python dropped its own references
    def build(lib):
        torch.manual_seed(7)
        seq = lib.nn.Sequential(lib.nn.Linear(3, 3, dtype=lib.float64), lib.nn.Tanh())
        return seq
    st, sd = build(torch), build(dl)
    _copy_state(st, sd)
    calls = []
    for lib, s in ((torch, st), (dl, sd)):
        lib.nn.utils.parametrize.register_parametrization(s[0], 'weight', _symmetric(lib)())
        s[0].register_forward_hook(lambda m, i, o: calls.append(type(m).__name__))
    gc.collect()
    assert type(sd[0]).__name__ == 'ParametrizedLinear'
    assert repr(sd) == repr(st)
    assert list(sd.state_dict()) == list(st.state_dict())
    _compare_models(st, sd, (2, 3))
    assert calls == ['ParametrizedLinear', 'ParametrizedLinear']


def test_deepcopy_and_pickle():
    mt, md = _linear_pair(seed=8)
    for lib, m in ((torch, mt), (dl, md)):
        lib.nn.utils.parametrize.register_parametrization(m, 'weight', _symmetric(lib)())
    ct, cd = copy.deepcopy(mt), copy.deepcopy(md)
    assert type(cd).__name__ == 'ParametrizedLinear'
    assert cd.parametrizations.weight.original is not md.parametrizations.weight.original
    _compare_models(ct, cd, (2, 3))
    assert md.parametrizations.weight.original.grad is None
    import pickle
    for m in (mt, md):
        with pytest.raises(RuntimeError) as e:
            pickle.dumps(m)
        assert 'Serialization of parametrized modules is only supported through state_dict()' \
            in str(e.value)


def test_transfer_parametrizations():
    mt, md = _linear_pair(seed=9)
    outs = []
    for lib, m in ((torch, mt), (dl, md)):
        P = lib.nn.utils.parametrize
        P.register_parametrization(m, 'weight', _symmetric(lib)())
        other = lib.nn.Linear(3, 3, dtype=lib.float64)
        P.transfer_parametrizations_and_params(m, other)
        assert other.parametrizations.weight.original is m.parametrizations.weight.original
        outs.append(other.weight)
    _same(*outs)


# ---- orthogonal and spectral_norm (parametrizations) -------------------------

@pytest.mark.parametrize('shape,orth_map', [((4, 4), None), ((4, 4), 'cayley'),
                                            ((5, 3), None), ((3, 5), 'householder'),
                                            ((4, 4), 'householder')])
def test_orthogonal(shape, orth_map):
    torch.manual_seed(10)
    mt = torch.nn.Linear(shape[1], shape[0], dtype=torch.float64)
    md = dl.nn.Linear(shape[1], shape[0], dtype=dl.float64)
    torch.nn.utils.parametrizations.orthogonal(mt, orthogonal_map=orth_map)
    dl.nn.utils.parametrizations.orthogonal(md, orthogonal_map=orth_map)
    assert list(md.state_dict()) == list(mt.state_dict())
    assert repr(md) == repr(mt)
    w = _np(md.weight)
    small = min(shape)
    q = w.T @ w if shape[0] >= shape[1] else w @ w.T
    np.testing.assert_allclose(q, np.eye(small), atol=1e-10)
    # torch's base and original (random for a non-square weight), then the
    # same map: the same weight and gradients
    _copy_state(mt, md)
    _same(mt.weight, md.weight)
    _compare_models(mt, md, (2, shape[1]))


def test_orthogonal_without_trivialization():
    torch.manual_seed(11)
    mt = torch.nn.Linear(3, 5, dtype=torch.float64)
    md = dl.nn.Linear(3, 5, dtype=dl.float64)
    _copy_state(mt, md)
    for lib, m in ((torch, mt), (dl, md)):
        lib.nn.utils.parametrizations.orthogonal(m, use_trivialization=False)
    assert list(md.state_dict()) == list(mt.state_dict())
    _same(mt.parametrizations.weight.original, md.parametrizations.weight.original)
    _same(mt.weight, md.weight)
    _compare_models(mt, md, (2, 3))
    for lib in LIBS:
        with pytest.raises(ValueError) as e:
            lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(2, 2), 'bias')
        assert str(e.value) == ('Expected a matrix or batch of matrices. Got a tensor of 1 '
                                'dimensions.')
        with pytest.raises(NotImplementedError):
            m = lib.nn.Linear(2, 2)
            lib.nn.utils.parametrizations.orthogonal(m, orthogonal_map='cayley',
                                                     use_trivialization=False)
            m.weight = lib.eye(2)


@pytest.mark.parametrize('training', [True, False])
def test_spectral_norm_parametrization(training):
    torch.manual_seed(12)
    mt = torch.nn.Linear(4, 3, dtype=torch.float64)
    md = dl.nn.Linear(4, 3, dtype=dl.float64)
    torch.nn.utils.parametrizations.spectral_norm(mt)
    dl.nn.utils.parametrizations.spectral_norm(md)
    assert list(md.state_dict()) == list(mt.state_dict()) == [
        'bias', 'parametrizations.weight.original', 'parametrizations.weight.0._u',
        'parametrizations.weight.0._v']
    assert repr(md) == repr(mt)
    np.testing.assert_allclose(np.linalg.norm(_np(md.weight), 2), 1.0, rtol=1e-3)
    _copy_state(mt, md)
    mt.train(training)
    md.train(training)
    _compare_models(mt, md, (2, 4))
    for k in ('parametrizations.weight.0._u', 'parametrizations.weight.0._v'):
        _same(mt.state_dict()[k], md.state_dict()[k])


# ---- the hook forms ------------------------------------------------------------

def _removed_as_torch(mt, md, kind):
    """remove_<kind> on both Linears: a plain weight again, as torch's; a
    second removal fails as torch's."""
    for lib, m in ((torch, mt), (dl, md)):
        remove = getattr(lib.nn.utils, 'remove_' + kind)
        remove(m)
        with pytest.raises(ValueError) as e:
            remove(m)
        assert str(e.value).startswith("{} of 'weight' not found in Linear(".format(kind))
    assert list(md.state_dict()) == list(mt.state_dict()) == ['bias', 'weight']
    _same(mt.weight, md.weight)


@pytest.mark.parametrize('dim', [0, 1, None])
def test_weight_norm_hook(dim):
    torch.manual_seed(13)
    mt = torch.nn.Linear(3, 4, dtype=torch.float64)
    md = dl.nn.Linear(3, 4, dtype=dl.float64)
    _copy_state(mt, md)
    assert torch.nn.utils.weight_norm(mt, dim=dim) is mt
    assert dl.nn.utils.weight_norm(md, dim=dim) is md
    assert type(md) is dl.nn.Linear
    assert repr(md) == repr(mt)
    assert list(md.state_dict()) == list(mt.state_dict()) == ['bias', 'weight_g', 'weight_v']
    for k in ('weight_g', 'weight_v'):
        _same(mt.state_dict()[k], md.state_dict()[k])
    _same(mt.weight, md.weight)
    _compare_models(mt, md, (2, 3))
    _same(mt.weight, md.weight)
    # a torch checkpoint loads
    _copy_state(mt, md)
    for lib, m in ((torch, mt), (dl, md)):
        with pytest.raises(RuntimeError) as e:
            lib.nn.utils.weight_norm(m, dim=dim)
        assert str(e.value) == 'Cannot register two weight_norm hooks on the same parameter weight'
    _removed_as_torch(mt, md, 'weight_norm')
    _compare_models(mt, md, (2, 3), seed=1)


def _graph(fn):
    """The node names of the graph under @fn, depth first (None for an
    edge to nothing, AccumulateGrad by its short name)."""
    if fn is None:
        return None
    return (fn.name().split('::')[-1], [_graph(f) for f, _ in fn.next_functions])


@pytest.mark.parametrize('shape,dim', [((4, 3), 0), ((4, 3), None), ((4, 3), 1), ((3, 2, 2), 2),
                                       ((3, 2, 2), 1), ((5,), 0)])
def test_weight_norm_graph(shape, dim):
    """The weight's graph as torch's: one WeightNormInterfaceBackward0 node
    on (v, g) for dim 0 and the last dim, v * (g / v.norm()) for None;
    the same weight and gradients, and gradcheck and gradgradcheck of
    _weight_norm on v and g in float64."""
    from dl.nn.utils.weight_norm import _weight_norm
    rng = np.random.default_rng(7)
    a = rng.standard_normal(shape)
    mt, md = torch.nn.Module(), dl.nn.Module()
    mt.weight = torch.nn.Parameter(torch.tensor(a))
    md.weight = dl.nn.Parameter(dl.tensor(a, dtype=dl.float64))
    torch.nn.utils.weight_norm(mt, dim=dim)
    dl.nn.utils.weight_norm(md, dim=dim)
    with torch.no_grad():
        mt.weight_g.mul_(1.5)
    md.weight_g.data = dl.tensor(mt.weight_g.detach().numpy())
    for m in (mt, md):  # what a forward runs first (the modules have none)
        for hook in m._forward_pre_hooks.values():
            hook(m, ())
    wt, wd = mt.weight, md.weight
    if dim is None or dim in (0, len(shape) - 1):
        assert _graph(wd.grad_fn) == _graph(wt.grad_fn)
    assert wd.grad_fn.name() == wt.grad_fn.name()
    _same(wt, wd)
    w = rng.standard_normal(shape)
    (wt * torch.tensor(w)).sum().backward()
    (wd * dl.tensor(w, dtype=dl.float64)).sum().backward()
    _same(mt.weight_v.grad, md.weight_v.grad)
    _same(mt.weight_g.grad, md.weight_g.grad)
    v = md.weight_v.detach().clone().requires_grad_(True)
    g = md.weight_g.detach().clone().requires_grad_(True)
    d = -1 if dim is None else dim
    assert dl.autograd.gradcheck(lambda v, g: _weight_norm(v, g, d), (v, g))
    assert dl.autograd.gradgradcheck(lambda v, g: _weight_norm(v, g, d), (v, g))


def test_weight_norm_conv_and_deepcopy():
    torch.manual_seed(14)
    ct = torch.nn.Conv2d(2, 3, 2, dtype=torch.float64)
    cd = dl.nn.Conv2d(2, 3, 2, dtype=dl.float64)
    _copy_state(ct, cd)
    torch.nn.utils.weight_norm(ct)
    dl.nn.utils.weight_norm(cd)
    assert list(cd.state_dict()) == list(ct.state_dict())
    _compare_models(ct, cd, (1, 2, 4, 4))
    # (torch 1.13 cannot deepcopy it: its weight attribute is not a leaf)
    cd2 = copy.deepcopy(cd)
    assert cd2.weight_v is not cd.weight_v
    ct.zero_grad(set_to_none=True)
    _compare_models(ct, cd2, (1, 2, 4, 4), seed=3)
    assert cd.weight_v.grad is not None and cd2.weight_v.grad is not cd.weight_v.grad


@pytest.mark.parametrize('training', [True, False])
def test_spectral_norm_hook(training):
    torch.manual_seed(15)
    mt = torch.nn.Linear(5, 3, dtype=torch.float64)
    md = dl.nn.Linear(5, 3, dtype=dl.float64)
    torch.nn.utils.spectral_norm(mt, n_power_iterations=2)
    dl.nn.utils.spectral_norm(md, n_power_iterations=2)
    assert repr(md) == repr(mt)
    assert list(md.state_dict()) == list(mt.state_dict()) == [
        'bias', 'weight_orig', 'weight_u', 'weight_v']
    _copy_state(mt, md)  # torch's u and v
    mt.train(training)
    md.train(training)
    _compare_models(mt, md, (2, 5))
    for k in ('weight_u', 'weight_v'):
        _same(mt.state_dict()[k], md.state_dict()[k])
    _same(mt.weight, md.weight)
    _removed_as_torch(mt, md, 'spectral_norm')
    for lib in LIBS:
        with pytest.raises(ValueError) as e:
            lib.nn.utils.spectral_norm(lib.nn.Linear(2, 2), n_power_iterations=0)
        assert 'Expected n_power_iterations to be positive' in str(e.value)


# ---- functional_call, skip_init, load_state_dict post hooks ----------------

def test_functional_call():
    mt, md = _linear_pair(seed=16)
    rng = np.random.default_rng(0)
    w, b, x = rng.standard_normal((3, 3)), rng.standard_normal(3), rng.standard_normal((2, 3))
    outs, grads = [], []
    for lib, m in ((torch, mt), (dl, md)):
        before = m.weight.detach().clone()
        wt = lib.tensor(w, dtype=lib.float64, requires_grad=True)
        out = lib.nn.utils.stateless.functional_call(
            m, {'weight': wt, 'bias': lib.tensor(b, dtype=lib.float64)},
            (lib.tensor(x, dtype=lib.float64),))
        out.sum().backward()
        outs.append(out)
        grads.append(wt.grad)
        assert m.weight.grad is None
        _same(m.weight, before)
        assert type(m) is lib.nn.Linear
        assert m.weight is not wt
    _same(*outs)
    _same(*grads)
    np.testing.assert_allclose(_np(outs[1]), x @ w.T + b, rtol=1e-12)
    # nested modules and a single argument that is not a tuple
    st = torch.nn.Sequential(mt, torch.nn.ReLU())
    sd = dl.nn.Sequential(md, dl.nn.ReLU())
    outs = [lib.nn.utils.stateless.functional_call(
        s, {'0.bias': lib.zeros(3, dtype=lib.float64)}, lib.tensor(x, dtype=lib.float64))
        for lib, s in ((torch, st), (dl, sd))]
    _same(*outs)
    np.testing.assert_allclose(_np(outs[1]), np.maximum(x @ _np(md.weight).T, 0), rtol=1e-12)


def test_skip_init():
    m = dl.nn.utils.skip_init(dl.nn.Linear, 4, 2, dtype=dl.float64)
    assert type(m) is dl.nn.Linear
    assert tuple(m.weight.shape) == (2, 4) and m.weight.dtype == dl.float64
    assert m.weight.device.type == 'cpu' and isinstance(m.weight, dl.nn.Parameter)
    for lib in LIBS:
        with pytest.raises(RuntimeError) as e:
            lib.nn.utils.skip_init(int)
        assert str(e.value) == "Expected a Module; got <class 'int'>"
        with pytest.raises(RuntimeError) as e:
            lib.nn.utils.skip_init(lib.nn.ReLU)
        assert str(e.value) == "Module must support a 'device' arg to skip initialization"


def test_load_state_dict_post_hook():
    def run(lib):
        seq = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.Linear(2, 1))
        log = []

        def forgive(module, keys):
            log.append((type(module).__name__, list(keys.missing_keys),
                        list(keys.unexpected_keys)))
            keys.missing_keys.clear()
        seq[1].register_load_state_dict_post_hook(
            lambda m, k: log.append(('child', list(k.missing_keys))))
        handle = seq.register_load_state_dict_post_hook(forgive)
        state = {k: v for k, v in seq.state_dict().items() if k != '1.bias'}
        result = seq.load_state_dict(state)
        log.append(repr(result))
        handle.remove()
        with pytest.raises(RuntimeError) as e:
            seq.load_state_dict(state)
        log.append(str(e.value))
        seq.register_load_state_dict_post_hook(lambda m, k: 1)
        with pytest.raises(AssertionError) as e:
            seq.load_state_dict(seq.state_dict())
        log.append(str(e.value))
        return log
    assert run(dl) == run(torch)


# ---- nn.init ---------------------------------------------------------------------

def test_init_sparse_and_deprecated():
    dl.manual_seed(0)
    t = dl.empty(10, 6, dtype=dl.float64)
    assert dl.nn.init.sparse_(t, 0.35, std=0.5) is t
    a = _np(t)
    assert ((a == 0).sum(axis=0) == 4).all()  # ceil(0.35 * 10) in each column
    assert 0.2 < a[a != 0].std() < 1.0
    for lib in LIBS:
        with pytest.raises(ValueError) as e:
            lib.nn.init.sparse_(lib.empty(3), 0.1)
        assert str(e.value) == 'Only tensors with 2 dimensions are supported'
    for name, args in (('eye', (dl.empty(2, 3),)), ('dirac', (dl.empty(2, 2, 3),)),
                       ('sparse', (dl.empty(4, 2), 0.5))):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            getattr(dl.nn.init, name)(*args)
        assert str(w[0].message) == ('nn.init.{0} is now deprecated in favor of '
                                     'nn.init.{0}_.'.format(name))
    _same(dl.nn.init.eye(dl.empty(2, 3)), torch.eye(2, 3))
    assert dl.nn.init.Tensor is dl.Tensor


def test_error_in_a_parametrization_reaches_the_caller():
    # raised while the C forward computes the weight: the same exception,
    # with and without hooks, and the module works afterwards
    got = []
    for lib in (torch, dl):
        class Boom(lib.nn.Module):
            fail = False

            def forward(self, X):
                if self.fail:
                    raise KeyError('boom')
                return X
        m, b = lib.nn.Linear(2, 2), Boom()
        lib.nn.utils.parametrize.register_parametrization(m, 'weight', b)
        b.fail = True
        for hooked in (False, True):
            if hooked:
                m.register_forward_hook(lambda *args: None)
            with pytest.raises(KeyError) as e:
                m(lib.zeros(1, 2))
            got.append(str(e.value))
        b.fail = False
        got.append(tuple(m(lib.ones(1, 2)).shape))
    assert got[:3] == got[3:] == ["'boom'", "'boom'", (1, 2)]


def test_training_steps_as_torch():
    # a Sequential with a spectral-normed (parametrization) and a
    # weight-normed (hook) layer, three SGD steps from the same state
    def build(lib):
        seq = lib.nn.Sequential(lib.nn.Linear(4, 5, dtype=lib.float64), lib.nn.Tanh(),
                                lib.nn.Linear(5, 2, dtype=lib.float64))
        lib.nn.utils.parametrizations.spectral_norm(seq[0])
        lib.nn.utils.weight_norm(seq[2])
        return seq
    torch.manual_seed(17)
    st, sd = build(torch), build(dl)
    assert list(sd.state_dict()) == list(st.state_dict())
    _copy_state(st, sd)
    ot = torch.optim.SGD(st.parameters(), lr=0.1, momentum=0.9)
    od = dl.optim.SGD(sd.parameters(), lr=0.1, momentum=0.9)
    rng = np.random.default_rng(5)
    for _ in range(3):
        x = rng.standard_normal((3, 4))
        for lib, s, opt in ((torch, st, ot), (dl, sd, od)):
            opt.zero_grad()
            s(lib.tensor(x, dtype=lib.float64)).square().sum().backward()
            opt.step()
        for k, v in st.state_dict().items():
            _same(v, sd.state_dict()[k], rtol=1e-9)


def test_hook_forms_pickle():
    # the copy's C forward reads the weight its own hook computes
    import pickle
    dl.manual_seed(3)
    for m, x in ((dl.nn.utils.weight_norm(dl.nn.Linear(3, 2)), dl.randn(4, 3)),
                 (dl.nn.utils.spectral_norm(dl.nn.Conv2d(2, 3, 3)).eval(), dl.randn(1, 2, 5, 5))):
        m2 = pickle.loads(pickle.dumps(m))
        assert type(m2) is type(m) and list(m2.state_dict()) == list(m.state_dict())
        _same(m(x), m2(x))
        with dl.no_grad():
            next(iter(m2.parameters())).mul_(2)  # the copy's own tensors
        assert not np.allclose(_np(m(x)), _np(m2(x)))
