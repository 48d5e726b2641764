# dl.backends.cudnn (torch.backends.cudnn): cuDNN's flags, accepted and
# without effect: libdl has no cuDNN (no GPU backend).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

__all__ = ['is_available', 'version', 'enabled', 'benchmark', 'deterministic', 'allow_tf32']

# The flags, with PyTorch's defaults. Scripts set them (benchmark = True,
# deterministic = True, ...) for cuDNN's convolutions; libdl's convolutions
# run on its CPU backend, whose results do not depend on them (they are
# deterministic already), so they are read back as set and change nothing.
enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available():
    """torch.backends.cudnn.is_available(): False, libdl has no cuDNN."""
    return False


def version():
    """torch.backends.cudnn.version(): None, as PyTorch's without cuDNN."""
    return None
