# test_lazy.py: the lazy layers (LazyConv*, LazyConvTranspose*,
# LazyBatchNorm*, LazyInstanceNorm*, LazyLinear) and their placeholders
# UninitializedParameter / UninitializedBuffer, side by side with torch
# 1.13: printed form and state dict keys before and after the first call,
# sizes taken from the input or a checkpoint, and values and gradients on
# the same weights (float64).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import warnings

import numpy as np
import pytest
import torch

import dl
from test_parametrize import _copy_state, _same


CASES = [
    ('LazyConv1d', (4, 3), {'padding': 1}, (2, 2, 7)),
    ('LazyConv2d', (4, 3), {'stride': 2, 'bias': False}, (2, 3, 6, 6)),
    ('LazyConv2d', (4, 3), {'groups': 2, 'padding_mode': 'reflect', 'padding': 1}, (2, 4, 5, 5)),
    ('LazyConv3d', (2, 2), {}, (1, 2, 4, 4, 4)),
    ('LazyConvTranspose1d', (3, 3), {'stride': 2, 'output_padding': 1}, (2, 2, 5)),
    ('LazyConvTranspose2d', (2, 3), {'padding': 1}, (2, 3, 4, 4)),
    ('LazyConvTranspose3d', (2, 2), {}, (1, 2, 3, 3, 3)),
    ('LazyBatchNorm1d', (), {}, (4, 3)),
    ('LazyBatchNorm2d', (), {'momentum': None}, (4, 3, 2, 2)),
    ('LazyBatchNorm3d', (), {'affine': False}, (2, 2, 2, 2, 2)),
    ('LazyInstanceNorm1d', (), {}, (2, 3, 5)),
    ('LazyInstanceNorm2d', (), {'track_running_stats': False}, (2, 3, 4, 4)),
    ('LazyInstanceNorm3d', (), {'affine': False}, (1, 2, 3, 3, 3)),
    ('LazyLinear', (3,), {}, (2, 5)),
]


@pytest.mark.parametrize('name,args,kwargs,shape', CASES)
def test_lazy_as_torch(name, args, kwargs, shape):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        mt = getattr(torch.nn, name)(*args, dtype=torch.float64, **kwargs)
        md = getattr(dl.nn, name)(*args, dtype=dl.float64, **kwargs)
    assert repr(md) == repr(mt)
    assert md.has_uninitialized_params()
    final = getattr(dl.nn, name[4:])
    assert md.cls_to_become is final and mt.cls_to_become is getattr(torch.nn, name[4:])
    assert isinstance(md, final) and type(md) is not final
    assert list(md.state_dict()) == list(mt.state_dict())
    for k, v in md.state_dict().items():
        assert type(v).__name__ == type(mt.state_dict()[k]).__name__
    assert isinstance(md.weight if 'weight' in mt.state_dict() else md.running_mean,
                      (dl.nn.UninitializedParameter, dl.nn.UninitializedBuffer))
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape)
    md(dl.tensor(x, dtype=dl.float64))
    mt(torch.tensor(x))
    # the module became the layer it stood for, as torch's
    assert type(md) is final and type(mt) is getattr(torch.nn, name[4:])
    for m in (md, mt):
        assert not hasattr(m, 'has_uninitialized_params') and not hasattr(m, 'cls_to_become')
        assert not m._forward_pre_hooks
    assert repr(md) == repr(mt)
    assert list(md.state_dict()) == list(mt.state_dict())
    for k, v in mt.state_dict().items():
        assert tuple(md.state_dict()[k].shape) == tuple(v.shape), k
        assert md.state_dict()[k].dtype == getattr(dl, str(v.dtype)[6:]), k
    if 'BatchNorm' in name or 'InstanceNorm' in name:
        # the first call updated the running statistics as torch's did
        for k in ('running_mean', 'running_var', 'num_batches_tracked'):
            if k in mt.state_dict():
                _same(mt.state_dict()[k], md.state_dict()[k])
    _copy_state(mt, md)
    x = rng.standard_normal(shape)
    xt = torch.tensor(x, requires_grad=True)
    xd = dl.tensor(x, dtype=dl.float64, requires_grad=True)
    yt, yd = mt(xt), md(xd)
    _same(yt, yd)
    w = rng.standard_normal(tuple(yt.shape))
    (yt * torch.tensor(w)).sum().backward()
    (yd * dl.tensor(w, dtype=dl.float64)).sum().backward()
    _same(xt.grad, xd.grad)
    for (n, p), (_, q) in zip(mt.named_parameters(), md.named_parameters()):
        _same(p.grad, q.grad)
    for k, v in mt.state_dict().items():
        _same(v, md.state_dict()[k])


def test_lazy_conv_init_bounds_and_checkpoint():
    dl.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        m = dl.nn.LazyConv2d(8, 3)
        mt = torch.nn.LazyConv2d(8, 3, groups=2)
    m(dl.randn(1, 4, 5, 5))
    assert m.in_channels == 4 and tuple(m.weight.shape) == (8, 4, 3, 3)
    bound = 1 / np.sqrt(4 * 9)
    assert float(m.weight.abs().max()) <= bound and float(m.bias.abs().max()) <= bound
    # an uninitialised lazy layer takes its size from a checkpoint, and
    # becomes the layer at its first call, as torch's
    mt(torch.randn(1, 6, 5, 5))
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        md = dl.nn.LazyConv2d(8, 3, groups=2)
        mt2 = torch.nn.LazyConv2d(8, 3, groups=2)
    _copy_state(mt, md)
    mt2.load_state_dict(mt.state_dict())
    assert md.in_channels == 6 and not md.has_uninitialized_params()
    assert not mt2.has_uninitialized_params()
    assert type(md) is dl.nn.LazyConv2d and type(mt2) is torch.nn.LazyConv2d
    _same(mt.weight, md.weight)
    x = np.random.default_rng(1).standard_normal((1, 6, 5, 5))
    _same(mt(torch.tensor(x, dtype=torch.float32)), md(dl.tensor(x, dtype=dl.float32)),
          rtol=1e-5, atol=1e-6)
    assert type(md) is dl.nn.Conv2d
    assert repr(md) == repr(mt)
    # inside a container too (torch's load_state_dict pre-hook)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        st = torch.nn.Sequential(torch.nn.LazyLinear(3), torch.nn.ReLU(),
                                 torch.nn.LazyBatchNorm1d())
        sd = dl.nn.Sequential(dl.nn.LazyLinear(3), dl.nn.ReLU(), dl.nn.LazyBatchNorm1d())
    st(torch.randn(4, 5))
    assert [type(m).__name__ for m in st] == ['Linear', 'ReLU', 'BatchNorm1d']
    _copy_state(st, sd)
    assert not sd[0].has_uninitialized_params() and not sd[2].has_uninitialized_params()
    x = np.random.default_rng(2).standard_normal((4, 5))
    st.eval()
    sd.eval()
    _same(st(torch.tensor(x, dtype=torch.float32)), sd(dl.tensor(x, dtype=dl.float32)),
          rtol=1e-5, atol=1e-6)
    assert [type(m).__name__ for m in sd] == ['Linear', 'ReLU', 'BatchNorm1d']
    assert repr(sd) == repr(st)


def test_placeholders():
    for lib in (torch, dl):
        p = lib.nn.UninitializedParameter()
        assert repr(p) == '<UninitializedParameter>'
        with pytest.raises(RuntimeError) as e:
            p.shape
        assert "Can't access the shape of an uninitialized parameter" in str(e.value)
        with pytest.raises(ValueError) as e:
            p + 1
        assert 'Attempted to use an uninitialized parameter' in str(e.value)
    # torch's turns into the Parameter; libdl's gives it
    q = dl.nn.UninitializedParameter().materialize((2, 3))
    assert isinstance(q, dl.nn.Parameter) and tuple(q.shape) == (2, 3) and q.requires_grad
    b = dl.nn.UninitializedBuffer().materialize((4,), dtype=dl.float64)
    assert tuple(b.shape) == (4,) and b.dtype == dl.float64 and not b.requires_grad
    for lib in (torch, dl):
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            m = lib.nn.LazyConv2d(4, 3, groups=2)
        with pytest.raises(ValueError) as e:
            m(lib.zeros(1, 3, 5, 5))
        assert str(e.value) == 'in_channels must be divisible by groups'
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        dl.nn.LazyLinear(2)
    assert 'Lazy modules are a new feature' in str(w[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        for lib in (torch, dl):
            with pytest.raises(ValueError) as e:
                lib.nn.utils.weight_norm(lib.nn.LazyLinear(2))
            assert "can't have uninitialized parameters" in str(e.value)
            with pytest.raises(ValueError) as e:
                lib.nn.LazyBatchNorm2d()(lib.zeros(2, 3))
            assert str(e.value) == 'expected 4D input (got 2D input)'


def test_paths_as_torch():
    for name in ('LazyConv1d', 'LazyConvTranspose3d', 'LazyBatchNorm2d', 'LazyInstanceNorm3d',
                 'LazyLinear', 'UninitializedParameter', 'UninitializedBuffer'):
        cls = getattr(dl.nn, name)
        assert cls.__module__.replace('dl.', 'torch.', 1) == getattr(torch.nn, name).__module__
        assert cls.__name__ == name
