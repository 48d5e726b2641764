# gradcheck.py: torch.autograd.gradcheck and gradgradcheck, over libdl's
# dl_autograd_gradcheck() and dl_autograd_gradgradcheck(), which do the
# work (finite differences, Jacobians, the messages).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from .._lib import Dl, GLib, _translate

__all__ = ['gradcheck', 'gradgradcheck', 'GradcheckError']


class GradcheckError(RuntimeError):
    """A gradient that does not match finite differences (PyTorch's
    torch.autograd.gradcheck.GradcheckError)."""


def _unsupported(what, **flags):
    for name, (value, default) in flags.items():
        if value != default:
            raise NotImplementedError(f'{what}: {name}={value!r} is not supported by libdl')


class _Func:
    """The callback the C check calls: func on the tensors it gives, put
    back among the non-tensor inputs, its outputs as a list of tensors. An
    exception of func is kept, to be raised as it is once C returns."""

    def __init__(self, func, args):
        self.func = func
        self.args = list(args)
        self.positions = [i for i, a in enumerate(self.args) if isinstance(a, Dl.Tensor)]
        self.exception = None

    def tensors(self):
        return [self.args[i] for i in self.positions]

    def __call__(self, tensors, *_):
        args = list(self.args)
        for i, t in zip(self.positions, tensors):
            args[i] = t
        try:
            out = self.func(*args)
        except BaseException as e:  # noqa: B036 (raised again after the C call)
            self.exception = e
            return None
        if isinstance(out, Dl.Tensor):
            return [out]
        if isinstance(out, (tuple, list)):
            return [o for o in out if isinstance(o, Dl.Tensor)]
        self.exception = TypeError(
            f'gradcheck: the function must return a Tensor or a tuple of Tensors, not '
            f'{type(out).__name__}')
        return None

    def run(self, check, *args):
        try:
            return check(self, None, self.tensors(), *args)
        except GLib.Error as e:
            if self.exception is not None:
                raise self.exception from None
            if e.domain == 'dl-error-quark' and e.code == int(Dl.Error.AUTOGRAD):
                raise GradcheckError(e.message) from None
            raise _translate(e) from None


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def gradcheck(func, inputs, *, eps=1e-06, atol=1e-05, rtol=0.001, raise_exception=True,
              check_sparse_nnz=False, nondet_tol=0.0, check_undefined_grad=True,
              check_grad_dtypes=False, check_batched_grad=False,
              check_batched_forward_grad=False, check_forward_ad=False,
              check_backward_ad=True, fast_mode=False):
    """Checks the gradients of func at inputs against central finite
    differences (torch.autograd.gradcheck). The inputs that require grad
    should be float64. Returns True, or raises GradcheckError naming the
    output, the input and the first element that differs (returns False
    instead when raise_exception is False).

    libdl's backward always gives gradients of the inputs' dtypes, so
    check_grad_dtypes holds; fast_mode runs the full check. There is no
    forward-mode AD, vmap or sparse tensor to check."""
    _unsupported('gradcheck', check_sparse_nnz=(check_sparse_nnz, False),
                 check_batched_grad=(check_batched_grad, False),
                 check_batched_forward_grad=(check_batched_forward_grad, False),
                 check_forward_ad=(check_forward_ad, False))
    if not check_backward_ad:
        return True
    f = _Func(func, _as_tuple(inputs))
    return f.run(Dl.autograd_gradcheck, eps, atol, rtol, raise_exception, nondet_tol,
                 check_undefined_grad)


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-06, atol=1e-05, rtol=0.001,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False):
    """Checks the second derivatives of func (torch.autograd.gradgradcheck):
    gradcheck of the function that maps the inputs and grad_outputs to the
    inputs' gradients, computed with create_graph. Without grad_outputs,
    random ones (uniform in [-1, 1), requiring grad) are made."""
    _unsupported('gradgradcheck', check_batched_grad=(check_batched_grad, False),
                 check_fwd_over_rev=(check_fwd_over_rev, False))
    if not check_rev_over_rev:
        return True
    f = _Func(func, _as_tuple(inputs))
    grads = [] if grad_outputs is None else list(_as_tuple(grad_outputs))
    return f.run(Dl.autograd_gradgradcheck, grads, eps, atol, rtol, gen_non_contig_grad_outputs,
                 raise_exception, nondet_tol, check_undefined_grad)
