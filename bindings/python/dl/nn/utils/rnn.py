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


__all__ = ['PackedSequence', 'pack_padded_sequence', 'pad_packed_sequence', 'pad_sequence',
           'unpad_sequence', 'pack_sequence', 'unpack_sequence']


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


def _batch_sizes(lengths):
    """batch_sizes of sorted (non-increasing) lengths: how many are longer
    than each step."""
    sizes = []
    b = len(lengths)
    for t in range(lengths[0] if lengths else 0):
        while b and lengths[b - 1] <= t:
            b -= 1
        sizes.append(b)
    return sizes


def _lengths_list(lengths):
    torch = _torch()
    if torch.is_tensor(lengths):
        if lengths.dim() != 1:
            raise RuntimeError("'lengths' argument should be a 1D CPU int64 tensor, but got "
                               "%dD %s %s tensor" % (lengths.dim(), lengths.device.type,
                                                     _type_name(lengths.dtype)))
        return [int(v) for v in lengths.tolist()]
    return [int(v) for v in lengths]


def _type_name(dtype):
    torch = _torch()
    return {torch.int64: 'Long', torch.int32: 'Int', torch.float32: 'Float',
            torch.float64: 'Double'}.get(dtype, str(dtype).replace('torch.', ''))


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """torch.nn.utils.rnn.pack_padded_sequence: a padded batch (T, B, *) or
    (B, T, *) of sequences with the given lengths as a PackedSequence. With
    enforce_sorted the lengths must be non-increasing; otherwise the batch
    is sorted first and the permutation kept. Differentiable in input."""
    torch = _torch()
    lengths = _lengths_list(lengths)
    sorted_indices = None
    if not enforce_sorted:
        order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
        lengths = [lengths[i] for i in order]
        sorted_indices = torch.tensor(order, dtype=torch.int64)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    if input.dim() < 2:
        raise IndexError('Dimension out of range (expected to be in range of [-%d, %d], but '
                         'got 1)' % (max(input.dim(), 1), max(input.dim(), 1) - 1))
    if batch_first:
        input = input.transpose(0, 1)
    steps, batch = input.shape[0], input.shape[1]
    if len(lengths) != batch:
        raise RuntimeError('Expected `len(lengths)` to be equal to batch_size, but got %d '
                           '(batch_size=%d)' % (len(lengths), batch))
    if any(v <= 0 for v in lengths):
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    if any(a < b for a, b in zip(lengths, lengths[1:])):
        raise RuntimeError('`lengths` array must be sorted in decreasing order when '
                           '`enforce_sorted` is True. You can pass `enforce_sorted=False` to '
                           'pack_padded_sequence and/or pack_sequence to sidestep this '
                           'requirement if you do not need ONNX exportability.')
    if lengths[0] > steps:
        raise RuntimeError('pack_padded_sequence: a length of %d is longer than the %d steps '
                           'of the input %s' % (lengths[0], steps, list(input.shape)))
    batch_sizes = _batch_sizes(lengths)
    # the rows of step t are its first batch_sizes[t] columns: one gather
    rows = [t * batch + b for t, n in enumerate(batch_sizes) for b in range(n)]
    flat = input.reshape((steps * batch,) + tuple(input.shape[2:]))
    data = flat.index_select(0, torch.tensor(rows, dtype=torch.int64))
    return PackedSequence(data, torch.tensor(batch_sizes, dtype=torch.int64), sorted_indices,
                          None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """torch.nn.utils.rnn.pad_packed_sequence: the inverse of
    pack_padded_sequence: (padded, lengths), the batch in its original
    order. Differentiable in sequence.data."""
    torch = _torch()
    batch_sizes = [int(v) for v in sequence.batch_sizes.tolist()]
    steps = len(batch_sizes)
    if total_length is not None:
        if total_length < steps:
            raise ValueError('Expected total_length to be at least the length of the longest '
                             'sequence in input, but got total_length=%d and max sequence '
                             'length being %d' % (total_length, steps))
        steps = total_length
    data = sequence.data
    batch = batch_sizes[0] if batch_sizes else 0
    rows = [t * batch + b for t, n in enumerate(batch_sizes) for b in range(n)]
    tail = tuple(data.shape[1:])
    padded = torch.full((steps * batch,) + tail, padding_value, dtype=data.dtype)
    padded = padded.index_copy(0, torch.tensor(rows, dtype=torch.int64), data)
    padded = padded.reshape((steps, batch) + tail)
    lengths = [sum(1 for n in batch_sizes if n > b) for b in range(batch)]
    lengths = torch.tensor(lengths, dtype=torch.int64)
    if batch_first:
        padded = padded.transpose(0, 1)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(0 if batch_first else 1, sequence.unsorted_indices)
        lengths = lengths[sequence.unsorted_indices]
    return padded, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0):
    """torch.nn.utils.rnn.pad_sequence: a list of (L_i, *) tensors stacked
    into (T, B, *) (or (B, T, *)), padded with padding_value."""
    torch = _torch()
    if torch.is_tensor(sequences):
        sequences = sequences.unbind(0)
    try:
        sequences = tuple(sequences)
    except TypeError:
        raise RuntimeError('pad_sequence: Expected iterable for input sequences, but got arg of '
                           'type: %s' % type(sequences)) from None
    if not sequences:
        raise RuntimeError('received an empty list of sequences')
    if any(s.dim() == 0 for s in sequences):
        raise IndexError('Dimension specified as 0 but tensor has no dimensions')
    steps = max(s.shape[0] for s in sequences)
    parts = []
    for s in sequences:
        if s.shape[0] < steps:
            pad = torch.full((steps - s.shape[0],) + tuple(s.shape[1:]), padding_value,
                             dtype=s.dtype)
            s = torch.cat([s, pad], 0)
        parts.append(s)
    return torch.stack(parts, 0 if batch_first else 1)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """torch.nn.utils.rnn.unpad_sequence: the padded batch as a list of its
    sequences, each cut to its length."""
    lengths = _lengths_list(lengths)
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq[:n] for seq, n in zip(padded_sequences, lengths)]


def pack_sequence(sequences, enforce_sorted=True):
    """torch.nn.utils.rnn.pack_sequence: a list of (L_i, *) tensors as a
    PackedSequence."""
    lengths = [s.size(0) for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """torch.nn.utils.rnn.unpack_sequence: a PackedSequence back as the list
    of its sequences."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
