# test_tensor_is_pinned.py: Tensor.is_pinned(device=None), against
# python3-torch (CPU-only here): libdl allocates no pinned memory, so the
# answer is False for every tensor, and the device argument is checked as
# torch checks it. nanoGPT's and DataLoader users' code asks it.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import pytest
import torch

import dl


def _tensors(m):
    x = m.arange(12.).reshape(3, 4)
    return [x, x.t(), x[1:, ::2], m.zeros(0), m.tensor(3), m.arange(5),
            m.ones(2, requires_grad=True), m.nn.Parameter(m.ones(2)), x.to(m.float64)]


@pytest.mark.parametrize('device', [None, 0, 3, 'cpu', 'cuda', 'cuda:1', 'meta'])
def test_is_pinned_false_for_every_tensor(device):
    for d, t in zip(_tensors(dl), _tensors(torch)):
        assert d.is_pinned(device) is t.is_pinned(device) is False
    assert dl.zeros(2).is_pinned(device=device) is torch.zeros(2).is_pinned(device=device)


def test_is_pinned_device_objects():
    for name in ['cpu', 'cuda', 'cuda:0']:
        assert dl.zeros(2).is_pinned(dl.device(name)) is torch.zeros(2).is_pinned(
            torch.device(name))


@pytest.mark.parametrize('device', [-1, 2.5, True, [0], 'bad', 'cuda:x'])
def test_is_pinned_bad_device(device):
    with pytest.raises(Exception) as et:
        torch.zeros(2).is_pinned(device)
    with pytest.raises(et.type) as ed:
        dl.zeros(2).is_pinned(device)
    if et.type is TypeError or str(et.value).startswith('Device index'):
        assert str(ed.value) == str(et.value)
