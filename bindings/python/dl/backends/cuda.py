# dl.backends.cuda (torch.backends.cuda): CUDA's matmul flags, accepted and
# without effect: libdl has no CUDA backend.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

__all__ = ['is_built', 'matmul']


def is_built():
    """torch.backends.cuda.is_built(): False, libdl is built without CUDA."""
    return False


class cuBLASModule:
    """torch.backends.cuda.matmul: cuBLAS's flags allow_tf32 (default False)
    and allow_fp16_reduced_precision_reduction (default True). libdl's matmul
    runs on its CPU backend in the tensors' own precision, so the flags are
    read back as set and change nothing; setting another name is an
    AssertionError, as in PyTorch."""

    _FLAGS = ('allow_tf32', 'allow_fp16_reduced_precision_reduction')

    def __init__(self):
        object.__setattr__(self, 'allow_tf32', False)
        object.__setattr__(self, 'allow_fp16_reduced_precision_reduction', True)

    def __setattr__(self, name, value):
        if name not in self._FLAGS:
            raise AssertionError('Unknown attribute ' + name)
        object.__setattr__(self, name, value)


matmul = cuBLASModule()
