# test_device_constructor.py: torch.device(...) against python3-torch:
# device(n) is CUDA device n, an index is an int (not a bool), never
# negative, and not given twice; a device string's index has no sign or
# leading zero. Tensor.to(n) moves to CUDA device n, as torch's.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import pytest
import torch

import dl

CASES = [('cpu',), ('cuda',), ('meta',), ('cuda:0',), ('cuda:12',), ('cpu:0',), ('cuda', 1),
         ('cpu', 0), ('meta', 0), (0,), (3,), ('cuda', None)]
BAD = [(-1,), ('cuda', -1), ('cpu', -1), ('cuda', True), ('cuda', 2.0), ('cuda', '1'),
       ('cuda:1', 1), ('cuda:1', 0), ('cuda:-1',), ('cuda:01',), ('cuda:x',), ('cuda:',),
       ('gpu',), (True,), (2.5,), (None,)]
# messages libdl words as torch does
SAME_MESSAGE = {(-1,), ('cuda', -1), ('cpu', -1), ('cuda', True), ('cuda', 2.0), ('cuda', '1'),
                ('cuda:1', 1), ('cuda:1', 0), ('cuda:-1',), ('cuda:01',), ('cuda:x',)}


@pytest.mark.parametrize('args', CASES, ids=repr)
def test_device_as_torch(args):
    d, t = dl.device(*args), torch.device(*args)
    assert (d.type, d.index) == (t.type, t.index)
    assert repr(d) == repr(t) and str(d) == str(t)
    assert dl.device(d) == d and hash(dl.device(str(d))) == hash(d)


@pytest.mark.parametrize('args', BAD, ids=repr)
def test_device_refusals_as_torch(args):
    with pytest.raises(Exception) as et:
        torch.device(*args)
    with pytest.raises(et.type) as ed:
        dl.device(*args)
    if args in SAME_MESSAGE:
        assert str(ed.value) == str(et.value)


def test_to_an_index_is_a_cuda_device():
    x = dl.arange(3.)
    if dl.cuda.device_count() == 0:
        # without a GPU, the refusal of 'cuda:0', naming why
        with pytest.raises(RuntimeError) as by_index:
            x.to(0)
        with pytest.raises(RuntimeError) as by_name:
            x.to('cuda:0')
        assert str(by_index.value) == str(by_name.value)
    else:
        y = x.to(0, dl.float64)
        assert y.device == dl.device('cuda', 0) and y.dtype == dl.float64
        assert y.cpu().tolist() == [0.0, 1.0, 2.0]
