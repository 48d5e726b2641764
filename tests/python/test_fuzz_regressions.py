# test_fuzz_regressions.py: the bugs the differential fuzzer
# (tests/fuzz/difffuzz.py) found, each against torch: the same call raises
# the same exception class under both, or returns the same values.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import warnings

import pytest
import torch

from conftest import Dl

# index_select and embedding checked no index when another dim was empty
# (the gather read nothing). torch raises a RuntimeError there and an
# IndexError when the tensor has elements; libdl an IndexError both times.
EMPTY_INDEX = [
    "lib.ones(2, 0, 3).index_select(0, lib.tensor([7]))",
    "lib.zeros(0, 3).index_select(1, lib.tensor([7]))",
    "lib.zeros(0, 3).index_select(0, lib.tensor([0]))",
    "lib.nn.functional.embedding(lib.tensor([[5, -1]]), lib.zeros(4, 0))",
]

# (call text run with lib = Dl or torch, that both must refuse with an
# exception of the same family)
RAISES = [
    # index_put with a mask of the wrong shape
    "lib.arange(24.).reshape(4, 2, 3).index_put_((lib.tensor([True, False]),), lib.ones(3))",
    "lib.arange(24.).reshape(4, 2, 3).index_put((lib.tensor([0]), lib.tensor([True] * 3)),"
    " lib.ones(3))",
    # index_copy and index_add broadcast their source
    "lib.zeros(3, 4).index_copy_(0, lib.tensor([0, 0]), lib.ones(1, 4))",
    "lib.zeros(3, 4).index_copy_(0, lib.tensor([0]), lib.ones(4))",
    "lib.zeros(3, 4).index_add_(0, lib.tensor([0, 0]), lib.ones(1, 4))",
    "lib.zeros(3, 4).index_add(0, lib.tensor([0]), lib.ones(1, 3))",
    "lib.zeros(3, 4).index_copy(1, lib.tensor([0]), lib.ones(2, 1))",
    "lib.zeros(3, 4).index_add_(0, lib.tensor([0]), 1.)",
    # a NaN learning rate was dropped by GObject (with a warning) for the
    # default
    "lib.optim.Adagrad([lib.nn.Parameter(lib.ones(2))], lr=float('nan'))",
    "lib.optim.Adam([lib.nn.Parameter(lib.ones(2))], lr=0.1, eps=float('nan'))",
    "lib.optim.RMSprop([lib.nn.Parameter(lib.ones(2))], lr=float('nan'))",
    # a 0-d tensor's flatten checked no dim
    "lib.tensor(-3).flatten(2)",
    "lib.tensor(-3).flatten(0, -2)",
    # one_hot of an empty tensor with num_classes 0
    "lib.nn.functional.one_hot(lib.zeros(0, dtype=lib.int64), 0)",
    # losses took integer or other-dtype targets
    "lib.nn.functional.binary_cross_entropy(lib.ones(3, 4) / 2, lib.arange(12).reshape(3, 4))",
    "lib.nn.functional.binary_cross_entropy(lib.ones(3) / 2, lib.ones(3, dtype=lib.float64))",
    "lib.nn.functional.kl_div(lib.ones(3), lib.arange(3), reduction='sum')",
    # ints beyond int64 were written as floats, strings were parsed
    "lib.ones(3).fill_(2**70)",
    "lib.ones(3).fill_('1')",
    "lib.ones(3).fill_(lib.ones(2))",
    "lib.ones(2, 3).__setitem__(0, 2**70)",
    "lib.ones(2, 3).__setitem__(lib.tensor([0]), -2**70)",
    # a pooling stride of 0 was taken for "missing" (the kernel size)
    "lib.nn.AvgPool2d(3, stride=0)(lib.ones(1, 3, 5))",
    "lib.nn.MaxPool2d(2, stride=(1, 0))(lib.ones(1, 3, 5))",
    # -1 is AdaptiveAvgPool2d's C value for None, so -1 given passed for it
    "lib.nn.AdaptiveAvgPool2d(-1)(lib.ones(3, 2, 3))",
    # index_copy took a negative index (index_put wraps it)
    "lib.zeros(3, 4).index_copy_(0, lib.tensor([-1]), lib.ones(1, 4))",
    "lib.zeros(3, 4).index_add_(0, lib.tensor([3]), lib.ones(1, 4))",
    # binary_cross_entropy_with_logits took an integer target
    "lib.nn.functional.binary_cross_entropy_with_logits(lib.ones(3), lib.arange(3))",
]


@pytest.mark.parametrize("expr", RAISES)
def test_raises_as_torch(expr):
    with pytest.raises(Exception) as expected:
        eval(expr, {"lib": torch})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(Exception) as got:
            eval(expr, {"lib": Dl})
    # the families of difffuzz.py: TypeError, IndexError, the rest
    def family(e):
        return TypeError if isinstance(e, TypeError) else \
            IndexError if isinstance(e, IndexError) else RuntimeError
    assert family(got.value) is family(expected.value), (got.value, expected.value)


@pytest.mark.parametrize("expr", EMPTY_INDEX)
def test_empty_index_checked(expr):
    with pytest.raises(Exception):
        eval(expr, {"lib": torch})
    with pytest.raises(IndexError):
        eval(expr, {"lib": Dl})
    # and the indices in range still select nothing
    assert Dl.ones(2, 0, 3).index_select(0, Dl.tensor([1, 0, 1])).shape == (3, 0, 3)


def test_index_copy_add_right_shapes():
    for lib in (torch, Dl):
        x = lib.zeros(3, 4)
        x.index_copy_(1, lib.tensor([0, 2]), lib.ones(3, 2))
        x.index_add_(0, lib.tensor([1, 1]), lib.ones(2, 4))
        y = lib.zeros(3).index_copy_(0, lib.tensor([1]), lib.tensor(5.))
        assert x.tolist() == [[1, 0, 1, 0], [3, 2, 3, 2], [1, 0, 1, 0]]
        assert y.tolist() == [0, 5, 0]


def test_repeat_copies():
    # repeat (2, 1) of a vector was a view of it: writing to the result
    # wrote to the input, and to every repeated row
    x = Dl.arange(3.)
    r = x.repeat(2, 1)
    r[0, 0] = 9
    assert x.tolist() == [0, 1, 2]
    assert r.tolist() == [[9, 1, 2], [0, 1, 2]]
    y = Dl.arange(4.)
    y.repeat(1).add_(1)
    assert y.tolist() == [0, 1, 2, 3]
    z = Dl.arange(3., requires_grad=True)
    z.repeat(2, 2).sum().backward()
    assert z.grad.tolist() == [4, 4, 4]


def test_optimizer_nan_lr():
    # torch 1.13's SGD takes a NaN lr (its check is lr < 0) and fails no
    # step; libdl refuses it at once, as torch's other optimizers do
    with pytest.raises(ValueError, match='learning rate'):
        Dl.optim.SGD([Dl.nn.Parameter(Dl.ones(2))], lr=float('nan'))


def test_optimizer_infinite_options():
    # torch takes an infinite weight decay (0 <= inf); GObject's property
    # would not, so it goes in as a group option
    p = Dl.nn.Parameter(Dl.ones(2))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt = Dl.optim.SGD([p], lr=0.1, weight_decay=float('inf'))
    assert opt.param_groups[0]['weight_decay'] == float('inf')
    assert opt.param_groups[0]['lr'] == 0.1


@pytest.mark.parametrize("expr", [
    "Dl.nn.LeakyReLU(float('nan'))",
    "Dl.nn.ELU(alpha=float('inf'))",
    "Dl.nn.BatchNorm1d(3, eps=float('nan'))",
    "Dl.nn.HuberLoss(delta=float('nan'))",
    "Dl.nn.MultiheadAttention(4, 2, dropout=float('nan'))",
    "Dl.optim.lr_scheduler.ExponentialLR("
    "Dl.optim.SGD([Dl.nn.Parameter(Dl.ones(1))], lr=0.1), gamma=float('nan'))",
])
def test_nonfinite_hyperparameters(expr):
    # a double property cannot hold a NaN or an infinity: GObject printed
    # a warning and kept the default; now a ValueError (torch takes most of
    # them and computes NaNs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match='finite'):
            eval(expr)


def test_chunk_split_extremes():
    # chunk of an empty dim into 2**40 pieces aborted in g_new0 (torch
    # raises bad_alloc); split by a size near 2**63 overflowed the count
    with pytest.raises(RuntimeError):
        Dl.zeros(0, 3).chunk(2**40, 0)
    assert len(Dl.zeros(0, 3).chunk(5, 0)) == len(torch.zeros(0, 3).chunk(5, 0))
    assert [t.shape[0] for t in Dl.ones(5).split(2**63 - 1)] == \
        [t.shape[0] for t in torch.ones(5).split(2**63 - 1)]


@pytest.mark.parametrize("expr", [
    "lib.hstack([lib.zeros(0), lib.ones(2, 2), lib.ones(2, 2)])",
    "lib.hstack([lib.tensor(1.), lib.ones(2)])",
    "lib.hstack([lib.ones(2, 1), lib.ones(2, 3)])",
])
def test_hstack_dim(expr):
    # hstack chose dim 1 when any tensor had 2 dims; torch looks at the
    # first only (an empty vector then goes along dim 0, skipped by cat)
    assert tuple(eval(expr, {"lib": Dl}).shape) == tuple(eval(expr, {"lib": torch}).shape)
