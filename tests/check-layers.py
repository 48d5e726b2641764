#!/usr/bin/python3
# check-layers.py: libdl's source layers only point down.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage: check-layers.py LIBDL_SOURCE_DIR
#
# Every file of libdl/ belongs to one layer, lowest first:
#
#   0 vocabulary  the public types every layer names: dl-types.h, dl-error,
#                 dl-dtype, dl-device.h, dl-version and the generated enums; and
#                 dl-mutex-private.h, the locks every layer takes; and
#                 dl-native (whether a function is compiled code or a
#                 binding's closure)
#   1 backends    backends/ (the vtable, the iterator's geometry, the CPU
#                 kernels, the meta backend in backends/meta/) and the
#                 caching allocators (dl-allocator, dl-stream-allocator): raw
#                 pointers and strides
#   2 devices     dl-device (the registry), dl-storage, dl-generator
#   3 tensor      dl-tensor: metadata, views, and the autograd hooks the layers
#                 below the engine call up through
#   4 record      dl-node: the autograd graph record, saved tensors, grad mode
#   5 ops         ops/: the op families, their gradients, printing, host reads
#   6 autograd    autograd/: the engine and the view-history code, which run
#                 ops (they install the hooks of layer 3 when the library loads)
#   7 models      nn/, optim/, data/: public ops only; distributed/: process
#                 groups and their engines, which read tensors' memory
#   8 training    train/: the trainer, which drives a model, a loss, an
#                 optimizer and a data loader on a worker thread
#   9 umbrella    dl.h
#
# A file may include files of its own layer or of layers below. The script
# reads every #include "..." of libdl/ and fails, naming the file and the
# include, when one points up; it also fails on a file it cannot place.

import os
import re
import sys

VOCABULARY = {'dl-types.h', 'dl-error.h', 'dl-error.c', 'dl-dtype.h', 'dl-dtype.c',
              'dl-dtype-private.h', 'dl-device.h', 'dl-enums.h', 'dl-mutex-private.h',
              'dl-native-private.h', 'dl-native.c', 'dl-version.h', 'dl-version.c'}
GENERATED = {'dl-enums.h': 'dl-enums.h', 'dl-ops-pointwise-table.h': 'ops/dl-ops-pointwise-table.h',
             'dl-version.h': 'dl-version.h', 'config.h': 'config.h'}
LAYERS = ['vocabulary', 'backends', 'devices', 'tensor', 'record', 'ops', 'autograd', 'models',
          'training', 'umbrella']


def layer(path):
    """The layer of a file, by its path under libdl/."""
    name = os.path.basename(path)
    if path == 'config.h':
        return 0
    if path in VOCABULARY or name in VOCABULARY and '/' not in path:
        return 0
    if path.startswith('backends/') or name.startswith(('dl-allocator', 'dl-stream-allocator')):
        return 1
    if name.startswith(('dl-device', 'dl-storage', 'dl-generator')) and '/' not in path:
        return 2
    if name.startswith('dl-tensor') and '/' not in path:
        return 3
    if name.startswith('dl-node') and '/' not in path:
        return 4
    if path.startswith('ops/'):
        return 5
    if path.startswith('autograd/'):
        return 6
    if path.startswith(('nn/', 'optim/', 'data/', 'distributed/')):
        return 7
    if path.startswith('train/'):
        return 8
    if path == 'dl.h':
        return 9
    return None


def resolve(root, including, target):
    """The path under libdl/ that #include "target" in @including reads:
    the including file's folder first, then the include path (libdl/,
    libdl/ops/, libdl/nn/), then the generated files."""
    here = os.path.dirname(including)
    for base in (here, '', 'ops', 'nn'):
        candidate = os.path.normpath(os.path.join(base, target))
        if os.path.exists(os.path.join(root, candidate)):
            return candidate
    return GENERATED.get(os.path.basename(target))


def main():
    root = sys.argv[1]
    failures = []
    files = 0
    for folder, _dirs, names in os.walk(root):
        for name in sorted(names):
            if not name.endswith(('.c', '.h', '.def', '.cu', '.cuh')):
                continue
            path = os.path.relpath(os.path.join(folder, name), root)
            mine = layer(path)
            if mine is None:
                failures.append('%s: in no layer (add it to tests/check-layers.py)' % path)
                continue
            files += 1
            with open(os.path.join(root, path), encoding='utf-8') as f:
                for lineno, line in enumerate(f, 1):
                    m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                    if not m:
                        continue
                    target = resolve(root, path, m.group(1))
                    if target is None:
                        failures.append('%s:%d: cannot find "%s"' % (path, lineno, m.group(1)))
                        continue
                    theirs = layer(target)
                    if theirs is None:
                        failures.append('%s:%d: "%s" is in no layer' % (path, lineno, target))
                    elif theirs > mine:
                        failures.append('%s:%d: the %s layer includes "%s" of the %s layer above it'
                                        % (path, lineno, LAYERS[mine], target, LAYERS[theirs]))
    for f in failures:
        print(f)
    print('%d files checked, %d includes pointing up or unplaced' % (files, len(failures)))
    sys.exit(1 if failures else 0)


if __name__ == '__main__':
    main()
