/* dl-ops-lapack-decompose.c: the decompositions with
 * orthogonal factors: eigh, svd, qr (dl-ops-lapack.c says how the files
 * divide torch.linalg).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>

#include "dl-ops-lapack-private.h"

/* ---- eigh ----------------------------------------------------------- */

typedef struct
{
  DlSavedTensor l, v;
  gboolean vectors_out; /* the vectors are the node's output 1 */
} EighState;

/* (L_j - L_i) for i != j and 1 on the diagonal, from vectors @l (*, k):
 * with @square, of the squares */
static DlTensor *
gaps (DlTensor *l, gboolean square, GError **error)
{
  g_autoptr (DlTensor) s = square ? dl_tensor_mul (l, l, error) : g_object_ref (l);
  g_autoptr (DlTensor) row = s ? dl_tensor_unsqueeze (s, -2, error) : NULL;
  g_autoptr (DlTensor) col = row ? dl_tensor_unsqueeze (s, -1, error) : NULL;
  g_autoptr (DlTensor) d = col ? dl_tensor_sub (row, col, error) : NULL;
  g_autoptr (DlTensor) eye = NULL;

  if (!d || !(eye = dl_lapack_identity_like (d, error)))
    return NULL;
  /* E + I where the diagonal of E is 0 */
  return dl_tensor_add (d, eye, error);
}

/* diag_embed (@v) + @x (@x nullable) */
static DlTensor *
add_diag (DlTensor *x, DlTensor *v, gint64 n, GError **error)
{
  g_autoptr (DlTensor) eye = dl_eye (n, n, v->dtype, dl_tensor_device (v), error);
  g_autoptr (DlTensor) v1 = eye ? dl_tensor_unsqueeze (v, -1, error) : NULL;
  g_autoptr (DlTensor) d = v1 ? dl_tensor_mul (v1, eye, error) : NULL;

  if (!d)
    return NULL;
  return x ? dl_tensor_add (x, d, error) : g_object_ref (d);
}

/* gA = V (diag (gL) + skew (V^T gV) / E) V^T, skew (X) = (X - X^T) / 2,
 * E_ij = L_j - L_i (torch's linalg_eig_backward for hermitian input) */
static gboolean
eigh_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  EighState *s = dl_node_state (node);
  g_autoptr (DlTensor) inner = NULL;
  g_autoptr (DlTensor) vt = NULL;
  g_autoptr (DlTensor) p = NULL;
  DlTensor *l, *v;
  gint64 n;

  TRY (l = dl_node_saved (node, &s->l, error));
  TRY (v = dl_node_saved (node, &s->v, error));
  n = l->sizes[l->ndim - 1];
  TRY (vt = dl_lapack_mT (v, error));
  if (s->vectors_out && go[1])
    {
      g_autoptr (DlTensor) vg = NULL;
      g_autoptr (DlTensor) vgt = NULL;
      g_autoptr (DlTensor) sk = NULL;
      g_autoptr (DlTensor) sk2 = NULL;
      g_autoptr (DlTensor) e = NULL;
      g_autoptr (DlTensor) q = NULL;
      g_autoptr (DlTensor) eye = NULL;
      g_autoptr (DlTensor) off = NULL;

      TRY (vg = dl_tensor_matmul (vt, go[1], error));
      TRY (vgt = dl_lapack_mT (vg, error));
      TRY (sk = dl_tensor_sub (vg, vgt, error));
      TRY (sk2 = dl_tensor_mul_scalar (sk, 0.5, error));
      TRY (e = gaps (l, FALSE, error));
      TRY (q = dl_tensor_div (sk2, e, error));
      /* the diagonal of skew is 0 already; gL fills it */
      inner = go[0] ? add_diag (q, go[0], n, error) : g_object_ref (q);
    }
  else
    inner = add_diag (NULL, go[0], n, error);
  TRY (inner);
  TRY (p = dl_tensor_matmul (v, inner, error));
  TRY (gi[0] = dl_tensor_matmul (p, vt, error));
  return TRUE;
}

/**
 * dl_tensor_linalg_eigh:
 * @self: float32 or float64 symmetric matrices, shape `(*, n, n)`
 * @upper: read the upper triangle (torch's UPLO='U') instead of the lower
 * @compute_v: compute the eigenvectors (torch.linalg.eigh) or the values
 *   alone (torch.linalg.eigvalsh)
 * @eigenvalues: (out) (transfer full) (optional): the eigenvalues in
 *   ascending order, shape `(*, n)`
 * @eigenvectors: (out) (transfer full) (optional) (nullable): the
 *   orthonormal eigenvectors, one per column, shape `(*, n, n)`; %NULL
 *   unless @compute_v
 * @error: return location for a #GError
 *
 * The eigendecomposition of symmetric matrices (LAPACK's syevd).
 * Differentiable (the vectors are computed for the gradient even without
 * @compute_v). Fails with %DL_ERROR_ARGUMENT when the algorithm does not
 * converge, %DL_ERROR_SHAPE and %DL_ERROR_DTYPE.
 *
 * Returns: %TRUE, or %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
dl_tensor_linalg_eigh (DlTensor *self,
                       gboolean upper,
                       gboolean compute_v,
                       DlTensor **eigenvalues,
                       DlTensor **eigenvectors,
                       GError **error)
{
  const gchar *op = compute_v ? "linalg.eigh" : "linalg.eigvalsh";
  g_autoptr (DlTensor) ac = NULL;
  g_autoptr (DlTensor) w = NULL;
  g_autoptr (DlTensor) v = NULL;
  g_autofree gint32 *info = NULL;
  DlLapackArgs g = { 0 };
  gboolean grad;
  gint64 n;

  g_return_val_if_fail (DL_IS_TENSOR (self), FALSE);
  if (!dl_lapack_check_kernel_matrix (op, "A", self, TRUE, error)
      || !(ac = dl_lapack_colmajor_copy (self, error)))
    return FALSE;
  n = self->sizes[self->ndim - 1];
  grad = dl_autograd_any_requires (1, &self);
  if (!(w = dl_lapack_new_batched (self, 2, &n, 1, error)))
    return FALSE;
  dl_lapack_args_init (&g, self, ac, &info);
  g.w = dl_tensor_data (w);
  /* A's upper triangle is the column-major copy's upper one */
  g.upper = upper;
  g.compute_uv = compute_v || grad;
  if (!dl_lapack_run (self, op, DL_LAPACK_SYEVD, &g, error))
    return FALSE;
  if (!dl_lapack_check_info (op, self, info, g.n_batch,
                             "The algorithm failed to converge because the input matrix is "
                             "ill-conditioned or has too many repeated eigenvalues (error code: ",
                             TRUE, ").", error))
    return FALSE;
  if (g.compute_uv && !(v = dl_lapack_rowmajor (ac, error)))
    return FALSE;
  if (grad)
    {
      g_autoptr (DlNode) node = dl_node_new_for_op ("LinalgEighBackward0", eigh_backward, 1, &self);
      EighState *s = DL_NODE_NEW_STATE (node, EighState);

      /* the vectors are an output even when not returned (eigvalsh), so
       * that the saved ones carry the node's history to a double backward */
      s->vectors_out = TRUE;
      dl_node_set_output (node, w, 0);
      dl_node_set_output (node, v, 1);
      dl_node_save (node, &s->l, w, TRUE);
      dl_node_save (node, &s->v, v, TRUE);
    }
  if (eigenvalues)
    *eigenvalues = g_steal_pointer (&w);
  if (eigenvectors)
    *eigenvectors = compute_v ? g_steal_pointer (&v) : NULL;
  return TRUE;
}

/* ---- svd ------------------------------------------------------------ */

typedef struct
{
  DlSavedTensor u, s, vh;
  gboolean full;
  gboolean vectors_out; /* outputs U, S, Vh; else S alone (svdvals) */
  gint64 m, n;
} SvdState;

static DlTensor *
narrow_last (DlTensor *t, gint dim, gint64 k, GError **error)
{
  return t->sizes[t->ndim + dim] == k ? g_object_ref (t)
                                      : dl_tensor_narrow (t, t->ndim + dim, 0, k, error);
}

/* torch's svd_backward (FunctionsManual.cpp), real case */
static gboolean
svd_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  SvdState *st = dl_node_state (node);
  g_autoptr (DlTensor) u = NULL;
  g_autoptr (DlTensor) vh = NULL;
  g_autoptr (DlTensor) gu = NULL;
  g_autoptr (DlTensor) gvh = NULL;
  g_autoptr (DlTensor) inner = NULL;
  g_autoptr (DlTensor) srow = NULL;
  g_autoptr (DlTensor) scol = NULL;
  g_autoptr (DlTensor) ga = NULL;
  DlTensor *s, *us, *vhs;
  DlTensor *g_u = st->vectors_out ? go[0] : NULL, *g_s = st->vectors_out ? go[1] : go[0];
  DlTensor *g_vh = st->vectors_out ? go[2] : NULL;
  gint64 m = st->m, n = st->n, k = MIN (m, n);

  TRY (s = dl_node_saved (node, &st->s, error));
  TRY (us = dl_node_saved (node, &st->u, error));
  TRY (vhs = dl_node_saved (node, &st->vh, error));
  TRY (u = narrow_last (us, -1, k, error));
  TRY (vh = narrow_last (vhs, -2, k, error));
  if (g_u)
    TRY (gu = narrow_last (g_u, -1, k, error));
  if (g_vh)
    TRY (gvh = narrow_last (g_vh, -2, k, error));
  TRY (srow = dl_tensor_unsqueeze (s, -2, error));
  TRY (scol = dl_tensor_unsqueeze (s, -1, error));
  if (!gu && !gvh)
    {
      g_autoptr (DlTensor) d = NULL;
      g_autoptr (DlTensor) p = NULL;

      TRY (d = add_diag (NULL, g_s, k, error));
      TRY (p = dl_tensor_matmul (u, d, error));
      TRY (gi[0] = dl_tensor_matmul (p, vh, error));
      return TRUE;
    }
  {
    g_autoptr (DlTensor) e = NULL;
    g_autoptr (DlTensor) uhgu = NULL;
    g_autoptr (DlTensor) vhgv = NULL;
    g_autoptr (DlTensor) num = NULL;

    TRY (e = gaps (s, TRUE, error));
    if (gu)
      {
        g_autoptr (DlTensor) ut = dl_lapack_mT (u, error);
        g_autoptr (DlTensor) x = ut ? dl_tensor_matmul (ut, gu, error) : NULL;
        g_autoptr (DlTensor) xt = x ? dl_lapack_mT (x, error) : NULL;
        g_autoptr (DlTensor) sk = xt ? dl_tensor_sub (x, xt, error) : NULL;

        TRY (sk);
        TRY (uhgu = dl_tensor_mul (sk, srow, error));
      }
    if (gvh)
      {
        /* V^T gV = Vh gVh^T */
        g_autoptr (DlTensor) gv = dl_lapack_mT (gvh, error);
        g_autoptr (DlTensor) x = gv ? dl_tensor_matmul (vh, gv, error) : NULL;
        g_autoptr (DlTensor) xt = x ? dl_lapack_mT (x, error) : NULL;
        g_autoptr (DlTensor) sk = xt ? dl_tensor_sub (x, xt, error) : NULL;

        TRY (sk);
        TRY (vhgv = dl_tensor_mul (scol, sk, error));
      }
    num = uhgu && vhgv ? dl_tensor_add (uhgu, vhgv, error) : g_object_ref (uhgu ? uhgu : vhgv);
    TRY (num);
    TRY (inner = dl_tensor_div (num, e, error));
    if (g_s)
      {
        g_autoptr (DlTensor) t = add_diag (inner, g_s, k, error);

        TRY (t);
        g_clear_object (&inner);
        inner = g_steal_pointer (&t);
      }
  }
  if (m > n && gu)
    {
      /* [U gA + (I - U U^T) gU S^-1] Vh */
      g_autoptr (DlTensor) a1 = dl_tensor_matmul (u, inner, error);
      g_autoptr (DlTensor) gus = a1 ? dl_tensor_div (gu, srow, error) : NULL;
      g_autoptr (DlTensor) ut = gus ? dl_lapack_mT (u, error) : NULL;
      g_autoptr (DlTensor) p1 = ut ? dl_tensor_matmul (ut, gus, error) : NULL;
      g_autoptr (DlTensor) p2 = p1 ? dl_tensor_matmul (u, p1, error) : NULL;
      g_autoptr (DlTensor) a2 = p2 ? dl_tensor_add (a1, gus, error) : NULL;
      g_autoptr (DlTensor) a3 = a2 ? dl_tensor_sub (a2, p2, error) : NULL;

      TRY (a3);
      TRY (gi[0] = dl_tensor_matmul (a3, vh, error));
    }
  else if (m < n && gvh)
    {
      /* U [gA Vh + S^-1 gVh (I - V Vh)] */
      g_autoptr (DlTensor) a1 = dl_tensor_matmul (inner, vh, error);
      g_autoptr (DlTensor) sg = a1 ? dl_tensor_div (gvh, scol, error) : NULL;
      g_autoptr (DlTensor) v = sg ? dl_lapack_mT (vh, error) : NULL;
      g_autoptr (DlTensor) p1 = v ? dl_tensor_matmul (sg, v, error) : NULL;
      g_autoptr (DlTensor) p2 = p1 ? dl_tensor_matmul (p1, vh, error) : NULL;
      g_autoptr (DlTensor) a2 = p2 ? dl_tensor_add (a1, sg, error) : NULL;
      g_autoptr (DlTensor) a3 = a2 ? dl_tensor_sub (a2, p2, error) : NULL;

      TRY (a3);
      TRY (gi[0] = dl_tensor_matmul (u, a3, error));
    }
  else
    {
      TRY (ga = dl_tensor_matmul (u, inner, error));
      TRY (gi[0] = dl_tensor_matmul (ga, vh, error));
    }
  return TRUE;
}

/**
 * dl_tensor_linalg_svd:
 * @self: float32 or float64 matrices, shape `(*, m, n)`
 * @full_matrices: U `(*, m, m)` and Vh `(*, n, n)` (%TRUE), or the reduced
 *   U `(*, m, k)` and Vh `(*, k, n)`, k = min (m, n)
 * @compute_uv: compute U and Vh (torch.linalg.svd), or S alone
 *   (torch.linalg.svdvals)
 * @u: (out) (transfer full) (optional) (nullable): the left singular
 *   vectors; %NULL unless @compute_uv
 * @s: (out) (transfer full) (optional): the singular values, descending,
 *   shape `(*, k)`
 * @vh: (out) (transfer full) (optional) (nullable): the right singular
 *   vectors, transposed; %NULL unless @compute_uv
 * @error: return location for a #GError
 *
 * The singular value decomposition A = U diag (S) Vh, as
 * torch.linalg.svd (LAPACK's gesdd). Differentiable (the vectors are
 * computed for the gradient even without @compute_uv); the gradient is
 * defined where the singular values are distinct and, through U or Vh,
 * for losses that do not depend on the vectors' signs.
 *
 * Returns: %TRUE, or %FALSE with @error set (%DL_ERROR_ARGUMENT when the
 *   algorithm does not converge, %DL_ERROR_SHAPE, %DL_ERROR_DTYPE)
 *
 * Since: 0.1
 */
gboolean
dl_tensor_linalg_svd (DlTensor *self,
                      gboolean full_matrices,
                      gboolean compute_uv,
                      DlTensor **u,
                      DlTensor **s,
                      DlTensor **vh,
                      GError **error)
{
  const gchar *op = compute_uv ? "linalg.svd" : "linalg.svdvals";
  g_autoptr (DlTensor) ac = NULL;
  g_autoptr (DlTensor) sv = NULL;
  g_autoptr (DlTensor) ub = NULL;
  g_autoptr (DlTensor) vb = NULL;
  g_autoptr (DlTensor) uo = NULL;
  g_autoptr (DlTensor) vo = NULL;
  g_autofree gint32 *info = NULL;
  DlLapackArgs g = { 0 };
  gboolean grad, full;
  gint64 m, n, k, ushape[2], vshape[2];

  g_return_val_if_fail (DL_IS_TENSOR (self), FALSE);
  if (!dl_lapack_check_kernel_matrix (op, "A", self, FALSE, error)
      || !(ac = dl_lapack_colmajor_copy (self, error)))
    return FALSE;
  m = self->sizes[self->ndim - 2];
  n = self->sizes[self->ndim - 1];
  k = MIN (m, n);
  grad = dl_autograd_any_requires (1, &self);
  full = compute_uv && full_matrices;
  /* column-major U is (ucols x m) row-major, Vh (n x vrows) */
  ushape[0] = full ? m : k;
  ushape[1] = m;
  vshape[0] = n;
  vshape[1] = full ? n : k;
  if (!(sv = dl_lapack_new_batched (self, 2, &k, 1, error))
      || ((compute_uv || grad)
          && (!(ub = dl_lapack_new_batched (self, 2, ushape, 2, error))
              || !(vb = dl_lapack_new_batched (self, 2, vshape, 2, error)))))
    return FALSE;
  dl_lapack_args_init (&g, self, ac, &info);
  g.s = dl_tensor_data (sv);
  g.u = ub ? dl_tensor_data (ub) : NULL;
  g.vt = vb ? dl_tensor_data (vb) : NULL;
  g.full = full;
  g.compute_uv = compute_uv || grad;
  /* LAPACK's gesdd may not return on NaN or infinity: refused first, as
   * torch does */
  for (gint64 i = 0; i < g.n_batch * m * n; i++)
    if (!isfinite (dl_lapack_get_el (self->dtype, g.a, i)))
      {
        g_set_error_literal (error, DL_ERROR, DL_ERROR_ARGUMENT,
                             "linalg.svd: The algorithm failed to converge because the input "
                             "matrix contained non-finite values.");
        return FALSE;
      }
  if (k > 0 && !dl_lapack_run (self, op, DL_LAPACK_GESDD, &g, error))
    return FALSE;
  if (k == 0 && ub)
    {
      /* no singular values: U and Vh are identities (torch's) */
      if (!dl_tensor_zero_ (ub, error) || !dl_tensor_zero_ (vb, error))
        return FALSE;
      if (full)
        {
          for (gint64 b = 0; b < g.n_batch; b++)
            {
              for (gint64 i = 0; i < m; i++)
                dl_lapack_set_el (self->dtype, dl_tensor_data (ub), b * m * m + i * m + i, 1);
              for (gint64 i = 0; i < n; i++)
                dl_lapack_set_el (self->dtype, dl_tensor_data (vb), b * n * n + i * n + i, 1);
            }
        }
    }
  if (!dl_lapack_check_info (
          op, self, info, g.n_batch,
          "The algorithm failed to converge because the input matrix is "
          "ill-conditioned or has too many repeated singular values (error code: ",
          TRUE, ").", error))
    return FALSE;
  if (ub && (!(uo = dl_lapack_rowmajor (ub, error)) || !(vo = dl_lapack_rowmajor (vb, error))))
    return FALSE;
  if (grad)
    {
      g_autoptr (DlNode) node = dl_node_new_for_op ("LinalgSvdBackward0", svd_backward, 1, &self);
      SvdState *st = DL_NODE_NEW_STATE (node, SvdState);

      st->m = m;
      st->n = n;
      st->full = full;
      /* U and Vh are outputs even when not returned (svdvals), so that
       * the saved ones carry the node's history to a double backward */
      st->vectors_out = TRUE;
      dl_node_set_output (node, uo, 0);
      dl_node_set_output (node, sv, 1);
      dl_node_set_output (node, vo, 2);
      dl_node_save (node, &st->u, uo, TRUE);
      dl_node_save (node, &st->s, sv, TRUE);
      dl_node_save (node, &st->vh, vo, TRUE);
    }
  if (u)
    *u = compute_uv ? g_steal_pointer (&uo) : NULL;
  if (s)
    *s = g_steal_pointer (&sv);
  if (vh)
    *vh = compute_uv ? g_steal_pointer (&vo) : NULL;
  return TRUE;
}

/* ---- qr ------------------------------------------------------------- */

typedef struct
{
  DlSavedTensor q, r;
  gint64 m, n;
  const gchar *refuse; /* why there is no gradient, or NULL */
} QrState;

/* (gQ + Q syminvadj (triu (gR R^T - Q^T gQ))) R^-T for a tall or square
 * A, syminvadj (X) = X + X^T with the diagonal halved; gq, gr nullable */
static DlTensor *
qr_grad_tall (DlTensor *q, DlTensor *r, DlTensor *gq, DlTensor *gr, GError **error)
{
  g_autoptr (DlTensor) m = NULL;
  g_autoptr (DlTensor) tu = NULL;
  g_autoptr (DlTensor) tut = NULL;
  g_autoptr (DlTensor) sym = NULL;
  g_autoptr (DlTensor) d = NULL;
  g_autoptr (DlTensor) dd = NULL;
  g_autoptr (DlTensor) sy = NULL;
  g_autoptr (DlTensor) qs = NULL;
  g_autoptr (DlTensor) lhs = NULL;
  gint64 k = r->sizes[r->ndim - 2];

  if (gr)
    {
      g_autoptr (DlTensor) rt = dl_lapack_mT (r, error);

      if (!rt || !(m = dl_tensor_matmul (gr, rt, error)))
        return NULL;
    }
  if (gq)
    {
      g_autoptr (DlTensor) qt = dl_lapack_mT (q, error);
      g_autoptr (DlTensor) p = qt ? dl_tensor_matmul (qt, gq, error) : NULL;

      if (!p)
        return NULL;
      if (m)
        {
          g_autoptr (DlTensor) t = dl_tensor_sub (m, p, error);

          if (!t)
            return NULL;
          g_clear_object (&m);
          m = g_steal_pointer (&t);
        }
      else if (!(m = dl_tensor_neg (p, error)))
        return NULL;
    }
  if (!(tu = dl_tensor_triu (m, 0, error)) || !(tut = dl_lapack_mT (tu, error))
      || !(sym = dl_tensor_add (tu, tut, error)) || !(d = dl_tensor_diagonal (tu, 0, -2, -1, error))
      || !(dd = dl_tensor_mul_scalar (d, -1.0, error)) || !(sy = add_diag (sym, dd, k, error))
      || !(qs = dl_tensor_matmul (q, sy, error)))
    return NULL;
  if (!(lhs = gq ? dl_tensor_add (qs, gq, error) : g_object_ref (qs)))
    return NULL;
  /* X R^-T: solve X R^T = lhs, R^T lower triangular */
  {
    g_autoptr (DlTensor) rt = dl_lapack_mT (r, error);

    return rt ? dl_tensor_linalg_solve_triangular (rt, lhs, FALSE, FALSE, FALSE, error) : NULL;
  }
}

/* torch's linalg_qr_backward: the tall formula, or for a wide A = [X Y],
 * R = [U V], that formula on X with gQ + Y gV^T, and gY = Q gV */
static gboolean
qr_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  QrState *s = dl_node_state (node);
  DlTensor *q, *r;
  gint64 m = s->m, n = s->n;

  if (s->refuse)
    {
      g_set_error_literal (error, DL_ERROR, DL_ERROR_AUTOGRAD, s->refuse);
      return FALSE;
    }
  TRY (q = dl_node_saved (node, &s->q, error));
  TRY (r = dl_node_saved (node, &s->r, error));
  if (m >= n)
    {
      TRY (gi[0] = qr_grad_tall (q, r, go[0], go[1], error));
      return TRUE;
    }
  {
    g_autoptr (DlTensor) a = NULL;
    g_autoptr (DlTensor) ru = NULL;
    g_autoptr (DlTensor) gu = NULL;
    g_autoptr (DlTensor) gv = NULL;
    g_autoptr (DlTensor) y = NULL;
    g_autoptr (DlTensor) gq2 = NULL;
    g_autoptr (DlTensor) gx = NULL;
    g_autoptr (DlTensor) gy = NULL;
    g_autoptr (DlTensor) ad = NULL;
    g_autoptr (DlTensor) qr = NULL;

    /* Y = Q V, rebuilt from the saved factors */
    TRY (ru = dl_tensor_narrow (r, r->ndim - 1, 0, m, error));
    TRY (qr = dl_tensor_narrow (r, r->ndim - 1, m, n - m, error));
    TRY (y = dl_tensor_matmul (q, qr, error));
    if (go[1])
      {
        TRY (gu = dl_tensor_narrow (go[1], r->ndim - 1, 0, m, error));
        TRY (gv = dl_tensor_narrow (go[1], r->ndim - 1, m, n - m, error));
      }
    if (gv)
      {
        g_autoptr (DlTensor) gvt = dl_lapack_mT (gv, error);
        g_autoptr (DlTensor) ygv = gvt ? dl_tensor_matmul (y, gvt, error) : NULL;

        TRY (ygv);
        TRY (gq2 = go[0] ? dl_tensor_add (go[0], ygv, error) : g_object_ref (ygv));
        TRY (gy = dl_tensor_matmul (q, gv, error));
      }
    else
      {
        gq2 = go[0] ? g_object_ref (go[0]) : NULL;
        TRY (gy = dl_zeros (y->sizes, y->ndim, y->dtype, dl_tensor_device (y), error));
      }
    TRY (gx = qr_grad_tall (q, ru, gq2, gu, error));
    TRY (gi[0] = dl_cat ((DlTensor *[]){ gx, gy }, 2, -1, error));
  }
  return TRUE;
}

/**
 * dl_tensor_linalg_qr:
 * @self: float32 or float64 matrices, shape `(*, m, n)`
 * @mode: "reduced" (Q `(*, m, k)`, R `(*, k, n)`, k = min (m, n)),
 *   "complete" (Q `(*, m, m)`, R `(*, m, n)`) or "r" (R alone, reduced;
 *   Q empty)
 * @q: (out) (transfer full) (optional): Q, orthonormal columns
 * @r: (out) (transfer full) (optional): R, upper triangular
 * @error: return location for a #GError
 *
 * The QR decomposition A = Q R, as torch.linalg.qr (Householder,
 * LAPACK's geqrf and orgqr). Differentiable in modes "reduced", and
 * "complete" when m <= n.
 *
 * Returns: %TRUE, or %FALSE with @error set (%DL_ERROR_ARGUMENT for an
 *   unknown mode, %DL_ERROR_SHAPE, %DL_ERROR_DTYPE)
 *
 * Since: 0.1
 */
gboolean
dl_tensor_linalg_qr (DlTensor *self, const gchar *mode, DlTensor **q, DlTensor **r, GError **error)
{
  const gchar *op = "linalg.qr";
  g_autoptr (DlTensor) ac = NULL;
  g_autoptr (DlTensor) qb = NULL;
  g_autoptr (DlTensor) rb = NULL;
  g_autoptr (DlTensor) qo = NULL;
  g_autoptr (DlTensor) ro = NULL;
  g_autofree gint32 *info = NULL;
  DlLapackArgs g = { 0 };
  gboolean full, want_q;
  gint64 m, n, k, qshape[2], rshape[2];

  g_return_val_if_fail (DL_IS_TENSOR (self), FALSE);
  g_return_val_if_fail (mode != NULL, FALSE);
  if (g_strcmp0 (mode, "reduced") != 0 && g_strcmp0 (mode, "complete") != 0
      && g_strcmp0 (mode, "r") != 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "qr received unrecognized mode '%s' but expected one of 'reduced' (default), "
                   "'r', or 'complete'",
                   mode);
      return FALSE;
    }
  if (!dl_lapack_check_kernel_matrix (op, "A", self, FALSE, error)
      || !(ac = dl_lapack_colmajor_copy (self, error)))
    return FALSE;
  m = self->sizes[self->ndim - 2];
  n = self->sizes[self->ndim - 1];
  k = MIN (m, n);
  full = g_strcmp0 (mode, "complete") == 0;
  want_q = g_strcmp0 (mode, "r") != 0;
  qshape[0] = full ? m : k;
  qshape[1] = m;
  rshape[0] = n;
  rshape[1] = full ? m : k;
  if (!(rb = dl_lapack_new_batched (self, 2, rshape, 2, error))
      || (want_q && !(qb = dl_lapack_new_batched (self, 2, qshape, 2, error))))
    return FALSE;
  dl_lapack_args_init (&g, self, ac, &info);
  g.q = qb ? dl_tensor_data (qb) : NULL;
  g.r = dl_tensor_data (rb);
  g.full = full;
  g.compute_q = want_q;
  if (m > 0 && n > 0 && !dl_lapack_run (self, op, DL_LAPACK_GEQRF, &g, error))
    return FALSE;
  if (m == 0 || n == 0)
    {
      /* nothing to factor: R is zeros, Q the identity's columns */
      if (!dl_tensor_zero_ (rb, error) || (qb && !dl_tensor_zero_ (qb, error)))
        return FALSE;
      for (gint64 b = 0; qb && b < g.n_batch; b++)
        for (gint64 i = 0; i < MIN (qshape[0], m); i++)
          dl_lapack_set_el (self->dtype, dl_tensor_data (qb), b * qshape[0] * m + i * m + i, 1);
    }
  if (!(ro = dl_lapack_rowmajor (rb, error)))
    return FALSE;
  if (qb)
    qo = dl_lapack_rowmajor (qb, error);
  else
    qo = dl_tensor_new_empty_internal (dl_tensor_device (self), self->dtype, (gint64[]){ 0 }, 1,
                                       error);
  if (!qo)
    return FALSE;
  if (dl_autograd_any_requires (1, &self))
    {
      g_autoptr (DlNode) node = dl_node_new_for_op ("LinalgQrBackward0", qr_backward, 1, &self);
      QrState *s = DL_NODE_NEW_STATE (node, QrState);

      s->m = m;
      s->n = n;
      if (!want_q)
        s->refuse = "The derivative of linalg.qr depends on Q, which is not computed when "
                    "mode='r'. Please use linalg.qr(A, mode='reduced') if you are going to "
                    "differentiate through linalg.qr.";
      else if (full && m > n)
        s->refuse = "The QR decomposition is not differentiable when mode='complete' and "
                    "nrows > ncols.";
      dl_node_set_output (node, qo, 0);
      dl_node_set_output (node, ro, 1);
      if (!s->refuse)
        dl_node_save (node, &s->q, qo, TRUE);
      dl_node_save (node, &s->r, ro, TRUE);
    }
  if (q)
    *q = g_steal_pointer (&qo);
  if (r)
    *r = g_steal_pointer (&ro);
  return TRUE;
}
