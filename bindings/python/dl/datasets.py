# datasets.py: readers of data sets on disk, through libdl's C readers,
# and FashionMNIST. The readers are also reachable as
# dl.utils.data.fashion_mnist and dl.utils.data.read_idx.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from ._lib import Dl, GLib

__all__ = ['FashionMNIST', 'fashion_mnist', 'read_idx']


def fashion_mnist(root=None, train=True):
    """(images uint8 [N, 28, 28], labels int64 [N]) from Debian's
    dataset-fashion-mnist files (or the IDX files under root)."""
    try:
        _ok, images, labels = Dl.fashion_mnist_load(root, bool(train))
    except GLib.Error as e:
        raise _translate_io(e) from None
    return images, labels


def read_idx(path):
    """The tensor in an IDX file (the format of the MNIST data sets)."""
    return Dl.read_idx(path, None)


def _translate_io(e):
    if e.code == int(Dl.Error.IO):
        return FileNotFoundError(e.message)
    return e


# after the readers: dl.utils.data, imported here, imports them
from .utils.data.dataset import Dataset  # noqa: E402


class FashionMNIST(Dataset):
    """Fashion-MNIST as a data set, as torchvision.datasets.FashionMNIST:
    sample i is (image, label), the image a float32 tensor [1, 28, 28] in
    [0, 1] (what torchvision's ToTensor() gives; (x - mean) / std with
    mean and std given) and the label an int. The files come from
    Debian's dataset-fashion-mnist package, or the IDX files under root.
    transform and target_transform are applied to each sample; without
    them a DataLoader loads the batches in C."""

    classes = ['T-shirt/top', 'Trouser', 'Pullover', 'Dress', 'Coat', 'Sandal', 'Shirt',
               'Sneaker', 'Bag', 'Ankle boot']

    def __init__(self, root=None, train=True, transform=None, target_transform=None,
                 download=False, mean=0.0, std=1.0):
        if download:
            raise RuntimeError('FashionMNIST: download is not supported; install Debian\'s '
                               'dataset-fashion-mnist package or pass the folder of the IDX '
                               'files as root')
        self.root, self.train = root, bool(train)
        self.transform, self.target_transform = transform, target_transform
        try:
            self._c = Dl.FashionMnistDataset.new(root, self.train, float(mean), float(std))
        except GLib.Error as e:
            raise _translate_io(e) from None
        self._data = None

    @property
    def _dl_dataset(self):
        if self.transform is None and self.target_transform is None:
            return self._c
        return None

    def _load(self):
        if self._data is None:
            self._data = fashion_mnist(self.root, self.train)
        return self._data

    @property
    def data(self):
        """The images, uint8 [N, 28, 28]."""
        return self._load()[0]

    @property
    def targets(self):
        """The labels, int64 [N]."""
        return self._load()[1]

    @property
    def class_to_idx(self):
        return {c: i for i, c in enumerate(self.classes)}

    def __len__(self):
        return self._c.get_length()

    def __getitem__(self, index):
        try:
            image, label = self._c.get_item(int(index))
        except GLib.Error as e:
            if e.code == int(Dl.Error.INDEX):
                raise IndexError(e.message) from None
            raise
        label = int(label.item())
        if self.transform is not None:
            image = self.transform(image)
        if self.target_transform is not None:
            label = self.target_transform(label)
        return image, label

    def __repr__(self):
        return ('Dataset FashionMNIST\n    Number of datapoints: %d\n    Root location: %s\n'
                '    Split: %s' % (len(self), self.root or Dl.FASHION_MNIST_DEFAULT_ROOT,
                                   'Train' if self.train else 'Test'))
