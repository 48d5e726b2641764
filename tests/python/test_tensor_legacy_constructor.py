# test_tensor_legacy_constructor.py: torch.Tensor(...) called as a
# constructor (word_language_model's generate.py builds its input with
# torch.Tensor([[idx]]).long()), against python3-torch.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import pytest
import torch

import dl

from conftest import assert_same


def test_tensor_from_data_sizes_and_empty():
    assert_same(dl.Tensor([[3]]).long(), torch.Tensor([[3]]).long())
    assert_same(dl.Tensor([1.5, 2]), torch.Tensor([1.5, 2]))
    assert tuple(dl.Tensor().shape) == tuple(torch.Tensor().shape) == (0,)
    assert tuple(dl.Tensor(2, 3).shape) == tuple(torch.Tensor(2, 3).shape)
    assert tuple(dl.Tensor(dl.Size([4])).shape) == tuple(torch.Tensor(torch.Size([4])).shape)
    assert dl.Tensor(2).dtype == dl.float32


def test_tensor_of_tensor_aliases_any_dtype():
    d, t = dl.arange(3), torch.arange(3)
    ad, at = dl.Tensor(d), torch.Tensor(t)
    assert ad is not d and at is not t
    assert_same(ad, at)
    ad[0] = 7
    at[0] = 7
    assert_same(d, t)


def test_tensor_bad_arguments():
    for args, kwargs in [((3.5,), {}), (('a',), {}), (([1],), {'dtype': torch.long})]:
        with pytest.raises(TypeError) as et:
            torch.Tensor(*args, **kwargs)
        kw = {k: dl.int64 for k in kwargs}
        with pytest.raises(TypeError) as ed:
            dl.Tensor(*args, **kw)
        assert type(ed.value) is type(et.value)
    with pytest.raises(TypeError, match='data must be a sequence'):
        dl.Tensor(3.5)
