# linalg.py: torch.linalg, and the classic torch.* and Tensor methods of
# linear algebra (inverse, det, slogdet, cholesky, qr, svd, ...).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The factorizations and solves are libdl's (libdl/ops/dl-ops-lapack*.c,
# over LAPACK, with their gradients); what is written over them here
# (norms, pinv, matrix_rank, cond, lstsq, matrix_power, matrix_exp, the
# Cholesky solves) is composed of differentiable tensor ops, so it needs no
# gradient of its own.

import math
import warnings

from gi.repository import GLib

from . import return_types
from ._lib import Dl as _typelib
from ._lib import _translate
from ._tensor import Tensor

__all__ = ['LinAlgError', 'cholesky', 'cholesky_ex', 'cond', 'cross', 'det', 'eigh', 'eigvalsh',
           'inv', 'inv_ex', 'lstsq', 'lu', 'lu_factor', 'lu_factor_ex', 'lu_solve', 'matrix_exp', 'matrix_norm', 'matrix_power', 'matrix_rank',
           'norm', 'pinv', 'qr', 'slogdet', 'solve', 'solve_ex', 'solve_triangular', 'svd',
           'svdvals', 'vector_norm', 'diagonal', 'matmul', 'multi_dot', 'vecdot', 'vander',
           'tensorinv', 'tensorsolve']


class LinAlgError(RuntimeError):
    """torch.linalg.LinAlgError: a matrix the algorithm cannot handle (a
    singular matrix to invert, one that is not positive-definite for
    Cholesky, no convergence)."""


LinAlgError.__module__ = 'torch.linalg'
LinAlgError.__qualname__ = LinAlgError.__name__ = 'LinAlgError'

# the DL_ERROR_ARGUMENT messages of dl-ops-lapack*.c that are LinAlgErrors
_LINALG_FAILURES = ('is singular', 'not positive-definite', 'failed to converge')


def _call(fn, *args):
    try:
        return fn(*args)
    except GLib.Error as e:
        if e.code == int(_typelib.Error.ARGUMENT) and any(s in e.message for s in _LINALG_FAILURES):
            raise LinAlgError(e.message) from None
        raise _translate(e) from None


def _check_tensor(name, x):
    if not isinstance(x, Tensor):
        raise TypeError('%s(): argument \'A\' (position 1) must be Tensor, not %s'
                        % (name, type(x).__name__))


def _ret(ok_and_values):
    """The out values of a typelib call that returns a gboolean with out
    arguments (PyGObject gives the boolean first)."""
    if isinstance(ok_and_values, tuple) and len(ok_and_values) and ok_and_values[0] is True:
        return ok_and_values[1:]
    return ok_and_values


def inv(A, *, out=None):
    """torch.linalg.inv: the inverse of each square matrix."""
    _check_tensor('linalg_inv', A)
    return _call(_typelib.Tensor.linalg_inv, A)


def inv_ex(A, *, check_errors=False, out=None):
    """torch.linalg.inv_ex: (inverse, info); info 0 where the matrix is
    invertible (a singular matrix raises, as with check_errors)."""
    result = inv(A)
    return return_types.linalg_inv_ex((result, _zeros_info(A)))


def _zeros_info(A):
    from ._creation import zeros
    from ._dtype import int32
    return zeros(tuple(A.shape[:-2]), dtype=int32)


def det(A, *, out=None):
    """torch.linalg.det: the determinant of each square matrix."""
    _check_tensor('linalg_det', A)
    return _call(_typelib.Tensor.linalg_det, A)


def slogdet(A, *, out=None):
    """torch.linalg.slogdet: (sign, logabsdet) of each determinant."""
    _check_tensor('linalg_slogdet', A)
    sign, logabsdet = _ret(_call(_typelib.Tensor.linalg_slogdet, A))
    return return_types.linalg_slogdet((sign, logabsdet))


def solve(A, B, *, left=True, out=None):
    """torch.linalg.solve: X with A X = B (or X A = B with left=False)."""
    _check_tensor('linalg_solve', A)
    if not left:
        return solve(A.mT, B.mT).mT
    return _call(_typelib.Tensor.linalg_solve, A, B)


def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    """torch.linalg.solve_ex: (result, info)."""
    return return_types.linalg_solve_ex((solve(A, B, left=left), _zeros_info(A)))


def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    """torch.linalg.solve_triangular: X with A X = B (or X A = B) for a
    triangular A."""
    _check_tensor('linalg_solve_triangular', A)
    return _call(_typelib.Tensor.linalg_solve_triangular, A, B, bool(upper), bool(left),
                 bool(unitriangular))


def cholesky(A, *, upper=False, out=None):
    """torch.linalg.cholesky: L with A = L L^T (U with A = U^T U when
    upper)."""
    _check_tensor('linalg_cholesky', A)
    return _call(_typelib.Tensor.linalg_cholesky, A, bool(upper))


def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    """torch.linalg.cholesky_ex: (L, info)."""
    return return_types.linalg_cholesky_ex((cholesky(A, upper=upper), _zeros_info(A)))


def qr(A, mode='reduced', *, out=None):
    """torch.linalg.qr: (Q, R), mode 'reduced', 'complete' or 'r'."""
    _check_tensor('linalg_qr', A)
    q, r = _ret(_call(_typelib.Tensor.linalg_qr, A, mode))
    return return_types.linalg_qr((q, r))


def svd(A, full_matrices=True, *, driver=None, out=None):
    """torch.linalg.svd: (U, S, Vh) with A = U diag(S) Vh."""
    _check_tensor('linalg_svd', A)
    u, s, vh = _ret(_call(_typelib.Tensor.linalg_svd, A, bool(full_matrices), True))
    return return_types.linalg_svd((u, s, vh))


def svdvals(A, *, driver=None, out=None):
    """torch.linalg.svdvals: the singular values, descending."""
    _check_tensor('linalg_svdvals', A)
    _, s, _ = _ret(_call(_typelib.Tensor.linalg_svd, A, False, False))
    return s


def _uplo(UPLO):
    if UPLO not in ('L', 'U'):
        raise RuntimeError("Expected UPLO argument to be 'L' or 'U', but got %s" % (UPLO,))
    return UPLO == 'U'


def eigh(A, UPLO='L', *, out=None):
    """torch.linalg.eigh: (eigenvalues, eigenvectors) of symmetric
    matrices, the values ascending."""
    _check_tensor('linalg_eigh', A)
    w, v = _ret(_call(_typelib.Tensor.linalg_eigh, A, _uplo(UPLO), True))
    return return_types.linalg_eigh((w, v))


def eigvalsh(A, UPLO='L', *, out=None):
    """torch.linalg.eigvalsh: the eigenvalues of symmetric matrices."""
    _check_tensor('linalg_eigvalsh', A)
    w, _ = _ret(_call(_typelib.Tensor.linalg_eigh, A, _uplo(UPLO), False))
    return w


# ---- norms ---------------------------------------------------------------

def _dims(dim, ndim):
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, int):
        return (dim,)
    return tuple(dim)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    """torch.linalg.vector_norm: the ord-norm of the elements over dim
    (all of them when None): any real ord, inf and -inf included."""
    _check_tensor('linalg_vector_norm', x)
    if not x.is_floating_point():
        raise RuntimeError('linalg.vector_norm: Expected a floating point or complex tensor as '
                           'input. Got %s' % _torch_type(x))
    if dtype is not None:
        x = x.to(dtype)
    if isinstance(ord, str):
        raise RuntimeError('linalg.vector_norm: ord must be a number, got %s' % ord)
    # a 0-d tensor has no dims to name: its norm is over all of it
    dims = list(_dims(dim, x.dim())) if x.dim() and dim is not None else []
    if ord in (math.inf, -math.inf) and x.numel() == 0:
        name = 'inf' if ord > 0 else '-inf'
        if not dims:
            raise RuntimeError('linalg.vector_norm cannot compute the %s norm on an empty tensor '
                               'because the operation does not have an identity' % name)
        for d in dims:
            if -x.dim() <= d < x.dim() and x.shape[d] == 0:
                # torch's message, its missing space included
                raise RuntimeError('linalg.vector_norm cannot compute the %s norm on the '
                                   'dimension %dbecause this dimension is empty and the operation '
                                   'does not have an identity' % (name, d % x.dim()))
    return _call(_typelib.Tensor.linalg_vector_norm, x, float(ord), dims, bool(keepdim))


def _torch_type(x):
    names = {'int64': 'Long', 'int32': 'Int', 'uint8': 'Byte', 'bool': 'Bool'}
    name = str(x.dtype).replace('torch.', '')
    return names.get(name, name)


def matrix_norm(A, ord='fro', dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    """torch.linalg.matrix_norm: 'fro', 'nuc', inf, -inf, 1, -1, 2, -2."""
    _check_tensor('linalg_matrix_norm', A)
    if A.dim() < 2:
        raise RuntimeError('linalg.matrix_norm: The input tensor A must have at least 2 '
                           'dimensions.')
    if dtype is not None:
        A = A.to(dtype)
    d0, d1 = (d % A.dim() for d in dim)
    if ord == 'fro':
        return vector_norm(A, 2, (d0, d1), keepdim)
    if ord in ('nuc', 2, -2):
        # move the two dims last for the SVD
        perm = [i for i in range(A.dim()) if i not in (d0, d1)] + [d0, d1]
        B = A.permute(perm)
        s = svdvals(B)
        r = s.sum(-1) if ord == 'nuc' else s.amax(-1) if ord == 2 else s.amin(-1)
        if keepdim:
            r = r.unsqueeze(min(d0, d1)).unsqueeze(max(d0, d1))
        return r
    if ord in (1, -1, math.inf, -math.inf):
        # 1: the largest column sum (over rows d0), inf: the largest row sum
        sum_dim, max_dim = (d0, d1) if ord in (1, -1) else (d1, d0)
        s = A.abs().sum(dim=sum_dim, keepdim=True)
        r = s.amax(dim=max_dim, keepdim=True) if ord > 0 else s.amin(dim=max_dim, keepdim=True)
        if not keepdim:
            r = r.squeeze(max(d0, d1)).squeeze(min(d0, d1))
        return r
    raise RuntimeError('linalg.matrix_norm: Order %s not supported.' % (ord,))


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    """torch.linalg.norm: a vector or a matrix norm, as ord and dim say."""
    _check_tensor('linalg_norm', A)
    if dim is not None and not isinstance(dim, int):
        dim = tuple(dim)
        if len(dim) == 2:
            return matrix_norm(A, 'fro' if ord is None else ord, dim, keepdim, dtype=dtype)
        if len(dim) != 1:
            raise RuntimeError('linalg.norm: If dim is specified, it must be of length 1 or 2. '
                               'Got %s' % (list(dim),))
    if ord is not None and dim is None:
        if A.dim() == 2:
            return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)
        if A.dim() != 1:
            raise RuntimeError('linalg.norm: If dim is not specified but ord is, the input must '
                               'be 1D or 2D. Got %dD.' % A.dim())
    if isinstance(ord, str):
        raise RuntimeError('linalg.norm: ord %s is not a vector norm order' % ord)
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)


def cond(A, p=None, *, out=None):
    """torch.linalg.cond: the condition number in the p-norm."""
    _check_tensor('linalg_cond', A)
    if p is None or p in (2, -2):
        s = svdvals(A)
        big, small = s.amax(-1), s.amin(-1)
        return big / small if p in (None, 2) else small / big
    return matrix_norm(A, p) * matrix_norm(inv(A), p)


# ---- composites --------------------------------------------------------

def _eps(dtype):
    return 1.1920928955078125e-07 if str(dtype).endswith('float32') else 2.220446049250313e-16


def _tolerance(A, s_max, atol, rtol):
    m, n = A.shape[-2], A.shape[-1]
    if rtol is None:
        rtol = 0.0 if (atol is not None and (not isinstance(atol, (int, float)) or atol > 0)) \
            else _eps(A.dtype) * max(m, n)
    tol = s_max * rtol
    if atol is not None:
        tol = tol.clamp(min=float(atol))
    return tol


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False, tol=None, out=None):
    """torch.linalg.matrix_rank: the number of singular values above the
    tolerance (max(atol, rtol * the largest one))."""
    _check_tensor('linalg_matrix_rank', A)
    if tol is not None:
        atol, rtol = tol, 0.0
    s = eigvalsh(A).abs() if hermitian else svdvals(A)
    if s.shape[-1] == 0:
        from ._creation import zeros
        from ._dtype import int64
        return zeros(tuple(A.shape[:-2]), dtype=int64)
    s_max = s.amax(-1, keepdim=True)
    t = _tolerance(A, s_max, atol, rtol)
    return (s > t).sum(-1)


def pinv(A, *, atol=None, rtol=None, hermitian=False, out=None):
    """torch.linalg.pinv: the pseudoinverse, from the SVD (or eigh when
    hermitian), the singular values below the tolerance dropped."""
    _check_tensor('linalg_pinv', A)
    if hermitian:
        w, v = eigh(A)
        a = w.abs()
        t = _tolerance(A, a.amax(-1, keepdim=True), atol, rtol)
        winv = (a > t).to(A.dtype) / w.where(a > t, w.new_ones(()))
        return (v * winv.unsqueeze(-2)) @ v.mT
    u, s, vh = svd(A, full_matrices=False)
    if s.shape[-1] == 0:
        from ._creation import zeros
        return zeros(tuple(A.shape[:-2]) + (A.shape[-1], A.shape[-2]), dtype=A.dtype)
    t = _tolerance(A, s.amax(-1, keepdim=True), atol, rtol)
    keep = s > t
    sinv = keep.to(A.dtype) / s.where(keep, s.new_ones(()))
    return (vh.mT * sinv.unsqueeze(-2)) @ u.mT


def lstsq(A, B, rcond=None, *, driver=None):
    """torch.linalg.lstsq: the least-squares solution of A X = B (the
    minimum-norm one when A is rank deficient), from the pseudoinverse,
    with the other fields as torch fills them for each driver: rank but no
    residuals for the CPU's default 'gelsy'; residuals (when m > n and A
    has full rank) and singular values for 'gelsd' and 'gelss'; residuals
    alone for 'gels'."""
    _check_tensor('linalg_lstsq', A)
    from ._creation import zeros
    from ._dtype import int64
    if driver not in (None, 'gelsy', 'gelsd', 'gelss', 'gels'):
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of "
                           "(gels, gelsy, gelsd, gelss)")
    if not (A.dim() >= B.dim() and A.dim() - B.dim() <= 1):
        raise RuntimeError('torch.linalg.lstsq: input.dim() must be greater or equal to '
                           'other.dim() and (input.dim() - other.dim()) <= 1')
    vector = B.dim() == A.dim() - 1
    b = B.unsqueeze(-1) if vector else B
    x = pinv(A, rtol=rcond) if rcond is not None else pinv(A)
    x = x @ b
    m, n = A.shape[-2], A.shape[-1]
    empty = zeros((0,), dtype=A.dtype)
    rank = zeros((0,), dtype=int64) if driver == 'gels' else \
        matrix_rank(A, rtol=rcond) if rcond is not None else matrix_rank(A)
    residuals, singular_values = empty, empty
    if driver in ('gelsd', 'gelss', 'gels'):
        if m > n and (driver == 'gels' or bool((rank == n).all())):
            r = A @ x - b
            residuals = (r * r).sum(-2)
        if driver != 'gels':
            singular_values = svdvals(A)
    if vector:
        x = x.squeeze(-1)
    return return_types.linalg_lstsq((x, residuals, rank, singular_values))


def matrix_power(A, n):
    """torch.linalg.matrix_power: A^n by repeated squaring (n < 0: of the
    inverse)."""
    _check_tensor('linalg_matrix_power', A)
    if A.dim() < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError('linalg.matrix_power: A must be batches of square matrices, but they '
                           'are %d by %d matrices' % (A.shape[-2], A.shape[-1]) if A.dim() >= 2
                           else 'linalg.matrix_power: The input tensor A must have at least 2 '
                           'dimensions.')
    if n == 0:
        from ._creation import eye
        return eye(A.shape[-1], dtype=A.dtype).expand(A.shape).clone()
    if n < 0:
        A, n = inv(A), -n
    result, base = None, A
    while n:
        if n & 1:
            result = base if result is None else result @ base
        n >>= 1
        if n:
            base = base @ base
    return result


def matrix_exp(A):
    """torch.linalg.matrix_exp: exp(A) of each square matrix (scaling and
    squaring with a Taylor polynomial)."""
    _check_tensor('linalg_matrix_exp', A)
    return _call(_typelib.Tensor.linalg_matrix_exp, A)


def cross(input, other, *, dim=-1, out=None):
    """torch.linalg.cross: the cross product of 3-vectors along dim."""
    from ._indexing import cat
    if input.dim() != other.dim():
        raise RuntimeError('linalg.cross: inputs must have the same number of dimensions.')
    if input.shape[dim] != 3 or other.shape[dim] != 3:
        raise RuntimeError('linalg.cross: inputs dimension %d must have length 3. Got %d and %d'
                           % (dim, input.shape[dim], other.shape[dim]))
    a = [input.narrow(dim, i, 1) for i in range(3)]
    b = [other.narrow(dim, i, 1) for i in range(3)]
    return cat([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                a[0] * b[1] - a[1] * b[0]], dim)


# ---- LU -------------------------------------------------------------------

def _lu_factor(A, pivot):
    _check_tensor('linalg_lu_factor', A)
    if not pivot:
        raise RuntimeError('linalg.lu_factor: LU without pivoting is not implemented on the CPU')
    return _ret(_call(_typelib.Tensor.linalg_lu_factor, A))


def _lu_info(LU):
    """The index (1-based) of U's first zero on the diagonal of each
    matrix, 0 where there is none, int32 (LAPACK's getrf info)."""
    from ._creation import arange
    from ._dtype import int32
    diag = LU.diagonal(0, -2, -1)
    k = diag.shape[-1]
    if k == 0:
        return diag.sum(-1).to(int32)
    pos = arange(1, k + 1).to(diag.dtype).where(diag == 0, diag.new_full((), float(k + 1)))
    info = pos.amin(-1)
    return info.where(info <= k, info.new_zeros(())).to(int32)


def lu_factor(A, *, pivot=True, out=None):
    """torch.linalg.lu_factor: (LU, pivots), A = P L U packed, the pivots
    int32 and 1-based; a singular matrix raises, as in torch (lu_factor_ex
    does not)."""
    LU, pivots = _lu_factor(A, pivot)
    info = _lu_info(LU)
    bad = [i for i, v in enumerate(info.reshape(-1).tolist()) if v]
    if bad:
        i = bad[0]
        v = info.reshape(-1).tolist()[i]
        prefix = '(Batch element %d): ' % i if A.dim() > 2 else ''
        raise RuntimeError('torch.linalg.lu_factor: %sU[%d,%d] is zero and using it on lu_solve '
                           'would result in a division by zero. If you still want to perform the '
                           'factorization, consider calling linalg.lu(A, pivot) or '
                           'linalg.lu_factor_ex(A, pivot)' % (prefix, v, v))
    return return_types.linalg_lu_factor((LU, pivots))


def lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    """torch.linalg.lu_factor_ex: (LU, pivots, info), info the index of
    U's first zero on the diagonal (1-based), 0 where there is none."""
    LU, pivots = _lu_factor(A, pivot)
    return return_types.linalg_lu_factor_ex((LU, pivots, _lu_info(LU)))


def _permutation(pivots, m):
    """The permutation matrices P (float64 0/1, batched as pivots) with
    A = P L U for LAPACK's row swaps @pivots."""
    from ._creation import tensor
    batch = tuple(pivots.shape[:-1])
    flat = pivots.reshape(-1, pivots.shape[-1]).tolist() if pivots.numel() else \
        [[] for _ in range(int(math.prod(batch)))]
    mats = []
    for swaps in flat:
        rows = list(range(m))
        for i, p in enumerate(swaps):
            rows[i], rows[p - 1] = rows[p - 1], rows[i]
        P = [[0.0] * m for _ in range(m)]
        for i, r in enumerate(rows):
            P[r][i] = 1.0
        mats.append(P)
    return tensor(mats).reshape(batch + (m, m))


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    """torch.lu_unpack: (P, L, U) from a packed LU and its pivots."""
    from ._creation import eye, zeros
    m, n = LU_data.shape[-2], LU_data.shape[-1]
    k = min(m, n)
    if unpack_data:
        L = LU_data[..., :, :k].tril(-1) + eye(m, k, dtype=LU_data.dtype)
        U = LU_data[..., :k, :].triu()
    else:
        L = U = zeros((0,), dtype=LU_data.dtype)
    if unpack_pivots:
        P = _permutation(LU_pivots, m).to(LU_data.dtype)
    else:
        P = zeros((0,), dtype=LU_data.dtype)
    return return_types.lu_unpack((P, L, U))


def lu(A, *, pivot=True, out=None):
    """torch.linalg.lu: (P, L, U) with A = P L U."""
    LU, pivots = _lu_factor(A, pivot)
    P, L, U = lu_unpack(LU, pivots)
    return return_types.linalg_lu((P, L, U))


def lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    """torch.linalg.lu_solve: X with A X = B (A^T X = B with adjoint, and
    X A = B with left=False) from A's lu_factor."""
    if not left:
        # X A = B is A^T X^T = B^T
        return lu_solve(LU, pivots, B.mT, adjoint=not adjoint).mT
    P = _permutation(pivots, LU.shape[-1]).to(LU.dtype)
    if not adjoint:
        # A = P L U: X = U^-1 L^-1 P^T B
        y = solve_triangular(LU, P.mT @ B, upper=False, unitriangular=True)
        return solve_triangular(LU, y, upper=True)
    # A^T = U^T L^T P^T: X = P L^-T U^-T B
    y = solve_triangular(LU.mT, B, upper=False)
    return P @ solve_triangular(LU.mT, y, upper=True, unitriangular=True)


# ---- the small ones --------------------------------------------------------

def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """torch.linalg.diagonal: A.diagonal over the last two dims."""
    return A.diagonal(offset, dim1, dim2)


def matmul(input, other, *, out=None):
    """torch.linalg.matmul: torch.matmul."""
    return input.matmul(other)


def multi_dot(tensors, *, out=None):
    """torch.linalg.multi_dot: the product of a chain of matrices, the
    first may be a vector (a row) and the last a vector (a column)."""
    tensors = list(tensors)
    if len(tensors) < 2:
        raise RuntimeError('multi_dot(): expected at least 2 tensors but got %d' % len(tensors))
    first_vec, last_vec = tensors[0].dim() == 1, tensors[-1].dim() == 1
    if first_vec:
        tensors[0] = tensors[0].unsqueeze(0)
    if last_vec:
        tensors[-1] = tensors[-1].unsqueeze(-1)
    for i, t in enumerate(tensors):
        if t.dim() != 2:
            raise RuntimeError('multi_dot(): tensor %d must be 2D but got %dD' % (i, t.dim()))
    result = tensors[0]
    for t in tensors[1:]:
        result = result @ t
    if first_vec:
        result = result.squeeze(0)
    if last_vec:
        result = result.squeeze(-1)
    return result


def vecdot(x, y, *, dim=-1, out=None):
    """torch.linalg.vecdot: the dot products of the vectors along dim."""
    return (x * y).sum(dim)


def vander(x, *, N=None):
    """torch.linalg.vander: the powers x^0 ... x^(N-1) of each element,
    along a new last dim."""
    n = x.shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError('N must be greater than 1.')
    from ._indexing import cat
    col = x.unsqueeze(-1)
    powers = [col.new_ones(()).expand(col.shape), col]
    for _ in range(n - 2):
        powers.append(powers[-1] * col)
    return cat(powers, -1)


def tensorinv(A, ind=2, *, out=None):
    """torch.linalg.tensorinv: the inverse of A seen as a matrix of its
    first ind dims by the rest."""
    rows = math.prod(A.shape[:ind])
    inverse_ = inv(A.reshape(rows, -1))
    return inverse_.reshape(tuple(A.shape[ind:]) + tuple(A.shape[:ind]))


def tensorsolve(A, B, dims=None, *, out=None):
    """torch.linalg.tensorsolve: X with tensordot(A, X, X.ndim) = B."""
    if dims is not None:
        dims = [d % A.dim() for d in dims]
        rest = [d for d in range(A.dim()) if d not in dims]
        A = A.permute(rest + dims)
    n = B.numel()
    x_shape = tuple(A.shape[B.dim():])
    return solve(A.reshape(n, -1), B.reshape(n)).reshape(x_shape)


# ---- the classic torch.* forms -----------------------------------------

def inverse(input, *, out=None):
    """torch.inverse: torch.linalg.inv."""
    return inv(input)


def logdet(input):
    """torch.logdet: log(det A), nan for a negative determinant."""
    sign, logabsdet = slogdet(input)
    return logabsdet + sign.log()


def _deprecated(old, new):
    warnings.warn('%s is deprecated in favor of %s and will be removed in a future PyTorch '
                  'release.' % (old, new), UserWarning, stacklevel=3)


def _cholesky(input, upper=False, *, out=None):
    """torch.cholesky (deprecated for torch.linalg.cholesky)."""
    _deprecated('torch.cholesky', 'torch.linalg.cholesky')
    return cholesky(input, upper=upper)


def _qr(input, some=True, *, out=None):
    """torch.qr: (Q, R), reduced when some, else complete."""
    q, r = qr(input, 'reduced' if some else 'complete')
    return return_types.qr((q, r))


def _svd(input, some=True, compute_uv=True, *, out=None):
    """torch.svd: (U, S, V), V not transposed; without compute_uv U and V
    are zero matrices (m x m, n x n)."""
    if not compute_uv:
        from ._creation import zeros
        s = svdvals(input)
        m, n = input.shape[-2], input.shape[-1]
        batch = tuple(input.shape[:-2])
        return return_types.svd((zeros(batch + (m, m), dtype=input.dtype), s,
                                 zeros(batch + (n, n), dtype=input.dtype)))
    u, s, vh = svd(input, full_matrices=not some)
    return return_types.svd((u, s, vh.mT))


def _slogdet(input):
    """torch.slogdet: return_types.slogdet."""
    sign, logabsdet = slogdet(input)
    return return_types.slogdet((sign, logabsdet))


def pinverse(input, rcond=1e-15):
    """torch.pinverse: torch.linalg.pinv with rtol=rcond."""
    return pinv(input, rtol=rcond)


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    """torch.triangular_solve (deprecated): (solution, cloned_coefficient)
    of A X = b (A^T X = b when transpose)."""
    _deprecated('torch.triangular_solve', 'torch.linalg.solve_triangular')
    M = A.mT if transpose else A
    x = solve_triangular(M, b, upper=upper != transpose, unitriangular=unitriangular)
    return return_types.triangular_solve((x, A.clone()))


def cholesky_solve(input, input2, upper=False, *, out=None):
    """torch.cholesky_solve(B, L): X with A X = B, A = L L^T (U^T U)."""
    L = input2.mT if upper else input2
    y = solve_triangular(L, input, upper=False)
    return solve_triangular(L.mT, y, upper=True)


def cholesky_inverse(input, upper=False, *, out=None):
    """torch.cholesky_inverse(L): A^-1 from A's Cholesky factor."""
    from ._creation import eye
    n = input.shape[-1]
    return cholesky_solve(eye(n, dtype=input.dtype).expand(input.shape), input, upper)


def _torch_lu(A, pivot=True, get_infos=False, out=None):
    """torch.lu: (LU, pivots), and infos when asked."""
    _deprecated('torch.lu', 'torch.linalg.lu_factor / torch.linalg.lu_factor_ex')
    if get_infos:
        LU, pivots, info = lu_factor_ex(A, pivot=pivot)
        return LU, pivots, info
    LU, pivots = _lu_factor(A, pivot)
    return LU, pivots


def _torch_lu_solve(b, LU_data, LU_pivots, *, out=None):
    """torch.lu_solve(b, LU, pivots): X with A X = b."""
    _deprecated('torch.lu_solve', 'torch.linalg.lu_solve')
    return lu_solve(LU_data, LU_pivots, b)


def symeig(input, eigenvectors=False, upper=True, *, out=None):
    """torch.symeig (deprecated): (eigenvalues, eigenvectors), the vectors
    empty unless asked for."""
    _deprecated('torch.symeig', 'torch.linalg.eigh')
    w, v = eigh(input, 'U' if upper else 'L')
    if not eigenvectors:
        from ._creation import zeros
        v = zeros((0,), dtype=input.dtype)
    return return_types.symeig((w, v))


def _torch_cross(input, other, dim=None, *, out=None):
    """torch.cross: along dim, or (deprecated) the first dim of size 3."""
    if dim is None:
        warnings.warn('Using torch.cross without specifying the dim arg is deprecated.\n'
                      'Please either pass the dim explicitly or simply use torch.linalg.cross.\n'
                      'The default value of dim will change to agree with that of '
                      'linalg.cross in a future release.', UserWarning, stacklevel=2)
        dim = next((i for i, s in enumerate(input.shape) if s == 3), None)
        if dim is None:
            raise RuntimeError('no dimension of size 3 in input')
    return cross(input, other, dim=dim)


def _removed(name, replacement, as_tuple=False):
    """torch 1.13's stand-in for a function removed in 1.9's deprecation
    cycle: a RuntimeError naming its replacement (eig, solve, lstsq and
    matrix_rank give their message as a tuple, as torch does)."""
    first = 'This function was deprecated since version 1.9 and is now removed.'
    second = 'Please use the `torch.linalg.%s` function instead.' % replacement

    def fn(*args, **kwargs):
        if as_tuple:
            raise RuntimeError(first, second)
        raise RuntimeError(first + ' ' + second)
    fn.__name__ = fn.__qualname__ = name
    return fn


def chain_matmul(*matrices, out=None):
    """torch.chain_matmul (deprecated): torch.linalg.multi_dot."""
    return multi_dot(matrices)


# torch.* names (the package's _api exports them) and Tensor methods
TORCH_FUNCTIONS = {
    'inverse': inverse, 'det': det, 'logdet': logdet, 'slogdet': _slogdet,
    'cholesky': _cholesky, 'qr': _qr, 'svd': _svd, 'pinverse': pinverse,
    'matrix_power': matrix_power, 'matrix_exp': matrix_exp,
    'triangular_solve': triangular_solve, 'cholesky_solve': cholesky_solve,
    'cholesky_inverse': cholesky_inverse, 'symeig': symeig, 'cross': _torch_cross,
    'lu': _torch_lu, 'lu_solve': _torch_lu_solve, 'lu_unpack': lu_unpack,
    'chain_matmul': chain_matmul,
    'eig': _removed('eig', 'eig'), 'solve': _removed('solve', 'solve'),
    'lstsq': _removed('lstsq', 'lstsq', True),
    'matrix_rank': _removed('matrix_rank', 'matrix_rank', True),
}
for _name, _fn in TORCH_FUNCTIONS.items():
    if _name not in ('lu_unpack', 'chain_matmul', 'matrix_rank'):  # functions only, in torch
        setattr(Tensor, _name, _fn)
del _name, _fn
