# test_optim_more.py: Adadelta, Adamax, NAdam, RAdam, Rprop and ASGD against
# torch.optim 1.13: the same parameters and the same gradients, compared
# after every step; whole training runs through each library's autograd;
# parameter groups, state dicts in torch's layout that resume exactly, and
# the constructors' errors.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import numpy as np
import pytest
import torch

from conftest import Dl, assert_same
from test_optim import compare, loss_fn, make_problem, state_dict_structures, train

CONFIGS = [
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, eps=1e-4, weight_decay=0.1)),
    ("Adadelta", dict(lr=0.5, maximize=True)),
    ("Adamax", dict()),
    ("Adamax", dict(lr=0.01, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1)),
    ("Adamax", dict(lr=0.01, maximize=True)),
    ("NAdam", dict()),
    ("NAdam", dict(lr=0.01, betas=(0.8, 0.99), weight_decay=0.1, momentum_decay=0.01)),
    ("RAdam", dict()),
    ("RAdam", dict(lr=0.01, betas=(0.9, 0.9), eps=1e-6, weight_decay=0.1)),
    ("Rprop", dict()),
    ("Rprop", dict(lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.2), maximize=True)),
    ("ASGD", dict()),
    ("ASGD", dict(lr=0.05, lambd=1e-2, alpha=0.5, t0=3, weight_decay=0.1)),
    ("ASGD", dict(lr=0.05, t0=0, maximize=True)),
]
NAMES = ["Adadelta", "Adamax", "NAdam", "RAdam", "Rprop", "ASGD"]
STEPS = 15


def _id(c):
    return c[0] + "(" + ",".join("%s=%s" % kv for kv in c[1].items()) + ")"


def lockstep(rng, name, cfg, dtype, steps=STEPS):
    """Both optimizers on the same start, fed torch's gradient of the same
    loss at every step; libdl's parameters compared with torch's after
    each step."""
    w, b, x, y = make_problem(rng, dtype)
    tparams = [torch.tensor(a.copy(), requires_grad=True) for a in (w, b)]
    dparams = [Dl.tensor(a.copy(), requires_grad=True) for a in (w, b)]
    topt = getattr(torch.optim, name)(tparams, **cfg)
    dopt = getattr(Dl.optim, name)(dparams, **cfg)
    xs, ys = torch.tensor(x), torch.tensor(y)
    tol = dict(rtol=1e-6, atol=1e-7) if dtype == "float32" else dict(rtol=1e-14, atol=1e-15)
    for k in range(steps):
        topt.zero_grad()
        loss_fn(torch, tparams, xs, ys).backward()
        for d, t in zip(dparams, tparams):
            d.grad = Dl.tensor(t.grad.numpy().copy())
        topt.step()
        dopt.step()
        for d, t in zip(dparams, tparams):
            assert_same(d.detach(), t.detach(), msg="%s %s step %d: " % (name, cfg, k), **tol)
    return dopt, topt


@pytest.mark.parametrize("case", CONFIGS, ids=_id)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_lockstep_with_torch(rng, case, dtype):
    lockstep(rng, case[0], case[1], dtype)


@pytest.mark.parametrize("case", CONFIGS, ids=_id)
def test_training_run_matches_torch(rng, case):
    # each library's own autograd: float32 rounding of the gradients only
    compare(rng, *case)


@pytest.mark.parametrize("name", NAMES)
def test_param_groups_match_torch(rng, name):
    groups = [dict(lr=0.02), dict(lr=0.005, weight_decay=0.2)]
    if name == "Rprop":
        groups = [dict(lr=0.02, etas=(0.4, 1.3)), dict(step_sizes=(1e-4, 0.01))]
    elif name in ("Adamax", "NAdam", "RAdam"):
        groups[1]["betas"] = (0.7, 0.95)
    compare(rng, name, {}, group_opts=groups)


def _state_dict_close(sd, tsd):
    assert sd['param_groups'] == tsd['param_groups']
    assert list(sd['state']) == list(tsd['state'])
    for i in sd['state']:
        assert list(sd['state'][i]) == list(tsd['state'][i])
        for k, v in sd['state'][i].items():
            if isinstance(v, int):
                assert v == tsd['state'][i][k]
            else:
                assert_same(v, tsd['state'][i][k], rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("case", [c for c in CONFIGS if c[1]], ids=_id)
def test_state_dict_as_torch_and_resumes(rng, case):
    name, cfg = case
    dopt, topt = lockstep(rng, name, cfg, "float32", steps=4)
    sd, tsd = dopt.state_dict(), topt.state_dict()
    _state_dict_close(sd, tsd)
    # resuming from the state dict continues exactly as without a break
    w, b, x, y = make_problem(rng)
    cls = getattr(Dl.optim, name)
    full, _ = train(Dl, cls, [w, b], x, y, steps=9, **cfg)
    first, opt = train(Dl, cls, [w, b], x, y, steps=4, **cfg)
    params = [Dl.tensor(p.detach().numpy().copy(), requires_grad=True) for p in first]
    fresh = cls(params, lr=0.123)
    fresh.load_state_dict(opt.state_dict())
    assert fresh.param_groups[0]['lr'] == opt.param_groups[0]['lr']
    xs, ys = Dl.tensor(x), Dl.tensor(y)
    for _ in range(5):
        fresh.zero_grad()
        loss_fn(Dl, params, xs, ys).backward()
        fresh.step()
    for p, q in zip(params, full):
        assert np.array_equal(p.detach().numpy(), q.detach().numpy())
    # torch's state dict, its tensors converted, loads here and resumes alike
    conv = {'param_groups': tsd['param_groups'],
            'state': {i: {k: (Dl.tensor(v.numpy()) if isinstance(v, torch.Tensor) else v)
                          for k, v in s.items()} for i, s in tsd['state'].items()}}
    other = cls([Dl.tensor(p.detach().numpy().copy(), requires_grad=True) for p in first])
    other.load_state_dict(conv)
    _state_dict_close(other.state_dict(), tsd)


@pytest.mark.parametrize("name", NAMES)
def test_state_dict_structure_as_torch(name):
    # key for key and type for type: before a step, after a step where one
    # parameter has no gradient, and after loading into a fresh optimizer
    ours, theirs = state_dict_structures(name, {})
    assert ours == theirs


def test_asgd_average_and_schedule():
    # eta, mu and ax as torch keeps them, after averaging has started (t0=2)
    dopt, topt = None, None
    rng = np.random.default_rng(7)
    dopt, topt = lockstep(rng, "ASGD", dict(lr=0.1, lambd=0.05, t0=2), "float64", steps=6)
    ds = dopt.state_dict()['state'][0]
    ts = topt.state_dict()['state'][0]
    for k in ('step', 'eta', 'mu', 'ax'):
        assert_same(ds[k], ts[k], rtol=1e-14, atol=0)
    assert ds['mu'].item() == 0.25


def test_rprop_step_sizes_clamped():
    # gradients that keep and flip their sign drive the step sizes to both
    # bounds
    p, q = Dl.zeros(2, requires_grad=True), torch.zeros(2, requires_grad=True)
    d = Dl.optim.Rprop([p], lr=0.1, step_sizes=(0.01, 0.3))
    t = torch.optim.Rprop([q], lr=0.1, step_sizes=(0.01, 0.3))
    for k in range(12):
        g = np.array([1.0, (-1.0) ** k], np.float32)
        p.grad, q.grad = Dl.tensor(g), torch.tensor(g)
        d.step()
        t.step()
        assert_same(p.detach(), q.detach(), rtol=0, atol=0)
        assert_same(d.state[p]['step_size'], t.state[q]['step_size'], rtol=0, atol=0)
    assert d.state[p]['step_size'].tolist() == pytest.approx([0.3, 0.01])
    assert d.param_groups[0]['step_sizes'] == (0.01, 0.3)
    assert Dl.optim.Rprop([p]).param_groups[0]['step_sizes'] == (1e-6, 50)


@pytest.mark.parametrize("name,kwargs,message", [
    ("Adadelta", dict(lr=-1), "Invalid learning rate: -1"),
    ("Adadelta", dict(rho=1.5), "Invalid rho value: 1.5"),
    ("Adadelta", dict(eps=-1), "Invalid epsilon value: -1"),
    ("Adadelta", dict(weight_decay=-1), "Invalid weight_decay value: -1"),
    ("Adamax", dict(betas=(1.0, 0.9)), "Invalid beta parameter at index 0: 1"),
    ("Adamax", dict(eps=-1), "Invalid epsilon value: -1"),
    ("NAdam", dict(betas=(0.9, 1.0)), "Invalid beta parameter at index 1: 1"),
    ("NAdam", dict(momentum_decay=-1), "Invalid momentum_decay value: -1"),
    ("RAdam", dict(weight_decay=-1), "Invalid weight_decay value: -1"),
    ("Rprop", dict(etas=(1.5, 2.0)), "Invalid eta values: 1.5, 2"),
    ("Rprop", dict(lr=-1), "Invalid learning rate: -1"),
    ("ASGD", dict(weight_decay=-1), "Invalid weight_decay value: -1"),
])
def test_invalid_hyperparameters(name, kwargs, message):
    with pytest.raises(ValueError, match=message):
        getattr(Dl.optim, name)([Dl.ones(2, requires_grad=True)], **kwargs)
    with pytest.raises(ValueError, match=message.split(':')[0]):
        getattr(torch.optim, name)([torch.ones(2, requires_grad=True)], **kwargs)


@pytest.mark.parametrize("name", NAMES)
def test_signatures_as_torch(name):
    import inspect
    ours = inspect.signature(getattr(Dl.optim, name).__init__)
    theirs = inspect.signature(getattr(torch.optim, name).__init__)
    assert [(p.name, p.default, p.kind) for p in ours.parameters.values()] == \
        [(p.name, p.default, p.kind) for p in theirs.parameters.values()]


# ---- learning-rate schedulers -------------------------------------------------------

def _sched_opt(lib, name="SGD"):
    a, b = lib.ones(2, requires_grad=True), lib.ones(3, requires_grad=True)
    if name == "Adam":
        return lib.optim.Adam([{'params': [a]}, {'params': [b], 'lr': 0.02}], lr=0.1)
    return lib.optim.SGD([{'params': [a]}, {'params': [b], 'lr': 0.02}], lr=0.1, momentum=0.9)


SCHEDULERS = [
    ("ConstantLR", dict()),
    ("ConstantLR", dict(factor=0.5, total_iters=7)),
    ("PolynomialLR", dict()),
    ("PolynomialLR", dict(total_iters=30, power=2.5)),
    ("MultiplicativeLR", dict(lr_lambda=lambda e: 0.95)),
    ("MultiplicativeLR", dict(lr_lambda=[lambda e: 0.9, lambda e: 1.0 + 0.01 * e])),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=4)),
    ("CyclicLR", dict(base_lr=[0.01, 0.001], max_lr=0.1, step_size_up=3, step_size_down=5,
                      mode='triangular2', base_momentum=0.7, max_momentum=0.95)),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=5, mode='exp_range', gamma=0.97,
                      cycle_momentum=False)),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=5, scale_fn=lambda x: 0.9 ** x,
                      scale_mode='iterations')),
]


def _sched_id(c):
    return c[0] + "(" + ",".join("%s" % k for k in c[1]) + ")"


def _schedule(lib, name, kw, steps=60, opt_name="SGD"):
    opt = _sched_opt(lib, opt_name)
    s = getattr(lib.optim.lr_scheduler, name)(opt, **kw)
    seen = [(s.get_last_lr(), [g['lr'] for g in opt.param_groups],
             [g.get('momentum') for g in opt.param_groups])]
    for _ in range(steps):
        opt.step()
        s.step()
        seen.append((s.get_last_lr(), [g['lr'] for g in opt.param_groups],
                     [g.get('momentum') for g in opt.param_groups]))
    return s, opt, seen


def _close(a, b):
    if isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _close(x, y)
    elif a is None or b is None:
        assert a is b
    else:
        assert a == pytest.approx(b, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("case", SCHEDULERS, ids=_sched_id)
def test_scheduler_values_as_torch(case):
    name, kw = case
    s, _, ours = _schedule(Dl, name, kw)
    t, _, theirs = _schedule(torch, name, kw)
    _close(ours, theirs)
    # the state dict: torch's keys in torch's order, its numbers
    sd, tsd = s.state_dict(), t.state_dict()
    assert list(sd) == list(tsd)
    for k in ('base_lrs', 'last_epoch', '_step_count', '_last_lr', 'factor', 'total_iters',
              'power', 'max_lrs', 'total_size', 'step_ratio', 'mode', 'gamma', 'scale_mode',
              'cycle_momentum', 'base_momentums', 'max_momentums'):
        if k in tsd:
            _close(sd[k], tsd[k])


@pytest.mark.parametrize("case", SCHEDULERS, ids=_sched_id)
def test_scheduler_state_dict_resumes(case):
    name, kw = case
    _, _, full = _schedule(Dl, name, kw, steps=20)
    s, opt, _ = _schedule(Dl, name, kw, steps=8)
    sd = s.state_dict()
    opt2 = _sched_opt(Dl)
    for g, h in zip(opt2.param_groups, opt.param_groups):
        g['lr'] = h['lr']
        g['momentum'] = h['momentum']
        g['initial_lr'] = h['initial_lr']
    s2 = getattr(Dl.optim.lr_scheduler, name)(opt2, last_epoch=7, **kw)
    s2.load_state_dict(sd)
    for g, h in zip(opt2.param_groups, opt.param_groups):
        g['lr'] = h['lr']
        g['momentum'] = h['momentum']
    rest = []
    for _ in range(12):
        opt2.step()
        s2.step()
        rest.append((s2.get_last_lr(), [g['lr'] for g in opt2.param_groups],
                     [g.get('momentum') for g in opt2.param_groups]))
    _close(rest, full[9:])


@pytest.mark.parametrize("name,kw", [("ConstantLR", dict(factor=0.5, total_iters=3)),
                                     ("PolynomialLR", dict(total_iters=6, power=2.0))])
def test_scheduler_step_with_epoch_as_torch(name, kw):
    # step(epoch) uses the closed form, with PyTorch's deprecation warning
    out = []
    for lib in (Dl, torch):
        opt = _sched_opt(lib)
        s = getattr(lib.optim.lr_scheduler, name)(opt, **kw)
        lrs = []
        for e in (2, 5, 1, 8):
            with pytest.warns(UserWarning):
                s.step(e)
            lrs.append(s.get_last_lr())
        out.append(lrs)
    _close(out[0], out[1])


def test_scheduler_errors_as_torch():
    for lib in (Dl, torch):
        m = lib.optim.lr_scheduler
        with pytest.raises(ValueError, match="Constant multiplicative factor expected"):
            m.ConstantLR(_sched_opt(lib), factor=1.5)
        with pytest.raises(ValueError, match="mode is invalid and scale_fn is None"):
            m.CyclicLR(_sched_opt(lib), 0.01, 0.1, mode='sawtooth')
        with pytest.raises(ValueError, match="optimizer must support momentum"):
            m.CyclicLR(_sched_opt(lib, "Adam"), 0.01, 0.1)
        with pytest.raises(ValueError, match="expected 2 values for max_lr, got 3"):
            m.CyclicLR(_sched_opt(lib), 0.01, [0.1, 0.2, 0.3])
        with pytest.raises(ValueError, match="Expected 2 lr_lambdas, but got 1"):
            m.MultiplicativeLR(_sched_opt(lib), [lambda e: 0.9])
        with pytest.raises(ValueError, match="same optimizer"):
            m.ChainedScheduler([m.ConstantLR(_sched_opt(lib)), m.ConstantLR(_sched_opt(lib))])


def test_chained_scheduler_as_torch():
    out = []
    for lib in (Dl, torch):
        opt = _sched_opt(lib)
        m = lib.optim.lr_scheduler
        s = m.ChainedScheduler([m.ConstantLR(opt, factor=0.1, total_iters=2),
                                m.ExponentialLR(opt, gamma=0.9),
                                m.PolynomialLR(opt, total_iters=8)])
        lrs = [s.get_last_lr()]
        for _ in range(12):
            opt.step()
            s.step()
            lrs.append(s.get_last_lr())
        sd = s.state_dict()
        out.append((lrs, list(sd), [list(x) for x in sd['_schedulers']]))
    _close(out[0][0], out[1][0])
    assert out[0][1:] == out[1][1:]
    # a fresh chain resumes from the state dict
    opt = _sched_opt(Dl)
    m = Dl.optim.lr_scheduler
    parts = [m.ConstantLR(opt, factor=0.1, total_iters=2), m.ExponentialLR(opt, gamma=0.9)]
    chain = m.ChainedScheduler(parts)
    for _ in range(3):
        chain.step()
    sd = chain.state_dict()
    opt2 = _sched_opt(Dl)
    chain2 = m.ChainedScheduler([m.ConstantLR(opt2, factor=0.1, total_iters=2),
                                 m.ExponentialLR(opt2, gamma=0.9)])
    chain2.load_state_dict(sd)
    assert chain2.get_last_lr() == chain.get_last_lr()
    assert [s.last_epoch for s in chain2._schedulers] == [3, 3]


# ---- swa_utils -----------------------------------------------------------------------

@pytest.mark.parametrize("kw", [dict(swa_lr=0.05), dict(swa_lr=[0.05, 0.01], anneal_epochs=4,
                                                       anneal_strategy='linear'),
                                dict(swa_lr=0.05, anneal_epochs=0)])
def test_swalr_as_torch(kw):
    out = []
    for lib in (Dl, torch):
        opt = _sched_opt(lib)
        s = lib.optim.swa_utils.SWALR(opt, **kw)
        lrs = [s.get_last_lr()]
        for _ in range(15):
            opt.step()
            s.step()
            lrs.append(s.get_last_lr())
        out.append(lrs)
    _close(out[0], out[1])


def _swa_models(lib, seed):
    lib.manual_seed(seed)
    model = lib.nn.Sequential(lib.nn.Linear(4, 6), lib.nn.BatchNorm1d(6), lib.nn.ReLU(),
                              lib.nn.Linear(6, 2))
    return model


@pytest.mark.parametrize("use_buffers", [False, True])
@pytest.mark.parametrize("ema", [False, True])
def test_averaged_model_as_torch(use_buffers, ema):
    rng = np.random.default_rng(3)
    states = [{k: rng.standard_normal(v.shape).astype(np.float32)
               for k, v in _swa_models(torch, 0).state_dict().items()
               if v.dtype == torch.float32} for _ in range(4)]
    x = rng.standard_normal((8, 4)).astype(np.float32)
    avg_fn = (lambda a, m, n: 0.8 * a + 0.2 * m) if ema else None
    out = []
    for lib in (Dl, torch):
        model = _swa_models(lib, 0)
        swa = lib.optim.swa_utils.AveragedModel(model, avg_fn=avg_fn, use_buffers=use_buffers)
        for st in states:
            with lib.no_grad():
                for k, v in model.state_dict().items():
                    if k in st:
                        v.copy_(lib.tensor(st[k]))
            swa.update_parameters(model)
        assert int(swa.n_averaged) == 4
        swa.eval()
        out.append(([v.detach().numpy().copy() for v in swa.state_dict().values()],
                    list(swa.state_dict()), swa(lib.tensor(x)).detach().numpy()))
    assert out[0][1] == out[1][1]
    for a, b in zip(out[0][0], out[1][0]):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(out[0][2], out[1][2], rtol=1e-5, atol=1e-6)


def test_update_bn_as_torch():
    rng = np.random.default_rng(5)
    batches = [rng.standard_normal((5, 4)).astype(np.float32) for _ in range(3)]
    weights = [v.numpy().copy() for v in _swa_models(torch, 1).state_dict().values()]
    out = []
    for lib in (Dl, torch):
        model = _swa_models(lib, 1)
        with lib.no_grad():
            for v, w in zip(model.state_dict().values(), weights):
                v.copy_(lib.tensor(w))
        model.eval()
        loader = [(lib.tensor(b), lib.zeros(5)) for b in batches]
        lib.optim.swa_utils.update_bn(loader, model)
        bn = model[1]
        assert not model.training and bn.momentum == 0.1
        out.append((bn.running_mean.numpy().copy(), bn.running_var.numpy().copy(),
                    int(bn.num_batches_tracked)))
    np.testing.assert_allclose(out[0][0], out[1][0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out[0][1], out[1][1], rtol=1e-5, atol=1e-6)
    assert out[0][2] == out[1][2] == 3
