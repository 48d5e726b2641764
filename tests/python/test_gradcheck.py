# test_gradcheck.py: dl.autograd.gradcheck and gradgradcheck themselves,
# next to torch.autograd's on the same functions: what passes, what fails
# and how, the keyword arguments, non-tensor inputs, several outputs.
# (test_gradcheck_walk.py runs them over every op.)
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import numpy as np
import pytest
import torch

import dl
from conftest import Dl
from dl.autograd.gradcheck import GradcheckError
from torch.autograd.gradcheck import GradcheckError as TorchGradcheckError


def leaves(rng, *shapes):
    arrays = [rng.uniform(-1, 1, s) for s in shapes]
    return ([dl.tensor(a, requires_grad=True) for a in arrays],
            [torch.tensor(a, requires_grad=True) for a in arrays])


def wrong_grad(m, a):
    """a * |a| with the |a| factor detached: the gradient misses a term."""
    return a * a.abs().detach()


@pytest.mark.parametrize('m', [dl, torch], ids=['dl', 'torch'])
def test_passes_and_returns_true(m, rng):
    xs = [m.tensor(rng.uniform(-1, 1, (3, 4)), requires_grad=True),
          m.tensor(rng.uniform(-1, 1, (4,)), requires_grad=True)]
    assert m.autograd.gradcheck(lambda a, b: (a * b).sin(), xs) is True
    assert m.autograd.gradgradcheck(lambda a, b: (a * b).sin(), xs) is True


def test_mismatch_names_output_input_element_and_values(rng):
    (x,), (t,) = leaves(rng, (2, 3))
    with pytest.raises(TorchGradcheckError):
        torch.autograd.gradcheck(lambda a: wrong_grad(torch, a), t)
    assert GradcheckError is dl.autograd.GradcheckError
    with pytest.raises(GradcheckError) as info:
        dl.autograd.gradcheck(lambda a: wrong_grad(dl, a), x)
    assert isinstance(info.value, RuntimeError)
    msg = str(info.value)
    assert msg.startswith('Jacobian mismatch for output 0 with respect to input 0,\nnumerical:')
    assert '\nanalytical:' in msg
    # the first element that differs, with both values: d out[0, 0] / d x[0, 0]
    # is 2 |x| numerically and |x| analytically
    v = abs(float(x[0, 0]))
    assert 'd output 0[0, 0] / d input 0[0, 0]' in msg
    assert f'numerical {2 * v:.6}'[:16] in msg
    assert f'analytical {v:.6}'[:17] in msg


def test_second_input_and_output_are_named(rng):
    xs, _ = leaves(rng, (3,), (3,))

    def f(a, b):
        return a * 2, wrong_grad(dl, b)
    with pytest.raises(dl.autograd.GradcheckError, match='output 1 with respect to input 1'):
        dl.autograd.gradcheck(f, xs)


@pytest.mark.parametrize('m', [dl, torch], ids=['dl', 'torch'])
def test_raise_exception_false_returns_false(m, rng):
    x = m.tensor(rng.uniform(-1, 1, (3,)), requires_grad=True)
    assert m.autograd.gradcheck(lambda a: wrong_grad(m, a), x, raise_exception=False) is False
    assert m.autograd.gradcheck(lambda a: a.exp(), x, raise_exception=False) is True


@pytest.mark.parametrize('m', [dl, torch], ids=['dl', 'torch'])
def test_tolerances(m, rng):
    """A gradient off by 1e-4: within atol=1e-3, outside the defaults."""
    x = m.tensor(rng.uniform(-1, 1, (3,)), requires_grad=True)

    def f(a):
        return a * 2 + (a * 1e-4).detach() * 0 + a.detach() * 1e-4
    assert not m.autograd.gradcheck(f, x, atol=1e-6, rtol=0, raise_exception=False)
    assert m.autograd.gradcheck(f, x, atol=1e-3)
    assert m.autograd.gradcheck(f, x, rtol=1e-3, atol=0)


def test_non_tensor_inputs_and_tuple_outputs(rng):
    (x, y), (t, u) = leaves(rng, (2, 3), (3,))

    def f(a, k, b):
        return a * k + b, (a - b).sum(1)
    assert dl.autograd.gradcheck(f, (x, 2.5, y))
    assert torch.autograd.gradcheck(f, (t, 2.5, u))
    assert dl.autograd.gradgradcheck(f, (x, 2.5, y))


def test_inputs_without_grad_are_constants(rng):
    (x, y), _ = leaves(rng, (3,), (3,))
    y.requires_grad_(False)
    assert dl.autograd.gradcheck(lambda a, b: a * b.exp(), (x, y))


def test_no_input_requires_grad(rng):
    x = dl.tensor(rng.uniform(-1, 1, (3,)))
    with pytest.raises(ValueError, match='at least one input tensor to require gradient'):
        torch.autograd.gradcheck(lambda a: a * 2, torch.tensor(rng.uniform(-1, 1, (3,))))
    with pytest.raises(RuntimeError, match='at least one input tensor to require gradient'):
        dl.autograd.gradcheck(lambda a: a * 2, x)


def test_exceptions_of_func_propagate(rng):
    x = dl.tensor(rng.uniform(-1, 1, (3,)), requires_grad=True)

    def boom(a):
        raise KeyError('boom')
    with pytest.raises(KeyError, match='boom'):
        dl.autograd.gradcheck(boom, x)
    with pytest.raises(IndexError):
        dl.autograd.gradcheck(lambda a: a[5], x)
    with pytest.raises(TypeError, match='must return a Tensor'):
        dl.autograd.gradcheck(lambda a: 3, x)


def test_inputs_restored_and_graphs_kept(rng):
    """The perturbation goes through storage and is undone: values and
    versions as before, so an earlier graph over the input still works."""
    a = rng.uniform(-1, 1, (3, 4))
    x = dl.tensor(a, requires_grad=True)
    y = (x * x).sum()
    xt = x.t()  # a non-contiguous leaf input
    assert dl.autograd.gradcheck(lambda v: v.cos(), xt.detach().requires_grad_())
    assert dl.autograd.gradcheck(lambda v: v.cos(), x)
    np.testing.assert_array_equal(x.detach().numpy(), a)
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * a)


def test_strided_input_with_stride_0_refused(rng):
    x = dl.tensor(rng.uniform(-1, 1, (1, 3))).expand(2, 3).requires_grad_()
    with pytest.raises(RuntimeError, match='stride 0'):
        dl.autograd.gradcheck(lambda a: a * 2, x)


def test_nondeterministic_backward():
    """A backward that differs between runs (a hook that scales every
    other gradient by 1 + 1e-7): caught, unless within nondet_tol."""
    calls = [0]

    def noisy_hook(g):
        calls[0] += 1
        return g * (1 + 1e-7 * (calls[0] % 2))

    def f(a):
        y = a * 1
        y.register_hook(noisy_hook)
        return y
    x = dl.randn(3, dtype=dl.float64, requires_grad=True)
    with pytest.raises(GradcheckError, match='not reentrant'):
        dl.autograd.gradcheck(f, x)
    assert dl.autograd.gradcheck(f, x, nondet_tol=1e-6)


def test_gradgradcheck_catches_a_non_differentiable_backward(rng):
    """A first derivative right and a second one wrong: gradcheck passes,
    gradgradcheck fails."""
    x = dl.tensor(rng.uniform(0.5, 1, (3,)), requires_grad=True)

    def f(a):
        # a^3 whose gradient 3 a^2 depends on a only through a detached copy
        d = a.detach()
        return a * d * d
    assert not dl.autograd.gradcheck(f, x, raise_exception=False)
    assert dl.autograd.gradcheck(lambda a: a * a * a, x)
    assert dl.autograd.gradgradcheck(lambda a: a * a * a, x)

    def g(a):
        # exact first derivative (2 a), second derivative lost
        return a * a.detach() + (a.detach() * a - a.detach() * a.detach())
    assert dl.autograd.gradcheck(g, x)
    with pytest.raises(dl.autograd.GradcheckError, match='Jacobian mismatch'):
        dl.autograd.gradgradcheck(g, x)


@pytest.mark.parametrize('non_contig', [False, True])
def test_gradgradcheck_grad_outputs(rng, non_contig):
    xs, ts = leaves(rng, (3, 4), (4,))

    def f(a, b):
        return (a * b).tanh()
    go = rng.uniform(-1, 1, (3, 4))
    assert dl.autograd.gradgradcheck(f, xs, dl.tensor(go, requires_grad=True))
    assert torch.autograd.gradgradcheck(f, ts, torch.tensor(go, requires_grad=True))
    assert dl.autograd.gradgradcheck(f, xs, gen_non_contig_grad_outputs=non_contig)
    with pytest.raises(RuntimeError, match='grad_outputs'):
        dl.autograd.gradgradcheck(f, xs, [dl.tensor(go), dl.tensor(go)])


def test_unsupported_modes_refused(rng):
    x = dl.tensor(rng.uniform(-1, 1, (3,)), requires_grad=True)
    with pytest.raises(NotImplementedError):
        dl.autograd.gradcheck(lambda a: a * 2, x, check_forward_ad=True)
    with pytest.raises(NotImplementedError):
        dl.autograd.gradcheck(lambda a: a * 2, x, check_batched_grad=True)
    assert dl.autograd.gradcheck(lambda a: a * 2, x, fast_mode=True, check_grad_dtypes=True)
    assert dl.autograd.gradcheck(lambda a: wrong_grad(dl, a), x, check_backward_ad=False)


def test_typelib_call(rng):
    """The C function, as GJS and Vala see it: a callback taking the
    inputs and returning a list of tensors."""
    x = dl.tensor(rng.uniform(-1, 1, (2, 2)), requires_grad=True)
    seen = []

    def f(inputs, *rest):
        seen.append(len(inputs))
        return [inputs[0].exp(), inputs[0].sum()]
    assert Dl.autograd_gradcheck(f, None, [x], 1e-6, 1e-5, 1e-3, True, 0.0, True)
    assert seen and set(seen) == {1}
    names = Dl.autograd_get_node_names()
    assert 'MulBackward0' in names and 'CopySlices' in names
    assert list(names) == sorted(names)


@pytest.mark.parametrize('m', [dl, torch], ids=['dl', 'torch'])
def test_custom_function(m, rng):
    """A user-defined Function: its backward checked to second order; a
    wrong backward caught."""
    class Cube(m.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a * a

        @staticmethod
        def backward(ctx, g):
            a, = ctx.saved_tensors
            return g * 3 * a * a

    class WrongCube(Cube):
        @staticmethod
        def backward(ctx, g):
            a, = ctx.saved_tensors
            return g * 2 * a * a

    x = m.tensor(rng.uniform(0.5, 1.5, (3,)), requires_grad=True)
    assert m.autograd.gradcheck(Cube.apply, x)
    assert m.autograd.gradgradcheck(Cube.apply, x)
    assert not m.autograd.gradcheck(WrongCube.apply, x, raise_exception=False)
