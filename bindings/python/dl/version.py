# version.py: torch.version: the version of the libdl that runs (from the
# project's version in meson.build, through dl_get_version()), and torch's
# build facts (no CUDA, no ROCm).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from ._lib import Dl

__version__ = Dl.get_version()
debug = False
cuda = None
git_version = 'Unknown'
hip = None
