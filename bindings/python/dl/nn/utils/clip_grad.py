# clip_grad.py: dl.nn.utils.clip_grad (torch.nn.utils.clip_grad), the
# module PyTorch's clipping functions live in; they are dl.nn.utils's.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from . import clip_grad_norm, clip_grad_norm_, clip_grad_value_

__all__ = ['clip_grad_norm_', 'clip_grad_norm', 'clip_grad_value_']
