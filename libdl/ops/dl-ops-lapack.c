/* dl-ops-lapack.c: what torch.linalg's ops share. The ops themselves,
 * over the backend's lapack slot, with their gradients (PyTorch's
 * formulas, from its derivatives.yaml and FunctionsManual.cpp) written
 * with tensor ops, are in three files by family:
 *   dl-ops-lapack-solve.c: solve, inv, det, slogdet, solve_triangular,
 *     cholesky, lu_factor;
 *   dl-ops-lapack-decompose.c: eigh, svd, qr;
 *   dl-ops-lapack-norm.c: vector_norm, matrix_exp (no LAPACK call).
 *
 * A matrix reaches the kernel as a column-major contiguous copy (the
 * transpose of the row-major one, copied), the batch flattened.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>

#include "dl-ops-lapack-private.h"

/* torch's name of a dtype in its linalg messages */
const gchar *
dl_lapack_torch_type_name (DlDType dtype)
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
gboolean
dl_lapack_check_matrix (const gchar *op,
                        const gchar *what,
                        DlTensor *t,
                        gboolean square,
                        GError **error)
{
  gint nd = t->ndim;

  if (!dl_check_live (op, t, error))
    return FALSE;
  if (t->dtype != DL_DTYPE_FLOAT32 && t->dtype != DL_DTYPE_FLOAT64)
    {
      if (dl_dtype_is_floating_point (t->dtype))
        g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                     "%s: Low precision dtypes not supported. Got %s", op,
                     dl_lapack_torch_type_name (t->dtype));
      else
        g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                     "%s: Expected a floating point or complex tensor as input. Got %s", op,
                     dl_lapack_torch_type_name (t->dtype));
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

/* dl_lapack_check_matrix (), and a device whose backend runs the lapack slot on
 * host memory (the CPU): the ops that read or write values on the host
 * around the kernel are refused elsewhere (meta, CUDA) before they do */
gboolean
dl_lapack_check_kernel_matrix (const gchar *op,
                               const gchar *what,
                               DlTensor *t,
                               gboolean square,
                               GError **error)
{
  DlBackendContext *ctx;

  if (!dl_lapack_check_matrix (op, what, t, square, error)
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

gint64
dl_lapack_batch_count (DlTensor *t, gint n_matrix_dims)
{
  gint64 n = 1;

  for (gint i = 0; i < t->ndim - n_matrix_dims; i++)
    n *= t->sizes[i];
  return n;
}

DlTensor *
dl_lapack_mT (DlTensor *t, GError **error)
{
  return dl_tensor_transpose (t, -2, -1, error);
}

/* A fresh column-major copy of the matrices of @t, no autograd: a
 * contiguous tensor of shape (..., cols, rows) the kernel may overwrite. */
DlTensor *
dl_lapack_colmajor_copy (DlTensor *t, GError **error)
{
  g_autoptr (DlTensor) d = dl_tensor_detach (t);
  g_autoptr (DlTensor) v = dl_lapack_mT (d, error);

  return v ? dl_tensor_clone_format (v, DL_MEMORY_FORMAT_CONTIGUOUS, error) : NULL;
}

/* A contiguous row-major tensor of the column-major @buf (..., cols, rows) */
DlTensor *
dl_lapack_rowmajor (DlTensor *buf, GError **error)
{
  g_autoptr (DlTensor) v = dl_lapack_mT (buf, error);

  return v ? dl_contiguous_nograd (v, error) : NULL;
}

/* A new tensor like @like's batch dims (its first ndim - @drop dims)
 * followed by @n_tail more. */
DlTensor *
dl_lapack_new_batched (DlTensor *like, gint drop, const gint64 *tail, gint n_tail, GError **error)
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
gchar *
dl_lapack_batch_prefix (DlTensor *t, gint64 bi)
{
  return t->ndim > 2 ? g_strdup_printf ("(Batch element %" G_GINT64_FORMAT "): ", bi)
                     : g_strdup ("");
}

gdouble
dl_lapack_get_el (DlDType dtype, const void *p, gint64 i)
{
  return dtype == DL_DTYPE_FLOAT32 ? ((const float *)p)[i] : ((const double *)p)[i];
}

void
dl_lapack_set_el (DlDType dtype, void *p, gint64 i, gdouble v)
{
  if (dtype == DL_DTYPE_FLOAT32)
    ((float *)p)[i] = (float)v;
  else
    ((double *)p)[i] = v;
}

gboolean
dl_lapack_run (DlTensor *like, const gchar *op, DlLapackOp kind, DlLapackArgs *args, GError **error)
{
  DlBackendContext *ctx;

  /* on a host-memory backend: dl_lapack_check_kernel_matrix () said so */
  if (!(ctx = DL_TENSOR_BACKEND (like, lapack, op, error)))
    return FALSE;
  ctx->backend->lapack (ctx, kind, args, like->dtype);
  return TRUE;
}

/* @g for the matrices of @a, whose column-major copy the kernel works
 * on is @ac: their count and size, and an info array, *@info */
void
dl_lapack_args_init (DlLapackArgs *g, DlTensor *a, DlTensor *ac, gint32 **info)
{
  g->n_batch = dl_lapack_batch_count (a, 2);
  g->m = a->sizes[a->ndim - 2];
  g->n = a->sizes[a->ndim - 1];
  g->a = dl_tensor_data (ac);
  g->info = *info = g_new0 (gint32, MAX (g->n_batch, 1));
}

/* FALSE, with torch's LinAlgError message (DL_ERROR_ARGUMENT), when a
 * matrix of @a's batch failed (its info > 0): "@op: (Batch element i):
 * @before<info>@after", the info itself left out unless @with_info */
gboolean
dl_lapack_check_info (const gchar *op,
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
        g_autofree gchar *pre = dl_lapack_batch_prefix (a, i);
        g_autofree gchar *num = with_info ? g_strdup_printf ("%d", info[i]) : g_strdup ("");

        g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "%s: %s%s%s%s", op, pre, before, num,
                     after);
        return FALSE;
      }
  return TRUE;
}

DlTensor *
dl_lapack_identity_like (DlTensor *a, GError **error)
{
  gint64 n = a->sizes[a->ndim - 1];
  g_autoptr (DlTensor) eye = dl_eye (n, n, a->dtype, dl_tensor_device (a), error);

  return eye ? dl_tensor_expand (eye, a->sizes, a->ndim, error) : NULL;
}
