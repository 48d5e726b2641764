# safetensors.py: the functions of Hugging Face's safetensors.torch, over
# libdl's reader and writer (data/dl-safetensors.c).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# save_file and load_file read and write files; save and load bytes. One
# difference: tensors that share memory are each written in full (the
# format cannot share bytes) where safetensors.torch.save_file refuses
# them; they load back as independent tensors.

import os

from gi.repository import Gio, GLib

from ._lib import Dl
from .serialization import _io_error, _tensor_dict, _tensors_of

__all__ = ['save_file', 'load_file', 'save', 'load', 'load_metadata']


def save_file(tensors, filename, metadata=None):
    """Writes the dict @tensors (str -> Tensor) and the str -> str dict
    @metadata to @filename."""
    try:
        Dl.safetensors_save(_tensor_dict(tensors, metadata),
                            Gio.File.new_for_path(os.fsdecode(filename)), None)
    except GLib.Error as e:
        raise _io_error(e, filename) from None


def _load_td(filename):
    try:
        return Dl.safetensors_load(Gio.File.new_for_path(os.fsdecode(filename)), None)
    except GLib.Error as e:
        raise _io_error(e, filename) from None


def load_file(filename, device='cpu'):
    """The tensors of @filename by name (memory-mapped, copy-on-write)."""
    tensors = _tensors_of(_load_td(filename))
    if str(device) != 'cpu':
        tensors = {n: t.to(device) for n, t in tensors.items()}
    return dict(tensors)


def load_metadata(filename):
    """The `__metadata__` strings of @filename."""
    td = _load_td(filename)
    return {k: td.get_metadata(k) for k in td.get_metadata_keys()}


def save(tensors, metadata=None):
    """The bytes of a safetensors file of @tensors and @metadata."""
    return Dl.safetensors_save_to_bytes(_tensor_dict(tensors, metadata)).get_data()


def load(data):
    """The tensors of the safetensors file whose bytes are @data."""
    return dict(_tensors_of(Dl.safetensors_load_bytes(GLib.Bytes.new(data))))
