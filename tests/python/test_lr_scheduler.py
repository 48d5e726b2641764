# test_lr_scheduler.py: Dl.optim.lr_scheduler against
# torch.optim.lr_scheduler 1.13: the same arguments give the same learning
# rates (and momentum) over many steps; state dicts resume; errors.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import math
import warnings

import pytest
import torch

from conftest import SELF_CHECK, Dl

STEPS = 40


def make_opt(lib, name="SGD"):
    p, q = lib.ones(2, requires_grad=True), lib.ones(1, requires_grad=True)
    groups = [{'params': [p]}, {'params': [q], 'lr': 0.5}]
    if name == "SGD":
        return getattr(lib.optim, name)(groups, lr=0.1, momentum=0.9)
    return getattr(lib.optim, name)(groups, lr=0.1)


def sched(lib, name, opt, kw):
    if name == "SequentialLR":
        m = lib.optim.lr_scheduler
        first = m.LinearLR(opt, start_factor=0.1, total_iters=4)
        second = m.ExponentialLR(opt, gamma=0.9)
        third = m.StepLR(opt, step_size=3, gamma=0.5)
        return m.SequentialLR(opt, [first, second, third], milestones=[5, 12])
    if name == "LambdaLR":
        kw = dict(lr_lambda=[lambda e: 0.95 ** e, lambda e: 1.0 / (e + 1)])
    return getattr(lib.optim.lr_scheduler, name)(opt, **kw)


def flat(rows):
    return [v for r in rows for v in (r if isinstance(r, list) else [r])]


def momentum(group):
    return group['betas'][0] if 'betas' in group else group.get('momentum')


def run(lib, name, kw, opt_name="SGD", steps=STEPS):
    opt = make_opt(lib, opt_name)
    s = sched(lib, name, opt, kw)
    lrs, moms = [], []
    for _ in range(steps):
        lrs.append(s.get_last_lr())
        moms.append([momentum(g) for g in opt.param_groups])
        opt.step()
        s.step()
    return lrs, moms, [g['lr'] for g in opt.param_groups]


CASES = [
    ("StepLR", dict(step_size=3, gamma=0.5), "SGD"),
    ("MultiStepLR", dict(milestones=[2, 5, 5, 9, 30], gamma=0.3), "SGD"),
    ("ExponentialLR", dict(gamma=0.9), "Adam"),
    ("CosineAnnealingLR", dict(T_max=7, eta_min=0.01), "SGD"),
    ("CosineAnnealingLR", dict(T_max=10), "Adam"),
    ("LinearLR", dict(start_factor=0.2, end_factor=0.9, total_iters=6), "SGD"),
    ("LinearLR", dict(), "RMSprop"),
    ("LambdaLR", dict(), "SGD"),
    ("OneCycleLR", dict(max_lr=1.0, total_steps=STEPS + 1), "SGD"),
    ("OneCycleLR", dict(max_lr=[1.0, 2.0], epochs=7, steps_per_epoch=6, pct_start=0.25,
                        anneal_strategy='linear', three_phase=True), "SGD"),
    ("OneCycleLR", dict(max_lr=0.01, total_steps=STEPS + 1, base_momentum=0.8,
                        max_momentum=0.9, div_factor=10, final_div_factor=100), "Adam"),
    ("OneCycleLR", dict(max_lr=0.01, total_steps=STEPS + 1, cycle_momentum=False), "Adagrad"),
    # a momentum (Adam's beta1) per group
    ("OneCycleLR", dict(max_lr=[1.0, 2.0], total_steps=STEPS + 1, base_momentum=[0.8, 0.7],
                        max_momentum=[0.9, 0.95]), "SGD"),
    ("OneCycleLR", dict(max_lr=0.01, total_steps=STEPS + 1, base_momentum=[0.8, 0.6],
                        max_momentum=0.9, three_phase=True), "Adam"),
    ("OneCycleLR", dict(max_lr=0.01, total_steps=STEPS + 1, base_momentum=0.5,
                        max_momentum=[0.9, 0.99], anneal_strategy='linear'), "AdamW"),
    ("CosineAnnealingWarmRestarts", dict(T_0=4, T_mult=2, eta_min=0.001), "SGD"),
    ("CosineAnnealingWarmRestarts", dict(T_0=3), "Adam"),
    ("SequentialLR", dict(), "SGD"),
]


@pytest.mark.parametrize("name,kw,opt_name", CASES,
                         ids=lambda c: c if isinstance(c, str) else None)
def test_sequence_matches_torch(name, kw, opt_name):
    ours = run(Dl, name, kw, opt_name)
    theirs = run(torch, name, kw, opt_name)
    for a, b in zip(ours, theirs):
        assert flat(a) == pytest.approx(flat(b), rel=1e-12, abs=1e-15)


def test_sequence_can_differ():
    # the comparison above sees a different argument
    a = run(Dl, "StepLR", dict(step_size=3, gamma=0.5), steps=10)[0]
    b = run(torch, "StepLR", dict(step_size=4, gamma=0.5), steps=10)[0]
    assert a != b


def test_step_with_epoch_uses_closed_form():
    for lib in (Dl, torch):
        opt = make_opt(lib)
        s = lib.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s.step(5)
        if lib is Dl:
            ours = s.get_last_lr()
        else:
            assert ours == pytest.approx(s.get_last_lr())
    for lib in (Dl, torch):
        opt = make_opt(lib)
        s = lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2)
        for e in (0.5, 1.7, 4.2, 10.0, 2.0):
            s.step(e)
        if lib is Dl:
            ours = s.get_last_lr()
        else:
            assert ours == pytest.approx(s.get_last_lr())


@pytest.mark.parametrize("kw", [
    dict(),
    dict(mode='max', factor=0.5, patience=2, threshold=0.1, threshold_mode='abs', cooldown=2),
    dict(patience=1, cooldown=1, min_lr=[0.02, 0.1], eps=1e-3),
    dict(mode='min', threshold_mode='abs', patience=0, min_lr=0.001),
])
def test_reduce_lr_on_plateau_matches_torch(kw):
    metrics = [1.0, 0.9, 0.95, 0.95, 0.96, 0.97, 0.5, 0.6, 0.6, 0.6, 0.61, 0.62, 0.7, 0.2,
               0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.31]
    res = []
    for lib in (Dl, torch):
        opt = make_opt(lib)
        s = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, **kw)
        lrs = []
        for m in metrics:
            s.step(m)
            lrs.append([g['lr'] for g in opt.param_groups])
        res.append((lrs, s.best, s.num_bad_epochs, s.last_epoch))
    assert flat(res[0][0]) == pytest.approx(flat(res[1][0]), rel=1e-12)
    assert res[0][1:] == res[1][1:]


@pytest.mark.parametrize("name,kw,opt_name", [c for c in CASES if c[0] != "LambdaLR"],
                         ids=lambda c: c if isinstance(c, str) else None)
def test_state_dict_resumes(name, kw, opt_name):
    # uninterrupted
    full = run(Dl, name, kw, opt_name)[0]
    # 13 steps, save optimizer and scheduler, restore into fresh ones
    opt = make_opt(Dl, opt_name)
    s = sched(Dl, name, opt, kw)
    for _ in range(13):
        opt.step()
        s.step()
    osd, ssd = opt.state_dict(), s.state_dict()
    assert ssd['last_epoch'] == 13 and isinstance(ssd['_last_lr'], list)
    opt2 = make_opt(Dl, opt_name)
    s2 = sched(Dl, name, opt2, kw)
    opt2.load_state_dict(osd)
    s2.load_state_dict(ssd)
    lrs = []
    for _ in range(STEPS - 13):
        lrs.append(s2.get_last_lr())
        opt2.step()
        s2.step()
    assert lrs == full[13:]


PLATEAU_METRICS = [1.0, 0.9, 0.95, 0.95, 0.96, 0.5, 0.6, 0.6, 0.6, 0.7, 0.7, 0.7, 0.7, 0.7]
STATE_CASES = CASES + [
    ("ReduceLROnPlateau", dict(patience=1, cooldown=1, min_lr=[0.02, 0.1]), "SGD"),
    ("ReduceLROnPlateau", dict(mode='max', threshold_mode='abs', eps=1e-3), "Adam"),
]


def step_sched(s, i):
    if type(s).__name__ == 'ReduceLROnPlateau':
        s.step(PLATEAU_METRICS[i % len(PLATEAU_METRICS)])
    else:
        s.step()


def same_state(ours, theirs, where=''):
    """PyTorch's state dict, key for key in its order, value for value and
    type for type (the bound anneal_func by its name)."""
    assert list(ours) == list(theirs), where
    for k, t in theirs.items():
        o = ours[k]
        if k == 'anneal_func':
            assert o.__name__ == t.__name__, where + k
        elif k == '_schedulers':
            for a, b in zip(o, t):
                same_state(a, b, where + '_schedulers.')
        elif isinstance(t, list) and t and isinstance(t[0], dict):
            assert o == t, where + k
        elif isinstance(t, list):
            assert [type(v) for v in o] == [type(v) for v in t], where + k
            assert o == pytest.approx(t, rel=1e-12), where + k
        else:
            assert type(o) is type(t), (where + k, o, t)
            assert o == (pytest.approx(t, rel=1e-12) if isinstance(t, float) and
                         math.isfinite(t) else t), where + k


@pytest.mark.parametrize("name,kw,opt_name", STATE_CASES,
                         ids=lambda c: c if isinstance(c, str) else None)
def test_state_dict_as_torch(name, kw, opt_name):
    # every scheduler's state_dict() has PyTorch's keys and values, at
    # construction and after some steps
    for steps in (0, 7):
        sds = []
        for lib in (Dl, torch):
            opt = make_opt(lib, opt_name)
            s = sched(lib, name, opt, kw)
            for i in range(steps):
                opt.step()
                step_sched(s, i)
            sds.append(s.state_dict())
        same_state(*sds, where='%s after %d: ' % (name, steps))


@pytest.mark.parametrize("name,kw,opt_name", STATE_CASES,
                         ids=lambda c: c if isinstance(c, str) else None)
def test_loads_torch_state_dict(name, kw, opt_name):
    # a state dict PyTorch made (optimizer and scheduler) loads into fresh
    # objects here, which then go on as PyTorch's do
    topt = make_opt(torch, opt_name)
    ts = sched(torch, name, topt, kw)
    for i in range(9):
        topt.step()
        step_sched(ts, i)
    osd, ssd = topt.state_dict(), ts.state_dict()
    opt = make_opt(Dl, opt_name)
    s = sched(Dl, name, opt, kw)
    opt.load_state_dict({'state': {}, 'param_groups': osd['param_groups']})
    s.load_state_dict(ssd)
    same_state(s.state_dict(), ssd, where=name + ' loaded: ')
    ours, theirs = [], []
    for i in range(9, 9 + 15):
        for lib_opt, lib_s, out in ((opt, s, ours), (topt, ts, theirs)):
            lib_opt.step()
            step_sched(lib_s, i)
            out.append([g['lr'] for g in lib_opt.param_groups] +
                       [momentum(g) for g in lib_opt.param_groups])
    assert flat(ours) == pytest.approx(flat(theirs), rel=1e-12, abs=1e-15)
    same_state(s.state_dict(), ts.state_dict(), where=name + ' continued: ')


def test_lambda_lr_per_group_and_errors():
    opt = make_opt(Dl)
    s = Dl.optim.lr_scheduler.LambdaLR(opt, [lambda e: 2.0, lambda e: e])
    assert s.get_last_lr() == [0.2, 0.0]
    s.step()
    assert s.get_last_lr() == [0.2, 0.5]
    with pytest.raises(ValueError, match="Expected 2 lr_lambdas, but got 1"):
        Dl.optim.lr_scheduler.LambdaLR(opt, [lambda e: 1.0])


def test_initial_lr_and_last_epoch():
    opt = make_opt(Dl)
    s = Dl.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
    assert opt.param_groups[1]['initial_lr'] == 0.5
    assert s.base_lrs == [0.1, 0.5] and s.last_epoch == 0 and s.optimizer == opt
    opt2 = make_opt(Dl)
    with pytest.raises(KeyError, match="param 'initial_lr' is not specified in param_groups"):
        Dl.optim.lr_scheduler.StepLR(opt2, step_size=2, last_epoch=3)


@pytest.mark.parametrize("name,kw,message", [
    ("LinearLR", dict(start_factor=-0.5), "Starting multiplicative factor"),
    ("LinearLR", dict(end_factor=1.5), "Ending multiplicative factor"),
    ("OneCycleLR", dict(max_lr=1.0), "You must define either total_steps"),
    ("OneCycleLR", dict(max_lr=1.0, total_steps=10, pct_start=2), "pct_start"),
    ("OneCycleLR", dict(max_lr=1.0, total_steps=10, anneal_strategy='x'), "anneal_strategy"),
    ("OneCycleLR", dict(max_lr=1.0, total_steps=-1), "positive integer total_steps"),
    ("OneCycleLR", dict(max_lr=1.0, total_steps=5, base_momentum=[0.8]),
     "expected 2 values for base_momentum, got 1"),
    ("OneCycleLR", dict(max_lr=1.0, total_steps=5, max_momentum=(0.9, 0.9, 0.9)),
     "expected 2 values for max_momentum, got 3"),
    ("CosineAnnealingWarmRestarts", dict(T_0=0), "Expected positive integer T_0"),
    ("CosineAnnealingWarmRestarts", dict(T_0=2, T_mult=0), "T_mult >= 1"),
    ("ReduceLROnPlateau", dict(factor=1.0), "Factor should be < 1.0"),
    ("ReduceLROnPlateau", dict(mode='up'), "mode up is unknown"),
    ("ReduceLROnPlateau", dict(threshold_mode='x'), "threshold mode x is unknown"),
])
def test_errors_as_torch(name, kw, message):
    with pytest.raises(ValueError, match=message):
        getattr(Dl.optim.lr_scheduler, name)(make_opt(Dl), **kw)
    with pytest.raises(ValueError):
        getattr(torch.optim.lr_scheduler, name)(make_opt(torch), **kw)


def test_one_cycle_errors():
    with pytest.raises(ValueError, match="must support momentum"):
        Dl.optim.lr_scheduler.OneCycleLR(make_opt(Dl, "Adagrad"), max_lr=1.0, total_steps=5)
    opt = make_opt(Dl)
    s = Dl.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=3)
    s.step()
    s.step()
    s.step()
    with pytest.raises(ValueError, match="Tried to step 5 times. The specified number of total "
                                         "steps is 3"):
        s.step()


def test_sequential_lr_errors():
    opt, other = make_opt(Dl), make_opt(Dl)
    m = Dl.optim.lr_scheduler
    a, b = m.ExponentialLR(opt, gamma=0.9), m.ExponentialLR(other, gamma=0.9)
    with pytest.raises(ValueError, match="same optimizer"):
        m.SequentialLR(opt, [a, b], milestones=[3])
    with pytest.raises(ValueError, match="one more than the number of milestone"):
        m.SequentialLR(opt, [a], milestones=[3])


class HalvingLR(getattr(Dl.optim.lr_scheduler, 'LRScheduler', object)):
    """A scheduler written in Python over the C base class."""

    def __init__(self, optimizer, every):
        self.every = every
        super().__init__(optimizer)

    def do_compute_lr(self, group, current_lr):
        e = self.get_last_epoch()
        return current_lr / 2 if e > 0 and e % self.every == 0 else current_lr


@pytest.mark.skipif(SELF_CHECK, reason="libdl's C virtual method")
def test_python_scheduler_subclass():
    opt = make_opt(Dl)
    s = HalvingLR(opt, 2)
    lrs = []
    for _ in range(5):
        s.step()
        lrs.append(s.get_last_lr())
    assert lrs == [[0.1, 0.5], [0.05, 0.25], [0.05, 0.25], [0.025, 0.125], [0.025, 0.125]]
    assert s.state_dict()['last_epoch'] == 5


@pytest.mark.parametrize("kw", [
    dict(start_factor=0), dict(start_factor=0.0, end_factor=0.5), dict(start_factor=0, end_factor=0),
    dict(start_factor=1, end_factor=0, total_iters=3), dict(start_factor=1e-9),
    dict(start_factor=-0.5), dict(start_factor=1.5), dict(end_factor=-0.5), dict(end_factor=1.5),
    dict(start_factor=0.5, total_iters=0),
])
def test_linear_lr_factors_as_torch(kw):
    # torch 1.13 accepts a start factor of 0 (its first step then divides
    # by zero); the same rates, exceptions and messages here
    def outcome(lib):
        opt = lib.optim.SGD([lib.ones(2, requires_grad=True)], lr=0.1)
        try:
            s = lib.optim.lr_scheduler.LinearLR(opt, **kw)
        except ValueError as e:
            return ('ValueError', str(e))
        lrs = [s.get_last_lr()]
        try:
            for _ in range(6):
                opt.step()
                s.step()
                lrs.append(s.get_last_lr())
        except ZeroDivisionError as e:
            lrs.append(('ZeroDivisionError', str(e), s.last_epoch, opt.param_groups[0]['lr']))
        return lrs

    ours, theirs = outcome(Dl), outcome(torch)
    assert ours == theirs


def test_lambda_lr_exception_propagates():
    for lib in (Dl, torch):
        opt = make_opt(lib)
        s = lib.optim.lr_scheduler.LambdaLR(opt, lambda e: 1.0 / (2 - e))
        s.step()
        with pytest.raises(ZeroDivisionError, match="division by zero"):
            s.step()
