# variable.py: torch.autograd.Variable, the wrapper of PyTorch before 0.4
# that older scripts and tutorials still write: Variable(x) is x as a new
# tensor sharing its memory, detached from x's history, that requires grad
# when asked; every tensor is a Variable for isinstance.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import warnings

from .._lib import _is_tensor


class _VariableMeta(type):
    def __instancecheck__(cls, other):
        return _is_tensor(other)


class Variable(metaclass=_VariableMeta):
    """torch.autograd.Variable(data, requires_grad=False, volatile=False):
    @data detached (the memory shared), requiring grad as asked. volatile
    is gone, as in torch: a warning, and no effect."""

    def __new__(cls, data=None, requires_grad=False, volatile=False):
        from .._creation import empty
        if volatile:
            warnings.warn("volatile was removed (Variable.volatile is always False)",
                          UserWarning, stacklevel=2)
        if data is None:
            data = empty(0)
        if not _is_tensor(data):
            raise TypeError("Variable data has to be a tensor, but got %s"
                            % type(data).__name__)
        return data.detach().requires_grad_(bool(requires_grad))
