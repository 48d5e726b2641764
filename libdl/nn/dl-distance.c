/* dl-distance.c: distances between vectors, with PyTorch's formulas
 * (aten/src/ATen/native/Distance.cpp, restated). cosine_similarity and
 * pairwise_distance are composed from differentiable ops, as PyTorch
 * composes them, so their gradients are those of the ops; pdist is one
 * node, as PyTorch's (PdistBackward0), its backward written with ops:
 *   cosine_similarity (x1, x2) = sum (x1 / max (|x1|, eps) * x2 / max (|x2|, eps))
 *   pairwise_distance (x1, x2) = |x1 - x2 + eps|_p over the last dim
 *   pdist (x)                  = |x_i - x_j|_p for each pair of rows i < j
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>

#include "dl-distance.h"
#include "dl-error.h"
#include "dl-loss-private.h"
#include "dl-node-private.h"
#include "ops/dl-ops-creation.h"
#include "ops/dl-ops-index.h"
#include "ops/dl-ops-lapack.h"
#include "ops/dl-ops-math.h"
#include "ops/dl-ops-pointwise.h"
#include "ops/dl-ops-reduce.h"
#include "ops/dl-ops-shape.h"

/* @x / max (|x|_2, eps) along @dim: the value of the norm clamped at @eps,
 * its gradient that of the norm itself, as PyTorch clamps it in place
 * without recording */
static DlTensor *
normalized (DlTensor *x, gint64 dim, gdouble eps, GError **error)
{
  g_autoptr (DlTensor) norm = NULL;
  g_autoptr (DlTensor) fixed = NULL;
  g_autoptr (DlTensor) clamped = NULL;
  g_autoptr (DlTensor) shift = NULL;
  g_autoptr (DlTensor) denom = NULL;

  if (!(norm = dl_tensor_linalg_vector_norm (x, 2, &dim, 1, TRUE, error)))
    return NULL;
  fixed = dl_tensor_detach (norm);
  if (!(clamped = dl_tensor_clamp_scalar (fixed, eps, INFINITY, error))
      || !(shift = dl_tensor_sub (clamped, fixed, error))
      || !(denom = dl_tensor_add (norm, shift, error)))
    return NULL;
  return dl_tensor_div (x, denom, error);
}

/**
 * dl_cosine_similarity:
 * @x1: the first vectors
 * @x2: the second vectors, broadcastable with @x1
 * @dim: the dim the vectors lie along (PyTorch's default is 1)
 * @eps: a lower bound of each norm, against a division by 0 (PyTorch's
 *   default is 1e-8)
 * @error: return location for a #GError
 *
 * The cosine of the angle between @x1 and @x2 along @dim, as
 * torch.nn.functional.cosine_similarity computes it: the sum along @dim
 * of x1 / max (|x1|, eps) times x2 / max (|x2|, eps) (each norm clamped
 * for its value only, as PyTorch clamps it). The result has the
 * broadcast shape of the inputs without @dim.
 *
 * Fails with %DL_ERROR_DTYPE when the inputs' common dtype is not a
 * floating-point one, %DL_ERROR_SHAPE when they do not broadcast and
 * %DL_ERROR_INDEX when @dim is out of range.
 *
 * Returns: (transfer full): the similarities, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_cosine_similarity (DlTensor *x1, DlTensor *x2, gint64 dim, gdouble eps, GError **error)
{
  gsize nd;
  const gint64 *shape;
  DlDType dt;
  g_autoptr (DlTensor) probe = NULL;
  g_autoptr (DlTensor) c1 = NULL;
  g_autoptr (DlTensor) c2 = NULL;
  g_autoptr (DlTensor) a = NULL;
  g_autoptr (DlTensor) b = NULL;
  g_autoptr (DlTensor) n1 = NULL;
  g_autoptr (DlTensor) n2 = NULL;
  g_autoptr (DlTensor) prod = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (x1) && DL_IS_TENSOR (x2), NULL);
  /* the common dtype and the broadcast shape, from detached inputs */
  {
    g_autoptr (DlTensor) d1 = dl_tensor_detach (x1);
    g_autoptr (DlTensor) d2 = dl_tensor_detach (x2);
    gboolean was = dl_set_grad_enabled (FALSE);

    probe = dl_tensor_add (d1, d2, error);
    dl_set_grad_enabled (was);
  }
  if (!probe)
    {
      g_prefix_error (error, "cosine_similarity: ");
      return NULL;
    }
  dt = dl_tensor_get_dtype (probe);
  if (!dl_dtype_is_floating_point (dt))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                   "cosine_similarity: expected common dtype to be floating point, yet common "
                   "dtype is %s",
                   dl_dtype_get_name (dt));
      return NULL;
    }
  shape = dl_tensor_get_shape (probe, &nd);
  if (!(c1 = dl_tensor_to_dtype (x1, dt, error)) || !(c2 = dl_tensor_to_dtype (x2, dt, error))
      || !(a = dl_tensor_expand (c1, shape, nd, error))
      || !(b = dl_tensor_expand (c2, shape, nd, error)) || !(n1 = normalized (a, dim, eps, error))
      || !(n2 = normalized (b, dim, eps, error)) || !(prod = dl_tensor_mul (n1, n2, error)))
    return NULL;
  return dl_tensor_sum_dims (prod, &dim, 1, FALSE, error);
}

/**
 * dl_pairwise_distance:
 * @x1: the first vectors, along the last dim
 * @x2: the second vectors, broadcastable with @x1
 * @p: the order of the norm (PyTorch's default is 2)
 * @eps: added to the differences, against a zero norm's infinite slope
 *   (PyTorch's default is 1e-6)
 * @keepdim: whether to keep the last dim with size 1
 * @error: return location for a #GError
 *
 * The @p-norm distance |x1 - x2 + eps|_p along the last dim of the
 * broadcast inputs, as torch.nn.functional.pairwise_distance.
 *
 * Returns: (transfer full): the distances, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_pairwise_distance (DlTensor *x1,
                      DlTensor *x2,
                      gdouble p,
                      gdouble eps,
                      gboolean keepdim,
                      GError **error)
{
  gint64 last;
  g_autoptr (DlTensor) diff = NULL;
  g_autoptr (DlTensor) shifted = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (x1) && DL_IS_TENSOR (x2), NULL);
  if (!(diff = dl_tensor_sub (x1, x2, error)))
    {
      g_prefix_error (error, "pairwise_distance: ");
      return NULL;
    }
  if (!(shifted = dl_tensor_add_scalar (diff, eps, error)))
    return NULL;
  last = MAX (dl_tensor_get_ndim (x1), dl_tensor_get_ndim (x2)) - 1;
  /* the norm of a 0-d difference is its absolute value */
  if (last < 0)
    return dl_tensor_norm (shifted, p, NULL, 0, FALSE, error);
  return dl_tensor_norm (shifted, p, &last, 1, keepdim, error);
}

/* ---- pdist: PdistBackward0 -------------------------------------------------- */

/* x_i - x_j for each pair of rows i < j of @x, in row-major order; the
 * i and the j into *@rows and *@cols (int64, on @x's device) */
static DlTensor *
pair_differences (DlTensor *x, DlTensor **rows, DlTensor **cols, GError **error)
{
  gint64 n = dl_tensor_get_size (x, 0, NULL), n_pairs = n * (n - 1) / 2, k = 0;
  g_autofree gint64 *ri = g_new (gint64, MAX (n_pairs, 1));
  g_autofree gint64 *ci = g_new (gint64, MAX (n_pairs, 1));
  g_autoptr (DlTensor) rh = NULL;
  g_autoptr (DlTensor) ch = NULL;
  g_autoptr (DlTensor) a = NULL;
  g_autoptr (DlTensor) b = NULL;

  for (gint64 i = 0; i < n; i++)
    for (gint64 j = i + 1; j < n; j++, k++)
      {
        ri[k] = i;
        ci[k] = j;
      }
  if (!(rh = dl_tensor_new_from_data (ri, n_pairs * sizeof (gint64), &n_pairs, 1, DL_DTYPE_INT64,
                                      error))
      || !(ch = dl_tensor_new_from_data (ci, n_pairs * sizeof (gint64), &n_pairs, 1, DL_DTYPE_INT64,
                                         error))
      || !(*rows = dl_tensor_to_device (rh, dl_tensor_get_device (x), error))
      || !(*cols = dl_tensor_to_device (ch, dl_tensor_get_device (x), error))
      || !(a = dl_tensor_index_select (x, 0, *rows, error))
      || !(b = dl_tensor_index_select (x, 0, *cols, error)))
    return NULL;
  return dl_tensor_sub (a, b, error);
}

typedef struct
{
  DlSavedTensor input;
  gdouble p;
} PdistState;

/* d dist / d (x_i - x_j) = sign (d) |d|^(p-1) / dist^(p-1) (d / dist for
 * p = 2, sign (d) for p = 1, sign (d) at the largest |d| for p = inf,
 * 0 for p = 0), 0 where dist is 0 (and where d is 0 for p < 1), as
 * PyTorch's _pdist_backward; added to row i and taken from row j */
static gboolean
pdist_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  const PdistState *s = dl_node_state (node);
  const gdouble p = s->p;
  DlTensor *x;
  gsize nd;
  const gint64 *shape;
  g_autoptr (DlTensor) rows = NULL;
  g_autoptr (DlTensor) cols = NULL;
  g_autoptr (DlTensor) diff = NULL;
  g_autoptr (DlTensor) dist = NULL;
  g_autoptr (DlTensor) g = NULL;
  g_autoptr (DlTensor) zeros = NULL;
  g_autoptr (DlTensor) dd = NULL;
  g_autoptr (DlTensor) scaled = NULL;
  g_autoptr (DlTensor) r2 = NULL;
  g_autoptr (DlTensor) c2 = NULL;
  g_autoptr (DlTensor) neg = NULL;
  g_autoptr (DlTensor) plus = NULL;

  if (!(x = dl_node_saved (node, &s->input, error))
      || !(diff = pair_differences (x, &rows, &cols, error))
      || !(dist = dl_tensor_norm (diff, p, (gint64[]){ 1 }, 1, TRUE, error))
      || !(g = dl_tensor_unsqueeze (go[0], 1, error))
      || !(zeros = dl_loss_zeros_like (diff, error)))
    return FALSE;
  if (p == 0)
    dd = g_object_ref (zeros);
  else if (p == 1)
    dd = dl_tensor_sign (diff, error);
  else if (isinf (p))
    {
      g_autoptr (DlTensor) ad = dl_tensor_abs (diff, error);
      g_autoptr (DlTensor) at_max = ad ? dl_tensor_eq (ad, dist, error) : NULL;
      g_autoptr (DlTensor) sg = at_max ? dl_tensor_sign (diff, error) : NULL;

      dd = sg ? dl_where (at_max, sg, zeros, error) : NULL;
    }
  else
    {
      g_autoptr (DlTensor) ad = NULL;
      g_autoptr (DlTensor) sg = NULL;
      g_autoptr (DlTensor) num = NULL;
      g_autoptr (DlTensor) top = NULL;
      g_autoptr (DlTensor) den = NULL;
      g_autoptr (DlTensor) q = NULL;
      g_autoptr (DlTensor) zero = NULL;

      if (!(ad = dl_tensor_abs (diff, error)) || !(sg = dl_tensor_sign (diff, error))
          || !(num = dl_tensor_pow_scalar (ad, p - 1, error))
          || !(top = dl_tensor_mul (sg, num, error))
          || !(den = dl_tensor_pow_scalar (dist, p - 1, error))
          || !(q = dl_tensor_div (top, den, error))
          || !(zero = dl_tensor_eq_scalar (dist, 0, error)))
        return FALSE;
      if (p < 1)
        {
          g_autoptr (DlTensor) dz = dl_tensor_eq_scalar (diff, 0, error);
          g_autoptr (DlTensor) either = dz ? dl_tensor_logical_or (dz, zero, error) : NULL;

          if (!either)
            return FALSE;
          g_set_object (&zero, either);
        }
      dd = dl_where (zero, zeros, q, error);
    }
  if (!dd || !(scaled = dl_tensor_mul (dd, g, error)))
    return FALSE;
  shape = dl_tensor_get_shape (diff, &nd);
  if (!(r2 = dl_tensor_unsqueeze (rows, 1, error)) || !(c2 = dl_tensor_unsqueeze (cols, 1, error)))
    return FALSE;
  {
    g_autoptr (DlTensor) rexp = dl_tensor_expand (r2, shape, nd, error);
    g_autoptr (DlTensor) cexp = rexp ? dl_tensor_expand (c2, shape, nd, error) : NULL;
    g_autoptr (DlTensor) base = NULL;

    if (!cexp || !(neg = dl_tensor_neg (scaled, error)) || !(base = dl_loss_zeros_like (x, error))
        || !(plus = dl_tensor_scatter_add (base, 0, rexp, scaled, error)))
      return FALSE;
    gi[0] = dl_tensor_scatter_add (plus, 0, cexp, neg, error);
  }
  return gi[0] != NULL;
}

/**
 * dl_pdist:
 * @input: the vectors, one per row, shape [N, M]
 * @p: the order of the norm, >= 0 (PyTorch's default is 2)
 * @error: return location for a #GError
 *
 * The @p-norm distance between each pair of rows i < j of @input, in
 * row-major order (the upper triangle of the distance matrix, as
 * scipy's condensed form), as torch.nn.functional.pdist, recorded as one
 * node (PdistBackward0), differentiable with respect to @input.
 *
 * Fails with %DL_ERROR_SHAPE when @input is not 2-d, %DL_ERROR_DTYPE
 * when it is not floating-point and %DL_ERROR_ARGUMENT for a negative @p.
 *
 * Returns: (transfer full): the N (N - 1) / 2 distances, or %NULL with
 *   @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_pdist (DlTensor *input, gdouble p, GError **error)
{
  g_autoptr (DlTensor) rows = NULL;
  g_autoptr (DlTensor) cols = NULL;
  g_autoptr (DlTensor) diff = NULL;
  g_autoptr (DlTensor) out = NULL;
  gboolean was;

  g_return_val_if_fail (DL_IS_TENSOR (input), NULL);
  if (dl_tensor_get_ndim (input) != 2)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE, "pdist only supports 2D tensors, got: %dD",
                   dl_tensor_get_ndim (input));
      return NULL;
    }
  if (!dl_dtype_is_floating_point (dl_tensor_get_dtype (input)))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                   "pdist only supports floating-point dtypes, got %s",
                   dl_dtype_get_name (dl_tensor_get_dtype (input)));
      return NULL;
    }
  if (!(p >= 0))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "pdist only supports non-negative p values, got %g", p);
      return NULL;
    }
  was = dl_set_grad_enabled (FALSE);
  if ((diff = pair_differences (input, &rows, &cols, error)))
    out = dl_tensor_norm (diff, p, (gint64[]){ 1 }, 1, FALSE, error);
  dl_set_grad_enabled (was);
  if (!out)
    return NULL;
  if (dl_autograd_any_requires (1, &input))
    {
      g_autoptr (DlNode) node = dl_node_new_for_op ("PdistBackward0", pdist_backward, 1, &input);
      PdistState *st = DL_NODE_NEW_STATE (node, PdistState);

      st->p = p;
      dl_node_save (node, &st->input, input, FALSE);
      dl_node_set_output (node, out, 0);
    }
  return g_steal_pointer (&out);
}
