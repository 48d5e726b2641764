# function.py: torch.autograd.Function, on libdl's DlFunction.
#
# A Function subclass gets a companion class <Name>Backward, a GObject
# subclass of Dl.Function (so a GType of its own, named so), whose
# instances are the `ctx` of PyTorch: Function.apply makes one, and libdl's
# dl_function_apply() calls its do_forward, which calls the user's
# forward(ctx, *args, **kwargs) with grad mode off; the instance then is
# the grad_fn of the outputs, and the C engine calls its do_backward, which
# calls backward(ctx, *grad_outputs). C sees the tensor arguments only;
# the others (numbers, None, anything) stay here, and backward's gradients
# for them must be None. Attributes set on ctx live on the Python wrapper,
# which PyGObject keeps as long as the node lives.
#
# An exception raised in forward or backward crosses C as a DL_ERROR and
# comes out of apply() or Tensor.backward() as the same Python exception
# (_lib.stash_python_error).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import functools

from gi.repository import GLib, GObject

from .._lib import Dl, _is_tensor, _translate, stash_python_error
from .grad_mode import is_grad_enabled, no_grad

__all__ = ['Function', 'FunctionCtx', 'BackwardCFunction', 'once_differentiable']


def _gtype_name(name):
    """@name, or @name with a number, whichever no GType has yet (two
    Functions of one name in different modules or scopes)."""
    candidate, k = name, 1
    while True:
        try:
            GObject.type_from_name(candidate)
        except RuntimeError:
            return candidate
        k += 1
        candidate = '%s_%d' % (name, k)


def _raise_in_c(ctx, e):
    """What a vfunc raises for a Python exception @e: a DL_ERROR that C
    passes on, after which the caller's side raises @e itself."""
    message = 'function %s: %s: %s' % (type(ctx).__name__, type(e).__name__, e)
    stash_python_error(e, message)
    return GLib.Error(message, 'dl-error-quark', int(Dl.Error.AUTOGRAD))


class FunctionCtx:
    """The methods of ctx that PyTorch gives both its Function classes and
    their backward nodes: written on BackwardCFunction (the ctx here)."""


class BackwardCFunction(Dl.Function, FunctionCtx):
    """The ctx of a Function call and the grad_fn of its outputs (PyTorch's
    <Name>Backward): a Dl.Function whose forward and backward are the
    Function's static methods."""
    _forward_cls = None

    # -- called by libdl --
    def do_forward(self, inputs):
        args, kwargs = self._call
        try:
            out = self._forward_cls.forward(self, *args, **kwargs)
        except GLib.Error:
            raise
        except BaseException as e:
            raise _raise_in_c(self, e) from None
        outs = out if isinstance(out, tuple) else (out,)
        self._outputs = (isinstance(out, tuple), outs)
        self._is_tensor_output = [_is_tensor(o) for o in outs]
        return [o for o in outs if _is_tensor(o)]

    def do_backward(self, grad_outputs):
        # None for the outputs that are no tensors
        grads = iter(grad_outputs)
        grad_outputs = [next(grads) if t else None for t in self._is_tensor_output]
        try:
            return self._gradients(self._forward_cls.backward(self, *grad_outputs))
        except GLib.Error:
            raise
        except BaseException as e:
            raise _raise_in_c(self, e) from None

    def _gradients(self, grads):
        """backward's result, one per forward argument, as the list of
        gradients of the tensor arguments that C expects."""
        name = type(self).__name__
        grads = grads if isinstance(grads, tuple) else (grads,)
        n = len(self._is_tensor_arg)
        if len(grads) > n and all(g is None for g in grads[n:]):
            grads = grads[:n]
        if len(grads) != n:
            raise RuntimeError('function %s returned an incorrect number of gradients '
                               '(expected %d, got %d)' % (name, n, len(grads)))
        out = []
        for i, (g, is_tensor) in enumerate(zip(grads, self._is_tensor_arg)):
            if g is not None and not _is_tensor(g):
                raise RuntimeError('expected Variable or None (got %s)' % type(g).__name__)
            if is_tensor:
                out.append(g)
            elif g is not None:
                raise RuntimeError('function %s returned a gradient different than None at '
                                   'position %d, but the corresponding forward input was not '
                                   'a Variable' % (name, i + 1))
        return out

    # -- ctx, as in PyTorch --
    def save_for_backward(self, *tensors):
        for i, t in enumerate(tensors):
            if t is not None and not _is_tensor(t):
                raise TypeError('save_for_backward can only save variables, but argument %d '
                                'is of type %s' % (i, type(t).__name__))
        self._saved_none = [t is None for t in tensors]
        Dl.Function.save_for_backward(self, [t for t in tensors if t is not None])

    @property
    def saved_tensors(self):
        try:
            saved = iter(Dl.Function.get_saved_tensors(self))
        except GLib.Error as e:
            raise _translate(e) from None
        return tuple(None if none else next(saved) for none in getattr(self, '_saved_none', ()))

    @property
    def needs_input_grad(self):
        flags, k = [], 0
        for is_tensor in self._is_tensor_arg:
            flags.append(is_tensor and Dl.Function.needs_input_grad(self, k))
            k += is_tensor
        return tuple(flags)

    def mark_dirty(self, *tensors):
        Dl.Function.mark_dirty(self, list(tensors))

    def mark_non_differentiable(self, *tensors):
        Dl.Function.mark_non_differentiable(self, list(tensors))

    def set_materialize_grads(self, value):
        Dl.Function.set_materialize_grads(self, bool(value))

    # -- as a grad_fn --
    def name(self):
        return type(self).__name__

    def __repr__(self):
        return '<%s object at %#x>' % (type(self).__name__, id(self))


class Function:
    """torch.autograd.Function: subclass it with a static forward(ctx,
    *args, **kwargs) and backward(ctx, *grad_outputs), and call
    MyFunction.apply(*args)."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        name = cls.__name__ + 'Backward'
        cls._backward_cls = type(name, (BackwardCFunction,), {
            '__gtype_name__': _gtype_name(name),
            '__module__': cls.__module__,
            '__qualname__': cls.__qualname__ + 'Backward',
            '_forward_cls': cls,
        })

    def __init__(self, *args, **kwargs):
        raise RuntimeError('Legacy autograd function with non-static forward method is '
                           'deprecated. Please use new-style autograd function with static '
                           'forward method.')

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError('You must implement the forward function for custom '
                                  'autograd.Function.')

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError('You must implement either the backward or vjp method for '
                                  'your custom autograd.Function to use it with backward mode '
                                  'AD.')

    @classmethod
    def apply(cls, *args, **kwargs):
        if cls is Function:
            raise RuntimeError('Function.apply: call apply on a subclass of Function')
        ctx = cls._backward_cls(name=cls._backward_cls.__name__)
        ctx._is_tensor_arg = [_is_tensor(a) for a in args]
        ctx._call = (args, kwargs)
        ctx._outputs = None
        try:
            wrapped = iter(Dl.Function.apply(ctx, [a for a in args if _is_tensor(a)]))
            is_tuple, outs = ctx._outputs
        except GLib.Error as e:
            raise _translate(e) from None
        finally:
            # the ctx outlives the call as the outputs' grad_fn: it must
            # not hold them (nor the arguments, which PyTorch drops too)
            ctx._call = ctx._outputs = None
        outs = tuple(next(wrapped) if _is_tensor(o) else o for o in outs)
        return outs if is_tuple else outs[0]


class _DelayedError(Function):
    """Passes gradients through, and fails when differentiated: what
    once_differentiable puts over a backward's results under
    create_graph."""

    @staticmethod
    def forward(ctx, message, *grads):
        ctx.message = message
        return grads

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise RuntimeError(ctx.message)


def once_differentiable(fn):
    """Decorates a backward that is not itself differentiable: it runs in
    no_grad mode, and differentiating its results (create_graph) raises."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            outputs = fn(ctx, *args)
        if not is_grad_enabled() or not any(_is_tensor(a) and a.requires_grad for a in args):
            return outputs
        tup = outputs if isinstance(outputs, tuple) else (outputs,)
        # aliases that require grad, so that the error node is recorded
        tup = tuple(o.detach().requires_grad_() if _is_tensor(o) else o for o in tup)
        delayed = _DelayedError.apply('trying to differentiate twice a function that was '
                                      'marked with @once_differentiable', *tup)
        return delayed if isinstance(outputs, tuple) else delayed[0]
    return wrapper
