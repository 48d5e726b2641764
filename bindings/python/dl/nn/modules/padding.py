# dl.nn.modules.padding (torch.nn.modules.padding): the padding modules.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from ..padding import (ConstantPad1d, ConstantPad2d, ConstantPad3d, ReflectionPad1d,
                       ReflectionPad2d, ReflectionPad3d, ReplicationPad1d, ReplicationPad2d,
                       ReplicationPad3d, ZeroPad2d)
from . import _home

__all__ = ['ConstantPad1d', 'ConstantPad2d', 'ConstantPad3d', 'ZeroPad2d', 'ReflectionPad1d',
           'ReflectionPad2d', 'ReflectionPad3d', 'ReplicationPad1d', 'ReplicationPad2d',
           'ReplicationPad3d']

_home(__name__)
