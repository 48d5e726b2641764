# dataloader.py: torch.utils.data.DataLoader and default_collate.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Three ways to load a pass, chosen per DataLoader:
# - a data set libdl has in C (TensorDataset, Subset/ConcatDataset of
#   those), the default collate and the default samplers: Dl.DataLoader
#   loads and stacks the batches in C, on num_workers threads;
# - otherwise with num_workers=0: samples from the Python data set in this
#   process, collated by collate_fn;
# - otherwise worker processes, as PyTorch's: each gets lists of indices,
#   loads and collates them and sends the batch back; the batches are
#   given in order, and a worker's exception is raised here with its
#   traceback.

import collections
import itertools
import multiprocessing
import numbers
import os
import pickle
import queue
import random
import sys
import traceback
import warnings

from multiprocessing.reduction import ForkingPickler

import numpy as np

from ..._creation import as_tensor, tensor
from ..._indexing import stack
from ..._dtype import float64, int64
from ..._lib import Dl, GLib, _is_tensor, _translate
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler, _draw_seed, _pass_generator

__all__ = ['DataLoader', 'default_collate', 'default_convert', 'get_worker_info']


def default_convert(data):
    """torch.utils.data.default_convert: numpy arrays into tensors, in
    nested structures; the rest unchanged."""
    if _is_tensor(data):
        return data
    if isinstance(data, np.ndarray) and data.dtype.kind not in 'USO':
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return type(data)({k: default_convert(v) for k, v in data.items()})
    if isinstance(data, tuple) and hasattr(data, '_fields'):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return [default_convert(d) for d in data]
    return data


_COLLATE_ERROR = ('default_collate: batch must contain tensors, numpy arrays, numbers, dicts '
                  'or lists; found {}')


def default_collate(batch):
    """torch.utils.data.default_collate: a list of samples into a batch:
    tensors (and numpy arrays) stacked, Python floats into a float64
    tensor, ints into an int64 one, strings kept in a list, and mappings,
    named tuples and sequences collated element by element."""
    elem = batch[0]
    if _is_tensor(elem):
        try:
            return stack(batch, 0)
        except GLib.Error as e:
            raise _translate(e) from None
    if isinstance(elem, np.ndarray) and elem.dtype.kind not in 'USO':
        return default_collate([as_tensor(b) for b in batch])
    if isinstance(elem, np.generic) and elem.dtype.kind not in 'USO':
        return as_tensor(np.array(batch))
    if isinstance(elem, (np.ndarray, np.generic)):
        raise TypeError(_COLLATE_ERROR.format(elem.dtype))
    if isinstance(elem, bool):
        return tensor(batch)
    if isinstance(elem, float):
        return tensor(batch, dtype=float64)
    if isinstance(elem, int):
        return tensor(batch, dtype=int64)
    if isinstance(elem, numbers.Number):
        return tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        try:
            return type(elem)({k: default_collate([d[k] for d in batch]) for k in elem})
        except TypeError:
            return {k: default_collate([d[k] for d in batch]) for k in elem}
    if isinstance(elem, tuple) and hasattr(elem, '_fields'):
        return type(elem)(*(default_collate(s) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        size = len(next(it))
        if not all(len(e) == size for e in it):
            raise RuntimeError('each element in list of batch should be of equal size')
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [default_collate(s) for s in transposed]
        try:
            return type(elem)([default_collate(s) for s in transposed])
        except TypeError:
            return [default_collate(s) for s in transposed]
    raise TypeError(_COLLATE_ERROR.format(type(elem)))


class _WorkerInfo:
    def __init__(self, id, num_workers, seed, dataset):
        self.id, self.num_workers, self.seed, self.dataset = id, num_workers, seed, dataset

    def __repr__(self):
        return 'WorkerInfo(id=%d, num_workers=%d, seed=%d, dataset=%r)' % (
            self.id, self.num_workers, self.seed, self.dataset)


_worker_info = None


def get_worker_info():
    """torch.utils.data.get_worker_info: in a worker process, its id,
    num_workers, seed and dataset copy; None in the main process."""
    return _worker_info


class _ExceptionWrapper:
    """An exception raised in a worker, carried back as its type and
    traceback text, raised again in the main process as PyTorch does."""

    def __init__(self, exc_info, where):
        self.exc_type = exc_info[0]
        self.exc_msg = ''.join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        msg = 'Caught %s %s.\nOriginal %s' % (self.exc_type.__name__, self.where, self.exc_msg)
        if self.exc_type is KeyError:
            msg = KeyError(msg)
        try:
            exception = self.exc_type(msg)
        except TypeError:
            raise RuntimeError(msg) from None
        raise exception


class _Pickled:
    """A batch pickled in the worker."""

    def __init__(self, data):
        self.payload = bytes(ForkingPickler.dumps(data))

    def load(self):
        return pickle.loads(self.payload)


def _numpy_worker_seed(base_seed, worker_id):
    """The four 32-bit words torch 1.13 seeds numpy's global generator with
    in worker @worker_id: its _generate_state is numpy's SeedSequence over
    the words (worker id, base seed's low half, its high half)."""
    return [int(v) for v in
            np.random.SeedSequence(worker_id + (base_seed << 32)).generate_state(4)]


def _worker_loop(dataset, index_queue, result_queue, collate_fn, auto_collation, base_seed,
                 worker_id, num_workers, init_fn):
    # seeded as torch 1.13 seeds its workers: one thread, and Python's,
    # libdl's and numpy's generators from the pass's base seed
    global _worker_info
    from ... import _api, _creation
    _api.set_num_threads(1)
    seed = base_seed + worker_id
    random.seed(seed)
    _creation.manual_seed(seed)
    np.random.seed(_numpy_worker_seed(base_seed, worker_id))
    _worker_info = _WorkerInfo(worker_id, num_workers, seed, dataset)
    try:
        if init_fn is not None:
            init_fn(worker_id)
    except Exception:
        result_queue.put((None, _ExceptionWrapper(sys.exc_info(),
                                                  'in DataLoader worker process %d' % worker_id)))
        return
    while True:
        job = index_queue.get()
        if job is None:
            break
        idx, indices = job
        try:
            if auto_collation:
                data = collate_fn([dataset[i] for i in indices])
            else:
                data = collate_fn(dataset[indices])
            # pickled here, not in the queue's feeder thread, so that a batch
            # that cannot be pickled is an error the caller sees
            data = _Pickled(data)
        except Exception:
            data = _ExceptionWrapper(sys.exc_info(), 'in DataLoader worker process %d'
                                     % worker_id)
        result_queue.put((idx, data))


class DataLoader:
    """torch.utils.data.DataLoader(dataset, batch_size=1, shuffle=None,
    sampler=None, batch_sampler=None, num_workers=0, collate_fn=None,
    pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
    multiprocessing_context=None, generator=None, *, prefetch_factor=2,
    persistent_workers=False, pin_memory_device='')."""

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=2, persistent_workers=False, pin_memory_device=''):
        if num_workers < 0:
            raise ValueError('num_workers option should be non-negative; use num_workers=0 to '
                             'disable multiprocessing.')
        if timeout < 0:
            raise ValueError('timeout option should be non-negative')
        if persistent_workers and num_workers == 0:
            raise ValueError('persistent_workers option needs num_workers > 0')
        if isinstance(dataset, Dl.Dataset):
            # a GObject data set: the C loader runs it, or, with a custom
            # collate or sampler, Python indexes it
            dataset = _GObjectDataset(dataset)
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.persistent_workers = persistent_workers
        self.generator = generator
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if shuffle not in (None, False):
                raise ValueError('DataLoader with IterableDataset: expected unspecified shuffle '
                                 'option, but got shuffle=%s' % shuffle)
            if sampler is not None:
                raise ValueError('DataLoader with IterableDataset: expected unspecified sampler '
                                 'option, but got sampler=%s' % sampler)
            if batch_sampler is not None:
                raise ValueError('DataLoader with IterableDataset: expected unspecified '
                                 'batch_sampler option, but got batch_sampler=%s'
                                 % batch_sampler)
        if sampler is not None and shuffle:
            raise ValueError('sampler option is mutually exclusive with shuffle')
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError('batch_sampler option is mutually exclusive with batch_size, '
                                 'shuffle, sampler, and drop_last')
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError('batch_size=None option disables auto-batching and is mutually '
                             'exclusive with drop_last')
        self._default_sampler = sampler is None
        if sampler is None and not self._iterable:
            sampler = (RandomSampler(dataset, generator=generator) if shuffle
                       else SequentialSampler(dataset))
        if batch_size is not None and batch_sampler is None and not self._iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self._shuffle = bool(shuffle)
        self._default_collate = collate_fn is None
        if collate_fn is None:
            collate_fn = default_collate if batch_size is not None or batch_sampler is not None \
                else default_convert
        self.collate_fn = collate_fn
        self.check_worker_number_rationality()

    def check_worker_number_rationality(self):
        """Warns, as torch 1.13 does, when num_workers is more than the
        CPUs this process may run on (its affinity mask, else the CPU
        count)."""
        if not self.num_workers:
            return
        suggest, cpuset_checked = None, False
        if hasattr(os, 'sched_getaffinity'):
            try:
                suggest, cpuset_checked = len(os.sched_getaffinity(0)), True
            except Exception:
                pass
        if suggest is None:
            suggest = os.cpu_count()
        if suggest is not None and self.num_workers <= suggest:
            return
        if suggest is None:
            suggested = ('DataLoader is not able to compute a suggested max number of worker '
                         'in current system.')
        else:
            suggested = ('Our suggested max number of worker in current system is {}{}, which '
                         'is smaller than what this DataLoader is going to create.').format(
                             suggest, '' if cpuset_checked else
                             ' (`cpuset` is not taken into account)')
        warnings.warn('This DataLoader will create {} worker processes in total. {} Please be '
                      'aware that excessive worker creation might get DataLoader running slow '
                      'or even freeze, lower the worker number to avoid potential '
                      'slowness/freeze if necessary.'.format(self.num_workers, suggested))

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    def __len__(self):
        if self._iterable:
            n = len(self.dataset)
            if self.batch_size is not None:
                n = n // self.batch_size if self.drop_last else -(-n // self.batch_size)
            return n
        return len(self.batch_sampler if self._auto_collation else self.sampler)

    def _c_dataset(self):
        """The Dl.Dataset that the C loader loads this pass from, or None."""
        c = None if self._iterable else getattr(self.dataset, '_dl_dataset', None)
        if c is None or not self._default_collate or not self._default_sampler \
                or not self._auto_collation or self.worker_init_fn is not None \
                or type(self.batch_sampler) is not BatchSampler:
            return None
        return c

    def _c_loader(self, c):
        """The Dl.DataLoader that loads this pass in C."""
        generator = _pass_generator(self.generator) if self._shuffle else None
        return Dl.DataLoader(dataset=c, batch_size=self.batch_size, shuffle=self._shuffle,
                             drop_last=self.drop_last, num_workers=self.num_workers,
                             prefetch_factor=self.prefetch_factor or 2, generator=generator)

    def __iter__(self):
        # each pass first draws its base seed from the loader's generator
        # (the default one when None), with or without workers, as
        # PyTorch's _BaseDataLoaderIter does: the default generator is then
        # where PyTorch leaves it, and a shuffled pass's seed (or its
        # permutation from the loader's generator) comes after it: at the
        # first batch without workers, at once with them (PyTorch's workers
        # are given their first indices when they start)
        if self.num_workers:
            self.check_worker_number_rationality()
        base_seed = _draw_seed(self.generator)
        c = self._c_dataset()
        if c is not None:
            return _CIterator(lambda: self._c_loader(c), len(self), self.num_workers > 0)
        if self.num_workers == 0:
            return _SingleProcessIterator(self._single_process(),
                                          None if self._iterable else len(self))
        return _MultiProcessIterator(self, base_seed)

    def _index_batches(self):
        if self._iterable:
            return None
        return iter(self.batch_sampler if self._auto_collation else self.sampler)

    def _single_process(self):
        if self._iterable:
            it = iter(self.dataset)
            if self.batch_size is None:
                for sample in it:
                    yield self.collate_fn(sample)
                return
            while True:
                samples = list(itertools.islice(it, self.batch_size))
                if not samples or (self.drop_last and len(samples) < self.batch_size):
                    return
                yield self.collate_fn(samples)
        for indices in self._index_batches():
            if self._auto_collation:
                yield self.collate_fn([self.dataset[i] for i in indices])
            else:
                yield self.collate_fn(self.dataset[indices])


class _GObjectDataset:
    """A Dl.Dataset seen as a map-style Python data set: samples are tuples
    of tensors."""

    def __init__(self, dataset):
        self.dataset = dataset
        self._dl_dataset = dataset  # for the C loader

    def __len__(self):
        return self.dataset.get_length()

    def __getitem__(self, index):
        try:
            return tuple(self.dataset.get_item(int(index)))
        except GLib.Error as e:
            raise _translate(e) from None


class _SingleProcessIterator:
    """A pass loaded in this process; its length is the loader's, as
    PyTorch's iterators have (an iterable data set's pass has none: its
    sampler, in PyTorch, is endless)."""

    def __init__(self, batches, length):
        self._batches, self._length = batches, length

    def __iter__(self):
        return self

    def __len__(self):
        if self._length is None:
            raise TypeError("object of type '_InfiniteConstantSampler' has no len()")
        return self._length

    def __next__(self):
        return next(self._batches)


class _CIterator:
    """A pass of the C loader, started at once or at its first batch."""

    def __init__(self, make_loader, length, start_now):
        self._make_loader, self._it, self._length = make_loader, None, length
        if start_now:
            self._start()

    def _start(self):
        try:
            self._it = self._make_loader().iterate()
        except GLib.Error as e:
            raise _translate(e) from None

    def __iter__(self):
        return self

    def __len__(self):
        return self._length

    def __next__(self):
        if self._it is None:
            self._start()
        try:
            ok, batch = self._it.next()
        except GLib.Error as e:
            raise _translate(e) from None
        if not ok:
            raise StopIteration
        return list(batch)


class _MultiProcessIterator:
    """Worker processes with index queues; batches come back in any order
    and are given in order."""

    def __init__(self, loader, base_seed):
        if loader._iterable:
            raise NotImplementedError('DataLoader: num_workers > 0 with an IterableDataset is '
                                      'not supported yet')
        ctx = loader.multiprocessing_context
        if ctx is None:
            ctx = multiprocessing.get_context('fork')
        elif isinstance(ctx, str):
            ctx = multiprocessing.get_context(ctx)
        self._batches = loader._index_batches()
        self._length = len(loader)
        self._timeout = loader.timeout or None
        self._result_queue = ctx.Queue()
        self._index_queues = []
        self._workers = []
        for i in range(loader.num_workers):
            iq = ctx.Queue()
            w = ctx.Process(target=_worker_loop,
                            args=(loader.dataset, iq, self._result_queue, loader.collate_fn,
                                  loader._auto_collation, base_seed, i, loader.num_workers,
                                  loader.worker_init_fn),
                            daemon=True)
            w.start()
            self._index_queues.append(iq)
            self._workers.append(w)
        self._send = 0
        self._rcvd = 0
        self._ready = {}
        self._done = False
        for _ in range(loader.num_workers * (loader.prefetch_factor or 2)):
            self._dispatch()

    def _dispatch(self):
        indices = next(self._batches, None)
        if indices is None:
            return
        self._index_queues[self._send % len(self._workers)].put((self._send, indices))
        self._send += 1

    def __iter__(self):
        return self

    def __len__(self):
        return self._length

    def __next__(self):
        if self._done or self._rcvd >= self._send:
            self._shutdown()
            raise StopIteration
        while self._rcvd not in self._ready:
            try:
                idx, data = self._result_queue.get(timeout=self._timeout or 5.0)
            except queue.Empty:
                dead = [w.pid for w in self._workers if not w.is_alive()]
                if dead:
                    self._shutdown()
                    raise RuntimeError('DataLoader worker (pid(s) %s) exited unexpectedly'
                                       % ', '.join(map(str, dead))) from None
                if self._timeout:
                    self._shutdown()
                    raise RuntimeError('DataLoader timed out after %s seconds'
                                       % self._timeout) from None
                continue
            if idx is None:  # worker_init_fn failed
                self._shutdown()
                data.reraise()
            self._ready[idx] = data
        data = self._ready.pop(self._rcvd)
        self._rcvd += 1
        self._dispatch()
        if isinstance(data, _ExceptionWrapper):
            self._shutdown()
            data.reraise()
        return data.load()

    def _shutdown(self):
        if self._done:
            return
        self._done = True
        for q in self._index_queues:
            try:
                q.put(None)
            except (OSError, ValueError):
                pass
        for w in self._workers:
            w.join(timeout=5)
            if w.is_alive():
                w.terminate()
                w.join()
        for q in self._index_queues + [self._result_queue]:
            q.close()
            q.join_thread()

    def __del__(self):
        self._shutdown()

