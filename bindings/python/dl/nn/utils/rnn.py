# rnn.py: dl.nn.utils.rnn (torch.nn.utils.rnn): the packed sequences that
# the recurrent layers take, and the functions that pad and pack batches of
# sequences of unequal lengths.
#
# A PackedSequence holds the time steps of a batch one after another: the
# rows of step t are the sequences longer than t, longest first, and
# batch_sizes[t] says how many there are. sorted_indices says which input
# sequence each column is, unsorted_indices the inverse permutation.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from collections import namedtuple


__all__ = ['PackedSequence']


class PackedSequence(namedtuple('PackedSequence',
                                ['data', 'batch_sizes', 'sorted_indices', 'unsorted_indices'])):
    """torch.nn.utils.rnn.PackedSequence: data (the packed steps), batch_sizes
    (int64, on the CPU), sorted_indices and unsorted_indices (int64 or None)."""
    __slots__ = ()

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = _invert_permutation(sorted_indices)
        if batch_sizes is None:
            # PackedSequence(data_and_sizes): the old tuple form
            data, batch_sizes = data
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        """self with data converted as Tensor.to converts it; self when
        nothing changes. batch_sizes stays as it is."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        rest = {k: v for k, v in kwargs.items() if k not in ('device', 'dtype')}
        move = (lambda t: None if t is None else t.to(data.device, **rest))
        return type(self)(data, self.batch_sizes, move(self.sorted_indices),
                          move(self.unsorted_indices))

    def cpu(self, *args, **kwargs):
        return self.to(*args, device='cpu', **kwargs)

    def double(self):
        return self.to(dtype=_torch().float64)

    def float(self):
        return self.to(dtype=_torch().float32)

    def long(self):
        return self.to(dtype=_torch().int64)

    def int(self):
        return self.to(dtype=_torch().int32)

    @property
    def is_cuda(self):
        return self.data.is_cuda

    def is_pinned(self):
        return False


def _invert_permutation(permutation):
    if permutation is None:
        return None
    torch = _torch()
    output = torch.empty_like(permutation)
    output.scatter_(0, permutation, torch.arange(0, permutation.numel(), dtype=torch.int64))
    return output


def _torch():
    # the whole PyTorch-compatible namespace (the override), loaded by now
    from gi.repository import Dl as torch
    return torch
