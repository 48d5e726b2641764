# dl.utils.data (torch.utils.data): data sets, samplers and DataLoader,
# and the data set readers of dl.datasets.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from ...datasets import fashion_mnist, read_idx
from .dataloader import DataLoader, default_collate, default_convert, get_worker_info
from . import distributed
from .dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset, Subset,
                      TensorDataset, random_split)
from .distributed import DistributedSampler
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler,
                      SubsetRandomSampler, WeightedRandomSampler)

__all__ = ['fashion_mnist', 'read_idx', 'DataLoader', 'default_collate', 'default_convert',
           'get_worker_info', 'ConcatDataset', 'Dataset', 'IterableDataset', 'Subset',
           'TensorDataset', 'random_split', 'BatchSampler', 'RandomSampler', 'Sampler',
           'SequentialSampler', 'SubsetRandomSampler', 'distributed', 'ChainDataset',
           'DistributedSampler', 'WeightedRandomSampler']
