/* dl-ops-stats.c: var, std, norm, logsumexp and nanmean over all dims or
 * a set of dims: composites of the reductions and pointwise ops, with
 * backward rules where the composite's would be wrong at 0 (norms).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>

#include "dl-ops-private.h"
#include "dl-ops-reduce-private.h"

static DlTensor *
mask_as (DlTensor *bool_t, DlDType dtype, GError **error)
{
  g_autoptr (DlTensor) b = bool_t;

  return b ? dl_tensor_to_dtype (b, dtype, error) : NULL;
}

static gboolean
check_floating (const gchar *op, DlTensor *self, GError **error)
{
  if (dl_dtype_is_float (self->dtype))
    return TRUE;
  g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
               "%s: only supports floating point dtypes, but got %s", op,
               dl_dtype_get_name (self->dtype));
  return FALSE;
}

static gboolean
is_half (DlDType dt)
{
  return dt == DL_DTYPE_FLOAT16 || dt == DL_DTYPE_BFLOAT16;
}

/* @r (owned, nullable) cast back to the half type @dt (differentiable). */
static DlTensor *
to_half (DlTensor *r, DlDType dt, GError **error)
{
  g_autoptr (DlTensor) owned = r;

  return owned ? dl_tensor_to_dtype (owned, dt, error) : NULL;
}

static DlTensor *
var_impl (const gchar *op,
          DlTensor *self,
          const gint64 *dims,
          gsize n,
          gdouble correction,
          gboolean keepdim,
          GError **error)
{
  gboolean mask[DL_MAX_DIMS];
  gint64 count = 1;
  g_autoptr (DlTensor) mean = NULL;
  g_autoptr (DlTensor) dev = NULL;
  g_autoptr (DlTensor) sq = NULL;
  g_autoptr (DlTensor) ss = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!check_floating (op, self, error) || !dl_reduce_dims_mask (op, self, dims, n, mask, error))
    return NULL;
  if (is_half (self->dtype))
    {
      /* computed in float32, rounded once */
      g_autoptr (DlTensor) f = dl_tensor_to_dtype (self, DL_DTYPE_FLOAT32, error);
      return f ? to_half (var_impl (op, f, dims, n, correction, keepdim, error), self->dtype, error)
               : NULL;
    }
  for (gint i = 0; i < self->ndim; i++)
    if (mask[i])
      count *= self->sizes[i];
  /* two passes: the squared deviations from the mean, summed */
  if (!(mean = dl_tensor_mean_dims (self, dims, n, TRUE, error))
      || !(dev = dl_tensor_sub (self, mean, error)) || !(sq = dl_tensor_mul (dev, dev, error))
      || !(ss = dl_tensor_sum_dims (sq, dims, n, keepdim, error)))
    return NULL;
  return dl_tensor_div_scalar (ss, MAX (0.0, (gdouble)count - correction), error);
}

/**
 * dl_tensor_var:
 * @self: a floating-point #DlTensor
 * @dims: (array length=n_dims): the dims to reduce; empty for all
 * @n_dims: the number of dims in @dims
 * @correction: subtracted from the number of elements in the divisor (1
 *   for Bessel's correction, 0 for the population variance)
 * @keepdim: whether to keep the reduced dims with size 1
 * @error: return location for a #GError
 *
 * The variance over the given dims: the sum of squared deviations from the
 * mean divided by max(0, N - @correction).
 *
 * Returns: (transfer full): the variances, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_var (DlTensor *self,
               const gint64 *dims,
               gsize n_dims,
               gdouble correction,
               gboolean keepdim,
               GError **error)
{
  return var_impl ("var", self, dims, n_dims, correction, keepdim, error);
}

/**
 * dl_tensor_std:
 * @self: a floating-point #DlTensor
 * @dims: (array length=n_dims): the dims to reduce; empty for all
 * @n_dims: the number of dims in @dims
 * @correction: subtracted from the number of elements in the divisor
 * @keepdim: whether to keep the reduced dims with size 1
 * @error: return location for a #GError
 *
 * The standard deviation over the given dims: the square root of
 * dl_tensor_var().
 *
 * Returns: (transfer full): the standard deviations, or %NULL with @error
 *   set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_std (DlTensor *self,
               const gint64 *dims,
               gsize n_dims,
               gdouble correction,
               gboolean keepdim,
               GError **error)
{
  g_autoptr (DlTensor) v = NULL;

  if (DL_IS_TENSOR (self) && is_half (self->dtype))
    {
      g_autoptr (DlTensor) f = dl_tensor_to_dtype (self, DL_DTYPE_FLOAT32, error);
      return f ? to_half (dl_tensor_std (f, dims, n_dims, correction, keepdim, error), self->dtype,
                          error)
               : NULL;
    }
  v = var_impl ("std", self, dims, n_dims, correction, keepdim, error);
  return v ? dl_tensor_sqrt (v, error) : NULL;
}

/* d ||x||_2 / dx = x / ||x||, taken as 0 where the norm is 0. */
static gboolean
norm2_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  const DlReduceState *s = dl_node_state (node);
  DlTensor *x, *out;
  g_autoptr (DlTensor) g = NULL;
  g_autoptr (DlTensor) nk = NULL;
  g_autoptr (DlTensor) zero = NULL;
  g_autoptr (DlTensor) safe = NULL;
  g_autoptr (DlTensor) q = NULL;

  if (!(x = dl_node_saved (node, &s->input, error))
      || !(out = dl_node_saved (node, &s->output, error)))
    return FALSE;
  if (!(g = dl_reduce_node_keepdim (node, go[0], error))
      || !(nk = dl_reduce_node_keepdim (node, out, error))
      || !(zero = mask_as (dl_tensor_eq_scalar (nk, 0, error), nk->dtype, error))
      || !(safe = dl_tensor_add (nk, zero, error)) || !(q = dl_tensor_div (g, safe, error)))
    return FALSE;
  gi[0] = dl_tensor_mul (x, q, error);
  return gi[0] != NULL;
}

/* |t|^e (t >= 0) as exp (e log t); 0^e is 0 for e > 0
 * and infinity for e < 0. */
static DlTensor *
pow_abs (DlTensor *t, gdouble e, GError **error)
{
  g_autoptr (DlTensor) l = dl_tensor_log (t, error);
  g_autoptr (DlTensor) le = l ? dl_tensor_mul_scalar (l, e, error) : NULL;

  return le ? dl_tensor_exp (le, error) : NULL;
}

/* d ||x||_p / dx = sign (x) |x|^(p-1) / ||x||^(p-1), taken as 0 where the
 * norm is 0. The state's param is p. */
static gboolean
normp_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  const DlReduceState *s = dl_node_state (node);
  gdouble p = s->param;
  DlTensor *x, *out;
  g_autoptr (DlTensor) g = NULL;
  g_autoptr (DlTensor) nk = NULL;
  g_autoptr (DlTensor) zero = NULL;
  g_autoptr (DlTensor) safe = NULL;
  g_autoptr (DlTensor) a = NULL;
  g_autoptr (DlTensor) num = NULL;
  g_autoptr (DlTensor) den = NULL;
  g_autoptr (DlTensor) pos = NULL;
  g_autoptr (DlTensor) neg = NULL;
  g_autoptr (DlTensor) sign = NULL;
  g_autoptr (DlTensor) q = NULL;
  g_autoptr (DlTensor) sq = NULL;

  if (!(x = dl_node_saved (node, &s->input, error))
      || !(out = dl_node_saved (node, &s->output, error)))
    return FALSE;
  /* recorded with create_graph (grad mode is off otherwise) */
  if (!(g = dl_reduce_node_keepdim (node, go[0], error))
      || !(nk = dl_reduce_node_keepdim (node, out, error))
      || !(zero = mask_as (dl_tensor_eq_scalar (nk, 0, error), nk->dtype, error))
      || !(safe = dl_tensor_add (nk, zero, error)) || !(a = dl_tensor_abs (x, error))
      || !(num = dl_tensor_pow_scalar (a, p - 1, error)) || !(den = pow_abs (safe, p - 1, error))
      || !(pos = mask_as (dl_tensor_gt_scalar (x, 0, error), x->dtype, error))
      || !(neg = mask_as (dl_tensor_lt_scalar (x, 0, error), x->dtype, error))
      || !(sign = dl_tensor_sub (pos, neg, error)) || !(q = dl_tensor_div (num, den, error))
      || !(sq = dl_tensor_mul (sign, q, error)))
    return FALSE;
  gi[0] = dl_tensor_mul (g, sq, error);
  return gi[0] != NULL;
}

/* dl_tensor_norm () with its node named @node_name where it records one
 * (p = 2 and the general p) */
static DlTensor *
norm_impl (DlTensor *self,
           gdouble p,
           const gint64 *dims,
           gsize n_dims,
           gboolean keepdim,
           const gchar *node_name,
           GError **error)
{
  gboolean mask[DL_MAX_DIMS];

  if (!check_floating ("norm", self, error)
      || !dl_reduce_dims_mask ("norm", self, dims, n_dims, mask, error))
    return NULL;
  {
    gint64 count = 1;

    for (gint i = 0; i < self->ndim; i++)
      if (mask[i])
        count *= self->sizes[i];
    if (count == 0) /* over no elements every norm is 0 */
      {
        g_autoptr (DlTensor) a = dl_tensor_abs (self, error);
        return a ? dl_tensor_sum_dims (a, dims, n_dims, keepdim, error) : NULL;
      }
  }
  if (is_half (self->dtype) && !isinf (p))
    {
      g_autoptr (DlTensor) f = dl_tensor_to_dtype (self, DL_DTYPE_FLOAT32, error);
      return f ? to_half (norm_impl (f, p, dims, n_dims, keepdim, node_name, error), self->dtype,
                          error)
               : NULL;
    }
  if (p == 1)
    {
      g_autoptr (DlTensor) a = dl_tensor_abs (self, error);
      return a ? dl_tensor_sum_dims (a, dims, n_dims, keepdim, error) : NULL;
    }
  if (isinf (p))
    {
      g_autoptr (DlTensor) a = dl_tensor_abs (self, error);
      if (!a)
        return NULL;
      if (self->numel == 0)
        return dl_tensor_sum_dims (a, dims, n_dims, keepdim, error);
      return p > 0 ? dl_tensor_amax (a, dims, n_dims, keepdim, error)
                   : dl_tensor_amin (a, dims, n_dims, keepdim, error);
    }
  if (p == 0)
    {
      g_autoptr (DlTensor) nz = dl_tensor_ne_scalar (self, 0, error);
      g_autoptr (DlTensor) f = nz ? dl_tensor_to_dtype (nz, self->dtype, error) : NULL;
      return f ? dl_tensor_sum_dims (f, dims, n_dims, keepdim, error) : NULL;
    }
  if (p == 2)
    {
      DlTensor *out;
      g_autoptr (DlTensor) sq = NULL;
      g_autoptr (DlTensor) ss = NULL;
      gboolean was = dl_set_grad_enabled (FALSE);

      if ((sq = dl_tensor_mul (self, self, error)))
        ss = dl_tensor_sum_dims (sq, dims, n_dims, keepdim, error);
      out = ss ? dl_tensor_sqrt (ss, error) : NULL;
      dl_set_grad_enabled (was);
      if (!out)
        return NULL;
      if (dl_autograd_any_requires (1, &self))
        {
          g_autoptr (DlNode) node = dl_node_new_for_op (node_name, norm2_backward, 1, &self);

          DlReduceState *s = dl_reduce_state_new (node, self->ndim, keepdim, mask);

          dl_node_save (node, &s->input, self, FALSE);
          dl_node_save (node, &s->output, out, TRUE);
          dl_node_set_output (node, out, 0);
        }
      return out;
    }
  {
    DlTensor *out;
    g_autoptr (DlTensor) a = NULL;
    g_autoptr (DlTensor) ap = NULL;
    g_autoptr (DlTensor) s = NULL;
    gboolean was = dl_set_grad_enabled (FALSE);

    if ((a = dl_tensor_abs (self, error)) && (ap = pow_abs (a, p, error)))
      s = dl_tensor_sum_dims (ap, dims, n_dims, keepdim, error);
    out = s ? pow_abs (s, 1.0 / p, error) : NULL;
    dl_set_grad_enabled (was);
    if (!out)
      return NULL;
    if (dl_autograd_any_requires (1, &self))
      {
        g_autoptr (DlNode) node = dl_node_new_for_op (node_name, normp_backward, 1, &self);

        DlReduceState *st = dl_reduce_state_new (node, self->ndim, keepdim, mask);

        st->param = p;
        dl_node_save (node, &st->input, self, FALSE);
        dl_node_save (node, &st->output, out, TRUE);
        dl_node_set_output (node, out, 0);
      }
    return out;
  }
}

/**
 * dl_tensor_norm:
 * @self: a floating-point #DlTensor
 * @p: the order: 2 (Euclidean, also the Frobenius norm), 1, 0 (the number
 *   of nonzeros), infinity or minus infinity (the largest or smallest
 *   absolute value), or any other number: (sum |x|^p)^(1/p)
 * @dims: (array length=n_dims): the dims to reduce; empty for all
 * @n_dims: the number of dims in @dims
 * @keepdim: whether to keep the reduced dims with size 1
 * @error: return location for a #GError
 *
 * The vector @p-norm over the given dims.
 *
 * Returns: (transfer full): the norms, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_norm (DlTensor *self,
                gdouble p,
                const gint64 *dims,
                gsize n_dims,
                gboolean keepdim,
                GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  return norm_impl (self, p, dims, n_dims, keepdim, "NormBackward1", error);
}

/* torch's norm.Scalar overload, v.norm (p) as torch's C++ composites call
 * it (torch._weight_norm's): the p-norm of all of @self, recorded as
 * NormBackward0 (Python's norm calls record NormBackward1) */
DlTensor *
dl_norm_scalar (DlTensor *self, gdouble p, GError **error)
{
  return norm_impl (self, p, NULL, 0, FALSE, "NormBackward0", error);
}

static gdouble
dtype_max (DlDType dt)
{
  switch (dt)
    {
      case DL_DTYPE_FLOAT16:
        return 65504.0;
      case DL_DTYPE_BFLOAT16:
        return 3.3895313892515355e38;
      case DL_DTYPE_FLOAT32:
        return 3.4028234663852886e38;
      default:
        return G_MAXDOUBLE;
    }
}

/**
 * dl_tensor_logsumexp:
 * @self: a #DlTensor; integer and bool tensors are taken as float32
 * @dims: (array length=n_dims): the dims to reduce; empty for all
 * @n_dims: the number of dims in @dims
 * @keepdim: whether to keep the reduced dims with size 1
 * @error: return location for a #GError
 *
 * log(sum(exp(@self))) over the given dims, computed without overflow by
 * shifting by the largest element.
 *
 * Returns: (transfer full): the results, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_logsumexp (DlTensor *self,
                     const gint64 *dims,
                     gsize n_dims,
                     gboolean keepdim,
                     GError **error)
{
  gboolean mask[DL_MAX_DIMS];
  gint64 count = 1;
  g_autoptr (DlTensor) x = NULL;
  g_autoptr (DlTensor) shift = NULL;
  g_autoptr (DlTensor) shifted = NULL;
  g_autoptr (DlTensor) e = NULL;
  g_autoptr (DlTensor) s = NULL;
  g_autoptr (DlTensor) l = NULL;
  g_autoptr (DlTensor) shift_out = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_reduce_dims_mask ("logsumexp", self, dims, n_dims, mask, error))
    return NULL;
  if (is_half (self->dtype))
    {
      g_autoptr (DlTensor) f = dl_tensor_to_dtype (self, DL_DTYPE_FLOAT32, error);
      return f ? to_half (dl_tensor_logsumexp (f, dims, n_dims, keepdim, error), self->dtype, error)
               : NULL;
    }
  x = dl_dtype_is_float (self->dtype) ? g_object_ref (self)
                                      : dl_tensor_to_dtype (self, DL_DTYPE_FLOAT32, error);
  if (!x)
    return NULL;
  for (gint i = 0; i < x->ndim; i++)
    if (mask[i])
      count *= x->sizes[i];
  if (count > 0)
    {
      /* the shift: the maxima, a constant for autograd, clamped to finite
       * values so that inf - inf never happens */
      gboolean was = dl_set_grad_enabled (FALSE);
      g_autoptr (DlTensor) m = dl_tensor_amax (x, dims, n_dims, TRUE, error);
      g_autoptr (DlTensor) lo = dl_full (NULL, 0, -dtype_max (x->dtype), x->dtype, NULL, NULL);
      g_autoptr (DlTensor) hi = dl_full (NULL, 0, dtype_max (x->dtype), x->dtype, NULL, NULL);
      g_autoptr (DlTensor) m1 = m ? dl_tensor_maximum (m, lo, error) : NULL;

      shift = m1 ? dl_tensor_minimum (m1, hi, error) : NULL;
      dl_set_grad_enabled (was);
      if (!shift)
        return NULL;
    }
  else if (!(shift = dl_zeros (NULL, 0, x->dtype, NULL, error)))
    return NULL;
  if (!(shifted = dl_tensor_sub (x, shift, error)) || !(e = dl_tensor_exp (shifted, error))
      || !(s = dl_tensor_sum_dims (e, dims, n_dims, keepdim, error))
      || !(l = dl_tensor_log (s, error)))
    return NULL;
  if (count > 0 && !keepdim)
    {
      if (!(shift_out = dl_reshape_view (shift, l->sizes, l->ndim, error)))
        return NULL;
    }
  else
    shift_out = g_object_ref (shift);
  return dl_tensor_add (l, shift_out, error);
}

/**
 * dl_tensor_nanmean:
 * @self: a floating-point #DlTensor
 * @dims: (array length=n_dims): the dims to reduce; empty for all
 * @n_dims: the number of dims in @dims
 * @keepdim: whether to keep the reduced dims with size 1
 * @error: return location for a #GError
 *
 * Averages over the given dims, leaving NaN out (NaN where every element
 * is NaN).
 *
 * Returns: (transfer full): the means, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_nanmean (DlTensor *self,
                   const gint64 *dims,
                   gsize n_dims,
                   gboolean keepdim,
                   GError **error)
{
  g_autoptr (DlTensor) s = NULL;
  g_autoptr (DlTensor) ok = NULL;
  g_autoptr (DlTensor) count = NULL;
  g_autoptr (DlTensor) countf = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_dtype_is_float (self->dtype))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                   "nanmean: expected a floating point tensor as input. Got %s",
                   dl_dtype_get_name (self->dtype));
      return NULL;
    }
  if (is_half (self->dtype))
    {
      g_autoptr (DlTensor) f = dl_tensor_to_dtype (self, DL_DTYPE_FLOAT32, error);
      return f ? to_half (dl_tensor_nanmean (f, dims, n_dims, keepdim, error), self->dtype, error)
               : NULL;
    }
  if (!(s = dl_tensor_nansum (self, dims, n_dims, keepdim, error))
      || !(ok = dl_tensor_eq (self, self, error))
      || !(count = dl_tensor_sum_dims (ok, dims, n_dims, keepdim, error))
      || !(countf = dl_tensor_to_dtype (count, self->dtype, error)))
    return NULL;
  return dl_tensor_div (s, countf, error);
}
