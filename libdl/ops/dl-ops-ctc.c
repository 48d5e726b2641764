/* dl-ops-ctc.c: the CTC loss, by the forward-backward algorithm in log
 * space (Graves et al., 2006), on the host in double precision whatever
 * the device: the per-sample negative log-likelihoods, and in backward
 * the gradient PyTorch's ctc_loss gives (exp (log_probs) minus the
 * occupation probabilities, which is the gradient of the logits when
 * log_probs is a log_softmax of them).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>

#include "dl-ops-private.h"
#include "dl-ops-ctc.h"

/* What the forward computed and the backward reuses: the problem's sizes,
 * the targets and lengths (host copies), the log-alphas of every sample
 * and the negative log-likelihoods. */
typedef struct
{
  gint64 T, N, C, S; /* max input length, batch, classes, max target length */
  gint64 blank;
  gboolean zero_infinity, batched;
  gint64 *targets; /* [N, S], each row's first target_lengths[b] used */
  gint64 *input_lengths, *target_lengths;
  gdouble *alpha; /* [N, T, 2S + 1] */
  gdouble *nll;   /* [N] */
  DlSavedTensor log_probs;
} CtcState;

static void
ctc_state_clear (gpointer data)
{
  CtcState *s = data;

  g_free (s->targets);
  g_free (s->input_lengths);
  g_free (s->target_lengths);
  g_free (s->alpha);
  g_free (s->nll);
}

/* log (e^a + e^b + e^c) for values that may be -inf */
static gdouble
log_sum3 (gdouble a, gdouble b, gdouble c)
{
  gdouble m = MAX (a, MAX (b, c));

  if (m == -INFINITY)
    return -INFINITY;
  return m + log (exp (a - m) + exp (b - m) + exp (c - m));
}

/* the s-th label of the target with blanks around and between its labels */
static inline gint64
prime (const gint64 *target, gint64 s, gint64 blank)
{
  return s % 2 == 0 ? blank : target[s / 2];
}

/* lp[t, c] of sample b in the [T, N, C] host copy */
#define LP(t, c) lp[((t)*s->N + b) * s->C + (c)]

static void
ctc_alpha (const CtcState *s, const gdouble *lp, gint64 b, gdouble *alpha)
{
  const gint64 L = s->target_lengths[b], T = s->input_lengths[b], S2 = 2 * s->S + 1;
  const gint64 *tg = s->targets + b * s->S;

  for (gint64 i = 0; i < T * S2; i++)
    alpha[i] = -INFINITY;
  alpha[0] = LP (0, s->blank);
  if (L > 0)
    alpha[1] = LP (0, tg[0]);
  for (gint64 t = 1; t < T; t++)
    for (gint64 sp = 0; sp <= 2 * L; sp++)
      {
        gint64 l = prime (tg, sp, s->blank);
        gdouble a1 = alpha[(t - 1) * S2 + sp];
        gdouble a2 = sp > 0 ? alpha[(t - 1) * S2 + sp - 1] : -INFINITY;
        gdouble a3 = sp > 1 && prime (tg, sp - 2, s->blank) != l ? alpha[(t - 1) * S2 + sp - 2]
                                                                 : -INFINITY;

        alpha[t * S2 + sp] = log_sum3 (a1, a2, a3) + LP (t, l);
      }
}

static void
ctc_grad (const CtcState *s, const gdouble *lp, gint64 b, gdouble gr, gdouble *grad)
{
  const gint64 L = s->target_lengths[b], T = s->input_lengths[b], S2 = 2 * s->S + 1;
  const gint64 *tg = s->targets + b * s->S;
  const gdouble *alpha = s->alpha + b * s->T * S2;
  const gdouble nll = s->nll[b];
  g_autofree gdouble *beta = NULL;
  g_autofree gdouble *lcab = NULL;

  if (T == 0 || (s->zero_infinity && nll == INFINITY))
    return; /* the gradient stays zero */
  beta = g_new (gdouble, T * S2);
  lcab = g_new (gdouble, s->C);
  for (gint64 i = 0; i < T * S2; i++)
    beta[i] = -INFINITY;
  beta[(T - 1) * S2 + 2 * L] = LP (T - 1, s->blank);
  if (L > 0)
    beta[(T - 1) * S2 + 2 * L - 1] = LP (T - 1, tg[L - 1]);
  for (gint64 t = T - 2; t >= 0; t--)
    for (gint64 sp = 0; sp <= 2 * L; sp++)
      {
        gint64 l = prime (tg, sp, s->blank);
        gdouble b1 = beta[(t + 1) * S2 + sp];
        gdouble b2 = sp < 2 * L ? beta[(t + 1) * S2 + sp + 1] : -INFINITY;
        gdouble b3 = sp < 2 * L - 1 && prime (tg, sp + 2, s->blank) != l
                         ? beta[(t + 1) * S2 + sp + 2]
                         : -INFINITY;

        beta[t * S2 + sp] = log_sum3 (b1, b2, b3) + LP (t, l);
      }
  for (gint64 t = 0; t < T; t++)
    {
      for (gint64 c = 0; c < s->C; c++)
        lcab[c] = -INFINITY;
      for (gint64 sp = 0; sp <= 2 * L; sp++)
        {
          gint64 l = prime (tg, sp, s->blank);

          lcab[l] = log_sum3 (lcab[l], alpha[t * S2 + sp] + beta[t * S2 + sp], -INFINITY);
        }
      /* d nll / d lp[t, c] + exp (lp[t, c]): PyTorch's ctc_loss gradient */
      for (gint64 c = 0; c < s->C; c++)
        grad[(t * s->N + b) * s->C + c] = (exp (LP (t, c)) - exp (lcab[c] + nll - LP (t, c))) * gr;
    }
}

#undef LP

static gboolean
ctc_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  const CtcState *s = dl_node_state (node);
  DlTensor *log_probs;
  g_autofree gdouble *lp = NULL;
  g_autofree gdouble *gr = NULL;
  g_autofree gdouble *grad = NULL;
  g_autoptr (DlTensor) out = NULL;
  DlInputMeta *in = &dl_node_data (node)->inputs[0];

  if (!(log_probs = dl_node_saved (node, &s->log_probs, error)))
    return FALSE;
  lp = g_new (gdouble, MAX (s->T * s->N * s->C, 1));
  gr = g_new (gdouble, s->N);
  grad = g_new0 (gdouble, MAX (s->T * s->N * s->C, 1));
  if (!dl_tensor_copy_to_host (log_probs, DL_DTYPE_FLOAT64, lp, "ctc_loss_backward", error)
      || !dl_tensor_copy_to_host (go[0], DL_DTYPE_FLOAT64, gr, "ctc_loss_backward", error))
    return FALSE;
  for (gint64 b = 0; b < s->N; b++)
    ctc_grad (s, lp, b, gr[b], grad);
  if (!(out = dl_tensor_new_empty_internal (dl_tensor_device (log_probs), in->dtype, in->sizes,
                                            in->ndim, error))
      || !dl_tensor_copy_from_host_doubles (out, grad, "ctc_loss_backward", error))
    return FALSE;
  gi[0] = g_steal_pointer (&out);
  return TRUE;
}

/* the arguments' checks, with PyTorch's messages; fills @s's sizes */
static gboolean
ctc_check (DlTensor *log_probs,
           DlTensor *targets,
           const gint64 *input_lengths,
           gsize n_input_lengths,
           const gint64 *target_lengths,
           gsize n_target_lengths,
           gint64 blank,
           CtcState *s,
           GError **error)
{
  g_autofree gchar *shape = dl_shape_to_string (log_probs->sizes, log_probs->ndim);
  g_autofree gchar *tshape = dl_shape_to_string (targets->sizes, targets->ndim);
  gint64 total = 0;

  if (log_probs->ndim != 2 && log_probs->ndim != 3)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "ctc_loss: log_probs must be (T, C) or (T, N, C), got %s", shape);
      return FALSE;
    }
  if (!dl_dtype_is_float (log_probs->dtype) || dl_dtype_is_float (targets->dtype)
      || targets->dtype == DL_DTYPE_BOOL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                   "ctc_loss: expected floating log_probs and integer targets, got %s and %s",
                   dl_dtype_get_name (log_probs->dtype), dl_dtype_get_name (targets->dtype));
      return FALSE;
    }
  s->batched = log_probs->ndim == 3;
  s->T = log_probs->sizes[0];
  s->N = s->batched ? log_probs->sizes[1] : 1;
  s->C = log_probs->sizes[log_probs->ndim - 1];
  if (blank < 0 || blank >= s->C)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "ctc_loss: blank must be in label range: got %" G_GINT64_FORMAT
                   " for %" G_GINT64_FORMAT " classes",
                   blank, s->C);
      return FALSE;
    }
  if ((gint64)n_input_lengths != s->N || (gint64)n_target_lengths != s->N)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "ctc_loss: %s must be of size batch_size (%" G_GINT64_FORMAT
                   "), got %" G_GSIZE_FORMAT,
                   (gint64)n_input_lengths != s->N ? "input_lengths" : "target_lengths", s->N,
                   (gint64)n_input_lengths != s->N ? n_input_lengths : n_target_lengths);
      return FALSE;
    }
  if (targets->ndim != 1 && !(s->batched && targets->ndim == 2 && targets->sizes[0] == s->N))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "ctc_loss: targets %s for log_probs %s: expected (N, S) or the targets "
                   "concatenated (sum(target_lengths))",
                   tshape, shape);
      return FALSE;
    }
  s->S = 0;
  for (gint64 b = 0; b < s->N; b++)
    {
      if (input_lengths[b] < 0 || input_lengths[b] > s->T)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                       "Expected input_lengths to have value at most %" G_GINT64_FORMAT
                       ", but got value %" G_GINT64_FORMAT " (ctc_loss)",
                       s->T, input_lengths[b]);
          return FALSE;
        }
      if (target_lengths[b] < 0)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                       "ctc_loss: target_lengths must be >= 0, got %" G_GINT64_FORMAT,
                       target_lengths[b]);
          return FALSE;
        }
      s->S = MAX (s->S, target_lengths[b]);
      total += target_lengths[b];
    }
  if (targets->ndim == 2 && s->S > targets->sizes[1])
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "Expected tensor to have size at least %" G_GINT64_FORMAT
                   " at dimension 1, but got size %" G_GINT64_FORMAT
                   " for argument #2 'targets' (while checking arguments for ctc_loss_cpu)",
                   s->S, targets->sizes[1]);
      return FALSE;
    }
  if (targets->ndim == 1 && total > targets->sizes[0])
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "ctc_loss: targets %s hold fewer than sum(target_lengths) = %" G_GINT64_FORMAT
                   " labels",
                   tshape, total);
      return FALSE;
    }
  return TRUE;
}

/**
 * dl_ctc_loss:
 * @log_probs: log-probabilities of the classes, [T, N, C] (or [T, C] for
 *   one sequence), e.g. a log_softmax over the last dim
 * @targets: the target labels, integers: [N, S] padded, the targets
 *   concatenated [sum (target_lengths)], or [S] for one sequence
 * @input_lengths: (array length=n_input_lengths): the length of each input
 *   sequence (at most T)
 * @n_input_lengths: the batch size N
 * @target_lengths: (array length=n_target_lengths): the length of each
 *   target
 * @n_target_lengths: the batch size N
 * @blank: the blank label, in [0, C)
 * @zero_infinity: whether an infinite loss (an input too short for its
 *   target) becomes 0, and its gradient 0
 * @error: return location for a #GError
 *
 * The connectionist temporal classification loss of each sequence, as
 * `torch.nn.functional.ctc_loss (..., reduction='none')`: -log of the
 * probability of the target summed over its alignments to the input,
 * computed by the forward-backward algorithm in log space. Its gradient
 * (node "CtcLossBackward0") is PyTorch's: exp (log_probs) minus the
 * alignments' occupation probabilities, which is the gradient of the
 * logits when @log_probs is their log_softmax.
 *
 * The values are computed on the host in double precision (read through
 * the backend's copies, so any device works).
 *
 * Returns: (transfer full): the losses [N] (a 0-d tensor for [T, C]
 *   input) in the dtype of @log_probs, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_ctc_loss (DlTensor *log_probs,
             DlTensor *targets,
             const gint64 *input_lengths,
             gsize n_input_lengths,
             const gint64 *target_lengths,
             gsize n_target_lengths,
             gint64 blank,
             gboolean zero_infinity,
             GError **error)
{
  CtcState tmp = { 0 };
  g_autofree gdouble *lp = NULL;
  g_autofree gint64 *tv = NULL;
  g_autofree gint64 *targets_rows = NULL;
  g_autofree gdouble *alpha = NULL;
  g_autofree gdouble *nll = NULL;
  g_autofree gdouble *losses = NULL;
  g_autoptr (DlTensor) out = NULL;
  gint64 S2, offset = 0;

  g_return_val_if_fail (DL_IS_TENSOR (log_probs) && DL_IS_TENSOR (targets), NULL);
  g_return_val_if_fail (input_lengths != NULL || n_input_lengths == 0, NULL);
  g_return_val_if_fail (target_lengths != NULL || n_target_lengths == 0, NULL);
  if (!dl_check_live ("ctc_loss", log_probs, error) || !dl_check_live ("ctc_loss", targets, error)
      || !ctc_check (log_probs, targets, input_lengths, n_input_lengths, target_lengths,
                     n_target_lengths, blank, &tmp, error))
    return NULL;
  tmp.blank = blank;
  tmp.zero_infinity = zero_infinity;
  tmp.input_lengths = (gint64 *)input_lengths;
  tmp.target_lengths = (gint64 *)target_lengths;
  S2 = 2 * tmp.S + 1;
  lp = g_new (gdouble, MAX (tmp.T * tmp.N * tmp.C, 1));
  tv = g_new (gint64, MAX (targets->numel, 1));
  if (!dl_tensor_copy_to_host (log_probs, DL_DTYPE_FLOAT64, lp, "ctc_loss", error)
      || !dl_tensor_copy_to_host (targets, DL_DTYPE_INT64, tv, "ctc_loss", error))
    return NULL;
  /* the targets as rows [N, S] */
  targets_rows = g_new0 (gint64, MAX (tmp.N * tmp.S, 1));
  for (gint64 b = 0; b < tmp.N; b++)
    {
      const gint64 *row = targets->ndim == 2 ? tv + b * targets->sizes[1] : tv + offset;

      for (gint64 i = 0; i < target_lengths[b]; i++)
        {
          if (row[i] < 0 || row[i] >= tmp.C)
            {
              g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                           "ctc_loss: target %" G_GINT64_FORMAT " of sequence %" G_GINT64_FORMAT
                           " is out of the label range [0, %" G_GINT64_FORMAT ")",
                           row[i], b, tmp.C);
              return NULL;
            }
          targets_rows[b * tmp.S + i] = row[i];
        }
      offset += target_lengths[b];
    }
  tmp.targets = targets_rows;
  alpha = g_new (gdouble, MAX (tmp.N * tmp.T * S2, 1));
  nll = g_new (gdouble, MAX (tmp.N, 1));
  losses = g_new (gdouble, MAX (tmp.N, 1));
  for (gint64 b = 0; b < tmp.N; b++)
    {
      gint64 L = target_lengths[b], T = input_lengths[b];
      gdouble *ab = alpha + b * tmp.T * S2;

      if (T == 0)
        nll[b] = L == 0 ? 0 : INFINITY;
      else
        {
          gdouble l1, l2;

          ctc_alpha (&tmp, lp, b, ab);
          l1 = ab[(T - 1) * S2 + 2 * L];
          l2 = L > 0 ? ab[(T - 1) * S2 + 2 * L - 1] : -INFINITY;
          nll[b] = -log_sum3 (l1, l2, -INFINITY);
        }
      losses[b] = zero_infinity && nll[b] == INFINITY ? 0 : nll[b];
    }
  if (!(out = dl_tensor_new_empty_internal (dl_tensor_device (log_probs), log_probs->dtype, &tmp.N,
                                            tmp.batched ? 1 : 0, error))
      || !dl_tensor_copy_from_host_doubles (out, losses, "ctc_loss", error))
    return NULL;
  if (dl_autograd_any_requires (1, &log_probs))
    {
      g_autoptr (DlNode) node
          = dl_node_new_for_op ("CtcLossBackward0", ctc_backward, 1, &log_probs);
      CtcState *s = dl_node_alloc_state (node, sizeof (CtcState), ctc_state_clear);

      *s = tmp;
      s->targets = g_steal_pointer (&targets_rows);
      s->input_lengths = g_memdup2 (input_lengths, tmp.N * sizeof (gint64));
      s->target_lengths = g_memdup2 (target_lengths, tmp.N * sizeof (gint64));
      s->alpha = g_steal_pointer (&alpha);
      s->nll = g_steal_pointer (&nll);
      memset (&s->log_probs, 0, sizeof s->log_probs);
      dl_node_save (node, &s->log_probs, log_probs, FALSE);
      dl_node_set_output (node, out, 0);
    }
  return g_steal_pointer (&out);
}
