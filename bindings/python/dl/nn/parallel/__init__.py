# dl.nn.parallel (torch.nn.parallel): DataParallel, which runs its module on
# the one device libdl has, and DistributedDataParallel, which comes with
# distributed training (not yet in libdl: constructing it is an error).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from .data_parallel import DataParallel
from .distributed import DistributedDataParallel

__all__ = ['DataParallel', 'DistributedDataParallel']
