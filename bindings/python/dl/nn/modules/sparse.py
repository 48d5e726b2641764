# dl.nn.modules.sparse (torch.nn.modules.sparse): Embedding.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from ..conv import Embedding
from . import _home

__all__ = ['Embedding']

from ..embedding_bag import EmbeddingBag  # noqa: E402
__all__ += ['EmbeddingBag']

_home(__name__)
