# test_losses_more.py: the margin and embedding losses (cosine_embedding,
# margin_ranking, hinge_embedding, soft_margin, multilabel_soft_margin,
# multilabel_margin, multi_margin, triplet_margin,
# triplet_margin_with_distance) and the distances they use
# (cosine_similarity, pairwise_distance, pdist), functional and as modules,
# against PyTorch: values for each reduction, gradients, gradcheck, printed
# modules, state dicts and errors.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import numpy as np
import pytest
import torch

from conftest import Dl, assert_same, pair, rand_np

F = Dl.nn.functional
TF = torch.nn.functional
REDUCTIONS = ["mean", "sum", "none"]


def _pm1(rng, shape):
    return np.where(rng.random(shape) < 0.5, -1.0, 1.0)


def _check(rng, f, tf, arrays, name, grad_of=None, tol=None):
    """f and tf on (libdl, torch) pairs of @arrays (those whose index is in
    @grad_of require grad): same values, and the same gradients of
    sum(out * w)."""
    grad_of = range(len(arrays)) if grad_of is None else grad_of
    ps = [pair(a, name if a.dtype.kind == "f" else None, requires_grad=i in grad_of)
          for i, a in enumerate(arrays)]
    y = f(*[p[0] for p in ps])
    u = tf(*[p[1] for p in ps])
    assert_same(y, u, **(tol or {}))
    w = rng.standard_normal(tuple(u.shape))
    wx, wt = pair(w, name)
    (y * wx).sum().backward()
    (u * wt).sum().backward()
    for i in grad_of:
        assert_same(ps[i][0].grad, ps[i][1].grad, **(tol or {}))


NAMES = ["float32", "float64"]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", [(5, 4), (6,)])
def test_cosine_embedding_loss(rng, name, reduction, shape):
    a, b = rand_np(rng, shape, name), rand_np(rng, shape, name)
    y = _pm1(rng, shape[:-1])
    for margin in (0.0, 0.3):
        _check(rng, lambda p, q, r: F.cosine_embedding_loss(p, q, r, margin, reduction=reduction),
               lambda p, q, r: TF.cosine_embedding_loss(p, q, r, margin, reduction=reduction),
               [a, b, y], name, grad_of=[0, 1])


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", [(7,), (3, 4)])
def test_margin_ranking_loss(rng, name, reduction, shape):
    a, b, y = rand_np(rng, shape, name), rand_np(rng, shape, name), _pm1(rng, shape)
    for margin in (0.0, 0.5):
        _check(rng, lambda p, q, r: F.margin_ranking_loss(p, q, r, margin, reduction=reduction),
               lambda p, q, r: TF.margin_ranking_loss(p, q, r, margin, reduction=reduction),
               [a, b, y.astype(a.dtype)], name, grad_of=[0, 1])


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_hinge_embedding_loss(rng, name, reduction):
    a, y = rand_np(rng, (4, 5), name), _pm1(rng, (4, 5)).astype(name)
    for margin in (1.0, 0.2):
        _check(rng, lambda p, r: F.hinge_embedding_loss(p, r, margin, reduction=reduction),
               lambda p, r: TF.hinge_embedding_loss(p, r, margin, reduction=reduction),
               [a, y], name, grad_of=[0])


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_soft_margin_loss(rng, name, reduction):
    a, y = rand_np(rng, (3, 6), name), _pm1(rng, (3, 6)).astype(name)
    _check(rng, lambda p, r: F.soft_margin_loss(p, r, reduction=reduction),
           lambda p, r: TF.soft_margin_loss(p, r, reduction=reduction), [a, y], name,
           grad_of=[0])


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
def test_multilabel_soft_margin_loss(rng, name, reduction, weighted):
    a = rand_np(rng, (4, 5), name)
    y = (rng.random((4, 5)) < 0.4).astype(name)
    w = rand_np(rng, (5,), name, positive=True)
    if weighted:
        _check(rng, lambda p, r, q: F.multilabel_soft_margin_loss(p, r, q, reduction=reduction),
               lambda p, r, q: TF.multilabel_soft_margin_loss(p, r, q, reduction=reduction),
               [a, y, w], name, grad_of=[0])
    else:
        _check(rng, lambda p, r: F.multilabel_soft_margin_loss(p, r, reduction=reduction),
               lambda p, r: TF.multilabel_soft_margin_loss(p, r, reduction=reduction),
               [a, y], name, grad_of=[0, 1])


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_multilabel_margin_loss(rng, name, reduction):
    a = rand_np(rng, (4, 5), name)
    y = np.array([[3, 0, -1, 1, 2], [1, 2, 3, 4, 0], [-1, 2, 1, 0, 0], [4, 4, -1, -1, -1]])
    _check(rng, lambda p, r: F.multilabel_margin_loss(p, r, reduction=reduction),
           lambda p, r: TF.multilabel_margin_loss(p, r, reduction=reduction), [a, y], name,
           grad_of=[0])
    _check(rng, lambda p, r: F.multilabel_margin_loss(p, r, reduction=reduction),
           lambda p, r: TF.multilabel_margin_loss(p, r, reduction=reduction),
           [a[0], y[0]], name, grad_of=[0])


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("p,margin,weighted", [(1, 1.0, False), (2, 0.5, False),
                                               (1, 2.0, True), (2, 1.0, True)])
def test_multi_margin_loss(rng, name, reduction, p, margin, weighted):
    a = rand_np(rng, (6, 4), name)
    y = rng.integers(0, 4, 6)
    w = rand_np(rng, (4,), name, positive=True)
    if weighted:
        _check(rng, lambda x, t, q: F.multi_margin_loss(x, t, p, margin, q, reduction=reduction),
               lambda x, t, q: TF.multi_margin_loss(x, t, p, margin, q, reduction=reduction),
               [a, y, w], name, grad_of=[0])
    else:
        _check(rng, lambda x, t: F.multi_margin_loss(x, t, p, margin, reduction=reduction),
               lambda x, t: TF.multi_margin_loss(x, t, p, margin, reduction=reduction),
               [a, y], name, grad_of=[0])
    _check(rng, lambda x, t: F.multi_margin_loss(x, t, p, margin, reduction=reduction),
           lambda x, t: TF.multi_margin_loss(x, t, p, margin, reduction=reduction),
           [a[0], y[:1]], name, grad_of=[0])


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("p,swap", [(2, False), (1, True), (3, False), (2, True)])
def test_triplet_margin_loss(rng, name, reduction, p, swap):
    a, b, c = (rand_np(rng, (5, 3), name) for _ in range(3))
    _check(rng, lambda x, y, z: F.triplet_margin_loss(x, y, z, 0.7, p, swap=swap,
                                                      reduction=reduction),
           lambda x, y, z: TF.triplet_margin_loss(x, y, z, 0.7, p, swap=swap,
                                                  reduction=reduction),
           [a, b, c], name, tol={"rtol": 1e-4} if name == "float32" else None)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("swap", [False, True])
def test_triplet_margin_with_distance_loss(rng, reduction, swap):
    a, b, c = (rand_np(rng, (4, 6), "float64") for _ in range(3))
    _check(rng, lambda x, y, z: F.triplet_margin_with_distance_loss(x, y, z, swap=swap,
                                                                    reduction=reduction),
           lambda x, y, z: TF.triplet_margin_with_distance_loss(x, y, z, swap=swap,
                                                                reduction=reduction),
           [a, b, c], "float64")
    _check(rng, lambda x, y, z: F.triplet_margin_with_distance_loss(
               x, y, z, distance_function=lambda u, v: 1 - F.cosine_similarity(u, v),
               margin=0.5, swap=swap, reduction=reduction),
           lambda x, y, z: TF.triplet_margin_with_distance_loss(
               x, y, z, distance_function=lambda u, v: 1 - TF.cosine_similarity(u, v),
               margin=0.5, swap=swap, reduction=reduction),
           [a, b, c], "float64")


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("shapes,dim", [(((4, 5), (4, 5)), 1), (((3, 4, 2), (3, 4, 2)), 0),
                                        (((4, 5), (1, 5)), 1), (((6,), (6,)), 0)])
def test_cosine_similarity(rng, name, shapes, dim):
    a, b = (rand_np(rng, s, name) for s in shapes)
    _check(rng, lambda x, y: F.cosine_similarity(x, y, dim),
           lambda x, y: TF.cosine_similarity(x, y, dim), [a, b], name)
    _check(rng, lambda x, y: Dl.cosine_similarity(x, y, dim=dim),
           lambda x, y: torch.cosine_similarity(x, y, dim=dim), [a, b], name)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("p", [2.0, 1.0, 3.0])
@pytest.mark.parametrize("keepdim", [False, True])
def test_pairwise_distance(rng, name, p, keepdim):
    a, b = rand_np(rng, (5, 3), name), rand_np(rng, (5, 3), name)
    _check(rng, lambda x, y: F.pairwise_distance(x, y, p, keepdim=keepdim),
           lambda x, y: TF.pairwise_distance(x, y, p, keepdim=keepdim), [a, b], name,
           tol={"rtol": 1e-4} if name == "float32" else None)
    _check(rng, lambda x, y: Dl.pairwise_distance(x, y, p),
           lambda x, y: torch.pairwise_distance(x, y, p), [a, b[0]], name,
           tol={"rtol": 1e-4} if name == "float32" else None)


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0])
def test_pdist(rng, p):
    a = rand_np(rng, (5, 3), "float64")
    _check(rng, lambda x: Dl.pdist(x, p), lambda x: torch.pdist(x, p), [a], "float64")
    _check(rng, lambda x: F.pdist(x, p), lambda x: TF.pdist(x, p), [a], "float64")
    x, t = pair(rand_np(rng, (4,), "float64"))
    with pytest.raises(RuntimeError):
        torch.pdist(t)
    with pytest.raises(RuntimeError):
        Dl.pdist(x)


def test_noncontiguous_inputs(rng):
    a, b = rand_np(rng, (4, 6), "float64"), rand_np(rng, (4, 6), "float64")
    (x, t), (z, u) = pair(a), pair(b)
    y, v = pair(_pm1(rng, (6,)))
    assert_same(F.cosine_embedding_loss(x.t(), z.t(), y),
                TF.cosine_embedding_loss(t.t(), u.t(), v))
    assert_same(F.triplet_margin_loss(x.t(), z.t(), x.t().flip(0)),
                TF.triplet_margin_loss(t.t(), u.t(), t.t().flip(0)))
    assert_same(F.soft_margin_loss(x.t(), z.t()), TF.soft_margin_loss(t.t(), u.t()))
    assert_same(F.cosine_similarity(x.t(), z.t()), TF.cosine_similarity(t.t(), u.t()))


def test_gradcheck(rng):
    def d(*shape):
        return Dl.from_numpy(rand_np(rng, shape, "float64")).requires_grad_(True)
    y = Dl.from_numpy(_pm1(rng, (4,)))
    gc = Dl.autograd.gradcheck
    assert gc(lambda a, b: F.cosine_embedding_loss(a, b, y, 0.2), (d(4, 3), d(4, 3)))
    assert gc(lambda a, b: F.margin_ranking_loss(a, b, y, 0.1), (d(4), d(4)))
    assert gc(lambda a: F.hinge_embedding_loss(a, y), (d(4),))
    assert gc(lambda a: F.soft_margin_loss(a, y), (d(4),))
    assert gc(lambda a: F.multilabel_soft_margin_loss(a, (y > 0).double().expand(3, 4)),
              (d(3, 4),))
    t = Dl.tensor([[1, 0, -1, 2], [3, 2, 1, 0], [0, -1, 0, 0]])
    assert gc(lambda a: F.multilabel_margin_loss(a, t), (d(3, 4),))
    assert gc(lambda a: F.multi_margin_loss(a, Dl.tensor([0, 3, 1]), p=2), (d(3, 4),))
    assert gc(lambda a, b, c: F.triplet_margin_loss(a, b, c, swap=True),
              (d(3, 4), d(3, 4), d(3, 4)))
    assert gc(lambda a, b: F.cosine_similarity(a, b), (d(3, 4), d(3, 4)))
    assert gc(lambda a, b: F.pairwise_distance(a, b), (d(3, 4), d(3, 4)))
    assert gc(lambda a: Dl.pdist(a), (d(4, 3),))


LOSS_MODULES = [
    ("CosineEmbeddingLoss", (), {}, 3), ("CosineEmbeddingLoss", (0.5,), {"reduction": "sum"}, 3),
    ("MarginRankingLoss", (), {}, 3), ("MarginRankingLoss", (0.2,), {"reduction": "none"}, 3),
    ("HingeEmbeddingLoss", (), {}, 2), ("HingeEmbeddingLoss", (2.0,), {"reduction": "sum"}, 2),
    ("SoftMarginLoss", (), {}, 2), ("MultiLabelSoftMarginLoss", (), {}, 2),
    ("MultiLabelMarginLoss", (), {"reduction": "none"}, 2), ("MultiMarginLoss", (), {}, 2),
    ("MultiMarginLoss", (2, 0.5), {}, 2), ("TripletMarginLoss", (), {}, 3),
    ("TripletMarginLoss", (0.5, 1.0), {"swap": True}, 3),
    ("TripletMarginWithDistanceLoss", (), {"margin": 2.0}, 3),
    ("CosineSimilarity", (), {}, 2), ("PairwiseDistance", (), {"keepdim": True}, 2),
]


def _inputs(rng, cls):
    a, b, c = (rand_np(rng, (4, 5), "float32") for _ in range(3))
    if cls in ("CosineEmbeddingLoss",):
        return [a, b, _pm1(rng, (4,)).astype(np.float32)]
    if cls == "MarginRankingLoss":
        return [a[:, 0], b[:, 0], _pm1(rng, (4,)).astype(np.float32)]
    if cls in ("HingeEmbeddingLoss", "SoftMarginLoss"):
        return [a, _pm1(rng, (4, 5)).astype(np.float32)]
    if cls == "MultiLabelSoftMarginLoss":
        return [a, (b > 0).astype(np.float32)]
    if cls == "MultiLabelMarginLoss":
        return [a, np.array([[1, 2, -1, 0, 0]] * 4)]
    if cls == "MultiMarginLoss":
        return [a, np.array([0, 4, 2, 1])]
    if cls in ("CosineSimilarity", "PairwiseDistance"):
        return [a, b]
    return [a, b, c]


@pytest.mark.parametrize("cls,args,kwargs,n", LOSS_MODULES,
                         ids=["%s%r%r" % m[:3] for m in LOSS_MODULES])
def test_modules(rng, cls, args, kwargs, n):
    m = getattr(Dl.nn, cls)(*args, **kwargs)
    tm = getattr(torch.nn, cls)(*args, **kwargs)
    assert repr(m) == repr(tm)
    assert list(m.state_dict()) == list(tm.state_dict())
    ins = _inputs(rng, cls)
    ps = [pair(a) for a in ins]
    assert_same(m(*[p[0] for p in ps]), tm(*[p[1] for p in ps]), rtol=1e-4)
    if hasattr(tm, "reduction"):
        assert m.reduction == tm.reduction


def test_weighted_modules_state_dict(rng):
    w = rand_np(rng, (5,), "float32", positive=True)
    (x, t) = pair(w)
    for cls in ("MultiMarginLoss", "MultiLabelSoftMarginLoss"):
        m = getattr(Dl.nn, cls)(weight=x)
        tm = getattr(torch.nn, cls)(weight=t)
        assert list(m.state_dict()) == list(tm.state_dict()) == ["weight"]
        assert repr(m) == repr(tm)
        ins = _inputs(rng, cls)
        ps = [pair(a) for a in ins]
        assert_same(m(*[p[0] for p in ps]), tm(*[p[1] for p in ps]), rtol=1e-4)


def test_legacy_reduction_flags(rng):
    a, b = rand_np(rng, (3, 4), "float64"), _pm1(rng, (3, 4))
    (x, t), (y, u) = pair(a), pair(b)
    for sa, r in [(False, None), (None, False), (True, True)]:
        with pytest.warns(UserWarning, match="size_average and reduce"):
            expected = TF.soft_margin_loss(t, u, size_average=sa, reduce=r)
        with pytest.warns(UserWarning, match="size_average and reduce"):
            assert_same(F.soft_margin_loss(x, y, size_average=sa, reduce=r), expected)
    with pytest.warns(UserWarning):
        assert Dl.nn.SoftMarginLoss(size_average=False).reduction == "sum"


def test_errors_as_torch(rng):
    def both(f, tf, *arrays, exc=None):
        ps = [pair(a) for a in arrays]
        with pytest.raises(Exception) as te:
            tf(*[p[1] for p in ps])
        with pytest.raises(exc or te.type):
            f(*[p[0] for p in ps])

    a = rand_np(rng, (3, 4), "float64")
    both(lambda x, y, z: F.margin_ranking_loss(x, y, z), lambda x, y, z:
         TF.margin_ranking_loss(x, y, z), a, a, a[0])
    both(lambda x, y, z: F.cosine_embedding_loss(x, y, z), lambda x, y, z:
         TF.cosine_embedding_loss(x, y, z), a, a, a)
    both(lambda x, y, z: F.triplet_margin_loss(x, y, z), lambda x, y, z:
         TF.triplet_margin_loss(x, y, z), a, a, a[0])
    both(lambda x, y: F.multi_margin_loss(x, y, p=3), lambda x, y:
         TF.multi_margin_loss(x, y, p=3), a, np.array([0, 1, 2]))
    both(lambda x, y: F.soft_margin_loss(x, y, reduction="avg"),
         lambda x, y: TF.soft_margin_loss(x, y, reduction="avg"), a, a)
    both(lambda x, y, z: F.triplet_margin_with_distance_loss(x, y, z, reduction='all'),
         lambda x, y, z: TF.triplet_margin_with_distance_loss(x, y, z, reduction='all'),
         a, a, a)
    with pytest.raises(ValueError):
        torch.nn.MultiMarginLoss(p=3)
    with pytest.raises(ValueError):
        Dl.nn.MultiMarginLoss(p=3)
