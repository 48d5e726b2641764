# test_meta.py: the meta device: tensors with a shape, a dtype and strides
# and no data, on which every op runs its shape, dtype and error logic.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The op table is test_gradcheck_walk's WALK (one entry per autograd node
# the library makes): each case runs on the CPU and, from the same inputs
# moved to the meta device, on meta; every output, and every gradient of
# a backward pass through it, must have the CPU's shape, dtype and
# strides. Reading values of a meta tensor is an error, as in PyTorch.

import numpy as np
import pytest
import torch

import dl
from conftest import Dl
from test_gradcheck_walk import WALK, _draw, _leaf

# torch warns that scatter_reduce is in beta
pytestmark = pytest.mark.filterwarnings('ignore:scatter_reduce')

# The nodes whose cases need values that a meta tensor does not have, with
# what the error says: they must fail with that error, nothing else.
META_REFUSES = {
}


def _outputs(out):
    """The tensors an op returned, in order."""
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _outputs(o)]
    return [out] if isinstance(out, dl.Tensor) else []


def _geometry(t):
    return None if t is None else (tuple(t.shape), t.dtype, t.stride())


def _run(case, arrays, contiguous, on_meta):
    """The case's outputs and the gradients of their sum (each output
    weighted by ones) with respect to its inputs, on the CPU or on meta.
    On meta the inputs are the CPU's moved there, and what the case makes
    itself (indices, masks) is made there: the default device is meta."""
    xs = [_leaf(dl, a, contiguous) for a in arrays]
    if on_meta:
        xs = [x.detach().to('meta').requires_grad_() for x in xs]
    with dl.device('meta' if on_meta else 'cpu'):
        outs = _outputs(case.fn(dl, *xs))
        diff = [o for o in outs if o.requires_grad]
        grads = (dl.autograd.grad(diff, xs, [dl.ones_like(o) for o in diff], allow_unused=True)
                 if diff else [None] * len(xs))
    return outs, grads


@pytest.mark.parametrize('name', sorted(n for n in WALK if WALK[n] is not None))
@pytest.mark.parametrize('contiguous', [True, False], ids=['contiguous', 'strided'])
def test_walk_on_meta(name, contiguous, rng):
    for case in WALK[name]:
        arrays = _draw(rng, case)
        outs, grads = _run(case, arrays, contiguous, False)
        if name in META_REFUSES:
            with pytest.raises(RuntimeError, match=META_REFUSES[name]):
                _run(case, arrays, contiguous, True)
            continue
        meta_outs, meta_grads = _run(case, arrays, contiguous, True)
        assert len(meta_outs) == len(outs), name
        for i, (m, c) in enumerate(zip(meta_outs, outs)):
            assert m.is_meta, f'{name}: output {i} is on {m.device}'
            assert _geometry(m) == _geometry(c), f'{name}: output {i}'
        for i, (m, c) in enumerate(zip(meta_grads, grads)):
            assert (m is None) == (c is None), f'{name}: gradient {i}'
            if m is not None:
                assert m.is_meta, f'{name}: gradient {i} is on {m.device}'
                assert _geometry(m) == _geometry(c), f'{name}: gradient {i}'


def test_walk_refusals_are_current():
    """Every refusal listed is of a node that still has an entry."""
    assert set(META_REFUSES) <= set(WALK)
