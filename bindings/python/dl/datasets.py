# datasets.py: readers of data sets on disk, through libdl's C readers.
# Also reachable as dl.utils.data.fashion_mnist and dl.utils.data.read_idx.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from ._lib import Dl, GLib

__all__ = ['fashion_mnist', 'read_idx']


def fashion_mnist(root=None, train=True):
    """(images uint8 [N, 28, 28], labels int64 [N]) from Debian's
    dataset-fashion-mnist files (or the IDX files under root)."""
    try:
        _ok, images, labels = Dl.fashion_mnist_load(root, bool(train))
    except GLib.Error as e:
        if e.code == int(Dl.Error.IO):
            raise FileNotFoundError(e.message) from None
        raise
    return images, labels


def read_idx(path):
    """The tensor in an IDX file (the format of the MNIST data sets)."""
    return Dl.read_idx(path, None)
