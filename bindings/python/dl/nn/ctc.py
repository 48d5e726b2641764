# ctc.py: torch.nn.functional.ctc_loss, torch.ctc_loss and torch.nn.CTCLoss
# over libdl's dl_ctc_loss (the per-sequence losses and their gradient, in
# C), with torch's reductions: 'mean' divides each loss by its target
# length (at least 1) before averaging over the batch.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from .._lib import Dl, GLib, _is_tensor, _translate
from .modules import Module

__all__ = ['ctc_loss', 'CTCLoss']


def _lengths(v):
    if _is_tensor(v):
        return [int(x) for x in v.reshape(-1).tolist()]
    return [int(x) for x in v]


def _reduce(res, target_lengths, reduction, like):
    if reduction == 'none':
        return res
    if reduction == 'sum':
        return res.sum()
    if reduction == 'mean':
        from .. import _creation
        t = _creation.tensor(target_lengths, dtype=like.dtype).clamp(min=1)
        return (res / t).mean()
    raise ValueError('%s is not a valid value for reduction' % reduction)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction='mean',
             zero_infinity=False):
    """torch.nn.functional.ctc_loss: the CTC loss of log_probs (T, N, C) or
    (T, C) against targets ((N, S) padded or concatenated)."""
    if reduction not in ('none', 'mean', 'sum'):
        raise ValueError('%s is not a valid value for reduction' % reduction)
    tl = _lengths(target_lengths)
    try:
        res = Dl.ctc_loss(log_probs, targets, _lengths(input_lengths), tl, int(blank),
                          bool(zero_infinity))
    except GLib.Error as e:
        raise _translate(e) from None
    if zero_infinity:
        # as torch's composite: the C op has zeroed the infinite losses and
        # their gradients already; this records torch's WhereBackward0
        from .._indexing import where
        res = where(res == float('inf'), res.new_zeros(()), res)
    return _reduce(res, tl, reduction, log_probs)


def _torch_ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=1,
                    zero_infinity=False):
    """torch.ctc_loss: the reduction an int (0 none, 1 mean, 2 sum)."""
    return ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                    ('none', 'mean', 'sum')[reduction], zero_infinity)


class CTCLoss(Module):
    """torch.nn.CTCLoss(blank=0, reduction='mean', zero_infinity=False)."""

    def __init__(self, blank=0, reduction='mean', zero_infinity=False):
        super().__init__()
        self.blank, self.reduction, self.zero_infinity = blank, reduction, zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        return ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                        self.reduction, self.zero_infinity)
