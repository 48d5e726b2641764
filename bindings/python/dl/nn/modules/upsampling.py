# dl.nn.modules.upsampling (torch.nn.modules.upsampling): Upsample and its 2-d forms.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from ..resample import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d
from . import _home

__all__ = ['Upsample', 'UpsamplingNearest2d', 'UpsamplingBilinear2d']

_home(__name__)
