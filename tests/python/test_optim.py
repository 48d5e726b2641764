# test_optim.py: Dl.optim's optimizers against torch.optim 1.13: the same
# parameters and data, N steps, the same numbers; parameter groups, state
# dicts that resume training exactly, subclasses written in Python, errors.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import numpy as np
import pytest
import torch

from conftest import SELF_CHECK, Dl, assert_same

STEPS = 12


def make_problem(rng, dtype="float32"):
    """Two parameters, data, and a loss that both libraries compute alike:
    a tanh layer fitted to targets, plus a cubic term so that gradients
    change sign and size from step to step."""
    npdt = np.float32 if dtype == "float32" else np.float64
    w = rng.standard_normal((5, 4)).astype(npdt)
    b = rng.standard_normal(5).astype(npdt)
    x = rng.standard_normal((16, 4)).astype(npdt)
    y = rng.standard_normal((16, 5)).astype(npdt)
    return w, b, x, y


def loss_fn(lib, params, x, y):
    w, b = params
    h = (x @ w.t() + b).tanh()
    return ((h - y) ** 2).mean() + 0.01 * (w ** 3).sum()


def make_params(lib, arrays):
    return [lib.tensor(a.copy(), requires_grad=True) for a in arrays]


def train(lib, opt_cls, arrays, x, y, steps=STEPS, group_opts=None, **cfg):
    params = make_params(lib, arrays)
    xs, ys = lib.tensor(x), lib.tensor(y)
    if group_opts is None:
        opt = opt_cls(params, **cfg)
    else:
        opt = opt_cls([dict(params=[p], **o) for p, o in zip(params, group_opts)], **cfg)
    for _ in range(steps):
        opt.zero_grad()
        loss_fn(lib, params, xs, ys).backward()
        opt.step()
    return params, opt


def compare(rng, name, cfg, dtype="float32", steps=STEPS, group_opts=None):
    w, b, x, y = make_problem(rng, dtype)
    ours, _ = train(Dl, getattr(Dl.optim, name), [w, b], x, y, steps, group_opts, **cfg)
    theirs, _ = train(torch, getattr(torch.optim, name), [w, b], x, y, steps, group_opts, **cfg)
    tol = dict(rtol=2e-4, atol=2e-5) if dtype == "float32" else dict(rtol=1e-10, atol=1e-12)
    for p, t in zip(ours, theirs):
        assert_same(p, t, msg="%s %s: " % (name, cfg), **tol)


CONFIGS = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.05, momentum=0.9)),
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.1)),
    ("SGD", dict(lr=0.05, momentum=0.8, dampening=0.3, maximize=True)),
    ("Adam", dict()),
    ("Adam", dict(lr=0.01, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1)),
    ("Adam", dict(lr=0.01, amsgrad=True, maximize=True)),
    ("AdamW", dict(lr=0.01)),
    ("AdamW", dict(lr=0.01, weight_decay=0.3, amsgrad=True)),
    ("AdamW", dict(lr=0.02, betas=(0.5, 0.9), maximize=True)),
    ("RMSprop", dict()),
    ("RMSprop", dict(lr=0.01, alpha=0.9, eps=1e-4, weight_decay=0.1)),
    ("RMSprop", dict(lr=0.01, momentum=0.9, centered=True)),
    ("RMSprop", dict(lr=0.01, momentum=0.5, maximize=True)),
    ("RMSprop", dict(lr=0.005, centered=True)),
    ("Adagrad", dict()),
    ("Adagrad", dict(lr=0.1, lr_decay=0.05, weight_decay=0.1, initial_accumulator_value=0.5)),
    ("Adagrad", dict(lr=0.1, eps=1e-3, maximize=True)),
]


def _id(c):
    return c[0] + "(" + ",".join("%s=%s" % kv for kv in c[1].items()) + ")"


@pytest.mark.parametrize("case", CONFIGS, ids=_id)
def test_matches_torch(rng, case):
    compare(rng, *case)


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"])
def test_matches_torch_float64(rng, name):
    cfg = dict(lr=0.05, momentum=0.9) if name == "SGD" else {}
    compare(rng, name, cfg, dtype="float64")


def test_big_tensor_threaded(rng):
    # above the kernel's grain: the update runs on several threads
    a = rng.standard_normal(300_000).astype(np.float32)
    g = rng.standard_normal(300_000).astype(np.float32)
    p, tp = Dl.tensor(a.copy(), requires_grad=True), torch.tensor(a.copy(), requires_grad=True)
    opt, topt = Dl.optim.Adam([p], lr=0.01, amsgrad=True), torch.optim.Adam([tp], lr=0.01,
                                                                           amsgrad=True)
    for k in range(3):
        p.grad, tp.grad = Dl.tensor(g * (k + 1)), torch.tensor(g * (k + 1))
        opt.step()
        topt.step()
    assert_same(p, tp, rtol=1e-5, atol=1e-6)


def test_non_contiguous_grad_and_param():
    # a transposed leaf (a view of base) and a transposed gradient: the
    # update reaches base through the view
    base = Dl.zeros(4, 6)
    p = base.t().requires_grad_()
    assert not p.is_contiguous()
    p.grad = Dl.arange(24.0).reshape(4, 6).t()
    tp = torch.zeros(4, 6).t().requires_grad_()
    tp.grad = torch.arange(24.0).reshape(4, 6).t()
    opt, topt = Dl.optim.SGD([p], lr=0.5, momentum=0.9), torch.optim.SGD([tp], lr=0.5,
                                                                         momentum=0.9)
    for _ in range(2):
        opt.step()
        topt.step()
    assert_same(p, tp)
    assert_same(base, tp.t())


# ---- parameter groups ------------------------------------------------------------

@pytest.mark.parametrize("name,cfg,groups", [
    ("SGD", dict(lr=0.1, momentum=0.9), [dict(lr=0.01), dict(momentum=0.5, nesterov=True)]),
    ("Adam", dict(lr=0.01), [dict(betas=(0.5, 0.6)), dict(lr=0.1, amsgrad=True)]),
    ("RMSprop", dict(lr=0.01), [dict(centered=True), dict(alpha=0.5, momentum=0.3)]),
    ("Adagrad", dict(lr=0.1), [dict(lr_decay=0.1), dict(eps=0.01)]),
])
def test_param_groups_match_torch(rng, name, cfg, groups):
    compare(rng, name, cfg, group_opts=groups)


def test_param_groups_are_dicts_and_writable(rng):
    a, b = Dl.ones(3, requires_grad=True), Dl.ones(2, requires_grad=True)
    opt = Dl.optim.SGD([{'params': [a]}, {'params': b, 'lr': 0.5}], lr=0.1, momentum=0.9)
    topt = torch.optim.SGD([{'params': [torch.ones(3, requires_grad=True)]},
                            {'params': torch.ones(2, requires_grad=True), 'lr': 0.5}],
                           lr=0.1, momentum=0.9)
    assert len(opt.param_groups) == 2
    for g, tg in zip(opt.param_groups, topt.param_groups):
        assert {k: v for k, v in g.items() if k != 'params'} == \
            {k: v for k, v in tg.items() if k != 'params'}
    assert opt.param_groups[1]['params'][0] is b
    opt.param_groups[1]['lr'] = 2.0
    a.grad, b.grad = Dl.ones(3), Dl.ones(2)
    opt.step()
    assert b.tolist() == [-1.0, -1.0]
    assert a.tolist() == pytest.approx([0.9] * 3)
    # an option a scheduler or user adds is kept with the group
    opt.param_groups[0]['initial_lr'] = 0.1
    opt.param_groups[0]['name'] = 'encoder'
    assert opt.param_groups[0]['initial_lr'] == 0.1 and opt.param_groups[0]['name'] == 'encoder'
    c = Dl.ones(1, requires_grad=True)
    opt.add_param_group({'params': [c], 'momentum': 0.0})
    assert opt.param_groups[2]['momentum'] == 0.0 and opt.param_groups[2]['lr'] == 0.1
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({'params': [a]})
    with pytest.raises(ValueError, match="non-leaf"):
        opt.add_param_group({'params': [a * 2]})


def test_param_group_lr_reaches_every_optimizer():
    for cls in (Dl.optim.SGD, Dl.optim.Adam, Dl.optim.AdamW, Dl.optim.RMSprop,
                Dl.optim.Adagrad):
        p = Dl.ones(2, requires_grad=True)
        opt = cls([p], lr=0.1)
        opt.param_groups[0]['lr'] = 0.0
        p.grad = Dl.ones(2)
        opt.step()
        assert p.tolist() == [1.0, 1.0]


def test_skips_params_without_grad_and_zero_grad():
    a, b = Dl.ones(2, requires_grad=True), Dl.ones(2, requires_grad=True)
    opt = Dl.optim.Adam([a, b], lr=0.1)
    a.grad = Dl.ones(2)
    opt.step()
    assert b.tolist() == [1.0, 1.0]
    assert len(opt.state) == 1 and next(iter(opt.state)) is a
    assert 1 not in opt.state_dict()['state']
    opt.zero_grad()  # torch 1.13: zeros, not None
    assert a.grad.tolist() == [0.0, 0.0]
    opt.zero_grad(set_to_none=True)
    assert a.grad is None


# ---- state dicts ------------------------------------------------------------------

@pytest.mark.parametrize("name,cfg", [
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True)),
    ("Adam", dict(lr=0.01, amsgrad=True)),
    ("AdamW", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, momentum=0.5, centered=True)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01)),
])
def test_state_dict_resumes_exactly(rng, name, cfg):
    w, b, x, y = make_problem(rng)
    xs, ys = Dl.tensor(x), Dl.tensor(y)
    cls = getattr(Dl.optim, name)

    def steps(params, opt, n):
        for _ in range(n):
            opt.zero_grad()
            loss_fn(Dl, params, xs, ys).backward()
            opt.step()

    # uninterrupted
    full, fopt = train(Dl, cls, [w, b], x, y, steps=10, **cfg)
    # 4 steps, save, restore into fresh objects, 6 more
    first, opt = train(Dl, cls, [w, b], x, y, steps=4, **cfg)
    sd = opt.state_dict()
    params = [Dl.tensor(p.detach().numpy().copy(), requires_grad=True) for p in first]
    fresh = cls(params, lr=123.0)
    fresh.load_state_dict(sd)
    assert fresh.param_groups[0]['lr'] == cfg['lr']
    steps(params, fresh, 6)
    for p, q in zip(params, full):
        assert np.array_equal(p.detach().numpy(), q.detach().numpy())
    # torch does the same from its own state dict, and its layout is ours
    tfirst, topt = train(torch, getattr(torch.optim, name), [w, b], x, y, steps=4, **cfg)
    tsd = topt.state_dict()
    assert sd['param_groups'] == tsd['param_groups']
    assert sd['state'].keys() == tsd['state'].keys()
    for i in sd['state']:
        assert sd['state'][i].keys() == tsd['state'][i].keys()
        for k, v in sd['state'][i].items():
            if isinstance(v, int):
                assert v == tsd['state'][i][k]
            else:
                assert_same(v, tsd['state'][i][k], rtol=1e-4, atol=1e-6)
    # a torch state dict loads here (its tensors converted through numpy)
    conv = {'param_groups': tsd['param_groups'],
            'state': {i: {k: (Dl.tensor(v.numpy()) if isinstance(v, torch.Tensor) else v)
                          for k, v in s.items()} for i, s in tsd['state'].items()}}
    params2 = [Dl.tensor(p.detach().numpy().copy(), requires_grad=True) for p in tfirst]
    other = cls(params2, lr=1.0)
    other.load_state_dict(conv)
    steps(params2, other, 6)
    for p, q in zip(params2, full):
        assert_same(p, torch.tensor(q.detach().numpy()), rtol=1e-4, atol=1e-5)


def test_load_state_dict_errors():
    a, b = Dl.ones(2, requires_grad=True), Dl.ones(2, requires_grad=True)
    opt = Dl.optim.SGD([a, b], lr=0.1)
    with pytest.raises(ValueError, match="different number of parameter groups"):
        opt.load_state_dict({'state': {}, 'param_groups': []})
    with pytest.raises(ValueError, match="doesn't match the size"):
        opt.load_state_dict({'state': {}, 'param_groups': [{'lr': 0.1, 'params': [0]}]})


# ---- errors ---------------------------------------------------------------------

@pytest.mark.parametrize("name,kwargs,message", [
    ("SGD", dict(lr=-0.1), "Invalid learning rate: -0.1"),
    ("SGD", dict(lr=0.1, momentum=-1), "Invalid momentum value: -1"),
    ("SGD", dict(lr=0.1, weight_decay=-1), "Invalid weight_decay value: -1"),
    ("SGD", dict(lr=0.1, nesterov=True), "Nesterov momentum requires a momentum"),
    ("Adam", dict(lr=-1), "Invalid learning rate: -1"),
    ("Adam", dict(eps=-1), "Invalid epsilon value: -1"),
    ("Adam", dict(betas=(1.0, 0.9)), "Invalid beta parameter at index 0: 1"),
    ("AdamW", dict(betas=(0.9, -0.1)), "Invalid beta parameter at index 1: -0.1"),
    ("AdamW", dict(weight_decay=-0.5), "Invalid weight_decay value: -0.5"),
    ("RMSprop", dict(alpha=-1), "Invalid alpha value: -1"),
    ("RMSprop", dict(momentum=-1), "Invalid momentum value: -1"),
    ("Adagrad", dict(lr_decay=-1), "Invalid lr_decay value: -1"),
    ("Adagrad", dict(initial_accumulator_value=-1), "Invalid initial_accumulator_value"),
])
def test_invalid_hyperparameters(name, kwargs, message):
    p = Dl.ones(2, requires_grad=True)
    with pytest.raises(ValueError, match=message):
        getattr(Dl.optim, name)([p], **kwargs)
    with pytest.raises(ValueError, match=message.split(':')[0]):
        getattr(torch.optim, name)([torch.ones(2, requires_grad=True)], **kwargs)


def test_construction_errors():
    with pytest.raises(ValueError, match="empty parameter list"):
        Dl.optim.Adam([])
    with pytest.raises(ValueError, match="didn't specify a value of required optimization "
                                         "parameter lr"):
        Dl.optim.SGD([Dl.ones(1, requires_grad=True)])
    with pytest.raises(TypeError):
        Dl.optim.Adam(Dl.ones(1, requires_grad=True))
    with pytest.raises(ValueError, match="non-leaf"):
        Dl.optim.Adam([Dl.ones(2, requires_grad=True) * 2])


@pytest.mark.skipif(SELF_CHECK, reason="libdl checks a group's values at every step, "
                                        "torch only at construction")
def test_step_rejects_bad_group_value_and_dtype():
    p = Dl.ones(2, requires_grad=True)
    opt = Dl.optim.Adam([p])
    opt.param_groups[0]['lr'] = -1.0
    p.grad = Dl.ones(2)
    with pytest.raises(RuntimeError, match="Invalid learning rate: -1"):
        opt.step()
    assert p.tolist() == [1.0, 1.0]
    q = Dl.ones(2, dtype=Dl.float16, requires_grad=True)
    q.grad = Dl.ones(2, dtype=Dl.float16)
    with pytest.raises(RuntimeError, match="float16"):
        Dl.optim.SGD([q], lr=0.1).step()


# ---- subclasses written in Python ---------------------------------------------

class TorchStyleSign(Dl.optim.Optimizer):
    """signSGD written as a PyTorch user writes an optimizer."""

    def __init__(self, params, lr=0.1):
        super().__init__(params, dict(lr=lr))

    @Dl.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            for p in group['params']:
                if p.grad is None:
                    continue
                state = self.state[p]
                state['n'] = state.get('n', 0) + 1
                p.add_(p.grad.sign(), alpha=-group['lr'])


class VfuncSign(Dl.optim.Optimizer):
    """The same through the C virtual method, which DlOptimizer's step
    calls (so C, GJS and Vala code can drive it)."""

    def __init__(self, params, lr=0.1):
        super().__init__(params, dict(lr=lr))

    def do_step(self):
        for i in range(self.get_n_param_groups()):
            lr = self.get_group_lr(i)
            for p in self.get_group_params(i):
                if p.grad is not None:
                    p.sub_(p.grad.sign() * lr)
        return True


@pytest.mark.parametrize("cls", [TorchStyleSign, VfuncSign])
def test_python_subclass(cls):
    if SELF_CHECK and cls is VfuncSign:
        pytest.skip("DlOptimizer's C virtual method")
    a = Dl.tensor([1.0, -2.0], requires_grad=True)
    b = Dl.tensor([3.0], requires_grad=True)
    opt = cls([{'params': [a]}, {'params': [b], 'lr': 1.0}], lr=0.5)
    a.grad, b.grad = Dl.tensor([2.0, -3.0]), Dl.tensor([0.5])
    opt.step()
    assert a.tolist() == [0.5, -1.5] and b.tolist() == [2.0]
    assert opt.param_groups[1]['lr'] == 1.0
    assert isinstance(opt, Dl.optim.Optimizer)
    sd = opt.state_dict()
    assert [g['params'] for g in sd['param_groups']] == [[0], [1]]
    if cls is TorchStyleSign:
        assert sd['state'] == {0: {'n': 1}, 1: {'n': 1}}


def test_closure_is_called():
    p = Dl.tensor([2.0], requires_grad=True)
    opt = Dl.optim.SGD([p], lr=0.25)

    def closure():
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss

    assert opt.step(closure).item() == 4.0
    assert p.tolist() == [1.0]


# ---- LBFGS ------------------------------------------------------------------------

def lbfgs_loss(lib, params, x, y):
    # bounded below, unlike loss_fn's cubic term
    w, b = params
    h = (x @ w.t() + b).tanh()
    return ((h - y) ** 2).mean() + 0.01 * (w ** 4).sum()


def lbfgs_run(lib, arrays, x, y, steps, **cfg):
    params = make_params(lib, arrays)
    xs, ys = lib.tensor(x), lib.tensor(y)
    opt = lib.optim.LBFGS(params, **cfg)
    calls = [0]

    def closure():
        calls[0] += 1
        opt.zero_grad()
        loss = lbfgs_loss(lib, params, xs, ys)
        loss.backward()
        return loss

    losses = [float(opt.step(closure)) for _ in range(steps)]
    return params, losses, calls[0], opt


@pytest.mark.parametrize("cfg", [
    dict(lr=0.5, max_iter=5),
    dict(lr=1, max_iter=8, history_size=3, line_search_fn="strong_wolfe"),
    dict(lr=0.8, max_iter=4, max_eval=6, tolerance_change=1e-3),
], ids=str)
def test_lbfgs_matches_torch(rng, cfg):
    w, b, x, y = make_problem(rng, "float64")
    ours, olosses, ocalls, opt = lbfgs_run(Dl, [w, b], x, y, 3, **cfg)
    theirs, tlosses, tcalls, topt = lbfgs_run(torch, [w, b], x, y, 3, **cfg)
    assert ocalls == tcalls
    assert olosses == pytest.approx(tlosses, rel=1e-9)
    for p, t in zip(ours, theirs):
        assert_same(p, t, rtol=1e-7, atol=1e-9)
    s, ts = opt.state_dict(), topt.state_dict()
    assert s['param_groups'] == ts['param_groups']
    assert s['state'][0]['func_evals'] == ts['state'][0]['func_evals']
    assert s['state'][0]['n_iter'] == ts['state'][0]['n_iter']


def test_lbfgs_errors():
    p = Dl.ones(2, requires_grad=True)
    opt = Dl.optim.LBFGS([p])
    if not SELF_CHECK:
        with pytest.raises(RuntimeError, match="closure"):
            Dl.optim.Optimizer.step(opt)
    with pytest.raises(ZeroDivisionError):
        opt.step(lambda: 1 / 0)
    with pytest.raises(ValueError, match="parameter groups"):
        Dl.optim.LBFGS([{'params': [p]}, {'params': [Dl.ones(1, requires_grad=True)]}])
    # torch 1.13 takes the name and fails at the step
    armijo = Dl.optim.LBFGS([p], line_search_fn="armijo")

    def quadratic():
        armijo.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss
    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        armijo.step(quadratic)
    # a history without its direction: an error, never a crash
    sd = opt.state_dict()
    sd['state'] = {0: {'func_evals': 3, 'n_iter': 3}}
    opt.load_state_dict(sd)

    def closure():
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss
    # (torch 1.13 fails with a TypeError on the missing tensor)
    with pytest.raises((RuntimeError, TypeError),
                       match=None if SELF_CHECK else "n_iter 3 but no d"):
        opt.step(closure)


def _describe(v):
    """A state dict value's structure: a tensor's dtype and shape, a
    list's items, anything else's type and value."""
    if hasattr(v, 'shape') and hasattr(v, 'dtype'):
        return ('tensor', str(v.dtype).split('.')[-1], tuple(v.shape))
    if isinstance(v, list):
        return [_describe(x) for x in v]
    return (type(v).__name__, v)


def _structure(sd):
    # (lists of items: the keys' order counts)
    return ([(i, [(k, _describe(v)) for k, v in s.items()]) for i, s in sd['state'].items()],
            [sorted((k, (type(v).__name__, v)) for k, v in g.items()) for g in sd['param_groups']])


@pytest.mark.parametrize("name,kw", [
    ('SGD', dict(lr=0.1)), ('SGD', dict(lr=0.1, momentum=0.9, nesterov=True)),
    ('SGD', dict(lr=0.1, momentum=0.5, dampening=0.1, weight_decay=1e-2, maximize=True)),
    ('Adam', dict()), ('Adam', dict(amsgrad=True, lr=0.01, betas=(0.8, 0.9))),
    ('AdamW', dict()), ('AdamW', dict(amsgrad=True, weight_decay=0)),
    ('RMSprop', dict()), ('RMSprop', dict(momentum=0.5, centered=True)),
    ('Adagrad', dict(initial_accumulator_value=0.1)), ('Adagrad', dict(lr_decay=0.01)),
], ids=lambda c: c if isinstance(c, str) else None)
def test_state_dict_structure_as_torch(name, kw):
    # torch 1.13's state dicts key for key: at construction (Adagrad's
    # state is made then), after a step where one parameter has no gradient
    # (SGD without momentum keeps momentum_buffer None), and after loading
    # into a fresh optimizer; param_groups with every default PyTorch keeps
    # ('foreach', 'differentiable', 'capturable', 'fused' ...), types included
    ours, theirs = state_dict_structures(name, kw)
    assert ours == theirs


def state_dict_structures(name, kw):
    """The structures of optimizer @name's state dicts in libdl and in
    torch: at construction, after a step where one parameter has no
    gradient, and after loading into a fresh optimizer."""
    out = []
    for lib in (Dl, torch):
        def make():
            a, b, c = (lib.ones(n, requires_grad=True) for n in (3, 2, 2))
            return [a, b, c], getattr(lib.optim, name)(
                [{'params': [a, b]}, {'params': [c], 'lr': 0.5}], **kw)
        (a, b, c), opt = make()
        seen = [_structure(opt.state_dict())]
        a.grad, c.grad = lib.ones(3), lib.ones(2)
        opt.step()
        seen.append(_structure(opt.state_dict()))
        _, fresh = make()
        fresh.load_state_dict(opt.state_dict())
        seen.append(_structure(fresh.state_dict()))
        out.append(seen)
    return out


LBFGS_CASES = [
    dict(lr=1, history_size=3, max_iter=4),
    dict(lr=0.2, max_iter=5),
    dict(lr=1, max_iter=3, history_size=10, line_search_fn="strong_wolfe"),
    dict(lr=1, max_iter=1),
]


def _lbfgs_problem(lib, arrays, x, y):
    params = make_params(lib, arrays)
    xs, ys = lib.tensor(x), lib.tensor(y)

    def closure_for(opt):
        def closure():
            opt.zero_grad()
            loss = lbfgs_loss(lib, params, xs, ys)
            loss.backward()
            return loss
        return closure
    return params, closure_for


def _to_dl(v):
    """A torch state dict's value with Dl tensors in place of torch's."""
    if isinstance(v, torch.Tensor):
        return Dl.tensor(v.numpy())
    if isinstance(v, dict):
        return {k: _to_dl(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_to_dl(x) for x in v]
    return v


@pytest.mark.parametrize("cfg", LBFGS_CASES, ids=str)
def test_lbfgs_state_dict_as_torch(cfg):
    # PyTorch's LBFGS keeps its whole history in state[0]: the same keys,
    # types, shapes and (within rounding) values here. (A problem L-BFGS
    # converges on with every configuration: a diverging float32 run
    # amplifies rounding.)
    w, b, x, y = make_problem(np.random.default_rng(0), "float32")
    sds = []
    for lib in (Dl, torch):
        params, closure_for = _lbfgs_problem(lib, [w, b], x, y)
        opt = lib.optim.LBFGS(params, **cfg)
        assert opt.state_dict()['state'] == {}
        for _ in range(2):
            opt.step(closure_for(opt))
        sds.append(opt.state_dict())
    ours, theirs = sds
    assert ours['param_groups'] == theirs['param_groups']
    o, t = ours['state'][0], theirs['state'][0]
    # PyTorch makes 'al' at the second iteration: before 'd' when the first
    # step iterates more than once, after 'prev_loss' otherwise; libdl puts
    # it after 'n_iter'
    assert [k for k in o if k != 'al'] == [k for k in t if k != 'al'] and set(o) == set(t)
    for k in t:
        assert _describe(o[k]) == _describe(t[k]) or k == 'prev_loss' or \
            (k == 't' and type(o[k]) is type(t[k]) is float), k
        if k in ('old_dirs', 'old_stps', 'ro', 'al'):
            for a, c in zip(o[k], t[k]):
                assert (a is None) == (c is None)
                if a is not None:
                    assert_same(a, c, rtol=1e-3, atol=1e-5)
        elif k in ('d', 'prev_flat_grad', 'H_diag') and not isinstance(t[k], int):
            assert_same(o[k], t[k], rtol=1e-3, atol=1e-5)
        else:
            assert float(o[k]) == pytest.approx(float(t[k]), rel=1e-5), k


@pytest.mark.parametrize("cfg", LBFGS_CASES, ids=str)
def test_lbfgs_resumes_exactly(tmp_path, cfg):
    # N steps, the state saved (through Dl.save) and loaded into a fresh
    # model and optimizer, M more: bit for bit the uninterrupted run, and
    # PyTorch's numbers; a state dict PyTorch made loads and continues as
    # PyTorch does
    w, b, x, y = make_problem(np.random.default_rng(0), "float32")
    params, closure_for = _lbfgs_problem(Dl, [w, b], x, y)
    opt = Dl.optim.LBFGS(params, **cfg)
    straight = [float(opt.step(closure_for(opt))) for _ in range(5)]
    assert straight[-1] < 0.6 * straight[0]

    params, closure_for = _lbfgs_problem(Dl, [w, b], x, y)
    opt = Dl.optim.LBFGS(params, **cfg)
    losses = [float(opt.step(closure_for(opt))) for _ in range(2)]
    path = str(tmp_path / 'lbfgs.safetensors')
    Dl.save({'params': [p.detach() for p in params], 'opt': opt.state_dict()}, path)
    ck = Dl.load(path)
    params2, closure_for2 = _lbfgs_problem(Dl, [p.numpy() for p in ck['params']], x, y)
    opt2 = Dl.optim.LBFGS(params2, **cfg)
    opt2.load_state_dict(ck['opt'])
    losses += [float(opt2.step(closure_for2(opt2))) for _ in range(3)]
    assert losses == straight
    resumed = params2

    tparams, tclosure_for = _lbfgs_problem(torch, [w, b], x, y)
    topt = torch.optim.LBFGS(tparams, **cfg)
    tlosses = [float(topt.step(tclosure_for(topt))) for _ in range(2)]
    # torch's state dict at step 2, loaded here
    params3, closure_for3 = _lbfgs_problem(Dl, [p.detach().numpy() for p in tparams], x, y)
    opt3 = Dl.optim.LBFGS(params3, **cfg)
    opt3.load_state_dict(_to_dl(topt.state_dict()))
    tlosses += [float(topt.step(tclosure_for(topt))) for _ in range(3)]
    from_torch = [float(opt3.step(closure_for3(opt3))) for _ in range(3)]
    assert losses == pytest.approx(tlosses, rel=1e-4)
    assert from_torch == pytest.approx(tlosses[2:], rel=1e-4)
    for p, t in zip(resumed, tparams):
        assert_same(p.detach(), t.detach(), rtol=1e-3, atol=1e-5)
    for p, t in zip(params3, tparams):
        assert_same(p.detach(), t.detach(), rtol=1e-3, atol=1e-5)


# ---- the optimizer's own checkpoint calls (C's dl_optimizer_save_state) -------

IO_CASES = [('SGD', dict(lr=0.1, momentum=0.9)), ('SGD', dict(lr=0.1)),
            ('Adam', dict(lr=0.01, amsgrad=True)), ('AdamW', dict(lr=0.01)),
            ('RMSprop', dict(lr=0.01, momentum=0.5, centered=True)),
            ('Adagrad', dict(lr=0.1, initial_accumulator_value=0.1)),
            ('LBFGS', dict(lr=1, history_size=3, max_iter=4))]


def _io_run(name, kw, arrays, steps, opt=None, params=None):
    w, b, x, y = arrays
    if params is None:
        params = make_params(Dl, [w, b])
    if opt is None:
        groups = params if name == 'LBFGS' else [{'params': [params[0]]},
                                                  {'params': [params[1]], 'lr': 0.05}]
        opt = getattr(Dl.optim, name)(groups, **kw)
    xs, ys = Dl.tensor(x), Dl.tensor(y)

    def closure():
        opt.zero_grad()
        loss = lbfgs_loss(Dl, params, xs, ys)
        loss.backward()
        return loss
    for _ in range(steps):
        if name == 'LBFGS':
            opt.step(closure)
        else:
            closure()
            params[1].grad = None if name == 'SGD' else params[1].grad
            opt.step()
    return params, opt


@pytest.mark.skipif(SELF_CHECK, reason="libdl's C checkpoint calls")
@pytest.mark.parametrize("name,kw", IO_CASES, ids=lambda c: c if isinstance(c, str) else None)
def test_save_state_file_round_trip(tmp_path, name, kw):
    # dl_optimizer_save_state writes what Dl.save writes of state_dict(),
    # so Dl.load reads it as the state dict; dl_optimizer_load_state reads
    # it, or a file Dl.save wrote, into a fresh optimizer that then goes on
    # bit for bit as the uninterrupted one
    from gi.repository import Gio
    arrays = make_problem(np.random.default_rng(0), "float32")
    straight, _ = _io_run(name, kw, arrays, 4)
    params, opt = _io_run(name, kw, arrays, 2)
    c_path, py_path = tmp_path / 'c.safetensors', tmp_path / 'py.safetensors'
    opt.save_state(Gio.File.new_for_path(str(c_path)), None)
    Dl.save(opt.state_dict(), str(py_path))
    sd = opt.state_dict()

    def unordered(sd):
        # (C writes a parameter's state entries in sorted order)
        state, groups = _structure(sd)
        return [(i, sorted(entries)) for i, entries in state], groups
    assert unordered(Dl.load(str(c_path))) == unordered(sd)
    for path in (c_path, py_path):
        fresh_params = make_params(Dl, [p.detach().numpy() for p in params])
        _, fresh = _io_run(name, kw, arrays, 0, params=fresh_params)
        fresh.load_state(Gio.File.new_for_path(str(path)), None)
        assert _structure(fresh.state_dict()) == _structure(sd)
        _io_run(name, kw, arrays, 2, opt=fresh, params=fresh_params)
        for a, b in zip(fresh_params, straight):
            assert a.tolist() == b.tolist()


@pytest.mark.skipif(SELF_CHECK, reason="libdl's C checkpoint calls")
def test_load_state_file_errors(tmp_path):
    from gi.repository import Gio
    p = Dl.ones(3, requires_grad=True)
    opt = Dl.optim.Adam([p])
    plain = tmp_path / 'plain.safetensors'
    Dl.save({'w': Dl.ones(2)}, str(plain))
    with pytest.raises(RuntimeError, match="no optimizer state"):
        opt.load_state(Gio.File.new_for_path(str(plain)), None)
    two = tmp_path / 'two.safetensors'
    Dl.optim.Adam([{'params': [Dl.ones(1, requires_grad=True)]},
                   {'params': [Dl.ones(1, requires_grad=True)]}]).save_state(
        Gio.File.new_for_path(str(two)), None)
    with pytest.raises(RuntimeError, match="different number of parameter groups"):
        opt.load_state(Gio.File.new_for_path(str(two)), None)
    other = tmp_path / 'other.safetensors'
    Dl.optim.Adam([Dl.ones(1, requires_grad=True), Dl.ones(1, requires_grad=True)]).save_state(
        Gio.File.new_for_path(str(other)), None)
    with pytest.raises(RuntimeError, match="doesn't match the size"):
        opt.load_state(Gio.File.new_for_path(str(other)), None)
    with pytest.raises(RuntimeError):
        opt.load_state(Gio.File.new_for_path(str(tmp_path / 'missing')), None)
