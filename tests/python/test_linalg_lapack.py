# test_linalg_lapack.py: torch.linalg and the classic decompositions
# (libdl/ops/dl-ops-lapack*.c over LAPACK, bindings/python/dl/linalg.py)
# against PyTorch: values on random well-conditioned batches, float32 and
# float64, non-contiguous views; the decompositions that are unique only
# up to signs by reconstruction and up to sign; gradients against torch's
# autograd and by gradcheck; torch's errors.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import math
import warnings

import numpy as np
import pytest
import torch

from conftest import Dl, to_np

TOLS = {"float32": (1e-4, 1e-5), "float64": (1e-9, 1e-10)}
DTYPES = ["float32", "float64"]
BATCHES = [(), (3,), (2, 2)]


def pair(arr, dtype, requires_grad=False, transposed=False):
    """The same data in libdl and torch; with @transposed, a transposed
    (non-contiguous) view of the transposed data."""
    a = np.ascontiguousarray(np.swapaxes(arr, -1, -2)) if transposed else arr
    d = Dl.tensor(a.astype(dtype), requires_grad=requires_grad)
    t = torch.tensor(a.astype(dtype), requires_grad=requires_grad)
    if transposed:
        d, t = d.mT, t.mT
        assert not d.is_contiguous()
    return d, t


def close(x, y, dtype="float64", scale=1.0):
    rtol, atol = TOLS[dtype]
    xv = x.detach().numpy() if hasattr(x, "detach") else np.asarray(x)
    np.testing.assert_allclose(xv, y.detach().numpy(), rtol=rtol * scale, atol=atol * scale)


def well_conditioned(rng, batch, n, m=None):
    """Random (batch, n, m) matrices with singular values in [1, 3]."""
    m = n if m is None else m
    k = min(n, m)
    u, _ = np.linalg.qr(rng.standard_normal(batch + (n, n)))
    v, _ = np.linalg.qr(rng.standard_normal(batch + (m, m)))
    s = rng.uniform(1.0, 3.0, batch + (k,))
    # distinct singular values, so that SVD's vectors are defined
    s = np.sort(s, axis=-1)[..., ::-1] + np.arange(k)[::-1] * 0.3
    return (u[..., :, :k] * s[..., None, :]) @ np.swapaxes(v[..., :, :k], -1, -2)


def spd(rng, batch, n):
    a = rng.standard_normal(batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


# ---- values ---------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize("transposed", [False, True])
def test_inv_det_slogdet(rng, dtype, batch, transposed):
    d, t = pair(well_conditioned(rng, batch, 4), dtype, transposed=transposed)
    close(Dl.linalg.inv(d), torch.linalg.inv(t), dtype)
    close(Dl.inverse(d), torch.inverse(t), dtype)
    close(d.inverse(), t.inverse(), dtype)
    close(Dl.linalg.det(d), torch.linalg.det(t), dtype, 10)
    close(d.det(), t.det(), dtype, 10)
    sign, logabsdet = Dl.linalg.slogdet(d)
    tsign, tlog = torch.linalg.slogdet(t)
    close(sign, tsign, dtype)
    close(logabsdet, tlog, dtype)
    r = Dl.slogdet(d)
    assert type(r).__name__ == "slogdet" and r.sign is r[0]
    close(Dl.logdet(d), torch.logdet(t), dtype)


def test_det_of_singular_and_negative():
    a = np.array([[1.0, 2.0], [2.0, 4.0]])
    d, t = pair(a, "float64")
    assert float(Dl.linalg.det(d)) == 0.0
    sign, logabsdet = Dl.linalg.slogdet(d)
    assert float(sign) == 0.0 and float(logabsdet) == -math.inf
    d, t = pair(np.array([[0.0, 1.0], [1.0, 0.0]]), "float64")
    close(Dl.linalg.det(d), torch.linalg.det(t))
    assert math.isnan(float(Dl.logdet(d))) and math.isnan(float(torch.logdet(t)))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", [((4, 4), (4, 2)), ((3, 4, 4), (3, 4, 2)),
                                    ((3, 4, 4), (4, 2)), ((4, 4), (2, 4, 1)),
                                    ((4, 4), (4,)), ((3, 4, 4), (3, 4))])
def test_solve(rng, dtype, shapes):
    sa, sb = shapes
    d, t = pair(well_conditioned(rng, sa[:-2], 4), dtype)
    db, tb = pair(rng.standard_normal(sb), dtype)
    close(Dl.linalg.solve(d, db), torch.linalg.solve(t, tb), dtype)
    if len(sb) >= 2 and len(sb) != len(sa) - 1:  # matrices, not a batch of vectors
        close(Dl.linalg.solve(d, db.mT, left=False), torch.linalg.solve(t, tb.mT, left=False),
              dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky(rng, dtype, batch, upper):
    d, t = pair(spd(rng, batch, 5), dtype)
    close(Dl.linalg.cholesky(d, upper=upper), torch.linalg.cholesky(t, upper=upper), dtype, 10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        close(Dl.cholesky(d, upper), torch.cholesky(t, upper), dtype, 10)
    L = Dl.linalg.cholesky(d)
    b = rng.standard_normal(batch + (5, 2))
    db, tb = pair(b, dtype)
    tl = torch.linalg.cholesky(t)
    close(Dl.cholesky_solve(db, L), torch.cholesky_solve(tb, tl), dtype, 100)
    close(Dl.cholesky_inverse(L), torch.cholesky_inverse(tl), dtype, 100)
    close(Dl.cholesky_inverse(L.mT, upper=True), torch.cholesky_inverse(tl.mT, upper=True),
          dtype, 100)


def check_qr(rng, dtype, shape, mode, transposed=False):
    d, t = pair(well_conditioned(rng, shape[:-2], *shape[-2:]), dtype, transposed=transposed)
    q, r = Dl.linalg.qr(d, mode)
    tq, tr = torch.linalg.qr(t, mode)
    assert tuple(q.shape) == tuple(tq.shape) and tuple(r.shape) == tuple(tr.shape)
    close(r, tr, dtype, 10)  # LAPACK's Householder signs, as torch's
    if mode != "r":
        close(q, tq, dtype, 10)
        close(q @ r, t, dtype, 10)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 4), (6, 3), (3, 6), (2, 5, 3), (2, 3, 5)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr(rng, dtype, shape, mode):
    check_qr(rng, dtype, shape, mode)


def test_qr_noncontiguous_and_classic(rng):
    check_qr(rng, "float64", (2, 5, 3), "reduced", transposed=True)
    d, t = pair(rng.standard_normal((5, 3)), "float64")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for some in (True, False):
            q, r = Dl.qr(d, some)
            tq, tr = torch.qr(t, some)
            close(q, tq)
            close(r, tr)
    assert type(Dl.qr(d)).__name__ == "qr"
    with pytest.raises(RuntimeError, match="unrecognized mode"):
        Dl.linalg.qr(d, "bad")


def sign_fix(u, vh):
    """U and Vh with each singular pair's sign chosen so that U's largest
    entry of the column is positive (numpy arrays)."""
    idx = np.argmax(np.abs(u), axis=-2)[..., None, :]
    s = np.sign(np.take_along_axis(u, idx, axis=-2))
    return u * s, vh * np.swapaxes(s, -1, -2)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 4), (6, 3), (3, 6), (2, 5, 3), (2, 2, 3, 4)])
@pytest.mark.parametrize("full", [True, False])
def test_svd(rng, dtype, shape, full):
    d, t = pair(well_conditioned(rng, shape[:-2], *shape[-2:]), dtype)
    u, s, vh = Dl.linalg.svd(d, full_matrices=full)
    tu, ts, tvh = torch.linalg.svd(t, full_matrices=full)
    assert [tuple(x.shape) for x in (u, s, vh)] == [tuple(x.shape) for x in (tu, ts, tvh)]
    close(s, ts, dtype, 10)
    close(Dl.linalg.svdvals(d), ts, dtype, 10)
    k = min(shape[-2:])
    uk, vk = u.numpy()[..., :k], vh.numpy()[..., :k, :]
    close((uk * s.numpy()[..., None, :]) @ vk, t, dtype, 10)
    a, b = sign_fix(uk, vk)
    c, e = sign_fix(tu.numpy()[..., :k], tvh.numpy()[..., :k, :])
    np.testing.assert_allclose(a, c, atol=TOLS[dtype][1] * 100)
    np.testing.assert_allclose(b, e, atol=TOLS[dtype][1] * 100)


def test_svd_classic(rng):
    d, t = pair(well_conditioned(rng, (2,), 5, 3), "float64", transposed=True)
    r = Dl.svd(d)
    tr = torch.svd(t)
    assert type(r).__name__ == "svd" and tuple(r.V.shape) == tuple(tr.V.shape)
    close((r.U * r.S.unsqueeze(-2)) @ r.V.mT, t)
    r = Dl.svd(d, compute_uv=False)
    tr = torch.svd(t, compute_uv=False)
    close(r.S, tr.S)
    close(r.U, tr.U)
    close(r.V, tr.V)
    close(Dl.pinverse(d), torch.pinverse(t))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh(rng, dtype, batch, uplo):
    a = spd(rng, batch, 5)
    # another triangle than the one read: the result must not depend on it
    a = a + np.triu(rng.standard_normal(a.shape), 1) * (uplo == "L") \
        + np.tril(rng.standard_normal(a.shape), -1) * (uplo == "U")
    d, t = pair(a, dtype)
    w, v = Dl.linalg.eigh(d, uplo)
    tw, tv = torch.linalg.eigh(t, uplo)
    close(w, tw, dtype, 10)
    close(Dl.linalg.eigvalsh(d, UPLO=uplo), tw, dtype, 10)
    a, c = sign_fix(v.numpy(), v.numpy().swapaxes(-1, -2))
    b, e = sign_fix(tv.numpy(), tv.numpy().swapaxes(-1, -2))
    np.testing.assert_allclose(a, b, atol=TOLS[dtype][1] * 1000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = Dl.symeig(d, eigenvectors=True, upper=uplo == "U")
        tr = torch.symeig(t, eigenvectors=True, upper=uplo == "U")
    close(r.eigenvalues, tr.eigenvalues, dtype, 10)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("left", [False, True])
@pytest.mark.parametrize("unit", [False, True])
def test_solve_triangular(rng, dtype, upper, left, unit):
    a = well_conditioned(rng, (2,), 4) + 4 * np.eye(4)
    d, t = pair(a, dtype, transposed=True)
    db, tb = pair(rng.standard_normal((2, 4, 3) if left else (2, 3, 4)), dtype)
    close(Dl.linalg.solve_triangular(d, db, upper=upper, left=left, unitriangular=unit),
          torch.linalg.solve_triangular(t, tb, upper=upper, left=left, unitriangular=unit),
          dtype, 10)
    if left:
        for transpose in (False, True):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = Dl.triangular_solve(db, d, upper, transpose, unit)
                tr = torch.triangular_solve(tb, t, upper, transpose, unit)
            close(r.solution, tr.solution, dtype, 10)
            close(r.cloned_coefficient, tr.cloned_coefficient, dtype)


VECTOR_ORDS = [None, 2, 1, 0, 3, 0.5, -1, math.inf, -math.inf]
MATRIX_ORDS = ["fro", "nuc", math.inf, -math.inf, 1, -1, 2, -2]


@pytest.mark.parametrize("dtype", DTYPES)
def test_vector_norm(rng, dtype):
    d, t = pair(rng.standard_normal((3, 4, 5)), dtype)
    for ord in VECTOR_ORDS:
        for dim in (None, -1, (0, 2)):
            for keepdim in (False, True):
                o = 2 if ord is None else ord
                close(Dl.linalg.vector_norm(d, o, dim, keepdim),
                      torch.linalg.vector_norm(t, o, dim, keepdim), dtype, 10)
                if dim is None or isinstance(dim, int):
                    close(Dl.linalg.norm(d, ord, dim, keepdim) if dim is not None or ord is None
                          else Dl.linalg.norm(d.flatten(), ord),
                          torch.linalg.norm(t, ord, dim, keepdim) if dim is not None
                          or ord is None else torch.linalg.norm(t.flatten(), ord), dtype, 10)


@pytest.mark.parametrize("ord", [2, 1, 0, 3, 0.5, -1, math.inf, -math.inf])
def test_vector_norm_grad(rng, ord):
    # with exact zeros (and one all-zero row) and ties for the inf norms
    a = rng.standard_normal((3, 4))
    a[0, 1] = 0.0
    a[1] = 0.0
    a[2, 2], a[2, 0] = 5.0, -5.0
    d, t = pair(a, "float64", requires_grad=True)
    for dim, keepdim in ((None, False), (1, False), ((0, 1), True), (0, True)):
        y = Dl.linalg.vector_norm(d, ord, dim, keepdim)
        ty = torch.linalg.vector_norm(t, ord, dim, keepdim)
        assert y.grad_fn.name() == ty.grad_fn.name() == "LinalgVectorNormBackward0"
        w = rng.standard_normal(tuple(ty.shape))
        (y * Dl.tensor(w)).sum().backward()
        (ty * torch.tensor(w)).sum().backward()
        if ord == 0:  # no gradient flows
            assert d.grad is None and t.grad is None
        else:
            np.testing.assert_allclose(d.grad.numpy(), t.grad.numpy(), atol=1e-12, rtol=1e-10)
        d.grad = t.grad = None
    s, ts = pair(np.array(2.5), "float64")
    close(Dl.linalg.vector_norm(s, ord), torch.linalg.vector_norm(ts, ord))
    close(Dl.linalg.norm(s), torch.linalg.norm(ts))


@pytest.mark.parametrize("dtype", DTYPES)
def test_matrix_norm(rng, dtype):
    d, t = pair(rng.standard_normal((2, 4, 3)), dtype)
    for ord in MATRIX_ORDS:
        for dim in ((-2, -1), (0, 2), (2, 1)):
            for keepdim in (False, True):
                close(Dl.linalg.matrix_norm(d, ord, dim, keepdim),
                      torch.linalg.matrix_norm(t, ord, dim, keepdim), dtype, 10)
        close(Dl.linalg.norm(d[0], ord), torch.linalg.norm(t[0], ord), dtype, 10)
        close(Dl.linalg.norm(d, ord, (1, 2)), torch.linalg.norm(t, ord, (1, 2)), dtype, 10)
    for p in (None, "fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf):
        dc, tc = pair(well_conditioned(rng, (2,), 4), dtype)
        close(Dl.linalg.cond(dc, p), torch.linalg.cond(tc, p), dtype, 100)


@pytest.mark.parametrize("dtype", DTYPES)
def test_pinv_rank_lstsq(rng, dtype):
    a = well_conditioned(rng, (2,), 5, 3)
    d, t = pair(a, dtype)
    close(Dl.linalg.pinv(d), torch.linalg.pinv(t), dtype, 10)
    close(Dl.linalg.matrix_rank(d), torch.linalg.matrix_rank(t), dtype)
    # rank deficient: a rank-2 5x3 matrix
    low = rng.standard_normal((5, 2)) @ rng.standard_normal((2, 3))
    dl_, tl = pair(low, dtype)
    assert int(Dl.linalg.matrix_rank(dl_)) == int(torch.linalg.matrix_rank(tl)) == 2
    close(Dl.linalg.pinv(dl_), torch.linalg.pinv(tl), dtype, 100)
    s, ts = pair(spd(rng, (), 4), dtype)
    close(Dl.linalg.pinv(s, hermitian=True), torch.linalg.pinv(ts, hermitian=True), dtype, 10)
    close(Dl.linalg.matrix_rank(s, hermitian=True), torch.linalg.matrix_rank(ts, hermitian=True),
          dtype)
    db, tb = pair(rng.standard_normal((2, 5, 2)), dtype)
    for driver in (None, "gelsy", "gelsd", "gelss", "gels"):
        r = Dl.linalg.lstsq(d, db, driver=driver)
        tr = torch.linalg.lstsq(t, tb, driver=driver)
        assert type(r).__name__ == "linalg_lstsq"
        close(r.solution, tr.solution, dtype, 100)
        close(r.rank, tr.rank, dtype)
        close(r.residuals, tr.residuals, dtype, 100)
        close(r.singular_values, tr.singular_values, dtype, 10)
    # a vector right-hand side
    close(Dl.linalg.lstsq(d, db[..., 0]).solution, torch.linalg.lstsq(t, tb[..., 0]).solution,
          dtype, 100)


@pytest.mark.parametrize("dtype", DTYPES)
def test_matrix_power_exp_cross(rng, dtype):
    d, t = pair(well_conditioned(rng, (2,), 4) / 2, dtype)
    for n in (0, 1, 2, 3, 7, -1, -3):
        close(Dl.linalg.matrix_power(d, n), torch.linalg.matrix_power(t, n), dtype, 10)
        close(d.matrix_power(n), t.matrix_power(n), dtype, 10)
    for scale in (0.01, 1.0, 10.0):
        ds, ts = pair(rng.standard_normal((2, 4, 4)) * scale, dtype)
        close(Dl.linalg.matrix_exp(ds), torch.linalg.matrix_exp(ts), dtype, 100 * scale)
        close(Dl.matrix_exp(ds), torch.matrix_exp(ts), dtype, 100 * scale)
    da, ta = pair(rng.standard_normal((3, 4)), dtype)
    db, tb = pair(rng.standard_normal((3, 4)), dtype)
    close(Dl.linalg.cross(da, db, dim=0), torch.linalg.cross(ta, tb, dim=0), dtype)
    if Dl is torch:  # torch warns once per process only
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = Dl.cross(da, db)
    else:
        with pytest.warns(UserWarning, match="without specifying the dim"):
            r = Dl.cross(da, db)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        close(r, torch.cross(ta, tb), dtype)
    with pytest.raises(RuntimeError, match="must have length 3"):
        Dl.linalg.cross(da, db)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 4), (2, 4, 4), (5, 3), (2, 3, 5)])
def test_lu(rng, dtype, shape):
    d, t = pair(rng.standard_normal(shape), dtype, transposed=True)
    LU, piv = Dl.linalg.lu_factor(d)
    tLU, tpiv = torch.linalg.lu_factor(t)
    close(LU, tLU, dtype, 10)
    assert piv.dtype == Dl.int32 and piv.tolist() == tpiv.tolist()
    for got, want in zip(Dl.linalg.lu(d), torch.linalg.lu(t)):
        close(got, want, dtype, 10)
    for got, want in zip(Dl.lu_unpack(LU, piv), torch.lu_unpack(tLU, tpiv)):
        close(got, want, dtype, 10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for got, want in zip(Dl.lu(d, get_infos=True), torch.lu(t, get_infos=True)):
            close(got, want, dtype, 10)
    if shape[-1] == shape[-2]:
        db, tb = pair(rng.standard_normal(shape[:-1] + (2,)), dtype)
        for left in (True, False):
            for adjoint in (False, True):
                bb, tbb = (db, tb) if left else (db.mT, tb.mT)
                close(Dl.linalg.lu_solve(LU, piv, bb, left=left, adjoint=adjoint),
                      torch.linalg.lu_solve(tLU, tpiv, tbb, left=left, adjoint=adjoint), dtype,
                      100)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            close(Dl.lu_solve(db, LU, piv), torch.lu_solve(tb, tLU, tpiv), dtype, 100)


@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (5, 3), (2, 4, 6), (2, 6, 4), (1, 4), (4, 1)])
def test_lu_grad_square_wide_tall(rng, shape):
    """The packed LU's gradient (and through it linalg.lu's) as torch's,
    for square, wide (U's extra columns) and tall (L's extra rows)
    matrices."""
    a = rng.standard_normal(shape)
    g = rng.standard_normal(shape)
    da, ta = Dl.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    (Dl.linalg.lu_factor(da)[0] * Dl.tensor(g)).sum().backward()
    (torch.linalg.lu_factor(ta)[0] * torch.tensor(g)).sum().backward()
    np.testing.assert_allclose(to_np(da.grad), ta.grad.numpy(), rtol=1e-10, atol=1e-12)
    da.grad = ta.grad = None
    _, dl_l, dl_u = Dl.linalg.lu(da)
    _, t_l, t_u = torch.linalg.lu(ta)
    (dl_l.sum() + 2 * dl_u.sum()).backward()
    (t_l.sum() + 2 * t_u.sum()).backward()
    np.testing.assert_allclose(to_np(da.grad), ta.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_lu_singular():
    d, t = pair(np.array([[1.0, 2.0], [2.0, 4.0]]), "float64")
    for got, want in zip(Dl.linalg.lu_factor_ex(d), torch.linalg.lu_factor_ex(t)):
        close(got, want)


def test_small_ones(rng):
    d, t = pair(rng.standard_normal((2, 3, 4)), "float64")
    close(Dl.linalg.diagonal(d, offset=1), torch.linalg.diagonal(t, offset=1))
    e, u = pair(rng.standard_normal((4, 2)), "float64")
    close(Dl.linalg.matmul(d, e), torch.linalg.matmul(t, u))
    v, tv = pair(rng.standard_normal(3), "float64")
    w, tw = pair(rng.standard_normal(2), "float64")
    close(Dl.linalg.multi_dot([v, d[0], e, w]), torch.linalg.multi_dot([tv, t[0], u, tw]))
    close(Dl.linalg.multi_dot([d[0], e]), torch.linalg.multi_dot([t[0], u]))
    close(Dl.linalg.vecdot(d, d, dim=1), torch.linalg.vecdot(t, t, dim=1))
    for n in (None, 2, 5):
        close(Dl.linalg.vander(v, N=n), torch.linalg.vander(tv, N=n))
    raises_like(lambda L: (lambda x: L.linalg.vander(x, N=1)), np.ones(3))
    a, ta = pair(well_conditioned(rng, (), 6).reshape(2, 3, 6), "float64")
    close(Dl.linalg.tensorinv(a, 2), torch.linalg.tensorinv(ta, 2))
    a, ta = pair(well_conditioned(rng, (), 6).reshape(2, 3, 2, 3), "float64")
    b, tb = pair(rng.standard_normal((2, 3)), "float64")
    close(Dl.linalg.tensorsolve(a, b), torch.linalg.tensorsolve(ta, tb))
    close(Dl.linalg.tensorsolve(a, b, dims=(0,)), torch.linalg.tensorsolve(ta, tb, dims=(0,)))
    assert not hasattr(d, "lu_unpack") and hasattr(d, "lu_solve")


# ---- gradients ------------------------------------------------------------

GRAD_CASES = {
    "inv": (lambda L: L.linalg.inv, "square", "LinalgInvExBackward0"),
    "det": (lambda L: L.linalg.det, "square", "LinalgDetBackward0"),
    "slogdet": (lambda L: (lambda a: L.linalg.slogdet(a)[1]), "square", "LinalgSlogdetBackward0"),
    "cholesky": (lambda L: L.linalg.cholesky, "spd", "LinalgCholeskyExBackward0"),
    "cholesky_upper": (lambda L: (lambda a: L.linalg.cholesky(a, upper=True)), "spd",
                       "LinalgCholeskyExBackward0"),
    "eigh_values": (lambda L: (lambda a: L.linalg.eigh(a)[0]), "sym", "LinalgEighBackward0"),
    "eigvalsh": (lambda L: L.linalg.eigvalsh, "sym", "LinalgEighBackward0"),
    # a gauge-invariant loss: the projector onto the first two vectors
    "eigh_vectors": (lambda L: (lambda a: (lambda v: v[..., :2] @ v[..., :2].mT)(
        L.linalg.eigh(a)[1])), "sym", None),
    "svdvals": (lambda L: L.linalg.svdvals, "tall", "LinalgSvdBackward0"),
    "svd_tall": (lambda L: (lambda a: (lambda r: (r[0] * r[1].unsqueeze(-2)) @ r[0].mT)(
        L.linalg.svd(a, full_matrices=False))), "tall", None),
    "svd_wide": (lambda L: (lambda a: (lambda r: r[2].mT @ (r[2] * r[1].unsqueeze(-1)))(
        L.linalg.svd(a, full_matrices=False))), "wide", None),
    "svd_uv": (lambda L: (lambda a: (lambda r: r[0] @ r[2])(
        L.linalg.svd(a, full_matrices=False))), "tall", None),
    "qr_tall": (lambda L: (lambda a: (lambda r: r[0] * 2 + r[1].sum(-2, keepdim=True))(
        L.linalg.qr(a))), "tall", None),
    "qr_wide": (lambda L: (lambda a: (lambda r: r[0].sum() + (r[1] * r[1]).sum())(
        L.linalg.qr(a))), "wide", None),
    "qr_square_r": (lambda L: (lambda a: L.linalg.qr(a)[1]), "square", "LinalgQrBackward0"),
    "solve": (lambda L: (lambda a: L.linalg.solve(a, a[..., :2] * 3)), "square",
              "LinalgSolveExBackward0"),
    "solve_triangular": (lambda L: (lambda a: L.linalg.solve_triangular(
        a + 4 * L.eye(4, dtype=a.dtype), a[..., :2] * 3, upper=True)), "square",
        "LinalgSolveTriangularBackward0"),
    "pinv": (lambda L: L.linalg.pinv, "tall", None),
    "matrix_norm_nuc": (lambda L: (lambda a: L.linalg.matrix_norm(a, "nuc")), "tall", None),
    "matrix_norm_2": (lambda L: (lambda a: L.linalg.matrix_norm(a, 2)), "tall", None),
    "vector_norm_3": (lambda L: (lambda a: L.linalg.vector_norm(a, 3, -1)), "tall", None),
    "matrix_exp": (lambda L: L.linalg.matrix_exp, "square", "LinalgMatrixExpBackward0"),
    "lstsq": (lambda L: (lambda a: L.linalg.lstsq(a, a[..., :2] + 1).solution), "tall", None),
    "lu_factor": (lambda L: (lambda a: L.linalg.lu_factor(a)[0]), "square",
                  "LinalgLuFactorExBackward0"),
    "lu_solve": (lambda L: (lambda a: (lambda f: L.linalg.lu_solve(f[0], f[1], a[..., :2]))(
        L.linalg.lu_factor(a))), "square", None),
    "cholesky_solve": (lambda L: (lambda a: L.cholesky_solve(
        a[..., :2], L.linalg.cholesky(a))), "spd", None),
}


def grad_input(rng, kind):
    if kind == "square":
        return well_conditioned(rng, (2,), 4)
    if kind == "tall":
        return well_conditioned(rng, (2,), 5, 3)
    if kind == "wide":
        return well_conditioned(rng, (2,), 3, 5)
    if kind == "spd":
        return spd(rng, (2,), 4)
    a = rng.standard_normal((2, 4, 4))
    return a + np.swapaxes(a, -1, -2) + np.diag([0.0, 2.0, 4.0, 6.0])


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_grad_vs_torch(rng, name):
    make, kind, node = GRAD_CASES[name]
    a = grad_input(rng, kind)
    d, t = pair(a, "float64", requires_grad=True)
    y, ty = make(Dl)(d), make(torch)(t)
    if node is not None:
        assert y.grad_fn.name() == ty.grad_fn.name() == node
    w = rng.standard_normal(tuple(ty.shape))
    (y * Dl.tensor(w)).sum().backward()
    (ty * torch.tensor(w)).sum().backward()
    close(d.grad, t.grad, "float64", 1000)


@pytest.mark.parametrize("name", ["inv", "det", "slogdet", "cholesky", "eigh_values",
                                  "eigh_vectors", "svd_tall", "svd_wide", "qr_tall", "qr_wide",
                                  "solve", "solve_triangular", "matrix_exp", "lu_factor",
                                  "lu_solve"])
def test_gradcheck(rng, name):
    make, kind, _ = GRAD_CASES[name]
    a = grad_input(rng, kind)[:1]
    d = Dl.tensor(a, requires_grad=True)
    fn = make(Dl)
    if kind in ("spd", "sym"):
        # keep the input symmetric under the perturbations
        inner = fn
        fn = lambda x: inner((x + x.mT) / 2)  # noqa: E731
    assert Dl.autograd.gradcheck(fn, (d,), eps=1e-6, atol=1e-5)


@pytest.mark.skipif(Dl is torch, reason="torch 1.13 gives zeros for an exactly singular matrix")
def test_det_grad_singular():
    # rank 2: the gradient is the cofactor matrix, which is not zero (torch
    # 1.13 gives zeros for an exactly singular matrix; later versions, and
    # libdl, the cofactors)
    a = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 1.0, 5.0]])
    d = Dl.tensor(a, requires_grad=True)
    Dl.linalg.det(d).backward()
    cof = np.array([[a[1, 1] * a[2, 2] - a[1, 2] * a[2, 1], -(a[1, 0] * a[2, 2] - a[1, 2] * a[2, 0]),
                     a[1, 0] * a[2, 1] - a[1, 1] * a[2, 0]],
                    [-(a[0, 1] * a[2, 2] - a[0, 2] * a[2, 1]), a[0, 0] * a[2, 2] - a[0, 2] * a[2, 0],
                     -(a[0, 0] * a[2, 1] - a[0, 1] * a[2, 0])],
                    [a[0, 1] * a[1, 2] - a[0, 2] * a[1, 1], -(a[0, 0] * a[1, 2] - a[0, 2] * a[1, 0]),
                     a[0, 0] * a[1, 1] - a[0, 1] * a[1, 0]]])
    np.testing.assert_allclose(d.grad.numpy(), cof, atol=1e-12)
    # rank 1 (all 2x2 minors zero): the cofactors are zero
    d = Dl.tensor(np.outer([1.0, 2.0, 3.0], [1.0, -1.0, 2.0]), requires_grad=True)
    Dl.linalg.det(d).backward()
    np.testing.assert_allclose(d.grad.numpy(), np.zeros((3, 3)), atol=1e-12)


def test_grad_errors(rng):
    d = Dl.tensor(well_conditioned(rng, (), 5, 3), requires_grad=True)
    with pytest.raises(RuntimeError, match="mode='r'"):
        Dl.linalg.qr(d, "r")[1].sum().backward()
    with pytest.raises(RuntimeError, match="mode='complete' and nrows > ncols"):
        Dl.linalg.qr(d, "complete")[0].sum().backward()


# ---- errors ---------------------------------------------------------------

def raises_like(fn, *args, **kwargs):
    """Calls fn with libdl's and torch's tensors for the numpy @args: both
    must raise, libdl with the exception class torch's maps to and torch's
    message."""
    targs = [torch.tensor(a) if isinstance(a, np.ndarray) else a for a in args]
    dargs = [Dl.tensor(a) if isinstance(a, np.ndarray) else a for a in args]
    with pytest.raises(Exception) as te:
        fn(torch)(*targs, **kwargs)
    with pytest.raises(Exception) as de:
        fn(Dl)(*dargs, **kwargs)
    linalg_error = isinstance(te.value, torch.linalg.LinAlgError)
    assert isinstance(de.value, Dl.linalg.LinAlgError) == linalg_error
    assert isinstance(de.value, RuntimeError)
    assert str(de.value) == str(te.value), (str(de.value), str(te.value))


@pytest.mark.skipif(Dl is torch, reason="torch warns once per process")
def test_deprecation_warnings(rng):
    a, _ = pair(spd(rng, (), 3), "float64")
    b, _ = pair(rng.standard_normal((3, 2)), "float64")
    for fn in (lambda: Dl.cholesky(a), lambda: Dl.triangular_solve(b, a), lambda: Dl.lu(a),
               lambda: Dl.lu_solve(b, *Dl.linalg.lu_factor(a)), lambda: Dl.symeig(a)):
        with pytest.warns(UserWarning, match="is deprecated in favor of torch.linalg"):
            fn()


def test_errors():
    assert issubclass(Dl.linalg.LinAlgError, RuntimeError)
    sing = np.array([[1.0, 2.0], [2.0, 4.0]])
    raises_like(lambda L: L.linalg.inv, sing)
    raises_like(lambda L: L.linalg.inv, np.stack([np.eye(2), sing]))
    raises_like(lambda L: L.linalg.inv, np.zeros((2, 3)))
    raises_like(lambda L: L.linalg.inv, np.zeros(3))
    raises_like(lambda L: L.linalg.inv, np.eye(3, dtype=np.int64))
    raises_like(lambda L: L.linalg.det, np.eye(3, dtype=np.int64))
    raises_like(lambda L: L.linalg.cholesky, -np.eye(3))
    raises_like(lambda L: L.linalg.cholesky, np.stack([np.eye(3), -np.eye(3)]))
    raises_like(lambda L: L.linalg.cholesky, np.zeros((2, 3)))
    raises_like(lambda L: L.linalg.eigh, np.zeros((2, 3)))
    raises_like(lambda L: L.linalg.svd, np.zeros(3))
    raises_like(lambda L: L.linalg.qr, np.zeros((2, 3), dtype=np.int64))
    raises_like(lambda L: L.linalg.solve, sing, np.ones(2))
    raises_like(lambda L: L.linalg.solve, np.stack([np.eye(2), sing]), np.ones((2, 2)))
    nan = np.array([[np.nan, 1.0], [1.0, 2.0]])
    raises_like(lambda L: L.linalg.svd, nan)
    raises_like(lambda L: L.linalg.svdvals, nan)
    raises_like(lambda L: L.linalg.pinv, nan)
    raises_like(lambda L: L.linalg.lu_factor, np.ones((3, 3)))
    raises_like(lambda L: L.linalg.lu_factor, np.stack([np.eye(3), np.ones((3, 3))]))
    raises_like(lambda L: (lambda x: L.linalg.vector_norm(x, math.inf)), np.zeros((2, 0)))
    raises_like(lambda L: (lambda x: L.linalg.vector_norm(x, -math.inf, dim=1)), np.zeros((2, 0)))
    raises_like(lambda L: L.linalg.cross, np.ones((2, 3)), np.ones(3))
    raises_like(lambda L: L.linalg.lstsq, np.eye(2), np.ones((2, 2, 2)))
    with pytest.raises(RuntimeError, match="Incompatible shapes"):
        Dl.linalg.solve(Dl.tensor(np.eye(3)), Dl.tensor(np.ones((2, 2))))


def test_removed_functions():
    a = np.eye(2)
    for fn in (lambda L, x: L.solve(x, x), lambda L, x: L.lstsq(x, x), lambda L, x: x.eig(),
               lambda L, x: x.solve(x), lambda L, x: x.lstsq(x), lambda L, x: L.eig(x),
               lambda L, x: L.matrix_rank(x)):
        with pytest.raises(RuntimeError) as te:
            fn(torch, torch.tensor(a))
        with pytest.raises(RuntimeError) as de:
            fn(Dl, Dl.tensor(a))
        assert de.value.args == te.value.args
    d, t = pair(np.random.default_rng(3).standard_normal((3, 3)), "float64")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        close(Dl.chain_matmul(d, d, d), torch.chain_matmul(t, t, t))


def test_empty():
    for shape in ((0, 0), (2, 0, 0)):
        d, t = pair(np.zeros(shape), "float64")
        close(Dl.linalg.inv(d), torch.linalg.inv(t))
        close(Dl.linalg.det(d), torch.linalg.det(t))
    d, t = pair(np.zeros((3, 0)), "float64")
    close(Dl.linalg.svdvals(d), torch.linalg.svdvals(t))
    q, r = Dl.linalg.qr(d, "complete")
    tq, tr = torch.linalg.qr(t, "complete")
    close(q, tq)
    close(r, tr)
