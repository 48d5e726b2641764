/* dl-loss.c: the losses, composed from differentiable tensor ops, so that
 * their gradients and second derivatives are those of the ops, but for
 * nll_loss, one node as PyTorch's (NllLossBackward0, NllLoss2DBackward0)
 * whose backward is written with ops (PyTorch's formulas,
 * aten/src/ATen/native/Loss*.cpp, restated):
 *   nll_loss (lp, y)      = -w_y lp[n, y, d..], 0 where y = ignore_index;
 *                           mean divides by the sum of the w_y
 *   cross_entropy (x, y)  = (1 - e) nll_loss (log_softmax (x, 1), y)
 *                           + e / C smooth (x, y)  (label smoothing e)
 *                         = -sum_c w_c y_c log_softmax (x, 1)_c  (probabilities)
 *   mse (x, y)            = (x - y)^2           l1 (x, y) = |x - y|
 *   smooth_l1 (x, y)      = d < beta ? d^2 / (2 beta) : d - beta / 2, d = |x - y|
 *   huber (x, y)          = d < delta ? d^2 / 2 : delta (d - delta / 2)
 *   bce (x, y)            = -w (y max (log x, -100) + (1 - y) max (log (1 - x), -100))
 *   bce_with_logits (x, y) = w ((1 - y) x + (1 + (p - 1) y) softplus (-x)),
 *                           softplus (-x) = m + log (e^-m + e^(-x-m)), m = max (-x, 0)
 *   kl_div (x, y)         = y (log y - x), or e^y (y - x) with log_target
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>

#include "dl-loss.h"
#include "dl-error.h"
#include "dl-node-private.h"
#include "dl-loss-private.h"
#include "ops/dl-ops-autocast-private.h"
#include "ops/dl-ops-creation.h"
#include "ops/dl-ops-pointwise.h"
#include "ops/dl-ops-reduce.h"
#include "ops/dl-ops-shape.h"
#include "ops/dl-ops-activation.h"
#include "ops/dl-ops-index.h"
#include "ops/dl-ops-math.h"
#include "ops/dl-iter-private.h"
#include "ops/dl-ops-private.h"
#include "dl-module-private.h"

/* ---- shared --------------------------------------------------------------- */

gboolean
dl_loss_check_reduction (const gchar *name, DlReduction reduction, GError **error)
{
  if (reduction == DL_REDUCTION_NONE || reduction == DL_REDUCTION_MEAN
      || reduction == DL_REDUCTION_SUM)
    return TRUE;
  g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "%s: %s is not a valid value for reduction",
               name, reduction == DL_REDUCTION_BATCHMEAN ? "batchmean" : "(unknown)");
  return FALSE;
}

/* @loss reduced as @reduction says; takes @loss (NULL passes through) */
DlTensor *
dl_loss_reduce (DlTensor *loss, DlReduction reduction, GError **error)
{
  g_autoptr (DlTensor) owned = loss;

  if (!owned)
    return NULL;
  if (reduction == DL_REDUCTION_MEAN)
    return dl_tensor_mean (owned, error);
  if (reduction == DL_REDUCTION_SUM)
    return dl_tensor_sum (owned, error);
  return g_steal_pointer (&owned);
}

gchar *
dl_loss_shape_string (DlTensor *t)
{
  gsize nd;
  const gint64 *shape = dl_tensor_get_shape (t, &nd);
  GString *s = g_string_new ("[");

  for (gsize i = 0; i < nd; i++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i ? ", " : "", shape[i]);
  g_string_append_c (s, ']');
  return g_string_free (s, FALSE);
}

static gboolean
same_shape (DlTensor *a, DlTensor *b)
{
  gsize na, nb;
  const gint64 *sa = dl_tensor_get_shape (a, &na);
  const gint64 *sb = dl_tensor_get_shape (b, &nb);

  return na == nb && memcmp (sa, sb, na * sizeof (gint64)) == 0;
}

static gboolean
is_floating (DlTensor *t)
{
  DlDType dt = dl_tensor_get_dtype (t);
  return dt == DL_DTYPE_FLOAT32 || dt == DL_DTYPE_FLOAT64 || dt == DL_DTYPE_FLOAT16
         || dt == DL_DTYPE_BFLOAT16;
}

/* @weight seen as [1, C, 1, ...] against an input of @nd dims */
static DlTensor *
class_weight_view (DlTensor *weight, gsize nd, GError **error)
{
  gint64 *shape = g_newa (gint64, nd);

  for (gsize i = 0; i < nd; i++)
    shape[i] = 1;
  shape[1] = -1;
  return dl_nn_reshape (weight, shape, nd, error);
}

/* ---- classification: nll_loss and cross_entropy ---------------------------- */

static gboolean
check_weight (const gchar *name, DlTensor *weight, gint64 n_classes, GError **error)
{
  g_autofree gchar *ws = NULL;

  if (!weight || (dl_tensor_get_ndim (weight) == 1 && dl_tensor_numel (weight) == n_classes))
    return TRUE;
  ws = dl_loss_shape_string (weight);
  g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
               "%s: weight tensor should be defined either for all %" G_GINT64_FORMAT
               " classes or no classes but got weight tensor of shape: %s",
               name, n_classes, ws);
  return FALSE;
}

/* the smallest and largest of the non-empty int64 tensor @t */
static gboolean
target_range (DlTensor *t, gint64 *lo, gint64 *hi, GError **error)
{
  g_autoptr (DlTensor) min = dl_tensor_min (t, error);
  g_autoptr (DlTensor) max = min ? dl_tensor_max (t, error) : NULL;

  if (!max)
    return FALSE;
  *lo = (gint64)dl_tensor_item (min, NULL);
  *hi = (gint64)dl_tensor_item (max, NULL);
  return TRUE;
}

/* Checks (input [N, C, d..], class target [N, d..]) as PyTorch does, in its
 * order: the target's shape, its dtype, the weight, the classes in range.
 * Sets *@none_ignored when no target equals @ignore_index (the common
 * case, which nll_checked() computes with fewer ops). */
static gboolean
check_class_target (const gchar *name,
                    DlTensor *input,
                    DlTensor *target,
                    DlTensor *weight,
                    gint64 ignore_index,
                    gboolean *none_ignored,
                    GError **error)
{
  gsize nd, td;
  const gint64 *shape = dl_tensor_get_shape (input, &nd);
  const gint64 *tshape = dl_tensor_get_shape (target, &td);
  g_autoptr (DlTensor) ignored = NULL;
  g_autoptr (DlTensor) safe = NULL;
  gboolean shape_ok = TRUE;
  gint64 vlo, vhi;

  if (nd < 2)
    {
      g_set_error (
          error, DL_ERROR, DL_ERROR_SHAPE,
          "%s: expected input of 1 or more dims ([C] or [N, C, d1, ...]), got %" G_GSIZE_FORMAT
          " dims",
          name, nd);
      return FALSE;
    }
  if (nd == 2 && td != 1)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "%s: 0D or 1D target tensor expected, multi-target not supported", name);
      return FALSE;
    }
  if (td != nd - 1 || tshape[0] != shape[0])
    shape_ok = FALSE;
  for (gsize i = 1; shape_ok && i < td; i++)
    shape_ok = tshape[i] == shape[i + 1];
  if (!shape_ok)
    {
      g_autofree gchar *want = NULL;
      g_autofree gchar *got = dl_loss_shape_string (target);
      g_autoptr (DlTensor) sel = NULL;

      if (td == nd - 1 && tshape[0] != shape[0])
        {
          g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                       "%s: Expected input batch_size (%" G_GINT64_FORMAT
                       ") to match target batch_size (%" G_GINT64_FORMAT ").",
                       name, shape[0], tshape[0]);
          return FALSE;
        }
      sel = dl_tensor_select (input, 1, 0, NULL);
      want = sel ? dl_loss_shape_string (sel) : g_strdup ("?");
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE, "%s: Expected target size %s, got %s", name,
                   want, got);
      return FALSE;
    }
  if (dl_tensor_get_dtype (target) != DL_DTYPE_INT64)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                   "%s: expected scalar type Long but found %s (target of dtype %s, not int64)",
                   name,
                   is_floating (target)
                       ? (dl_tensor_get_dtype (target) == DL_DTYPE_FLOAT64 ? "Double" : "Float")
                       : (dl_tensor_get_dtype (target) == DL_DTYPE_INT32 ? "Int" : "?"),
                   dl_dtype_get_name (dl_tensor_get_dtype (target)));
      return FALSE;
    }
  if (!check_weight (name, weight, shape[1], error))
    return FALSE;
  *none_ignored = ignore_index < 0 || ignore_index >= shape[1];
  if (dl_tensor_numel (target) == 0)
    return TRUE;
  /* the classes in [0, C): then only an ignore_index in [0, C) can be
   * among them; else the classes, ignore_index aside, in [0, C) */
  if (!target_range (target, &vlo, &vhi, error))
    return FALSE;
  if (vlo < 0 || vhi >= shape[1])
    {
      *none_ignored = FALSE;
      if (!(ignored = dl_tensor_eq_scalar (target, (gdouble)ignore_index, error))
          || !(safe = dl_tensor_masked_fill (target, ignored, 0, error))
          || !target_range (safe, &vlo, &vhi, error))
        return FALSE;
    }
  if (vlo < 0 || vhi >= shape[1])
    {
      g_set_error (error, DL_ERROR, DL_ERROR_INDEX,
                   "%s: Target %" G_GINT64_FORMAT " is out of bounds (%" G_GINT64_FORMAT
                   " classes).",
                   name, vlo < 0 ? vlo : vhi, shape[1]);
      return FALSE;
    }
  return TRUE;
}

/* each sample's weight, the shape of @target: weight[target] (1 without
 * @weight), 0 where @ignored */
static DlTensor *
sample_weights (DlTensor *lp, DlTensor *target, DlTensor *weight, DlTensor *ignored, GError **error)
{
  gsize td;
  const gint64 *tshape = dl_tensor_get_shape (target, &td);
  g_autoptr (DlTensor) kept = NULL;
  g_autoptr (DlTensor) keptf = NULL;
  g_autoptr (DlTensor) safe = NULL;
  g_autoptr (DlTensor) flat = NULL;
  g_autoptr (DlTensor) wcast = NULL;
  g_autoptr (DlTensor) wsel = NULL;
  g_autoptr (DlTensor) wshaped = NULL;

  if (!(kept = dl_tensor_logical_not (ignored, error))
      || !(keptf = dl_tensor_to_dtype (kept, dl_tensor_get_dtype (lp), error)))
    return NULL;
  if (!weight)
    return g_steal_pointer (&keptf);
  if (!(safe = dl_tensor_masked_fill (target, ignored, 0, error))
      || !(flat = dl_nn_reshape (safe, (gint64[]){ -1 }, 1, error))
      || !(wcast = dl_tensor_to_dtype (weight, dl_tensor_get_dtype (lp), error))
      || !(wsel = dl_tensor_index_select (wcast, 0, flat, error))
      || !(wshaped = dl_nn_reshape (wsel, tshape, td, error)))
    return NULL;
  return dl_tensor_mul (wshaped, keptf, error);
}

/* nll_loss of checked, batched arguments: log_probs [N, C, d..], target
 * [N, d..] int64 */
static DlTensor *
nll_checked (DlTensor *lp,
             DlTensor *target,
             DlTensor *weight,
             gint64 ignore_index,
             gboolean none_ignored,
             DlReduction reduction,
             GError **error)
{
  g_autoptr (DlTensor) ignored = NULL;
  g_autoptr (DlTensor) safe = NULL;
  g_autoptr (DlTensor) tcol = NULL;
  g_autoptr (DlTensor) gathered = NULL;
  g_autoptr (DlTensor) picked = NULL;
  g_autoptr (DlTensor) wt = NULL;
  g_autoptr (DlTensor) weighted = NULL;
  g_autoptr (DlTensor) neg = NULL;
  g_autoptr (DlTensor) loss = NULL;
  g_autoptr (DlTensor) total = NULL;
  g_autoptr (DlTensor) denom = NULL;

  if (none_ignored && !weight)
    {
      /* -lp[n, y_n], reduced: no mask, no weights */
      if (!(tcol = dl_tensor_unsqueeze (target, 1, error))
          || !(gathered = dl_tensor_gather (lp, 1, tcol, error))
          || !(picked = dl_tensor_squeeze_dim (gathered, 1, error)))
        return NULL;
      return dl_loss_reduce (dl_tensor_neg (picked, error), reduction, error);
    }
  if (!(ignored = dl_tensor_eq_scalar (target, (gdouble)ignore_index, error))
      || !(safe = dl_tensor_masked_fill (target, ignored, 0, error))
      || !(tcol = dl_tensor_unsqueeze (safe, 1, error))
      || !(gathered = dl_tensor_gather (lp, 1, tcol, error))
      || !(picked = dl_tensor_squeeze_dim (gathered, 1, error)))
    return NULL;
  if (!(wt = sample_weights (lp, target, weight, ignored, error))
      || !(weighted = weight ? dl_tensor_mul (picked, wt, error) : g_object_ref (picked)))
    return NULL;
  if (!(neg = dl_tensor_neg (weighted, error))
      || !(loss = dl_tensor_masked_fill (neg, ignored, 0, error)))
    return NULL;
  if (reduction == DL_REDUCTION_NONE)
    return g_steal_pointer (&loss);
  if (!(total = dl_tensor_sum (loss, error)))
    return NULL;
  if (reduction == DL_REDUCTION_SUM)
    return g_steal_pointer (&total);
  if (!(denom = dl_tensor_sum (wt, error)))
    return NULL;
  return dl_tensor_div (total, denom, error);
}

/* ---- nll_loss's node ---------------------------------------------------- */

/* What nll_backward reads: the target as the node's input sees it,
 * batched ([N, d..]), the class weight, and the options */
typedef struct
{
  DlSavedTensor target, weight;
  gboolean has_weight, none_ignored, unbatched;
  gint64 ignore_index;
  DlReduction reduction;
} NllState;

/* d loss / d lp: -w_y go at each sample's target class (divided by the
 * total weight of the samples for 'mean'), 0 at the other classes and
 * where the target is ignore_index, as PyTorch's nll_loss_backward; written
 * with tensor ops, so that it is differentiable in go (double backward) */
static gboolean
nll_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  const NllState *s = dl_node_state (node);
  const DlInputMeta *in = &dl_node_data (node)->inputs[0];
  DlTensor *target, *weight = NULL;
  gsize td;
  const gint64 *tshape;
  gint64 bshape[DL_MAX_DIMS];
  g_autoptr (DlTensor) g = NULL;
  g_autoptr (DlTensor) ignored = NULL;
  g_autoptr (DlTensor) safe = NULL;
  g_autoptr (DlTensor) src = NULL;
  g_autoptr (DlTensor) col = NULL;
  g_autoptr (DlTensor) srccol = NULL;
  g_autoptr (DlTensor) zeros = NULL;
  g_autoptr (DlTensor) grad = NULL;

  if (!(target = dl_node_saved (node, &s->target, error))
      || (s->has_weight && !(weight = dl_node_saved (node, &s->weight, error))))
    return FALSE;
  tshape = dl_tensor_get_shape (target, &td);
  /* 'none' hands one gradient per sample, the others one for all */
  if (!(g = s->reduction == DL_REDUCTION_NONE ? dl_nn_reshape (go[0], tshape, td, error)
                                              : dl_tensor_expand (go[0], tshape, td, error)))
    return FALSE;
  if (s->none_ignored && !weight)
    {
      gdouble n = (gdouble)dl_tensor_numel (target);

      if (!(src = dl_tensor_mul_scalar (g, s->reduction == DL_REDUCTION_MEAN ? -1 / n : -1, error))
          || !(safe = g_object_ref (target)))
        return FALSE;
    }
  else
    {
      g_autoptr (DlTensor) wt = NULL;
      g_autoptr (DlTensor) denom = NULL;
      g_autoptr (DlTensor) coef = NULL;
      g_autoptr (DlTensor) prod = NULL;
      g_autoptr (DlTensor) neg = NULL;

      if (!(ignored = dl_tensor_eq_scalar (target, (gdouble)s->ignore_index, error))
          || !(safe = dl_tensor_masked_fill (target, ignored, 0, error))
          || !(wt = sample_weights (go[0], target, weight, ignored, error)))
        return FALSE;
      if (s->reduction == DL_REDUCTION_MEAN)
        {
          if (!(denom = dl_tensor_sum (wt, error)) || !(coef = dl_tensor_div (wt, denom, error)))
            return FALSE;
        }
      else
        coef = g_object_ref (wt);
      /* an ignored sample's 0 weight over a 0 total is nan: its gradient
       * is 0 all the same */
      if (!(prod = dl_tensor_mul (g, coef, error)) || !(neg = dl_tensor_neg (prod, error))
          || !(src = dl_tensor_masked_fill (neg, ignored, 0, error)))
        return FALSE;
    }
  bshape[0] = 1;
  memcpy (bshape + s->unbatched, in->sizes, in->ndim * sizeof (gint64));
  if (!(zeros = dl_zeros (bshape, in->ndim + s->unbatched, in->dtype, dl_tensor_get_device (target),
                          error))
      || !(col = dl_tensor_unsqueeze (safe, 1, error))
      || !(srccol = dl_tensor_unsqueeze (src, 1, error))
      || !(grad = dl_tensor_scatter (zeros, 1, col, srccol, error)))
    return FALSE;
  gi[0] = s->unbatched ? dl_nn_reshape (grad, in->sizes, in->ndim, error) : g_steal_pointer (&grad);
  return gi[0] != NULL;
}

/* the batched loss of an unbatched call back to its own shape */
static DlTensor *
unbatch_result (DlTensor *loss, gboolean unbatched, DlReduction reduction, GError **error)
{
  g_autoptr (DlTensor) owned = loss;

  if (!owned || !unbatched || reduction != DL_REDUCTION_NONE)
    return g_steal_pointer (&owned);
  return dl_tensor_squeeze_dim (owned, 0, error);
}

/* nll_loss of checked arguments, recorded as PyTorch records it: one
 * NllLossBackward0 node over log_probs [C] or [N, C], NllLoss2DBackward0
 * over [N, C, H, W], and other shapes viewed as [N, C, d1, rest] (and a
 * 'none' result viewed back), as torch's nll_loss_nd. The values are
 * those of nll_checked(), computed without recording its ops. */
static DlTensor *
nll_recorded (DlTensor *lp,
              DlTensor *target,
              DlTensor *weight,
              gint64 ignore_index,
              gboolean none_ignored,
              DlReduction reduction,
              GError **error)
{
  gsize nd, td;
  const gint64 *shape = dl_tensor_get_shape (lp, &nd);
  const gint64 *tshape = dl_tensor_get_shape (target, &td);
  gboolean unbatched = nd == 1, folded = nd == 3 || nd > 4;
  g_autoptr (DlTensor) x = NULL;
  g_autoptr (DlTensor) t = NULL;
  g_autoptr (DlTensor) bx = NULL;
  g_autoptr (DlTensor) out = NULL;
  gboolean was;

  if (folded)
    {
      gint64 rest = 1;

      for (gsize i = 3; i < nd; i++)
        rest *= shape[i];
      if (!(x = dl_nn_reshape (lp, (gint64[]){ shape[0], shape[1], shape[2], rest }, 4, error))
          || !(t = dl_nn_reshape (target, (gint64[]){ shape[0], shape[2], rest }, 3, error)))
        return NULL;
    }
  else
    {
      x = g_object_ref (lp);
      if (!(t = unbatched ? dl_tensor_unsqueeze (target, 0, error) : g_object_ref (target)))
        return NULL;
    }
  was = dl_set_grad_enabled (FALSE);
  if ((bx = unbatched ? dl_tensor_unsqueeze (x, 0, error) : g_object_ref (x)))
    out = unbatch_result (nll_checked (bx, t, weight, ignore_index, none_ignored, reduction, error),
                          unbatched, reduction, error);
  dl_set_grad_enabled (was);
  if (!out)
    return NULL;
  if (dl_autograd_any_requires (1, &x))
    {
      g_autoptr (DlNode) node
          = dl_node_new_for_op (nd <= 2 ? "NllLossBackward0" : "NllLoss2DBackward0", nll_backward,
                                1, (DlTensor *[]){ x });
      NllState *st = DL_NODE_NEW_STATE (node, NllState);

      st->has_weight = weight != NULL;
      st->none_ignored = none_ignored;
      st->unbatched = unbatched;
      st->ignore_index = ignore_index;
      st->reduction = reduction;
      dl_node_save (node, &st->target, t, FALSE);
      if (weight)
        dl_node_save (node, &st->weight, weight, FALSE);
      dl_node_set_output (node, out, 0);
    }
  if (folded && reduction == DL_REDUCTION_NONE)
    return dl_tensor_view (out, tshape, td, error);
  return g_steal_pointer (&out);
}

/* The unbatched form: input [C], target 0-d (or [C] probabilities) as a
 * batch of one. Sets *@unbatched. */
static gboolean
batch_inputs (const gchar *name,
              DlTensor *input,
              DlTensor *target,
              DlTensor **binput,
              DlTensor **btarget,
              gboolean *unbatched,
              GError **error)
{
  *unbatched = dl_tensor_get_ndim (input) == 1;
  if (!*unbatched)
    {
      *binput = g_object_ref (input);
      *btarget = g_object_ref (target);
      return TRUE;
    }
  if (dl_tensor_get_ndim (target) > 1)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "%s: 0D or 1D target tensor expected, multi-target not supported", name);
      return FALSE;
    }
  if (!(*binput = dl_tensor_unsqueeze (input, 0, error)))
    return FALSE;
  if (!(*btarget = dl_tensor_unsqueeze (target, 0, error)))
    {
      g_clear_object (binput);
      return FALSE;
    }
  return TRUE;
}

/**
 * dl_nll_loss_full:
 * @input: log-probabilities, shape [N, C], [N, C, d1, ...] or [C]
 * @target: class indices, int64, shape [N], [N, d1, ...] or 0-d, each in
 *   [0, C) or @ignore_index
 * @weight: (nullable): a weight per class, shape [C]
 * @ignore_index: a target value that contributes nothing (PyTorch's
 *   default is -100)
 * @reduction: how the samples' losses combine; 'mean' divides by the
 *   total weight of the samples not ignored
 * @error: return location for a #GError
 *
 * The negative log-likelihood loss, as torch.nn.functional.nll_loss.
 *
 * Returns: (transfer full): the loss, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_nll_loss_full (DlTensor *input,
                  DlTensor *target,
                  DlTensor *weight,
                  gint64 ignore_index,
                  DlReduction reduction,
                  GError **error)
{
  DL_AUTOCAST (DL_AUTOCAST_FP32,
               dl_nll_loss_full (a_[0], a_[1], a_[2], ignore_index, reduction, error), error, input,
               target, weight);
  g_autoptr (DlTensor) bin = NULL;
  g_autoptr (DlTensor) btg = NULL;
  gboolean unbatched, none_ignored;

  g_return_val_if_fail (DL_IS_TENSOR (input) && DL_IS_TENSOR (target), NULL);
  g_return_val_if_fail (weight == NULL || DL_IS_TENSOR (weight), NULL);
  if (!dl_loss_check_reduction ("nll_loss", reduction, error)
      || !batch_inputs ("nll_loss", input, target, &bin, &btg, &unbatched, error)
      || !check_class_target ("nll_loss", bin, btg, weight, ignore_index, &none_ignored, error))
    return NULL;
  return nll_recorded (input, target, weight, ignore_index, none_ignored, reduction, error);
}

/* -sum_c w_c p_c lp_c over the class dim, for probability targets */
static DlTensor *
cross_entropy_probs (DlTensor *lp,
                     DlTensor *target,
                     DlTensor *weight,
                     DlReduction reduction,
                     gdouble label_smoothing,
                     GError **error)
{
  gsize nd;
  const gint64 *shape = dl_tensor_get_shape (lp, &nd);
  g_autoptr (DlTensor) smoothed = NULL;
  g_autoptr (DlTensor) prod = NULL;
  g_autoptr (DlTensor) per = NULL;
  g_autoptr (DlTensor) neg = NULL;
  g_autoptr (DlTensor) total = NULL;

  if (label_smoothing > 0)
    {
      g_autoptr (DlTensor) scaled = dl_tensor_mul_scalar (target, 1 - label_smoothing, error);
      if (!scaled || !(smoothed = dl_tensor_add_scalar (scaled, label_smoothing / shape[1], error)))
        return NULL;
    }
  else
    smoothed = g_object_ref (target);
  if (!(prod = dl_tensor_mul (lp, smoothed, error)))
    return NULL;
  if (weight)
    {
      g_autoptr (DlTensor) wv = NULL;
      g_autoptr (DlTensor) wprod = NULL;

      if (!(wv = class_weight_view (weight, nd, error))
          || !(wprod = dl_tensor_mul (prod, wv, error)))
        return NULL;
      g_set_object (&prod, wprod);
    }
  if (reduction == DL_REDUCTION_NONE)
    {
      if (!(per = dl_tensor_sum_dims (prod, (gint64[]){ 1 }, 1, FALSE, error)))
        return NULL;
      return dl_tensor_neg (per, error);
    }
  if (!(total = dl_tensor_sum (prod, error)) || !(neg = dl_tensor_neg (total, error)))
    return NULL;
  if (reduction == DL_REDUCTION_SUM)
    return g_steal_pointer (&neg);
  /* mean over the samples: numel / C of them (0/0 = nan when empty) */
  return dl_tensor_div_scalar (neg, (gdouble)(dl_tensor_numel (lp) / MAX (shape[1], 1)), error);
}

/* the label-smoothing term: -sum_c w_c lp_c per sample, reduced */
static DlTensor *
smooth_term (DlTensor *lp,
             DlTensor *target,
             DlTensor *weight,
             gint64 ignore_index,
             DlReduction reduction,
             GError **error)
{
  gsize nd;
  dl_tensor_get_shape (lp, &nd);
  g_autoptr (DlTensor) prod = NULL;
  g_autoptr (DlTensor) per = NULL;
  g_autoptr (DlTensor) neg = NULL;
  g_autoptr (DlTensor) ignored = NULL;
  g_autoptr (DlTensor) loss = NULL;
  g_autoptr (DlTensor) total = NULL;
  g_autoptr (DlTensor) wt = NULL;
  g_autoptr (DlTensor) denom = NULL;

  if (weight)
    {
      g_autoptr (DlTensor) wv = class_weight_view (weight, nd, error);
      if (!wv || !(prod = dl_tensor_mul (lp, wv, error)))
        return NULL;
    }
  else
    prod = g_object_ref (lp);
  if (!(per = dl_tensor_sum_dims (prod, (gint64[]){ 1 }, 1, FALSE, error))
      || !(neg = dl_tensor_neg (per, error))
      || !(ignored = dl_tensor_eq_scalar (target, (gdouble)ignore_index, error))
      || !(loss = dl_tensor_masked_fill (neg, ignored, 0, error)))
    return NULL;
  if (reduction == DL_REDUCTION_NONE)
    return g_steal_pointer (&loss);
  if (reduction == DL_REDUCTION_SUM)
    return dl_tensor_sum (loss, error);
  /* PyTorch divides by the weight (count) of the samples not ignored, as
   * nll_loss does */
  if (!(total = dl_tensor_sum (loss, error))
      || !(wt = sample_weights (lp, target, weight, ignored, error))
      || !(denom = dl_tensor_sum (wt, error)))
    return NULL;
  return dl_tensor_div (total, denom, error);
}

/**
 * dl_cross_entropy_full:
 * @input: unnormalised scores (logits), shape [N, C], [N, C, d1, ...] or [C]
 * @target: class indices (int64, shape [N], [N, d1, ...] or 0-d, each in
 *   [0, C) or @ignore_index), or class probabilities (floating, the shape
 *   of @input)
 * @weight: (nullable): a weight per class, shape [C]
 * @ignore_index: a class-index target value that contributes nothing
 *   (PyTorch's default is -100)
 * @reduction: how the samples' losses combine
 * @label_smoothing: in [0, 1]: the share of the target spread evenly over
 *   the classes
 * @error: return location for a #GError
 *
 * The cross-entropy loss, as torch.nn.functional.cross_entropy.
 *
 * Returns: (transfer full): the loss, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_cross_entropy_full (DlTensor *input,
                       DlTensor *target,
                       DlTensor *weight,
                       gint64 ignore_index,
                       DlReduction reduction,
                       gdouble label_smoothing,
                       GError **error)
{
  DL_AUTOCAST (
      DL_AUTOCAST_FP32,
      dl_cross_entropy_full (a_[0], a_[1], a_[2], ignore_index, reduction, label_smoothing, error),
      error, input, target, weight);
  g_autoptr (DlTensor) bin = NULL;
  g_autoptr (DlTensor) btg = NULL;
  g_autoptr (DlTensor) lp = NULL;
  g_autoptr (DlTensor) nll = NULL;
  g_autoptr (DlTensor) smooth = NULL;
  g_autoptr (DlTensor) a = NULL;
  g_autoptr (DlTensor) b = NULL;
  gboolean unbatched, none_ignored;
  gint64 n_classes;

  g_return_val_if_fail (DL_IS_TENSOR (input) && DL_IS_TENSOR (target), NULL);
  g_return_val_if_fail (weight == NULL || DL_IS_TENSOR (weight), NULL);
  if (!dl_loss_check_reduction ("cross_entropy", reduction, error))
    return NULL;
  if (!(label_smoothing >= 0 && label_smoothing <= 1))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "cross_entropy: label_smoothing must be between 0.0 and 1.0. Got: %g",
                   label_smoothing);
      return NULL;
    }
  if (!batch_inputs ("cross_entropy", input, target, &bin, &btg, &unbatched, error))
    return NULL;
  if (is_floating (btg) && same_shape (bin, btg))
    {
      if (!check_weight ("cross_entropy", weight, dl_tensor_get_size (bin, 1, NULL), error)
          || !(lp = dl_tensor_log_softmax (bin, 1, error)))
        return NULL;
      return unbatch_result (
          cross_entropy_probs (lp, btg, weight, reduction, label_smoothing, error), unbatched,
          reduction, error);
    }
  /* log_softmax over the classes of the input as given, [C] included,
   * then nll_loss's node: torch's graph */
  if (!check_class_target ("cross_entropy", bin, btg, weight, ignore_index, &none_ignored, error)
      || !(lp = dl_tensor_log_softmax (input, unbatched ? 0 : 1, error))
      || !(nll = nll_recorded (lp, target, weight, ignore_index, none_ignored, reduction, error)))
    return NULL;
  if (label_smoothing > 0)
    {
      g_autoptr (DlTensor) blp = NULL;

      n_classes = dl_tensor_get_size (bin, 1, NULL);
      if (!(blp = unbatched ? dl_tensor_unsqueeze (lp, 0, error) : g_object_ref (lp))
          || !(smooth
               = unbatch_result (smooth_term (blp, btg, weight, ignore_index, reduction, error),
                                 unbatched, reduction, error))
          || !(a = dl_tensor_mul_scalar (nll, 1 - label_smoothing, error))
          || !(b = dl_tensor_mul_scalar (smooth, label_smoothing / n_classes, error)))
        return NULL;
      return dl_tensor_add (a, b, error);
    }
  return g_steal_pointer (&nll);
}

/**
 * dl_nll_loss:
 * @log_probs: log-probabilities, shape [N, C]
 * @target: class indices, int64, shape [N], each in [0, C)
 * @error: return location for a #GError
 *
 * The negative log-likelihood loss averaged over the batch, as
 * torch.nn.functional.nll_loss with its defaults; dl_nll_loss_full()
 * takes the options.
 *
 * Returns: (transfer full): the 0-d loss, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_nll_loss (DlTensor *log_probs, DlTensor *target, GError **error)
{
  DL_AUTOCAST (DL_AUTOCAST_FP32, dl_nll_loss (a_[0], a_[1], error), error, log_probs, target);
  return dl_nll_loss_full (log_probs, target, NULL, -100, DL_REDUCTION_MEAN, error);
}

/**
 * dl_cross_entropy:
 * @input: unnormalised scores (logits), shape [N, C]
 * @target: class indices, int64, shape [N], each in [0, C)
 * @error: return location for a #GError
 *
 * The cross-entropy loss averaged over the batch, as
 * torch.nn.functional.cross_entropy with its defaults;
 * dl_cross_entropy_full() takes the options.
 *
 * It is dl_nll_loss() of dl_tensor_log_softmax() over dim 1, the usual loss
 * of a classifier:
 *
 * |[<!-- language="C" -->
 * g_autoptr (GError) error = NULL;
 * g_autoptr (DlTensor) logits = NULL;
 * g_autoptr (DlTensor) labels = NULL;
 * g_autoptr (DlTensor) loss = NULL;
 *
 * if (!(logits = dl_randn (DL_SHAPE (4, 10), DL_DTYPE_FLOAT32, NULL, &error))
 *     || !(labels = dl_randint (0, 10, DL_SHAPE (4), DL_DTYPE_INT64, NULL, &error))
 *     || !(loss = dl_cross_entropy (logits, labels, &error)))
 *   g_printerr ("%s\n", error->message);
 * else
 *   g_print ("loss %g\n", dl_tensor_item (loss, NULL));
 * ]|
 *
 * Differentiable with respect to @input. Fails with %DL_ERROR_SHAPE when the
 * shapes do not match, %DL_ERROR_DTYPE when @target is not int64, and
 * %DL_ERROR_INDEX for a class index out of range.
 *
 * Returns: (transfer full): the 0-d loss, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_cross_entropy (DlTensor *input, DlTensor *target, GError **error)
{
  DL_AUTOCAST (DL_AUTOCAST_FP32, dl_cross_entropy (a_[0], a_[1], error), error, input, target);
  return dl_cross_entropy_full (input, target, NULL, -100, DL_REDUCTION_MEAN, 0.0, error);
}

/* ---- regression ------------------------------------------------------------ */

/* input - target, for the regression losses */
static DlTensor *
difference (const gchar *name,
            DlTensor *input,
            DlTensor *target,
            DlReduction reduction,
            GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (input) && DL_IS_TENSOR (target), NULL);
  if (!dl_loss_check_reduction (name, reduction, error))
    return NULL;
  return dl_tensor_sub (input, target, error);
}

typedef struct
{
  DlSavedTensor input, target;
  DlReduction reduction;
} MseState;

/* torch's mse_loss_backward: 2 (x - y) g, divided by the count for a
 * mean; the target's gradient its negation. Written with differentiable
 * ops, so that a create_graph backward records it. */
static gboolean
mse_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  const MseState *s = dl_node_state (node);
  DlNodeData *nd = dl_node_data (node);
  g_autoptr (DlTensor) d = NULL;
  g_autoptr (DlTensor) g = NULL;
  g_autoptr (DlTensor) scaled = NULL;
  g_autoptr (DlTensor) neg = NULL;
  DlTensor *x, *y;
  gdouble norm = 2.0;

  TRY (x = dl_node_saved (node, &s->input, error));
  TRY (y = dl_node_saved (node, &s->target, error));
  if (s->reduction == DL_REDUCTION_MEAN && dl_tensor_numel (x) > 0)
    norm /= (gdouble)dl_tensor_numel (x);
  TRY (d = dl_tensor_sub (x, y, error));
  TRY (g = dl_tensor_mul (d, go[0], error));
  TRY (scaled = dl_tensor_mul_scalar (g, norm, error));
  if (dl_node_needs_input_grad (node, 0))
    TRY (gi[0] = dl_tensor_to_dtype (scaled, nd->inputs[0].dtype, error));
  if (dl_node_needs_input_grad (node, 1))
    {
      TRY (neg = dl_tensor_neg (scaled, error));
      TRY (gi[1] = dl_tensor_to_dtype (neg, nd->inputs[1].dtype, error));
    }
  return TRUE;
}

/**
 * dl_mse_loss:
 * @input: the predictions
 * @target: the targets, broadcastable to @input
 * @reduction: how the elements' losses combine
 * @error: return location for a #GError
 *
 * The mean squared error (x - y)^2, as torch.nn.functional.mse_loss.
 *
 * Returns: (transfer full): the loss, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_mse_loss (DlTensor *input, DlTensor *target, DlReduction reduction, GError **error)
{
  DL_AUTOCAST (DL_AUTOCAST_FP32, dl_mse_loss (a_[0], a_[1], reduction, error), error, input,
               target);
  const gboolean grad = dl_is_grad_enabled ();
  g_autoptr (DlTensor) x = NULL;
  g_autoptr (DlTensor) y = NULL;
  g_autoptr (DlTensor) d = NULL;
  DlTensor *out = NULL;
  gint64 shape[DL_MAX_DIMS];
  gint nd;

  g_return_val_if_fail (DL_IS_TENSOR (input) && DL_IS_TENSOR (target), NULL);
  if (!dl_check_live ("mse_loss", input, error) || !dl_check_live ("mse_loss", target, error)
      || !dl_loss_check_reduction ("mse_loss", reduction, error)
      || !dl_broadcast_shapes ("mse_loss", input->sizes, input->ndim, target->sizes, target->ndim,
                               shape, &nd, error))
    return NULL;
  /* as torch's F.mse_loss: both broadcast first (ExpandBackward0 where a
   * shape grows), then one MseLossBackward0 node over the pair */
  if (!(x = nd == input->ndim && !memcmp (shape, input->sizes, nd * sizeof (gint64))
                ? g_object_ref (input)
                : dl_tensor_expand (input, shape, nd, error))
      || !(y = nd == target->ndim && !memcmp (shape, target->sizes, nd * sizeof (gint64))
                   ? g_object_ref (target)
                   : dl_tensor_expand (target, shape, nd, error)))
    return NULL;
  dl_set_grad_enabled (FALSE);
  if ((d = dl_tensor_sub (x, y, error)))
    out = dl_loss_reduce (dl_tensor_mul (d, d, error), reduction, error);
  dl_set_grad_enabled (grad);
  if (out && dl_autograd_any_requires (2, (DlTensor *[]){ x, y }))
    {
      g_autoptr (DlNode) node
          = dl_node_new_for_op ("MseLossBackward0", mse_backward, 2, (DlTensor *[]){ x, y });
      MseState *s = DL_NODE_NEW_STATE (node, MseState);

      s->reduction = reduction;
      dl_node_save (node, &s->input, x, FALSE);
      dl_node_save (node, &s->target, y, FALSE);
      dl_node_set_output (node, out, 0);
    }
  return out;
}

/**
 * dl_l1_loss:
 * @input: the predictions
 * @target: the targets, broadcastable to @input
 * @reduction: how the elements' losses combine
 * @error: return location for a #GError
 *
 * The absolute error |x - y|, as torch.nn.functional.l1_loss.
 *
 * Returns: (transfer full): the loss, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_l1_loss (DlTensor *input, DlTensor *target, DlReduction reduction, GError **error)
{
  DL_AUTOCAST (DL_AUTOCAST_FP32, dl_l1_loss (a_[0], a_[1], reduction, error), error, input, target);
  g_autoptr (DlTensor) d = difference ("l1_loss", input, target, reduction, error);

  if (!d)
    return NULL;
  return dl_loss_reduce (dl_tensor_abs (d, error), reduction, error);
}

/* where (|d| < bound, quad_scale d^2, lin_scale (|d| - bound / 2)) */
static DlTensor *
piecewise_quadratic (DlTensor *d,
                     gdouble bound,
                     gdouble quad_scale,
                     gdouble lin_scale,
                     GError **error)
{
  g_autoptr (DlTensor) ad = NULL;
  g_autoptr (DlTensor) small = NULL;
  g_autoptr (DlTensor) sq = NULL;
  g_autoptr (DlTensor) quad = NULL;
  g_autoptr (DlTensor) lin0 = NULL;
  g_autoptr (DlTensor) lin = NULL;

  if (!(ad = dl_tensor_abs (d, error)) || !(small = dl_tensor_lt_scalar (ad, bound, error))
      || !(sq = dl_tensor_mul (d, d, error))
      || !(quad = dl_tensor_mul_scalar (sq, quad_scale, error))
      || !(lin0 = dl_tensor_sub_scalar (ad, bound / 2, error))
      || !(lin
           = lin_scale == 1 ? g_object_ref (lin0) : dl_tensor_mul_scalar (lin0, lin_scale, error)))
    return NULL;
  return dl_where (small, quad, lin, error);
}

/**
 * dl_smooth_l1_loss:
 * @input: the predictions
 * @target: the targets, broadcastable to @input
 * @reduction: how the elements' losses combine
 * @beta: where the loss turns from quadratic to linear (>= 0; 0 is the
 *   L1 loss); PyTorch's default is 1
 * @error: return location for a #GError
 *
 * The smooth L1 loss, as torch.nn.functional.smooth_l1_loss: with
 * d = |x - y|, d^2 / (2 beta) where d < beta, d - beta / 2 elsewhere.
 *
 * Returns: (transfer full): the loss, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_smooth_l1_loss (DlTensor *input,
                   DlTensor *target,
                   DlReduction reduction,
                   gdouble beta,
                   GError **error)
{
  DL_AUTOCAST (DL_AUTOCAST_FP32, dl_smooth_l1_loss (a_[0], a_[1], reduction, beta, error), error,
               input, target);
  g_autoptr (DlTensor) d = NULL;

  if (!(beta >= 0))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "smooth_l1_loss does not support negative values for beta, got %g", beta);
      return NULL;
    }
  if (!(d = difference ("smooth_l1_loss", input, target, reduction, error)))
    return NULL;
  if (beta == 0)
    return dl_loss_reduce (dl_tensor_abs (d, error), reduction, error);
  return dl_loss_reduce (piecewise_quadratic (d, beta, 0.5 / beta, 1.0, error), reduction, error);
}

/**
 * dl_huber_loss:
 * @input: the predictions
 * @target: the targets, broadcastable to @input
 * @reduction: how the elements' losses combine
 * @delta: where the loss turns from quadratic to linear (> 0);
 *   PyTorch's default is 1
 * @error: return location for a #GError
 *
 * The Huber loss, as torch.nn.functional.huber_loss: with d = |x - y|,
 * d^2 / 2 where d < delta, delta (d - delta / 2) elsewhere.
 *
 * Returns: (transfer full): the loss, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_huber_loss (DlTensor *input,
               DlTensor *target,
               DlReduction reduction,
               gdouble delta,
               GError **error)
{
  DL_AUTOCAST (DL_AUTOCAST_FP32, dl_huber_loss (a_[0], a_[1], reduction, delta, error), error,
               input, target);
  g_autoptr (DlTensor) d = NULL;

  if (!(delta > 0))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "huber_loss does not support non-positive values for delta, got %g", delta);
      return NULL;
    }
  if (!(d = difference ("huber_loss", input, target, reduction, error)))
    return NULL;
  return dl_loss_reduce (piecewise_quadratic (d, delta, 0.5, delta, error), reduction, error);
}

/* ---- binary classification and divergence --------------------------------- */

static gboolean
check_same_size (const gchar *name, DlTensor *input, DlTensor *target, GError **error)
{
  g_autofree gchar *is = NULL;
  g_autofree gchar *ts = NULL;

  if (same_shape (input, target))
    return TRUE;
  is = dl_loss_shape_string (input);
  ts = dl_loss_shape_string (target);
  g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
               "%s: Target size %s must be the same as input size %s", name, ts, is);
  return FALSE;
}

/* @loss times @weight when there is one; takes @loss */
static DlTensor *
weighted (DlTensor *loss, DlTensor *weight, GError **error)
{
  g_autoptr (DlTensor) owned = loss;

  if (!owned || !weight)
    return g_steal_pointer (&owned);
  return dl_tensor_mul (owned, weight, error);
}

/* max (log (x), -100) */
static DlTensor *
clamped_log (DlTensor *x, GError **error)
{
  g_autoptr (DlTensor) l = dl_tensor_log (x, error);

  return l ? dl_tensor_clamp_scalar (l, -100.0, INFINITY, error) : NULL;
}

/**
 * dl_binary_cross_entropy:
 * @input: probabilities in [0, 1]
 * @target: the targets, the shape of @input
 * @weight: (nullable): a weight per element, broadcastable to @input
 * @reduction: how the elements' losses combine
 * @error: return location for a #GError
 *
 * The binary cross-entropy -w (y log x + (1 - y) log (1 - x)), each log
 * clamped at -100 as PyTorch does, as
 * torch.nn.functional.binary_cross_entropy.
 *
 * Returns: (transfer full): the loss, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_binary_cross_entropy (DlTensor *input,
                         DlTensor *target,
                         DlTensor *weight,
                         DlReduction reduction,
                         GError **error)
{
  DL_AUTOCAST (DL_AUTOCAST_FP32, dl_binary_cross_entropy (a_[0], a_[1], a_[2], reduction, error),
               error, input, target, weight);
  g_autoptr (DlTensor) lo = NULL;
  g_autoptr (DlTensor) hi = NULL;
  g_autoptr (DlTensor) logx = NULL;
  g_autoptr (DlTensor) one_minus_x = NULL;
  g_autoptr (DlTensor) log1mx = NULL;
  g_autoptr (DlTensor) one_minus_y = NULL;
  g_autoptr (DlTensor) a = NULL;
  g_autoptr (DlTensor) b = NULL;
  g_autoptr (DlTensor) s = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (input) && DL_IS_TENSOR (target), NULL);
  g_return_val_if_fail (weight == NULL || DL_IS_TENSOR (weight), NULL);
  if (!dl_loss_check_reduction ("binary_cross_entropy", reduction, error))
    return NULL;
  if (!same_shape (input, target))
    {
      g_autofree gchar *is = dl_loss_shape_string (input);
      g_autofree gchar *ts = dl_loss_shape_string (target);
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "binary_cross_entropy: Using a target size (%s) that is different to the "
                   "input size (%s) is deprecated. Please ensure they have the same size.",
                   ts, is);
      return NULL;
    }
  if (dl_tensor_numel (input) > 0)
    {
      if (!(lo = dl_tensor_min (input, error)) || !(hi = dl_tensor_max (input, error)))
        return NULL;
      if (!(dl_tensor_item (lo, NULL) >= 0 && dl_tensor_item (hi, NULL) <= 1))
        {
          g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                       "binary_cross_entropy: all elements of input should be between 0 and 1");
          return NULL;
        }
    }
  if (!(logx = clamped_log (input, error))
      || !(one_minus_x = dl_tensor_rsub_scalar (input, 1, error))
      || !(log1mx = clamped_log (one_minus_x, error))
      || !(one_minus_y = dl_tensor_rsub_scalar (target, 1, error))
      || !(a = dl_tensor_mul (target, logx, error))
      || !(b = dl_tensor_mul (one_minus_y, log1mx, error)) || !(s = dl_tensor_add (a, b, error)))
    return NULL;
  return dl_loss_reduce (weighted (dl_tensor_neg (s, error), weight, error), reduction, error);
}

/**
 * dl_binary_cross_entropy_with_logits:
 * @input: unnormalised scores (logits)
 * @target: the targets, the shape of @input
 * @weight: (nullable): a weight per element, broadcastable to @input
 * @pos_weight: (nullable): a weight of the positive examples per class,
 *   broadcastable to @input (along its last dim)
 * @reduction: how the elements' losses combine
 * @error: return location for a #GError
 *
 * The binary cross-entropy of sigmoid (@input), computed from the logits
 * without overflow for any of their values, as
 * torch.nn.functional.binary_cross_entropy_with_logits:
 * w ((1 - y) x + (1 + (p - 1) y) log (1 + e^-x)).
 *
 * Returns: (transfer full): the loss, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_binary_cross_entropy_with_logits (DlTensor *input,
                                     DlTensor *target,
                                     DlTensor *weight,
                                     DlTensor *pos_weight,
                                     DlReduction reduction,
                                     GError **error)
{
  DL_AUTOCAST (DL_AUTOCAST_FP32,
               dl_binary_cross_entropy_with_logits (a_[0], a_[1], a_[2], a_[3], reduction, error),
               error, input, target, weight, pos_weight);
  g_autoptr (DlTensor) negx = NULL;
  g_autoptr (DlTensor) m = NULL;
  g_autoptr (DlTensor) negm = NULL;
  g_autoptr (DlTensor) e1 = NULL;
  g_autoptr (DlTensor) xm = NULL;
  g_autoptr (DlTensor) e2 = NULL;
  g_autoptr (DlTensor) es = NULL;
  g_autoptr (DlTensor) lg = NULL;
  g_autoptr (DlTensor) softplus = NULL;
  g_autoptr (DlTensor) one_minus_y = NULL;
  g_autoptr (DlTensor) lin = NULL;
  g_autoptr (DlTensor) scaled = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (input) && DL_IS_TENSOR (target), NULL);
  g_return_val_if_fail (weight == NULL || DL_IS_TENSOR (weight), NULL);
  g_return_val_if_fail (pos_weight == NULL || DL_IS_TENSOR (pos_weight), NULL);
  if (!dl_loss_check_reduction ("binary_cross_entropy_with_logits", reduction, error)
      || !check_same_size ("binary_cross_entropy_with_logits", input, target, error))
    return NULL;
  /* softplus (-x) = m + log (e^-m + e^(-x-m)), m = max (-x, 0): no term
   * overflows, and its derivative in m is 0, so relu's kink does not show */
  if (!(negx = dl_tensor_neg (input, error)) || !(m = dl_tensor_relu (negx, error))
      || !(negm = dl_tensor_neg (m, error)) || !(e1 = dl_tensor_exp (negm, error))
      || !(xm = dl_tensor_sub (negx, m, error)) || !(e2 = dl_tensor_exp (xm, error))
      || !(es = dl_tensor_add (e1, e2, error)) || !(lg = dl_tensor_log (es, error))
      || !(softplus = dl_tensor_add (lg, m, error))
      || !(one_minus_y = dl_tensor_rsub_scalar (target, 1, error))
      || !(lin = dl_tensor_mul (one_minus_y, input, error)))
    return NULL;
  if (pos_weight)
    {
      g_autoptr (DlTensor) pm1 = NULL;
      g_autoptr (DlTensor) py = NULL;
      g_autoptr (DlTensor) log_weight = NULL;

      if (!(pm1 = dl_tensor_sub_scalar (pos_weight, 1, error))
          || !(py = dl_tensor_mul (pm1, target, error))
          || !(log_weight = dl_tensor_add_scalar (py, 1, error))
          || !(scaled = dl_tensor_mul (log_weight, softplus, error)))
        return NULL;
    }
  else
    scaled = g_object_ref (softplus);
  return dl_loss_reduce (weighted (dl_tensor_add (lin, scaled, error), weight, error), reduction,
                         error);
}

/**
 * dl_kl_div:
 * @input: log-probabilities
 * @target: probabilities (log-probabilities with @log_target), the shape
 *   of @input or broadcastable to it
 * @reduction: how the elements' losses combine; %DL_REDUCTION_BATCHMEAN
 *   (the sum over the batch size) gives the KL divergence
 * @log_target: whether @target holds log-probabilities
 * @error: return location for a #GError
 *
 * The Kullback-Leibler divergence loss y (log y - x), or e^y (y - x) with
 * @log_target, as torch.nn.functional.kl_div.
 *
 * Returns: (transfer full): the loss, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_kl_div (DlTensor *input,
           DlTensor *target,
           DlReduction reduction,
           gboolean log_target,
           GError **error)
{
  DL_AUTOCAST (DL_AUTOCAST_FP32, dl_kl_div (a_[0], a_[1], reduction, log_target, error), error,
               input, target);
  g_autoptr (DlTensor) out = NULL;
  g_autoptr (DlTensor) yx = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (input) && DL_IS_TENSOR (target), NULL);
  if (reduction != DL_REDUCTION_BATCHMEAN && !dl_loss_check_reduction ("kl_div", reduction, error))
    return NULL;
  if (log_target)
    {
      g_autoptr (DlTensor) ey = NULL;
      g_autoptr (DlTensor) d = NULL;

      if (!(ey = dl_tensor_exp (target, error)) || !(d = dl_tensor_sub (target, input, error))
          || !(out = dl_tensor_mul (ey, d, error)))
        return NULL;
    }
  else
    {
      /* xlogy (y, y) - y x: 0 log 0 is 0, and a negative y gives nan */
      g_autoptr (DlTensor) zero = NULL;
      g_autoptr (DlTensor) safe = NULL;
      g_autoptr (DlTensor) logy = NULL;
      g_autoptr (DlTensor) ylogy = NULL;

      if (!(zero = dl_tensor_eq_scalar (target, 0, error))
          || !(safe = dl_tensor_masked_fill (target, zero, 1, error))
          || !(logy = dl_tensor_log (safe, error)) || !(ylogy = dl_tensor_mul (target, logy, error))
          || !(yx = dl_tensor_mul (target, input, error))
          || !(out = dl_tensor_sub (ylogy, yx, error)))
        return NULL;
    }
  if (reduction == DL_REDUCTION_BATCHMEAN)
    {
      g_autoptr (DlTensor) total = dl_tensor_sum (out, error);

      if (!total)
        return NULL;
      if (dl_tensor_get_ndim (input) == 0)
        return g_steal_pointer (&total);
      return dl_tensor_div_scalar (total, (gdouble)dl_tensor_get_size (input, 0, NULL), error);
    }
  return dl_loss_reduce (g_steal_pointer (&out), reduction, error);
}
