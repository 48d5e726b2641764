# test_nn_optim.py: nn.Module, nn.Linear, losses and optim.SGD compared
# against PyTorch with identical weights and data.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import math

import numpy as np
import pytest
import torch

from conftest import Dl, assert_same, dl_from_np, pair, rand_pair, th_from_np, to_np

nn, F = Dl.nn, Dl.nn.functional
tnn, tF = torch.nn, torch.nn.functional


def copy_params(m, tm):
    """Copies torch module tm's parameters into libdl module m, by name."""
    tparams = dict(tm.named_parameters())
    names = [n for n, _ in m.named_parameters()]
    assert sorted(names) == sorted(tparams)
    with Dl.no_grad():
        for n, p in m.named_parameters():
            p.copy_(Dl.from_numpy(tparams[n].detach().numpy().copy()))


def assert_params_same(m, tm, **tol):
    tparams = dict(tm.named_parameters())
    for n, p in m.named_parameters():
        assert_same(p, tparams[n], msg="parameter %s: " % n, **tol)


# ---- Linear -------------------------------------------------------------------

@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("in_shape", [(7, 5), (5,), (2, 3, 5), (0, 5)], ids=str)
def test_linear_forward_backward(rng, bias, in_shape):
    torch.manual_seed(0)
    tm = tnn.Linear(5, 3, bias=bias)
    m = nn.Linear(5, 3, bias=bias)
    assert m.in_features == 5 and m.out_features == 3
    assert tuple(m.weight.shape) == (3, 5)
    assert m.weight.requires_grad and m.weight.is_leaf
    if bias:
        assert tuple(m.bias.shape) == (3,)
    else:
        assert m.bias is None
    copy_params(m, tm)
    x, t = rand_pair(rng, in_shape)
    x.requires_grad_()
    t.requires_grad_()
    y, u = m(x), tm(t)
    assert_same(y, u)
    assert_same(m.forward(x), u)
    assert y.grad_fn is not None
    g = rng.standard_normal(tuple(u.shape)).astype(np.float32)
    y.backward(dl_from_np(g))
    u.backward(th_from_np(g))
    assert_same(x.grad, t.grad)
    assert_params_same(m, tm)
    tgrads = {n: p.grad for n, p in tm.named_parameters()}
    for n, p in m.named_parameters():
        assert_same(p.grad, tgrads[n], msg=n + ".grad: ")


def test_linear_default_init():
    Dl.manual_seed(0)
    m = nn.Linear(400, 300)
    w, b = to_np(m.weight), to_np(m.bias)
    bound = 1 / math.sqrt(400)
    assert np.abs(w).max() <= bound and np.abs(b).max() <= bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.05 * bound
    assert abs(w.mean()) < 0.02 * bound
    assert len(np.unique(w)) > 100000
    m2 = nn.Linear(400, 300)
    assert not np.array_equal(to_np(m2.weight), w)


def test_linear_parameters():
    m, tm = nn.Linear(4, 2), tnn.Linear(4, 2)
    assert [n for n, _ in m.named_parameters()] == [n for n, _ in tm.named_parameters()]
    ps = list(m.parameters())
    assert len(ps) == 2
    assert ps[0] is m.weight or ps[0].data_ptr() == m.weight.data_ptr()
    assert list(m.children()) == []


def test_functional_relu_log_softmax(rng):
    x, t = rand_pair(rng, (4, 6))
    assert_same(F.relu(x), tF.relu(t))
    assert_same(F.log_softmax(x, dim=1), tF.log_softmax(t, dim=1))
    assert_same(F.softmax(x, dim=0), tF.softmax(t, dim=0))
    assert_same(F.log_softmax(x, 0), tF.log_softmax(t, 0))
    assert_same(nn.ReLU()(x), tnn.ReLU()(t))


# ---- losses ---------------------------------------------------------------------

@pytest.mark.parametrize("n,c", [(8, 5), (1, 3), (32, 10), (5, 1)])
def test_cross_entropy(rng, n, c):
    logits = rng.standard_normal((n, c)).astype(np.float32) * 3
    target = rng.integers(0, c, size=n).astype(np.int64)
    x, t = pair(logits)
    x.requires_grad_()
    t.requires_grad_()
    yt, ut = pair(target)
    loss, tloss = F.cross_entropy(x, yt), tF.cross_entropy(t, ut)
    assert_same(loss, tloss)
    assert loss.shape == ()
    loss.backward()
    tloss.backward()
    assert_same(x.grad, t.grad)
    crit, tcrit = nn.CrossEntropyLoss(), tnn.CrossEntropyLoss()
    assert_same(crit(x, yt), tcrit(t, ut))


def test_cross_entropy_extreme_logits():
    logits = np.array([[1000.0, 0.0, -1000.0], [-50.0, 50.0, 0.0], [0.0, 0.0, 0.0]], np.float32)
    target = np.array([2, 0, 1], np.int64)
    (x, t), (y, u) = pair(logits), pair(target)
    x.requires_grad_()
    t.requires_grad_()
    loss, tloss = F.cross_entropy(x, y), tF.cross_entropy(t, u)
    assert_same(loss, tloss)
    loss.backward()
    tloss.backward()
    assert_same(x.grad, t.grad)


def test_cross_entropy_float64(rng):
    x, t = rand_pair(rng, (6, 4), "float64", requires_grad=True)
    y, u = pair(rng.integers(0, 4, size=6).astype(np.int64))
    loss, tloss = F.cross_entropy(x, y), tF.cross_entropy(t, u)
    assert_same(loss, tloss)
    loss.backward()
    tloss.backward()
    assert_same(x.grad, t.grad)


# ---- Module subclasses ---------------------------------------------------------

def make_net(lib):
    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = lib.nn.Linear(4, 8)
            self.act = lib.nn.ReLU()
            self.fc2 = lib.nn.Linear(8, 3)
            self.scale = lib.nn.Parameter(lib.ones(3))
            self.offset = 0.5          # a plain attribute

        def forward(self, x):
            h = self.act(self.fc1(x))
            return self.fc2(h) * self.scale + self.offset

    return Net()


def test_module_subclass_structure():
    m, tm = make_net(Dl), make_net(torch)
    assert [n for n, _ in m.named_parameters()] == [n for n, _ in tm.named_parameters()]
    assert len(list(m.parameters())) == 5
    assert len(list(m.children())) == len(list(tm.children())) == 3
    assert m.offset == 0.5
    assert isinstance(m.fc1, nn.Linear)
    assert m.scale.requires_grad and m.scale.is_leaf
    assert m.training
    assert m.eval() is m
    assert not m.training and not m.fc1.training
    m.train()
    assert m.training and m.fc2.training


def test_module_subclass_forward_backward(rng):
    m, tm = make_net(Dl), make_net(torch)
    copy_params(m, tm)
    x, t = rand_pair(rng, (6, 4))
    y, u = m(x), tm(t)
    assert_same(y, u)
    y.sum().backward()
    u.sum().backward()
    tgrads = {n: p.grad for n, p in tm.named_parameters()}
    for n, p in m.named_parameters():
        assert_same(p.grad, tgrads[n], msg=n + ".grad: ")
    m.zero_grad()
    for p in m.parameters():
        assert p.grad is None or not to_np(p.grad).any()


def test_sequential(rng):
    seq = nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 2))
    tseq = tnn.Sequential(tnn.Linear(4, 6), tnn.ReLU(), tnn.Linear(6, 2))
    assert [n for n, _ in seq.named_parameters()] == [n for n, _ in tseq.named_parameters()]
    copy_params(seq, tseq)
    x, t = rand_pair(rng, (5, 4))
    assert_same(seq(x), tseq(t))
    assert len(list(seq.children())) == 3
    assert isinstance(seq[0], nn.Linear)


def test_nested_module_parameter_names():
    def build(lib):
        class Inner(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = lib.nn.Linear(2, 2)

            def forward(self, x):
                return self.lin(x)

        class Outer(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.w = lib.nn.Parameter(lib.zeros(2))
                self.inner = Inner()
                self.head = lib.nn.Sequential(lib.nn.Linear(2, 1))

            def forward(self, x):
                return self.head(self.inner(x) + self.w)
        return Outer()

    m, tm = build(Dl), build(torch)
    assert [n for n, _ in m.named_parameters()] == [n for n, _ in tm.named_parameters()]


# ---- SGD ------------------------------------------------------------------------

SGD_CONFIGS = [
    dict(lr=0.1),
    dict(lr=0.05, momentum=0.9),
    dict(lr=0.05, momentum=0.9, nesterov=True),
    dict(lr=0.1, momentum=0.5, weight_decay=0.01),
    dict(lr=0.2, weight_decay=0.1),
    dict(lr=0.05, momentum=0.9, dampening=0.1),
]


@pytest.mark.parametrize("cfg", SGD_CONFIGS, ids=lambda c: ",".join("%s=%s" % kv for kv in c.items()))
def test_sgd_trajectory(rng, cfg):
    m, tm = make_net(Dl), make_net(torch)
    copy_params(m, tm)
    opt = Dl.optim.SGD(m.parameters(), **cfg)
    topt = torch.optim.SGD(tm.parameters(), **cfg)
    xs = rng.standard_normal((16, 4)).astype(np.float32)
    ys = rng.integers(0, 3, size=16).astype(np.int64)
    (x, t), (y, u) = pair(xs), pair(ys)
    crit, tcrit = nn.CrossEntropyLoss(), tnn.CrossEntropyLoss()
    for step in range(8):
        opt.zero_grad()
        topt.zero_grad()
        loss, tloss = crit(m(x), y), tcrit(tm(t), u)
        assert_same(loss, tloss, rtol=1e-4, msg="step %d loss: " % step)
        loss.backward()
        tloss.backward()
        opt.step()
        topt.step()
        assert_params_same(m, tm, rtol=1e-4, atol=1e-6)


def test_sgd_zero_grad_and_lr():
    w = Dl.tensor([1.0, -1.0], requires_grad=True)
    opt = Dl.optim.SGD([w], lr=0.5)
    (w * w).sum().backward()
    opt.step()
    assert w.tolist() == [0.0, 0.0]
    opt.zero_grad()
    assert w.grad is None or w.grad.tolist() == [0.0, 0.0]
    assert opt.param_groups[0]["lr"] == 0.5


def test_sgd_skips_params_without_grad():
    a = Dl.tensor([1.0], requires_grad=True)
    b = Dl.tensor([2.0], requires_grad=True)
    opt = Dl.optim.SGD([a, b], lr=1.0, momentum=0.9)
    (a * 3).sum().backward()
    opt.step()
    assert a.tolist() == [-2.0]
    assert b.tolist() == [2.0]


def test_training_reduces_loss(rng):
    # a small classification problem learnt by a subclassed module
    centers = rng.standard_normal((3, 4)).astype(np.float32) * 3
    labels = rng.integers(0, 3, size=120).astype(np.int64)
    data = centers[labels] + rng.standard_normal((120, 4)).astype(np.float32) * 0.5
    Dl.manual_seed(3)
    m = make_net(Dl)
    opt = Dl.optim.SGD(m.parameters(), lr=0.05, momentum=0.9)
    x, y = Dl.from_numpy(data), Dl.from_numpy(labels)
    crit = nn.CrossEntropyLoss()
    first = None
    for _ in range(60):
        opt.zero_grad()
        loss = crit(m(x), y)
        loss.backward()
        opt.step()
        first = loss.item() if first is None else first
    assert loss.item() < 0.25 * first
    with Dl.no_grad():
        acc = (m(x).argmax(1) == y).float().mean().item()
    assert acc > 0.9
