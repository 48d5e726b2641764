# parametrizations.py: dl.nn.utils.parametrizations
# (torch.nn.utils.parametrizations, 1.13's two): orthogonal, a matrix (or
# batch) kept orthogonal through the matrix exponential, the Cayley map or
# Householder reflections, and spectral_norm, a weight divided by its
# largest singular value, each a parametrization registered with
# parametrize.register_parametrization, with torch's modules, buffers
# (base, _u, _v), defaults and errors.
#
# The maps are compositions of differentiable ops (matrix_exp, solve,
# matmul): exact, and not hot enough for fused kernels. The product of
# Householder reflections (torch.linalg.householder_product) is written
# here as k rank-one updates; the QR factorisation with sign correction
# stands for torch's geqrf + householder_product in right_inverse (the
# same Q), and a small Householder QR in LAPACK's convention gives geqrf's
# packed form where it is the answer (householder without trivialization).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import math
from enum import Enum, auto

from ... import _creation, linalg
from ..._indexing import cat
from ..._lib import _is_tensor
from ...autograd.grad_mode import no_grad
from ..modules import Module
from ..resample import normalize
from . import parametrize

__all__ = ['orthogonal', 'spectral_norm']


def _eps(dtype):
    return 2.220446049250313e-16 if str(dtype).endswith('float64') else 1.1920928955078125e-07


def _is_orthogonal(Q):
    n, k = Q.size(-2), Q.size(-1)
    Id = _creation.eye(k, dtype=Q.dtype)
    return bool((Q.mT @ Q).allclose(Id, atol=10. * n * _eps(Q.dtype)))


def _make_orthogonal(A):
    """The Q of A's QR factorisation, its columns' signs those of R's
    diagonal: Q with A = Q R, R's diagonal positive (torch's geqrf-based
    _make_orthogonal)."""
    Q, R = linalg.qr(A)
    return Q * R.diagonal(dim1=-2, dim2=-1).sign().unsqueeze(-2)


def _householder_product(A, tau):
    """torch.linalg.householder_product: the first k columns of
    H_1 ... H_k, H_i = I - tau_i v_i v_i^T, v_i the i-th column of A below
    the diagonal with a 1 on it."""
    n, k = A.size(-2), A.size(-1)
    V = A.tril(-1) + _creation.eye(n, k, dtype=A.dtype)
    Q = _creation.eye(n, dtype=A.dtype).expand(*A.shape[:-2], n, n)
    for i in range(k):
        v = V[..., :, i:i + 1]
        Q = Q - (Q @ v) @ v.mT * tau[..., i:i + 1].unsqueeze(-1)
    return Q[..., :k]


def _geqrf_2d(rows):
    """LAPACK's geqrf of a matrix given as a list of rows: R on and above
    the diagonal, the Householder vectors below it, and their taus."""
    a = [list(r) for r in rows]
    n, k = len(a), len(a[0])
    taus = []
    for j in range(min(n, k)):
        alpha = a[j][j]
        xnorm = math.sqrt(sum(a[i][j] ** 2 for i in range(j + 1, n)))
        if xnorm == 0.0:
            taus.append(0.0)
            continue
        beta = -math.copysign(math.hypot(alpha, xnorm), alpha)
        tau = (beta - alpha) / beta
        scale = 1.0 / (alpha - beta)
        for i in range(j + 1, n):
            a[i][j] *= scale
        a[j][j] = beta
        for c in range(j + 1, k):  # H applied to the columns on the right
            dot = a[j][c] + sum(a[i][j] * a[i][c] for i in range(j + 1, n))
            a[j][c] -= tau * dot
            for i in range(j + 1, n):
                a[i][c] -= tau * dot * a[i][j]
        taus.append(tau)
    return a, taus


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


class _Orthogonal(Module):
    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError('The householder parametrization does not support complex tensors.')
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer('base', None)

    def forward(self, X):
        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            X = X.tril()
            if n != k:
                X = cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mT
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = linalg.matrix_exp(A)
            else:
                Id = _creation.eye(n, dtype=A.dtype)
                Q = linalg.solve(Id - 0.5 * A, Id + 0.5 * A)
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(-1)
            tau = 2. / (1. + (A * A).sum(dim=-2))
            Q = _householder_product(A, tau)
            Q = Q * X.diagonal(dim1=-2, dim2=-1).trunc().unsqueeze(-2)
        if hasattr(self, 'base'):
            Q = self.base @ Q
        if transposed:
            Q = Q.mT
        return Q

    def right_inverse(self, Q):
        with no_grad():
            return self._right_inverse(Q)

    def _right_inverse(self, Q):
        if Q.shape != self.shape:
            raise ValueError('Expected a matrix or batch of matrices of shape {}. Got a tensor '
                             'of shape {}.'.format(self.shape, Q.shape))
        Q_init = Q
        n, k = Q.size(-2), Q.size(-1)
        transpose = n < k
        if transpose:
            Q = Q.mT
            n, k = k, n
        if not hasattr(self, 'base'):
            if self.orthogonal_map in (_OrthMaps.cayley, _OrthMaps.matrix_exp):
                raise NotImplementedError('It is not possible to assign to the matrix exponential '
                                          'or the Cayley parametrizations when '
                                          'use_trivialization=False.')
            A = self._packed_reflectors(Q)
            return A.mT if transpose else A
        if n == k:
            Q = _make_orthogonal(Q) if not _is_orthogonal(Q) else Q.clone()
        else:
            N = _creation.randn(*(tuple(Q.size()[:-2]) + (n, n - k)), dtype=Q.dtype)
            Q = _make_orthogonal(cat([Q, N], dim=-1))
        self.base = Q
        neg_Id = _creation.zeros_like(Q_init)
        neg_Id.diagonal(dim1=-2, dim2=-1).fill_(-1.)
        return neg_Id

    @staticmethod
    def _packed_reflectors(Q):
        """geqrf(Q)'s packed form with its diagonal the signs of R's (-1
        where a reflector is the identity), for each matrix of Q."""
        batch = Q.reshape(-1, Q.size(-2), Q.size(-1))
        out = []
        for m in range(batch.size(0)):
            a, taus = _geqrf_2d(batch[m].tolist())
            for j, tau in enumerate(taus):
                s = math.copysign(1.0, a[j][j]) if a[j][j] != 0 else 0.0
                a[j][j] = -s if tau == 0.0 else s
            out.append(a)
        return _creation.tensor(out, dtype=Q.dtype).reshape(Q.shape)


def orthogonal(module, name='weight', orthogonal_map=None, *, use_trivialization=True):
    """Keeps module.name (a matrix or a batch of them) orthogonal (or
    semi-orthogonal), through orthogonal_map: "matrix_exp" (the default
    for square matrices), "cayley" or "householder" (the default
    otherwise). Returns module."""
    weight = getattr(module, name, None)
    if not _is_tensor(weight):
        raise ValueError("Module '{}' has no parameter or buffer with name '{}'"
                         .format(module, name))
    if weight.ndim < 2:
        raise ValueError('Expected a matrix or batch of matrices. Got a tensor of {} dimensions.'
                         .format(weight.ndim))
    if orthogonal_map is None:
        orthogonal_map = ('matrix_exp' if weight.size(-2) == weight.size(-1)
                          or weight.is_complex() else 'householder')
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         'Got: {}'.format(orthogonal_map))
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module


class _SpectralNorm(Module):
    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError('Dimension out of range (expected to be in range of [-{}, {}] but '
                             'got {})'.format(ndim, ndim - 1, dim))
        if n_power_iterations <= 0:
            raise ValueError('Expected n_power_iterations to be positive, but got '
                             'n_power_iterations={}'.format(n_power_iterations))
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.shape
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer('_u', normalize(u, dim=0, eps=self.eps))
            self.register_buffer('_v', normalize(v, dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat, n_power_iterations):
        with no_grad():
            for _ in range(n_power_iterations):
                normalize(_creation.mv(weight_mat, self._v), dim=0, eps=self.eps, out=self._u)
                normalize(_creation.mv(weight_mat.t(), self._u), dim=0, eps=self.eps,
                          out=self._v)

    def forward(self, weight):
        if weight.ndim == 1:
            return normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u = self._u.clone()
        v = self._v.clone()
        sigma = _creation.dot(u, _creation.mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module, name='weight', n_power_iterations=1, eps=1e-12, dim=None):
    """Divides module.name by its largest singular value (estimated by
    power iteration, refined at each use in training mode) through a
    parametrization; dim defaults to 1 for the transposed convolutions,
    0 otherwise. Returns module."""
    weight = getattr(module, name, None)
    if not _is_tensor(weight):
        raise ValueError("Module '{}' has no parameter or buffer with name '{}'"
                         .format(module, name))
    if dim is None:
        from .spectral_norm import _transposed_conv
        dim = 1 if _transposed_conv(module) else 0
    parametrize.register_parametrization(module, name,
                                         _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
