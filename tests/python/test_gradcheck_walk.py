# test_gradcheck_walk.py: every autograd node the library makes, checked.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Dl.autograd_get_node_names() lists the names of the nodes the library's
# ops make, collected from its sources when it was built. WALK below has
# one entry per name: how to reach that node from sample inputs. A name
# without an entry (an op added since) fails test_every_node_has_an_entry.
#
# Each case runs on contiguous inputs, on non-contiguous ones (transposed,
# or strided 1-d views) and on the broadcasts its shapes spell; for each,
#   - the entry's node is in the output's history (its grad_fn, or deeper
#     for the nodes a backward records under create_graph),
#   - dl.autograd.gradcheck and gradgradcheck pass in float64,
#   - the first derivatives (autograd.grad with create_graph) and the
#     second ones (autograd.grad of <first derivatives, v>) equal
#     PyTorch's on the same inputs and the same output and second-order
#     gradients.

import functools
import importlib

import numpy as np
import pytest
import torch

import dl
from conftest import Dl

# torch warns that scatter_reduce is in beta
pytestmark = pytest.mark.filterwarnings('ignore:scatter_reduce')

# How inputs are drawn: a domain keeps them where the op is smooth and
# finite differences with eps = 1e-6 do not straddle a kink.
DOMAINS = {
    'any': lambda rng, s: rng.uniform(-2, 2, s),
    'pos': lambda rng, s: rng.uniform(0.5, 2, s),
    'nonzero': lambda rng, s: rng.choice([-1, 1], s) * rng.uniform(0.3, 2, s),
    'frac': lambda rng, s: rng.integers(-3, 3, s) + rng.uniform(0.1, 0.9, s),
    'unit': lambda rng, s: rng.uniform(-0.9, 0.9, s),
    'above1': lambda rng, s: rng.uniform(1.2, 3, s),
    'unit_interval': lambda rng, s: rng.uniform(0.05, 0.95, s),
    # one exact zero per row (the branches for zeros of prod, cumprod, norm)
    'zeros': lambda rng, s: (rng.choice([-1, 1], s) * rng.uniform(0.3, 2, s)
                             * (np.arange(s[-1]) != rng.integers(0, s[-1], s[:-1] + (1,)))),
}


class Case:
    """fn(m, *inputs) with m the module (dl or torch); shapes of the
    inputs; the domain of their values; kwargs for gradcheck (eps, atol,
    rtol); random=True for an op that draws random numbers (its values
    are not PyTorch's); gradgrad_fails='why' for a case whose second
    derivatives are known to be wrong (see GRADGRAD_FAILS)."""

    def __init__(self, fn, *shapes, domain='any', random=False, gradgrad_fails=None, **check):
        self.fn, self.shapes, self.domain, self.check = fn, shapes, domain, check
        self.random, self.gradgrad_fails = random, gradgrad_fails


def unary(fn, domain='any', **kw):
    """A unary op on a matrix, a vector and a 0-d tensor."""
    return [Case(fn, (3, 4), domain=domain, **kw), Case(fn, (5,), domain=domain, **kw),
            Case(fn, (), domain=domain, **kw)]


def binary(fn, domain='any', **kw):
    """A binary op on equal shapes and on broadcasts both ways."""
    return [Case(fn, (3, 4), (3, 4), domain=domain, **kw),
            Case(fn, (3, 4), (4,), domain=domain, **kw),
            Case(fn, (3, 1), (1, 4), domain=domain, **kw),
            Case(fn, (), (2, 3), domain=domain, **kw)]


# Nodes whose second derivatives are known to be wrong, with the reason:
# gradgradcheck and the second derivatives are skipped there and the test
# is marked xfail.
GRADGRAD_FAILS = {}

# Where PyTorch 1.13 is no oracle: abs's second derivative is 0, and
# torch's double backward through sgn gives uninitialised memory at times.
SECOND_DERIVATIVE_IS_ZERO = {'AbsBackward0'}
# hardsigmoid's derivative is a step (1/6 inside (-3, 3), 0 outside): its
# second derivative is 0, which torch 1.13 does not implement (it raises)
TORCH_HAS_NO_SECOND_DERIVATIVE = {'HardsigmoidBackward0'}
# nor those of the margin losses, whose derivatives are steps (p = 1), and
# of pdist taken at p = 1 (a sign)
TORCH_HAS_NO_SECOND_DERIVATIVE |= {'MultiMarginLossBackward0', 'MultilabelMarginLossBackward0',
                                   'PdistBackward0'}
# sgn of real numbers is a step: its derivative is 0 where it is
# defined; torch 1.13's SgnBackward0 gives values of about 1e-6 instead at
# times (on 1-d inputs of 5 here), as its double backward above does
DERIVATIVE_IS_ZERO = {'SgnBackward0'}
# torch 1.13's double backward of _weight_norm_interface leaves out the
# path through the norms it saved (its own gradgradcheck fails): libdl's
# second derivatives are checked by gradgradcheck alone
TORCH_SECOND_DERIVATIVE_IS_WRONG = {'WeightNormInterfaceBackward0'}


def idx(m, rows):
    return m.tensor(rows)


def seeded(m, t, method, *args):
    """A random in-place op, seeded so that every call draws the same."""
    m.manual_seed(0)
    return getattr(t * 1, method)(*args)


def copy_slices(m, a, b):
    c = a * 1
    c[1] = b
    return c


def stale_view_grad(m, g):
    """The gradient, with create_graph, of a view remade over its base's
    new history (AsStridedBackward0) with respect to that base: its
    backward of backward, AsStridedScatterBackward0."""
    a = m.ones(3, 4, dtype=m.float64, requires_grad=True)
    c = a * 1
    v = c[1:]
    v.mul_(2)
    return m.autograd.grad(v, c, g, create_graph=True)[0]


def written_base_grad(m, g):
    """The gradient, with create_graph, of a tensor written through a view
    (CopySlices) with respect to its history before the write: the masked
    gradient, CopySlicesMaskBackward0."""
    a = m.ones(3, 4, dtype=m.float64, requires_grad=True)
    c = a.clone()
    c[1] = 3.0
    return m.autograd.grad(c, a, g, create_graph=True)[0]


def as_strided(m, a):
    c = a * 1
    v = c[1:]
    v.mul_(2)
    return v


def rnn_layer(m, kind, x, *states, **kw):
    """a recurrent layer of module m with fixed weights (the same for dl and
    torch) over x [T, B, 3] from the states: its output and final states"""
    layer = getattr(m.nn, kind)(3, 4, **kw).double()
    wrng = np.random.default_rng(7)
    with m.no_grad():
        for p in layer.parameters():
            p.copy_(m.tensor(wrng.uniform(-0.6, 0.6, tuple(p.shape))))
    out, h = layer(x, tuple(states) if kind == 'LSTM' else states[0])
    return (out,) + (tuple(h) if kind == 'LSTM' else (h,))


WALK = {
    'AbsBackward0': unary(lambda m, a: a.abs(), 'nonzero'),
    'AddBackward0': binary(lambda m, a, b: a + b) + [Case(lambda m, a, b: m.add(a, b, alpha=2.5),
                                                          (3, 4), (4,))],
    'AmaxBackward0': [Case(lambda m, a: a.amax(1), (3, 4)), Case(lambda m, a: a.amax(), (5,)),
                      Case(lambda m, a: a.amax((0, 2), keepdim=True), (2, 3, 4))],
    'AminBackward0': [Case(lambda m, a: a.amin(0), (3, 4)),
                      Case(lambda m, a: a.amin(-1, keepdim=True), (3, 4))],
    'AsStridedBackward0': [Case(as_strided, (3, 4))],
    'AsStridedScatterBackward0': [Case(stale_view_grad, (2, 4))],
    'Atan2Backward0': binary(lambda m, a, b: a.atan2(b), 'nonzero'),
    'AddcmulBackward0': [Case(lambda m, a, b, c: m.addcmul(a, b, c, value=0.7), (3, 4), (3, 4),
                              (3, 4)),
                         Case(lambda m, a, b, c: a.addcmul(b, c, value=-1.5), (3, 4), (4,),
                              (3, 1))],
    'AddcdivBackward0': [Case(lambda m, a, b, c: m.addcdiv(a, b, c, value=0.7), (3, 4), (3, 4),
                              (3, 4), domain='nonzero'),
                         Case(lambda m, a, b, c: a.addcdiv(b, c, value=-1.5), (3, 4), (4,),
                              (3, 1), domain='nonzero')],
    'CopysignBackward0': binary(lambda m, a, b: a.copysign(b), 'nonzero'),
    'CopysignBackward1': [Case(lambda m, a: a.copysign(-2.0), (3, 4), domain='nonzero')],
    'FmodBackward0': [Case(lambda m, a: m.fmod(a, 0.7), (3, 4), domain='frac')],
    'FmodBackward1': binary(lambda m, a, b: a.fmod(b), 'nonzero'),
    'FmaxBackward0': binary(lambda m, a, b: m.fmax(a, b)),
    'FminBackward0': binary(lambda m, a, b: a.fmin(b)),
    'HypotBackward0': binary(lambda m, a, b: m.hypot(a, b), 'nonzero'),
    'LogaddexpBackward0': binary(lambda m, a, b: m.logaddexp(a, b)),
    'Logaddexp2Backward0': binary(lambda m, a, b: a.logaddexp2(b)),
    'NextafterBackward0': None,  # its backward fails, as torch's: test_binary_more.py
    'XlogyBackward0': binary(lambda m, a, b: m.xlogy(a, b), 'pos'),
    'XlogyBackward1': [Case(lambda m, a: m.xlogy(2.5, a), (3, 4), domain='pos')],
    'XlogyBackward2': [Case(lambda m, a: a.xlogy(1.5), (3, 4))],
    'BernoulliBackward1': [Case(lambda m, a: seeded(m, a, 'bernoulli_', 0.5), (3, 4), random=True)],
    'BmmBackward0': [Case(lambda m, a, b: a.bmm(b), (2, 3, 4), (2, 4, 2)),
                     Case(lambda m, a, b: a.matmul(b), (2, 1, 3, 4), (3, 4, 2))],
    'CatBackward0': [Case(lambda m, a, b: m.cat([a, b], 1), (3, 4), (3, 2)),
                     Case(lambda m, a, b: m.cat([a, b]), (3,), (2,))],
    'CeilBackward0': unary(lambda m, a: a.ceil(), 'frac'),
    'ClampBackward0': [Case(lambda m, a, b: a.clamp(b, None), (3, 4), (4,)),
                       Case(lambda m, a, b, c: a.clamp(b, c), (3, 4), (4,), (3, 1))],
    'ClampBackward1': [Case(lambda m, a: a.clamp(-0.5, 0.5), (3, 4), domain='nonzero'),
                       Case(lambda m, a: a.clamp(min=0.4), (5,), domain='nonzero')],
    'ClampMaxBackward0': [Case(lambda m, a: a.clamp_max(0.3), (3, 4), domain='nonzero')],
    'ClampMaxBackward1': [Case(lambda m, a, b: a.clamp_max(b), (3, 4), (4,))],
    'ClampMinBackward1': [Case(lambda m, a, b: m.clamp_min(a, b), (3, 4), (3, 1))],
    'CloneBackward0': unary(lambda m, a: a.clone()),
    'CopySlices': [Case(copy_slices, (3, 4), (4,))],
    'CopySlicesMaskBackward0': [Case(written_base_grad, (3, 4))],
    'CosBackward0': unary(lambda m, a: a.cos()),
    'CummaxBackward0': [Case(lambda m, a: a.cummax(1)[0], (3, 4)),
                        Case(lambda m, a: a.cummax(0)[0], (5,))],
    'CumminBackward0': [Case(lambda m, a: a.cummin(0)[0], (3, 4))],
    'CumprodBackward0': [Case(lambda m, a: a.cumprod(1), (3, 4), domain='nonzero'),
                         Case(lambda m, a: a.cumprod(1), (3, 4), domain='zeros'),
                         Case(lambda m, a: a.cumprod(0), (5,), domain='nonzero')],
    'CumsumBackward0': [Case(lambda m, a: a.cumsum(1), (3, 4)),
                        Case(lambda m, a: a.cumsum(0), (5,))],
    'DivBackward0': binary(lambda m, a, b: a / b, 'nonzero'),
    # rounding divisions are steps: zero gradient, as in torch
    'DivBackward2': binary(lambda m, a, b: a.div(b, rounding_mode='floor'), 'nonzero'),
    'ErfBackward0': unary(lambda m, a: a.erf()),
    'ErfcBackward0': unary(lambda m, a: a.erfc()),
    'ErfinvBackward0': unary(lambda m, a: a.erfinv(), 'unit'),
    'Exp2Backward0': unary(lambda m, a: a.exp2()),
    'AsinBackward0': unary(lambda m, a: a.asin(), 'unit'),
    'AcosBackward0': unary(lambda m, a: a.acos(), 'unit'),
    'AtanBackward0': unary(lambda m, a: a.atan()),
    'SinhBackward0': unary(lambda m, a: a.sinh()),
    'CoshBackward0': unary(lambda m, a: a.cosh()),
    'AsinhBackward0': unary(lambda m, a: a.asinh()),
    'AcoshBackward0': unary(lambda m, a: a.acosh(), 'above1'),
    'AtanhBackward0': unary(lambda m, a: a.atanh(), 'unit'),
    'Log10Backward0': unary(lambda m, a: a.log10(), 'pos'),
    'LgammaBackward0': unary(lambda m, a: a.lgamma(), 'pos'),
    'DigammaBackward0': unary(lambda m, a: a.digamma(), 'pos'),
    # digamma's derivative, polygamma (1, x), and its own, polygamma (2, x)
    'PolygammaBackward0': unary(
        lambda m, a: m.autograd.grad(a.digamma().sum(), a, create_graph=True)[0], 'pos'),
    'Deg2RadBackward0': unary(lambda m, a: a.deg2rad()),
    'Rad2DegBackward0': unary(lambda m, a: a.rad2deg()),
    'SincBackward0': unary(lambda m, a: a.sinc()),
    'I0Backward0': unary(lambda m, a: a.i0()),
    # i0's derivative, i1
    'SpecialI1Backward0': unary(
        lambda m, a: m.autograd.grad(a.i0().sum(), a, create_graph=True)[0]),
    'PowBackward0': unary(lambda m, a: a.square()),
    'SgnBackward0': unary(lambda m, a: a.sgn(), 'nonzero'),
    'LogitBackward0': [Case(lambda m, a: a.logit(), (3, 4), domain='unit_interval'),
                       Case(lambda m, a: a.logit(0.2), (5,), domain='unit_interval')],
    'ExpBackward0': unary(lambda m, a: a.exp()),
    'ExpandBackward0': [Case(lambda m, a: a.expand(3, 4), (1, 4)),
                        Case(lambda m, a: a.expand(2, 3, 4), (3, 1))],
    'Expm1Backward0': unary(lambda m, a: a.expm1()),
    'FillBackward0': [Case(lambda m, a: (a * 1).fill_(2.0), (3, 4))],
    'FloorBackward0': unary(lambda m, a: a.floor(), 'frac'),
    'FracBackward0': unary(lambda m, a: a.frac(), 'frac'),
    'GatherBackward0': [Case(lambda m, a: a.gather(1, idx(m, [[0, 2], [1, 1], [3, 0]])), (3, 4)),
                        Case(lambda m, a: a.gather(0, idx(m, [[2, 0, 1, 1]])), (3, 4))],
    'GeluBackward0': unary(lambda m, a: m.nn.functional.gelu(a))
    + [Case(lambda m, a: m.nn.functional.gelu(a, approximate='tanh'), (3, 4))],
    'KthvalueBackward0': [Case(lambda m, a: a.kthvalue(2, 1)[0], (3, 4)),
                          Case(lambda m, a: a.kthvalue(3, 0, keepdim=True)[0], (5, 2))],
    'Log1PBackward0': unary(lambda m, a: a.log1p(), 'pos'),
    'Log2Backward0': unary(lambda m, a: a.log2(), 'pos'),
    'LogBackward0': unary(lambda m, a: a.log(), 'pos'),
    'LogSoftmaxBackward0': [Case(lambda m, a: a.log_softmax(1), (3, 4)),
                            Case(lambda m, a: a.log_softmax(0), (5,))],
    'MaxBackward0': [Case(lambda m, a: a.max(1)[0], (3, 4)),
                     Case(lambda m, a: a.max(0, keepdim=True)[0], (3, 4))],
    'MaxBackward1': [Case(lambda m, a: a.max(), (3, 4))],
    'MaximumBackward0': binary(lambda m, a, b: a.maximum(b)),
    'MeanBackward0': [Case(lambda m, a: a.mean(), (3, 4))],
    'MeanBackward1': [Case(lambda m, a: a.mean(1), (3, 4)),
                      Case(lambda m, a: a.mean((0, 2), keepdim=True), (2, 3, 4))],
    'MedianBackward0': [Case(lambda m, a: a.median(), (3, 5))],
    'MedianBackward1': [Case(lambda m, a: a.median(1)[0], (3, 5))],
    'MinBackward0': [Case(lambda m, a: a.min(1)[0], (3, 4))],
    'MinBackward1': [Case(lambda m, a: a.min(), (3, 4))],
    'MinimumBackward0': binary(lambda m, a, b: a.minimum(b)),
    'MmBackward0': [Case(lambda m, a, b: a.mm(b), (3, 4), (4, 2)),
                    Case(lambda m, a, b: a @ b, (3, 4), (4, 2)),
                    # a batch times a matrix folds into one GEMM, as torch's
                    Case(lambda m, a, b: a.matmul(b), (2, 3, 4), (4, 2))],
    'MulBackward0': binary(lambda m, a, b: a * b) + [Case(lambda m, a: a * 2.5, (3, 4))],
    'NanToNumBackward0': unary(lambda m, a: a.nan_to_num()),
    'NanmedianBackward0': [Case(lambda m, a: a.nanmedian(), (3, 5))],
    'NanmedianBackward1': [Case(lambda m, a: a.nanmedian(0)[0], (3, 5))],
    'NansumBackward0': [Case(lambda m, a: a.nansum(), (3, 4)),
                        Case(lambda m, a: a.nansum(1), (3, 4))],
    # the norms: one fused node each, recorded ops for the double backward
    'NativeBatchNormBackward0': [
        Case(lambda m, a, w, b: m.nn.functional.batch_norm(a, None, None, w, b, True), (3, 2, 4),
             (2,), (2,)),
        Case(lambda m, a: m.nn.functional.batch_norm(a, None, None, training=True), (4, 3)),
        Case(lambda m, a, w: m.nn.functional.batch_norm(a, m.zeros(2, dtype=m.float64) + 0.5,
                                                        m.ones(2, dtype=m.float64) * 2, w, None),
             (3, 2, 2), (2,))],
    'NativeLayerNormBackward0': [
        Case(lambda m, a, w, b: m.nn.functional.layer_norm(a, (4,), w, b), (3, 4), (4,), (4,)),
        Case(lambda m, a: m.nn.functional.layer_norm(a, (2, 3)), (2, 2, 3))],
    'NativeGroupNormBackward0': [
        Case(lambda m, a, w, b: m.nn.functional.group_norm(a, 2, w, b), (2, 4, 3), (4,), (4,)),
        Case(lambda m, a: m.nn.functional.group_norm(a, 3), (2, 3, 2, 2))],
    'NegBackward0': unary(lambda m, a: -a),
    'NormBackward1': [Case(lambda m, a: a.norm(dim=1), (3, 4)),
                      Case(lambda m, a: a.norm(p=3, dim=0, keepdim=True), (3, 4), domain='nonzero'),
                      Case(lambda m, a: a.norm(p=3, dim=1), (3, 4), domain='zeros')],
    'NormalBackward0': [Case(lambda m, a: seeded(m, a, 'normal_'), (3, 4), random=True)],
    'NotImplemented': None,  # scatter with reduce=: not differentiable, see below
    'PermuteBackward0': [Case(lambda m, a: a.permute(2, 0, 1), (2, 3, 4))],
    'PowBackward0': [Case(lambda m, a: a.pow(3), (3, 4)),
                     Case(lambda m, a: m.float_power(a, -1.5), (3, 4), domain='pos')],
    'PowBackward1': [Case(lambda m, a, b: a.pow(b), (3, 4), (3, 4), domain='pos'),
                     Case(lambda m, a, b: a.pow(b), (3, 4), (4,), domain='pos'),
                     Case(lambda m, a, b: m.float_power(a, b), (3, 4), (4,), domain='pos'),
                     Case(lambda m, a: 2.0 ** a, (5,))],
    'PowBackward2': [Case(lambda m, a: m.pow(2.0, a), (5,)),
                     Case(lambda m, a: m.float_power(1.5, a), (3, 4))],
    'ProdBackward0': [Case(lambda m, a: a.prod(), (3, 4), domain='nonzero'),
                      Case(lambda m, a: a.prod(), (5,), domain='zeros')],
    'ProdBackward1': [Case(lambda m, a: a.prod(1), (3, 4), domain='nonzero'),
                      Case(lambda m, a: a.prod(1), (3, 4), domain='zeros'),
                      Case(lambda m, a: a.prod(1, keepdim=True), (2, 3, 4), domain='zeros')],
    'ReciprocalBackward0': unary(lambda m, a: a.reciprocal(), 'nonzero'),
    'ReluBackward0': unary(lambda m, a: a.relu(), 'nonzero'),
    'LeakyReluBackward0': unary(lambda m, a: m.nn.functional.leaky_relu(a, 0.1), 'nonzero'),
    # the activations of dl-ops-activation.c and the table's: inputs away
    # from their kinks (+-3 for hardswish and hardsigmoid, 0.2 for the
    # shrinks, 0 for threshold, relu6 and elu)
    'HardswishBackward0': unary(lambda m, a: m.nn.functional.hardswish(a)),
    'HardsigmoidBackward0': unary(lambda m, a: m.nn.functional.hardsigmoid(a)),
    'MishBackward0': unary(lambda m, a: m.nn.functional.mish(a)),
    'LogSigmoidBackward0': unary(lambda m, a: m.nn.functional.logsigmoid(a)),
    'EluBackward0': (unary(lambda m, a: m.nn.functional.elu(a, 0.7), 'nonzero')
                     + [Case(lambda m, a: m.nn.functional.selu(a), (3, 4), domain='nonzero')]),
    'CeluBackward0': unary(lambda m, a: m.nn.functional.celu(a, 1.5), 'nonzero'),
    'HardshrinkBackward0': unary(lambda m, a: m.nn.functional.hardshrink(a, 0.2), 'nonzero'),
    'SoftshrinkBackward0': unary(lambda m, a: m.nn.functional.softshrink(a, 0.2), 'nonzero'),
    'ThresholdBackward0': unary(lambda m, a: m.nn.functional.threshold(a, 0.0, 0.5), 'nonzero'),
    'HardtanhBackward0': (unary(lambda m, a: m.nn.functional.hardtanh(a, -2.5, 2.5))
                          + [Case(lambda m, a: m.nn.functional.relu6(a), (3, 4),
                                  domain='nonzero')]),
    'RreluWithNoiseBackward0': unary(lambda m, a: m.nn.functional.rrelu(a, 0.1, 0.3), 'nonzero'),
    'PreluBackward0': [Case(lambda m, a, w: m.nn.functional.prelu(a, w), (2, 3, 4), (3,),
                            domain='nonzero'),
                       Case(lambda m, a, w: m.nn.functional.prelu(a, w), (3, 4), (1,),
                            domain='nonzero')],
    'GluBackward0': [Case(lambda m, a: m.nn.functional.glu(a, 1), (3, 4)),
                     Case(lambda m, a: m.nn.functional.glu(a, 0), (4,))],
    'MaxPool2DWithIndicesBackward0': [Case(lambda m, a: m.nn.functional.max_pool2d(a, 3, 2, 1),
                                           (2, 2, 5, 6), domain='nonzero')],
    # convolutions are unfold (im2col), a batched product and fold (col2im)
    'Im2ColBackward0': [Case(lambda m, a: m.nn.functional.unfold(a, (2, 3), padding=1, stride=2),
                             (2, 2, 4, 5)),
                        Case(lambda m, a, w: m.nn.functional.conv2d(a, w, None, 1, 1, 1, 2),
                             (1, 4, 4, 4), (2, 2, 3, 3))],
    'Col2ImBackward0': [Case(lambda m, a: m.nn.functional.fold(a, (4, 5), 2, padding=1, stride=2),
                             (2, 8, 9)),
                        Case(lambda m, a, w: m.nn.functional.conv_transpose2d(a, w, None, 2, 1,
                                                                              1),
                             (1, 2, 3, 3), (2, 3, 3, 3))],
    # conv2d with groups 1 is one fused node (create_graph: the ops above)
    'ConvolutionBackward0': [Case(lambda m, a, w, b: m.nn.functional.conv2d(a, w, b, 2, 1),
                                  (2, 3, 5, 6), (4, 3, 3, 3), (4,)),
                             Case(lambda m, a, w: m.nn.functional.conv2d(a, w, None, 1, (0, 2),
                                                                         (2, 1)),
                                  (3, 2, 6, 5), (3, 2, 2, 3)),
                             Case(lambda m, a, w: m.nn.functional.conv2d(a, w), (1, 3, 3, 4),
                                  (2, 3, 1, 1))],
    'RemainderBackward0': [Case(lambda m, a: a.remainder(0.7), (3, 4), domain='frac')],
    'RemainderBackward1': [Case(lambda m, a, b: a.remainder(b), (3, 4), (4,), domain='frac')],

    'RoundBackward0': unary(lambda m, a: a.round(), 'frac'),
    'RsqrtBackward0': unary(lambda m, a: a.rsqrt(), 'pos'),
    'ScatterAddBackward0': [Case(lambda m, a, b: a.scatter_add(1, idx(m, [[0, 2], [1, 1], [3, 0]]), b),
                                 (3, 4), (3, 2))],
    'ScatterBackward0': [Case(lambda m, a, b: a.scatter(1, idx(m, [[0, 2], [1, 3], [3, 0]]), b),
                              (3, 4), (3, 2))],
    'ScatterReduceBackward0': [
        Case(lambda m, a, b: a.scatter_reduce(1, idx(m, [[0, 2], [1, 1], [3, 0]]), b, 'sum'),
             (3, 4), (3, 2)),
        Case(lambda m, a, b: a.scatter_reduce(1, idx(m, [[0, 2], [1, 1], [3, 0]]), b, 'mean'),
             (3, 4), (3, 2)),
        Case(lambda m, a, b: a.scatter_reduce(1, idx(m, [[0, 2], [1, 1], [3, 0]]), b, 'amax'),
             (3, 4), (3, 2)),
        Case(lambda m, a, b: a.scatter_reduce(1, idx(m, [[0, 2], [1, 1], [3, 0]]), b, 'prod'),
             (3, 4), (3, 2), domain='nonzero')],
    'SelectBackward0': [Case(lambda m, a: a[1], (3, 4)), Case(lambda m, a: a.select(1, -1), (3, 4))],
    'SigmoidBackward0': unary(lambda m, a: a.sigmoid()),
    'SignBackward0': unary(lambda m, a: a.sign(), 'nonzero'),
    'SiluBackward0': unary(lambda m, a: m.nn.functional.silu(a)),
    'SinBackward0': unary(lambda m, a: a.sin()),
    'SliceBackward0': [Case(lambda m, a: a[:, 1:3], (3, 4)), Case(lambda m, a: a[::2], (5,))],
    'SoftmaxBackward0': [Case(lambda m, a: a.softmax(1), (3, 4)),
                         Case(lambda m, a: m.nn.functional.softmax(a, 0), (5,))],
    'SortBackward0': [Case(lambda m, a: a.sort(1)[0], (3, 4)),
                      Case(lambda m, a: a.sort(0, descending=True)[0], (5,))],
    'SqrtBackward0': unary(lambda m, a: a.sqrt(), 'pos'),
    'SqueezeBackward1': [Case(lambda m, a: a.squeeze(1), (3, 1, 4))],
    'SubBackward0': binary(lambda m, a, b: a - b) + [Case(lambda m, a: 1.5 - a, (3, 4))],
    'SumBackward0': [Case(lambda m, a: a.sum(), (3, 4))],
    'SumBackward1': [Case(lambda m, a: a.sum(1), (3, 4)),
                     Case(lambda m, a: a.sum((0, 2), keepdim=True), (2, 3, 4))],
    'TBackward0': [Case(lambda m, a: a.t(), (3, 4))],
    'TanBackward0': unary(lambda m, a: a.tan(), 'unit'),
    'TanhBackward0': unary(lambda m, a: a.tanh()),
    'ToCopyBackward0': [Case(lambda m, a: a.to(m.float32), (3, 4), eps=1e-3, atol=1e-4, rtol=1e-3)],
    'TopkBackward0': [Case(lambda m, a: a.topk(2, 1)[0], (3, 4)),
                      Case(lambda m, a: a.topk(2, 0, largest=False)[0], (5,))],
    'TransposeBackward0': [Case(lambda m, a: a.transpose(0, 2), (2, 3, 4))],
    'UnfoldBackward0': [Case(lambda m, a: a.unfold(1, 2, 1), (3, 4)),
                        Case(lambda m, a: a.unfold(-1, 3, 2).unfold(0, 2, 1), (3, 7))],
    'DiagonalBackward0': [Case(lambda m, a: a.diagonal(1, 0, 2), (3, 2, 4)),
                          Case(lambda m, a: m.trace(a), (3, 4))],
    'TruncBackward0': unary(lambda m, a: a.trunc(), 'frac'),
    'UniformBackward0': [Case(lambda m, a: seeded(m, a, 'uniform_'), (3, 4), random=True)],
    'UnsqueezeBackward0': [Case(lambda m, a: a.unsqueeze(1), (3, 4))],
    'ViewBackward0': [Case(lambda m, a: a.view(3, 2, 2), (3, 4)),
                      Case(lambda m, a: a.unflatten(1, (2, -1)), (3, 4))],
    'WhereBackward0': [Case(lambda m, a, b: m.where(a > 0, a, b), (3, 4), (3, 4)),
                       Case(lambda m, a, b: m.where(b > 0, a, b), (3, 4), (4,))],
    # the fused recurrent layer (create_graph: the composite chain of ops)
    'RnnLayerBackward0': [Case(lambda m, x, h, c: rnn_layer(m, 'LSTM', x, h, c, proj_size=2),
                               (3, 2, 3), (1, 2, 2), (1, 2, 4)),
                          Case(lambda m, x, h: rnn_layer(m, 'GRU', x, h, bidirectional=True),
                               (3, 2, 3), (2, 2, 4)),
                          Case(lambda m, x, h: rnn_layer(m, 'RNN', x, h, num_layers=2),
                               (2, 3, 3), (2, 3, 4))],
}


def adjoint_of(op, shape):
    """fn(m, g): the gradient of op at a zero input of the given shape for
    the output gradient g, with create_graph: for a linear op (padding,
    pooling, interpolation), the op's adjoint applied to g, whose node
    is the op's BackwardBackward."""
    def fn(m, g):
        x = m.zeros(shape, dtype=m.float64, requires_grad=True)
        return m.autograd.grad(op(m, x), x, g, create_graph=True)[0]
    return fn


def linear_map(name, op, shape, out_shape):
    """WALK entries for a linear op's node and its adjoint's."""
    WALK[name] = [Case(op, shape)]
    WALK[name.replace('Backward0', 'BackwardBackward0')] = [Case(adjoint_of(op, shape), out_shape)]


# padding, pooling and interpolation (dl-ops-resample.c)
for _name, _op, _shape, _out in [
        ('ConstantPadNdBackward0', lambda m, a: m.nn.functional.pad(a, (1, -1, 2, 0), value=0.5),
         (2, 3, 4), (2, 5, 4)),
        ('ReflectionPad1DBackward0', lambda m, a: m.nn.functional.pad(a, (2, 3), 'reflect'),
         (2, 2, 4), (2, 2, 9)),
        ('ReflectionPad2DBackward0', lambda m, a: m.nn.functional.pad(a, (1, 2, 2, 0), 'reflect'),
         (1, 2, 3, 4), (1, 2, 5, 7)),
        ('ReflectionPad3DBackward0',
         lambda m, a: m.nn.functional.pad(a, (1, 0, 0, 1, 1, 1), 'reflect'), (1, 2, 3, 2, 3),
         (1, 2, 5, 3, 4)),
        ('ReplicationPad1DBackward0', lambda m, a: m.nn.functional.pad(a, (3, 1), 'replicate'),
         (2, 3), (2, 7)),
        ('ReplicationPad2DBackward0',
         lambda m, a: m.nn.functional.pad(a, (2, 1, 1, 2), 'replicate'), (2, 2, 3, 3),
         (2, 2, 6, 6)),
        ('ReplicationPad3DBackward0',
         lambda m, a: m.nn.functional.pad(a, (1, 1, 0, 2, 1, 0), 'replicate'), (2, 2, 2, 3),
         (2, 3, 4, 5)),
        ('CircularPadBackward0', lambda m, a: m.nn.functional.pad(a, (2, 1, 1, 1), 'circular'),
         (1, 2, 3, 4), (1, 2, 5, 7)),
        ('AvgPool2DBackward0',
         lambda m, a: m.nn.functional.avg_pool2d(a, 3, 2, 1, ceil_mode=True,
                                                 count_include_pad=False), (2, 2, 6, 7),
         (2, 2, 4, 4)),
        ('AdaptiveAvgPool2DBackward0', lambda m, a: m.nn.functional.adaptive_avg_pool2d(a, (3, 2)),
         (2, 2, 5, 7), (2, 2, 3, 2)),
        ('UpsampleNearest1DBackward0',
         lambda m, a: m.nn.functional.interpolate(a, 7), (2, 2, 4), (2, 2, 7)),
        ('UpsampleNearest2DBackward0',
         lambda m, a: m.nn.functional.interpolate(a, scale_factor=(1.5, 0.7)), (1, 2, 4, 5),
         (1, 2, 6, 3)),
        ('UpsampleNearest3DBackward0',
         lambda m, a: m.nn.functional.interpolate(a, (3, 4, 2)), (1, 1, 2, 3, 4),
         (1, 1, 3, 4, 2)),
        ('UpsampleLinear1DBackward0',
         lambda m, a: m.nn.functional.interpolate(a, 7, mode='linear'), (2, 2, 4), (2, 2, 7)),
        ('UpsampleBilinear2DBackward0',
         lambda m, a: m.nn.functional.interpolate(a, (5, 3), mode='bilinear',
                                                  align_corners=True), (1, 2, 3, 4),
         (1, 2, 5, 3)),
        ('UpsampleBicubic2DBackward0',
         lambda m, a: m.nn.functional.interpolate(a, (5, 6), mode='bicubic'), (1, 2, 3, 4),
         (1, 2, 5, 6)),
        ('UpsampleTrilinear3DBackward0',
         lambda m, a: m.nn.functional.interpolate(a, (3, 2, 5), mode='trilinear'),
         (1, 1, 2, 3, 4), (1, 1, 3, 2, 5))]:
    linear_map(_name, _op, _shape, _out)

# a linear layer with a bias is one addmm, as torch records it
# the samplers of the distributions (libdl's random streams: values are
# not torch's; the old values of an in-place draw get a zero gradient)
WALK['ExponentialBackward0'] = [Case(lambda m, a: seeded(m, a, 'exponential_'), (3, 4),
                                     random=True)]
WALK['CauchyBackward0'] = [Case(lambda m, a: seeded(m, a, 'cauchy_'), (3, 4), random=True)]
WALK['GeometricBackward0'] = [Case(lambda m, a: seeded(m, a, 'geometric_', 0.3), (3, 4),
                                   random=True)]
WALK['LogNormalBackward0'] = [Case(lambda m, a: seeded(m, a, 'log_normal_'), (3, 4),
                                   random=True)]
# the special functions evaluated on the host (libdl/ops/dl-ops-special.c):
# their derivatives are evaluated there too, outside the graph, so they
# have no second derivative (torch's have)
_HOST = 'the derivative is evaluated on the host, outside the graph (dl-ops-special.c)'
WALK['SpecialErfcxBackward0'] = unary(lambda m, a: m.special.erfcx(a), gradgrad_fails=_HOST)
WALK['SpecialI0EBackward0'] = unary(lambda m, a: m.special.i0e(a), gradgrad_fails=_HOST)
WALK['SpecialI1EBackward0'] = unary(lambda m, a: m.special.i1e(a), gradgrad_fails=_HOST)
WALK['SpecialLogNdtrBackward0'] = unary(lambda m, a: m.special.log_ndtr(a), gradgrad_fails=_HOST)
WALK['SpecialNdtriBackward0'] = unary(lambda m, a: m.special.ndtri(a), 'unit_interval',
                                      gradgrad_fails=_HOST)
# torch differentiates these in their second argument only
WALK['SpecialZetaBackward0'] = [Case(lambda m, q: m.special.zeta(q.detach() * 0 + 2.5, q), (3, 4),
                                     domain='pos', gradgrad_fails=_HOST)]
WALK['IgammaBackward0'] = [Case(lambda m, x: m.igamma(x.detach() * 0 + 1.5, x), (3, 4),
                                domain='pos', gradgrad_fails=_HOST)]
WALK['IgammacBackward0'] = [Case(lambda m, x: m.igammac(x.detach() * 0 + 1.5, x), (3, 4),
                                 domain='pos', gradgrad_fails=_HOST)]
WALK['AddmmBackward0'] = [
    Case(lambda m, a, w, b: m.nn.functional.linear(a, w, b), (3, 4), (2, 4), (2,)),
    Case(lambda m, a, w, b: m.nn.functional.linear(a, w, b), (2, 3, 4), (2, 4), (2,))]
WALK['AddmmBackward0'].append(Case(lambda m, i, a, b: m.addmm(i, a, b, beta=0.5, alpha=-2),
                                   (3, 1), (3, 4), (4, 2)))
WALK['BaddbmmBackward0'] = [Case(lambda m, i, a, b: m.baddbmm(i, a, b, beta=2, alpha=0.5),
                                 (3, 2), (2, 3, 4), (2, 4, 2)),
                            Case(lambda m, i, a, b: i.baddbmm(a, b), (2, 3, 2), (2, 3, 4),
                                 (2, 4, 2))]
# reshape's view (torch 1.13's _reshape_alias)
WALK['ReshapeAliasBackward0'] = [Case(lambda m, a: a.reshape(3, 2, -1) * 2, (3, 4)),
                                 Case(lambda m, a: a.reshape(1, 3, 4).exp(), (3, 4))]
# the rows of a batch times a matrix, viewed back as the batch
WALK['UnsafeViewBackward0'] = [Case(lambda m, a, b: a.matmul(b), (2, 3, 4), (4, 2))]
# one node for all the pieces: pieces without a gradient get zeros
WALK['SplitBackward0'] = [Case(lambda m, a: a.split(3, 1)[1] * 2, (3, 4)),
                          Case(lambda m, a: m.cat([p * (i + 1) for i, p in
                                                   enumerate(a.chunk(2, 0))]), (3, 4))]
WALK['SplitWithSizesBackward0'] = [Case(lambda m, a: a.split([1, 3], 1)[0].exp(), (3, 4)),
                                   Case(lambda m, a: m.split(a, [2, 0, 2], 1)[2] ** 2, (3, 4))]
# unsafe_split's pieces are no views, the backward is split's
WALK['UnsafeSplitBackward0'] = [Case(lambda m, a: m.cat([p * (i + 1) for i, p in
                                                         enumerate(a.unsafe_chunk(2, 1))], 1),
                                     (3, 4)),
                                Case(lambda m, a: m.unsafe_split(a, 2)[1].exp(), (3, 4))]
WALK['UnsafeSplitWithSizesBackward0'] = [
    Case(lambda m, a: m.unsafe_split_with_sizes(a, [1, 3], 1)[1].sin(), (3, 4))]
WALK['UnbindBackward0'] = [Case(lambda m, a: a.unbind(1)[2] * a.unbind(1)[0], (3, 4)),
                           Case(lambda m, a: m.stack(a.unbind(0)[::-1]), (3, 4))]
WALK['StackBackward0'] = [Case(lambda m, a, b: m.stack([a, b], 1), (3, 4), (3, 4)),
                          Case(lambda m, a: m.stack([a, a * 2, a]), (5,)),
                          Case(lambda m, a: m.stack([a]), ())]
WALK['MseLossBackward0'] = [
    Case(lambda m, a, b: m.nn.functional.mse_loss(a, b), (3, 4), (3, 4)),
    Case(lambda m, a, b: m.nn.functional.mse_loss(a, b, reduction='none'), (3, 4), (3, 4)),
    Case(lambda m, a, b: m.nn.functional.mse_loss(a, b, reduction='sum'), (3, 4), (3, 4))]
# (padding_idx's zero gradient is no derivative: test_embedding_activations.py
# checks it against torch)
WALK['EmbeddingBackward0'] = [
    Case(lambda m, a: m.nn.functional.embedding(idx(m, [[0, 2, 2], [3, 0, 1]]), a), (4, 3)),
    Case(lambda m, a: m.nn.functional.embedding(idx(m, [1, 3, 1]), a), (4, 3))]
# t[...]: the same elements as a new tensor
WALK['AliasBackward0'] = [Case(lambda m, a: a[...] * a.t()[...].t(), (3, 4))]


def _nll(m, a, target, **kw):
    return m.nn.functional.nll_loss(a.log_softmax(1), m.tensor(target), **kw)


WALK['NllLossBackward0'] = [
    Case(lambda m, a: _nll(m, a, [1, 0, 3]), (3, 4)),
    Case(lambda m, a: _nll(m, a, [1, 0, 3], weight=m.tensor([0.5, 2.0, 1.0, 1.5], dtype=m.float64),
                           ignore_index=0), (3, 4)),
    Case(lambda m, a: m.nn.functional.cross_entropy(a, m.tensor(2), reduction='none'), (5,))]
WALK['CtcLossBackward0'] = [
    Case(lambda m, a: m.nn.functional.ctc_loss(a.log_softmax(2), m.tensor([[1, 2], [3, 3]]),
                                               [4, 3], [2, 2]), (4, 2, 4),
         gradgrad_fails='the CTC gradient is computed outside the graph (torch does not '
                        'differentiate it twice either)'),
    Case(lambda m, a: m.nn.functional.ctc_loss(a.log_softmax(1), m.tensor([2, 1, 1]), [5], [3],
                                               blank=3, reduction='sum'), (5, 4),
         gradgrad_fails='the CTC gradient is computed outside the graph')]
WALK['NllLoss2DBackward0'] = [
    Case(lambda m, a: _nll(m, a, [[[1, 0], [2, 2]], [[0, 1], [1, 2]]]), (2, 3, 2, 2)),
    Case(lambda m, a: _nll(m, a, [[1, 0, 2], [2, 2, 0]], reduction='none'), (2, 3, 3))]
WALK['SoftMarginLossBackward0'] = [
    Case(lambda m, a: m.nn.functional.soft_margin_loss(
        a, m.tensor([[1.0, -1.0, 1.0, -1.0], [-1.0, -1.0, 1.0, 1.0], [1.0, 1.0, -1.0, 1.0]],
                    dtype=m.float64)), (3, 4)),
    Case(lambda m, a: m.nn.functional.soft_margin_loss(
        a, m.tensor([1.0, -1.0, -1.0, 1.0, 1.0], dtype=m.float64), reduction='none'), (5,))]
WALK['ClampMinBackward0'] = [
    Case(lambda m, a, b: m.nn.functional.margin_ranking_loss(
        a, b, m.tensor([1.0, -1.0, -1.0, 1.0, 1.0], dtype=m.float64), 0.1, reduction='none'),
         (5,), (5,)),
    Case(lambda m, a, b, c: m.nn.functional.triplet_margin_loss(a, b, c, reduction='none'),
         (3, 4), (3, 4), (3, 4))]


def _weight_norm(m, v, g, dim):
    """torch._weight_norm, libdl's from its weight_norm module."""
    if m is torch:
        return torch._weight_norm(v, g, dim)
    return importlib.import_module(m.__name__ + '.nn.utils.weight_norm')._weight_norm(v, g, dim)


WALK['WeightNormInterfaceBackward0'] = [
    Case(lambda m, v, g: _weight_norm(m, v, g, 0), (3, 4), (3, 1), domain='nonzero'),
    Case(lambda m, v, g: _weight_norm(m, v, g, 1), (3, 4), (1, 4), domain='nonzero'),
    Case(lambda m, v, g: _weight_norm(m, v, g, 0), (5,), (5,), domain='nonzero')]
WALK['NormBackward0'] = [
    Case(lambda m, v, g: _weight_norm(m, v, g, -1), (3, 4), (), domain='nonzero')]
WALK['MultiMarginLossBackward0'] = [
    Case(lambda m, a: m.nn.functional.multi_margin_loss(a, m.tensor([0, 3, 1])), (3, 4)),
    Case(lambda m, a: m.nn.functional.multi_margin_loss(
        a, m.tensor([2, 0, 1]), margin=0.5,
        weight=m.tensor([0.5, 2.0, 1.0, 1.5], dtype=m.float64), reduction='sum'), (3, 4))]
WALK['MultilabelMarginLossBackward0'] = [
    Case(lambda m, a: m.nn.functional.multilabel_margin_loss(
        a, m.tensor([[1, 0, -1, 2], [3, -1, 0, 0], [0, 2, 1, -1]])), (3, 4)),
    Case(lambda m, a: m.nn.functional.multilabel_margin_loss(a, m.tensor([2, 0, -1, 1, 3]),
                                                             reduction='none'), (5,))]

WALK['AdaptiveMaxPool2DBackward0'] = [
    Case(lambda m, a: m.nn.functional.adaptive_max_pool2d(a, (3, 2)), (2, 2, 5, 7),
         domain='nonzero')]
# torch 1.13 defines no second derivative of pdist (its PdistBackwardBackward0
# raises): the walk takes p = 1, whose second derivative is 0; gradgradcheck
# of the other orders is in test_losses_more.py
WALK['PdistBackward0'] = [Case(lambda m, a: m.pdist(a, 1.0), (4, 3))]
WALK['FractionalMaxPool2DBackward0'] = [
    Case(lambda m, a: m.nn.functional.fractional_max_pool2d(
        a, 2, (3, 4), _random_samples=m.tensor([[[0.25, 0.6], [0.9, 0.1]]], dtype=m.float64)),
        (1, 2, 7, 6), domain='nonzero')]
WALK['FractionalMaxPool3DBackward0'] = [
    Case(lambda m, a: m.nn.functional.fractional_max_pool3d(
        a, (2, 1, 2), (2, 3, 2), _random_samples=m.tensor([[[0.3, 0.5, 0.8]]], dtype=m.float64)),
        (1, 1, 4, 5, 4), domain='nonzero')]

# the 3-d poolings, max unpooling and the pixel shuffles (their values and
# more shapes: test_pooling_conv_more.py)
for _name, _op, _shape in [
        ('AvgPool3DBackward0',
         lambda m, a: m.nn.functional.avg_pool3d(a, (2, 3, 2), (1, 2, 2), (1, 1, 0),
                                                 ceil_mode=True, count_include_pad=False),
         (1, 2, 3, 5, 4)),
        ('AdaptiveAvgPool3DBackward0',
         lambda m, a: m.nn.functional.adaptive_avg_pool3d(a, (2, 3, 2)), (1, 2, 3, 5, 4))]:
    linear_map(_name, _op, _shape,
               tuple(_op(torch, torch.zeros(_shape, dtype=torch.float64)).shape))
WALK['MaxPool3DWithIndicesBackward0'] = [
    Case(lambda m, a: m.nn.functional.max_pool3d(a, 2, (1, 2, 1), 1), (1, 2, 3, 4, 3),
         domain='nonzero')]
WALK['AdaptiveMaxPool3DBackward0'] = [
    Case(lambda m, a: m.nn.functional.adaptive_max_pool3d(a, (2, 3, 2)), (1, 2, 3, 5, 4),
         domain='nonzero')]
WALK['MaxUnpool2DBackward0'] = [
    Case(lambda m, a: m.nn.functional.max_unpool2d(
        a, m.tensor([[[[0, 3], [9, 14]], [[5, 2], [12, 15]]]]), 2), (1, 2, 2, 2))]
WALK['MaxUnpool3DBackward0'] = [
    Case(lambda m, a: m.nn.functional.max_unpool3d(
        a, m.tensor([[[[[0, 3], [9, 14]], [[37, 50], [60, 63]]]]]), 2), (1, 1, 2, 2, 2))]
WALK['PixelShuffleBackward0'] = [
    Case(lambda m, a: m.nn.functional.pixel_shuffle(a, 2), (1, 8, 2, 3))]
WALK['PixelUnshuffleBackward0'] = [
    Case(lambda m, a: m.nn.functional.pixel_unshuffle(a, 2), (1, 2, 4, 2))]

# dropout's values are libdl's random stream, not PyTorch's: p = 1 drops
# everything in both, so that the gradients (zero) are comparable; its
# gradients for other p are checked in test_resample.py
WALK['NativeDropoutBackward0'] = [Case(lambda m, a: m.nn.functional.dropout(a, 1.0), (3, 4),
                                       random=True)]


def _sdpa(m, q, k, v, mask=None, **kw):
    """scaled_dot_product_attention, or for torch 1.13 (which lacks it) the
    explicit softmax(q k^T / sqrt(E) + mask) v"""
    if m is not torch:
        return m.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask, **kw)
    s = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    if kw.get('is_causal'):
        s = s.masked_fill(torch.ones(s.shape[-2:], dtype=torch.bool).triu(1), float('-inf'))
    return torch.softmax(s if mask is None else s + mask, -1) @ v


WALK['ScaledDotProductFlashAttentionBackward0'] = [
    Case(_sdpa, (2, 3, 4), (2, 5, 4), (2, 5, 3)),
    Case(_sdpa, (2, 3, 4), (1, 5, 4), (5, 2), (3, 5)),
    Case(lambda m, q, k, v: _sdpa(m, q, k, v, is_causal=True), (4, 3), (5, 3), (5, 2))]


# torch.linalg (libdl/ops/dl-ops-lapack*.c): inputs made well-conditioned,
# symmetric or positive-definite inside the case, and, for the vectors of
# eigh and svd, losses that do not depend on their signs


def _eye(m, n):
    return m.eye(n, dtype=m.float64)


def _projector(v):
    return v[..., :2] @ v[..., :2].mT


WALK['LinalgInvExBackward0'] = [
    Case(lambda m, a: m.linalg.inv(a + 4 * _eye(m, 3)), (3, 3)),
    Case(lambda m, a: m.linalg.inv(a + 4 * _eye(m, 3)), (2, 3, 3))]
WALK['LinalgDetBackward0'] = [
    Case(lambda m, a: m.linalg.det(a), (3, 3),
         gradgrad_fails='the cofactors are computed from an SVD outside the graph'),
    Case(lambda m, a: m.linalg.det(a), (2, 3, 3),
         gradgrad_fails='the cofactors are computed from an SVD outside the graph')]
WALK['LinalgSlogdetBackward0'] = [
    Case(lambda m, a: m.linalg.slogdet(a + 4 * _eye(m, 3))[1], (3, 3)),
    Case(lambda m, a: m.linalg.slogdet(a + 4 * _eye(m, 3))[1], (2, 3, 3))]
WALK['LinalgCholeskyExBackward0'] = [
    Case(lambda m, a: m.linalg.cholesky(a @ a.mT + _eye(m, 3)), (3, 3)),
    Case(lambda m, a: m.linalg.cholesky(a @ a.mT + _eye(m, 3), upper=True), (2, 3, 3))]
WALK['LinalgEighBackward0'] = [
    Case(lambda m, a: m.linalg.eigvalsh(a + a.mT), (4, 4)),
    Case(lambda m, a: _projector(m.linalg.eigh(a + a.mT + m.diag(m.arange(4.0, dtype=m.float64)
                                                                   * 3))[1]), (4, 4))]
WALK['LinalgSvdBackward0'] = [
    Case(lambda m, a: m.linalg.svdvals(a), (4, 3)),
    Case(lambda m, a: (lambda r: (r[0] * r[1].unsqueeze(-2)) @ r[0].mT)(
        m.linalg.svd(a, full_matrices=False)), (4, 3)),
    Case(lambda m, a: (lambda r: r[0] @ r[2])(m.linalg.svd(a, full_matrices=False)), (3, 5))]
WALK['LinalgQrBackward0'] = [
    Case(lambda m, a: (lambda r: r[0] * 2 + r[1].sum(-2, keepdim=True))(m.linalg.qr(a)), (4, 3)),
    Case(lambda m, a: (lambda r: r[0].sum(-1, keepdim=True) + r[1])(m.linalg.qr(a)), (3, 5))]
WALK['LinalgSolveExBackward0'] = [
    Case(lambda m, a, b: m.linalg.solve(a + 4 * _eye(m, 3), b), (3, 3), (3, 2)),
    Case(lambda m, a, b: m.linalg.solve(a + 4 * _eye(m, 3), b), (2, 3, 3), (3,))]
WALK['LinalgVectorNormBackward0'] = [
    Case(lambda m, a: m.linalg.vector_norm(a), (3, 4)),
    Case(lambda m, a: m.linalg.vector_norm(a, 3, 1, True), (3, 4)),
    Case(lambda m, a: m.linalg.vector_norm(a, 1.5, 0), (3, 4), domain='nonzero'),
    Case(lambda m, a: m.linalg.vector_norm(a, 1, (0, 1)), (3, 4), domain='nonzero'),
    Case(lambda m, a: m.linalg.vector_norm(a, float('inf'), 1), (3, 4))]
WALK['LinalgMatrixExpBackward0'] = [
    Case(lambda m, a: m.linalg.matrix_exp(a), (3, 3)),
    Case(lambda m, a: m.linalg.matrix_exp(a * 2), (2, 3, 3))]
WALK['LinalgLuFactorExBackward0'] = [
    Case(lambda m, a: m.linalg.lu_factor(a)[0], (3, 3)),
    Case(lambda m, a: m.linalg.lu_factor(a)[0], (2, 3, 3)),
    # wide and tall: U's extra columns, L's extra rows
    Case(lambda m, a: m.linalg.lu_factor(a)[0], (3, 5)),
    Case(lambda m, a: m.linalg.lu_factor(a)[0], (2, 5, 3))]
WALK['LinalgSolveTriangularBackward0'] = [
    Case(lambda m, a, b: m.linalg.solve_triangular(a + 4 * _eye(m, 3), b, upper=True), (3, 3),
         (3, 2)),
    Case(lambda m, a, b: m.linalg.solve_triangular(a + 4 * _eye(m, 3), b, upper=False,
                                                   left=False, unitriangular=True), (2, 3, 3),
         (2, 3))]


def _node_names():
    return list(Dl.autograd_get_node_names())


# Nodes that are no op of one process, so that neither gradcheck nor
# PyTorch on the same inputs can walk them here, with where their
# gradients are checked instead.
NOT_WALKED = {
    'PoissonBackward0':
        'a random count: its derivative is zero (as torch defines it), and a finite '
        'difference of the rate jumps where the count does; test_distributions.py checks the '
        'zero gradient and the counts\' statistics',
    'StandardGammaBackward0':
        'the implicit reparameterisation gradient of a gamma draw, which a finite difference '
        'of the rejection sampler does not give; test_distributions.py '
        '(test_standard_gamma_grad_matches_torch) checks it against torch._standard_gamma_grad',
    'SyncBatchNormAllReduceBackward':
        'the sum across the ranks of a SyncBatchNorm (libdl/distributed): tests/distributed '
        '(feat_worker.py syncbn, test-dist-features.c) check its gradients on 2 and 3 ranks '
        'against BatchNorm on the whole batch',
}


def test_every_node_has_an_entry():
    names = set(_node_names())
    missing = sorted(names - set(WALK) - set(NOT_WALKED))
    stale = sorted((set(WALK) | set(NOT_WALKED)) - names)
    assert not missing, f'autograd nodes with no entry in WALK: {missing}'
    assert not stale, f'WALK entries for nodes the library no longer makes: {stale}'


def _draw(rng, case):
    return [DOMAINS[case.domain](rng, s) for s in case.shapes]


def _leaf(m, a, contiguous):
    """A float64 leaf of module m holding a, contiguous or not."""
    if contiguous or a.ndim == 0:
        t = m.tensor(a)
    elif a.ndim == 1:
        buf = np.zeros(2 * a.shape[0])
        buf[::2] = a
        t = m.tensor(buf)[::2]
    else:
        t = m.tensor(np.ascontiguousarray(a.T)).permute(*reversed(range(a.ndim)))
    assert t.dtype == m.float64
    return t.requires_grad_()


def _np(t):
    return np.array(t.detach().numpy(), dtype=np.float64)


def _graph_names(t):
    """The names of the nodes of t's history."""
    # the visited wrappers stay referenced, so that their ids are not reused
    seen, stack, names, held = set(), [t.grad_fn], set(), []
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        held.append(node)
        names.add(node.name())
        stack.extend(node.get_next_node(i) for i in range(node.get_n_inputs()))
    return names


def _first(out):
    return out[0] if isinstance(out, (tuple, list)) else out


def _grads(m, outputs, xs, grad_outputs, create_graph):
    """The gradients of outputs weighted by grad_outputs with respect to
    the leaves xs, None where none flows."""
    return m.autograd.grad(outputs, xs, grad_outputs, create_graph=create_graph,
                           allow_unused=True)


def _derivatives(m, case, arrays, contiguous, grad_out, v, second):
    """The output, the first derivatives (of <out, grad_out>, with
    create_graph) and the second ones (of <first derivatives, v>)."""
    xs = [_leaf(m, a, contiguous) for a in arrays]
    out = _first(case.fn(m, *xs))
    first = _grads(m, [out], xs, [m.tensor(grad_out)], True)
    pairs = [(g, m.tensor(w)) for g, w in zip(first, v) if g is not None and g.requires_grad]
    second = (_grads(m, [g for g, _ in pairs], xs, [w for _, w in pairs], False)
              if pairs and second else [None] * len(xs))
    zeros = [np.zeros(a.shape) for a in arrays]
    return (out,
            [z if g is None else _np(g) for g, z in zip(first, zeros)],
            [z if g is None else _np(g) for g, z in zip(second, zeros)])


@pytest.mark.parametrize('name', sorted(n for n in WALK if WALK[n] is not None))
@pytest.mark.parametrize('contiguous', [True, False], ids=['contiguous', 'strided'])
def test_walk(name, contiguous, rng):
    if name not in _node_names():
        pytest.skip(f'{name}: not in this build')
    known = []
    for case in WALK[name]:
        arrays = _draw(rng, case)
        xs = [_leaf(dl, a, contiguous) for a in arrays]
        fn = functools.partial(case.fn, dl)
        fails = case.gradgrad_fails or GRADGRAD_FAILS.get(name)

        out = _first(fn(*xs))
        assert name in _graph_names(out), \
            f'{name}: the case makes {sorted(_graph_names(out))}'
        assert dl.autograd.gradcheck(fn, xs, **case.check)
        if fails:
            known.append(fails)
        else:
            assert dl.autograd.gradgradcheck(fn, xs, **case.check)

        grad_out = rng.uniform(-1, 1, tuple(out.shape))
        v = [rng.uniform(-1, 1, a.shape) for a in arrays]
        y, d1, d2 = _derivatives(dl, case, arrays, contiguous, grad_out, v, not fails)
        u, t1, t2 = _derivatives(torch, case, arrays, contiguous, grad_out, v,
                                 not fails and name not in TORCH_HAS_NO_SECOND_DERIVATIVE)
        if name in SECOND_DERIVATIVE_IS_ZERO or name in DERIVATIVE_IS_ZERO \
                or name in TORCH_HAS_NO_SECOND_DERIVATIVE:
            t2 = [np.zeros(a.shape) for a in arrays]
        if name in DERIVATIVE_IS_ZERO:
            t1 = [np.zeros(a.shape) for a in arrays]
        tol = dict(rtol=1e-6, atol=1e-9) if out.dtype == dl.float64 else dict(rtol=1e-5, atol=1e-6)
        if not case.random:
            np.testing.assert_allclose(_np(y), _np(u), **tol, err_msg=f'{name}: output')
        for i, (a, b) in enumerate(zip(d1, t1)):
            np.testing.assert_allclose(a, b, **tol, err_msg=f'{name}: d out / d input {i}')
        for i, (a, b) in enumerate(zip(d2, t2)):
            if name in TORCH_SECOND_DERIVATIVE_IS_WRONG:
                break
            np.testing.assert_allclose(a, b, **tol, err_msg=f'{name}: second derivative, input {i}')
    if known:
        pytest.xfail(known[0])


def test_not_implemented_node_refuses_backward():
    """scatter with reduce= records a NotImplemented node, whose backward
    is an error, as PyTorch's is."""
    a = dl.randn(3, 4, dtype=dl.float64, requires_grad=True)
    b = dl.randn(3, 2, dtype=dl.float64)
    out = a.scatter(1, dl.tensor([[0, 2], [1, 1], [3, 0]]), b, reduce='add')
    assert out.grad_fn.name() == 'NotImplemented'
    with pytest.raises(RuntimeError):
        out.sum().backward()
