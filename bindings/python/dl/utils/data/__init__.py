# dl.utils.data (torch.utils.data): for now the data set readers of
# dl.datasets; Dataset and DataLoader come with the data-loading milestone.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from ...datasets import fashion_mnist, read_idx

__all__ = ['fashion_mnist', 'read_idx']
