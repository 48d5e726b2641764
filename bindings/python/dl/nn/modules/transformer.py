# dl.nn.modules.transformer (torch.nn.modules.transformer): the Transformer layers.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from ..transformer import (Transformer, TransformerDecoder, TransformerDecoderLayer,
                           TransformerEncoder, TransformerEncoderLayer)
from . import _home

__all__ = ['Transformer', 'TransformerEncoder', 'TransformerDecoder', 'TransformerEncoderLayer',
           'TransformerDecoderLayer']

_home(__name__)
