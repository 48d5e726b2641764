# test_grid_sample.py: nn.functional.affine_grid and grid_sample (a
# spatial transformer's sampling) against PyTorch: values for every mode,
# padding mode and align_corners, gradients for the input, the grid and
# theta, and the argument errors.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

from conftest import assert_same, compare_grads, pair, rand_np

import dl.nn.functional as F


@pytest.mark.parametrize("size", [(2, 3, 4, 5), (1, 1, 1, 3), (2, 2, 3, 2, 4)])
@pytest.mark.parametrize("align", [True, False])
def test_affine_grid(rng, size, align):
    shape = (size[0], 2, 3) if len(size) == 4 else (size[0], 3, 4)
    x, t = pair(rand_np(rng, shape, "float64"), "float64")
    assert_same(F.affine_grid(x, size, align_corners=align),
                TF.affine_grid(t, size, align_corners=align))
    compare_grads(lambda v: F.affine_grid(v, size, align_corners=align),
                  lambda v: TF.affine_grid(v, size, align_corners=align),
                  rand_np(rng, shape, "float64"))


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_grid_sample(rng, mode, padding, align, dtype):
    a = rand_np(rng, (2, 3, 5, 6), dtype)
    # past the borders too, to reach the padding
    g = rand_np(rng, (2, 4, 7, 2), dtype, low=-1.6, high=1.6)
    (x, t), (gx, gt) = pair(a, dtype), pair(g, dtype)
    assert_same(F.grid_sample(x, gx, mode, padding, align),
                TF.grid_sample(t, gt, mode, padding, align))


@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [True, False])
def test_grid_sample_grad(rng, padding, align):
    a = rand_np(rng, (2, 2, 4, 5), "float64")
    g = rand_np(rng, (2, 3, 3, 2), "float64", low=-1.4, high=1.4)
    compare_grads(lambda u, v: F.grid_sample(u, v, 'bilinear', padding, align),
                  lambda u, v: TF.grid_sample(u, v, 'bilinear', padding, align), a, g)
    compare_grads(lambda u: F.grid_sample(u, pair(g, "float64")[0], 'nearest', padding, align),
                  lambda u: TF.grid_sample(u, pair(g, "float64")[1], 'nearest', padding, align),
                  a)


def test_spatial_transformer_identity(rng):
    """The identity theta samples the image back (align_corners=False)."""
    a = rand_np(rng, (1, 2, 6, 7), "float32")
    x, _ = pair(a)
    theta = pair(np.array([[[1.0, 0, 0], [0, 1, 0]]], dtype=np.float32))[0]
    grid = F.affine_grid(theta, (1, 2, 6, 7), align_corners=False)
    np.testing.assert_allclose(F.grid_sample(x, grid, align_corners=False).numpy(), a,
                               atol=1e-5)


def test_errors_and_warnings(rng):
    x, t = pair(rand_np(rng, (1, 1, 3, 3), "float32"))
    gx, gt = pair(rand_np(rng, (1, 2, 2, 2), "float32"))
    for lib, a, g in ((F, x, gx), (TF, t, gt)):
        with pytest.raises(ValueError):
            lib.grid_sample(a, g, mode='cubic', align_corners=False)
        with pytest.raises(ValueError):
            lib.grid_sample(a, g, padding_mode='wrap', align_corners=False)
        with pytest.raises(RuntimeError):
            lib.grid_sample(a, g.double(), align_corners=False)
        with pytest.warns(UserWarning):
            lib.grid_sample(a, g)
    with pytest.raises(NotImplementedError):
        F.grid_sample(x, gx, mode='bicubic', align_corners=False)
    th, tt = pair(rand_np(rng, (1, 2, 3), "float32"))
    for lib, a in ((F, th), (TF, tt)):
        with pytest.raises(ValueError):
            lib.affine_grid(a, (1, 1, 3, 3, 3), align_corners=False)
        with pytest.raises(NotImplementedError):
            lib.affine_grid(a, (1, 3), align_corners=False)


def test_upsample_aliases(rng):
    x, t = pair(rand_np(rng, (1, 2, 3, 4), "float32"))
    with pytest.warns(UserWarning):
        got = F.upsample_nearest(x, scale_factor=2)
    assert_same(got, TF.upsample_nearest(t, scale_factor=2))
    with pytest.warns(UserWarning):
        got = F.upsample_bilinear(x, size=(5, 7))
    assert_same(got, TF.upsample_bilinear(t, size=(5, 7)))
