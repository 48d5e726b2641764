/* dl-ops-lapack.c: torch.linalg's factorizations and solves (inv, det,
 * slogdet, solve, cholesky, qr, svd, eigh, solve_triangular) over the
 * backend's lapack slot, with their gradients (PyTorch's formulas, from
 * its derivatives.yaml and FunctionsManual.cpp), written with tensor ops.
 *
 * A matrix reaches the kernel as a column-major contiguous copy (the
 * transpose of the row-major one, copied), the batch flattened.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>

#include "dl-ops-private.h"
#include "dl-ops-lapack.h"

/* torch's name of a dtype in its linalg messages */
static const gchar *
torch_type_name (DlDType dtype)
{
  switch (dtype)
    {
      case DL_DTYPE_INT64:
        return "Long";
      case DL_DTYPE_INT32:
        return "Int";
      case DL_DTYPE_UINT8:
        return "Byte";
      case DL_DTYPE_BOOL:
        return "Bool";
      case DL_DTYPE_FLOAT16:
        return "Half";
      case DL_DTYPE_BFLOAT16:
        return "BFloat16";
      default:
        return dl_dtype_get_name (dtype);
    }
}

/* FALSE with torch's error unless @t is a float32/float64 batch of
 * matrices (@square: of square ones). */
static gboolean
check_matrix (const gchar *op, const gchar *what, DlTensor *t, gboolean square, GError **error)
{
  gint nd = t->ndim;

  if (!dl_check_live (op, t, error))
    return FALSE;
  if (t->dtype != DL_DTYPE_FLOAT32 && t->dtype != DL_DTYPE_FLOAT64)
    {
      if (dl_dtype_is_floating_point (t->dtype))
        g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                     "%s: Low precision dtypes not supported. Got %s", op,
                     torch_type_name (t->dtype));
      else
        g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                     "%s: Expected a floating point or complex tensor as input. Got %s", op,
                     torch_type_name (t->dtype));
      return FALSE;
    }
  if (nd < 2)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "%s: The input tensor %s must have at least 2 dimensions.", op, what);
      return FALSE;
    }
  if (square && t->sizes[nd - 1] != t->sizes[nd - 2])
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "%s: %s must be batches of square matrices, but they are %" G_GINT64_FORMAT
                   " by %" G_GINT64_FORMAT " matrices",
                   op, what, t->sizes[nd - 2], t->sizes[nd - 1]);
      return FALSE;
    }
  return TRUE;
}

/* check_matrix (), and a device whose backend runs the lapack slot on
 * host memory (the CPU): the ops that read or write values on the host
 * around the kernel are refused elsewhere (meta, CUDA) before they do */
static gboolean
check_lapack_matrix (const gchar *op,
                     const gchar *what,
                     DlTensor *t,
                     gboolean square,
                     GError **error)
{
  DlBackendContext *ctx;

  if (!check_matrix (op, what, t, square, error)
      || !(ctx = DL_TENSOR_BACKEND (t, lapack, op, error)))
    return FALSE;
  if (!ctx->backend->host_memory)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED, "%s: not supported on %s", op,
                   ctx->backend->name);
      return FALSE;
    }
  return TRUE;
}

static gint64
batch_count (DlTensor *t, gint n_matrix_dims)
{
  gint64 n = 1;

  for (gint i = 0; i < t->ndim - n_matrix_dims; i++)
    n *= t->sizes[i];
  return n;
}

static DlTensor *
mT (DlTensor *t, GError **error)
{
  return dl_tensor_transpose (t, -2, -1, error);
}

/* A fresh column-major copy of the matrices of @t, no autograd: a
 * contiguous tensor of shape (..., cols, rows) the kernel may overwrite. */
static DlTensor *
colmajor_copy (DlTensor *t, GError **error)
{
  g_autoptr (DlTensor) d = dl_tensor_detach (t);
  g_autoptr (DlTensor) v = mT (d, error);

  return v ? dl_tensor_clone_format (v, DL_MEMORY_FORMAT_CONTIGUOUS, error) : NULL;
}

/* A contiguous row-major tensor of the column-major @buf (..., cols, rows) */
static DlTensor *
rowmajor (DlTensor *buf, GError **error)
{
  g_autoptr (DlTensor) v = mT (buf, error);

  return v ? dl_contiguous_nograd (v, error) : NULL;
}

/* A new tensor like @like's batch dims (its first ndim - @drop dims)
 * followed by @n_tail more. */
static DlTensor *
new_batched (DlTensor *like, gint drop, const gint64 *tail, gint n_tail, GError **error)
{
  gint64 shape[DL_MAX_DIMS];
  gint nb = like->ndim - drop;

  for (gint i = 0; i < nb; i++)
    shape[i] = like->sizes[i];
  for (gint i = 0; i < n_tail; i++)
    shape[nb + i] = tail[i];
  return dl_tensor_new_empty_internal (dl_tensor_device (like), like->dtype, shape, nb + n_tail,
                                       error);
}

/* torch's prefix for the error of one matrix of a batch */
static gchar *
batch_prefix (DlTensor *t, gint64 bi)
{
  return t->ndim > 2 ? g_strdup_printf ("(Batch element %" G_GINT64_FORMAT "): ", bi)
                     : g_strdup ("");
}

static gdouble
get_el (DlDType dtype, const void *p, gint64 i)
{
  return dtype == DL_DTYPE_FLOAT32 ? ((const float *)p)[i] : ((const double *)p)[i];
}

static void
set_el (DlDType dtype, void *p, gint64 i, gdouble v)
{
  if (dtype == DL_DTYPE_FLOAT32)
    ((float *)p)[i] = (float)v;
  else
    ((double *)p)[i] = v;
}

static gboolean
run_lapack (DlTensor *like, const gchar *op, DlLapackOp kind, DlLapackArgs *args, GError **error)
{
  DlBackendContext *ctx;

  /* on a host-memory backend: check_lapack_matrix () said so */
  if (!(ctx = DL_TENSOR_BACKEND (like, lapack, op, error)))
    return FALSE;
  ctx->backend->lapack (ctx, kind, args, like->dtype);
  return TRUE;
}

/* @g for the matrices of @a, whose column-major copy the kernel works
 * on is @ac: their count and size, and an info array, *@info */
static void
lapack_args_init (DlLapackArgs *g, DlTensor *a, DlTensor *ac, gint32 **info)
{
  g->n_batch = batch_count (a, 2);
  g->m = a->sizes[a->ndim - 2];
  g->n = a->sizes[a->ndim - 1];
  g->a = dl_tensor_data (ac);
  g->info = *info = g_new0 (gint32, MAX (g->n_batch, 1));
}

/* FALSE, with torch's LinAlgError message (DL_ERROR_ARGUMENT), when a
 * matrix of @a's batch failed (its info > 0): "@op: (Batch element i):
 * @before<info>@after", the info itself left out unless @with_info */
static gboolean
check_info (const gchar *op,
            DlTensor *a,
            const gint32 *info,
            gint64 n,
            const gchar *before,
            gboolean with_info,
            const gchar *after,
            GError **error)
{
  for (gint64 i = 0; i < n; i++)
    if (info[i] > 0)
      {
        g_autofree gchar *pre = batch_prefix (a, i);
        g_autofree gchar *num = with_info ? g_strdup_printf ("%d", info[i]) : g_strdup ("");

        g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "%s: %s%s%s%s", op, pre, before, num,
                     after);
        return FALSE;
      }
  return TRUE;
}

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
  if (!(ac = colmajor_copy (a, error)) || !(bc = colmajor_copy (b, error)))
    return NULL;
  lapack_args_init (&g, a, ac, &info);
  g.nrhs = b->sizes[nd - 1];
  g.b = dl_tensor_data (bc);
  if (!run_lapack (a, op, DL_LAPACK_GESV, &g, error))
    return NULL;
  if (what == NULL) /* torch's solve says less than its inv */
    {
      g_autofree gchar *name = g_strconcat ("torch.", op, NULL);

      if (!check_info (name, a, info, g.n_batch,
                       "The solver failed because the input matrix is singular.", FALSE, "", error))
        return NULL;
    }
  else if (!check_info (op, a, info, g.n_batch, "The diagonal element ", TRUE, what_after, error))
    return NULL;
  return rowmajor (bc, error);
}

static DlTensor *
identity_like (DlTensor *a, GError **error)
{
  gint64 n = a->sizes[a->ndim - 1];
  g_autoptr (DlTensor) eye = dl_eye (n, n, a->dtype, dl_tensor_device (a), error);

  return eye ? dl_tensor_expand (eye, a->sizes, a->ndim, error) : NULL;
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
  TRY (it = mT (inv, error));
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

  if (!check_lapack_matrix (op, "A", self, TRUE, error) || !(eye = identity_like (self, error))
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
  TRY (at = mT (a, error));
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
      TRY (xt = mT (x, error));
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
      || !check_lapack_matrix (op, "A", self, TRUE, error))
    return NULL;
  if (other->dtype != self->dtype)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                   "%s: Expected A and B to have the same dtype, but found A of type %s and B of "
                   "type %s instead",
                   op, torch_type_name (self->dtype), torch_type_name (other->dtype));
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

  if (!(ac = colmajor_copy (a, error)) || !(sg = new_batched (a, 2, NULL, 0, error))
      || !(la = new_batched (a, 2, NULL, 0, error)) || !(dt = new_batched (a, 2, NULL, 0, error)))
    return FALSE;
  lapack_args_init (&g, a, ac, &info);
  g.ipiv = ipiv = g_new0 (gint32, MAX (g.n_batch * n, 1));
  if (!run_lapack (a, op, DL_LAPACK_GETRF, &g, error))
    return FALSE;
  lu = dl_tensor_data (ac);
  for (gint64 bi = 0; bi < g.n_batch; bi++)
    {
      gdouble s = 1, l = 0, d = 1;
      gboolean zero = FALSE;

      for (gint64 i = 0; i < n; i++)
        {
          gdouble u = get_el (dtype, lu, bi * n * n + i * n + i);

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
      set_el (dtype, dl_tensor_data (sg), bi, s);
      set_el (dtype, dl_tensor_data (la), bi, s == 0 ? -INFINITY : l);
      set_el (dtype, dl_tensor_data (dt), bi, d);
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
  TRY (it = mT (inv, error));
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
  nb = batch_count (sv, 1);
  dtype = sv->dtype;
  {
    g_autoptr (DlTensor) svc = dl_contiguous_nograd (sv, error);
    g_autoptr (DlTensor) suc = svc ? dl_contiguous_nograd (su, error) : NULL;
    g_autoptr (DlTensor) svvc = suc ? dl_contiguous_nograd (sv2, error) : NULL;

    TRY (svvc);
    for (gint64 bi = 0; bi < nb; bi++)
      for (gint64 i = 0; i < n; i++)
        {
          gdouble p = get_el (dtype, dl_tensor_data (suc), bi)
                      * get_el (dtype, dl_tensor_data (svvc), bi);

          for (gint64 j = 0; j < n; j++)
            if (j != i)
              p *= get_el (dtype, dl_tensor_data (svc), bi * n + j);
          set_el (dtype, dl_tensor_data (c), bi * n + i, p);
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
  if (!check_lapack_matrix ("linalg.slogdet", "A", self, TRUE, error)
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
  if (!check_lapack_matrix ("linalg.det", "A", self, TRUE, error)
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
  TRY (at = mT (a, error));
  TRY (gb = dl_tensor_linalg_solve_triangular (at, go[0], !s->upper, s->left, s->unit, error));
  if (dl_node_needs_input_grad (node, 0))
    {
      g_autoptr (DlTensor) xt = NULL;
      g_autoptr (DlTensor) p = NULL;
      g_autoptr (DlTensor) n = NULL;
      g_autoptr (DlTensor) tr = NULL;

      TRY (x = dl_node_saved (node, &s->x, error));
      TRY (xt = mT (x, error));
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
      || !check_lapack_matrix (op, "A", self, TRUE, error)
      || !check_lapack_matrix (op, "B", other, FALSE, error))
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
  if (!(ac = colmajor_copy (ae, error)))
    return NULL;
  if (left)
    bc = colmajor_copy (be, error);
  else
    {
      g_autoptr (DlTensor) d = dl_tensor_detach (be);

      bc = dl_tensor_clone_format (d, DL_MEMORY_FORMAT_CONTIGUOUS, error);
    }
  if (!bc)
    return NULL;
  lapack_args_init (&g, ae, ac, &info);
  g.nrhs = left ? be->sizes[nb + 1] : be->sizes[nb];
  g.b = dl_tensor_data (bc);
  g.upper = upper;
  g.trans = !left;
  g.unit_diagonal = unitriangular;
  if (!run_lapack (self, op, DL_LAPACK_TRTRS, &g, error))
    return NULL;
  if (!(out = left ? rowmajor (bc, error) : g_object_ref (bc)))
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
  TRY (l = s->upper ? mT (saved, error) : g_object_ref (saved));
  TRY (gl = s->upper ? mT (go[0], error) : g_object_ref (go[0]));
  TRY (lt = mT (l, error));
  TRY (p = dl_tensor_matmul (lt, gl, error));
  TRY (t = dl_tensor_tril (p, 0, error));
  TRY (t1 = dl_tensor_tril (t, -1, error));
  TRY (t1t = mT (t1, error));
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
  if (!check_lapack_matrix (op, "A", self, TRUE, error) || !(ac = colmajor_copy (self, error)))
    return NULL;
  lapack_args_init (&g, self, ac, &info);
  /* L column-major from A's lower triangle: read row-major, that is L^T */
  g.upper = FALSE;
  if (!run_lapack (self, op, DL_LAPACK_POTRF, &g, error))
    return NULL;
  if (!check_info (op, self, info, g.n_batch,
                   "The factorization could not be completed because the input is not "
                   "positive-definite (the leading minor of order ",
                   TRUE, " is not positive-definite).", error))
    return NULL;
  if (!(out = upper ? g_object_ref (ac) : rowmajor (ac, error)))
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

  if (!d || !(eye = identity_like (d, error)))
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
  TRY (vt = mT (v, error));
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
      TRY (vgt = mT (vg, error));
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
  if (!check_lapack_matrix (op, "A", self, TRUE, error) || !(ac = colmajor_copy (self, error)))
    return FALSE;
  n = self->sizes[self->ndim - 1];
  grad = dl_autograd_any_requires (1, &self);
  if (!(w = new_batched (self, 2, &n, 1, error)))
    return FALSE;
  lapack_args_init (&g, self, ac, &info);
  g.w = dl_tensor_data (w);
  /* A's upper triangle is the column-major copy's upper one */
  g.upper = upper;
  g.compute_uv = compute_v || grad;
  if (!run_lapack (self, op, DL_LAPACK_SYEVD, &g, error))
    return FALSE;
  if (!check_info (op, self, info, g.n_batch,
                   "The algorithm failed to converge because the input matrix is "
                   "ill-conditioned or has too many repeated eigenvalues (error code: ",
                   TRUE, ").", error))
    return FALSE;
  if (g.compute_uv && !(v = rowmajor (ac, error)))
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
        g_autoptr (DlTensor) ut = mT (u, error);
        g_autoptr (DlTensor) x = ut ? dl_tensor_matmul (ut, gu, error) : NULL;
        g_autoptr (DlTensor) xt = x ? mT (x, error) : NULL;
        g_autoptr (DlTensor) sk = xt ? dl_tensor_sub (x, xt, error) : NULL;

        TRY (sk);
        TRY (uhgu = dl_tensor_mul (sk, srow, error));
      }
    if (gvh)
      {
        /* V^T gV = Vh gVh^T */
        g_autoptr (DlTensor) gv = mT (gvh, error);
        g_autoptr (DlTensor) x = gv ? dl_tensor_matmul (vh, gv, error) : NULL;
        g_autoptr (DlTensor) xt = x ? mT (x, error) : NULL;
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
      g_autoptr (DlTensor) ut = gus ? mT (u, error) : NULL;
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
      g_autoptr (DlTensor) v = sg ? mT (vh, error) : NULL;
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
  if (!check_lapack_matrix (op, "A", self, FALSE, error) || !(ac = colmajor_copy (self, error)))
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
  if (!(sv = new_batched (self, 2, &k, 1, error))
      || ((compute_uv || grad)
          && (!(ub = new_batched (self, 2, ushape, 2, error))
              || !(vb = new_batched (self, 2, vshape, 2, error)))))
    return FALSE;
  lapack_args_init (&g, self, ac, &info);
  g.s = dl_tensor_data (sv);
  g.u = ub ? dl_tensor_data (ub) : NULL;
  g.vt = vb ? dl_tensor_data (vb) : NULL;
  g.full = full;
  g.compute_uv = compute_uv || grad;
  /* LAPACK's gesdd may not return on NaN or infinity: refused first, as
   * torch does */
  for (gint64 i = 0; i < g.n_batch * m * n; i++)
    if (!isfinite (get_el (self->dtype, g.a, i)))
      {
        g_set_error_literal (error, DL_ERROR, DL_ERROR_ARGUMENT,
                             "linalg.svd: The algorithm failed to converge because the input "
                             "matrix contained non-finite values.");
        return FALSE;
      }
  if (k > 0 && !run_lapack (self, op, DL_LAPACK_GESDD, &g, error))
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
                set_el (self->dtype, dl_tensor_data (ub), b * m * m + i * m + i, 1);
              for (gint64 i = 0; i < n; i++)
                set_el (self->dtype, dl_tensor_data (vb), b * n * n + i * n + i, 1);
            }
        }
    }
  if (!check_info (op, self, info, g.n_batch,
                   "The algorithm failed to converge because the input matrix is "
                   "ill-conditioned or has too many repeated singular values (error code: ",
                   TRUE, ").", error))
    return FALSE;
  if (ub && (!(uo = rowmajor (ub, error)) || !(vo = rowmajor (vb, error))))
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
      g_autoptr (DlTensor) rt = mT (r, error);

      if (!rt || !(m = dl_tensor_matmul (gr, rt, error)))
        return NULL;
    }
  if (gq)
    {
      g_autoptr (DlTensor) qt = mT (q, error);
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
  if (!(tu = dl_tensor_triu (m, 0, error)) || !(tut = mT (tu, error))
      || !(sym = dl_tensor_add (tu, tut, error)) || !(d = dl_tensor_diagonal (tu, 0, -2, -1, error))
      || !(dd = dl_tensor_mul_scalar (d, -1.0, error)) || !(sy = add_diag (sym, dd, k, error))
      || !(qs = dl_tensor_matmul (q, sy, error)))
    return NULL;
  if (!(lhs = gq ? dl_tensor_add (qs, gq, error) : g_object_ref (qs)))
    return NULL;
  /* X R^-T: solve X R^T = lhs, R^T lower triangular */
  {
    g_autoptr (DlTensor) rt = mT (r, error);

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
        g_autoptr (DlTensor) gvt = mT (gv, error);
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
  if (!check_lapack_matrix (op, "A", self, FALSE, error) || !(ac = colmajor_copy (self, error)))
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
  if (!(rb = new_batched (self, 2, rshape, 2, error))
      || (want_q && !(qb = new_batched (self, 2, qshape, 2, error))))
    return FALSE;
  lapack_args_init (&g, self, ac, &info);
  g.q = qb ? dl_tensor_data (qb) : NULL;
  g.r = dl_tensor_data (rb);
  g.full = full;
  g.compute_q = want_q;
  if (m > 0 && n > 0 && !run_lapack (self, op, DL_LAPACK_GEQRF, &g, error))
    return FALSE;
  if (m == 0 || n == 0)
    {
      /* nothing to factor: R is zeros, Q the identity's columns */
      if (!dl_tensor_zero_ (rb, error) || (qb && !dl_tensor_zero_ (qb, error)))
        return FALSE;
      for (gint64 b = 0; qb && b < g.n_batch; b++)
        for (gint64 i = 0; i < MIN (qshape[0], m); i++)
          set_el (self->dtype, dl_tensor_data (qb), b * qshape[0] * m + i * m + i, 1);
    }
  if (!(ro = rowmajor (rb, error)))
    return FALSE;
  if (qb)
    qo = rowmajor (qb, error);
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

/* ---- lu ------------------------------------------------------------- */

typedef struct
{
  DlSavedTensor lu, perm;
} LuState;

/* A = P L U, square: gA = P L^-T (tril (L^T gL, -1) + triu (gU U^T))
 * U^-T, gL and gU the strictly lower and upper parts of the gradient
 * of the packed LU (torch's linalg_lu_backward) */
static gboolean
lu_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  LuState *s = dl_node_state (node);
  g_autoptr (DlTensor) eye = NULL;
  g_autoptr (DlTensor) l0 = NULL;
  g_autoptr (DlTensor) l = NULL;
  g_autoptr (DlTensor) u = NULL;
  g_autoptr (DlTensor) gl = NULL;
  g_autoptr (DlTensor) gu = NULL;
  g_autoptr (DlTensor) lt = NULL;
  g_autoptr (DlTensor) ut = NULL;
  g_autoptr (DlTensor) p1 = NULL;
  g_autoptr (DlTensor) p2 = NULL;
  g_autoptr (DlTensor) t1 = NULL;
  g_autoptr (DlTensor) t2 = NULL;
  g_autoptr (DlTensor) sum = NULL;
  g_autoptr (DlTensor) x = NULL;
  g_autoptr (DlTensor) y = NULL;
  DlTensor *lu, *perm;

  TRY (lu = dl_node_saved (node, &s->lu, error));
  TRY (perm = dl_node_saved (node, &s->perm, error));
  TRY (eye = identity_like (lu, error));
  TRY (l0 = dl_tensor_tril (lu, -1, error));
  TRY (l = dl_tensor_add (l0, eye, error));
  TRY (u = dl_tensor_triu (lu, 0, error));
  TRY (gl = dl_tensor_tril (go[0], -1, error));
  TRY (gu = dl_tensor_triu (go[0], 0, error));
  TRY (lt = mT (l, error));
  TRY (ut = mT (u, error));
  TRY (p1 = dl_tensor_matmul (lt, gl, error));
  TRY (t1 = dl_tensor_tril (p1, -1, error));
  TRY (p2 = dl_tensor_matmul (gu, ut, error));
  TRY (t2 = dl_tensor_triu (p2, 0, error));
  TRY (sum = dl_tensor_add (t1, t2, error));
  TRY (x = dl_tensor_linalg_solve_triangular (ut, sum, FALSE, FALSE, FALSE, error));
  TRY (y = dl_tensor_linalg_solve_triangular (lt, x, TRUE, TRUE, TRUE, error));
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
 * too (U then has a zero on its diagonal), as in torch. Differentiable
 * for square matrices.
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
  if (!check_lapack_matrix (op, "A", self, FALSE, error) || !(ac = colmajor_copy (self, error)))
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
  lapack_args_init (&g, self, ac, &info);
  g.ipiv = (gint32 *)dl_tensor_data (piv);
  if (k > 0 && !run_lapack (self, op, DL_LAPACK_GETRF, &g, error))
    return FALSE;
  if (!(out = rowmajor (ac, error)))
    return FALSE;
  if (dl_autograd_any_requires (1, &self))
    {
      g_autoptr (DlNode) node = NULL;
      g_autoptr (DlTensor) perm = NULL;
      LuState *s;

      if (m != n)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED,
                       "%s: the gradient of the LU factorization of a %" G_GINT64_FORMAT
                       " by %" G_GINT64_FORMAT " matrix is not implemented (square only)",
                       op, m, n);
          return FALSE;
        }
      /* P, from the swaps: applied in order to the rows, they give P^T A */
      if (!(perm = dl_zeros (self->sizes, self->ndim, self->dtype, dl_tensor_device (self), error)))
        return FALSE;
      {
        g_autofree gint64 *rows = g_new (gint64, MAX (n, 1));
        const gint32 *p = (const gint32 *)dl_tensor_data (piv);

        for (gint64 b = 0; b < g.n_batch; b++)
          {
            for (gint64 i = 0; i < n; i++)
              rows[i] = i;
            for (gint64 i = 0; i < k; i++)
              {
                gint64 j = p[b * k + i] - 1, t = rows[i];

                rows[i] = rows[j];
                rows[j] = t;
              }
            /* (P^T A)[i] = A[rows[i]]: P[rows[i], i] = 1 */
            for (gint64 i = 0; i < n; i++)
              set_el (self->dtype, dl_tensor_data (perm), b * n * n + rows[i] * n + i, 1);
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

/* ---- vector_norm ---------------------------------------------------- */

typedef struct
{
  DlSavedTensor x, norm;
  gdouble ord;
  gint64 kept[DL_MAX_DIMS]; /* the norm's shape with the reduced dims kept */
  gint ndim;
  gint64 dims[DL_MAX_DIMS];
  gsize n_dims;
} VectorNormState;

/* (@t @op 0) as @like's dtype: a 0/1 mask */
static DlTensor *
zero_mask (DlTensor *t, gboolean equal, GError **error)
{
  g_autoptr (DlTensor) m
      = equal ? dl_tensor_eq_scalar (t, 0, error) : dl_tensor_ne_scalar (t, 0, error);

  return m ? dl_tensor_to_dtype (m, t->dtype, error) : NULL;
}

/* torch's linalg_vector_norm_backward: g times
 *   ord 0: none;  1: sgn x;  2: x / n;  +-inf: sgn x [|x| = n] / #{|x| = n};
 *   ord < 1: sgn x |x|^(ord-1) n^(1-ord) (0 where x = 0);
 *   else: sgn x |x|^(ord-1) / n^(ord-1) (0 where n = 0) */
static gboolean
vector_norm_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  VectorNormState *s = dl_node_state (node);
  g_autoptr (DlTensor) g = NULL;
  g_autoptr (DlTensor) n = NULL;
  g_autoptr (DlTensor) sg = NULL;
  g_autoptr (DlTensor) ax = NULL;
  DlTensor *x, *ns;
  gdouble p = s->ord;

  TRY (x = dl_node_saved (node, &s->x, error));
  TRY (ns = dl_node_saved (node, &s->norm, error));
  TRY (g = dl_tensor_reshape (go[0], s->kept, s->ndim, error));
  TRY (n = dl_tensor_reshape (ns, s->kept, s->ndim, error));
  if (p == 0) /* no gradient, as torch's (the leaf's grad stays None) */
    return TRUE;
  TRY (sg = dl_tensor_sign (x, error));
  TRY (ax = dl_tensor_abs (x, error));
  if (p == 1)
    TRY (gi[0] = dl_tensor_mul (sg, g, error));
  else if (isinf (p))
    {
      g_autoptr (DlTensor) eq = dl_tensor_eq (ax, n, error);
      g_autoptr (DlTensor) mask = eq ? dl_tensor_to_dtype (eq, x->dtype, error) : NULL;
      g_autoptr (DlTensor) count
          = mask ? dl_tensor_sum_dims (mask, s->dims, s->n_dims, TRUE, error) : NULL;
      g_autoptr (DlTensor) share = count ? dl_tensor_div (g, count, error) : NULL;
      g_autoptr (DlTensor) sm = share ? dl_tensor_mul (share, mask, error) : NULL;

      TRY (sm);
      TRY (gi[0] = dl_tensor_mul (sg, sm, error));
    }
  else
    {
      /* |x|^(ord-1) with x = 0 kept finite, and n likewise */
      g_autoptr (DlTensor) xz = zero_mask (x, TRUE, error);
      g_autoptr (DlTensor) axs = xz ? dl_tensor_add (ax, xz, error) : NULL;
      g_autoptr (DlTensor) pw = axs ? dl_tensor_pow_scalar (axs, p - 1, error) : NULL;
      g_autoptr (DlTensor) xnz = pw ? zero_mask (x, FALSE, error) : NULL;
      g_autoptr (DlTensor) pw0 = xnz ? dl_tensor_mul (pw, xnz, error) : NULL;
      g_autoptr (DlTensor) scaled = pw0 ? dl_tensor_mul (sg, pw0, error) : NULL;
      g_autoptr (DlTensor) scale0 = NULL;

      TRY (scaled);
      if (p < 1)
        {
          /* times g n^(1-ord), which is 0 at a zero norm */
          g_autoptr (DlTensor) npw = dl_tensor_pow_scalar (n, 1 - p, error);

          TRY (npw);
          TRY (scale0 = dl_tensor_mul (g, npw, error));
        }
      else
        {
          /* times g / n^(ord-1), 0 at a zero norm */
          g_autoptr (DlTensor) nz = zero_mask (n, TRUE, error);
          g_autoptr (DlTensor) nsafe = nz ? dl_tensor_add (n, nz, error) : NULL;
          g_autoptr (DlTensor) npw = nsafe ? dl_tensor_pow_scalar (nsafe, p - 1, error) : NULL;
          g_autoptr (DlTensor) scale = npw ? dl_tensor_div (g, npw, error) : NULL;
          g_autoptr (DlTensor) nnz = scale ? zero_mask (n, FALSE, error) : NULL;

          TRY (nnz);
          TRY (scale0 = dl_tensor_mul (scale, nnz, error));
        }
      TRY (gi[0] = dl_tensor_mul (scaled, scale0, error));
    }
  return TRUE;
}

/**
 * dl_tensor_linalg_vector_norm:
 * @self: a floating-point tensor
 * @ord: the order: any real number, infinity and minus infinity included
 *   (0 counts the nonzero elements)
 * @dims: (array length=n_dims) (nullable): the dims to reduce; none for all
 * @n_dims: the number of dims in @dims
 * @keepdim: whether to keep the reduced dims with size 1
 * @error: return location for a #GError
 *
 * The vector @ord-norm over @dims, as torch.linalg.vector_norm, with its
 * gradient (one LinalgVectorNormBackward0 node for every order, 0 at a
 * zero norm as torch's).
 *
 * Returns: (transfer full): the norms, or %NULL with @error set
 *   (%DL_ERROR_DTYPE, %DL_ERROR_INDEX)
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_linalg_vector_norm (DlTensor *self,
                              gdouble ord,
                              const gint64 *dims,
                              gsize n_dims,
                              gboolean keepdim,
                              GError **error)
{
  gboolean was;
  DlTensor *out;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_dtype_is_floating_point (self->dtype))
    {
      g_set_error (
          error, DL_ERROR, DL_ERROR_DTYPE,
          "linalg.vector_norm: Expected a floating point or complex tensor as input. Got %s",
          torch_type_name (self->dtype));
      return NULL;
    }
  was = dl_set_grad_enabled (FALSE);
  out = dl_tensor_norm (self, ord, dims, n_dims, keepdim, error);
  dl_set_grad_enabled (was);
  if (out && dl_autograd_any_requires (1, &self))
    {
      g_autoptr (DlNode) node
          = dl_node_new_for_op ("LinalgVectorNormBackward0", vector_norm_backward, 1, &self);
      VectorNormState *s = DL_NODE_NEW_STATE (node, VectorNormState);
      gboolean reduced[DL_MAX_DIMS] = { FALSE };

      if (self->ndim == 0) /* dim 0 or -1 of a 0-d tensor: all of it */
        n_dims = 0;
      s->ord = ord;
      s->ndim = self->ndim;
      s->n_dims = n_dims;
      for (gsize i = 0; i < n_dims; i++)
        {
          s->dims[i] = dims[i] < 0 ? dims[i] + self->ndim : dims[i];
          reduced[s->dims[i]] = TRUE;
        }
      for (gint i = 0; i < self->ndim; i++)
        s->kept[i] = n_dims == 0 || reduced[i] ? 1 : self->sizes[i];
      if (n_dims == 0)
        {
          s->n_dims = self->ndim;
          for (gint i = 0; i < self->ndim; i++)
            s->dims[i] = i;
        }
      dl_node_set_output (node, out, 0);
      dl_node_save (node, &s->x, self, FALSE);
      dl_node_save (node, &s->norm, out, TRUE);
    }
  return out;
}

/* ---- matrix_exp ----------------------------------------------------- */

typedef struct
{
  DlSavedTensor a;
} MatrixExpState;

/* exp (A) by scaling and squaring: X = A / 2^s with ||X||_1 <= 1/2 (one
 * s for the whole batch), the Taylor series of exp (X) to degree 18 by
 * Horner's rule (its remainder is below 2^-19 / 19!), then s squarings */
static DlTensor *
matrix_exp_raw (DlTensor *a, GError **error)
{
  g_autoptr (DlTensor) abs = NULL;
  g_autoptr (DlTensor) cols = NULL;
  g_autoptr (DlTensor) top = NULL;
  g_autoptr (DlTensor) x = NULL;
  g_autoptr (DlTensor) eye = NULL;
  g_autoptr (DlTensor) r = NULL;
  gdouble norm;
  gint s = 0;

  if (!(eye = identity_like (a, error)))
    return NULL;
  if (dl_tensor_numel (a) == 0)
    return dl_tensor_clone (a, error);
  if (!(abs = dl_tensor_abs (a, error))
      || !(cols = dl_tensor_sum_dims (abs, (gint64[]){ -2 }, 1, FALSE, error))
      || !(top = dl_tensor_amax (cols, NULL, 0, FALSE, error)))
    return NULL;
  norm = dl_tensor_item (top, error);
  if (isfinite (norm) && norm > 0.5) /* NaN and inf: no scaling, NaN out */
    s = (gint)ceil (log2 (norm)) + 1;
  if (!(x = dl_tensor_mul_scalar (a, ldexp (1.0, -s), error))
      || !(r = dl_tensor_div_scalar (x, 18.0, error)))
    return NULL;
  {
    DlTensor *t = dl_tensor_add (r, eye, error);

    g_clear_object (&r);
    if (!(r = t))
      return NULL;
  }
  for (gint k = 17; k >= 1; k--)
    {
      g_autoptr (DlTensor) p = dl_tensor_matmul (x, r, error);
      g_autoptr (DlTensor) q = p ? dl_tensor_div_scalar (p, k, error) : NULL;
      DlTensor *t = q ? dl_tensor_add (q, eye, error) : NULL;

      g_clear_object (&r);
      if (!(r = t))
        return NULL;
    }
  for (gint i = 0; i < s; i++)
    {
      DlTensor *t = dl_tensor_matmul (r, r, error);

      g_clear_object (&r);
      if (!(r = t))
        return NULL;
    }
  return g_steal_pointer (&r);
}

/* the adjoint of the differential of exp at A, applied to G: the top
 * right block of exp ([[A^T, G], [0, A^T]]) (torch's
 * linalg_matrix_exp_differential) */
static gboolean
matrix_exp_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  MatrixExpState *s = dl_node_state (node);
  g_autoptr (DlTensor) at = NULL;
  g_autoptr (DlTensor) zero = NULL;
  g_autoptr (DlTensor) row0 = NULL;
  g_autoptr (DlTensor) row1 = NULL;
  g_autoptr (DlTensor) m = NULL;
  g_autoptr (DlTensor) e = NULL;
  g_autoptr (DlTensor) top = NULL;
  DlTensor *a;
  gint64 n;

  TRY (a = dl_node_saved (node, &s->a, error));
  n = a->sizes[a->ndim - 1];
  TRY (at = mT (a, error));
  TRY (zero = dl_zeros (a->sizes, a->ndim, a->dtype, dl_tensor_device (a), error));
  TRY (row0 = dl_cat ((DlTensor *[]){ at, go[0] }, 2, -1, error));
  TRY (row1 = dl_cat ((DlTensor *[]){ zero, at }, 2, -1, error));
  TRY (m = dl_cat ((DlTensor *[]){ row0, row1 }, 2, -2, error));
  TRY (e = dl_tensor_linalg_matrix_exp (m, error));
  TRY (top = dl_tensor_narrow (e, e->ndim - 2, 0, n, error));
  TRY (gi[0] = dl_tensor_narrow (top, top->ndim - 1, n, n, error));
  return TRUE;
}

/**
 * dl_tensor_linalg_matrix_exp:
 * @self: float32 or float64 square matrices, shape `(*, n, n)`
 * @error: return location for a #GError
 *
 * The matrix exponential of each matrix, as torch.linalg.matrix_exp:
 * scaling and squaring with a degree-18 Taylor polynomial. Differentiable
 * (the gradient is itself a matrix exponential, so it has second
 * derivatives).
 *
 * Returns: (transfer full): the exponentials, or %NULL with @error set
 *   (%DL_ERROR_SHAPE, %DL_ERROR_DTYPE)
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_linalg_matrix_exp (DlTensor *self, GError **error)
{
  gboolean was;
  DlTensor *out;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!check_matrix ("linalg.matrix_exp", "A", self, TRUE, error))
    return NULL;
  was = dl_set_grad_enabled (FALSE);
  out = matrix_exp_raw (self, error);
  dl_set_grad_enabled (was);
  if (out && dl_autograd_any_requires (1, &self))
    {
      g_autoptr (DlNode) node
          = dl_node_new_for_op ("LinalgMatrixExpBackward0", matrix_exp_backward, 1, &self);

      dl_node_set_output (node, out, 0);
      dl_node_save (node, &DL_NODE_NEW_STATE (node, MatrixExpState)->a, self, FALSE);
    }
  return out;
}
