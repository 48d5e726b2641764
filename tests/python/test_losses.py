# test_losses.py: every loss of nn and nn.functional against torch's: the
# loss, its gradients (input and, where torch has one, target) and its
# second derivatives, for each reduction and option, on several shapes
# (batch 1 and odd batches, spatial inputs), contiguous or not, in float32
# and float64; the errors torch raises for bad input; the modules' options,
# reprs and agreement with the functions.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import warnings

import numpy as np
import pytest
import torch

from conftest import Dl, assert_same, pair

F, tF = Dl.nn.functional, torch.nn.functional
nn, tnn = Dl.nn, torch.nn

pytestmark = pytest.mark.filterwarnings('ignore:reduction:UserWarning',
                                        'ignore:Using a target size:UserWarning')

REDUCTIONS = ['none', 'mean', 'sum']
SHAPES = [(1, 4), (7, 3), (5, 3, 4)]


def probs(rng, shape):
    return rng.uniform(0.02, 0.98, shape)


def normal(rng, shape):
    return rng.normal(size=shape)


# name: (input data, target data, differentiable in the target, options)
ELEMENTWISE = {
    'mse_loss': (normal, normal, True, [{}]),
    'l1_loss': (normal, normal, True, [{}]),
    'smooth_l1_loss': (normal, normal, True, [{}, {'beta': 0.4}, {'beta': 0.0}, {'beta': 2.5}]),
    'huber_loss': (normal, normal, True, [{}, {'delta': 0.3}, {'delta': 3.0}]),
    'binary_cross_entropy': (probs, probs, False, [{}, {'weight': 'w'}]),
    'binary_cross_entropy_with_logits': (lambda r, s: 4 * normal(r, s), probs, True,
                                         [{}, {'weight': 'w'}, {'pos_weight': 'p'},
                                          {'weight': 'w', 'pos_weight': 'p'}]),
    'kl_div': (lambda r, s: np.log(probs(r, s)), probs, True,
               [{}, {'log_target': True}]),
}


def options(rng, opts, shape, dtype):
    """The options with 'w' (a weight per element) and 'p' (a pos_weight
    per class, the last dim) drawn as (libdl, torch) tensors."""
    ours, theirs = {}, {}
    for k, v in opts.items():
        if v == 'w':
            ours[k], theirs[k] = pair(rng.uniform(0.2, 2, shape), dtype)
        elif v == 'p':
            ours[k], theirs[k] = pair(rng.uniform(0.2, 3, shape[-1:]), dtype)
        else:
            ours[k] = theirs[k] = v
    return ours, theirs


def inputs(rng, data, shape, dtype, contiguous):
    """(libdl leaf, torch leaf, libdl tensor, torch tensor): the tensors
    given to the loss are the leaves, or transposed views of them."""
    a = data(rng, shape if contiguous else shape[:-2] + shape[-1:] + shape[-2:-1])
    x, t = pair(a, dtype, requires_grad=True)
    if contiguous:
        return x, t, x, t
    return x, t, x.transpose(-1, -2), t.transpose(-1, -2)


def check_grads(loss, tloss, leaves, tleaves, dtype, second=False):
    """First derivatives (and with second, the derivatives of
    <first derivatives, v>) of loss against torch's."""
    g = np.random.default_rng(1).uniform(0.5, 1.5, tuple(tloss.shape))
    gx, gt = pair(g, dtype)
    firsts = Dl.autograd.grad(loss, leaves, gx, create_graph=second)
    tfirsts = torch.autograd.grad(tloss, tleaves, gt, create_graph=second)
    tol = {} if dtype == 'float64' else {'rtol': 2e-4, 'atol': 1e-5}
    for f, tf in zip(firsts, tfirsts):
        assert_same(f, tf, **tol)
    if not second:
        return
    v = [np.random.default_rng(2).normal(size=tuple(tf.shape)) for tf in tfirsts]
    pv = [pair(a, dtype) for a in v]
    s = sum((f * p[0]).sum() for f, p in zip(firsts, pv))
    ts = sum((tf * p[1]).sum() for tf, p in zip(tfirsts, pv))
    if not ts.requires_grad:
        # torch's first derivatives are constant in the inputs (kl_div's)
        assert not s.requires_grad or all(
            sd is None or not sd.any() for sd in Dl.autograd.grad(s, leaves, allow_unused=True))
        return
    tseconds = torch.autograd.grad(ts, tleaves, allow_unused=True)
    if not s.requires_grad:
        # first derivatives constant in the inputs (l1's): torch's second
        # derivatives are zeros
        assert all(t is None or not t.any() for t in tseconds)
        return
    seconds = Dl.autograd.grad(s, leaves, allow_unused=True)
    # second derivatives like BCE's y / x^2 + (1 - y) / (1 - x)^2 lose
    # digits to cancellation near 0 and 1, so their float64 results agree
    # to about 1e-10 relative, not to the last few ulps
    tol2 = {'rtol': 1e-8, 'atol': 1e-10} if dtype == 'float64' else tol
    for sd, tsd in zip(seconds, tseconds):
        if tsd is None:
            continue
        assert sd is not None
        assert_same(sd, tsd, **tol2)


@pytest.mark.parametrize('name', sorted(ELEMENTWISE))
@pytest.mark.parametrize('reduction', REDUCTIONS)
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_elementwise_losses(rng, name, reduction, dtype):
    xdata, ydata, target_grad, variants = ELEMENTWISE[name]
    for shape in SHAPES:
        for contiguous in (True, False):
            for opts in variants:
                ours, theirs = options(rng, opts, shape, dtype)
                lx, lt, x, t = inputs(rng, xdata, shape, dtype, contiguous)
                ly, lu, y, u = inputs(rng, ydata, shape, dtype, contiguous)
                if not target_grad:
                    ly.requires_grad_(False)
                    lu.requires_grad_(False)
                loss = getattr(F, name)(x, y, reduction=reduction, **ours)
                tloss = getattr(tF, name)(t, u, reduction=reduction, **theirs)
                msg = '%s %s %s %s: ' % (name, shape, opts, 'contiguous' if contiguous else 't')
                assert_same(loss, tloss, msg=msg, **({} if dtype == 'float64' else
                                                       {'rtol': 1e-5, 'atol': 1e-6}))
                leaves, tleaves = ([lx, ly], [lt, lu]) if target_grad else ([lx], [lt])
                check_grads(loss, tloss, leaves, tleaves, dtype,
                            second=dtype == 'float64' and shape == (7, 3))


# cross_entropy and nll_loss: (input shape, target shape)
CLASS_SHAPES = [((1, 4), (1,)), ((7, 3), (7,)), ((3, 4, 5), (3, 5)), ((2, 3, 2, 3), (2, 2, 3)),
                ((4,), ())]
CLASS_OPTIONS = [{}, {'weight': 'w'}, {'ignore_index': 1}, {'ignore_index': -100, 'ignored': True},
                 {'weight': 'w', 'ignore_index': 0}]
SMOOTHING = [{'label_smoothing': 0.2}, {'label_smoothing': 0.1, 'weight': 'w'},
             {'label_smoothing': 0.3, 'weight': 'w', 'ignored': True}]


def class_case(rng, xshape, yshape, opts, dtype, log_probs=False):
    n_classes = xshape[1] if len(xshape) > 1 else xshape[0]
    a = rng.normal(size=xshape) * 2
    if log_probs:
        a = a - np.log(np.exp(a).sum(axis=1 if len(xshape) > 1 else 0, keepdims=True))
    x, t = pair(a, dtype, requires_grad=True)
    target = rng.integers(0, n_classes, yshape)
    opts = dict(opts)
    if opts.pop('ignored', False) and target.size > 1:
        target.flat[1] = opts.get('ignore_index', -100)
    y, u = pair(np.asarray(target, dtype=np.int64), 'int64')
    ours, theirs = dict(opts), dict(opts)
    if opts.get('weight') == 'w':
        ours['weight'], theirs['weight'] = pair(rng.uniform(0.2, 2, n_classes), dtype)
    return x, t, y, u, ours, theirs


@pytest.mark.parametrize('name', ['cross_entropy', 'nll_loss'])
@pytest.mark.parametrize('reduction', REDUCTIONS)
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_class_index_losses(rng, name, reduction, dtype):
    variants = CLASS_OPTIONS + (SMOOTHING if name == 'cross_entropy' else [])
    for xshape, yshape in CLASS_SHAPES:
        for opts in variants:
            x, t, y, u, ours, theirs = class_case(rng, xshape, yshape, opts, dtype,
                                                  log_probs=name == 'nll_loss')
            loss = getattr(F, name)(x, y, reduction=reduction, **ours)
            tloss = getattr(tF, name)(t, u, reduction=reduction, **theirs)
            assert_same(loss, tloss, msg='%s %s %s: ' % (name, xshape, opts),
                        **({} if dtype == 'float64' else {'rtol': 1e-5, 'atol': 1e-6}))
            check_grads(loss, tloss, [x], [t], dtype,
                        second=dtype == 'float64' and name == 'cross_entropy')


@pytest.mark.parametrize('reduction', REDUCTIONS)
@pytest.mark.parametrize('opts', [{}, {'label_smoothing': 0.25}, {'weight': 'w'},
                                  {'weight': 'w', 'label_smoothing': 0.1}])
def test_cross_entropy_probability_targets(rng, reduction, opts):
    for xshape in [(5, 3), (2, 4, 3), (4,)]:
        x, t, _, _, ours, theirs = class_case(rng, xshape, xshape[:1], opts, 'float64')
        axis = 1 if len(xshape) > 1 else 0
        p = rng.uniform(0.1, 1, xshape)
        y, u = pair(p / p.sum(axis=axis, keepdims=True), 'float64', requires_grad=True)
        loss = F.cross_entropy(x, y, reduction=reduction, **ours)
        tloss = tF.cross_entropy(t, u, reduction=reduction, **theirs)
        assert_same(loss, tloss)
        check_grads(loss, tloss, [x, y], [t, u], 'float64', second=True)


def test_cross_entropy_non_contiguous(rng):
    a = rng.normal(size=(4, 6))
    x, t = pair(a, 'float32', requires_grad=True)
    y, u = pair(rng.integers(0, 4, 6), 'int64')
    loss = F.cross_entropy(x.t(), y, label_smoothing=0.1)
    tloss = tF.cross_entropy(t.t(), u, label_smoothing=0.1)
    assert_same(loss, tloss)
    check_grads(loss, tloss, [x], [t], 'float32')


def test_all_ignored_mean_is_nan():
    x, t = pair(np.zeros((2, 3)), 'float32')
    y, u = pair(np.array([-100, -100]), 'int64')
    assert_same(F.cross_entropy(x, y), tF.cross_entropy(t, u))
    assert_same(F.nll_loss(x, y, reduction='sum'), tF.nll_loss(t, u, reduction='sum'))


def test_extreme_values(rng):
    # logits far beyond exp's range, probabilities of exactly 0 and 1
    x, t = pair(np.array([[-1000.0, 1000.0, 0.0], [50.0, -50.0, 1e-8]]), 'float32',
                requires_grad=True)
    y, u = pair(np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 0.5]]), 'float32')
    for kw in [{}, {'pos_weight': pair(np.array([2.0, 0.5, 1.0]), 'float32')}]:
        ours = {k: v[0] for k, v in kw.items()}
        theirs = {k: v[1] for k, v in kw.items()}
        loss = F.binary_cross_entropy_with_logits(x, y, reduction='none', **ours)
        tloss = tF.binary_cross_entropy_with_logits(t, u, reduction='none', **theirs)
        assert_same(loss, tloss)
        check_grads(loss, tloss, [x], [t], 'float32')
    p, q = pair(np.array([0.0, 1.0, 0.5, 1e-30]), 'float64', requires_grad=True)
    z, w = pair(np.array([1.0, 0.0, 0.5, 0.0]), 'float64')
    assert_same(F.binary_cross_entropy(p, z, reduction='none'),
                tF.binary_cross_entropy(q, w, reduction='none'))
    # kl_div: 0 log 0 = 0
    a, b = pair(np.log(np.array([0.5, 0.25, 0.25])), 'float64')
    c, d = pair(np.array([0.0, 0.5, 0.5]), 'float64')
    assert_same(F.kl_div(a, c, reduction='sum'), tF.kl_div(b, d, reduction='sum'))


def test_kl_div_batchmean(rng):
    for shape in [(5, 4), (3, 2, 2)]:
        x, t = pair(np.log(probs(rng, shape)), 'float64', requires_grad=True)
        y, u = pair(probs(rng, shape), 'float64')
        for log_target in (False, True):
            loss = F.kl_div(x, y, reduction='batchmean', log_target=log_target)
            tloss = tF.kl_div(t, u, reduction='batchmean', log_target=log_target)
            assert_same(loss, tloss)
            check_grads(loss, tloss, [x], [t], 'float64', second=True)


def test_kl_div_mean_warns_as_torch():
    x, y = Dl.zeros(2, 3), Dl.ones(2, 3)
    with pytest.warns(UserWarning, match="'batchmean'"):
        F.kl_div(x, y)
    with pytest.warns(UserWarning, match="'batchmean'"):
        nn.KLDivLoss()(x, y)


def test_legacy_size_average_and_reduce(rng):
    x, t = pair(rng.normal(size=(3, 4)), 'float32')
    y, u = pair(rng.normal(size=(3, 4)), 'float32')
    for sa, r in [(False, None), (None, False), (True, True), (False, True)]:
        assert_same(F.mse_loss(x, y, size_average=sa, reduce=r),
                    tF.mse_loss(t, u, size_average=sa, reduce=r))
        assert_same(nn.L1Loss(sa, r)(x, y), tnn.L1Loss(sa, r)(t, u))


# ---- modules -----------------------------------------------------------------

MODULES = [
    ('MSELoss', 'mse_loss', {}, normal, normal),
    ('L1Loss', 'l1_loss', {'reduction': 'sum'}, normal, normal),
    ('SmoothL1Loss', 'smooth_l1_loss', {'beta': 0.5, 'reduction': 'none'}, normal, normal),
    ('HuberLoss', 'huber_loss', {'delta': 0.7}, normal, normal),
    ('BCELoss', 'binary_cross_entropy', {'weight': 'w'}, probs, probs),
    ('BCEWithLogitsLoss', 'binary_cross_entropy_with_logits',
     {'pos_weight': 'p', 'reduction': 'sum'}, normal, probs),
    ('KLDivLoss', 'kl_div', {'reduction': 'batchmean', 'log_target': True}, normal, normal),
]


@pytest.mark.parametrize('cls,fn,opts,xdata,ydata', MODULES)
def test_loss_modules(rng, cls, fn, opts, xdata, ydata):
    shape = (5, 3)
    ours, theirs = options(rng, opts, shape, 'float32')
    m, tm = getattr(nn, cls)(**ours), getattr(tnn, cls)(**theirs)
    assert repr(m) == repr(tm) == cls + '()'
    assert m.reduction == tm.reduction
    for k in ('beta', 'delta', 'log_target'):
        if hasattr(tm, k):
            assert getattr(m, k) == getattr(tm, k)
    x, t = pair(xdata(rng, shape), 'float32', requires_grad=True)
    y, u = pair(ydata(rng, shape), 'float32')
    loss, tloss = m(x, y), tm(t, u)
    assert_same(loss, tloss, rtol=1e-5, atol=1e-6)
    assert_same(loss, getattr(F, fn)(x, y, **ours))
    check_grads(loss, tloss, [x], [t], 'float32')


@pytest.mark.parametrize('cls', ['CrossEntropyLoss', 'NLLLoss'])
def test_class_loss_modules(rng, cls):
    opts = {'ignore_index': 2, 'reduction': 'sum'}
    if cls == 'CrossEntropyLoss':
        opts['label_smoothing'] = 0.15
    x, t, y, u, ours, theirs = class_case(rng, (6, 4), (6,), dict(opts, weight='w'), 'float64')
    m, tm = getattr(nn, cls)(**ours), getattr(tnn, cls)(**theirs)
    assert repr(m) == repr(tm) == cls + '()'
    assert (m.reduction, m.ignore_index) == (tm.reduction, tm.ignore_index)
    assert_same(m.weight, tm.weight)
    loss, tloss = m(x, y), tm(t, u)
    assert_same(loss, tloss)
    check_grads(loss, tloss, [x], [t], 'float64', second=True)


def test_module_defaults():
    for cls in ['MSELoss', 'L1Loss', 'SmoothL1Loss', 'HuberLoss', 'BCELoss', 'BCEWithLogitsLoss',
                'KLDivLoss', 'CrossEntropyLoss', 'NLLLoss']:
        m, tm = getattr(nn, cls)(), getattr(tnn, cls)()
        assert repr(m) == repr(tm)
        for k in ('reduction', 'beta', 'delta', 'log_target', 'ignore_index', 'label_smoothing',
                  'weight', 'pos_weight'):
            if hasattr(tm, k):
                assert getattr(m, k) == getattr(tm, k), (cls, k)


# ---- errors ------------------------------------------------------------------

def raises_as_torch(fn, match=None):
    """fn(F-like module, nn-like module, tensors...) raises the same
    exception class from libdl and torch."""
    with pytest.raises(Exception) as theirs:
        fn(tF, tnn, torch)
    with pytest.raises(type(theirs.value), match=match):
        fn(F, nn, Dl)


@pytest.mark.parametrize('case,match', [
    # target class out of range, negative, in a spatial target
    (lambda f, n, m: f.cross_entropy(m.zeros(2, 3), m.tensor([0, 5])), 'out of bounds'),
    (lambda f, n, m: f.nll_loss(m.zeros(2, 3), m.tensor([-1, 0])), 'out of bounds'),
    (lambda f, n, m: f.cross_entropy(m.zeros(2, 3, 4), m.full((2, 4), 3)), 'out of bounds'),
    (lambda f, n, m: n.CrossEntropyLoss(ignore_index=1)(m.zeros(2, 3), m.tensor([1, 3])),
     'out of bounds'),
    # wrong target dtype
    (lambda f, n, m: f.cross_entropy(m.zeros(2, 3), m.tensor([0, 1], dtype=m.int32)), 'Long'),
    (lambda f, n, m: f.nll_loss(m.zeros(2, 3), m.tensor([0.0, 1.0])), 'Long'),
    # shape mismatches
    (lambda f, n, m: f.cross_entropy(m.zeros(2, 3), m.tensor([0, 1, 1])), 'batch_size'),
    (lambda f, n, m: n.NLLLoss()(m.zeros(2, 3), m.tensor([0, 1, 1])), 'batch_size'),
    (lambda f, n, m: f.cross_entropy(m.zeros(2, 3, 4), m.zeros(2, 5, dtype=m.int64)),
     'target size'),
    (lambda f, n, m: f.cross_entropy(m.zeros(2, 3), m.zeros(2, 4)), 'multi-target'),
    (lambda f, n, m: f.cross_entropy(m.zeros(2, 3), m.tensor([0, 1]), weight=m.ones(4)),
     'weight tensor'),
    (lambda f, n, m: f.binary_cross_entropy(m.rand(3), m.rand(3, 1)), 'target size'),
    (lambda f, n, m: n.BCELoss()(m.rand(3), m.rand(3, 1)), 'target size'),
    (lambda f, n, m: f.binary_cross_entropy_with_logits(m.rand(3), m.rand(3, 1)), 'Target size'),
    (lambda f, n, m: n.BCEWithLogitsLoss()(m.rand(3), m.rand(4)), 'Target size'),
    (lambda f, n, m: f.mse_loss(m.rand(3), m.rand(4)), None),
    (lambda f, n, m: f.kl_div(m.rand(3), m.rand(4), reduction='sum'), None),
    # values and options
    (lambda f, n, m: f.binary_cross_entropy(m.rand(3) + 1, m.rand(3)), 'between 0 and 1'),
    (lambda f, n, m: f.mse_loss(m.rand(3), m.rand(3), reduction='avg'), 'not a valid value'),
    (lambda f, n, m: n.MSELoss(reduction='batchmean')(m.rand(3), m.rand(3)), 'not a valid'),
    (lambda f, n, m: f.cross_entropy(m.zeros(2, 3), m.tensor([0, 1]), label_smoothing=1.5),
     'label_smoothing'),
    (lambda f, n, m: f.smooth_l1_loss(m.rand(3), m.rand(3), beta=-1.0), 'negative'),
    (lambda f, n, m: f.huber_loss(m.rand(3), m.rand(3), delta=0.0), 'non-positive'),
])
def test_errors_as_torch(case, match):
    raises_as_torch(case, match)


@pytest.mark.parametrize('make', [
    lambda m, w: m.nn.CrossEntropyLoss(weight=w),
    lambda m, w: m.nn.NLLLoss(weight=w),
    lambda m, w: m.nn.BCELoss(weight=w),
    lambda m, w: m.nn.BCEWithLogitsLoss(weight=w, pos_weight=w * 2),
    lambda m, w: m.nn.BCEWithLogitsLoss(pos_weight=w),
    lambda m, w: m.nn.CrossEntropyLoss(),
    lambda m, w: m.nn.MSELoss(),
])
def test_loss_weights_are_buffers(make):
    w = np.array([0.5, 1.0, 2.0], np.float32)
    d, t = make(Dl, Dl.tensor(w)), make(torch, torch.tensor(w))
    assert list(d.state_dict()) == list(t.state_dict())
    assert [n for n, _ in d.named_buffers()] == [n for n, _ in t.named_buffers()]
    for k, v in t.state_dict().items():
        np.testing.assert_array_equal(d.state_dict()[k].numpy(), v.numpy())
    if 'weight' in t.state_dict():
        np.testing.assert_array_equal(d.weight.numpy(), w)
        # a new weight through the state dict is the one the loss uses
        d.load_state_dict({k: v * 3 for k, v in d.state_dict().items()})
        np.testing.assert_array_equal(d.weight.numpy(), w * 3)


@pytest.mark.parametrize('reduction', ['mean', 'sum', 'none'])
@pytest.mark.parametrize('tshape,tgrad', [((3, 4), False), ((3, 4), True), ((4,), True),
                                          ((2, 1, 4), True)])
def test_mse_loss_node(reduction, tshape, tgrad):
    """mse_loss records one MseLossBackward0 node, as torch's (the blitz
    tutorial prints loss.grad_fn and walks next_functions), over the
    broadcast pair (ExpandBackward0 where a shape grows); its gradients,
    and theirs (create_graph), are torch's."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 4))
    y = rng.standard_normal(tshape)
    (a, ta), (b, tb) = pair(x, 'float64', requires_grad=True), \
        pair(y, 'float64', requires_grad=tgrad)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        loss = Dl.nn.functional.mse_loss(a, b, reduction=reduction)
        tloss = torch.nn.functional.mse_loss(ta, tb, reduction=reduction)
    assert loss.grad_fn.name() == tloss.grad_fn.name() == 'MseLossBackward0'
    assert [n and n.name() for n, _ in loss.grad_fn.next_functions] == \
        [n and n.name() for n, _ in tloss.grad_fn.next_functions]
    assert_same(loss, tloss)
    g = rng.standard_normal(tuple(tloss.shape))
    (gd, gt) = pair(g, 'float64', requires_grad=True)
    ins, tins = [a] + [b] * tgrad, [ta] + [tb] * tgrad
    dg = Dl.autograd.grad(loss, ins, gd, create_graph=True)
    tg = torch.autograd.grad(tloss, tins, gt, create_graph=True)
    for p, q in zip(dg, tg):
        assert_same(p, q)
    sum(p.pow(2).sum() for p in dg).backward()
    sum(q.pow(2).sum() for q in tg).backward()
    assert_same(gd.grad, gt.grad)
    assert_same(a.grad, ta.grad)
    with Dl.no_grad():
        assert Dl.nn.functional.mse_loss(a, b).grad_fn is None
