/* dl-ops-lapack-solve.c: the linear systems and the
 * factorizations that solve them: solve, inv, det, slogdet,
 * solve_triangular, cholesky, lu_factor (dl-ops-lapack.c says how the files
 * divide torch.linalg).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>

#include "dl-ops-lapack-private.h"

/* ---- solve and inv ------------------------------------------------- */

/* A^-1 B for A (..., n, n) and B (..., n, k) of the same batch shape, no
 * autograd; @what names the operation in the singular matrix error (NULL:
 * torch.linalg.solve's message) */
static DlTensor *
solve_raw (const gchar *op, const gchar *what, DlTensor *a, DlTensor *b, GError **error)
{
  gint nd = a->ndim;
  g_autoptr (DlTensor) ac = NULL;
  g_autoptr (DlTensor) bc = NULL;
  g_autofree gint32 *info = NULL;
  g_autofree gchar *what_after = NULL;
  DlLapackArgs g = { 0 };

  if (what)
    what_after = g_strdup_printf (" is zero, the %s could not be completed because the input "
                                  "matrix is singular.",
                                  what);
  if (!(ac = dl_lapack_colmajor_copy (a, error)) || !(bc = dl_lapack_colmajor_copy (b, error)))
    return NULL;
  dl_lapack_args_init (&g, a, ac, &info);
  g.nrhs = b->sizes[nd - 1];
  g.b = dl_tensor_data (bc);
  if (!dl_lapack_run (a, op, DL_LAPACK_GESV, &g, error))
    return NULL;
  if (what == NULL) /* torch's solve says less than its inv */
    {
      g_autofree gchar *name = g_strconcat ("torch.", op, NULL);

      if (!dl_lapack_check_info (name, a, info, g.n_batch,
                                 "The solver failed because the input matrix is singular.", FALSE,
                                 "", error))
        return NULL;
    }
  else if (!dl_lapack_check_info (op, a, info, g.n_batch, "The diagonal element ", TRUE, what_after,
                                  error))
    return NULL;
  return dl_lapack_rowmajor (bc, error);
}

static DlTensor *inv_impl (const gchar *op, DlTensor *self, GError **error);

typedef struct
{
  DlSavedTensor inv;
} InvState;

/* d(A^-1) = -A^-1 dA A^-1, so gA = -A^-T gO A^-T */
static gboolean
inv_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  InvState *s = dl_node_state (node);
  g_autoptr (DlTensor) it = NULL;
  g_autoptr (DlTensor) p = NULL;
  g_autoptr (DlTensor) q = NULL;
  DlTensor *inv;

  TRY (inv = dl_node_saved (node, &s->inv, error));
  TRY (it = dl_lapack_mT (inv, error));
  TRY (p = dl_tensor_matmul (it, go[0], error));
  TRY (q = dl_tensor_matmul (p, it, error));
  TRY (gi[0] = dl_tensor_neg (q, error));
  return TRUE;
}

static DlTensor *
inv_impl (const gchar *op, DlTensor *self, GError **error)
{
  g_autoptr (DlTensor) eye = NULL;
  DlTensor *out;

  if (!dl_lapack_check_kernel_matrix (op, "A", self, TRUE, error)
      || !(eye = dl_lapack_identity_like (self, error))
      || !(out = solve_raw (op, "inversion", self, eye, error)))
    return NULL;
  if (dl_autograd_any_requires (1, &self))
    {
      g_autoptr (DlNode) node = dl_node_new_for_op ("LinalgInvExBackward0", inv_backward, 1, &self);

      dl_node_set_output (node, out, 0);
      dl_node_save (node, &DL_NODE_NEW_STATE (node, InvState)->inv, out, TRUE);
    }
  return out;
}

/**
 * dl_tensor_linalg_inv:
 * @self: a float32 or float64 batch of square matrices, shape `(*, n, n)`
 * @error: return location for a #GError
 *
 * The inverse of each matrix, as torch.linalg.inv computes it (an LU
 * factorization with partial pivoting, LAPACK's gesv).
 *
 * |[<!-- language="C" -->
 * g_autoptr (GError) error = NULL;
 * g_autoptr (DlTensor) a = NULL;
 * g_autoptr (DlTensor) inv = NULL;
 *
 * if (!(a = dl_tensor_new_from_data ((gdouble[]){ 2, 1, 1, 3 }, 4 * sizeof (gdouble), DL_SHAPE (2,
 * 2), DL_DTYPE_FLOAT64, &error))
 *     || !(inv = dl_tensor_linalg_inv (a, &error)))
 *   g_printerr ("%s\n", error->message);
 * ]|
 *
 * Differentiable. Fails with %DL_ERROR_ARGUMENT for a singular matrix
 * (torch's LinAlgError), %DL_ERROR_SHAPE for a matrix that is not square
 * and %DL_ERROR_DTYPE for a dtype other than float32 and float64.
 *
 * Returns: (transfer full): the inverses, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_linalg_inv (DlTensor *self, GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  return inv_impl ("linalg.inv", self, error);
}

typedef struct
{
  DlSavedTensor a, x;
  gint64 b_shape[DL_MAX_DIMS], a_shape[DL_MAX_DIMS];
  gint b_ndim, a_ndim;
  gboolean vector;
} SolveState;

/* X = A^-1 B: gB = A^-T gX, gA = -gB X^T (summed back to the shapes
 * the inputs had before broadcasting) */
static gboolean
solve_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  SolveState *s = dl_node_state (node);
  g_autoptr (DlTensor) at = NULL;
  g_autoptr (DlTensor) g = NULL;
  g_autoptr (DlTensor) gb = NULL;
  g_autoptr (DlTensor) x = NULL;
  DlTensor *a, *xs;

  TRY (a = dl_node_saved (node, &s->a, error));
  TRY (at = dl_lapack_mT (a, error));
  g = s->vector ? dl_tensor_unsqueeze (go[0], -1, error) : g_object_ref (go[0]);
  TRY (g);
  TRY (gb = dl_tensor_linalg_solve (at, g, error));
  if (dl_node_needs_input_grad (node, 0))
    {
      g_autoptr (DlTensor) xt = NULL;
      g_autoptr (DlTensor) p = NULL;
      g_autoptr (DlTensor) n = NULL;

      TRY (xs = dl_node_saved (node, &s->x, error));
      x = s->vector ? dl_tensor_unsqueeze (xs, -1, error) : g_object_ref (xs);
      TRY (x);
      TRY (xt = dl_lapack_mT (x, error));
      TRY (p = dl_tensor_matmul (gb, xt, error));
      TRY (n = dl_tensor_neg (p, error));
      TRY (gi[0] = dl_sum_to (n, s->a_shape, s->a_ndim, error));
    }
  if (dl_node_needs_input_grad (node, 1))
    {
      g_autoptr (DlTensor) v = NULL;

      v = s->vector ? dl_tensor_squeeze_dim (gb, -1, error) : g_object_ref (gb);
      TRY (v);
      TRY (gi[1] = dl_sum_to (v, s->b_shape, s->b_ndim, error));
    }
  return TRUE;
}

/**
 * dl_tensor_linalg_solve:
 * @self: the float32 or float64 square matrices A, shape `(*, n, n)`
 * @other: the right-hand sides B: `(*, n, k)`, or vectors `(*, n)` (when
 *   B has one dim, or one dim less than A and A's shape without its last
 *   dim, as torch.linalg.solve decides)
 * @error: return location for a #GError
 *
 * The solution X of A X = B, as torch.linalg.solve computes it (LU with
 * partial pivoting, LAPACK's gesv); the batch dims broadcast.
 *
 * Differentiable in both. Fails with %DL_ERROR_ARGUMENT for a singular
 * matrix, %DL_ERROR_SHAPE for shapes that do not fit and
 * %DL_ERROR_DTYPE for other dtypes than float32 and float64 or dtypes that
 * differ.
 *
 * Returns: (transfer full): X, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_linalg_solve (DlTensor *self, DlTensor *other, GError **error)
{
  const gchar *op = "linalg.solve";
  gint nd = self->ndim, bnd;
  gboolean vector;
  gint64 shape[DL_MAX_DIMS], bshape[DL_MAX_DIMS];
  g_autoptr (DlTensor) b2 = NULL;
  g_autoptr (DlTensor) ae = NULL;
  g_autoptr (DlTensor) be = NULL;
  g_autoptr (DlTensor) x = NULL;
  DlTensor *out;
  gint onb;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  g_return_val_if_fail (DL_IS_TENSOR (other), NULL);
  if (!dl_check_same_device (op, self, other, error)
      || !dl_lapack_check_kernel_matrix (op, "A", self, TRUE, error))
    return NULL;
  if (other->dtype != self->dtype)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                   "%s: Expected A and B to have the same dtype, but found A of type %s and B of "
                   "type %s instead",
                   op, dl_lapack_torch_type_name (self->dtype),
                   dl_lapack_torch_type_name (other->dtype));
      return NULL;
    }
  vector = other->ndim == 1
           || (other->ndim == nd - 1 && other->ndim > 0
               && memcmp (other->sizes, self->sizes, sizeof (gint64) * (nd - 1)) == 0);
  if (!(b2 = vector ? dl_tensor_unsqueeze (other, -1, error) : g_object_ref (other)))
    return NULL;
  bnd = b2->ndim;
  if (bnd < 2 || b2->sizes[bnd - 2] != self->sizes[nd - 1])
    {
      g_autofree gchar *sa = dl_shape_to_string (self->sizes, self->ndim);
      g_autofree gchar *sb = dl_shape_to_string (other->sizes, other->ndim);

      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "%s: Incompatible shapes of A and B for the equation AX = B (%s and %s)", op, sa,
                   sb);
      return NULL;
    }
  /* broadcast the batch dims */
  onb = MAX (nd, bnd) - 2;
  for (gint i = 0; i < onb; i++)
    {
      gint ia = i - (onb - (nd - 2)), ib = i - (onb - (bnd - 2));
      gint64 sa = ia >= 0 ? self->sizes[ia] : 1, sb = ib >= 0 ? b2->sizes[ib] : 1;

      if (sa != sb && sa != 1 && sb != 1)
        {
          g_autofree gchar *s1 = dl_shape_to_string (self->sizes, self->ndim);
          g_autofree gchar *s2 = dl_shape_to_string (other->sizes, other->ndim);

          g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                       "%s: the batch dims of A %s and B %s do not broadcast", op, s1, s2);
          return NULL;
        }
      shape[i] = bshape[i] = sa == 1 ? sb : sa;
    }
  shape[onb] = shape[onb + 1] = self->sizes[nd - 1];
  bshape[onb] = self->sizes[nd - 1];
  bshape[onb + 1] = b2->sizes[bnd - 1];
  if (!(ae = dl_tensor_expand (self, shape, onb + 2, error))
      || !(be = dl_tensor_expand (b2, bshape, onb + 2, error))
      || !(x = solve_raw (op, NULL, ae, be, error)))
    return NULL;
  if (!(out = vector ? dl_tensor_squeeze_dim (x, -1, error) : g_object_ref (x)))
    return NULL;
  if (dl_autograd_any_requires (2, (DlTensor *[]){ self, other }))
    {
      g_autoptr (DlNode) node = dl_node_new_for_op ("LinalgSolveExBackward0", solve_backward, 2,
                                                    (DlTensor *[]){ self, other });
      SolveState *s = DL_NODE_NEW_STATE (node, SolveState);

      s->vector = vector;
      s->a_ndim = nd;
      memcpy (s->a_shape, self->sizes, sizeof (gint64) * nd);
      s->b_ndim = other->ndim;
      memcpy (s->b_shape, other->sizes, sizeof (gint64) * other->ndim);
      dl_node_set_output (node, out, 0);
      dl_node_save (node, &s->a, ae, FALSE);
      if (dl_node_needs_input_grad (node, 0))
        dl_node_save (node, &s->x, out, TRUE);
    }
  return out;
}

/* ---- det and slogdet ------------------------------------------------ */

/* sign, log|det| and det of each matrix from its LU factors, no
 * autograd; any output may be NULL */
static gboolean
lu_det (const gchar *op,
        DlTensor *a,
        DlTensor **sign,
        DlTensor **logabs,
        DlTensor **det,
        GError **error)
{
  gint nd = a->ndim;
  gint64 n = a->sizes[nd - 1];
  g_autoptr (DlTensor) ac = NULL;
  g_autoptr (DlTensor) sg = NULL;
  g_autoptr (DlTensor) la = NULL;
  g_autoptr (DlTensor) dt = NULL;
  g_autofree gint32 *info = NULL;
  g_autofree gint32 *ipiv = NULL;
  DlLapackArgs g = { 0 };
  DlDType dtype = a->dtype;
  const char *lu;

  if (!(ac = dl_lapack_colmajor_copy (a, error))
      || !(sg = dl_lapack_new_batched (a, 2, NULL, 0, error))
      || !(la = dl_lapack_new_batched (a, 2, NULL, 0, error))
      || !(dt = dl_lapack_new_batched (a, 2, NULL, 0, error)))
    return FALSE;
  dl_lapack_args_init (&g, a, ac, &info);
  g.ipiv = ipiv = g_new0 (gint32, MAX (g.n_batch * n, 1));
  if (!dl_lapack_run (a, op, DL_LAPACK_GETRF, &g, error))
    return FALSE;
  lu = dl_tensor_data (ac);
  for (gint64 bi = 0; bi < g.n_batch; bi++)
    {
      gdouble s = 1, l = 0, d = 1;
      gboolean zero = FALSE;

      for (gint64 i = 0; i < n; i++)
        {
          gdouble u = dl_lapack_get_el (dtype, lu, bi * n * n + i * n + i);

          if (ipiv[bi * n + i] != i + 1)
            s = -s;
          if (u < 0)
            s = -s;
          zero |= u == 0;
          l += log (fabs (u));
          d *= u;
        }
      /* the product's sign already counts the swaps */
      if (zero)
        s = 0;
      d = s * fabs (d);
      dl_lapack_set_el (dtype, dl_tensor_data (sg), bi, s);
      dl_lapack_set_el (dtype, dl_tensor_data (la), bi, s == 0 ? -INFINITY : l);
      dl_lapack_set_el (dtype, dl_tensor_data (dt), bi, d);
    }
  if (sign)
    *sign = g_steal_pointer (&sg);
  if (logabs)
    *logabs = g_steal_pointer (&la);
  if (det)
    *det = g_steal_pointer (&dt);
  return TRUE;
}

typedef struct
{
  DlSavedTensor a, out;
} DetState;

/* g[..., None, None] * x */
static DlTensor *
scale_matrices (DlTensor *g, DlTensor *x, GError **error)
{
  g_autoptr (DlTensor) g1 = dl_tensor_unsqueeze (g, -1, error);
  g_autoptr (DlTensor) g2 = g1 ? dl_tensor_unsqueeze (g1, -1, error) : NULL;

  return g2 ? dl_tensor_mul (g2, x, error) : NULL;
}

/* log|det A|' = A^-T */
static gboolean
slogdet_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  DetState *s = dl_node_state (node);
  g_autoptr (DlTensor) inv = NULL;
  g_autoptr (DlTensor) it = NULL;
  DlTensor *a;

  if (go[1] == NULL)
    return TRUE;
  TRY (a = dl_node_saved (node, &s->a, error));
  TRY (inv = inv_impl ("linalg.slogdet", a, error));
  TRY (it = dl_lapack_mT (inv, error));
  TRY (gi[0] = scale_matrices (go[1], it, error));
  return TRUE;
}

/* det A' = the cofactor matrix, det (U) det (V) U diag (prod_{j != i}
 * s_j) V^T from A's SVD, which a singular A has too */
static gboolean
det_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  DetState *s = dl_node_state (node);
  g_autoptr (DlTensor) u = NULL;
  g_autoptr (DlTensor) sv = NULL;
  g_autoptr (DlTensor) vh = NULL;
  g_autoptr (DlTensor) su = NULL;
  g_autoptr (DlTensor) sv2 = NULL;
  g_autoptr (DlTensor) c = NULL;
  g_autoptr (DlTensor) c1 = NULL;
  g_autoptr (DlTensor) us = NULL;
  g_autoptr (DlTensor) cof = NULL;
  g_autoptr (DlTensor) sc = NULL;
  g_autoptr (DlTensor) ad = NULL;
  DlTensor *a;
  gint64 n, nb;
  DlDType dtype;

  TRY (a = dl_node_saved (node, &s->a, error));
  TRY (ad = dl_tensor_detach (a));
  TRY (dl_tensor_linalg_svd (ad, FALSE, TRUE, &u, &sv, &vh, error));
  TRY (lu_det ("linalg.det", u, &su, NULL, NULL, error));
  TRY (lu_det ("linalg.det", vh, &sv2, NULL, NULL, error));
  TRY (c = dl_tensor_clone_format (sv, DL_MEMORY_FORMAT_CONTIGUOUS, error));
  n = sv->sizes[sv->ndim - 1];
  nb = dl_lapack_batch_count (sv, 1);
  dtype = sv->dtype;
  {
    g_autoptr (DlTensor) svc = dl_contiguous_nograd (sv, error);
    g_autoptr (DlTensor) suc = svc ? dl_contiguous_nograd (su, error) : NULL;
    g_autoptr (DlTensor) svvc = suc ? dl_contiguous_nograd (sv2, error) : NULL;

    TRY (svvc);
    for (gint64 bi = 0; bi < nb; bi++)
      for (gint64 i = 0; i < n; i++)
        {
          gdouble p = dl_lapack_get_el (dtype, dl_tensor_data (suc), bi)
                      * dl_lapack_get_el (dtype, dl_tensor_data (svvc), bi);

          for (gint64 j = 0; j < n; j++)
            if (j != i)
              p *= dl_lapack_get_el (dtype, dl_tensor_data (svc), bi * n + j);
          dl_lapack_set_el (dtype, dl_tensor_data (c), bi * n + i, p);
        }
  }
  TRY (c1 = dl_tensor_unsqueeze (c, -2, error));
  TRY (us = dl_tensor_mul (u, c1, error));
  TRY (cof = dl_tensor_matmul (us, vh, error));
  TRY (gi[0] = scale_matrices (go[0], cof, error));
  return TRUE;
}

/**
 * dl_tensor_linalg_slogdet:
 * @self: a float32 or float64 batch of square matrices, shape `(*, n, n)`
 * @sign: (out) (transfer full) (optional): the sign of each determinant
 *   (0 for a singular matrix), shape `(*)`
 * @logabsdet: (out) (transfer full) (optional): the logarithm of its
 *   absolute value (-inf for a singular matrix)
 * @error: return location for a #GError
 *
 * The determinants as sign and logarithm, as torch.linalg.slogdet (from an
 * LU factorization). Differentiable in @logabsdet.
 *
 * Returns: %TRUE, or %FALSE with @error set (%DL_ERROR_SHAPE, %DL_ERROR_DTYPE)
 *
 * Since: 0.1
 */
gboolean
dl_tensor_linalg_slogdet (DlTensor *self, DlTensor **sign, DlTensor **logabsdet, GError **error)
{
  g_autoptr (DlTensor) sg = NULL;
  g_autoptr (DlTensor) la = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self), FALSE);
  if (!dl_lapack_check_kernel_matrix ("linalg.slogdet", "A", self, TRUE, error)
      || !lu_det ("linalg.slogdet", self, &sg, &la, NULL, error))
    return FALSE;
  if (dl_autograd_any_requires (1, &self))
    {
      g_autoptr (DlNode) node
          = dl_node_new_for_op ("LinalgSlogdetBackward0", slogdet_backward, 1, &self);

      dl_node_save (node, &DL_NODE_NEW_STATE (node, DetState)->a, self, FALSE);
      dl_node_set_output (node, sg, 0);
      dl_node_set_output (node, la, 1);
    }
  if (sign)
    *sign = g_steal_pointer (&sg);
  if (logabsdet)
    *logabsdet = g_steal_pointer (&la);
  return TRUE;
}

/**
 * dl_tensor_linalg_det:
 * @self: a float32 or float64 batch of square matrices, shape `(*, n, n)`
 * @error: return location for a #GError
 *
 * The determinant of each matrix, as torch.linalg.det (from an LU
 * factorization). Differentiable, singular matrices included (the
 * gradient is the cofactor matrix).
 *
 * Returns: (transfer full): the determinants, shape `(*)`, or %NULL with
 *   @error set (%DL_ERROR_SHAPE, %DL_ERROR_DTYPE)
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_linalg_det (DlTensor *self, GError **error)
{
  DlTensor *det = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_lapack_check_kernel_matrix ("linalg.det", "A", self, TRUE, error)
      || !lu_det ("linalg.det", self, NULL, NULL, &det, error))
    return NULL;
  if (dl_autograd_any_requires (1, &self))
    {
      g_autoptr (DlNode) node = dl_node_new_for_op ("LinalgDetBackward0", det_backward, 1, &self);

      dl_node_save (node, &DL_NODE_NEW_STATE (node, DetState)->a, self, FALSE);
      dl_node_set_output (node, det, 0);
    }
  return det;
}

/* ---- triangular solves ---------------------------------------------- */

typedef struct
{
  DlSavedTensor a, x;
  gint64 a_shape[DL_MAX_DIMS], b_shape[DL_MAX_DIMS];
  gint a_ndim, b_ndim;
  gboolean upper, left, unit;
} TriState;

/* left: X = A^-1 B, gB = A^-T g, gA = -gB X^T; right: X = B A^-1,
 * gB = g A^-T, gA = -X^T gB; gA keeps A's triangle only */
static gboolean
tri_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  TriState *s = dl_node_state (node);
  g_autoptr (DlTensor) at = NULL;
  g_autoptr (DlTensor) gb = NULL;
  DlTensor *a, *x;

  TRY (a = dl_node_saved (node, &s->a, error));
  TRY (at = dl_lapack_mT (a, error));
  TRY (gb = dl_tensor_linalg_solve_triangular (at, go[0], !s->upper, s->left, s->unit, error));
  if (dl_node_needs_input_grad (node, 0))
    {
      g_autoptr (DlTensor) xt = NULL;
      g_autoptr (DlTensor) p = NULL;
      g_autoptr (DlTensor) n = NULL;
      g_autoptr (DlTensor) tr = NULL;

      TRY (x = dl_node_saved (node, &s->x, error));
      TRY (xt = dl_lapack_mT (x, error));
      TRY (p = s->left ? dl_tensor_matmul (gb, xt, error) : dl_tensor_matmul (xt, gb, error));
      TRY (n = dl_tensor_neg (p, error));
      TRY (tr = s->upper ? dl_tensor_triu (n, s->unit ? 1 : 0, error)
                         : dl_tensor_tril (n, s->unit ? -1 : 0, error));
      TRY (gi[0] = dl_sum_to (tr, s->a_shape, s->a_ndim, error));
    }
  if (dl_node_needs_input_grad (node, 1))
    TRY (gi[1] = dl_sum_to (gb, s->b_shape, s->b_ndim, error));
  return TRUE;
}

/* The batch shape A and B broadcast to, into @shape (their matrix dims
 * not included); FALSE with @error set when they do not */
static gboolean
broadcast_batch (const gchar *op, DlTensor *a, DlTensor *b, gint64 *shape, gint *nb, GError **error)
{
  gint na = a->ndim - 2, nbb = b->ndim - 2;

  *nb = MAX (na, nbb);
  for (gint i = 0; i < *nb; i++)
    {
      gint ia = i - (*nb - na), ib = i - (*nb - nbb);
      gint64 sa = ia >= 0 ? a->sizes[ia] : 1, sb = ib >= 0 ? b->sizes[ib] : 1;

      if (sa != sb && sa != 1 && sb != 1)
        {
          g_autofree gchar *s1 = dl_shape_to_string (a->sizes, a->ndim);
          g_autofree gchar *s2 = dl_shape_to_string (b->sizes, b->ndim);

          g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                       "%s: the batch dims of %s and %s do not broadcast", op, s1, s2);
          return FALSE;
        }
      shape[i] = sa == 1 ? sb : sa;
    }
  return TRUE;
}

/**
 * dl_tensor_linalg_solve_triangular:
 * @self: the float32 or float64 triangular matrices A, shape `(*, n, n)`
 * @other: B: `(*, n, k)` when @left, `(*, k, n)` otherwise
 * @upper: whether A is upper triangular (its other triangle is not read)
 * @left: solve A X = B (%TRUE) or X A = B (%FALSE)
 * @unitriangular: whether A's diagonal is taken as ones (not read)
 * @error: return location for a #GError
 *
 * The solution of a triangular system, as
 * torch.linalg.solve_triangular; the batch dims broadcast. A zero on the
 * diagonal gives infinities, as in torch. Differentiable in both.
 *
 * Returns: (transfer full): X, or %NULL with @error set (%DL_ERROR_SHAPE,
 *   %DL_ERROR_DTYPE)
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_linalg_solve_triangular (DlTensor *self,
                                   DlTensor *other,
                                   gboolean upper,
                                   gboolean left,
                                   gboolean unitriangular,
                                   GError **error)
{
  const gchar *op = "linalg.solve_triangular";
  gint64 shape[DL_MAX_DIMS], n;
  gint nb;
  g_autoptr (DlTensor) ae = NULL;
  g_autoptr (DlTensor) be = NULL;
  g_autoptr (DlTensor) ac = NULL;
  g_autoptr (DlTensor) bc = NULL;
  g_autofree gint32 *info = NULL;
  DlLapackArgs g = { 0 };
  DlTensor *out;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  g_return_val_if_fail (DL_IS_TENSOR (other), NULL);
  if (!dl_check_same_device (op, self, other, error)
      || !dl_lapack_check_kernel_matrix (op, "A", self, TRUE, error)
      || !dl_lapack_check_kernel_matrix (op, "B", other, FALSE, error))
    return NULL;
  n = self->sizes[self->ndim - 1];
  if (other->dtype != self->dtype || other->sizes[other->ndim - (left ? 2 : 1)] != n)
    {
      g_autofree gchar *s1 = dl_shape_to_string (self->sizes, self->ndim);
      g_autofree gchar *s2 = dl_shape_to_string (other->sizes, other->ndim);

      g_set_error (error, DL_ERROR, other->dtype != self->dtype ? DL_ERROR_DTYPE : DL_ERROR_SHAPE,
                   "%s: Incompatible shapes or dtypes of A %s (%s) and B %s (%s)", op, s1,
                   dl_dtype_get_name (self->dtype), s2, dl_dtype_get_name (other->dtype));
      return NULL;
    }
  if (!broadcast_batch (op, self, other, shape, &nb, error))
    return NULL;
  shape[nb] = shape[nb + 1] = n;
  if (!(ae = dl_tensor_expand (self, shape, nb + 2, error)))
    return NULL;
  shape[nb] = other->sizes[other->ndim - 2];
  shape[nb + 1] = other->sizes[other->ndim - 1];
  if (!(be = dl_tensor_expand (other, shape, nb + 2, error)))
    return NULL;
  /* X A = B is A^T X^T = B^T: B^T's column-major copy is B's row-major */
  if (!(ac = dl_lapack_colmajor_copy (ae, error)))
    return NULL;
  if (left)
    bc = dl_lapack_colmajor_copy (be, error);
  else
    {
      g_autoptr (DlTensor) d = dl_tensor_detach (be);

      bc = dl_tensor_clone_format (d, DL_MEMORY_FORMAT_CONTIGUOUS, error);
    }
  if (!bc)
    return NULL;
  dl_lapack_args_init (&g, ae, ac, &info);
  g.nrhs = left ? be->sizes[nb + 1] : be->sizes[nb];
  g.b = dl_tensor_data (bc);
  g.upper = upper;
  g.trans = !left;
  g.unit_diagonal = unitriangular;
  if (!dl_lapack_run (self, op, DL_LAPACK_TRTRS, &g, error))
    return NULL;
  if (!(out = left ? dl_lapack_rowmajor (bc, error) : g_object_ref (bc)))
    return NULL;
  if (dl_autograd_any_requires (2, (DlTensor *[]){ self, other }))
    {
      g_autoptr (DlNode) node = dl_node_new_for_op ("LinalgSolveTriangularBackward0", tri_backward,
                                                    2, (DlTensor *[]){ self, other });
      TriState *s = DL_NODE_NEW_STATE (node, TriState);

      s->upper = upper;
      s->left = left;
      s->unit = unitriangular;
      s->a_ndim = self->ndim;
      memcpy (s->a_shape, self->sizes, sizeof (gint64) * self->ndim);
      s->b_ndim = other->ndim;
      memcpy (s->b_shape, other->sizes, sizeof (gint64) * other->ndim);
      dl_node_set_output (node, out, 0);
      dl_node_save (node, &s->a, ae, FALSE);
      if (dl_node_needs_input_grad (node, 0))
        dl_node_save (node, &s->x, out, TRUE);
    }
  return out;
}

/* ---- cholesky ------------------------------------------------------- */

typedef struct
{
  DlSavedTensor l;
  gboolean upper;
} CholState;

/* gA = L^-T Phi (L^T gL) L^-1, Phi taking the lower triangle with half
 * the diagonal and symmetrizing (torch's cholesky_backward) */
static gboolean
cholesky_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  CholState *s = dl_node_state (node);
  g_autoptr (DlTensor) l = NULL;
  g_autoptr (DlTensor) gl = NULL;
  g_autoptr (DlTensor) lt = NULL;
  g_autoptr (DlTensor) p = NULL;
  g_autoptr (DlTensor) t = NULL;
  g_autoptr (DlTensor) t1 = NULL;
  g_autoptr (DlTensor) t1t = NULL;
  g_autoptr (DlTensor) sum = NULL;
  g_autoptr (DlTensor) half = NULL;
  g_autoptr (DlTensor) y = NULL;
  DlTensor *saved;

  TRY (saved = dl_node_saved (node, &s->l, error));
  TRY (l = s->upper ? dl_lapack_mT (saved, error) : g_object_ref (saved));
  TRY (gl = s->upper ? dl_lapack_mT (go[0], error) : g_object_ref (go[0]));
  TRY (lt = dl_lapack_mT (l, error));
  TRY (p = dl_tensor_matmul (lt, gl, error));
  TRY (t = dl_tensor_tril (p, 0, error));
  TRY (t1 = dl_tensor_tril (t, -1, error));
  TRY (t1t = dl_lapack_mT (t1, error));
  TRY (sum = dl_tensor_add (t, t1t, error));
  TRY (half = dl_tensor_mul_scalar (sum, 0.5, error));
  /* L^-T half L^-1: solve L^T Y = half, then Z L = Y */
  TRY (y = dl_tensor_linalg_solve_triangular (lt, half, TRUE, TRUE, FALSE, error));
  TRY (gi[0] = dl_tensor_linalg_solve_triangular (l, y, FALSE, FALSE, FALSE, error));
  return TRUE;
}

/**
 * dl_tensor_linalg_cholesky:
 * @self: float32 or float64 symmetric positive-definite matrices, shape
 *   `(*, n, n)`; only the lower triangle is read
 * @upper: return the upper factor U (A = U^T U) instead of the lower L
 *   (A = L L^T)
 * @error: return location for a #GError
 *
 * The Cholesky factor of each matrix, as torch.linalg.cholesky (LAPACK's
 * potrf). Differentiable. Fails with %DL_ERROR_ARGUMENT for a matrix
 * that is not positive-definite (torch's LinAlgError), %DL_ERROR_SHAPE
 * and %DL_ERROR_DTYPE.
 *
 * Returns: (transfer full): the factors, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_linalg_cholesky (DlTensor *self, gboolean upper, GError **error)
{
  const gchar *op = "linalg.cholesky";
  g_autoptr (DlTensor) ac = NULL;
  g_autofree gint32 *info = NULL;
  DlLapackArgs g = { 0 };
  DlTensor *out;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_lapack_check_kernel_matrix (op, "A", self, TRUE, error)
      || !(ac = dl_lapack_colmajor_copy (self, error)))
    return NULL;
  dl_lapack_args_init (&g, self, ac, &info);
  /* L column-major from A's lower triangle: read row-major, that is L^T */
  g.upper = FALSE;
  if (!dl_lapack_run (self, op, DL_LAPACK_POTRF, &g, error))
    return NULL;
  if (!dl_lapack_check_info (op, self, info, g.n_batch,
                             "The factorization could not be completed because the input is not "
                             "positive-definite (the leading minor of order ",
                             TRUE, " is not positive-definite).", error))
    return NULL;
  if (!(out = upper ? g_object_ref (ac) : dl_lapack_rowmajor (ac, error)))
    return NULL;
  if (dl_autograd_any_requires (1, &self))
    {
      g_autoptr (DlNode) node
          = dl_node_new_for_op ("LinalgCholeskyExBackward0", cholesky_backward, 1, &self);
      CholState *s = DL_NODE_NEW_STATE (node, CholState);

      s->upper = upper;
      dl_node_set_output (node, out, 0);
      dl_node_save (node, &s->l, out, TRUE);
    }
  return out;
}

/* ---- lu ------------------------------------------------------------- */

typedef struct
{
  DlSavedTensor lu, perm;
} LuState;

/* L (unit lower, the diagonal added) and U of a square packed LU */
static gboolean
lu_unpack_square (DlTensor *lu, DlTensor **l, DlTensor **u, GError **error)
{
  g_autoptr (DlTensor) eye = NULL;
  g_autoptr (DlTensor) l0 = NULL;

  TRY (eye = dl_lapack_identity_like (lu, error));
  TRY (l0 = dl_tensor_tril (lu, -1, error));
  TRY (*l = dl_tensor_add (l0, eye, error));
  TRY (*u = dl_tensor_triu (lu, 0, error));
  return TRUE;
}

/* tril (a, -1) + triu (b): the two halves the square formula adds */
static DlTensor *
tril_plus_triu (DlTensor *a, DlTensor *b, GError **error)
{
  g_autoptr (DlTensor) t1 = NULL;
  g_autoptr (DlTensor) t2 = NULL;

  if (!(t1 = dl_tensor_tril (a, -1, error)) || !(t2 = dl_tensor_triu (b, 0, error)))
    return NULL;
  return dl_tensor_add (t1, t2, error);
}

/* a - b c (b, c matrices) */
static DlTensor *
minus_product (DlTensor *a, DlTensor *b, DlTensor *c, GError **error)
{
  g_autoptr (DlTensor) bc = dl_tensor_matmul (b, c, error);

  return bc ? dl_tensor_sub (a, bc, error) : NULL;
}

/* The gradient of A = P L U through the packed LU, torch's
 * linalg_lu_backward, with gL and gU the strictly lower and the upper
 * parts of the packed gradient. Square (k = m = n):
 *   gA = P L^-T (tril (L^T gL, -1) + triu (gU U^T)) U^-T.
 * Wide (m < n; U = [U1 U2], U1 square): U2 = L^-1 P^T A2 adds its
 * gradient gU2 to A2's and takes - L^-T gU2 U2^T off L's:
 *   gA1 = P L^-T (tril (L^T gL - gU2 U2^T, -1) + triu (gU1 U1^T)) U1^-T,
 *   gA2 = P L^-T gU2.
 * Tall (m > n; L = [L1; L2], L1 square): L2 = (P^T A)2 U^-1 likewise:
 *   g(P^T A)1 = L1^-T (tril (L1^T gL1, -1) + triu (gU U^T - L2^T gL2)) U^-T,
 *   g(P^T A)2 = gL2 U^-T. */
static gboolean
lu_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  LuState *s = dl_node_state (node);
  g_autoptr (DlTensor) lu1 = NULL;
  g_autoptr (DlTensor) g1 = NULL;
  g_autoptr (DlTensor) g2 = NULL;
  g_autoptr (DlTensor) part2 = NULL;
  g_autoptr (DlTensor) l = NULL;
  g_autoptr (DlTensor) u = NULL;
  g_autoptr (DlTensor) lt = NULL;
  g_autoptr (DlTensor) ut = NULL;
  g_autoptr (DlTensor) gl = NULL;
  g_autoptr (DlTensor) gu = NULL;
  g_autoptr (DlTensor) lower = NULL;
  g_autoptr (DlTensor) upper = NULL;
  g_autoptr (DlTensor) inner = NULL;
  g_autoptr (DlTensor) x = NULL;
  g_autoptr (DlTensor) y = NULL;
  DlTensor *lu, *perm;
  gint64 m, n;

  TRY (lu = dl_node_saved (node, &s->lu, error));
  TRY (perm = dl_node_saved (node, &s->perm, error));
  m = lu->sizes[lu->ndim - 2];
  n = lu->sizes[lu->ndim - 1];
  /* the square block, and the rest: U2 (wide) or L2 (tall) */
  TRY (lu1 = dl_tensor_narrow (lu, m < n ? -1 : -2, 0, MIN (m, n), error));
  TRY (g1 = dl_tensor_narrow (go[0], m < n ? -1 : -2, 0, MIN (m, n), error));
  TRY (lu_unpack_square (lu1, &l, &u, error));
  TRY (lt = dl_lapack_mT (l, error));
  TRY (ut = dl_lapack_mT (u, error));
  TRY (gl = dl_tensor_tril (g1, -1, error));
  TRY (gu = dl_tensor_triu (g1, 0, error));
  TRY (lower = dl_tensor_matmul (lt, gl, error));
  TRY (upper = dl_tensor_matmul (gu, ut, error));
  if (m != n)
    {
      g_autoptr (DlTensor) t = NULL;
      g_autoptr (DlTensor) rest_t = NULL;

      TRY (part2
           = dl_tensor_narrow (lu, m < n ? -1 : -2, MIN (m, n), MAX (m, n) - MIN (m, n), error));
      TRY (g2
           = dl_tensor_narrow (go[0], m < n ? -1 : -2, MIN (m, n), MAX (m, n) - MIN (m, n), error));
      TRY (rest_t = dl_lapack_mT (part2, error));
      if (m < n)
        {
          /* tril (L^T gL - gU2 U2^T, -1) */
          TRY (t = minus_product (lower, g2, rest_t, error));
          g_clear_object (&lower);
          lower = g_steal_pointer (&t);
        }
      else
        {
          /* triu (gU U^T - L2^T gL2) */
          TRY (t = minus_product (upper, rest_t, g2, error));
          g_clear_object (&upper);
          upper = g_steal_pointer (&t);
        }
    }
  TRY (inner = tril_plus_triu (lower, upper, error));
  /* inner U^-T: solve X U^T = inner */
  TRY (x = dl_tensor_linalg_solve_triangular (ut, inner, FALSE, FALSE, FALSE, error));
  if (m < n)
    {
      /* L^-T [X gU2] */
      g_autoptr (DlTensor) both = NULL;
      DlTensor *cols[2] = { x, g2 };

      TRY (both = dl_cat (cols, 2, -1, error));
      TRY (y = dl_tensor_linalg_solve_triangular (lt, both, TRUE, TRUE, TRUE, error));
    }
  else
    {
      g_autoptr (DlTensor) top = NULL;

      TRY (top = dl_tensor_linalg_solve_triangular (lt, x, TRUE, TRUE, TRUE, error));
      if (m == n)
        y = g_steal_pointer (&top);
      else
        {
          /* [L1^-T X; gL2 U^-T] */
          g_autoptr (DlTensor) bottom = NULL;
          DlTensor *rows[2] = { top, NULL };

          TRY (bottom = dl_tensor_linalg_solve_triangular (ut, g2, FALSE, FALSE, FALSE, error));
          rows[1] = bottom;
          TRY (y = dl_cat (rows, 2, -2, error));
        }
    }
  TRY (gi[0] = dl_tensor_matmul (perm, y, error));
  return TRUE;
}

/**
 * dl_tensor_linalg_lu_factor:
 * @self: float32 or float64 matrices, shape `(*, m, n)`
 * @lu: (out) (transfer full) (optional): L (below the diagonal, its unit
 *   diagonal not stored) and U (on and above it) packed in one tensor
 *   of @self's shape
 * @pivots: (out) (transfer full) (optional): the row swaps, int32, shape
 *   `(*, min (m, n))`: row i was swapped with row pivots[i] (1-based, as
 *   LAPACK and torch give them)
 * @error: return location for a #GError
 *
 * The LU factorization with partial pivoting A = P L U, as
 * torch.linalg.lu_factor (LAPACK's getrf). A singular matrix is factored
 * too (U then has a zero on its diagonal), as in torch. Differentiable,
 * square or not.
 *
 * Returns: %TRUE, or %FALSE with @error set (%DL_ERROR_SHAPE,
 *   %DL_ERROR_DTYPE)
 *
 * Since: 0.1
 */
gboolean
dl_tensor_linalg_lu_factor (DlTensor *self, DlTensor **lu, DlTensor **pivots, GError **error)
{
  const gchar *op = "linalg.lu_factor";
  g_autoptr (DlTensor) ac = NULL;
  g_autoptr (DlTensor) out = NULL;
  g_autoptr (DlTensor) piv = NULL;
  g_autofree gint32 *info = NULL;
  DlLapackArgs g = { 0 };
  gint64 m, n, k;

  g_return_val_if_fail (DL_IS_TENSOR (self), FALSE);
  if (!dl_lapack_check_kernel_matrix (op, "A", self, FALSE, error)
      || !(ac = dl_lapack_colmajor_copy (self, error)))
    return FALSE;
  m = self->sizes[self->ndim - 2];
  n = self->sizes[self->ndim - 1];
  k = MIN (m, n);
  {
    gint64 shape[DL_MAX_DIMS];

    for (gint i = 0; i < self->ndim - 2; i++)
      shape[i] = self->sizes[i];
    shape[self->ndim - 2] = k;
    if (!(piv = dl_tensor_new_empty_internal (dl_tensor_device (self), DL_DTYPE_INT32, shape,
                                              self->ndim - 1, error)))
      return FALSE;
  }
  dl_lapack_args_init (&g, self, ac, &info);
  g.ipiv = (gint32 *)dl_tensor_data (piv);
  if (k > 0 && !dl_lapack_run (self, op, DL_LAPACK_GETRF, &g, error))
    return FALSE;
  if (!(out = dl_lapack_rowmajor (ac, error)))
    return FALSE;
  if (dl_autograd_any_requires (1, &self))
    {
      g_autoptr (DlNode) node = NULL;
      g_autoptr (DlTensor) perm = NULL;
      LuState *s;

      gint64 pshape[DL_MAX_DIMS];

      /* P (m by m), from the swaps: applied in order to the rows, they
       * give P^T A */
      memcpy (pshape, self->sizes, self->ndim * sizeof (gint64));
      pshape[self->ndim - 1] = m;
      if (!(perm = dl_zeros (pshape, self->ndim, self->dtype, dl_tensor_device (self), error)))
        return FALSE;
      {
        g_autofree gint64 *rows = g_new (gint64, MAX (m, 1));
        const gint32 *p = (const gint32 *)dl_tensor_data (piv);

        for (gint64 b = 0; b < g.n_batch; b++)
          {
            for (gint64 i = 0; i < m; i++)
              rows[i] = i;
            for (gint64 i = 0; i < k; i++)
              {
                gint64 j = p[b * k + i] - 1, t = rows[i];

                rows[i] = rows[j];
                rows[j] = t;
              }
            /* (P^T A)[i] = A[rows[i]]: P[rows[i], i] = 1 */
            for (gint64 i = 0; i < m; i++)
              dl_lapack_set_el (self->dtype, dl_tensor_data (perm), b * m * m + rows[i] * m + i, 1);
          }
      }
      node = dl_node_new_for_op ("LinalgLuFactorExBackward0", lu_backward, 1, &self);
      s = DL_NODE_NEW_STATE (node, LuState);
      dl_node_set_output (node, out, 0);
      dl_node_save (node, &s->lu, out, TRUE);
      dl_node_save (node, &s->perm, perm, FALSE);
    }
  if (lu)
    *lu = g_steal_pointer (&out);
  if (pivots)
    *pivots = g_steal_pointer (&piv);
  return TRUE;
}
