/* dl-attention.c: multi-head attention, as torch 1.13's
 * nn.MultiheadAttention and F.multi_head_attention_forward.
 *
 * The inputs keep their layout, (L, N, E) or batch first (N, L, E): the
 * projections are GEMMs on the last dim (one GEMM for Q, K and V together
 * in self-attention), the heads are views [N, H, L, D] of their results,
 * and the masks are merged into one additive float mask that broadcasts
 * over [N, H, L, S]. Without weights asked for, the attention itself is
 * dl_scaled_dot_product_attention(); with them, softmax(QKᵀ/√D + mask)
 * is materialised, dropped out and multiplied by V, as torch does.
 *
 * Checks that torch 1.13 makes with `assert` fail with
 * %DL_ERROR_ARGUMENT (the Python layer raises AssertionError for them);
 * those it raises RuntimeError for fail with %DL_ERROR_SHAPE,
 * %DL_ERROR_DTYPE or %DL_ERROR_FAILED.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>

#include "dl-attention.h"
#include "dl-error.h"
#include "dl-init.h"
#include "dl-linear.h"
#include "dl-module-private.h"
#include "dl-tensor-private.h"
#include "dl-node.h"
#include "ops/dl-ops-creation.h"
#include "ops/dl-ops-pointwise.h"
#include "ops/dl-ops-shape.h"
#include "ops/dl-ops-linalg.h"
#include "ops/dl-ops-activation.h"
#include "ops/dl-ops-index.h"
#include "ops/dl-ops-join.h"
#include "ops/dl-ops-math.h"
#include "ops/dl-ops-reduce.h"
#include "ops/dl-ops-resample.h"
#include "ops/dl-ops-attention.h"

/* What F.multi_head_attention_forward takes besides the inputs and masks */
typedef struct
{
  const gchar *op; /* the name in errors */
  gint64 embed_dim;
  gint64 num_heads;
  DlTensor *in_proj_weight, *in_proj_bias;
  DlTensor *q_proj_weight, *k_proj_weight, *v_proj_weight;
  DlTensor *bias_k, *bias_v;
  DlTensor *out_proj_weight, *out_proj_bias;
  DlTensor *static_k, *static_v;
  gboolean add_zero_attn;
  gboolean separate;
  gboolean training;
  gboolean batch_first;
  gdouble dropout_p;
} MhaArgs;

static gint64
dim_size (DlTensor *t, gint d)
{
  gsize n;
  const gint64 *s = dl_tensor_get_shape (t, &n);

  return s[d < 0 ? (gint)n + d : d];
}

static gchar *
shape_str (DlTensor *t)
{
  gsize n;
  const gint64 *s = dl_tensor_get_shape (t, &n);

  return dl_shape_to_string (s, (gint)n);
}

/* x [A, B, in] · wᵀ + b, w [out, in]: one GEMM over the A·B rows */
static DlTensor *
project (const MhaArgs *a, const gchar *what, DlTensor *x, DlTensor *w, DlTensor *b, GError **error)
{
  gint64 rows = dim_size (x, 0) * dim_size (x, 1);
  gint64 in = dim_size (x, 2);
  g_autoptr (DlTensor) x2 = NULL;
  g_autoptr (DlTensor) wt = NULL;
  g_autoptr (DlTensor) y = NULL;

  if (dl_tensor_get_ndim (w) != 2 || dim_size (w, 1) != in)
    {
      g_autofree gchar *ws = shape_str (w);
      g_autofree gchar *xs = shape_str (x);

      /* torch asserts the separate weights' shapes; the packed one fails in matmul */
      g_set_error (error, DL_ERROR, a->separate ? DL_ERROR_ARGUMENT : DL_ERROR_SHAPE,
                   "%s: %s of shape %s does not fit the projection weight of shape %s (its last "
                   "dim must be %" G_GINT64_FORMAT ")",
                   a->op, what, xs, ws, dl_tensor_get_ndim (w) == 2 ? dim_size (w, 1) : -1);
      return NULL;
    }
  if (!(x2 = dl_nn_reshape (x, (gint64[]){ rows, in }, 2, error)) || !(wt = dl_tensor_t (w, error)))
    return NULL;
  y = b ? dl_tensor_addmm (b, x2, wt, 1.0, 1.0, error) : dl_tensor_mm (x2, wt, error);
  if (y == NULL)
    return NULL;
  return dl_tensor_view (y, (gint64[]){ dim_size (x, 0), dim_size (x, 1), dim_size (w, 0) }, 3,
                         error);
}

/* [A, B, E] -> the heads [N, H, A or B, D] as a view when it can be one */
static DlTensor *
split_heads (DlTensor *x, gint64 num_heads, gboolean batch_first, GError **error)
{
  gint64 e = dim_size (x, 2);
  g_autoptr (DlTensor) x4 = NULL;
  static const gint64 bf[] = { 0, 2, 1, 3 }, sf[] = { 1, 2, 0, 3 };

  if (!(x4 = dl_nn_reshape (
            x, (gint64[]){ dim_size (x, 0), dim_size (x, 1), num_heads, e / num_heads }, 4, error)))
    return NULL;
  return dl_tensor_permute (x4, batch_first ? bf : sf, 4, error);
}

/* a zero column appended to the last dim (torch's pad (mask, (0, 1))) */
static DlTensor *
pad_column (DlTensor *t, GError **error)
{
  gsize n;
  const gint64 *s = dl_tensor_get_shape (t, &n);
  gint64 shape[DL_MAX_DIMS];
  g_autoptr (DlTensor) z = NULL;

  memcpy (shape, s, n * sizeof (gint64));
  shape[n - 1] = 1;
  if (!(z = dl_zeros (shape, n, dl_tensor_get_dtype (t), dl_tensor_get_device (t), error)))
    return NULL;
  return dl_cat ((DlTensor *[]){ t, z }, 2, (gint)n - 1, error);
}

/* bool True -> -inf, False -> 0, in @dtype */
static DlTensor *
bool_to_additive (DlTensor *mask, DlDType dtype, GError **error)
{
  g_autoptr (DlTensor) z = NULL;
  gsize n;
  const gint64 *s = dl_tensor_get_shape (mask, &n);

  if (!(z = dl_zeros (s, n, dtype, dl_tensor_get_device (mask), error)))
    return NULL;
  return dl_tensor_masked_fill (z, mask, -INFINITY, error);
}

static gboolean
is_float (DlTensor *t)
{
  return dl_dtype_is_floating_point (dl_tensor_get_dtype (t));
}

/* torch's _mha_shape_check: whether the input is batched */
static gboolean
check_ranks (const MhaArgs *a,
             DlTensor *query,
             DlTensor *key,
             DlTensor *value,
             DlTensor *kpm,
             DlTensor *attn_mask,
             gboolean *batched,
             GError **error)
{
  gint qd = dl_tensor_get_ndim (query), kd = dl_tensor_get_ndim (key),
       vd = dl_tensor_get_ndim (value);
  const gchar *kind = qd == 3 ? "batched (3-D)" : "unbatched (2-D)";

  if (qd != 2 && qd != 3)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s: query should be unbatched 2D or batched 3D tensor but received %d-D query "
                   "tensor",
                   a->op, qd);
      return FALSE;
    }
  *batched = qd == 3;
  if (kd != qd || vd != qd)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s: For %s `query`, expected `key` and `value` to be %d-D but found %d-D and "
                   "%d-D tensors respectively",
                   a->op, kind, qd, kd, vd);
      return FALSE;
    }
  if (kpm && dl_tensor_get_ndim (kpm) != qd - 1)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s: For %s `query`, expected `key_padding_mask` to be `None` or %d-D but "
                   "found %d-D tensor instead",
                   a->op, kind, qd - 1, dl_tensor_get_ndim (kpm));
      return FALSE;
    }
  if (attn_mask && dl_tensor_get_ndim (attn_mask) != 2 && dl_tensor_get_ndim (attn_mask) != 3)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s: For %s `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
                   "%d-D tensor instead",
                   a->op, kind, dl_tensor_get_ndim (attn_mask));
      return FALSE;
    }
  if (qd == 2 && attn_mask && dl_tensor_get_ndim (attn_mask) == 3
      && (dim_size (attn_mask, 0) != a->num_heads || dim_size (attn_mask, 1) != dim_size (query, 0)
          || dim_size (attn_mask, 2) != dim_size (key, 0)))
    {
      g_autofree gchar *ms = shape_str (attn_mask);

      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s: Expected `attn_mask` shape to be (%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
                   ", %" G_GINT64_FORMAT ") but got %s",
                   a->op, a->num_heads, dim_size (query, 0), dim_size (key, 0), ms);
      return FALSE;
    }
  return TRUE;
}

/* The projections of query, key and value, [A, B, E] each (views of one
 * GEMM's result in self-attention, as torch's _in_projection_packed) */
static gboolean
in_projection (const MhaArgs *a,
               DlTensor *query,
               DlTensor *key,
               DlTensor *value,
               gboolean same_qkv,
               gboolean same_kv,
               DlTensor **q,
               DlTensor **k,
               DlTensor **v,
               GError **error)
{
  gint64 e = a->embed_dim;
  g_autoptr (DlTensor) bq = NULL;
  g_autoptr (DlTensor) bk = NULL;
  g_autoptr (DlTensor) bv = NULL;

  if (a->in_proj_bias)
    {
      if (dl_tensor_get_ndim (a->in_proj_bias) != 1 || dim_size (a->in_proj_bias, 0) != 3 * e)
        {
          g_autofree gchar *bs = shape_str (a->in_proj_bias);

          g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                       "%s: in_proj_bias has shape %s, expected [%" G_GINT64_FORMAT "]", a->op, bs,
                       3 * e);
          return FALSE;
        }
      if (!(bq = dl_tensor_narrow (a->in_proj_bias, 0, 0, e, error))
          || !(bk = dl_tensor_narrow (a->in_proj_bias, 0, e, e, error))
          || !(bv = dl_tensor_narrow (a->in_proj_bias, 0, 2 * e, e, error)))
        return FALSE;
    }
  if (a->separate)
    {
      const gchar *missing = !a->q_proj_weight   ? "q_proj_weight"
                             : !a->k_proj_weight ? "k_proj_weight"
                             : !a->v_proj_weight ? "v_proj_weight"
                                                 : NULL;
      if (missing)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                       "%s: use_separate_proj_weight is True but %s is None", a->op, missing);
          return FALSE;
        }
      return (*q = project (a, "query", query, a->q_proj_weight, bq, error))
             && (*k = project (a, "key", key, a->k_proj_weight, bk, error))
             && (*v = project (a, "value", value, a->v_proj_weight, bv, error));
    }
  if (a->in_proj_weight == NULL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s: use_separate_proj_weight is False but in_proj_weight is None", a->op);
      return FALSE;
    }
  if (dl_tensor_get_ndim (a->in_proj_weight) != 2 || dim_size (a->in_proj_weight, 0) != 3 * e)
    {
      g_autofree gchar *ws = shape_str (a->in_proj_weight);

      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "%s: in_proj_weight has shape %s, expected [%" G_GINT64_FORMAT
                   ", %" G_GINT64_FORMAT "]",
                   a->op, ws, 3 * e, e);
      return FALSE;
    }
  if (same_qkv)
    {
      /* self-attention: one GEMM gives Q, K and V side by side */
      g_autoptr (DlTensor) p
          = project (a, "query", query, a->in_proj_weight, a->in_proj_bias, error);

      return p && (*q = dl_tensor_narrow (p, 2, 0, e, error))
             && (*k = dl_tensor_narrow (p, 2, e, e, error))
             && (*v = dl_tensor_narrow (p, 2, 2 * e, e, error));
    }
  else
    {
      g_autoptr (DlTensor) wq = dl_tensor_narrow (a->in_proj_weight, 0, 0, e, NULL);
      g_autoptr (DlTensor) wk = dl_tensor_narrow (a->in_proj_weight, 0, e, e, NULL);
      g_autoptr (DlTensor) wv = dl_tensor_narrow (a->in_proj_weight, 0, 2 * e, e, NULL);

      if (!(*q = project (a, "query", query, wq, bq, error)))
        return FALSE;
      if (same_kv)
        {
          /* encoder-decoder attention: K and V from one GEMM */
          g_autoptr (DlTensor) wkv = dl_tensor_narrow (a->in_proj_weight, 0, e, 2 * e, NULL);
          g_autoptr (DlTensor) bkv
              = a->in_proj_bias ? dl_tensor_narrow (a->in_proj_bias, 0, e, 2 * e, NULL) : NULL;
          g_autoptr (DlTensor) p = project (a, "key", key, wkv, bkv, error);

          return p && (*k = dl_tensor_narrow (p, 2, 0, e, error))
                 && (*v = dl_tensor_narrow (p, 2, e, e, error));
        }
      return (*k = project (a, "key", key, wk, bk, error))
             && (*v = project (a, "value", value, wv, bv, error));
    }
}

/* bias_k/bias_v appended along the sequence dim of k and v [A, B, E] */
static DlTensor *
append_bias (DlTensor *x, DlTensor *bias, gboolean batch_first, GError **error)
{
  gint64 n = dim_size (x, batch_first ? 0 : 1), e = dim_size (x, 2);
  gint64 shape[3] = { batch_first ? n : 1, batch_first ? 1 : n, e };
  g_autoptr (DlTensor) b = NULL;
  g_autoptr (DlTensor) bx = NULL;

  if (!(b = dl_nn_reshape (bias, (gint64[]){ 1, 1, e }, 3, error))
      || !(bx = dl_tensor_expand (b, shape, 3, error)))
    return NULL;
  return dl_cat ((DlTensor *[]){ x, bx }, 2, batch_first ? 1 : 0, error);
}

/* a zero key (or value) appended to the heads [N, H, S, D] */
static DlTensor *
append_zero (DlTensor *x4, GError **error)
{
  gsize n;
  const gint64 *s = dl_tensor_get_shape (x4, &n);
  g_autoptr (DlTensor) z = dl_zeros ((gint64[]){ s[0], s[1], 1, s[3] }, 4, dl_tensor_get_dtype (x4),
                                     dl_tensor_get_device (x4), error);

  if (z == NULL)
    return NULL;
  return dl_cat ((DlTensor *[]){ x4, z }, 2, 2, error);
}

/* static_k / static_v [N·H, S, D] as heads [N, H, S, D] */
static DlTensor *
static_heads (const MhaArgs *a, const gchar *name, DlTensor *s, gint64 n, gint64 d, GError **error)
{
  if (dl_tensor_get_ndim (s) != 3 || dim_size (s, 0) != n * a->num_heads || dim_size (s, 2) != d)
    {
      g_autofree gchar *ss = shape_str (s);

      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s: expecting %s of shape (%" G_GINT64_FORMAT ", S, %" G_GINT64_FORMAT
                   "), but got %s",
                   a->op, name, n * a->num_heads, d, ss);
      return NULL;
    }
  return dl_nn_reshape (s, (gint64[]){ n, a->num_heads, dim_size (s, 1), d }, 4, error);
}

/* attn_mask (L, S) or (N·H, L, S), bool, byte or float, as an additive
 * float mask of @dtype that broadcasts over [N, H, L, S]; *@is_bool says
 * which kind it was (torch merges a key padding mask by kind) */
static DlTensor *
additive_attn_mask (const MhaArgs *a,
                    DlTensor *attn_mask,
                    gint64 bsz,
                    gint64 tgt_len,
                    gint64 src_len,
                    DlDType dtype,
                    gboolean *is_bool,
                    GError **error)
{
  DlDType mt = dl_tensor_get_dtype (attn_mask);
  gint md = dl_tensor_get_ndim (attn_mask);
  gint64 n_heads = a->num_heads;
  g_autoptr (DlTensor) m = NULL;
  g_autoptr (DlTensor) mb = NULL;

  if (mt != DL_DTYPE_BOOL && mt != DL_DTYPE_UINT8 && !is_float (attn_mask))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s: Only float, byte, and bool types are supported for attn_mask, not %s",
                   a->op, dl_dtype_get_name (mt));
      return NULL;
    }
  *is_bool = !is_float (attn_mask);
  if ((md == 2 && (dim_size (attn_mask, 0) != tgt_len || dim_size (attn_mask, 1) != src_len))
      || (md == 3
          && (dim_size (attn_mask, 0) != bsz * n_heads || dim_size (attn_mask, 1) != tgt_len
              || dim_size (attn_mask, 2) != src_len)))
    {
      g_autofree gchar *ms = shape_str (attn_mask);

      if (md == 2)
        g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                     "%s: The shape of the 2D attn_mask is %s, but should be (%" G_GINT64_FORMAT
                     ", %" G_GINT64_FORMAT ").",
                     a->op, ms, tgt_len, src_len);
      else
        g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                     "%s: The shape of the 3D attn_mask is %s, but should be (%" G_GINT64_FORMAT
                     ", %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ").",
                     a->op, ms, bsz * n_heads, tgt_len, src_len);
      return NULL;
    }
  if (md == 3)
    m = dl_nn_reshape (attn_mask, (gint64[]){ bsz, n_heads, tgt_len, src_len }, 4, error);
  else
    m = g_object_ref (attn_mask);
  if (m == NULL)
    return NULL;
  if (!*is_bool)
    return mt == dtype ? g_steal_pointer (&m) : dl_tensor_to_dtype (m, dtype, error);
  if (mt == DL_DTYPE_UINT8 && !(mb = dl_tensor_to_dtype (m, DL_DTYPE_BOOL, error)))
    return NULL;
  return bool_to_additive (mb ? mb : m, dtype, error);
}

/* the masks (either may be NULL) gain the column of an appended key */
static gboolean
pad_masks (DlTensor **mask, DlTensor **kpm, GError **error)
{
  DlTensor **masks[] = { mask, kpm };

  for (gsize i = 0; i < G_N_ELEMENTS (masks); i++)
    if (*masks[i])
      {
        DlTensor *padded = pad_column (*masks[i], error);

        if (padded == NULL)
          return FALSE;
        g_object_unref (*masks[i]);
        *masks[i] = padded;
      }
  return TRUE;
}

/* @mask (additive, or NULL) with the key padding mask @kpm (N, S) merged
 * in as torch 1.13 merges it: a bool kpm is -inf where TRUE; a float one is
 * added when alone, read as bool (non-zero) beside a bool attn_mask, and
 * refused beside a float attn_mask */
static DlTensor *
merge_key_padding_mask (const MhaArgs *a,
                        DlTensor *mask,
                        DlTensor *kpm,
                        gboolean attn_bool,
                        gint64 bsz,
                        gint64 src_len,
                        DlDType dtype,
                        GError **error)
{
  g_autoptr (DlTensor) k4m = NULL;
  g_autoptr (DlTensor) kadd = NULL;

  if (dim_size (kpm, 0) != bsz || dim_size (kpm, 1) != src_len)
    {
      g_autofree gchar *ks = shape_str (kpm);

      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s: expecting key_padding_mask shape of (%" G_GINT64_FORMAT
                   ", %" G_GINT64_FORMAT "), but got %s",
                   a->op, bsz, src_len, ks);
      return NULL;
    }
  if (!(k4m = dl_nn_reshape (kpm, (gint64[]){ bsz, 1, 1, src_len }, 4, error)))
    return NULL;
  if (!is_float (kpm))
    kadd = bool_to_additive (k4m, dtype, error);
  else if (mask == NULL)
    kadd = dl_tensor_get_dtype (k4m) == dtype ? g_object_ref (k4m)
                                              : dl_tensor_to_dtype (k4m, dtype, error);
  else if (attn_bool)
    {
      /* torch: attn_mask.logical_or (key_padding_mask) */
      g_autoptr (DlTensor) nz = dl_tensor_ne_scalar (k4m, 0.0, error);

      kadd = nz ? bool_to_additive (nz, dtype, error) : NULL;
    }
  else
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                   "%s: masked_fill_ only supports boolean masks, but got mask with dtype %s "
                   "(a float attn_mask merges with a bool key_padding_mask only)",
                   a->op, dl_dtype_get_name (dl_tensor_get_dtype (k4m)));
      return NULL;
    }
  if (kadd == NULL)
    return NULL;
  return mask ? dl_tensor_add (mask, kadd, error) : g_steal_pointer (&kadd);
}

/* softmax (q k^T / sqrt (D) + mask), dropped out with @p, times v, with
 * the weights [N, H, L, S] materialised into *@weights */
static DlTensor *
explicit_attention (DlTensor *q4,
                    DlTensor *k4,
                    DlTensor *v4,
                    DlTensor *mask,
                    gdouble p,
                    gint64 head_dim,
                    DlTensor **weights,
                    GError **error)
{
  g_autoptr (DlTensor) qs = NULL;
  g_autoptr (DlTensor) kt = NULL;
  g_autoptr (DlTensor) scores = NULL;
  g_autoptr (DlTensor) w = NULL;
  DlTensor *out;

  /* q / sqrt (D) first, as torch rounds it */
  if (!(qs = dl_tensor_div_scalar (q4, sqrt ((gdouble)head_dim), error))
      || !(kt = dl_tensor_transpose (k4, -2, -1, error))
      || !(scores = dl_tensor_matmul (qs, kt, error)))
    return NULL;
  if (mask)
    {
      g_autoptr (DlTensor) s2 = dl_tensor_add (scores, mask, error);

      if (s2 == NULL)
        return NULL;
      g_set_object (&scores, s2);
    }
  if (!(w = dl_tensor_softmax (scores, -1, error)))
    return NULL;
  if (p > 0.0)
    {
      g_autoptr (DlTensor) wd = dl_dropout (w, p, TRUE, NULL, error);

      if (wd == NULL)
        return NULL;
      g_set_object (&w, wd);
    }
  if (!(out = dl_tensor_matmul (w, v4, error)))
    return NULL;
  *weights = g_steal_pointer (&w);
  return out;
}

/* F.multi_head_attention_forward on (L, N, E) or batch-first inputs */
static DlTensor *
mha_forward (const MhaArgs *args,
             DlTensor *query,
             DlTensor *key,
             DlTensor *value,
             DlTensor *key_padding_mask,
             gboolean need_weights,
             DlTensor *attn_mask,
             gboolean average_attn_weights,
             gboolean is_causal,
             DlTensor **attn_weights,
             GError **error)
{
  MhaArgs a = *args;
  gboolean batched = TRUE, same_qkv = query == key && key == value, same_kv = key == value;
  g_autoptr (DlTensor) qin = NULL;
  g_autoptr (DlTensor) kin = NULL;
  g_autoptr (DlTensor) vin = NULL;
  g_autoptr (DlTensor) kpm = NULL;
  g_autoptr (DlTensor) q = NULL;
  g_autoptr (DlTensor) k = NULL;
  g_autoptr (DlTensor) v = NULL;
  g_autoptr (DlTensor) q4 = NULL;
  g_autoptr (DlTensor) k4 = NULL;
  g_autoptr (DlTensor) v4 = NULL;
  g_autoptr (DlTensor) mask = NULL;
  g_autoptr (DlTensor) out4 = NULL;
  g_autoptr (DlTensor) weights = NULL;
  g_autoptr (DlTensor) merged = NULL;
  g_autoptr (DlTensor) out2 = NULL;
  g_autoptr (DlTensor) out = NULL;
  gboolean attn_bool = FALSE;
  gint64 tgt_len, bsz, embed_dim, src_len, head_dim, n_heads = a.num_heads;
  gint sdim;
  gdouble p;
  DlDType dtype;

  if (!check_ranks (&a, query, key, value, key_padding_mask, attn_mask, &batched, error))
    return NULL;
  if (!batched)
    {
      /* batch_first is ignored for unbatched inputs */
      a.batch_first = FALSE;
      if (!(qin = dl_tensor_unsqueeze (query, 1, error))
          || !(kin = same_qkv ? g_object_ref (qin) : dl_tensor_unsqueeze (key, 1, error))
          || !(vin = same_kv ? g_object_ref (kin) : dl_tensor_unsqueeze (value, 1, error))
          || (key_padding_mask && !(kpm = dl_tensor_unsqueeze (key_padding_mask, 0, error))))
        return NULL;
    }
  else
    {
      qin = g_object_ref (query);
      kin = g_object_ref (key);
      vin = g_object_ref (value);
      kpm = key_padding_mask ? g_object_ref (key_padding_mask) : NULL;
    }
  sdim = a.batch_first ? 1 : 0;
  tgt_len = dim_size (qin, sdim);
  bsz = dim_size (qin, 1 - sdim);
  embed_dim = dim_size (qin, 2);
  src_len = dim_size (kin, sdim);
  dtype = dl_tensor_get_dtype (qin);

  if (kpm)
    {
      DlDType kt = dl_tensor_get_dtype (kpm);

      if (kt != DL_DTYPE_BOOL && kt != DL_DTYPE_UINT8 && !is_float (kpm))
        {
          g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                       "%s: only bool and floating types of key_padding_mask are supported", a.op);
          return NULL;
        }
    }
  if (embed_dim != a.embed_dim)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s: was expecting embedding dimension of %" G_GINT64_FORMAT
                   ", but got %" G_GINT64_FORMAT,
                   a.op, a.embed_dim, embed_dim);
      return NULL;
    }
  if (n_heads <= 0 || embed_dim % n_heads != 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s: embed_dim %" G_GINT64_FORMAT
                   " not divisible by num_heads %" G_GINT64_FORMAT,
                   a.op, embed_dim, n_heads);
      return NULL;
    }
  head_dim = embed_dim / n_heads;
  if (a.separate
          ? (dim_size (kin, 0) != dim_size (vin, 0) || dim_size (kin, 1) != dim_size (vin, 1))
          : (dim_size (kin, 0) != dim_size (vin, 0) || dim_size (kin, 1) != dim_size (vin, 1)
             || dim_size (kin, 2) != dim_size (vin, 2)))
    {
      g_autofree gchar *ks = shape_str (kin);
      g_autofree gchar *vs = shape_str (vin);

      if (a.separate)
        g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                     "%s: key's sequence and batch dims of %s do not match value's of %s", a.op, ks,
                     vs);
      else
        g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                     "%s: key shape %s does not match value shape %s", a.op, ks, vs);
      return NULL;
    }
  if (dim_size (kin, 1 - sdim) != bsz)
    {
      g_autofree gchar *qs = shape_str (qin);
      g_autofree gchar *ks = shape_str (kin);

      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "%s: query of shape %s and key of shape %s differ in batch size", a.op, qs, ks);
      return NULL;
    }

  if (!in_projection (&a, qin, kin, vin, same_qkv, same_kv, &q, &k, &v, error))
    return NULL;

  if (attn_mask)
    {
      if (!(mask
            = additive_attn_mask (&a, attn_mask, bsz, tgt_len, src_len, dtype, &attn_bool, error)))
        return NULL;
    }
  else if (is_causal)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_FAILED,
                   "%s: Need attn_mask if specifying the is_causal hint. You may use the "
                   "Transformer module method `generate_square_subsequent_mask` to create this "
                   "mask.",
                   a.op);
      return NULL;
    }
  if (kpm && dl_tensor_get_dtype (kpm) == DL_DTYPE_UINT8)
    {
      g_autoptr (DlTensor) kb = dl_tensor_to_dtype (kpm, DL_DTYPE_BOOL, error);

      if (kb == NULL)
        return NULL;
      g_set_object (&kpm, kb);
    }

  if (a.bias_k || a.bias_v)
    {
      g_autoptr (DlTensor) k2 = NULL;
      g_autoptr (DlTensor) v2 = NULL;

      if (!a.bias_k || !a.bias_v)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                       "%s: bias_k and bias_v must be given together", a.op);
          return NULL;
        }
      if (a.static_k || a.static_v)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "%s: bias cannot be added to static %s.",
                       a.op, a.static_k ? "key" : "value");
          return NULL;
        }
      if (dl_tensor_numel (a.bias_k) != embed_dim || dl_tensor_numel (a.bias_v) != embed_dim)
        {
          g_autofree gchar *bs = shape_str (a.bias_k);

          g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                       "%s: bias_k and bias_v must be of shape (1, 1, %" G_GINT64_FORMAT
                       "), got %s",
                       a.op, embed_dim, bs);
          return NULL;
        }
      if (!(k2 = append_bias (k, a.bias_k, a.batch_first, error))
          || !(v2 = append_bias (v, a.bias_v, a.batch_first, error)))
        return NULL;
      g_set_object (&k, k2);
      g_set_object (&v, v2);
      if (!pad_masks (&mask, &kpm, error))
        return NULL;
    }

  if (!(q4 = split_heads (q, n_heads, a.batch_first, error)))
    return NULL;
  if (a.static_k)
    k4 = static_heads (&a, "static_k", a.static_k, bsz, head_dim, error);
  else
    k4 = split_heads (k, n_heads, a.batch_first, error);
  if (k4 == NULL)
    return NULL;
  if (a.static_v)
    v4 = static_heads (&a, "static_v", a.static_v, bsz, head_dim, error);
  else
    v4 = split_heads (v, n_heads, a.batch_first, error);
  if (v4 == NULL)
    return NULL;

  if (a.add_zero_attn)
    {
      g_autoptr (DlTensor) k5 = append_zero (k4, error);
      g_autoptr (DlTensor) v5 = k5 ? append_zero (v4, error) : NULL;

      if (v5 == NULL)
        return NULL;
      g_set_object (&k4, k5);
      g_set_object (&v4, v5);
      if (!pad_masks (&mask, &kpm, error))
        return NULL;
    }
  src_len = dim_size (k4, 2);

  if (kpm)
    {
      if (!(merged = merge_key_padding_mask (&a, mask, kpm, attn_bool, bsz, src_len, dtype, error)))
        return NULL;
      g_set_object (&mask, merged);
    }

  p = a.training ? a.dropout_p : 0.0;
  if (!need_weights)
    {
      /* fused: no [L, S] matrix; with the is_causal hint and no other mask
       * merged in, the kernel's own causal mask replaces attn_mask, as
       * torch 2 trusts the hint */
      gboolean causal
          = is_causal && kpm == NULL && !a.bias_k && !a.add_zero_attn && tgt_len == src_len;

      if (!(out4 = dl_scaled_dot_product_attention (q4, k4, v4, causal ? NULL : mask, p, causal,
                                                    0.0, NULL, error)))
        return NULL;
    }
  else if (!(out4 = explicit_attention (q4, k4, v4, mask, p, head_dim, &weights, error)))
    return NULL;

  {
    static const gint64 to_bf[] = { 0, 2, 1, 3 }, to_sf[] = { 2, 0, 1, 3 };
    g_autoptr (DlTensor) o = dl_tensor_permute (out4, a.batch_first ? to_bf : to_sf, 4, error);
    gint64 a0 = a.batch_first ? bsz : tgt_len, a1 = a.batch_first ? tgt_len : bsz;
    g_autoptr (DlTensor) o3 = NULL;

    if (o == NULL || !(o3 = dl_nn_reshape (o, (gint64[]){ a0, a1, embed_dim }, 3, error)))
      return NULL;
    if (a.out_proj_weight == NULL)
      {
        g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "%s: out_proj_weight is missing", a.op);
        return NULL;
      }
    if (!(out = project (&a, "attention output", o3, a.out_proj_weight, a.out_proj_bias, error)))
      return NULL;
  }

  if (need_weights && attn_weights)
    {
      g_autoptr (DlTensor) wout = NULL;

      if (average_attn_weights)
        {
          g_autoptr (DlTensor) s = dl_tensor_sum_dims (weights, (gint64[]){ 1 }, 1, FALSE, error);

          wout = s ? dl_tensor_div_scalar (s, (gdouble)n_heads, error) : NULL;
        }
      else
        wout = g_object_ref (weights);
      if (wout == NULL)
        return NULL;
      if (!batched)
        {
          g_autoptr (DlTensor) sq = dl_tensor_squeeze_dim (wout, 0, error);

          if (sq == NULL)
            return NULL;
          g_set_object (&wout, sq);
        }
      *attn_weights = g_steal_pointer (&wout);
    }
  if (!batched)
    {
      if (!(out2 = dl_tensor_squeeze_dim (out, 1, error)))
        {
          if (attn_weights)
            g_clear_object (attn_weights);
          return NULL;
        }
      return g_steal_pointer (&out2);
    }
  return g_steal_pointer (&out);
}

/**
 * dl_multi_head_attention_forward:
 * @query: the queries (L, N, E) or unbatched (L, E)
 * @key: the keys (S, N, kdim) or (S, kdim)
 * @value: the values (S, N, vdim) or (S, vdim)
 * @embed_dim_to_check: the embedding size E the weights expect
 * @num_heads: the number of heads, dividing E
 * @in_proj_weight: (nullable): the packed projection weight (3E, E)
 * @in_proj_bias: (nullable): the packed projection bias (3E)
 * @bias_k: (nullable): a key appended to the keys (1, 1, E)
 * @bias_v: (nullable): a value appended to the values (1, 1, E)
 * @add_zero_attn: whether to append a key and a value of zeros
 * @dropout_p: the dropout probability of the attention weights
 * @out_proj_weight: the output projection weight (E, E)
 * @out_proj_bias: (nullable): the output projection bias (E)
 * @training: whether dropout applies
 * @key_padding_mask: (nullable): (N, S) or (S): bool (%TRUE: ignore that
 *   key) or float (added)
 * @need_weights: whether to compute the attention weights
 * @attn_mask: (nullable): (L, S) or (N·num_heads, L, S): bool (%TRUE: not
 *   allowed to attend) or float (added to the scores)
 * @use_separate_proj_weight: whether the projections are @q_proj_weight,
 *   @k_proj_weight and @v_proj_weight rather than @in_proj_weight
 * @q_proj_weight: (nullable): the query projection (E, E)
 * @k_proj_weight: (nullable): the key projection (E, kdim)
 * @v_proj_weight: (nullable): the value projection (E, vdim)
 * @static_k: (nullable): keys used as they are (N·num_heads, S, E/num_heads)
 * @static_v: (nullable): values used as they are (N·num_heads, S, E/num_heads)
 * @average_attn_weights: whether @attn_weights is averaged over the heads
 * @is_causal: a hint that @attn_mask is the causal mask (torch 2's; an
 *   error without @attn_mask)
 * @attn_weights: (out) (optional) (nullable) (transfer full): the attention
 *   weights (N, L, S) averaged or (N, num_heads, L, S), without the batch
 *   dim for unbatched inputs; %NULL unless @need_weights
 * @error: return location for a #GError
 *
 * torch.nn.functional.multi_head_attention_forward of torch 1.13: the
 * projections of @query, @key and @value, scaled dot-product attention
 * per head with the masks merged as torch merges them, and the output
 * projection. A check torch makes with `assert` fails with
 * %DL_ERROR_ARGUMENT.
 *
 * Returns: (transfer full): the attention output (L, N, E) or (L, E), or
 *   %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_multi_head_attention_forward (DlTensor *query,
                                 DlTensor *key,
                                 DlTensor *value,
                                 gint64 embed_dim_to_check,
                                 gint64 num_heads,
                                 DlTensor *in_proj_weight,
                                 DlTensor *in_proj_bias,
                                 DlTensor *bias_k,
                                 DlTensor *bias_v,
                                 gboolean add_zero_attn,
                                 gdouble dropout_p,
                                 DlTensor *out_proj_weight,
                                 DlTensor *out_proj_bias,
                                 gboolean training,
                                 DlTensor *key_padding_mask,
                                 gboolean need_weights,
                                 DlTensor *attn_mask,
                                 gboolean use_separate_proj_weight,
                                 DlTensor *q_proj_weight,
                                 DlTensor *k_proj_weight,
                                 DlTensor *v_proj_weight,
                                 DlTensor *static_k,
                                 DlTensor *static_v,
                                 gboolean average_attn_weights,
                                 gboolean is_causal,
                                 DlTensor **attn_weights,
                                 GError **error)
{
  MhaArgs a = {
    .op = "multi_head_attention_forward",
    .embed_dim = embed_dim_to_check,
    .num_heads = num_heads,
    .in_proj_weight = in_proj_weight,
    .in_proj_bias = in_proj_bias,
    .q_proj_weight = q_proj_weight,
    .k_proj_weight = k_proj_weight,
    .v_proj_weight = v_proj_weight,
    .bias_k = bias_k,
    .bias_v = bias_v,
    .out_proj_weight = out_proj_weight,
    .out_proj_bias = out_proj_bias,
    .static_k = static_k,
    .static_v = static_v,
    .add_zero_attn = add_zero_attn,
    .separate = use_separate_proj_weight,
    .training = training,
    .dropout_p = dropout_p,
  };

  g_return_val_if_fail (DL_IS_TENSOR (query) && DL_IS_TENSOR (key) && DL_IS_TENSOR (value), NULL);
  if (attn_weights)
    *attn_weights = NULL;
  if (out_proj_weight == NULL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "%s: out_proj_weight is missing", a.op);
      return NULL;
    }
  return mha_forward (&a, query, key, value, key_padding_mask, need_weights, attn_mask,
                      average_attn_weights, is_causal, attn_weights, error);
}

/* ---- DlMultiheadAttention --------------------------------------------- */

/**
 * DlMultiheadAttention:
 *
 * Multi-head attention, as torch.nn.MultiheadAttention of torch 1.13,
 * with its parameters: "in_proj_weight" (3E, E) when kdim and vdim equal
 * E, else "q_proj_weight" (E, E), "k_proj_weight" (E, kdim) and
 * "v_proj_weight" (E, vdim); "in_proj_bias" (3E) with
 * #DlMultiheadAttention:bias; the child "out_proj", a #DlLinear (E, E);
 * "bias_k" and "bias_v" (1, 1, E) with #DlMultiheadAttention:add-bias-kv.
 * They are initialised as torch does: xavier_uniform_ on the projection
 * weights, zeros on the biases, xavier_normal_ on bias_k and bias_v.
 *
 * dl_multihead_attention_attend() takes the query, key, value and masks;
 * dl_module_forward_many() takes [query, key, value] and gives [output,
 * averaged attention weights]; dl_module_forward() is self-attention on
 * its one input.
 *
 * Since: 0.1
 */
typedef struct
{
  gint64 embed_dim;
  gint64 num_heads;
  gdouble dropout;
  gboolean bias;
  gboolean add_bias_kv;
  gboolean add_zero_attn;
  gint64 kdim;
  gint64 vdim;
  gboolean batch_first;
} DlMultiheadAttentionPrivate;

G_DEFINE_TYPE_WITH_PRIVATE (DlMultiheadAttention, dl_multihead_attention, DL_TYPE_MODULE)

enum
{
  PROP_0,
  PROP_EMBED_DIM,
  PROP_NUM_HEADS,
  PROP_DROPOUT,
  PROP_BIAS,
  PROP_ADD_BIAS_KV,
  PROP_ADD_ZERO_ATTN,
  PROP_KDIM,
  PROP_VDIM,
  PROP_BATCH_FIRST,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static DlMultiheadAttentionPrivate *
mha_priv (gpointer self)
{
  return dl_multihead_attention_get_instance_private (DL_MULTIHEAD_ATTENTION (self));
}

static gint64
effective_dim (DlMultiheadAttentionPrivate *p, gint64 d)
{
  return d > 0 ? d : p->embed_dim;
}

static DlTensor *
dl_multihead_attention_forward_one (DlModule *module, DlTensor *input, GError **error)
{
  return dl_multihead_attention_attend (DL_MULTIHEAD_ATTENTION (module), input, input, input, NULL,
                                        FALSE, NULL, TRUE, FALSE, NULL, error);
}

static void
dl_multihead_attention_forward_many (DlModule *module,
                                     GPtrArray *inputs,
                                     GPtrArray **outputs,
                                     GError **error)
{
  DlTensor *weights = NULL;
  DlTensor *out;

  if (inputs->len != 3)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "MultiheadAttention: forward takes [query, key, value], got %u inputs",
                   inputs->len);
      return;
    }
  out = dl_multihead_attention_attend (DL_MULTIHEAD_ATTENTION (module), inputs->pdata[0],
                                       inputs->pdata[1], inputs->pdata[2], NULL, TRUE, NULL, TRUE,
                                       FALSE, &weights, error);
  if (out == NULL)
    return;
  *outputs = g_ptr_array_new ();
  g_ptr_array_add (*outputs, out);
  g_ptr_array_add (*outputs, weights);
}

static gboolean
add_param (DlModule *module, const gchar *name, const gint64 *shape, gsize n, GError **error)
{
  g_autoptr (DlTensor) data = dl_zeros (shape, n, dl_module_get_factory_dtype (module),
                                        dl_module_get_factory_device (module), error);
  g_autoptr (DlTensor) param = NULL;

  if (data == NULL || !(param = dl_parameter_new (data, TRUE, error)))
    return FALSE;
  return dl_module_add_parameter (module, name, param, error);
}

/* torch's _reset_parameters */
static gboolean
reset_parameters (DlModule *module, GError **error)
{
  static const gchar *const uniform[]
      = { "in_proj_weight", "q_proj_weight", "k_proj_weight", "v_proj_weight" };
  static const gchar *const normal[] = { "bias_k", "bias_v" };
  DlTensor *t;

  for (gsize i = 0; i < G_N_ELEMENTS (uniform); i++)
    if ((t = dl_module_get_parameter (module, uniform[i]))
        && !dl_init_xavier_uniform_ (t, 1.0, NULL, error))
      return FALSE;
  if (dl_module_get_parameter (module, "in_proj_bias"))
    {
      /* in_proj_bias starts at zero; out_proj.bias is zeroed too */
      DlModule *out_proj = dl_module_get_module (module, "out_proj");
      DlTensor *ob = out_proj ? dl_module_get_parameter (out_proj, "bias") : NULL;
      gboolean was = dl_set_grad_enabled (FALSE);
      gboolean ok = ob == NULL || dl_tensor_zero_ (ob, error) != NULL;

      dl_set_grad_enabled (was);
      if (!ok)
        return FALSE;
    }
  for (gsize i = 0; i < G_N_ELEMENTS (normal); i++)
    if ((t = dl_module_get_parameter (module, normal[i]))
        && !dl_init_xavier_normal_ (t, 1.0, NULL, error))
      return FALSE;
  return TRUE;
}

static gboolean
construct (DlMultiheadAttention *self, GError **error)
{
  DlModule *module = DL_MODULE (self);
  DlMultiheadAttentionPrivate *p = mha_priv (self);
  gint64 e = p->embed_dim, kdim = effective_dim (p, p->kdim), vdim = effective_dim (p, p->vdim);
  g_autoptr (DlLinear) out_proj = NULL;

  if (e <= 0 || p->num_heads <= 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "MultiheadAttention: embed_dim and num_heads must be > 0, got %" G_GINT64_FORMAT
                   " and %" G_GINT64_FORMAT,
                   e, p->num_heads);
      return FALSE;
    }
  if (e % p->num_heads != 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "MultiheadAttention: embed_dim must be divisible by num_heads (embed_dim "
                   "%" G_GINT64_FORMAT ", num_heads %" G_GINT64_FORMAT ")",
                   e, p->num_heads);
      return FALSE;
    }
  if (p->kdim < 0 || p->vdim < 0 || p->dropout < 0 || p->dropout > 1)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "MultiheadAttention: kdim and vdim must be >= 0 and dropout in [0, 1], got "
                   "%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT " and %g",
                   p->kdim, p->vdim, p->dropout);
      return FALSE;
    }
  if (kdim == e && vdim == e)
    {
      if (!add_param (module, "in_proj_weight", (gint64[]){ 3 * e, e }, 2, error))
        return FALSE;
    }
  else if (!add_param (module, "q_proj_weight", (gint64[]){ e, e }, 2, error)
           || !add_param (module, "k_proj_weight", (gint64[]){ e, kdim }, 2, error)
           || !add_param (module, "v_proj_weight", (gint64[]){ e, vdim }, 2, error))
    return FALSE;
  if (p->bias && !add_param (module, "in_proj_bias", (gint64[]){ 3 * e }, 1, error))
    return FALSE;
  if (!(out_proj
        = g_initable_new (DL_TYPE_LINEAR, NULL, error, "in-features", e, "out-features", e, "bias",
                          p->bias, "dtype", (gint)dl_module_get_factory_dtype (module), "device",
                          dl_module_get_factory_device (module), NULL))
      || !dl_module_add_module (module, "out_proj", DL_MODULE (out_proj), error))
    return FALSE;
  if (p->add_bias_kv
      && (!add_param (module, "bias_k", (gint64[]){ 1, 1, e }, 3, error)
          || !add_param (module, "bias_v", (gint64[]){ 1, 1, e }, 3, error)))
    return FALSE;
  return reset_parameters (module, error);
}

static void
dl_multihead_attention_constructed (GObject *object)
{
  GError *error = NULL;

  G_OBJECT_CLASS (dl_multihead_attention_parent_class)->constructed (object);
  if (!construct (DL_MULTIHEAD_ATTENTION (object), &error))
    dl_module_take_construct_error (DL_MODULE (object), error);
}

static void
dl_multihead_attention_get_property (GObject *object,
                                     guint prop_id,
                                     GValue *value,
                                     GParamSpec *pspec)
{
  DlMultiheadAttentionPrivate *p = mha_priv (object);

  switch (prop_id)
    {
      case PROP_EMBED_DIM:
        g_value_set_int64 (value, p->embed_dim);
        break;
      case PROP_NUM_HEADS:
        g_value_set_int64 (value, p->num_heads);
        break;
      case PROP_DROPOUT:
        g_value_set_double (value, p->dropout);
        break;
      case PROP_BIAS:
        g_value_set_boolean (value, p->bias);
        break;
      case PROP_ADD_BIAS_KV:
        g_value_set_boolean (value, p->add_bias_kv);
        break;
      case PROP_ADD_ZERO_ATTN:
        g_value_set_boolean (value, p->add_zero_attn);
        break;
      case PROP_KDIM:
        g_value_set_int64 (value, effective_dim (p, p->kdim));
        break;
      case PROP_VDIM:
        g_value_set_int64 (value, effective_dim (p, p->vdim));
        break;
      case PROP_BATCH_FIRST:
        g_value_set_boolean (value, p->batch_first);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
dl_multihead_attention_set_property (GObject *object,
                                     guint prop_id,
                                     const GValue *value,
                                     GParamSpec *pspec)
{
  DlMultiheadAttentionPrivate *p = mha_priv (object);

  switch (prop_id)
    {
      case PROP_EMBED_DIM:
        p->embed_dim = g_value_get_int64 (value);
        break;
      case PROP_NUM_HEADS:
        p->num_heads = g_value_get_int64 (value);
        break;
      case PROP_DROPOUT:
        p->dropout = g_value_get_double (value);
        break;
      case PROP_BIAS:
        p->bias = g_value_get_boolean (value);
        break;
      case PROP_ADD_BIAS_KV:
        p->add_bias_kv = g_value_get_boolean (value);
        break;
      case PROP_ADD_ZERO_ATTN:
        p->add_zero_attn = g_value_get_boolean (value);
        break;
      case PROP_KDIM:
        p->kdim = g_value_get_int64 (value);
        break;
      case PROP_VDIM:
        p->vdim = g_value_get_int64 (value);
        break;
      case PROP_BATCH_FIRST:
        p->batch_first = g_value_get_boolean (value);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

#define CONSTRUCT_FLAGS                                                                            \
  (G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY)

static void
dl_multihead_attention_class_init (DlMultiheadAttentionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->constructed = dl_multihead_attention_constructed;
  object_class->get_property = dl_multihead_attention_get_property;
  object_class->set_property = dl_multihead_attention_set_property;
  DL_MODULE_CLASS (klass)->forward = dl_multihead_attention_forward_one;
  DL_MODULE_CLASS (klass)->forward_many = dl_multihead_attention_forward_many;

  /**
   * DlMultiheadAttention:embed-dim:
   *
   * The model's embedding size E (required, > 0).
   *
   * Since: 0.1
   */
  properties[PROP_EMBED_DIM]
      = g_param_spec_int64 ("embed-dim", NULL, NULL, G_MININT64, G_MAXINT64, 0, CONSTRUCT_FLAGS);
  /**
   * DlMultiheadAttention:num-heads:
   *
   * The number of parallel heads, dividing E (required, > 0).
   *
   * Since: 0.1
   */
  properties[PROP_NUM_HEADS]
      = g_param_spec_int64 ("num-heads", NULL, NULL, G_MININT64, G_MAXINT64, 0, CONSTRUCT_FLAGS);
  /**
   * DlMultiheadAttention:dropout:
   *
   * The dropout probability of the attention weights in training (0).
   *
   * Since: 0.1
   */
  properties[PROP_DROPOUT] = g_param_spec_double ("dropout", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE,
                                                  0.0, CONSTRUCT_FLAGS);
  /**
   * DlMultiheadAttention:bias:
   *
   * Whether the projections learn biases (%TRUE).
   *
   * Since: 0.1
   */
  properties[PROP_BIAS] = g_param_spec_boolean ("bias", NULL, NULL, TRUE, CONSTRUCT_FLAGS);
  /**
   * DlMultiheadAttention:add-bias-kv:
   *
   * Whether a learnt key and value ("bias_k", "bias_v") are appended to the
   * keys and values (%FALSE).
   *
   * Since: 0.1
   */
  properties[PROP_ADD_BIAS_KV]
      = g_param_spec_boolean ("add-bias-kv", NULL, NULL, FALSE, CONSTRUCT_FLAGS);
  /**
   * DlMultiheadAttention:add-zero-attn:
   *
   * Whether a key and a value of zeros are appended (%FALSE).
   *
   * Since: 0.1
   */
  properties[PROP_ADD_ZERO_ATTN]
      = g_param_spec_boolean ("add-zero-attn", NULL, NULL, FALSE, CONSTRUCT_FLAGS);
  /**
   * DlMultiheadAttention:kdim:
   *
   * The size of the keys' features (0: the embedding size). Read back, the
   * size in use.
   *
   * Since: 0.1
   */
  properties[PROP_KDIM]
      = g_param_spec_int64 ("kdim", NULL, NULL, G_MININT64, G_MAXINT64, 0, CONSTRUCT_FLAGS);
  /**
   * DlMultiheadAttention:vdim:
   *
   * The size of the values' features (0: the embedding size). Read back,
   * the size in use.
   *
   * Since: 0.1
   */
  properties[PROP_VDIM]
      = g_param_spec_int64 ("vdim", NULL, NULL, G_MININT64, G_MAXINT64, 0, CONSTRUCT_FLAGS);
  /**
   * DlMultiheadAttention:batch-first:
   *
   * Whether batched inputs and outputs are (N, L, E) rather than (L, N, E)
   * (%FALSE).
   *
   * Since: 0.1
   */
  properties[PROP_BATCH_FIRST]
      = g_param_spec_boolean ("batch-first", NULL, NULL, FALSE, CONSTRUCT_FLAGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
dl_multihead_attention_init (DlMultiheadAttention *self)
{
  mha_priv (self)->bias = TRUE;
}

/**
 * dl_multihead_attention_new:
 * @embed_dim: the embedding size E
 * @num_heads: the number of heads, dividing E
 * @dropout: the dropout probability of the attention weights
 * @bias: whether the projections learn biases
 * @add_bias_kv: whether to learn a key and a value appended to the inputs'
 * @add_zero_attn: whether to append a key and a value of zeros
 * @kdim: the keys' feature size (0: E)
 * @vdim: the values' feature size (0: E)
 * @batch_first: whether batched inputs are (N, L, E)
 * @error: return location for a #GError
 *
 * Creates a #DlMultiheadAttention.
 *
 * Returns: (transfer full): a new layer, or %NULL with @error set (E not
 *   divisible by @num_heads, say)
 *
 * Since: 0.1
 */
DlMultiheadAttention *
dl_multihead_attention_new (gint64 embed_dim,
                            gint64 num_heads,
                            gdouble dropout,
                            gboolean bias,
                            gboolean add_bias_kv,
                            gboolean add_zero_attn,
                            gint64 kdim,
                            gint64 vdim,
                            gboolean batch_first,
                            GError **error)
{
  return g_initable_new (DL_TYPE_MULTIHEAD_ATTENTION, NULL, error, "embed-dim", embed_dim,
                         "num-heads", num_heads, "dropout", dropout, "bias", bias, "add-bias-kv",
                         add_bias_kv, "add-zero-attn", add_zero_attn, "kdim", kdim, "vdim", vdim,
                         "batch-first", batch_first, NULL);
}

/**
 * dl_multihead_attention_attend:
 * @self: a #DlMultiheadAttention
 * @query: the queries (L, N, E), batch first (N, L, E) or unbatched (L, E)
 * @key: the keys (S, N, kdim), (N, S, kdim) or (S, kdim)
 * @value: the values (S, N, vdim), (N, S, vdim) or (S, vdim)
 * @key_padding_mask: (nullable): (N, S) or (S): bool (%TRUE: ignore that
 *   key) or float (added to the scores)
 * @need_weights: whether to compute @attn_weights (the attention is then
 *   materialised rather than fused)
 * @attn_mask: (nullable): (L, S) or (N·num_heads, L, S): bool (%TRUE: not
 *   allowed to attend, the opposite of dl_scaled_dot_product_attention()'s
 *   convention) or float (added to the scores)
 * @average_attn_weights: whether @attn_weights is averaged over the heads
 * @is_causal: a hint that @attn_mask is the causal mask (torch 2's
 *   keyword; an error without @attn_mask): without weights and without a
 *   key padding mask, the fused kernel's causal mask is used in its place
 * @attn_weights: (out) (optional) (nullable) (transfer full): the attention
 *   weights (N, L, S) averaged or (N, num_heads, L, S) per head (without
 *   N for unbatched inputs), after dropout; %NULL unless @need_weights
 * @error: return location for a #GError
 *
 * torch.nn.MultiheadAttention's forward. When @query, @key and @value are
 * the same tensor the three projections are one GEMM. Dropout applies in
 * training mode only.
 *
 * Returns: (transfer full): the attention output, of @query's layout, or
 *   %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_multihead_attention_attend (DlMultiheadAttention *self,
                               DlTensor *query,
                               DlTensor *key,
                               DlTensor *value,
                               DlTensor *key_padding_mask,
                               gboolean need_weights,
                               DlTensor *attn_mask,
                               gboolean average_attn_weights,
                               gboolean is_causal,
                               DlTensor **attn_weights,
                               GError **error)
{
  DlModule *module = DL_MODULE (self);
  DlMultiheadAttentionPrivate *p;
  DlModule *out_proj;
  MhaArgs a = { .op = "MultiheadAttention" };

  g_return_val_if_fail (DL_IS_MULTIHEAD_ATTENTION (self), NULL);
  g_return_val_if_fail (DL_IS_TENSOR (query) && DL_IS_TENSOR (key) && DL_IS_TENSOR (value), NULL);
  if (attn_weights)
    *attn_weights = NULL;
  if (!dl_module_check_constructed (module, error))
    return NULL;
  p = mha_priv (self);
  out_proj = dl_module_get_module (module, "out_proj");
  if (out_proj == NULL || dl_module_get_parameter (out_proj, "weight") == NULL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "MultiheadAttention: the layer has no out_proj with a weight");
      return NULL;
    }
  a.embed_dim = p->embed_dim;
  a.num_heads = p->num_heads;
  a.in_proj_weight = dl_module_get_parameter (module, "in_proj_weight");
  a.in_proj_bias = dl_module_get_parameter (module, "in_proj_bias");
  a.q_proj_weight = dl_module_get_parameter (module, "q_proj_weight");
  a.k_proj_weight = dl_module_get_parameter (module, "k_proj_weight");
  a.v_proj_weight = dl_module_get_parameter (module, "v_proj_weight");
  a.bias_k = dl_module_get_parameter (module, "bias_k");
  a.bias_v = dl_module_get_parameter (module, "bias_v");
  a.out_proj_weight = dl_module_get_parameter (out_proj, "weight");
  a.out_proj_bias = dl_module_get_parameter (out_proj, "bias");
  a.add_zero_attn = p->add_zero_attn;
  a.separate = a.in_proj_weight == NULL;
  a.training = dl_module_get_training (module);
  a.batch_first = p->batch_first;
  a.dropout_p = p->dropout;
  return mha_forward (&a, query, key, value, key_padding_mask, need_weights, attn_mask,
                      average_attn_weights, is_causal, attn_weights, error);
}

/**
 * dl_multihead_attention_get_embed_dim:
 * @self: a #DlMultiheadAttention
 *
 * Gives the size E of the embeddings the module takes and gives, the
 * #DlMultiheadAttention:embed-dim property (`embed_dim` of
 * `torch.nn.MultiheadAttention`).
 *
 * Returns: the embedding size E
 *
 * Since: 0.1
 */
gint64
dl_multihead_attention_get_embed_dim (DlMultiheadAttention *self)
{
  g_return_val_if_fail (DL_IS_MULTIHEAD_ATTENTION (self), 0);
  return mha_priv (self)->embed_dim;
}

/**
 * dl_multihead_attention_get_num_heads:
 * @self: a #DlMultiheadAttention
 *
 * Gives the number of attention heads, the #DlMultiheadAttention:num-heads
 * property; each head works on E / num_heads features.
 *
 * Returns: the number of heads
 *
 * Since: 0.1
 */
gint64
dl_multihead_attention_get_num_heads (DlMultiheadAttention *self)
{
  g_return_val_if_fail (DL_IS_MULTIHEAD_ATTENTION (self), 0);
  return mha_priv (self)->num_heads;
}
