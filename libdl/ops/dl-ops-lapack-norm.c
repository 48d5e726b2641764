/* dl-ops-lapack-norm.c: torch.linalg's ops that call
 * no LAPACK routine: vector_norm, matrix_exp (dl-ops-lapack.c says how the
 * files divide torch.linalg).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>

#include "dl-ops-lapack-private.h"

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
  TRY (g = dl_reshape_view (go[0], s->kept, s->ndim, error));
  TRY (n = dl_reshape_view (ns, s->kept, s->ndim, error));
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
          dl_lapack_torch_type_name (self->dtype));
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

  if (!(eye = dl_lapack_identity_like (a, error)))
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
  TRY (at = dl_lapack_mT (a, error));
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
  if (!dl_lapack_check_matrix ("linalg.matrix_exp", "A", self, TRUE, error))
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
