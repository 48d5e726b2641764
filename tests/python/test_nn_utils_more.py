# test_nn_utils_more.py: dl.nn.utils's fusion of batch norms into the
# layer before them, against torch.nn.utils.fusion 1.13 on the same
# weights, and the submodules PyTorch scripts import the utilities from.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import numpy as np
import pytest
import torch

from conftest import Dl


def _load(lib, module, arrays):
    with lib.no_grad():
        for (k, v), a in zip(module.state_dict().items(), arrays):
            v.copy_(lib.tensor(a))


def _random_state(rng, module):
    out = []
    for k, v in module.state_dict().items():
        if k.endswith('running_var'):
            out.append(rng.uniform(0.5, 2.0, v.shape).astype(np.float32))
        elif k.endswith('num_batches_tracked'):
            out.append(np.array(3))
        else:
            out.append(rng.standard_normal(v.shape).astype(np.float32))
    return out


@pytest.mark.parametrize("kind", ["conv", "conv-nobias", "conv-transpose", "linear"])
def test_fuse_bn_eval_as_torch(kind):
    rng = np.random.default_rng(11)

    def build(lib):
        if kind == "linear":
            layer, bn = lib.nn.Linear(5, 4), lib.nn.BatchNorm1d(4)
            x = (8, 5)
        elif kind == "conv-transpose":
            layer, bn = lib.nn.ConvTranspose2d(3, 4, 3), lib.nn.BatchNorm2d(4)
            x = (2, 3, 5, 5)
        else:
            layer, bn = lib.nn.Conv2d(3, 4, 3, bias=kind == "conv"), lib.nn.BatchNorm2d(4)
            x = (2, 3, 6, 6)
        return layer, bn, x

    tl, tb, shape = build(torch)
    arrays = (_random_state(rng, tl), _random_state(rng, tb))
    x = rng.standard_normal(shape).astype(np.float32)
    out = []
    for lib in (Dl, torch):
        layer, bn, _ = build(lib)
        _load(lib, layer, arrays[0])
        _load(lib, bn, arrays[1])
        layer.eval()
        bn.eval()
        u = lib.nn.utils.fusion
        if kind == "linear":
            fused = u.fuse_linear_bn_eval(layer, bn)
        else:
            fused = u.fuse_conv_bn_eval(layer, bn, transpose=kind == "conv-transpose")
        assert isinstance(fused.weight, lib.nn.Parameter)
        assert isinstance(fused.bias, lib.nn.Parameter)
        xs = lib.tensor(x)
        with lib.no_grad():
            out.append((fused.weight.detach().numpy().copy(), fused.bias.detach().numpy().copy(),
                        fused(xs).numpy(), bn(layer(xs)).numpy()))
        # the original layer is untouched
        np.testing.assert_array_equal(layer.weight.detach().numpy(), arrays[0][0])
    for a, b in zip(out[0], out[1]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
    # the fused layer computes what the pair computes
    np.testing.assert_allclose(out[0][2], out[0][3], rtol=1e-4, atol=1e-5)


def test_fuse_refuses_training_mode():
    conv, bn = Dl.nn.Conv2d(1, 2, 1), Dl.nn.BatchNorm2d(2)
    with pytest.raises(AssertionError, match="Fusion only for eval"):
        Dl.nn.utils.fuse_conv_bn_eval(conv, bn)


def test_fuse_conv_bn_weights_without_affine():
    rng = np.random.default_rng(2)
    w = rng.standard_normal((4, 2, 3, 3)).astype(np.float32)
    rm = rng.standard_normal(4).astype(np.float32)
    rv = rng.uniform(0.5, 2, 4).astype(np.float32)
    out = []
    for lib in (Dl, torch):
        fw, fb = lib.nn.utils.fuse_conv_bn_weights(lib.tensor(w), None, lib.tensor(rm),
                                                   lib.tensor(rv), 1e-5, None, None)
        out.append((fw.detach().numpy(), fb.detach().numpy()))
    for a, b in zip(out[0], out[1]):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


def test_utility_submodules_as_torch():
    # scripts import these from PyTorch's submodules
    from dl.nn.utils import clip_grad, convert_parameters, fusion
    assert clip_grad.clip_grad_norm_ is Dl.nn.utils.clip_grad_norm_
    assert clip_grad.clip_grad_value_ is Dl.nn.utils.clip_grad_value_
    assert convert_parameters.parameters_to_vector is Dl.nn.utils.parameters_to_vector
    assert fusion.fuse_conv_bn_eval is Dl.nn.utils.fuse_conv_bn_eval
    p = Dl.ones(3, requires_grad=True)
    p.grad = Dl.tensor([3.0, -4.0, 0.0])
    norm = clip_grad.clip_grad_norm_([p], 1.0)
    assert float(norm) == pytest.approx(5.0)
    np.testing.assert_allclose(p.grad.numpy(), [0.6, -0.8, 0.0], rtol=1e-5)
    v = convert_parameters.parameters_to_vector([Dl.ones(2), Dl.zeros(2, 2)])
    assert v.tolist() == [1, 1, 0, 0, 0, 0]
