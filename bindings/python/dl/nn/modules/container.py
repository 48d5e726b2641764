# dl.nn.modules.container (torch.nn.modules.container): Sequential, ModuleList, ModuleDict.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from . import _home, ModuleDict, ModuleList, Sequential

__all__ = ['Sequential', 'ModuleList', 'ModuleDict']

from ..parameter_containers import ParameterDict, ParameterList  # noqa: E402
__all__ += ['ParameterList', 'ParameterDict']

_home(__name__)
