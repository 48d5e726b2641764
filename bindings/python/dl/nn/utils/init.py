# init.py: dl.nn.utils.init (torch.nn.utils.init): skip_init, a module
# built without initialising its parameters and buffers.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import inspect

__all__ = ['skip_init']


def skip_init(module_cls, *args, **kwargs):
    """module_cls(*args, **kwargs) without initialising its parameters and
    buffers: built on the meta device, then given uninitialised memory on
    device= (cpu when not given); module_cls must take device=."""
    from ..modules import Module
    if not (isinstance(module_cls, type) and issubclass(module_cls, Module)):
        raise RuntimeError('Expected a Module; got {}'.format(module_cls))
    if 'device' not in inspect.signature(module_cls).parameters:
        raise RuntimeError('Module must support a \'device\' arg to skip initialization')
    final_device = kwargs.pop('device', 'cpu')
    kwargs['device'] = 'meta'
    return module_cls(*args, **kwargs).to_empty(device=final_device)
