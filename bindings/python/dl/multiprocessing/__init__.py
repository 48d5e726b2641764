# dl.multiprocessing (torch.multiprocessing): Python's multiprocessing,
# with tensors that cross processes through shared memory.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Importing dl registers a reducer with multiprocessing's ForkingPickler
# (what its queues, pipes and Process arguments use), as PyTorch does: a
# tensor sent to another process moves to shared memory
# (Tensor.share_memory_(), a memfd) and travels as that file descriptor,
# not as its bytes; the receiver maps the same memory, so a write on either
# side is seen by both. Everything else is Python's multiprocessing.

import multiprocessing
import os
from multiprocessing import *  # noqa: F401,F403
from multiprocessing.reduction import DupFd, ForkingPickler

from .._lib import Dl
from .._tensor import Tensor

from .spawn import (ProcessContext, ProcessExitedException, ProcessRaisedException,  # noqa: E402
                    spawn, start_processes)

__all__ = list(multiprocessing.__all__) + ['get_sharing_strategy', 'set_sharing_strategy',
                                           'get_all_sharing_strategies', 'spawn',
                                           'start_processes', 'ProcessContext',
                                           'ProcessRaisedException', 'ProcessExitedException']


def get_all_sharing_strategies():
    """The ways tensors can be shared: file descriptors only."""
    return {'file_descriptor'}


def get_sharing_strategy():
    return 'file_descriptor'


def set_sharing_strategy(new_strategy):
    if new_strategy not in get_all_sharing_strategies():
        raise ValueError("sharing strategy '%s' is not supported (only 'file_descriptor')"
                         % new_strategy)


def _rebuild_shared(dup, nbytes, dtype, shape, strides, offset, requires_grad, parameter):
    fd = dup.detach()
    try:
        t = Dl.Tensor.new_from_shared_fd(fd, nbytes, shape, strides, offset, dtype)
    finally:
        os.close(fd)
    if parameter:
        from ..nn.parameter import Parameter
        return Parameter(t, requires_grad=requires_grad)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _reduce_tensor(t):
    if t.get_requires_grad() and not t.is_leaf:
        raise RuntimeError('Cowardly refusing to serialize non-leaf tensor which requires_grad, '
                           'since autograd does not support crossing process boundaries.  If '
                           'you just want to transfer the data, call detach() on the tensor '
                           'before serializing (e.g., putting it on the queue).')
    t.share_memory_()
    return (_rebuild_shared, (DupFd(t.get_shared_fd()), t.get_storage_nbytes(), t.get_dtype(),
                              list(t.get_shape()), list(t.stride()), t.storage_offset(),
                              t.get_requires_grad(), Dl.Tensor.is_parameter(t)))


def _register(cls):
    """Sends instances of @cls (exactly that class: pickle dispatches on
    the type) through shared memory."""
    ForkingPickler.register(cls, _reduce_tensor)


_register(Tensor)
