# dl.backends (torch.backends): the flags and questions PyTorch scripts put
# to the backends PyTorch may be built with. libdl computes on its CPU
# backend only (libdl/backends/cpu, through the vtable of dl-backend.h):
# the cuDNN, CUDA, MPS and MKL-DNN flags are accepted, read back what was
# set, and change nothing; is_available() says what libdl has.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from . import cuda, cudnn, mkl, mkldnn, mps, openmp

__all__ = ['cuda', 'cudnn', 'mkl', 'mkldnn', 'mps', 'openmp']
