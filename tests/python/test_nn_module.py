# test_nn_module.py: nn.Module itself against torch.nn.Module, side by
# side: registration through attributes, the dotted names of the tree,
# hooks, printing, containers, conversion, state dicts and the errors of
# each. Every scenario is written once and run on both libraries (`lib` is
# Dl or torch); the results must be equal.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import copy
import pickle
from collections import OrderedDict

import numpy as np
import pytest
import torch

from conftest import Dl, assert_same


def both(fn):
    """fn(Dl) and fn(torch), asserted equal; returns the result."""
    got, want = fn(Dl), fn(torch)
    assert got == want
    return got


def raised(fn):
    """(exception type name, message) of what fn() raises."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e)
    return None


def copy_weights(dst, src):
    """Loads torch module src's state into libdl module dst."""
    state = OrderedDict((k, Dl.from_numpy(np.array(v.detach().numpy(), copy=True)))
                        for k, v in src.state_dict().items())
    dst.load_state_dict(state)


def make_tree(lib):
    nn = lib.nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Sequential(nn.Linear(4, 4), nn.ReLU())
            self.heads = nn.ModuleList([nn.Linear(4, 2), nn.Linear(4, 3, bias=False)])
            self.extra = nn.ModuleDict({'act': nn.Tanh(), 'flat': nn.Flatten()})
            self.scale = nn.Parameter(lib.ones(2))
            self.register_buffer('steps', lib.zeros(1, dtype=lib.int64))
            self.register_buffer('cache', lib.zeros(3), persistent=False)
            self.depth = 3
            self.names = ['a', 'b']

        def forward(self, x):
            h = self.conv(x)
            return [head(h) for head in self.heads]

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(OrderedDict([('lin', nn.Linear(4, 4)),
                                                       ('act', nn.ReLU())]))
            self.block = Block()
            self.shared = self.features  # a module reachable twice
            self.tied = nn.Linear(4, 4)
            self.tied.weight = self.features.lin.weight  # a tied weight

        def forward(self, x, scale=1.0, extras=None):
            y = self.block(self.features(x))
            return {'a': y[0] * scale, 'b': y[1]}, extras

    return Net()


# ---- the tree ---------------------------------------------------------------

def test_named_members():
    def names(lib):
        lib.manual_seed(0)
        m = make_tree(lib)
        return (
            [n for n, _ in m.named_parameters()],
            [n for n, _ in m.named_parameters(prefix='model')],
            [n for n, _ in m.named_parameters(recurse=False)],
            [n for n, _ in m.block.named_parameters(recurse=False)],
            [n for n, _ in m.named_buffers()],
            [n for n, _ in m.named_buffers(recurse=False)],
            [n for n, _ in m.named_children()],
            [n for n, _ in m.named_modules()],
            [n for n, _ in m.named_modules(remove_duplicate=False)],
            [n for n, _ in m.named_modules(prefix='root')],
            [type(c).__name__ for c in m.children()],
            [type(c).__name__ for c in m.modules()],
            len(list(m.parameters())), len(list(m.buffers())),
            list(m.state_dict().keys()),
            sorted(k for k in dir(m) if not k.startswith('_') and k in
                   ('features', 'block', 'shared', 'tied', 'forward', 'training')),
            [n for n in dir(m.features) if n[0].isdigit()],
        )
    both(names)


def test_identity_of_members():
    for lib in (Dl, torch):
        m = make_tree(lib)
        params = dict(m.named_parameters())
        assert params['features.lin.weight'] is m.features.lin.weight
        assert m.tied.weight is m.features.lin.weight
        assert m.shared is m.features
        assert list(m.modules()).count(m.features) == 1
        assert m.get_submodule('block.heads.1') is m.block.heads[1]
        assert m.get_parameter('block.scale') is m.block.scale
        assert m.get_buffer('block.steps') is m.block.steps
        assert isinstance(m.block.scale, lib.nn.Parameter)
        assert isinstance(m.features.lin.weight, lib.nn.Parameter)
        assert not isinstance(m.block.steps, lib.nn.Parameter)
        assert m.block.depth == 3 and m.block.names == ['a', 'b']
        sd = m.state_dict(keep_vars=True)
        assert sd['block.scale'] is m.block.scale
        assert sd['block.steps'] is m.block.steps
        assert not m.state_dict()['block.scale'].requires_grad


def test_get_submodule_errors():
    def errors(lib):
        m = make_tree(lib)
        return [raised(lambda: m.get_submodule('block.nothing')),
                raised(lambda: m.get_submodule('block.depth')),
                raised(lambda: m.get_parameter('block.steps')),
                raised(lambda: m.get_parameter('block.nothing')),
                raised(lambda: m.get_buffer('block.scale'))]
    both(errors)


def test_repr():
    def text(lib):
        m = make_tree(lib)
        seq = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.Sequential(lib.nn.ReLU(),
                                                                    lib.nn.Flatten(0, 1)))
        return [repr(m), str(m.block), repr(seq), repr(lib.nn.ModuleList()),
                repr(lib.nn.ModuleDict()), repr(lib.nn.Unflatten(1, (2, 5))),
                repr(lib.nn.Unflatten(-1, [4])), repr(lib.nn.Identity())]
    both(text)


def test_extra_repr_of_subclass():
    def text(lib):
        class Scaled(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.inner = lib.nn.Linear(1, 1)

            def extra_repr(self):
                return 'factor=2\nmode=fast'

        class One(lib.nn.Module):
            def extra_repr(self):
                return 'k=1'
        return repr(Scaled()), repr(One()), repr(lib.nn.Sequential(One(), Scaled()))
    both(text)


# ---- attributes ---------------------------------------------------------------

def test_setattr_registers_and_replaces():
    def scenario(lib):
        nn = lib.nn
        m = nn.Module()
        m.a = nn.Parameter(lib.ones(2))
        m.t = lib.ones(3)  # a plain tensor: an attribute, not a parameter
        m.child = nn.Linear(2, 2)
        m.register_buffer('buf', lib.zeros(2))
        m.buf = lib.ones(2)  # replaces the buffer
        m.n = 5
        out = [list(m._parameters), list(m._buffers), list(m._modules),
               [n for n, _ in m.named_parameters()], float(m.buf.sum()), m.n]
        m.a = None  # a parameter may be set to None
        out.append([n for n, _ in m.named_parameters()])
        out.append(list(m.state_dict()))
        m.child = nn.ReLU()  # replaces the child in place
        out.append(list(m._modules))
        m.a = nn.Parameter(lib.zeros(1))
        out.append([n for n, _ in m.named_parameters()])
        del m.a
        out.append(hasattr(m, 'a'))
        m.a = nn.Parameter(lib.zeros(1))  # back at the end
        m.z = nn.Parameter(lib.zeros(1))
        out.append([n for n, _ in m.named_parameters()])
        m.child = nn.Parameter(lib.ones(1))  # a child replaced by a parameter
        out.append([list(m._parameters), list(m._modules)])
        m.register_buffer('buf2', None)
        out.append([list(m._buffers), list(m.state_dict())])
        del m.buf
        out.append(list(m._buffers))
        m.t = lib.zeros(3)
        out.append(float(m.t.sum()))
        del m.t
        out.append(hasattr(m, 't'))
        return out
    both(scenario)


def test_attribute_errors():
    def scenario(lib):
        nn = lib.nn
        m = nn.Module()
        m.w = nn.Parameter(lib.ones(2))
        m.sub = nn.Linear(1, 1)
        m.register_buffer('b', lib.ones(1))
        m.plain = 1

        def assign(name, value):
            return lambda: setattr(m, name, value)
        return [
            raised(assign('w', lib.ones(2))),
            raised(assign('w', 3)),
            raised(assign('w', lib.ones(2, dtype=lib.float64))),
            raised(assign('sub', 3)),
            raised(assign('sub', lib.ones(1))),
            raised(assign('b', 3)),
            raised(lambda: m.register_parameter('x', lib.ones(1))),
            raised(lambda: m.register_parameter('a.b', None)),
            raised(lambda: m.register_parameter('', None)),
            raised(lambda: m.register_parameter(3, None)),
            raised(lambda: m.register_parameter('plain', None)),
            raised(lambda: m.register_parameter('sub', None)),
            raised(lambda: m.register_parameter('nl', nn.Parameter(lib.ones(1)) * 2)),
            raised(lambda: m.register_buffer('a.b', None)),
            raised(lambda: m.register_buffer('', None)),
            raised(lambda: m.register_buffer('w', lib.ones(1))),
            raised(lambda: m.register_buffer('c', 3)),
            raised(lambda: m.register_buffer(1, None)),
            raised(lambda: m.add_module('a.b', nn.ReLU())),
            raised(lambda: m.add_module('', nn.ReLU())),
            raised(lambda: m.add_module('w', nn.ReLU())),
            raised(lambda: m.add_module('x', 3)),
            raised(lambda: m.add_module(3, nn.ReLU())),
            raised(lambda: m.register_module('plain', nn.ReLU())),
            raised(lambda: m.missing),
            raised(lambda: delattr(m, 'missing')),
            raised(lambda: m.train('yes')),
        ]
    both(scenario)


def test_assign_before_init():
    def scenario(lib):
        nn = lib.nn

        class Early(nn.Module):
            def __init__(self, what):
                if what == 'param':
                    self.w = nn.Parameter(lib.ones(1))
                elif what == 'module':
                    self.m = nn.ReLU()
                else:
                    self.register_buffer('b', lib.ones(1))
                super().__init__()
        return [raised(lambda: Early(w)) for w in ('param', 'module', 'buffer')]
    got, want = scenario(Dl), scenario(torch)
    assert [g[0] for g in got] == [w[0] for w in want] == ['AttributeError'] * 3
    assert got[:2] == want[:2]


def test_parameter():
    def scenario(lib):
        nn = lib.nn
        t = lib.tensor([1.5, -2.0])
        p = nn.Parameter(t)
        q = nn.Parameter(t, requires_grad=False)
        e = nn.Parameter()
        p2 = p * 2
        return [repr(p), str(q), repr(e), p.requires_grad, q.requires_grad, p.is_leaf,
                isinstance(p, nn.Parameter), isinstance(q, nn.Parameter),
                isinstance(t, nn.Parameter), isinstance(p2, nn.Parameter),
                isinstance(p.detach(), nn.Parameter), isinstance(p, lib.Tensor),
                isinstance(3, nn.Parameter), tuple(e.shape),
                raised(lambda: nn.Parameter(lib.tensor([1, 2]))),
                float(t.sum()), p.data_ptr() == t.data_ptr()]
    both(scenario)


# ---- calling and hooks ----------------------------------------------------------

def test_call_with_any_arguments():
    def scenario(lib):
        lib.manual_seed(0)
        m = make_tree(lib)
        x = lib.ones(2, 4)
        (out, extras) = m(x, scale=2.0, extras={'k': [1, 2]})
        none = type('N', (lib.nn.Module,), {'forward': lambda self: None})()
        pair = type('P', (lib.nn.Module,), {'forward': lambda self, a, b: (b, a)})()
        return [sorted(out), tuple(out['a'].shape), tuple(out['b'].shape), extras,
                none(), pair(1, 'x'), raised(lambda: lib.nn.Module()(x)),
                raised(lambda: lib.nn.ModuleList([lib.nn.ReLU()])(x)),
                raised(lambda: lib.nn.ModuleDict()(x))]
    both(scenario)


def test_forward_matches_torch():
    torch.manual_seed(0)
    t = make_tree(torch)
    d = make_tree(Dl)
    copy_weights(d, t)
    xt = torch.randn(3, 4)
    xd = Dl.from_numpy(xt.numpy().copy())
    (ot, _), (od, _) = t(xt, scale=0.5), d(xd, scale=0.5)
    for k in ('a', 'b'):
        assert_same(od[k], ot[k])
    ot['a'].sum().backward()
    od['a'].sum().backward()
    for (nd, pd), (nt, pt) in zip(d.named_parameters(), t.named_parameters()):
        assert nd == nt
        if pt.grad is None:
            assert pd.grad is None
        else:
            assert_same(pd.grad, pt.grad, msg=nd)


def record_hooks(lib, calls):
    def pre(mod, inputs):
        calls.append(('pre', type(mod).__name__, len(inputs)))

    def post(mod, inputs, output):
        calls.append(('post', type(mod).__name__, type(output).__name__))
    return pre, post


def test_hooks_order_replacement_and_removal():
    def scenario(lib):
        nn = lib.nn
        calls = []
        lin = nn.Linear(2, 2)
        with lib.no_grad():
            lin.weight.copy_(lib.eye(2))
            lin.bias.zero_()
        x = lib.tensor([[1.0, 2.0]])
        pre, post = record_hooks(lib, calls)
        h1 = lin.register_forward_pre_hook(pre)
        h2 = lin.register_forward_hook(post)
        h3 = lin.register_forward_pre_hook(lambda m, i: i[0] * 10)  # not a tuple
        h4 = lin.register_forward_hook(lambda m, i, o: o + 1)
        h5 = lin.register_forward_hook(lambda m, i, o: calls.append(('saw', i[0].tolist(),
                                                                     o.tolist())))
        out = [lin(x).tolist()]
        h3.remove()
        h3.remove()  # again: nothing
        out.append(lin(x).tolist())
        with lin.register_forward_hook(lambda m, i, o: o * 0):
            out.append(lin(x).tolist())
        out.append(lin(x).tolist())
        for h in (h1, h2, h4, h5):
            h.remove()
        out.append(lin(x).tolist())
        out.append(calls)
        out.append([len(lin._forward_hooks), len(lin._forward_pre_hooks)])
        return out
    both(scenario)


def test_hooks_on_children_of_containers():
    # the children of a Sequential run from its C forward in libdl: their
    # hooks run there
    def scenario(lib):
        nn = lib.nn
        lib.manual_seed(0)
        calls = []
        seq = nn.Sequential(nn.Linear(3, 3), nn.ReLU(), nn.Linear(3, 1))
        pre, post = record_hooks(lib, calls)
        feats = {}
        for i, m in enumerate(seq):
            m.register_forward_pre_hook(pre)
            m.register_forward_hook(post)
            m.register_forward_hook(lambda mod, inp, out, i=i: feats.__setitem__(i, out))
        seq[1].register_forward_hook(lambda m, i, o: o * 0)
        y = seq(lib.ones(2, 3))
        b = float(seq[2].bias[0])
        return [calls, sorted(feats), bool(feats[1].abs().sum() > 0), round(float(y[0, 0]), 6),
                round(b, 6)]
    got = scenario(Dl)
    want = scenario(torch)
    assert got[:3] == want[:3]
    assert got[3] == got[4]  # the zeroed ReLU output leaves the bias


def test_hook_errors_propagate():
    def scenario(lib):
        nn = lib.nn
        seq = nn.Sequential(nn.Linear(2, 2), nn.ReLU())

        def bad(m, i, o):
            raise ValueError('hook failed')
        seq[0].register_forward_hook(bad)
        lone = nn.Linear(2, 2)
        lone.register_forward_pre_hook(lambda m, i: (_ for _ in ()).throw(KeyError('k')))
        return [raised(lambda: seq(lib.ones(1, 2))), raised(lambda: seq[0](lib.ones(1, 2))),
                raised(lambda: lone(lib.ones(1, 2)))]
    both(scenario)


def test_hooks_on_python_subclass_with_kwargs():
    def scenario(lib):
        calls = []

        class Adder(lib.nn.Module):
            def forward(self, a, b=0, *, c=None):
                return {'sum': a + b, 'c': c}
        m = Adder()
        m.register_forward_pre_hook(lambda mod, i: calls.append(('pre', i)))
        m.register_forward_hook(lambda mod, i, o: calls.append(('post', i, o)) or o['sum'])
        r = m(1, b=2, c='z')
        m.register_forward_pre_hook(lambda mod, i: (i[0] * 10,))
        r2 = m(1, c=None)
        return [r, r2, calls]
    both(scenario)


# ---- modes, gradients, conversion ------------------------------------------------

def test_train_eval_apply_requires_grad():
    def scenario(lib):
        m = make_tree(lib)
        out = [m.eval() is m, [x.training for x in m.modules()]]
        out.append([m.train() is m, all(x.training for x in m.modules())])
        m.block.train(False)
        out.append([x.training for x in m.modules()])
        seen = []
        assert m.apply(lambda mod: seen.append(type(mod).__name__)) is m
        out.append(seen)

        def init(mod):
            if isinstance(mod, lib.nn.Linear):
                lib.nn.init.constant_(mod.weight, 0.5)
        m.apply(init)
        out.append(float(m.block.heads[0].weight.sum()))
        assert m.requires_grad_(False) is m
        out.append([p.requires_grad for p in m.parameters()])
        m.block.requires_grad_()
        out.append([n for n, p in m.named_parameters() if p.requires_grad])
        return out
    both(scenario)


def test_zero_grad():
    def scenario(lib):
        lib.manual_seed(0)
        m = lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.Linear(2, 1, bias=False))
        m(lib.ones(4, 3)).sum().backward()
        g = m[0].weight.grad
        m.zero_grad()  # 1.13's default: zeroed in place
        out = [m[0].weight.grad is g, float(g.abs().sum()), g.requires_grad]
        m(lib.ones(4, 3)).sum().backward()
        m.zero_grad(set_to_none=True)
        out.append([p.grad is None for p in m.parameters()])
        m.zero_grad()
        out.append([p.grad is None for p in m.parameters()])
        return out
    both(scenario)


def test_to_dtype_keeps_parameters():
    def scenario(lib):
        lib.manual_seed(0)
        m = make_tree(lib)
        w = m.features.lin.weight
        m(lib.ones(1, 4))[0]['a'].sum().backward()
        out = [m.double() is m, w is m.features.lin.weight, w.dtype == lib.float64,
               isinstance(w, lib.nn.Parameter), w.requires_grad, w.grad.dtype == lib.float64,
               m.block.steps.dtype == lib.int64, m.block.cache.dtype == lib.float64,
               m.tied.weight is w]
        y = m(lib.ones(1, 4, dtype=lib.float64))[0]['a']
        out.append(y.dtype == lib.float64)
        out.append(m.float() is m and w.dtype == lib.float32 and w.grad.dtype == lib.float32)
        out.append(m.to(lib.float64) is m and w.dtype == lib.float64)
        out.append(m.to('cpu', lib.float32) is m and w.dtype == lib.float32)
        out.append(m.to(device='cpu') is m and m.cpu() is m)
        out.append(m.to(lib.ones(1, dtype=lib.float64)) is m and w.dtype == lib.float64)
        out.append(m.to(dtype=lib.float32, non_blocking=True) is m and w.dtype == lib.float32)
        out.append(m.half() is m and w.dtype == lib.float16 and m.block.cache.dtype ==
                   lib.float16)
        out.append(raised(lambda: m.to(lib.int64)))
        m.float()
        opt = lib.optim.SGD(m.parameters(), lr=0.1)
        m.double()
        m.zero_grad()
        m(lib.ones(1, 4, dtype=lib.float64))[0]['a'].sum().backward()
        before = float(w.sum())
        opt.step()
        out.append(float(w.sum()) != before)  # the optimizer holds the same objects
        return out
    both(scenario)


def test_type_converts_everything():
    def scenario(lib):
        m = lib.nn.Module()
        m.register_buffer('count', lib.zeros(2, dtype=lib.int64))
        m.register_buffer('mean', lib.zeros(2))
        m.type(lib.float64)
        return [m.count.dtype == lib.float64, m.mean.dtype == lib.float64]
    both(scenario)


def test_state_dict_round_trip_keeps_parameters():
    def scenario(lib):
        lib.manual_seed(0)
        a, b = make_tree(lib), make_tree(lib)
        w = b.features.lin.weight
        keys = b.load_state_dict(a.state_dict())
        out = [repr(keys), w is b.features.lin.weight, isinstance(w, lib.nn.Parameter),
               bool((w == a.features.lin.weight).all()), w.requires_grad]
        sd = a.state_dict()
        del sd['block.scale']
        sd['extra'] = lib.ones(1)
        r = b.load_state_dict(sd, strict=False)
        out.append([r.missing_keys, r.unexpected_keys])
        out.append(raised(lambda: b.load_state_dict(sd)))
        out.append(raised(lambda: b.load_state_dict([1])))
        return out
    both(scenario)


# ---- containers ----------------------------------------------------------------

def test_sequential_api():
    def scenario(lib):
        nn = lib.nn
        a, b, c, d = nn.ReLU(), nn.Tanh(), nn.Sigmoid(), nn.Identity()
        s = nn.Sequential(a, b, c)
        out = [len(s), s[0] is a, s[-1] is c, type(s[1:]).__name__, len(s[1:]),
               list(s[1:]._modules), s[::2][1] is c, [m is x for m, x in zip(s, (a, b, c))]]
        out.append(raised(lambda: s[3]))
        out.append(raised(lambda: s[-4]))
        s.append(d)
        s.insert(1, nn.Flatten())
        out.append(repr(s))
        s.insert(-1, nn.ELU())
        out.append(list(type(m).__name__ for m in s))
        out.append(raised(lambda: s.insert(10, nn.ReLU())))
        out.append(raised(lambda: s.insert(0, 3))[0])
        del s[1]
        out.append(list(s._modules.items()) == list(zip(map(str, range(len(s))), s)))
        out.append(s.pop(0) is a)
        del s[1:3]
        out.append([type(m).__name__ for m in s])
        s[0] = nn.ReLU()
        out.append(repr(s))
        s.extend(nn.Sequential(nn.Tanh()))
        s2 = s + nn.Sequential(nn.ReLU())
        s3 = s * 2
        s += nn.Sequential(nn.Sigmoid())
        out.append([len(s2), len(s3), len(s), repr(s3)])
        out.append(raised(lambda: s + [nn.ReLU()]))
        out.append(raised(lambda: s * 0)[0])
        named = nn.Sequential(OrderedDict([('first', nn.ReLU()), ('second', nn.Tanh())]))
        out.append([repr(named), type(named.first).__name__, repr(named[1:])])
        del named[0]
        out.append(list(named._modules))
        out.append(raised(lambda: nn.Sequential(3)))
        return out
    both(scenario)


def test_sequential_forward_matches_torch():
    torch.manual_seed(1)
    t = torch.nn.Sequential(OrderedDict([('fc', torch.nn.Linear(5, 3)), ('act', torch.nn.Tanh()),
                                         ('out', torch.nn.Linear(3, 2))]))
    d = Dl.nn.Sequential(OrderedDict([('fc', Dl.nn.Linear(5, 3)), ('act', Dl.nn.Tanh()),
                                      ('out', Dl.nn.Linear(3, 2))]))
    copy_weights(d, t)
    x = np.random.default_rng(0).standard_normal((7, 5)).astype(np.float32)
    assert_same(d(Dl.from_numpy(x)), t(torch.from_numpy(x)))


def test_module_list_api():
    def scenario(lib):
        nn = lib.nn
        a, b, c = nn.ReLU(), nn.Tanh(), nn.Sigmoid()
        ml = nn.ModuleList([a, b])
        out = [len(ml), ml[0] is a, ml[-1] is b, type(ml[0:1]).__name__, len(ml[:1])]
        ml.append(c)
        ml.extend([nn.Identity()])
        ml += [nn.ELU()]
        ml.insert(1, nn.Flatten())
        out.append(repr(ml))
        out.append([type(m).__name__ for m in ml])
        ml[0] = nn.GELU()
        del ml[2]
        out.append([(k, type(m).__name__) for k, m in ml._modules.items()])
        del ml[::2]
        out.append([(k, type(m).__name__) for k, m in ml._modules.items()])
        out.append(type(ml.pop(-1)).__name__)
        out.append(raised(lambda: ml[5]))
        out.append(raised(lambda: ml.extend(3)))
        both_lists = ml + nn.ModuleList([nn.ReLU()])
        out.append([type(both_lists).__name__, len(both_lists)])
        out.append([n for n, _ in nn.ModuleList([nn.Linear(1, 1), nn.Linear(1, 2)])
                    .named_parameters()])
        out.append(len(nn.ModuleList()))
        return out
    both(scenario)


def test_module_dict_api():
    def scenario(lib):
        nn = lib.nn
        md = nn.ModuleDict({'relu': nn.ReLU(), 'tanh': nn.Tanh()})
        out = [len(md), list(md), list(md.keys()), [type(v).__name__ for v in md.values()],
               [k for k, _ in md.items()], 'relu' in md, 'x' in md]
        md['lin'] = nn.Linear(2, 2)
        md.update([('act', nn.Sigmoid())])
        md.update(OrderedDict(tanh=nn.ELU()))
        out.append(repr(md))
        out.append(type(md.pop('relu')).__name__)
        del md['act']
        out.append(list(md))
        out.append(raised(lambda: md['nothing']))
        out.append(raised(lambda: md.__delitem__('nothing')))
        out.append(raised(lambda: md.update(3)))
        out.append(raised(lambda: md.update([('a', nn.ReLU(), 1)])))
        out.append(raised(lambda: md.update([3])))
        out.append(raised(lambda: md.__setitem__('a.b', nn.ReLU())))
        out.append([n for n, _ in md.named_parameters()])
        md.clear()
        out.append(len(md))
        return out
    both(scenario)


def test_unflatten():
    def scenario(lib):
        u = lib.nn.Unflatten(1, (2, 3))
        x = lib.arange(12.0).reshape(2, 6)
        y = u(x)
        out = [tuple(y.shape), y.tolist(), tuple(lib.nn.Unflatten(-1, (3, -1))(x).shape),
               tuple(lib.nn.Unflatten(0, [1, 2])(x).shape),
               raised(lambda: lib.nn.Unflatten(1, 6)),
               raised(lambda: lib.nn.Unflatten(1, (2, 'a'))),
               raised(lambda: lib.nn.Unflatten(1.5, (2, 3))),
               lib.nn.Unflatten(0, (3, 2))(x.t()).tolist()]
        return out
    got, want = scenario(Dl), scenario(torch)
    assert got == want
    for lib in (Dl, torch):
        with pytest.raises(RuntimeError):
            lib.nn.Unflatten(1, (4, 2))(lib.ones(2, 6))
        with pytest.raises(IndexError):
            lib.nn.Unflatten(3, (2, 3))(lib.ones(2, 6))


def test_flatten_identity_gradients():
    x = np.random.default_rng(3).standard_normal((3, 2, 4)).astype(np.float64)
    for m in (lambda lib: lib.nn.Flatten(), lambda lib: lib.nn.Identity(),
              lambda lib: lib.nn.Unflatten(2, (2, 2))):
        xd = Dl.from_numpy(x.copy()).requires_grad_()
        xt = torch.from_numpy(x.copy()).requires_grad_()
        yd, yt = m(Dl)(xd), m(torch)(xt)
        assert_same(yd, yt)
        (yd * yd).sum().backward()
        (yt * yt).sum().backward()
        assert_same(xd.grad, xt.grad)


# ---- subclasses ------------------------------------------------------------------

class _Pickled(Dl.nn.Module):
    def __init__(self):
        super().__init__()
        self.body = Dl.nn.Sequential(Dl.nn.Linear(2, 2), Dl.nn.ReLU())
        self.heads = Dl.nn.ModuleList([Dl.nn.Linear(2, 1)])
        self.w = Dl.nn.Parameter(Dl.ones(1))
        self.tag = 'x'

    def forward(self, x):
        return self.heads[0](self.body(x)) * self.w


def test_pickle_keeps_tree_and_parameters():
    m = _Pickled()
    m2 = pickle.loads(pickle.dumps(m))
    assert [n for n, _ in m2.named_parameters()] == [n for n, _ in m.named_parameters()]
    assert m2.tag == 'x' and isinstance(m2.w, Dl.nn.Parameter)
    assert isinstance(m2.body[0].weight, Dl.nn.Parameter)
    assert repr(m2) == repr(m)
    x = Dl.ones(3, 2)
    assert bool((m2(x) == m(x)).all())


# ---- full backward hooks ------------------------------------------------------------

def _grads(gs):
    return [None if g is None else np.round(np.array(g.detach().tolist(), dtype=np.float64), 5)
            .tolist() for g in gs]


def test_full_backward_hooks():
    def scenario(lib):
        nn = lib.nn
        log = []

        def fixed(m):
            if isinstance(m, nn.Linear):
                with lib.no_grad():
                    m.weight.copy_(lib.arange(float(m.weight.numel())).reshape(m.weight.shape)
                                   / 10 - 0.3)
                    if m.bias is not None:
                        m.bias.fill_(0.1)
        lin = nn.Linear(3, 2).apply(fixed)

        def doubling(m, gi, go):
            log.append(('lin', _grads(gi), _grads(go)))
            return tuple(None if g is None else g * 2 for g in gi)
        h = lin.register_full_backward_hook(doubling)
        x = lib.ones(4, 3, requires_grad=True)
        lin(x).sum().backward()
        out = [x.grad.tolist()]
        h.remove()
        x.grad = None
        lin(x).sum().backward()
        out.append(x.grad.tolist())
        # inside a Sequential (its C forward in libdl), and a first layer
        # whose input needs no gradient
        seq = nn.Sequential(nn.Linear(3, 3), nn.ReLU(), nn.Linear(3, 1)).apply(fixed)
        for i in (0, 2):
            seq[i].register_full_backward_hook(
                lambda m, gi, go, i=i: log.append((i, _grads(gi), _grads(go))))
        seq(lib.ones(2, 3)).sum().backward()

        class Two(nn.Module):
            def forward(self, a, k, b):
                return a * b, a + k
        t = Two()
        t.register_full_backward_hook(lambda m, gi, go: log.append(('two', _grads(gi),
                                                                    _grads(go))))
        a = lib.ones(2, requires_grad=True)
        o = t(a, 3, lib.ones(2) * 3)
        o[0].sum().backward()
        with lib.no_grad():
            t(a, 3, lib.ones(2))  # nothing to hook
        bad = nn.Linear(2, 2)
        bad.register_full_backward_hook(lambda m, gi, go: (None, None))
        out.append(raised(lambda: bad(lib.ones(1, 2, requires_grad=True)).sum().backward()))
        frozen = nn.Linear(2, 2)
        frozen.register_full_backward_hook(lambda m, gi, go: (lib.ones(1, 2),))
        out.append(raised(lambda: frozen(lib.ones(1, 2)).sum().backward()))
        out.append(log)
        return out
    both(scenario)


@pytest.mark.skipif(Dl is torch, reason="libdl's C printing")
def test_c_printing_matches_torch():
    # dl_module_to_string (what C, GJS and Vala print) against torch's repr
    def make(lib):
        nn = lib.nn
        return nn.Sequential(nn.Linear(2, 3), nn.ReLU(inplace=True), nn.LeakyReLU(),
                             nn.LeakyReLU(1.0, True), nn.LeakyReLU(0.2), nn.GELU('tanh'),
                             nn.SiLU(), nn.Sigmoid(), nn.Tanh(), nn.Identity(),
                             nn.Flatten(0, -1), nn.Softmax(dim=1), nn.LogSoftmax(0),
                             nn.Unflatten(1, (2, 2)),
                             nn.Sequential(nn.Linear(1, 1, bias=False)),
                             nn.ModuleList([nn.ReLU()]), nn.ModuleDict({'a': nn.Tanh()}))
    assert Dl.Module.to_string(make(Dl)) == repr(make(torch))


def test_deepcopy_and_pickle_keep_everything():
    def scenario(lib):
        lib.manual_seed(0)
        m = make_tree(lib)
        m.block.eval()
        calls = []
        m.block.heads[0].register_forward_hook(lambda mod, i, o: calls.append('hook'))
        m(lib.ones(1, 4))[0]['a'].sum().backward()
        c = copy.deepcopy(m)
        out = [c.tied.weight is c.features.lin.weight, c.shared is c.features,
               c.features.lin.weight is m.features.lin.weight,
               isinstance(c.block.scale, lib.nn.Parameter), list(c.state_dict()),
               [x.training for x in c.modules()], c.block.names, c.block.names is m.block.names,
               bool((c.features.lin.weight == m.features.lin.weight).all()),
               c.features.lin.weight.grad is not None, c.block.steps.dtype == lib.int64,
               [n for n, _ in c.named_buffers()]]
        c(lib.ones(1, 4))
        out.append(calls)
        p = copy.deepcopy(lib.nn.Parameter(lib.ones(2), requires_grad=False))
        out.append([isinstance(p, lib.nn.Parameter), p.requires_grad])
        q = pickle.loads(pickle.dumps(lib.nn.Parameter(lib.ones(2))))
        out.append([isinstance(q, lib.nn.Parameter), q.requires_grad])
        out.append(raised(lambda: copy.deepcopy(lib.ones(1, requires_grad=True) * 2)))
        t = lib.ones(2, requires_grad=True)
        t.grad = lib.ones(2) * 3
        tc = copy.deepcopy(t)
        out.append([tc.requires_grad, tc.grad.tolist(), tc.is_leaf,
                    isinstance(tc, lib.nn.Parameter), tc.data_ptr() != t.data_ptr()])
        m.training = False  # this module's flag only
        out.append([x.training for x in m.modules()])
        md = lib.nn.ModuleDict({'a': lib.nn.ReLU()})
        out.append([raised(lambda: md[3]), 3 in md])
        return out
    both(scenario)


def test_pickle_buffers_and_modes():
    m = _Pickled()
    m.register_buffer('count', Dl.tensor([3]))
    m.register_buffer('tmp', Dl.zeros(2), persistent=False)
    m.heads.eval()
    m2 = pickle.loads(pickle.dumps(m))
    assert list(m2.state_dict()) == list(m.state_dict())
    assert [n for n, _ in m2.named_buffers()] == ['count', 'tmp']
    assert int(m2.count) == 3
    assert [x.training for x in m2.modules()] == [x.training for x in m.modules()]


def test_python_module_in_container_hooks_run_once():
    def scenario(lib):
        calls = []

        class Double(lib.nn.Module):
            def forward(self, x):
                calls.append('forward')
                return x * 2
        d = Double()
        d.register_forward_pre_hook(lambda m, i: calls.append('pre'))
        d.register_forward_hook(lambda m, i, o: calls.append('post') or o + 1)
        seq = lib.nn.Sequential(lib.nn.Identity(), d)
        out = [seq(lib.ones(1)).tolist(), list(calls)]
        del calls[:]
        out.append([d(lib.ones(1)).tolist(), list(calls)])
        return out
    both(scenario)


def test_cuda_is_refused_as_torch_without_cuda():
    got = raised(lambda: Dl.nn.Linear(1, 1).cuda())
    want = raised(lambda: torch.nn.Linear(1, 1).cuda())
    assert got is not None and want is not None and got[0] == want[0]


def test_hooks_on_losses_and_direct_forward():
    def scenario(lib):
        calls = []
        loss = lib.nn.MSELoss()
        loss.register_forward_pre_hook(lambda m, i: calls.append(('pre', len(i))))
        loss.register_forward_hook(lambda m, i, o: calls.append('post') or o * 0)
        out = [float(loss(lib.ones(2), lib.zeros(2))), list(calls)]
        del calls[:]
        lin = lib.nn.Linear(2, 2)
        lin.register_forward_hook(lambda m, i, o: calls.append('post'))
        lin.forward(lib.ones(1, 2))  # forward itself runs no hooks
        out.append(list(calls))
        out.append(float(loss.forward(lib.ones(2), lib.zeros(2))))
        return out
    both(scenario)


def test_sequential_passes_anything_between_python_children():
    def scenario(lib):
        nn = lib.nn

        class Split(nn.Module):
            def forward(self, x):
                return x[:, :1], x[:, 1:]

        class Join(nn.Module):
            def forward(self, pair):
                return lib.cat([pair[1], pair[0]], 1)

        class Count(nn.Module):
            def forward(self, x):
                return {'n': x.shape[1]}
        seq = nn.Sequential(nn.Identity(), Split(), Join(), nn.ReLU())
        out = [seq(lib.tensor([[1.0, -2.0, 3.0]])).tolist()]
        seq.append(Count())
        out.append(seq(lib.tensor([[1.0, -2.0, 3.0]])))
        del seq[4]
        seq[1] = nn.Tanh()
        del seq[2]
        out.append(seq(lib.tensor([[0.0, -2.0]])).tolist())
        out.append(nn.Sequential()(5))
        return out
    both(scenario)


@pytest.mark.skipif(Dl is torch, reason='libdl only: hooks registered through the C API')
def test_c_api_hooks_run_when_python_calls_a_python_module():
    # hooks registered through the typelib (what C, GJS and Vala code does)
    # on a module whose forward is Python's run when Python calls it
    from dl import _callbacks
    from dl._lib import Dl as typelib

    class Twice(Dl.nn.Module):
        def forward(self, x):
            return x * 2

    class Pair(Dl.nn.Module):
        def forward(self, a, b):
            return a + b, a - b

    seen = []

    def pre(module, inputs):
        seen.append('pre %d' % len(inputs))
        return [inputs[0] + 1] + list(inputs[1:])

    def post(module, inputs, outputs):
        seen.append('post')
        return [o * 10 for o in outputs]

    m = Twice()
    ids = [typelib.Module.register_forward_pre_hook(m, _callbacks.from_c(pre)),
           typelib.Module.register_forward_hook(m, _callbacks.from_c(post))]
    assert m(Dl.tensor([1.0])).tolist() == [40.0]  # ((1 + 1) * 2) * 10
    assert seen == ['pre 1', 'post']
    p = Pair()
    typelib.Module.register_forward_hook(p, _callbacks.from_c(post))
    s, d = p(Dl.tensor([3.0]), Dl.tensor([1.0]))
    assert s.tolist() == [40.0] and d.tolist() == [20.0]
    for i in ids:
        assert typelib.Module.remove_hook(m, i)
    assert m(Dl.tensor([1.0])).tolist() == [2.0]
    # Python's own hooks and the C API's together, in the order registered
    typelib.Module.register_forward_hook(m, _callbacks.from_c(post))
    m.register_forward_hook(lambda mod, inp, out: out + 1)
    assert m(Dl.tensor([1.0])).tolist() == [21.0]  # (1 * 2) * 10 + 1
    lin = Dl.nn.Linear(1, 1)
    lin.register_forward_hook(lambda mod, inp, out: out * 0)
    typelib.Module.register_forward_hook(lin, _callbacks.from_c(post))
    assert lin(Dl.tensor([[1.0]])).tolist() == [[0.0]]
    assert seen.count('post') == 4
