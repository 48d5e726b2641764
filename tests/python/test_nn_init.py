# test_nn_init.py: nn.init against torch.nn.init: the gains, the fans and
# the bounds and spreads the formulas give, the exceptions, and that the
# functions fill parameters in place outside autograd.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import math
import warnings

import numpy as np
import pytest
import torch

from conftest import Dl, assert_same, to_np

init, tinit = Dl.nn.init, torch.nn.init

NONLINEARITIES = [('linear', None), ('conv1d', None), ('conv2d', None), ('conv3d', None),
                  ('conv_transpose1d', None), ('conv_transpose2d', None),
                  ('conv_transpose3d', None), ('sigmoid', None), ('tanh', None), ('relu', None),
                  ('selu', None), ('leaky_relu', None), ('leaky_relu', 0.2), ('leaky_relu', 3),
                  ('leaky_relu', 0)]

# shapes with their (fan_in, fan_out) as torch computes them
SHAPES = [(300, 200), (64, 32, 3, 3), (8, 50, 5), (1, 1000)]


@pytest.mark.parametrize('nonlinearity,param', NONLINEARITIES)
def test_calculate_gain(nonlinearity, param):
    got = init.calculate_gain(nonlinearity, param)
    expected = tinit.calculate_gain(nonlinearity, param)
    assert got == expected and type(got) is type(expected)


@pytest.mark.parametrize('nonlinearity,param', [('softplus', None), ('leaky_relu', 'x'),
                                                ('leaky_relu', True), ('', None)])
def test_calculate_gain_refuses_what_torch_refuses(nonlinearity, param):
    with pytest.raises(ValueError):
        tinit.calculate_gain(nonlinearity, param)
    with pytest.raises(ValueError):
        init.calculate_gain(nonlinearity, param)


def spread(name, shape, **kw):
    """(max |w|, std, mean of w) after init `name` on a tensor of shape."""
    w = Dl.empty(*shape)
    assert getattr(init, name)(w, **kw) is w
    a = to_np(w).astype(np.float64)
    return np.abs(a).max(), a.std(), a.mean()


def torch_std(name, shape, **kw):
    """The std of torch's init `name` on a tensor of shape, from a draw."""
    torch.manual_seed(0)
    t = torch.empty(*shape)
    getattr(tinit, name)(t, **kw)
    return t.double().std().item()


def torch_bound(name, shape, gain=1.0, a=0, mode='fan_in', nonlinearity='leaky_relu'):
    """The bound b of the uniform [-b, b] that torch's documentation gives,
    from torch's own fans and gains."""
    fan_in, fan_out = tinit._calculate_fan_in_and_fan_out(torch.empty(*shape))
    if name == 'xavier_uniform_':
        return gain * math.sqrt(6.0 / (fan_in + fan_out))
    fan = fan_in if mode == 'fan_in' else fan_out
    return tinit.calculate_gain(nonlinearity, a) * math.sqrt(3.0 / fan)


@pytest.mark.parametrize('shape', SHAPES, ids=str)
@pytest.mark.parametrize('name,kw', [
    ('xavier_uniform_', {}), ('xavier_uniform_', {'gain': 2.5}),
    ('kaiming_uniform_', {}), ('kaiming_uniform_', {'a': math.sqrt(5)}),
    ('kaiming_uniform_', {'mode': 'fan_out', 'nonlinearity': 'relu'}),
])
def test_uniform_inits_fill_torchs_interval(shape, name, kw):
    Dl.manual_seed(1)
    top, std, mean = spread(name, shape, **kw)
    bound = torch_bound(name, shape, **kw)
    # at least 1000 draws: they come within 1% of the bound
    assert 0.99 * bound < top <= bound * (1 + 1e-6)
    assert abs(std - bound / math.sqrt(3)) < 0.05 * std
    assert abs(std - torch_std(name, shape, **kw)) < 0.08 * std
    assert abs(mean) < 0.1 * std


@pytest.mark.parametrize('shape', SHAPES, ids=str)
@pytest.mark.parametrize('name,kw', [
    ('xavier_normal_', {}), ('xavier_normal_', {'gain': 0.5}),
    ('kaiming_normal_', {}), ('kaiming_normal_', {'mode': 'fan_out', 'nonlinearity': 'tanh'}),
    ('normal_', {'mean': 0.0, 'std': 0.02}),
])
def test_normal_inits_have_torchs_spread(shape, name, kw):
    Dl.manual_seed(2)
    _, std, mean = spread(name, shape, **kw)
    tstd = torch_std(name, shape, **kw)
    assert abs(std - tstd) < 0.08 * tstd
    assert abs(mean) < 0.1 * tstd


def test_uniform_and_normal_take_their_parameters():
    Dl.manual_seed(3)
    w = init.uniform_(Dl.empty(10000), a=2.0, b=3.0)
    a = to_np(w)
    assert a.min() >= 2.0 and a.max() < 3.0 and abs(a.mean() - 2.5) < 0.02
    a = to_np(init.normal_(Dl.empty(10000), mean=5.0, std=0.5))
    assert abs(a.mean() - 5.0) < 0.03 and abs(a.std() - 0.5) < 0.03


@pytest.mark.parametrize('dtype', ['float32', 'float64', 'int64'])
def test_constant_ones_zeros_match_torch(dtype):
    for fn, args in (('constant_', (0.25,)), ('ones_', ()), ('zeros_', ())):
        w = Dl.empty(3, 4, dtype=getattr(Dl, dtype))
        t = torch.empty(3, 4, dtype=getattr(torch, dtype))
        assert getattr(init, fn)(w, *args) is w
        assert_same(w, getattr(tinit, fn)(t, *args))


def test_parameters_are_filled_in_place_outside_autograd():
    lin = Dl.nn.Linear(20, 10)
    w = lin.weight
    assert w.requires_grad and w.is_leaf
    for fn in (init.kaiming_uniform_, init.xavier_normal_, init.zeros_, init.ones_):
        assert fn(lin.weight) is w
        assert w.is_leaf and w.requires_grad and w.grad_fn is None
    init.constant_(lin.bias, 0.5)
    assert_same(lin(Dl.ones(2, 20)), torch.full((2, 10), 20.5))


@pytest.mark.parametrize('name', ['xavier_uniform_', 'xavier_normal_', 'kaiming_uniform_',
                                  'kaiming_normal_'])
def test_fans_need_two_dims(name):
    for shape in ((5,), ()):
        with pytest.raises(ValueError):
            getattr(tinit, name)(torch.empty(shape))
        with pytest.raises(ValueError):
            getattr(init, name)(Dl.empty(shape))


@pytest.mark.parametrize('name', ['kaiming_uniform_', 'kaiming_normal_'])
def test_kaiming_mode_and_empty_tensors(name):
    with pytest.raises(ValueError):
        getattr(tinit, name)(torch.empty(3, 4), mode='fan_avg')
    with pytest.raises(ValueError):
        getattr(init, name)(Dl.empty(3, 4), mode='fan_avg')
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        w = Dl.empty(0, 4)
        assert getattr(init, name)(w) is w
    assert any('zero-element' in str(c.message) for c in caught)
