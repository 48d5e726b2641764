# engine.py: torch.autograd.grad and torch.autograd.backward over libdl's
# engine (dl_autograd_grad, dl_tensor_backward).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from .._lib import Dl, _checked, _is_tensor

__all__ = ['grad', 'backward']

_autograd_grad = _checked(Dl.autograd_grad)


def _as_list(x, what):
    if _is_tensor(x):
        return [x]
    if x is None:
        return None
    try:
        seq = list(x)
    except TypeError:
        raise TypeError('%s must be a Tensor or a sequence of Tensors, got %s'
                        % (what, type(x).__name__)) from None
    return seq


def _grad_outputs(outputs, grad_outputs):
    """One gradient per output; ones for the one-element outputs that have
    None, as PyTorch makes them."""
    if grad_outputs is None:
        grad_outputs = [None] * len(outputs)
    if len(grad_outputs) != len(outputs):
        raise RuntimeError('grad requires one grad_output per output: got %d grad_outputs and '
                           '%d outputs' % (len(grad_outputs), len(outputs)))
    result = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if g is None:
            if out.requires_grad and out.numel() != 1:
                raise RuntimeError('grad can be implicitly created only for scalar outputs')
            g = Dl.full(out.shape, 1.0, out.get_dtype(), out.get_device())
        elif not _is_tensor(g):
            raise TypeError('grad_outputs[%d] must be a Tensor or None, got %s'
                            % (i, type(g).__name__))
        result.append(g)
    return result


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=False, is_grads_batched=False):
    """The gradients of outputs with respect to inputs, as a tuple (None for
    an unused input with allow_unused); .grad is left alone."""
    if is_grads_batched:
        raise NotImplementedError('grad: is_grads_batched=True is not supported')
    outputs = _as_list(outputs, 'outputs')
    inputs = _as_list(inputs, 'inputs')
    for what, seq in (('outputs', outputs), ('inputs', inputs)):
        for t in seq:
            if not _is_tensor(t):
                raise RuntimeError('grad: all %s have to be Tensors, but got %s'
                                   % (what, type(t).__name__))
    go = _grad_outputs(outputs, _as_list(grad_outputs, 'grad_outputs'))
    if retain_graph is None:
        retain_graph = create_graph
    result = _autograd_grad(outputs, inputs, go, bool(retain_graph), bool(create_graph),
                            bool(allow_unused))
    return tuple(result)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
             grad_variables=None, inputs=None):
    """torch.autograd.backward: tensor.backward() for each of tensors, in one
    pass when there is one tensor."""
    if grad_variables is not None:
        grad_tensors = grad_variables
    tensors = _as_list(tensors, 'tensors')
    grads = _as_list(grad_tensors, 'grad_tensors') or [None] * len(tensors)
    if len(grads) != len(tensors):
        raise RuntimeError('backward: got %d grad_tensors for %d tensors'
                           % (len(grads), len(tensors)))
    if retain_graph is None:
        retain_graph = create_graph
    for i, (t, g) in enumerate(zip(tensors, grads)):
        last = i == len(tensors) - 1
        t.backward(g, retain_graph=retain_graph or not last, create_graph=create_graph,
                   inputs=inputs)
