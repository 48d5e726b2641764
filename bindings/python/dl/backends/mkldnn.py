# dl.backends.mkldnn (torch.backends.mkldnn): oneDNN (MKL-DNN), which libdl
# does not use; its flag is accepted and changes nothing.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

__all__ = ['is_available', 'enabled']

# PyTorch's switch for its oneDNN kernels; libdl's CPU kernels are its own,
# so it is read back as set and changes nothing.
enabled = True


def is_available():
    """torch.backends.mkldnn.is_available(): False, libdl is built without
    oneDNN (MKL-DNN); its CPU kernels are its own, with OpenBLAS."""
    return False
