#!/usr/bin/python3
# data.py: data loading and the CNN training epoch against PyTorch.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage (from the source root, after `ninja -C build`):
#   GI_TYPELIB_PATH=build/introspection LD_LIBRARY_PATH=build/libdl \
#   PYTHONPATH=bindings/python:build/bindings/python /usr/bin/python3 bench/data.py
#   [--rounds R] [--samples N] [--skip-epoch]
#
# 1. A DataLoader over a TensorDataset of the Fashion-MNIST training images
#    (float32 [60000, 1, 28, 28] and int64 labels), batch 128, shuffled,
#    one whole pass, with 0 and with 2 workers (libdl's load in C on
#    threads; torch's in processes). Least time of R passes each.
# 2. One epoch of the main job's CNN (examples/python/fashion_mnist.py) on
#    the first N training images (default 10000): DataLoader (batch 128,
#    shuffled, 2 workers) and Adam, then the test accuracy; each library
#    in its own process, torch on os.cpu_count() threads, so that its
#    peak RSS is its own. Both start from the same weights (torch's
#    initialisation, copied).
# Ratios are libdl / torch (targets <= 1.0; accuracies within 0.02; peak
# RSS of libdl <= torch's). Always exits 0.

import argparse
import json
import os
import resource
import subprocess
import sys
import time

from sidebyside import least_times

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
EXAMPLE = os.path.join(ROOT, 'examples', 'python')


def load_pass(lib, images, labels, workers):
    ds = lib.utils.data.TensorDataset(lib.from_numpy(images), lib.from_numpy(labels))
    loader = lib.utils.data.DataLoader(ds, batch_size=128, shuffle=True, num_workers=workers)

    def run():
        n = 0
        for x, y in loader:
            n += y.shape[0]
        assert n == images.shape[0]
    return run


def loader_table(rounds):
    import numpy as np
    import torch
    import gi
    gi.require_version('Dl', '1.0')
    from gi.repository import Dl
    torch.set_num_threads(os.cpu_count())
    images, labels = Dl.datasets.fashion_mnist(train=True)
    x = ((images.numpy().astype(np.float32) / 255 - 0.2860) / 0.3530)[:, None]
    y = labels.numpy().astype(np.int64)
    print('%-22s %10s %10s %7s' % ('DataLoader pass', 'torch', 'libdl', 'ratio'))
    for workers in (0, 2):
        # one timed pass per round (a pass is long), after untimed ones
        bt, bd = least_times(load_pass(torch, x, y, workers), load_pass(Dl, x, y, workers),
                             rounds, 0.0, warmup=1)
        print('%-22s %8.3f s %8.3f s %7.2f' % ('%d workers' % workers, bt, bd, bd / bt),
              flush=True)


def example_module(lib_name):
    """examples/python/fashion_mnist.py as a module, its `import` line
    made `import torch` for torch: the same script, for either library."""
    import types
    with open(os.path.join(EXAMPLE, 'fashion_mnist.py')) as f:
        source = f.read()
    if lib_name == 'torch':
        # torch has no datasets (torchvision's are not installed); the
        # benchmark makes its own TensorDatasets
        source = source.replace('from gi.repository import Dl as torch  # noqa: E402',
                                'import torch').replace('torch.datasets.FashionMNIST', 'None')
    module = types.ModuleType('fashion_mnist_' + lib_name)
    exec(compile(source, 'fashion_mnist.py', 'exec'), module.__dict__)
    return module


def epoch_child(lib_name, samples, weights_path):
    """Runs in a child process: one epoch, prints a JSON line."""
    import numpy as np
    example = example_module(lib_name)
    lib = example.torch
    if lib_name == 'torch':
        lib.set_num_threads(os.cpu_count())
    import gi
    gi.require_version('Dl', '1.0')
    from gi.repository import Dl
    images, labels = Dl.datasets.fashion_mnist(train=True)
    timages, tlabels = Dl.datasets.fashion_mnist(train=False)

    def dataset(im, lb, n):
        x = ((im.numpy()[:n].astype(np.float32) / 255 - 0.2860) / 0.3530)[:, None]
        return lib.utils.data.TensorDataset(lib.from_numpy(x.copy()),
                                            lib.from_numpy(lb.numpy()[:n].astype(np.int64)))
    train = lib.utils.data.DataLoader(dataset(images, labels, samples), batch_size=128,
                                      shuffle=True, num_workers=2)
    test = lib.utils.data.DataLoader(dataset(timages, tlabels, 10000), batch_size=1000)
    lib.manual_seed(0)
    model = example.CNN()
    state = np.load(weights_path)
    model.load_state_dict({k: lib.from_numpy(state[k].copy()) for k in state.files})
    optimizer = lib.optim.Adam(model.parameters(), lr=2e-3)
    criterion = lib.nn.CrossEntropyLoss()
    t0 = time.perf_counter()
    for x, y in train:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
    seconds = time.perf_counter() - t0
    accuracy, _ = example.evaluate(model, test)
    print(json.dumps({'seconds': seconds, 'accuracy': accuracy, 'loss': loss.item(),
                      'rss_mib': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


def epoch_table(samples, rounds):
    import numpy as np
    import torch
    example = example_module('torch')
    torch.manual_seed(0)
    weights = os.path.join('/tmp', 'dl-bench-cnn-%d.npz' % os.getpid())
    np.savez(weights, **{k: v.numpy() for k, v in example.CNN().state_dict().items()})
    results = {'torch': [], 'libdl': []}
    try:
        for _ in range(rounds):
            for name in ('torch', 'libdl'):
                out = subprocess.run([sys.executable, __file__, '--epoch-child', name,
                                      '--samples', str(samples), '--weights', weights],
                                     capture_output=True, text=True, check=True)
                results[name].append(json.loads(out.stdout.strip().splitlines()[-1]))
    finally:
        os.unlink(weights)
    t = min(results['torch'], key=lambda r: r['seconds'])
    d = min(results['libdl'], key=lambda r: r['seconds'])
    print('CNN epoch on %d samples: torch %.2f s, libdl %.2f s, ratio %.2f'
          % (samples, t['seconds'], d['seconds'], d['seconds'] / t['seconds']))
    print('  test accuracy: torch %.4f, libdl %.4f (difference %.4f, target <= 0.02)'
          % (t['accuracy'], d['accuracy'], abs(t['accuracy'] - d['accuracy'])))
    print('  peak RSS: torch %.0f MiB, libdl %.0f MiB (ratio %.2f, target <= 1.0)'
          % (t['rss_mib'], d['rss_mib'], d['rss_mib'] / t['rss_mib']))


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument('--rounds', type=int, default=3)
    p.add_argument('--samples', type=int, default=10000)
    p.add_argument('--skip-epoch', action='store_true')
    p.add_argument('--epoch-child', help=argparse.SUPPRESS)
    p.add_argument('--weights', help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.epoch_child:
        epoch_child(args.epoch_child, args.samples, args.weights)
        return
    loader_table(args.rounds)
    if not args.skip_epoch:
        epoch_table(args.samples, max(1, args.rounds - 1))


if __name__ == '__main__':
    main()
