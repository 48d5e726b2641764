/* dl-margin-loss.c: the margin and embedding losses, with PyTorch's
 * formulas (aten/src/ATen/native/Loss*.cpp and torch.nn.functional,
 * restated). Where PyTorch composes the loss from ops, so does this file,
 * and the gradients are those of the ops:
 *   margin_ranking (x1, x2, y)  = max (0, -y (x1 - x2) + margin)
 *   hinge_embedding (x, y)      = [y != 1] max (0, margin - x) + [y != -1] x
 *   multilabel_soft_margin (x, y) = mean over the classes of
 *                                 -w (y logsigmoid (x) + (1 - y) logsigmoid (-x))
 *   cosine_embedding (x1, x2, y) = [y == 1] (1 - cos) + [y == -1] max (0, cos - margin),
 *                                 cos = x1.x2 / sqrt ((|x1|^2 + 1e-12) (|x2|^2 + 1e-12))
 *   triplet_margin (a, p, n)    = max (0, margin + d (a, p) - d (a, n)), d the
 *                                 pairwise distance (min (d (a, n), d (p, n)) with swap)
 * Where PyTorch has one node, so does this file (SoftMarginLossBackward0,
 * MultiMarginLossBackward0, MultilabelMarginLossBackward0): the values are
 * computed without recording, and the backward is written with ops, so
 * that it is differentiable in turn:
 *   soft_margin (x, y)          = log (1 + e^(-y x));  d/dx = -y sigmoid (-y x)
 *   multi_margin (x, t)         = sum_{i != t} w_t max (0, margin - x_t + x_i)^p / C
 *   multilabel_margin (x, t)    = sum_{j in t, i not in t} max (0, 1 - x_j + x_i) / C,
 *                                 t's classes those before its first -1
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>

#include "dl-margin-loss.h"
#include "dl-distance.h"
#include "dl-loss-private.h"
#include "dl-error.h"
#include "dl-node-private.h"
#include "ops/dl-ops-activation.h"
#include "ops/dl-ops-creation.h"
#include "ops/dl-ops-index.h"
#include "ops/dl-ops-math.h"
#include "ops/dl-ops-pointwise.h"
#include "ops/dl-ops-reduce.h"
#include "ops/dl-ops-scan.h"
#include "ops/dl-ops-shape.h"
#include "dl-module-private.h"

/* ---- shared --------------------------------------------------------------- */

typedef struct
{
  DlSavedTensor x;
} ClampMinState;

/* d max (x, 0) / dx = go where x >= 0 */
static gboolean
clamp_min0_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  const ClampMinState *s = dl_node_state (node);
  DlTensor *x;
  g_autoptr (DlTensor) mask = NULL;

  if (!(x = dl_node_saved (node, &s->x, error)) || !(mask = dl_tensor_ge_scalar (x, 0, error)))
    return FALSE;
  gi[0] = dl_tensor_mul (go[0], mask, error);
  return gi[0] != NULL;
}

/* max (@x, 0), recorded as torch's x.clamp_min (0) (ClampMinBackward0);
 * takes @x (NULL passes through) */
static DlTensor *
clamp_min0 (DlTensor *x, GError **error)
{
  g_autoptr (DlTensor) owned = x;
  g_autoptr (DlTensor) out = NULL;
  gboolean was;

  if (!owned)
    return NULL;
  was = dl_set_grad_enabled (FALSE);
  out = dl_tensor_clamp_scalar (owned, 0, INFINITY, error);
  dl_set_grad_enabled (was);
  if (out && dl_dtype_is_floating_point (dl_tensor_get_dtype (out))
      && dl_autograd_any_requires (1, &owned))
    {
      g_autoptr (DlNode) node
          = dl_node_new_for_op ("ClampMinBackward0", clamp_min0_backward, 1, &owned);
      ClampMinState *s = DL_NODE_NEW_STATE (node, ClampMinState);

      dl_node_save (node, &s->x, owned, FALSE);
      dl_node_set_output (node, out, 0);
    }
  return g_steal_pointer (&out);
}

/* zeros of @like's shape, dtype and device (dl-loss-private.h) */
DlTensor *
dl_loss_zeros_like (DlTensor *like, GError **error)
{
  gsize nd;
  const gint64 *shape = dl_tensor_get_shape (like, &nd);

  return dl_zeros (shape, nd, dl_tensor_get_dtype (like), dl_tensor_get_device (like), error);
}

/* A backward's incoming gradient as one factor per sample, of @shape (the
 * shape of the 'none' loss, with any trailing 1s the caller broadcasts
 * over): @go itself for 'none', @go (divided by the number of samples for
 * 'mean') expanded for the others */
static DlTensor *
per_sample (DlTensor *go, DlReduction reduction, const gint64 *shape, gsize nd, GError **error)
{
  g_autoptr (DlTensor) scaled = NULL;
  gint64 n = 1;

  if (reduction == DL_REDUCTION_NONE)
    return dl_nn_reshape (go, shape, nd, error);
  for (gsize i = 0; i < nd; i++)
    n *= shape[i];
  if (!(scaled = reduction == DL_REDUCTION_MEAN ? dl_tensor_div_scalar (go, (gdouble)n, error)
                                                : g_object_ref (go)))
    return NULL;
  return dl_tensor_expand (scaled, shape, nd, error);
}

/* What the backward of a loss's node reads: the input, the target and
 * the reduction (the first member of a larger state) */
typedef struct
{
  DlSavedTensor input, target;
  DlReduction reduction;
} TargetState;

/* Records @out, computed without history, as the output of one node
 * @name over @input, whose state (of @state_size bytes, a TargetState
 * first) saves @input and @target; returns the state for the caller to
 * fill the rest of (NULL when @input needs no gradient) */
static gpointer
record_with_target (const gchar *name,
                    DlBackwardFunc backward,
                    DlTensor *input,
                    DlTensor *target,
                    DlReduction reduction,
                    DlTensor *out,
                    gsize state_size)
{
  g_autoptr (DlNode) node = NULL;
  TargetState *st;

  if (!dl_autograd_any_requires (1, &input))
    return NULL;
  node = dl_node_new_for_op (name, backward, 1, &input);
  st = dl_node_alloc_state (node, state_size, NULL);
  st->reduction = reduction;
  dl_node_save (node, &st->input, input, FALSE);
  dl_node_save (node, &st->target, target, FALSE);
  dl_node_set_output (node, out, 0);
  return st;
}

/* the per-sample losses @per (a batch of one for @unbatched) reduced;
 * 'none' of an unbatched call takes the batch off again */
static DlTensor *
reduce_samples (DlTensor *per, gboolean unbatched, DlReduction reduction, GError **error)
{
  if (!per)
    return NULL;
  if (reduction == DL_REDUCTION_NONE && unbatched)
    return dl_tensor_squeeze_dim (per, 0, error);
  return dl_loss_reduce (g_object_ref (per), reduction, error);
}

/* ---- margin_ranking_loss, hinge_embedding_loss ------------------------------ */

/**
 * dl_margin_ranking_loss:
 * @input1: the first scores
 * @input2: the second scores, of as many dims as @input1
 * @target: 1 where @input1 should rank higher, -1 where @input2 should,
 *   of as many dims as the inputs (all three broadcast together)
 * @margin: the margin (PyTorch's default is 0)
 * @reduction: how the elements' losses combine
 * @error: return location for a #GError
 *
 * The margin ranking loss max (0, -y (x1 - x2) + margin), as
 * torch.nn.functional.margin_ranking_loss.
 *
 * Fails with %DL_ERROR_SHAPE when the inputs' numbers of dims differ or
 * their shapes do not broadcast.
 *
 * Returns: (transfer full): the loss, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_margin_ranking_loss (DlTensor *input1,
                        DlTensor *input2,
                        DlTensor *target,
                        gdouble margin,
                        DlReduction reduction,
                        GError **error)
{
  g_autoptr (DlTensor) neg = NULL;
  g_autoptr (DlTensor) diff = NULL;
  g_autoptr (DlTensor) prod = NULL;
  g_autoptr (DlTensor) shifted = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (input1) && DL_IS_TENSOR (input2), NULL);
  g_return_val_if_fail (DL_IS_TENSOR (target), NULL);
  if (!dl_loss_check_reduction ("margin_ranking_loss", reduction, error))
    return NULL;
  if (dl_tensor_get_ndim (input1) != dl_tensor_get_ndim (input2)
      || dl_tensor_get_ndim (input1) != dl_tensor_get_ndim (target))
    {
      g_autofree gchar *s1 = dl_loss_shape_string (input1);
      g_autofree gchar *s2 = dl_loss_shape_string (input2);
      g_autofree gchar *st = dl_loss_shape_string (target);

      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "margin_ranking_loss : All input tensors should have same dimension but got "
                   "sizes: input1: %s, input2: %s, target: %s",
                   s1, s2, st);
      return NULL;
    }
  if (!(neg = dl_tensor_neg (target, error)) || !(diff = dl_tensor_sub (input1, input2, error))
      || !(prod = dl_tensor_mul (neg, diff, error))
      || !(shifted = dl_tensor_add_scalar (prod, margin, error)))
    {
      g_prefix_error (error, "margin_ranking_loss: ");
      return NULL;
    }
  return dl_loss_reduce (clamp_min0 (g_steal_pointer (&shifted), error), reduction, error);
}

/**
 * dl_hinge_embedding_loss:
 * @input: the distances (or scores)
 * @target: 1 for similar pairs, -1 for dissimilar ones, broadcastable
 *   with @input
 * @margin: the margin (PyTorch's default is 1)
 * @reduction: how the elements' losses combine
 * @error: return location for a #GError
 *
 * The hinge embedding loss, as torch.nn.functional.hinge_embedding_loss:
 * x where the target is 1, max (0, margin - x) where it is -1 (and the sum
 * of both for any other target value, as PyTorch computes it).
 *
 * Returns: (transfer full): the loss, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_hinge_embedding_loss (DlTensor *input,
                         DlTensor *target,
                         gdouble margin,
                         DlReduction reduction,
                         GError **error)
{
  g_autoptr (DlTensor) zeros = NULL;
  g_autoptr (DlTensor) margin_clamp = NULL;
  g_autoptr (DlTensor) not_pos = NULL;
  g_autoptr (DlTensor) not_neg = NULL;
  g_autoptr (DlTensor) out_margin = NULL;
  g_autoptr (DlTensor) out_self = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (input) && DL_IS_TENSOR (target), NULL);
  if (!dl_loss_check_reduction ("hinge_embedding_loss", reduction, error))
    return NULL;
  if (!(zeros = dl_loss_zeros_like (input, error))
      || !(margin_clamp = clamp_min0 (dl_tensor_rsub_scalar (input, margin, error), error))
      || !(not_pos = dl_tensor_ne_scalar (target, 1, error))
      || !(out_margin = dl_where (not_pos, margin_clamp, zeros, error))
      || !(not_neg = dl_tensor_ne_scalar (target, -1, error))
      || !(out_self = dl_where (not_neg, input, zeros, error)))
    {
      g_prefix_error (error, "hinge_embedding_loss: ");
      return NULL;
    }
  return dl_loss_reduce (dl_tensor_add (out_margin, out_self, error), reduction, error);
}

/* ---- soft_margin_loss: SoftMarginLossBackward0 ------------------------------- */

/* d loss / dx = -y sigmoid (-y x) go (over the numel for 'mean') */
static gboolean
soft_margin_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  const TargetState *s = dl_node_state (node);
  DlTensor *x, *y;
  gsize nd;
  const gint64 *shape;
  g_autoptr (DlTensor) g = NULL;
  g_autoptr (DlTensor) negy = NULL;
  g_autoptr (DlTensor) z = NULL;
  g_autoptr (DlTensor) sig = NULL;
  g_autoptr (DlTensor) d = NULL;

  if (!(x = dl_node_saved (node, &s->input, error))
      || !(y = dl_node_saved (node, &s->target, error)))
    return FALSE;
  shape = dl_tensor_get_shape (x, &nd);
  if (!(g = per_sample (go[0], s->reduction, shape, nd, error))
      || !(negy = dl_tensor_neg (y, error)) || !(z = dl_tensor_mul (negy, x, error))
      || !(sig = dl_tensor_sigmoid (z, error)) || !(d = dl_tensor_mul (negy, sig, error)))
    return FALSE;
  gi[0] = dl_tensor_mul (d, g, error);
  return gi[0] != NULL;
}

/**
 * dl_soft_margin_loss:
 * @input: the scores
 * @target: the labels, 1 or -1, broadcastable to the shape of @input
 * @reduction: how the elements' losses combine
 * @error: return location for a #GError
 *
 * The two-class logistic loss log (1 + e^(-y x)), as
 * torch.nn.functional.soft_margin_loss, recorded as one node
 * (SoftMarginLossBackward0), differentiable with respect to @input. As in
 * PyTorch, a @target that requires grad (with grad mode on) is an error
 * (%DL_ERROR_AUTOGRAD): the loss has no derivative for it.
 *
 * Returns: (transfer full): the loss, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_soft_margin_loss (DlTensor *input, DlTensor *target, DlReduction reduction, GError **error)
{
  gsize nd;
  const gint64 *shape;
  g_autoptr (DlTensor) y = NULL;
  g_autoptr (DlTensor) negx = NULL;
  g_autoptr (DlTensor) z = NULL;
  g_autoptr (DlTensor) e = NULL;
  g_autoptr (DlTensor) out = NULL;
  gboolean was;

  g_return_val_if_fail (DL_IS_TENSOR (input) && DL_IS_TENSOR (target), NULL);
  if (!dl_loss_check_reduction ("soft_margin_loss", reduction, error))
    return NULL;
  if (dl_autograd_any_requires (1, &target))
    {
      /* torch defines no derivative for the target of this loss */
      g_set_error (error, DL_ERROR, DL_ERROR_AUTOGRAD,
                   "The function 'soft_margin_loss' is not differentiable with respect to "
                   "argument 'target'. This input cannot have requires_grad True.");
      return NULL;
    }
  shape = dl_tensor_get_shape (input, &nd);
  if (!(y = dl_tensor_expand (target, shape, nd, NULL)))
    {
      g_autofree gchar *is = dl_loss_shape_string (input);
      g_autofree gchar *ts = dl_loss_shape_string (target);

      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "soft_margin_loss: the target's size %s does not broadcast to the input's "
                   "size %s",
                   ts, is);
      return NULL;
    }
  was = dl_set_grad_enabled (FALSE);
  if ((negx = dl_tensor_neg (input, error)) && (z = dl_tensor_mul (negx, y, error))
      && (e = dl_tensor_exp (z, error)))
    out = dl_loss_reduce (dl_tensor_log1p (e, error), reduction, error);
  dl_set_grad_enabled (was);
  if (!out)
    return NULL;
  record_with_target ("SoftMarginLossBackward0", soft_margin_backward, input, y, reduction, out,
                      sizeof (TargetState));
  return g_steal_pointer (&out);
}

/* ---- multilabel_soft_margin_loss -------------------------------------------- */

/**
 * dl_multilabel_soft_margin_loss:
 * @input: the scores, shape [N, C] (or [C])
 * @target: the labels, 0 or 1, the shape of @input
 * @weight: (nullable): a weight per class, broadcastable to @input
 * @reduction: how the samples' losses combine
 * @error: return location for a #GError
 *
 * The multi-label one-versus-all loss, as
 * torch.nn.functional.multilabel_soft_margin_loss: per sample, the mean
 * over the classes (the last dim) of
 * -w (y logsigmoid (x) + (1 - y) logsigmoid (-x)).
 *
 * Returns: (transfer full): the loss, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_multilabel_soft_margin_loss (DlTensor *input,
                                DlTensor *target,
                                DlTensor *weight,
                                DlReduction reduction,
                                GError **error)
{
  gint64 class_dim, n_classes;
  g_autoptr (DlTensor) ls = NULL;
  g_autoptr (DlTensor) negx = NULL;
  g_autoptr (DlTensor) lsn = NULL;
  g_autoptr (DlTensor) one_minus_y = NULL;
  g_autoptr (DlTensor) a = NULL;
  g_autoptr (DlTensor) b = NULL;
  g_autoptr (DlTensor) s = NULL;
  g_autoptr (DlTensor) loss = NULL;
  g_autoptr (DlTensor) per = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (input) && DL_IS_TENSOR (target), NULL);
  g_return_val_if_fail (weight == NULL || DL_IS_TENSOR (weight), NULL);
  if (!dl_loss_check_reduction ("multilabel_soft_margin_loss", reduction, error))
    return NULL;
  if (dl_tensor_get_ndim (input) == 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_INDEX,
                   "multilabel_soft_margin_loss: dimension specified as -1 but tensor has no "
                   "dimensions");
      return NULL;
    }
  class_dim = (gint64)dl_tensor_get_ndim (input) - 1;
  n_classes = dl_tensor_get_size (input, class_dim, NULL);
  if (!(ls = dl_tensor_logsigmoid (input, error)) || !(negx = dl_tensor_neg (input, error))
      || !(lsn = dl_tensor_logsigmoid (negx, error)) || !(a = dl_tensor_mul (target, ls, error))
      || !(one_minus_y = dl_tensor_rsub_scalar (target, 1, error))
      || !(b = dl_tensor_mul (one_minus_y, lsn, error)) || !(s = dl_tensor_add (a, b, error))
      || !(loss = dl_tensor_neg (s, error)))
    return NULL;
  if (weight)
    {
      g_autoptr (DlTensor) w = dl_tensor_mul (loss, weight, error);

      if (!w)
        return NULL;
      g_set_object (&loss, w);
    }
  if (!(per = dl_tensor_sum_dims (loss, &class_dim, 1, FALSE, error)))
    return NULL;
  return dl_loss_reduce (dl_tensor_div_scalar (per, (gdouble)n_classes, error), reduction, error);
}

/* ---- the class-index margin losses: shapes ----------------------------------- */

/* [C] (or a 0-d input, one class) seen as a batch of one [1, C]; checks
 * the input as PyTorch's shape checks do */
static DlTensor *
batch_input (const gchar *name, DlTensor *input, GError **error)
{
  gsize nd;
  const gint64 *shape = dl_tensor_get_shape (input, &nd);

  if (!((nd == 2 && shape[1] != 0) || (nd == 1 && shape[0] != 0) || nd == 0))
    {
      g_autofree gchar *is = dl_loss_shape_string (input);

      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "%s: Expected non-empty vector or matrix with optional 0-dim batch size, but "
                   "got: %s",
                   name, is);
      return NULL;
    }
  if (nd == 2)
    return g_object_ref (input);
  return dl_nn_reshape (input, (gint64[]){ 1, -1 }, 2, error);
}

static gboolean
check_int64_target (const gchar *name, DlTensor *target, GError **error)
{
  if (dl_tensor_get_dtype (target) == DL_DTYPE_INT64)
    return TRUE;
  g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
               "%s: expected scalar type Long but found %s (the target holds class indices)", name,
               dl_dtype_get_name (dl_tensor_get_dtype (target)));
  return FALSE;
}

/* whether every element of the int64 tensor @t is in [lo, hi) */
static gboolean
in_range (DlTensor *t, gint64 lo, gint64 hi, gboolean *ok, GError **error)
{
  g_autoptr (DlTensor) min = NULL;
  g_autoptr (DlTensor) max = NULL;

  *ok = TRUE;
  if (dl_tensor_numel (t) == 0)
    return TRUE;
  if (!(min = dl_tensor_min (t, error)) || !(max = dl_tensor_max (t, error)))
    return FALSE;
  *ok = dl_tensor_item (min, NULL) >= lo && dl_tensor_item (max, NULL) < hi;
  return TRUE;
}

/* the gradient of a class-index margin loss from @gx [N, C], each sample's
 * derivative times C: scaled by the incoming gradient @go of its sample
 * over C, in the shape of @input */
static DlTensor *
class_gradient (DlTensor *gx, DlTensor *go, DlReduction reduction, DlTensor *input, GError **error)
{
  const gint64 n = dl_tensor_get_size (gx, 0, NULL), c = dl_tensor_get_size (gx, 1, NULL);
  gsize nd;
  const gint64 *shape = dl_tensor_get_shape (input, &nd);
  g_autoptr (DlTensor) g = NULL;
  g_autoptr (DlTensor) scaled = NULL;
  g_autoptr (DlTensor) grad = NULL;

  if (!(g = per_sample (go, reduction, (gint64[]){ n, 1 }, 2, error))
      || !(scaled = dl_tensor_div_scalar (g, (gdouble)c, error))
      || !(grad = dl_tensor_mul (gx, scaled, error)))
    return NULL;
  return dl_nn_reshape (grad, shape, nd, error);
}

/* ---- multi_margin_loss: MultiMarginLossBackward0 ------------------------------ */

typedef struct
{
  TargetState base;
  DlSavedTensor weight;
  gboolean has_weight;
  gint64 p;
  gdouble margin;
} MultiMarginState;

/* For batched x [N, C], t [N]: m = margin - x_t + x (the margins, [N, C]),
 * others = 1 - one_hot (t) and the per-sample weight w_t [N, 1] (NULL
 * without @weight) */
static gboolean
multi_margin_parts (DlTensor *x,
                    DlTensor *t,
                    DlTensor *weight,
                    gdouble margin,
                    DlTensor **m,
                    DlTensor **others,
                    DlTensor **wt,
                    GError **error)
{
  gint64 c = dl_tensor_get_size (x, 1, NULL);
  g_autoptr (DlTensor) tcol = NULL;
  g_autoptr (DlTensor) xt = NULL;
  g_autoptr (DlTensor) diff = NULL;
  g_autoptr (DlTensor) hot = NULL;
  g_autoptr (DlTensor) hotf = NULL;
  g_autoptr (DlTensor) wsel = NULL;

  if (!(tcol = dl_tensor_unsqueeze (t, 1, error)) || !(xt = dl_tensor_gather (x, 1, tcol, error))
      || !(diff = dl_tensor_sub (x, xt, error))
      || !(*m = dl_tensor_add_scalar (diff, margin, error)))
    return FALSE;
  if (!(hot = dl_one_hot (t, c, error))
      || !(hotf = dl_tensor_to_dtype (hot, dl_tensor_get_dtype (x), error))
      || !(*others = dl_tensor_rsub_scalar (hotf, 1, error)))
    return FALSE;
  *wt = NULL;
  if (weight)
    {
      g_autoptr (DlTensor) wcast = NULL;

      if (!(wcast = dl_tensor_to_dtype (weight, dl_tensor_get_dtype (x), error))
          || !(wsel = dl_tensor_index_select (wcast, 0, t, error))
          || !(*wt = dl_tensor_unsqueeze (wsel, 1, error)))
        return FALSE;
    }
  return TRUE;
}

/* the loss of each sample of batched x [N, C], t [N] */
static DlTensor *
multi_margin_forward (DlTensor *x,
                      DlTensor *t,
                      gint64 p,
                      gdouble margin,
                      DlTensor *weight,
                      GError **error)
{
  g_autoptr (DlTensor) m = NULL;
  g_autoptr (DlTensor) others = NULL;
  g_autoptr (DlTensor) wt = NULL;
  g_autoptr (DlTensor) z = NULL;
  g_autoptr (DlTensor) h = NULL;
  g_autoptr (DlTensor) masked = NULL;
  g_autoptr (DlTensor) per = NULL;

  if (!multi_margin_parts (x, t, weight, margin, &m, &others, &wt, error)
      || !(z = clamp_min0 (g_object_ref (m), error))
      || !(h = p == 2 ? dl_tensor_mul (z, z, error) : g_object_ref (z)))
    return NULL;
  if (wt)
    {
      g_autoptr (DlTensor) hw = dl_tensor_mul (h, wt, error);

      if (!hw)
        return NULL;
      g_set_object (&h, hw);
    }
  if (!(masked = dl_tensor_mul (h, others, error))
      || !(per = dl_tensor_sum_dims (masked, (gint64[]){ 1 }, 1, FALSE, error)))
    return NULL;
  return dl_tensor_div_scalar (per, (gdouble)dl_tensor_get_size (x, 1, NULL), error);
}

/* d loss / dx_i = w_t d_i / C for i != t, -w_t sum_i d_i / C at t, with
 * d_i = [m_i > 0] (p = 1) or 2 m_i [m_i > 0] (p = 2) */
static gboolean
multi_margin_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  const MultiMarginState *s = dl_node_state (node);
  DlTensor *input, *target, *weight = NULL;
  g_autoptr (DlTensor) x = NULL;
  g_autoptr (DlTensor) t = NULL;
  g_autoptr (DlTensor) m = NULL;
  g_autoptr (DlTensor) others = NULL;
  g_autoptr (DlTensor) wt = NULL;
  g_autoptr (DlTensor) pos = NULL;
  g_autoptr (DlTensor) posf = NULL;
  g_autoptr (DlTensor) active = NULL;
  g_autoptr (DlTensor) d = NULL;
  g_autoptr (DlTensor) total = NULL;
  g_autoptr (DlTensor) hot = NULL;
  g_autoptr (DlTensor) at_t = NULL;
  g_autoptr (DlTensor) gx = NULL;

  if (!(input = dl_node_saved (node, &s->base.input, error))
      || !(target = dl_node_saved (node, &s->base.target, error))
      || (s->has_weight && !(weight = dl_node_saved (node, &s->weight, error))))
    return FALSE;
  if (!(x = batch_input ("multi_margin_loss", input, error))
      || !(t = dl_nn_reshape (target, (gint64[]){ -1 }, 1, error)))
    return FALSE;
  if (!multi_margin_parts (x, t, weight, s->margin, &m, &others, &wt, error)
      || !(pos = dl_tensor_gt_scalar (m, 0, error))
      || !(posf = dl_tensor_to_dtype (pos, dl_tensor_get_dtype (x), error))
      || !(active = dl_tensor_mul (posf, others, error)))
    return FALSE;
  if (s->p == 2)
    {
      g_autoptr (DlTensor) m2 = dl_tensor_mul_scalar (m, 2, error);

      if (!m2 || !(d = dl_tensor_mul (m2, active, error)))
        return FALSE;
    }
  else
    d = g_object_ref (active);
  if (wt)
    {
      g_autoptr (DlTensor) dw = dl_tensor_mul (d, wt, error);

      if (!dw)
        return FALSE;
      g_set_object (&d, dw);
    }
  if (!(total = dl_tensor_sum_dims (d, (gint64[]){ 1 }, 1, TRUE, error))
      || !(hot = dl_tensor_rsub_scalar (others, 1, error))
      || !(at_t = dl_tensor_mul (hot, total, error)) || !(gx = dl_tensor_sub (d, at_t, error)))
    return FALSE;
  return (gi[0] = class_gradient (gx, go[0], s->base.reduction, input, error)) != NULL;
}

/**
 * dl_multi_margin_loss:
 * @input: the scores, shape [N, C] or [C]
 * @target: the class of each sample, int64, shape [N] (one element for an
 *   input [C]), each in [0, C)
 * @p: 1 or 2: the power of the hinge (PyTorch's default is 1)
 * @margin: the margin (PyTorch's default is 1)
 * @weight: (nullable): a weight per class, shape [C]
 * @reduction: how the samples' losses combine
 * @error: return location for a #GError
 *
 * The multi-class hinge loss, as torch.nn.functional.multi_margin_loss:
 * per sample, the sum over the classes i other than its target t of
 * w_t max (0, margin - x_t + x_i)^p, divided by the number of classes.
 * Recorded as one node (MultiMarginLossBackward0), differentiable with
 * respect to @input.
 *
 * Fails with %DL_ERROR_ARGUMENT for a @p other than 1 and 2,
 * %DL_ERROR_SHAPE when the shapes do not match and %DL_ERROR_ARGUMENT for a
 * class out of range.
 *
 * Returns: (transfer full): the loss, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_multi_margin_loss (DlTensor *input,
                      DlTensor *target,
                      gint64 p,
                      gdouble margin,
                      DlTensor *weight,
                      DlReduction reduction,
                      GError **error)
{
  const gchar *name = "multi_margin_loss";
  g_autoptr (DlTensor) x = NULL;
  g_autoptr (DlTensor) t = NULL;
  g_autoptr (DlTensor) per = NULL;
  g_autoptr (DlTensor) out = NULL;
  MultiMarginState *st;
  gint64 n, c;
  gboolean ok, was;

  g_return_val_if_fail (DL_IS_TENSOR (input) && DL_IS_TENSOR (target), NULL);
  g_return_val_if_fail (weight == NULL || DL_IS_TENSOR (weight), NULL);
  if (!dl_loss_check_reduction (name, reduction, error))
    return NULL;
  if (p != 1 && p != 2)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s: only p == 1 and p == 2 supported, got %" G_GINT64_FORMAT, name, p);
      return NULL;
    }
  if (!(x = batch_input (name, input, error)))
    return NULL;
  n = dl_tensor_get_size (x, 0, NULL);
  c = dl_tensor_get_size (x, 1, NULL);
  if (weight && !(dl_tensor_get_ndim (weight) <= 1 && dl_tensor_numel (weight) == c))
    {
      g_autofree gchar *ws = dl_loss_shape_string (weight);

      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "%s: inconsistent weight size, expected %" G_GINT64_FORMAT " but got %s", name,
                   c, ws);
      return NULL;
    }
  if (!(dl_tensor_get_ndim (target) <= 1 && dl_tensor_numel (target) == n))
    {
      g_autofree gchar *ts = dl_loss_shape_string (target);

      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "%s: inconsistent target size, expected %" G_GINT64_FORMAT " but got %s", name,
                   n, ts);
      return NULL;
    }
  if (!check_int64_target (name, target, error)
      || !(t = dl_nn_reshape (target, (gint64[]){ -1 }, 1, error))
      || !in_range (t, 0, c, &ok, error))
    return NULL;
  if (!ok)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s: target out of range: the classes must be in [0, %" G_GINT64_FORMAT ")",
                   name, c);
      return NULL;
    }
  was = dl_set_grad_enabled (FALSE);
  per = multi_margin_forward (x, t, p, margin, weight, error);
  out = reduce_samples (per, dl_tensor_get_ndim (target) == 0, reduction, error);
  dl_set_grad_enabled (was);
  if (!out)
    return NULL;
  if ((st = record_with_target ("MultiMarginLossBackward0", multi_margin_backward, input, t,
                                reduction, out, sizeof (MultiMarginState))))
    {
      st->p = p;
      st->margin = margin;
      st->has_weight = weight != NULL;
      if (weight)
        /* the node just recorded, out's grad_fn, keeps the weight too */
        dl_node_save (dl_tensor_get_grad_fn (out), &st->weight, weight, FALSE);
    }
  return g_steal_pointer (&out);
}

/* ---- multilabel_margin_loss: MultilabelMarginLossBackward0 ------------------- */

/* For batched x [N, C] and t [N, C]: valid [N, C, 1] (1 before the
 * first -1 of each row of t), the target classes y [N, C] (0 past
 * them), the margins 1 - x_y + x [N, C, C] (a target slot by a class) and
 * their mask [N, C, C] (valid slots by non-target classes) */
static gboolean
multilabel_parts (DlTensor *x,
                  DlTensor *t,
                  DlTensor **y,
                  DlTensor **margins,
                  DlTensor **mask,
                  GError **error)
{
  gint64 c = dl_tensor_get_size (x, 1, NULL);
  DlDType dt = dl_tensor_get_dtype (x);
  g_autoptr (DlTensor) kept = NULL;
  g_autoptr (DlTensor) kept64 = NULL;
  g_autoptr (DlTensor) run = NULL;
  g_autoptr (DlTensor) valid = NULL;
  g_autoptr (DlTensor) invalid = NULL;
  g_autoptr (DlTensor) hot = NULL;
  g_autoptr (DlTensor) hotf = NULL;
  g_autoptr (DlTensor) valid3 = NULL;
  g_autoptr (DlTensor) hot_valid = NULL;
  g_autoptr (DlTensor) counts = NULL;
  g_autoptr (DlTensor) is_target = NULL;
  g_autoptr (DlTensor) is_targetf = NULL;
  g_autoptr (DlTensor) non_target = NULL;
  g_autoptr (DlTensor) non_target3 = NULL;
  g_autoptr (DlTensor) xy = NULL;
  g_autoptr (DlTensor) xy3 = NULL;
  g_autoptr (DlTensor) x3 = NULL;
  g_autoptr (DlTensor) diff = NULL;

  if (!(kept = dl_tensor_ne_scalar (t, -1, error))
      || !(kept64 = dl_tensor_to_dtype (kept, DL_DTYPE_INT64, error))
      || !(run = dl_tensor_cumprod (kept64, 1, error))
      || !(valid = dl_tensor_to_dtype (run, dt, error))
      || !(invalid = dl_tensor_eq_scalar (run, 0, error))
      || !(*y = dl_tensor_masked_fill (t, invalid, 0, error)))
    return FALSE;
  if (!(hot = dl_one_hot (*y, c, error)) || !(hotf = dl_tensor_to_dtype (hot, dt, error))
      || !(valid3 = dl_tensor_unsqueeze (valid, 2, error))
      || !(hot_valid = dl_tensor_mul (hotf, valid3, error))
      || !(counts = dl_tensor_sum_dims (hot_valid, (gint64[]){ 1 }, 1, FALSE, error))
      || !(is_target = dl_tensor_gt_scalar (counts, 0, error))
      || !(is_targetf = dl_tensor_to_dtype (is_target, dt, error))
      || !(non_target = dl_tensor_rsub_scalar (is_targetf, 1, error))
      || !(non_target3 = dl_tensor_unsqueeze (non_target, 1, error))
      || !(*mask = dl_tensor_mul (valid3, non_target3, error)))
    return FALSE;
  if (!(xy = dl_tensor_gather (x, 1, *y, error)) || !(xy3 = dl_tensor_unsqueeze (xy, 2, error))
      || !(x3 = dl_tensor_unsqueeze (x, 1, error)) || !(diff = dl_tensor_sub (x3, xy3, error))
      || !(*margins = dl_tensor_add_scalar (diff, 1, error)))
    return FALSE;
  return TRUE;
}

/* the [N] losses of batched x, t */
static DlTensor *
multilabel_forward (DlTensor *x, DlTensor *t, GError **error)
{
  g_autoptr (DlTensor) y = NULL;
  g_autoptr (DlTensor) margins = NULL;
  g_autoptr (DlTensor) mask = NULL;
  g_autoptr (DlTensor) z = NULL;
  g_autoptr (DlTensor) masked = NULL;
  g_autoptr (DlTensor) per = NULL;

  if (!multilabel_parts (x, t, &y, &margins, &mask, error)
      || !(z = clamp_min0 (g_object_ref (margins), error))
      || !(masked = dl_tensor_mul (z, mask, error))
      || !(per = dl_tensor_sum_dims (masked, (gint64[]){ 1, 2 }, 2, FALSE, error)))
    return NULL;
  return dl_tensor_div_scalar (per, (gdouble)dl_tensor_get_size (x, 1, NULL), error);
}

/* d loss / dx_i = (the number of target slots j whose margin against
 * the non-target i is positive) / C, minus at each target class the
 * number of non-targets its margins are positive against, / C */
static gboolean
multilabel_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  const TargetState *s = dl_node_state (node);
  DlTensor *input, *target;
  g_autoptr (DlTensor) x = NULL;
  g_autoptr (DlTensor) t = NULL;
  g_autoptr (DlTensor) y = NULL;
  g_autoptr (DlTensor) margins = NULL;
  g_autoptr (DlTensor) mask = NULL;
  g_autoptr (DlTensor) pos = NULL;
  g_autoptr (DlTensor) posf = NULL;
  g_autoptr (DlTensor) active = NULL;
  g_autoptr (DlTensor) as_other = NULL;
  g_autoptr (DlTensor) as_target = NULL;
  g_autoptr (DlTensor) neg_target = NULL;
  g_autoptr (DlTensor) gx = NULL;

  if (!(input = dl_node_saved (node, &s->input, error))
      || !(target = dl_node_saved (node, &s->target, error)))
    return FALSE;
  if (!(x = batch_input ("multilabel_margin_loss", input, error)) || !(t = g_object_ref (target)))
    return FALSE;
  if (!multilabel_parts (x, t, &y, &margins, &mask, error)
      || !(pos = dl_tensor_gt_scalar (margins, 0, error))
      || !(posf = dl_tensor_to_dtype (pos, dl_tensor_get_dtype (x), error))
      || !(active = dl_tensor_mul (posf, mask, error))
      || !(as_other = dl_tensor_sum_dims (active, (gint64[]){ 1 }, 1, FALSE, error))
      || !(as_target = dl_tensor_sum_dims (active, (gint64[]){ 2 }, 1, FALSE, error))
      || !(neg_target = dl_tensor_neg (as_target, error))
      || !(gx = dl_tensor_scatter_add (as_other, 1, y, neg_target, error)))
    return FALSE;
  return (gi[0] = class_gradient (gx, go[0], s->reduction, input, error)) != NULL;
}

/**
 * dl_multilabel_margin_loss:
 * @input: the scores, shape [N, C] or [C]
 * @target: int64, the shape of @input: each row lists the sample's
 *   classes, ended by -1 (or by the row's end); what follows the first
 *   -1 is not read
 * @reduction: how the samples' losses combine
 * @error: return location for a #GError
 *
 * The multi-class multi-label hinge loss, as
 * torch.nn.functional.multilabel_margin_loss: per sample, the sum over
 * its target classes j and the other classes i of max (0, 1 - (x_j -
 * x_i)), divided by the number of classes. Recorded as one node
 * (MultilabelMarginLossBackward0), differentiable with respect to @input.
 *
 * Returns: (transfer full): the loss ([N] for 'none' of a batch, 0-d
 *   otherwise), or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_multilabel_margin_loss (DlTensor *input, DlTensor *target, DlReduction reduction, GError **error)
{
  const gchar *name = "multilabel_margin_loss";
  g_autoptr (DlTensor) x = NULL;
  g_autoptr (DlTensor) t = NULL;
  g_autoptr (DlTensor) run = NULL;
  g_autoptr (DlTensor) kept = NULL;
  g_autoptr (DlTensor) kept64 = NULL;
  g_autoptr (DlTensor) invalid = NULL;
  g_autoptr (DlTensor) read = NULL;
  g_autoptr (DlTensor) per = NULL;
  g_autoptr (DlTensor) out = NULL;
  gboolean batched = dl_tensor_get_ndim (input) == 2, ok, was;
  gint64 n, c;

  g_return_val_if_fail (DL_IS_TENSOR (input) && DL_IS_TENSOR (target), NULL);
  if (!dl_loss_check_reduction (name, reduction, error) || !(x = batch_input (name, input, error)))
    return NULL;
  n = dl_tensor_get_size (x, 0, NULL);
  c = dl_tensor_get_size (x, 1, NULL);
  if (batched ? !(dl_tensor_get_ndim (target) == 2 && dl_tensor_get_size (target, 0, NULL) == n
                  && dl_tensor_get_size (target, 1, NULL) == c)
              : !(dl_tensor_get_ndim (target) <= 1 && dl_tensor_numel (target) == c))
    {
      g_autofree gchar *ts = dl_loss_shape_string (target);

      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE, "%s: inconsistent size %s for target", name,
                   ts);
      return NULL;
    }
  if (!check_int64_target (name, target, error)
      || !(t = dl_nn_reshape (target, (gint64[]){ n, c }, 2, error)))
    return NULL;
  /* the classes read, those before each row's first -1, in [0, C) */
  if (!(kept = dl_tensor_ne_scalar (t, -1, error))
      || !(kept64 = dl_tensor_to_dtype (kept, DL_DTYPE_INT64, error))
      || !(run = dl_tensor_cumprod (kept64, 1, error))
      || !(invalid = dl_tensor_eq_scalar (run, 0, error))
      || !(read = dl_tensor_masked_fill (t, invalid, 0, error))
      || !in_range (read, 0, c, &ok, error))
    return NULL;
  if (!ok)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s: target index out of range: the classes must be in [-1, %" G_GINT64_FORMAT
                   ")",
                   name, c);
      return NULL;
    }
  was = dl_set_grad_enabled (FALSE);
  per = multilabel_forward (x, t, error);
  out = reduce_samples (per, !batched, reduction, error);
  dl_set_grad_enabled (was);
  if (!out)
    return NULL;
  record_with_target ("MultilabelMarginLossBackward0", multilabel_backward, input, t, reduction,
                      out, sizeof (TargetState));
  return g_steal_pointer (&out);
}

/* ---- cosine_embedding_loss, triplet_margin_loss ------------------------------ */

/**
 * dl_cosine_embedding_loss:
 * @input1: the first embeddings, shape [N, D] (or [D])
 * @input2: the second embeddings, the shape of @input1
 * @target: 1 for pairs that should be similar, -1 for pairs that should
 *   not, shape [N] (or 0-d)
 * @margin: the margin, in [-1, 1] (PyTorch's default is 0)
 * @reduction: how the pairs' losses combine
 * @error: return location for a #GError
 *
 * The cosine embedding loss, as torch.nn.functional.cosine_embedding_loss:
 * 1 - cos (x1, x2) where the target is 1, max (0, cos (x1, x2) - margin)
 * where it is -1, with 1e-12 added to each squared norm as PyTorch does.
 *
 * Returns: (transfer full): the loss, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_cosine_embedding_loss (DlTensor *input1,
                          DlTensor *input2,
                          DlTensor *target,
                          gdouble margin,
                          DlReduction reduction,
                          GError **error)
{
  gint64 dim;
  g_autoptr (DlTensor) prod = NULL;
  g_autoptr (DlTensor) prod_sum = NULL;
  g_autoptr (DlTensor) sq1 = NULL;
  g_autoptr (DlTensor) sum1 = NULL;
  g_autoptr (DlTensor) mag1 = NULL;
  g_autoptr (DlTensor) sq2 = NULL;
  g_autoptr (DlTensor) sum2 = NULL;
  g_autoptr (DlTensor) mag2 = NULL;
  g_autoptr (DlTensor) mags = NULL;
  g_autoptr (DlTensor) denom = NULL;
  g_autoptr (DlTensor) cos = NULL;
  g_autoptr (DlTensor) zeros = NULL;
  g_autoptr (DlTensor) pos = NULL;
  g_autoptr (DlTensor) neg = NULL;
  g_autoptr (DlTensor) is_pos = NULL;
  g_autoptr (DlTensor) is_neg = NULL;
  g_autoptr (DlTensor) out_pos = NULL;
  g_autoptr (DlTensor) out_neg = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (input1) && DL_IS_TENSOR (input2), NULL);
  g_return_val_if_fail (DL_IS_TENSOR (target), NULL);
  if (!dl_loss_check_reduction ("cosine_embedding_loss", reduction, error))
    return NULL;
  dim = dl_tensor_get_ndim (target);
  if (dim > 1)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "cosine_embedding_loss: 0D or 1D target tensor expected, multi-target not "
                   "supported");
      return NULL;
    }
  if (dl_tensor_get_ndim (input1) != dim + 1 || dl_tensor_get_ndim (input2) != dim + 1)
    {
      g_autofree gchar *s1 = dl_loss_shape_string (input1);
      g_autofree gchar *s2 = dl_loss_shape_string (input2);

      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "cosine_embedding_loss: %" G_GINT64_FORMAT
                   "D target tensor expects %" G_GINT64_FORMAT
                   "D input tensors, but found inputs with sizes %s and %s.",
                   dim, dim + 1, s1, s2);
      return NULL;
    }
  if (!(prod = dl_tensor_mul (input1, input2, error))
      || !(prod_sum = dl_tensor_sum_dims (prod, &dim, 1, FALSE, error))
      || !(sq1 = dl_tensor_mul (input1, input1, error))
      || !(sum1 = dl_tensor_sum_dims (sq1, &dim, 1, FALSE, error))
      || !(mag1 = dl_tensor_add_scalar (sum1, 1e-12, error))
      || !(sq2 = dl_tensor_mul (input2, input2, error))
      || !(sum2 = dl_tensor_sum_dims (sq2, &dim, 1, FALSE, error))
      || !(mag2 = dl_tensor_add_scalar (sum2, 1e-12, error))
      || !(mags = dl_tensor_mul (mag1, mag2, error)) || !(denom = dl_tensor_sqrt (mags, error))
      || !(cos = dl_tensor_div (prod_sum, denom, error)))
    {
      g_prefix_error (error, "cosine_embedding_loss: ");
      return NULL;
    }
  if (!(zeros = dl_loss_zeros_like (cos, error)) || !(pos = dl_tensor_rsub_scalar (cos, 1, error))
      || !(neg = clamp_min0 (dl_tensor_sub_scalar (cos, margin, error), error))
      || !(is_pos = dl_tensor_eq_scalar (target, 1, error))
      || !(out_pos = dl_where (is_pos, pos, zeros, error))
      || !(is_neg = dl_tensor_eq_scalar (target, -1, error))
      || !(out_neg = dl_where (is_neg, neg, zeros, error)))
    return NULL;
  return dl_loss_reduce (dl_tensor_add (out_pos, out_neg, error), reduction, error);
}

/**
 * dl_triplet_margin_loss:
 * @anchor: the anchors, shape [N, D] (or [D])
 * @positive: the positive examples, of as many dims as @anchor
 * @negative: the negative examples, of as many dims as @anchor
 * @margin: the margin (PyTorch's default is 1)
 * @p: the order of the pairwise distance (PyTorch's default is 2)
 * @eps: added to the differences (PyTorch's default is 1e-6)
 * @swap: whether the distance to the negative is the smaller of the
 *   anchor's and the positive's (the distance swap)
 * @reduction: how the triplets' losses combine
 * @error: return location for a #GError
 *
 * The triplet margin loss max (0, margin + d (a, p) - d (a, n)), with d
 * dl_pairwise_distance(), as torch.nn.functional.triplet_margin_loss.
 *
 * Returns: (transfer full): the loss, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_triplet_margin_loss (DlTensor *anchor,
                        DlTensor *positive,
                        DlTensor *negative,
                        gdouble margin,
                        gdouble p,
                        gdouble eps,
                        gboolean swap,
                        DlReduction reduction,
                        GError **error)
{
  gint a_dim, p_dim, n_dim;
  g_autoptr (DlTensor) dist_pos = NULL;
  g_autoptr (DlTensor) dist_neg = NULL;
  g_autoptr (DlTensor) shifted = NULL;
  g_autoptr (DlTensor) diff = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (anchor) && DL_IS_TENSOR (positive), NULL);
  g_return_val_if_fail (DL_IS_TENSOR (negative), NULL);
  if (!dl_loss_check_reduction ("triplet_margin_loss", reduction, error))
    return NULL;
  a_dim = dl_tensor_get_ndim (anchor);
  p_dim = dl_tensor_get_ndim (positive);
  n_dim = dl_tensor_get_ndim (negative);
  if (a_dim != p_dim || p_dim != n_dim)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "triplet_margin_loss: All inputs should have same dimension but got %dD, %dD "
                   "and %dD inputs.",
                   a_dim, p_dim, n_dim);
      return NULL;
    }
  if (!(dist_pos = dl_pairwise_distance (anchor, positive, p, eps, FALSE, error))
      || !(dist_neg = dl_pairwise_distance (anchor, negative, p, eps, FALSE, error)))
    return NULL;
  if (swap)
    {
      g_autoptr (DlTensor) dist_swap = NULL;
      g_autoptr (DlTensor) smaller = NULL;

      if (!(dist_swap = dl_pairwise_distance (positive, negative, p, eps, FALSE, error))
          || !(smaller = dl_tensor_minimum (dist_neg, dist_swap, error)))
        return NULL;
      g_set_object (&dist_neg, smaller);
    }
  if (!(shifted = dl_tensor_add_scalar (dist_pos, margin, error))
      || !(diff = dl_tensor_sub (shifted, dist_neg, error)))
    return NULL;
  return dl_loss_reduce (clamp_min0 (g_object_ref (diff), error), reduction, error);
}
