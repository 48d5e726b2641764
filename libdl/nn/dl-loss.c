/* dl-loss.c: classification losses, composed from tensor ops:
 *   nll_loss (lp, y) = -mean_i lp[i, y_i] = -sum (gather (lp, 1, y)) / N
 *   cross_entropy (x, y) = nll_loss (log_softmax (x, 1), y)
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-loss.h"
#include "dl-error.h"
#include "dl-node.h"
#include "ops/dl-ops-creation.h"
#include "ops/dl-ops-pointwise.h"
#include "ops/dl-ops-reduce.h"
#include "ops/dl-ops-shape.h"
#include "ops/dl-ops-activation.h"
#include "ops/dl-ops-index.h"

static gboolean
check_target (DlTensor *input, DlTensor *target, GError **error)
{
  gsize nd, td;
  const gint64 *shape = dl_tensor_get_shape (input, &nd);
  const gint64 *tshape = dl_tensor_get_shape (target, &td);
  g_autoptr (DlTensor) lo = NULL;
  g_autoptr (DlTensor) hi = NULL;
  gdouble vlo, vhi;

  if (nd != 2)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "nll_loss: expected input of shape [N, C], got %" G_GSIZE_FORMAT " dims", nd);
      return FALSE;
    }
  if (dl_tensor_get_dtype (target) != DL_DTYPE_INT64)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                   "nll_loss: expected target of dtype int64 (Long) but got %s",
                   dl_dtype_get_name (dl_tensor_get_dtype (target)));
      return FALSE;
    }
  if (td != 1 || tshape[0] != shape[0])
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "nll_loss: expected target of shape [%" G_GINT64_FORMAT "], got %" G_GSIZE_FORMAT
                   " dims with %" G_GINT64_FORMAT " entries",
                   shape[0], td, td ? tshape[0] : 0);
      return FALSE;
    }
  if (shape[0] == 0)
    return TRUE;
  if (!(lo = dl_tensor_min (target, error)) || !(hi = dl_tensor_max (target, error)))
    return FALSE;
  vlo = dl_tensor_item (lo, NULL);
  vhi = dl_tensor_item (hi, NULL);
  if (vlo < 0 || vhi >= shape[1])
    {
      g_set_error (error, DL_ERROR, DL_ERROR_INDEX,
                   "nll_loss: Target %" G_GINT64_FORMAT " is out of bounds (%" G_GINT64_FORMAT
                   " classes).",
                   (gint64)(vlo < 0 ? vlo : vhi), shape[1]);
      return FALSE;
    }
  return TRUE;
}

/* -mean_i log_probs[i, target_i], for checked arguments */
static DlTensor *
nll_checked (DlTensor *log_probs, DlTensor *target, GError **error)
{
  gsize nd;
  const gint64 *shape = dl_tensor_get_shape (log_probs, &nd);
  g_autoptr (DlTensor) tcol = NULL;
  g_autoptr (DlTensor) picked = NULL;
  g_autoptr (DlTensor) total = NULL;

  if (!(tcol = dl_tensor_unsqueeze (target, 1, error))
      || !(picked = dl_tensor_gather (log_probs, 1, tcol, error))
      || !(total = dl_tensor_sum (picked, error)))
    return NULL;
  return dl_tensor_mul_scalar (total, -1.0 / (gdouble)shape[0], error);
}

/**
 * dl_nll_loss:
 * @log_probs: log-probabilities, shape [N, C]
 * @target: class indices, int64, shape [N], each in [0, C)
 * @error: return location for a #GError
 *
 * The negative log-likelihood loss averaged over the batch, as
 * torch.nn.functional.nll_loss with its defaults.
 *
 * Returns: (transfer full): the 0-d loss, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_nll_loss (DlTensor *log_probs, DlTensor *target, GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (log_probs) && DL_IS_TENSOR (target), NULL);
  if (!check_target (log_probs, target, error))
    return NULL;
  return nll_checked (log_probs, target, error);
}

/**
 * dl_cross_entropy:
 * @input: unnormalised scores (logits), shape [N, C]
 * @target: class indices, int64, shape [N], each in [0, C)
 * @error: return location for a #GError
 *
 * The cross-entropy loss averaged over the batch, as
 * torch.nn.functional.cross_entropy with its defaults.
 *
 * Returns: (transfer full): the 0-d loss, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_cross_entropy (DlTensor *input, DlTensor *target, GError **error)
{
  g_autoptr (DlTensor) lp = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (input) && DL_IS_TENSOR (target), NULL);
  if (!check_target (input, target, error))
    return NULL;
  if (!(lp = dl_tensor_log_softmax (input, 1, error)))
    return NULL;
  return nll_checked (lp, target, error);
}
