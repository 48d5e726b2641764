# functional.py: torch.autograd.functional (vjp, jvp, jacobian, hessian,
# vhp, hvp) over autograd.grad, with PyTorch's signatures and return
# structures: a function of one tensor gives tensors, one of a tuple gives
# tuples.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from .._lib import Dl, _is_tensor
from .engine import grad as _grad
from .grad_mode import enable_grad

__all__ = ['vjp', 'jvp', 'jacobian', 'hessian', 'vhp', 'hvp']


def _as_tuple(x, what, fn_name):
    """(whether x was a tuple, x as a tuple), checking it holds tensors."""
    is_tuple = isinstance(x, (tuple, list))
    t = tuple(x) if is_tuple else (x,)
    for i, e in enumerate(t):
        if not _is_tensor(e):
            if is_tuple:
                raise TypeError('The %s given to %s must be either a Tensor or a tuple of Tensors '
                                'but the value at index %d has type %s.'
                                % (what, fn_name, i, type(e).__name__))
            raise TypeError('The %s given to %s must be either a Tensor or a tuple of Tensors but'
                            ' the given %s has type %s.' % (what, fn_name, what, type(e).__name__))
    return is_tuple, t


def _grad_preprocess(inputs, create_graph):
    """Inputs to differentiate: fresh leaves that require grad (views when
    create_graph, so that the result stays connected to the caller's
    graph, as PyTorch does)."""
    if create_graph:
        return tuple(i if i.requires_grad else i.detach().requires_grad_(True) for i in inputs)
    return tuple(i.detach().requires_grad_(True) for i in inputs)


def _fill_unused(grads, inputs, strict, create_graph, fn_name, what='output'):
    result = []
    for i, (g, inp) in enumerate(zip(grads, inputs)):
        if g is None:
            if strict:
                raise RuntimeError('The %s of the user-provided function is independent of input '
                                   '%d. This is not allowed in strict mode.' % (what, i))
            g = Dl.zeros(inp.shape, inp.get_dtype(), inp.get_device())
        elif not create_graph:
            g = g.detach()
        result.append(g)
    return tuple(result)


def _autograd(outputs, inputs, grad_outputs, create_graph, retain_graph=None):
    """autograd.grad where outputs that do not require grad count as
    independent of the inputs (None), as PyTorch's _autograd_grad does."""
    outs, gos = [], []
    for o, g in zip(outputs, grad_outputs):
        if o is not None and o.requires_grad:
            outs.append(o)
            gos.append(g)
    if not outs:
        return (None,) * len(inputs)
    return _grad(outs, inputs, gos, retain_graph=create_graph if retain_graph is None
                 else retain_graph, create_graph=create_graph, allow_unused=True)


def _check_v(v, outputs, fn_name, what):
    if len(v) != len(outputs):
        raise RuntimeError('v is a tuple of invalid length: should be %d but got %d.'
                           % (len(outputs), len(v)))
    for i, (vi, o) in enumerate(zip(v, outputs)):
        if tuple(vi.shape) != tuple(o.shape):
            raise RuntimeError('Entry %d in v has invalid size: should be %s but got %s.'
                               % (i, list(o.shape), list(vi.shape)))


def _ones_for(outputs, fn_name):
    for o in outputs:
        if o.numel() != 1:
            raise RuntimeError('The vector v can only be None if the user-provided function '
                               'returns a single Tensor with a single element.')
    return tuple(Dl.full(o.shape, 1.0, o.get_dtype(), o.get_device()) for o in outputs)


def _detached(xs, create_graph):
    return tuple(x if create_graph else x.detach() for x in xs)


def _untuple(is_tuple, t):
    return t if is_tuple else t[0]


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T J): the vector-Jacobian product."""
    with enable_grad():
        in_tuple, inputs = _as_tuple(inputs, 'inputs', 'vjp')
        inputs = _grad_preprocess(inputs, create_graph)
        out_tuple, outputs = _as_tuple(func(*inputs), 'outputs of the user-provided function',
                                       'vjp')
        if v is None:
            v = _ones_for(outputs, 'vjp')
        else:
            _, v = _as_tuple(v, 'v', 'vjp')
            _check_v(v, outputs, 'vjp', 'v')
        grads = _autograd(outputs, inputs, v, create_graph)
        result = _fill_unused(grads, inputs, strict, create_graph, 'vjp')
    return _untuple(out_tuple, _detached(outputs, create_graph)), _untuple(in_tuple, result)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), J v): the Jacobian-vector product, by the double-vjp
    trick (the vjp is linear in its vector u; its gradient along v is J v)."""
    with enable_grad():
        in_tuple, inputs = _as_tuple(inputs, 'inputs', 'jvp')
        inputs = _grad_preprocess(inputs, create_graph)
        if v is None:
            for i in inputs:
                if i.numel() != 1:
                    raise RuntimeError('The vector v can only be None if the input to the '
                                       'user-provided function is a single Tensor with a single '
                                       'element.')
            v = tuple(Dl.full(i.shape, 1.0, i.get_dtype(), i.get_device()) for i in inputs)
        else:
            _, v = _as_tuple(v, 'v', 'jvp')
            _check_v(v, inputs, 'jvp', 'v')
        out_tuple, outputs = _as_tuple(func(*inputs), 'outputs of the user-provided function',
                                       'jvp')
        u = tuple(Dl.zeros(o.shape, o.get_dtype(), o.get_device()).requires_grad_(True)
                  for o in outputs)
        g = _autograd(outputs, inputs, u, create_graph=True)
        pairs = [(gi, vi) for gi, vi in zip(g, v) if gi is not None and gi.requires_grad]
        if pairs:
            jv = _grad([p[0] for p in pairs], u, [p[1] for p in pairs], retain_graph=True,
                       create_graph=create_graph, allow_unused=True)
        else:
            jv = (None,) * len(u)
        result = _fill_unused(jv, outputs, strict, create_graph, 'jvp', 'input')
    return _untuple(out_tuple, _detached(outputs, create_graph)), _untuple(out_tuple, result)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy='reverse-mode'):
    """The Jacobian of func at inputs: J[i][j] has the shape of output i
    followed by the shape of input j."""
    if strategy not in ('reverse-mode', 'forward-mode'):
        raise ValueError('Expected strategy to be either "forward-mode" or "reverse-mode".')
    with enable_grad():
        in_tuple, inputs = _as_tuple(inputs, 'inputs', 'jacobian')
        inputs = _grad_preprocess(inputs, create_graph)
        out_tuple, outputs = _as_tuple(func(*inputs), 'outputs of the user-provided function',
                                       'jacobian')
        jac = []
        for i, out in enumerate(outputs):
            flat = out.reshape(-1)
            rows = [[] for _ in inputs]
            for k in range(flat.numel()):
                if out.requires_grad:
                    g = _grad([flat[k]], inputs, retain_graph=True, create_graph=create_graph,
                              allow_unused=True)
                else:
                    g = (None,) * len(inputs)
                for j, (gj, inp) in enumerate(zip(g, inputs)):
                    if gj is None:
                        if strict:
                            raise RuntimeError('Output %d of the user-provided function is '
                                               'independent of input %d. This is not allowed in '
                                               'strict mode.' % (i, j))
                        gj = Dl.zeros(inp.shape, inp.get_dtype(), inp.get_device())
                    rows[j].append(gj if create_graph else gj.detach())
            jac.append(tuple(
                (Dl.stack(rows[j], 0) if rows[j] else
                 Dl.zeros((0,) + tuple(inp.shape), inp.get_dtype(), inp.get_device()))
                .reshape(tuple(out.shape) + tuple(inp.shape))
                for j, inp in enumerate(inputs)))
    if out_tuple:
        return tuple(_untuple(in_tuple, row) for row in jac)
    return _untuple(in_tuple, jac[0])


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy='reverse-mode'):
    """The Hessian of a function with one one-element output."""
    in_tuple, inputs = _as_tuple(inputs, 'inputs', 'hessian')

    def jac_func(*inp):
        out = func(*inp)
        is_t, outs = _as_tuple(out, 'outputs of the user-provided function', 'hessian')
        if is_t or outs[0].numel() != 1:
            raise RuntimeError('The function given to hessian should return a single Tensor '
                               'with a single element.')
        g = _grad([outs[0]], inp, create_graph=True, allow_unused=True)
        return tuple(gi if gi is not None else
                     Dl.zeros(x.shape, x.get_dtype(), x.get_device()) for gi, x in zip(g, inp))

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict)
    return res if in_tuple else res[0][0]


def _hv(func, inputs, v, create_graph, strict, name):
    with enable_grad():
        in_tuple, inputs = _as_tuple(inputs, 'inputs', name)
        inputs = _grad_preprocess(inputs, create_graph)
        if v is None:
            for i in inputs:
                if i.numel() != 1:
                    raise RuntimeError('The vector v can only be None if the input to the '
                                       'user-provided function is a single Tensor with a single '
                                       'element.')
            v = tuple(Dl.full(i.shape, 1.0, i.get_dtype(), i.get_device()) for i in inputs)
        else:
            _, v = _as_tuple(v, 'v', name)
            _check_v(v, inputs, name, 'v')
        out_tuple, outputs = _as_tuple(func(*inputs), 'outputs of the user-provided function',
                                       name)
        if out_tuple or outputs[0].numel() != 1:
            raise RuntimeError('The function given to %s should return a single Tensor with a '
                               'single element.' % name)
        g = _autograd(outputs, inputs, (Dl.full(outputs[0].shape, 1.0, outputs[0].get_dtype(),
                                                 outputs[0].get_device()),), create_graph=True)
        pairs = [(gi, vi) for gi, vi in zip(g, v) if gi is not None and gi.requires_grad]
        if pairs:
            hv = _grad([p[0] for p in pairs], inputs, [p[1] for p in pairs], retain_graph=True,
                       create_graph=create_graph, allow_unused=True)
        else:
            hv = (None,) * len(inputs)
        result = _fill_unused(hv, inputs, strict, create_graph, name, 'input')
    return _detached(outputs, create_graph)[0], _untuple(in_tuple, result)


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T H)."""
    return _hv(func, inputs, v, create_graph, strict, 'vhp')


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), H v); the Hessian is symmetric for twice continuously
    differentiable functions, so this is v^T H transposed."""
    return _hv(func, inputs, v, create_graph, strict, 'hvp')
