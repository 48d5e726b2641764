# test_data.py: torch.utils.data's data sets, samplers and DataLoader,
# against python3-torch's.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import collections
import itertools
import os

import numpy as np
import pytest

import torch

from conftest import Dl

D = Dl.utils.data
T = torch.utils.data


def tensors(lib, rng, n=11):
    x = rng.standard_normal((n, 3, 2)).astype(np.float32)
    y = rng.integers(0, 5, n)
    return lib.tensor(x), lib.tensor(y)


def flat(batch):
    if isinstance(batch, (list, tuple)):
        return [flat(b) for b in batch]
    if isinstance(batch, dict):
        return {k: flat(v) for k, v in batch.items()}
    if hasattr(batch, 'numpy'):
        return (str(batch.dtype).replace('torch.', ''), batch.numpy().tolist())
    return batch


@pytest.mark.parametrize('batch_size,drop_last', [(1, False), (4, False), (4, True), (11, True),
                                                  (20, False), (20, True)])
@pytest.mark.parametrize('num_workers', [0, 2])
def test_tensor_dataset_batches_match_torch(rng, batch_size, drop_last, num_workers):
    seed = int(rng.integers(1 << 30))
    dx, dy = tensors(Dl, np.random.default_rng(seed))
    tx, ty = tensors(torch, np.random.default_rng(seed))
    dl = D.DataLoader(D.TensorDataset(dx, dy), batch_size=batch_size, drop_last=drop_last,
                      num_workers=num_workers)
    tl = T.DataLoader(T.TensorDataset(tx, ty), batch_size=batch_size, drop_last=drop_last)
    assert len(dl) == len(tl)
    got, want = [flat(b) for b in dl], [flat(b) for b in tl]
    assert got == want
    assert [flat(b) for b in dl] == want  # a second pass


Point = collections.namedtuple('Point', 'x y')


class Mixed:
    """A map-style data set of structures: PyTorch's default_collate must
    batch it the same way in both libraries."""

    def __init__(self, lib, n=9, fail_at=None):
        self.lib, self.n, self.fail_at = lib, n, fail_at

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if i == self.fail_at:
            raise ValueError('sample %d is broken' % i)
        return {'image': self.lib.arange(6).reshape(2, 3) * i, 'label': i % 3,
                'weight': i / 4, 'name': 's%d' % i, 'flag': i % 2 == 0,
                'pair': (self.lib.tensor([i, -i]), np.float32(i) / 2),
                'array': np.full((2,), i, np.int32), 'point': Point(i, 2 * i)}


@pytest.mark.parametrize('num_workers', [0, 2])
def test_collate_of_mixed_structures_matches_torch(num_workers):
    dl = D.DataLoader(Mixed(Dl), batch_size=4, num_workers=num_workers)
    tl = T.DataLoader(Mixed(torch), batch_size=4)
    got, want = [flat(b) for b in dl], [flat(b) for b in tl]
    assert got == want
    b = next(iter(dl))
    assert type(b['point']).__name__ == 'Point' and isinstance(b['name'], list)


def test_default_collate_and_convert():
    for sample in [[1, 2, 3], [1.5, 2.5], [(1, 'a'), (2, 'b')], [np.ones(2), np.zeros(2)],
                   [{'a': [1, 2]}, {'a': [3, 4]}], [True, False]]:
        assert flat(D.default_collate(sample)) == flat(T.default_collate(sample))
    assert flat(D.default_convert(np.arange(3))) == flat(T.default_convert(np.arange(3)))
    with pytest.raises(RuntimeError, match='equal size'):
        D.default_collate([[1, 2], [3]])
    with pytest.raises(TypeError):
        D.default_collate([object(), object()])


def test_no_batching_and_custom_collate():
    ds = D.TensorDataset(Dl.arange(5))
    assert [flat(b) for b in D.DataLoader(ds, batch_size=None)] == \
        [flat(b) for b in T.DataLoader(T.TensorDataset(torch.arange(5)), batch_size=None)]
    out = list(D.DataLoader(ds, batch_size=2, collate_fn=lambda s: len(s)))
    assert out == [2, 2, 1]


def test_shuffle_is_a_seeded_permutation():
    n = 23
    ds = D.TensorDataset(Dl.arange(n))

    def order(loader):
        return [v for b in loader for v in b[0].tolist()]

    a = order(D.DataLoader(ds, batch_size=5, shuffle=True,
                           generator=Dl.Generator().manual_seed(7)))
    b = order(D.DataLoader(ds, batch_size=5, shuffle=True,
                           generator=Dl.Generator().manual_seed(7)))
    c = order(D.DataLoader(ds, batch_size=5, shuffle=True, num_workers=2,
                           generator=Dl.Generator().manual_seed(7)))
    assert sorted(a) == list(range(n)) and a == b == c and a != list(range(n))
    loader = D.DataLoader(ds, batch_size=5, shuffle=True, generator=Dl.Generator().manual_seed(7))
    first, second = order(loader), order(loader)
    assert sorted(second) == list(range(n)) and first != second
    # the default generator: manual_seed reproduces it
    Dl.manual_seed(3)
    d = order(D.DataLoader(ds, batch_size=4, shuffle=True))
    Dl.manual_seed(3)
    assert order(D.DataLoader(ds, batch_size=4, shuffle=True)) == d


@pytest.mark.parametrize('num_workers', [0, 2])
def test_python_dataset_in_order_with_workers(num_workers):
    class Squares(D.Dataset):
        def __len__(self):
            return 30

        def __getitem__(self, i):
            return Dl.tensor([i * i]), i

    got = [flat(b) for b in D.DataLoader(Squares(), batch_size=4, num_workers=num_workers,
                                         shuffle=True, generator=Dl.Generator().manual_seed(2))]
    want = [flat(b) for b in D.DataLoader(Squares(), batch_size=4,
                                          shuffle=True, generator=Dl.Generator().manual_seed(2))]
    assert got == want


def test_worker_info_and_init_fn():
    class WhoLoads(D.Dataset):
        def __len__(self):
            return 6

        def __getitem__(self, i):
            info = D.get_worker_info()
            return info.id if info else -1

    assert D.get_worker_info() is None
    ids = [v for b in D.DataLoader(WhoLoads(), batch_size=1, num_workers=2) for v in b.tolist()]
    assert ids == [0, 1, 0, 1, 0, 1]
    ids = [v for b in D.DataLoader(WhoLoads(), batch_size=2) for v in b.tolist()]
    assert ids == [-1] * 6


@pytest.mark.parametrize('num_workers', [0, 2])
def test_dataset_errors_reach_the_caller(num_workers):
    it = iter(D.DataLoader(Mixed(Dl, fail_at=5), batch_size=2, num_workers=num_workers))
    next(it)
    next(it)
    with pytest.raises(ValueError, match='sample 5 is broken') as e:
        next(it)
    if num_workers:
        assert 'in DataLoader worker process' in str(e.value)
        assert 'Traceback' in str(e.value)


@pytest.mark.skipif(Dl is torch, reason='libdl only: torch waits for the batch that never comes')
def test_unpicklable_batch_is_an_error():
    class Local:
        pass

    class Bad(D.Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return Local()

    with pytest.raises(Exception, match='in DataLoader worker process'):
        list(D.DataLoader(Bad(), batch_size=2, num_workers=2, collate_fn=lambda s: s))


def test_no_fds_or_processes_outlive_the_loader():
    def fds():
        return len(os.listdir('/proc/self/fd'))

    ds = Mixed(Dl, n=20)
    list(D.DataLoader(ds, batch_size=3, num_workers=2))  # warm up imports
    before = fds()
    for _ in range(3):
        list(D.DataLoader(ds, batch_size=3, num_workers=2))
        it = iter(D.DataLoader(ds, batch_size=3, num_workers=2))
        next(it)
        del it
    assert fds() <= before
    import multiprocessing
    assert multiprocessing.active_children() == []


def test_bad_arguments():
    ds = D.TensorDataset(Dl.arange(4))
    for kwargs in [dict(batch_size=0), dict(batch_size=-1), dict(num_workers=-1),
                   dict(sampler=[0, 1], shuffle=True),
                   dict(batch_sampler=[[0, 1]], batch_size=2),
                   dict(batch_size=None, drop_last=True)]:
        with pytest.raises(ValueError):
            D.DataLoader(ds, **kwargs)
    with pytest.raises(AssertionError, match='Size mismatch'):
        D.TensorDataset(Dl.zeros(3), Dl.zeros(4))
    with pytest.raises(RuntimeError, match=r'\[3\] at entry 0 and \[4\] at entry 1'):
        D.default_collate([Dl.zeros(3), Dl.zeros(4)])
    with pytest.raises(IndexError):
        D.TensorDataset(Dl.zeros(3))[5]


def test_samplers_and_batch_sampler():
    ds = list(range(10))
    assert list(D.SequentialSampler(ds)) == list(T.SequentialSampler(ds))
    bs = D.BatchSampler(D.SequentialSampler(ds), 3, False)
    assert list(bs) == list(T.BatchSampler(T.SequentialSampler(ds), 3, False))
    assert len(D.BatchSampler(ds, 3, True)) == len(T.BatchSampler(ds, 3, True)) == 3
    r = list(D.RandomSampler(ds, generator=Dl.Generator().manual_seed(0)))
    assert sorted(r) == ds
    r = list(D.RandomSampler(ds, replacement=True, num_samples=40,
                             generator=Dl.Generator().manual_seed(0)))
    assert len(r) == 40 and set(r) <= set(ds)
    assert len(list(D.RandomSampler(ds, num_samples=25))) == 25
    assert sorted(D.SubsetRandomSampler([3, 5, 7])) == [3, 5, 7]
    with pytest.raises(ValueError):
        D.BatchSampler(ds, 0, False)
    with pytest.raises(ValueError):
        D.RandomSampler(ds, num_samples=0)
    # a batch sampler and a sampler given to the loader
    got = [b[0].tolist() for b in D.DataLoader(D.TensorDataset(Dl.arange(10) * 2),
                                               batch_sampler=[[1, 2], [9]])]
    assert got == [[2, 4], [18]]
    got = [b[0].tolist() for b in D.DataLoader(D.TensorDataset(Dl.arange(10) * 2),
                                               sampler=[3, 1, 4], batch_size=2)]
    assert got == [[6, 2], [8]]


def test_subset_concat_random_split():
    ds = D.TensorDataset(Dl.arange(10))
    sub = D.Subset(ds, [4, 2, 9])
    assert len(sub) == 3 and sub[1][0].item() == 2
    cat = D.ConcatDataset([ds, sub])
    tcat = T.ConcatDataset([T.TensorDataset(torch.arange(10)),
                            T.Subset(T.TensorDataset(torch.arange(10)), [4, 2, 9])])
    assert len(cat) == len(tcat) == 13 and cat.cumulative_sizes == tcat.cumulative_sizes
    assert [cat[i][0].item() for i in range(-13, 13)] == [tcat[i][0].item()
                                                          for i in range(-13, 13)]
    assert len(ds + sub) == 13
    loaded = [b[0].tolist() for b in D.DataLoader(cat, batch_size=5, num_workers=2)]
    assert loaded == [list(range(5)), [5, 6, 7, 8, 9], [4, 2, 9]]
    with pytest.raises(AssertionError):
        D.ConcatDataset([])
    parts = D.random_split(ds, [3, 7], generator=Dl.Generator().manual_seed(1))
    assert [len(p) for p in parts] == [3, 7]
    assert sorted(parts[0].indices + parts[1].indices) == list(range(10))
    again = D.random_split(ds, [3, 7], generator=Dl.Generator().manual_seed(1))
    assert again[0].indices == parts[0].indices
    fr = D.random_split(ds, [0.5, 0.3, 0.2])
    tfr = T.random_split(T.TensorDataset(torch.arange(10)), [0.5, 0.3, 0.2])
    assert [len(p) for p in fr] == [len(p) for p in tfr]
    assert [len(p) for p in D.random_split(list(range(11)), [0.5, 0.5])] == \
        [len(p) for p in T.random_split(list(range(11)), [0.5, 0.5])]
    with pytest.raises(ValueError, match='Sum of input lengths'):
        D.random_split(ds, [3, 3])


FMNIST = '/usr/share/datasets/fashion-mnist'


@pytest.mark.skipif(not os.path.isdir(FMNIST), reason='dataset-fashion-mnist is not installed')
@pytest.mark.skipif(Dl is torch, reason='libdl only: torchvision is not installed')
def test_fashion_mnist_dataset():
    train = Dl.datasets.FashionMNIST(train=True)
    test = Dl.datasets.FashionMNIST(train=False, mean=0.5, std=0.25)
    assert len(train) == 60000 and len(test) == 10000
    images, labels = Dl.datasets.fashion_mnist(train=False)
    image, label = test[17]
    assert tuple(image.shape) == (1, 28, 28) and isinstance(label, int)
    expected = (images[17].numpy().astype(np.float64) / 255 - 0.5) / 0.25
    np.testing.assert_allclose(image[0].numpy(), expected, rtol=1e-6, atol=1e-6)
    assert label == labels[17].item() and test.targets[17].item() == label
    assert test.classes[label] == Dl.fashion_mnist_class_name(label)
    with pytest.raises(IndexError):
        test[10000]
    # in C (workers) and through a transform (Python) the batches agree
    sub = D.Subset(test, list(range(0, 10000, 37)))
    fast = [flat(b) for b in D.DataLoader(sub, batch_size=64, num_workers=2)]
    slow_ds = Dl.datasets.FashionMNIST(train=False, mean=0.5, std=0.25,
                                       transform=lambda x: x)
    slow = [flat(b) for b in D.DataLoader(D.Subset(slow_ds, sub.indices), batch_size=64)]
    assert fast == slow
    with pytest.raises(FileNotFoundError, match='no-such-folder'):
        Dl.datasets.FashionMNIST(root='/no-such-folder')
    with pytest.raises(RuntimeError, match='download'):
        Dl.datasets.FashionMNIST(download=True)
    assert 'Number of datapoints: 10000' in repr(test)


@pytest.mark.skipif(not os.path.isdir(FMNIST), reason='dataset-fashion-mnist is not installed')
@pytest.mark.skipif(Dl is torch, reason='libdl only: a GObject interface')
def test_fashion_mnist_dataset_async_init(tmp_path):
    """GAsyncInitable reads the files off the main thread (what an app with
    a main loop does) and gives the data set that the blocking init gives;
    a missing folder is the same error, through init_finish."""
    from gi.repository import Gio, GLib
    loop = GLib.MainLoop()
    results = []

    def load(root):
        ds = Dl.FashionMnistDataset(root=root, train=False, mean=0.5, std=0.25)

        def done(obj, res):
            try:
                results.append(obj.init_finish(res))
            except GLib.Error as e:
                results.append(e)
            loop.quit()
        ds.init_async(GLib.PRIORITY_DEFAULT, None, done)
        loop.run()
        return ds, results.pop()

    ds, ok = load(None)
    assert ok is True and isinstance(ds, Gio.AsyncInitable)
    blocking = Dl.FashionMnistDataset.new(None, False, 0.5, 0.25)
    assert ds.get_length() == blocking.get_length() == 10000
    for i in (0, 17, 9999):
        a, b = ds.get_item(i), blocking.get_item(i)
        assert np.array_equal(a[0].numpy(), b[0].numpy()) and a[1].item() == b[1].item()
    missing = str(tmp_path / 'nowhere')
    _, error = load(missing)
    assert isinstance(error, GLib.Error) and error.matches(Dl.error_quark(), Dl.Error.IO)
    assert missing in error.message


@pytest.mark.skipif(Dl is torch, reason='libdl only: a data set written as a Dl.Dataset subclass')
@pytest.mark.parametrize('num_workers', [0, 2])
def test_gobject_dataset_subclass_in_python(num_workers):
    # a data set written as a GObject subclass in Python: the C loader
    # calls it on this thread (workers only run compiled data sets), and
    # the Python loader indexes it when it needs to (a custom collate)
    class Squares(Dl.Dataset):
        def do_get_length(self):
            return 9

        def do_load_item(self, index):
            return [Dl.tensor([float(index)]), Dl.tensor(index * index)]

    ds = Squares()
    assert not ds.is_thread_safe()
    batches = list(D.DataLoader(ds, batch_size=4, num_workers=num_workers))
    assert [b[1].tolist() for b in batches] == [[0, 1, 4, 9], [16, 25, 36, 49], [64]]
    assert tuple(batches[0][0].shape) == (4, 1)
    sizes = list(D.DataLoader(ds, batch_size=4, collate_fn=len))
    assert sizes == [4, 4, 1]
    with pytest.raises(IndexError):
        D.DataLoader(ds, batch_size=4, collate_fn=len).dataset[9]


# ---- WeightedRandomSampler, ChainDataset, DistributedSampler --------------------------

def test_weighted_random_sampler():
    from dl.utils.data import WeightedRandomSampler
    weights = [0.1, 0.0, 0.6, 0.3]
    g = Dl.Generator().manual_seed(3)
    s = WeightedRandomSampler(weights, 4000, generator=g)
    assert len(s) == 4000
    drawn = list(s)
    assert len(drawn) == 4000 and all(isinstance(i, int) for i in drawn)
    counts = np.bincount(drawn, minlength=4) / 4000
    assert counts[1] == 0
    np.testing.assert_allclose(counts, [0.1, 0.0, 0.6, 0.3], atol=0.03)
    # the same generator state, the same draw
    again = WeightedRandomSampler(weights, 4000, generator=Dl.Generator().manual_seed(3))
    assert list(again) == drawn
    # without replacement: each index at most once, never a zero weight
    once = list(WeightedRandomSampler([1, 2, 0, 3, 4], 4, replacement=False))
    assert sorted(once) == [0, 1, 3, 4]
    assert isinstance(s.weights, Dl.Tensor) and s.weights.dtype == Dl.float64


@pytest.mark.parametrize("args,message", [
    (([1.0, 2.0], 0), "num_samples should be a positive integer value, but got num_samples=0"),
    (([1.0, 2.0], True), "num_samples should be a positive integer value"),
    (([1.0, 2.0], 2, 1), "replacement should be a boolean value, but got replacement=1"),
    (([[1.0, 2.0]], 2), r"weights should be a 1d sequence but given weights have shape \(1, 2\)"),
])
def test_weighted_random_sampler_errors_as_torch(args, message):
    for lib in (Dl, torch):
        with pytest.raises(ValueError, match=message):
            lib.utils.data.WeightedRandomSampler(*args)


def test_chain_dataset_as_torch():
    out = []
    for lib in (Dl, torch):
        D = lib.utils.data

        class Stream(D.IterableDataset):
            def __init__(self, start, n):
                self.start, self.n = start, n

            def __iter__(self):
                return iter(range(self.start, self.start + self.n))

            def __len__(self):
                return self.n

        chain = D.ChainDataset([Stream(0, 3), Stream(10, 2)])
        with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
            list(D.ChainDataset([D.TensorDataset(lib.ones(2))]))
        batches = [b.tolist() for b in D.DataLoader(chain, batch_size=2)]
        out.append((list(chain), len(chain), batches))
    assert out[0] == out[1]
    assert out[0] == ([0, 1, 2, 10, 11], 5, [[0, 1], [2, 10], [11]])


def test_distributed_sampler_exported():
    from dl.utils.data import DistributedSampler
    from dl.utils.data.distributed import DistributedSampler as D
    assert DistributedSampler is D
    s = DistributedSampler(list(range(10)), num_replicas=2, rank=1, shuffle=False)
    assert list(s) == list(torch.utils.data.DistributedSampler(list(range(10)), num_replicas=2,
                                                               rank=1, shuffle=False))



# ---- the seeds a pass draws -------------------------------------------------------------
# libdl's random streams are not PyTorch's, so these tests check in each
# library that a pass draws what PyTorch's draws, in its order: the default
# generator after a pass is where that many seed draws leave it.

class Numbered:
    """A map-style Python data set of (tensor, index) samples, for either library."""

    def __init__(self, lib, n=23):
        self.lib, self.n = lib, n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return self.lib.tensor([i, 2 * i]), i


def _seed_draw(lib, generator=None):
    return int(lib.empty((), dtype=lib.int64).random_(generator=generator).item())


def _rand_after_draws(lib, seed, n_draws):
    lib.manual_seed(seed)
    for _ in range(n_draws):
        _seed_draw(lib)
    return lib.rand(4).tolist()


@pytest.mark.parametrize('num_workers', [0, 2])
@pytest.mark.parametrize('source', ['tensor', 'python'])
@pytest.mark.parametrize('kwargs', [dict(batch_size=4), dict(batch_size=5, shuffle=True),
                                    dict(batch_size=5, shuffle=True, drop_last=True),
                                    dict(batch_size=3, shuffle=True, seeded=True)],
                         ids=['sequential', 'shuffle', 'shuffle-drop', 'shuffle-generator'])
def test_a_pass_draws_its_base_seed_as_torch(num_workers, source, kwargs):
    # PyTorch's iterator draws a base seed from the loader's generator (the
    # default one when None) before the sampler draws, with or without
    # workers; a shuffled pass with a generator is then the permutation
    # that generator gives after that draw
    for lib, workers in ((Dl, num_workers), (torch, 0)):
        kw = dict(kwargs)
        seeded = kw.pop('seeded', False)
        if seeded:
            kw['generator'] = lib.Generator().manual_seed(7)
        ds = (lib.utils.data.TensorDataset(lib.arange(23), lib.arange(23) * 3)
              if source == 'tensor' else Numbered(lib))
        lib.manual_seed(11)
        loader = lib.utils.data.DataLoader(ds, num_workers=workers, **kw)
        order = [v for b in loader for v in b[1].tolist()]
        after = lib.rand(4).tolist()
        # a seeded loader draws both from its own generator
        draws = 0 if seeded else 1 + kw.get('shuffle', False)
        assert after == _rand_after_draws(lib, 11, draws), lib
        n, scale = 20 if kw.get('drop_last') else 23, 3 if source == 'tensor' else 1
        if seeded:
            g = lib.Generator().manual_seed(7)
            _seed_draw(lib, g)
            want = lib.randperm(23, generator=g).tolist()[:n]
        elif kw.get('shuffle'):
            assert len(set(order)) == n and order != sorted(order), lib
            want = [i // scale for i in order]
        else:
            want = list(range(n))
        assert order == [i * scale for i in want], lib


@pytest.mark.parametrize('num_workers', [0, 4])
def test_sampling_with_replacement_without_end_as_torch(num_workers):
    # minGPT's Trainer: RandomSampler(replacement=True, num_samples=int(1e10))
    # with pin_memory, iterated a few batches at a time: each iterator draws
    # the base seed, then the sampler's seed, and the sampler draws 32
    # indices at a time from a generator of that seed
    for lib, workers in ((Dl, num_workers), (torch, 0)):
        data = lib.utils.data
        ds = Numbered(lib, 50)
        lib.manual_seed(3407)
        loader = data.DataLoader(ds, sampler=data.RandomSampler(ds, replacement=True,
                                                                 num_samples=int(1e10)),
                                 shuffle=False, pin_memory=True, batch_size=8,
                                 num_workers=workers)
        assert len(loader) == 1250000000
        first = [b[1].tolist() for b in itertools.islice(iter(loader), 5)]
        again = [b[1].tolist() for b in itertools.islice(iter(loader), 2)]
        after = lib.rand(4).tolist()

        lib.manual_seed(3407)
        want = []
        for batches in (5, 2):
            _seed_draw(lib)
            g = lib.Generator().manual_seed(_seed_draw(lib))
            idx = [i for _ in range(2) for i in lib.randint(0, 50, (32,), generator=g).tolist()]
            want.append([idx[8 * b:8 * b + 8] for b in range(batches)])
        assert [first, again] == want, lib
        assert after == _rand_after_draws(lib, 3407, 4), lib


@pytest.mark.parametrize('extra', [0, 1, 3])
def test_more_workers_than_cpus_warn_as_torch(extra):
    import warnings
    cpus = len(os.sched_getaffinity(0))
    messages = []
    for lib in (Dl, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')
            loader = lib.utils.data.DataLoader(Numbered(lib, 4), batch_size=2,
                                               num_workers=cpus + extra)
            got = [b[1].tolist() for b in loader]
        assert got == [[0, 1], [2, 3]]
        messages.append([(w.category, str(w.message)) for w in caught])
    assert messages[0] == messages[1]
    assert len(messages[0]) == (2 if extra else 0)
    if extra:
        assert messages[0][0][1].startswith('This DataLoader will create %d worker processes '
                                            'in total. Our suggested max number of worker in '
                                            'current system is %d,' % (cpus + extra, cpus))


class Seeds:
    """What a worker's generators give: the seed, Python's, numpy's and the
    library's next numbers, and the thread count."""

    def __init__(self, lib):
        self.lib = lib

    def __len__(self):
        return 4

    def __getitem__(self, i):
        import random
        info = self.lib.utils.data.get_worker_info()
        return (info.id, info.seed, random.random(), float(np.random.random_sample()),
                self.lib.rand(1).item(), self.lib.get_num_threads())


def test_workers_seed_python_numpy_and_threads_as_torch():
    # torch 1.13 seeds each worker's Python generator with base_seed + id,
    # numpy's with a hash of the two (its _generate_state) and its own
    # generator with base_seed + id, on one thread
    import random
    from torch.utils.data._utils.worker import _generate_state
    for lib in (Dl, torch):
        lib.manual_seed(5)
        loader = lib.utils.data.DataLoader(Seeds(lib), batch_size=None, num_workers=2)
        rows = [tuple(r) for r in loader]
        assert [r[0] for r in rows] == [0, 1, 0, 1]
        base = rows[0][1]
        for wid, seed, py, npy, own, threads in rows[:2]:
            assert seed == base + wid
            assert py == random.Random(seed).random()
            assert npy == np.random.RandomState(_generate_state(base, wid)).random_sample()
            lib.manual_seed(seed)
            assert own == lib.rand(1).item()
            assert threads == 1


@pytest.mark.parametrize('num_workers', [0, 2])
@pytest.mark.parametrize('source', ['tensor', 'python'])
def test_a_shuffled_pass_draws_its_seed_when_torch_does(num_workers, source):
    # the base seed at iter(); the sampler's seed at the first batch without
    # workers, at iter() with them (torch's workers get indices at once)
    def expect(lib, draws_before, draws_between):
        lib.manual_seed(11)
        for _ in range(draws_before):
            _seed_draw(lib)
        a = lib.rand(2).tolist()
        for _ in range(draws_between):
            _seed_draw(lib)
        return a, lib.rand(2).tolist()

    for lib in (Dl, torch):
        ds = (lib.utils.data.TensorDataset(lib.arange(10)) if source == 'tensor'
              else Numbered(lib, 10))
        loader = lib.utils.data.DataLoader(ds, batch_size=4, shuffle=True,
                                           num_workers=num_workers)
        lib.manual_seed(11)
        it = iter(loader)
        assert len(it) == 3
        a = lib.rand(2).tolist()
        got = [v for b in it for v in b[0 if source == 'tensor' else 1].tolist()]
        assert sorted(got) == list(range(10))
        b = lib.rand(2).tolist()
        assert (a, b) == (expect(lib, 2, 0) if num_workers else expect(lib, 1, 1)), lib


def test_len_of_a_pass_as_torch():
    class Stream(D.IterableDataset):
        def __iter__(self):
            return iter(range(5))

        def __len__(self):
            return 5

    class TStream(T.IterableDataset):
        def __iter__(self):
            return iter(range(5))

        def __len__(self):
            return 5

    for lib in (Dl, torch):
        data = lib.utils.data
        for ds in (data.TensorDataset(lib.arange(10)), Numbered(lib, 10)):
            assert len(iter(data.DataLoader(ds, batch_size=4))) == 3
            assert len(iter(data.DataLoader(ds, batch_size=4, drop_last=True))) == 2
        stream = (Stream if lib is Dl else TStream)()
        assert len(data.DataLoader(stream, batch_size=2)) == 3
        with pytest.raises(TypeError, match="'_InfiniteConstantSampler' has no len"):
            len(iter(data.DataLoader(stream, batch_size=2)))
