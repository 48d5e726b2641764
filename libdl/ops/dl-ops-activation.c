/* dl-ops-activation.c: softmax and log_softmax, composed from primitives
 * (so their gradients come from those of the parts).
 *
 * log_softmax (x) = (x - m) - log (sum (exp (x - m))), m = max (x) along dim
 * taken without gradient: the result does not depend on m.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-ops-private.h"

/**
 * dl_tensor_log_softmax:
 * @self: a floating-point #DlTensor
 * @dim: the dim to normalise over
 * @error: return location for a #GError
 *
 * Returns: (transfer full): log (softmax (self)) along @dim, computed
 *   stably, or %NULL with @error set
 *
 * Since: 1.0
 */
DlTensor *
dl_tensor_log_softmax (DlTensor  *self,
                       gint       dim,
                       GError   **error)
{
  g_autoptr (DlTensor) x = NULL;
  g_autoptr (DlTensor) m = NULL;
  g_autoptr (DlTensor) shifted = NULL;
  g_autoptr (DlTensor) e = NULL;
  g_autoptr (DlTensor) s = NULL;
  g_autoptr (DlTensor) lse = NULL;
  g_autoptr (DlTensor) detached = NULL;
  gboolean was;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_normalize_dim ("log_softmax", &dim, self->ndim, error))
    return NULL;
  if (!dl_dtype_is_floating_point (self->dtype))
    {
      if (!(x = dl_tensor_to_dtype (self, dl_get_default_dtype (), error)))
        return NULL;
    }
  else
    x = g_object_ref (self);
  if (x->numel == 0)
    return dl_tensor_clone (x, error);

  detached = dl_tensor_detach (x);
  was = dl_set_grad_enabled (FALSE);
  m = dl_tensor_max_dim (detached, dim, TRUE, NULL, error);
  dl_set_grad_enabled (was);
  if (!m)
    return NULL;
  if (!(shifted = dl_tensor_sub (x, m, error)) || !(e = dl_tensor_exp (shifted, error))
      || !(s = dl_tensor_sum_dims (e, &dim, 1, TRUE, error)) || !(lse = dl_tensor_log (s, error)))
    return NULL;
  return dl_tensor_sub (shifted, lse, error);
}

/**
 * dl_tensor_softmax:
 * @self: a floating-point #DlTensor
 * @dim: the dim to normalise over
 * @error: return location for a #GError
 *
 * Returns: (transfer full): exp (x) / sum (exp (x)) along @dim, computed
 *   stably, or %NULL with @error set
 *
 * Since: 1.0
 */
DlTensor *
dl_tensor_softmax (DlTensor  *self,
                   gint       dim,
                   GError   **error)
{
  g_autoptr (DlTensor) ls = dl_tensor_log_softmax (self, dim, error);

  return ls ? dl_tensor_exp (ls, error) : NULL;
}
