/* dl-ops-conv.c: unfold (im2col), fold (col2im) and the convolutions
 * built on them.
 *
 * A 2-d convolution is a matrix product over image patches: unfold turns
 * each sliding window of the input into a column, the weight (out
 * channels x in channels * kernel taps) multiplies the columns, and the
 * result is reshaped into the output image; groups split the channels and
 * the product is batched per group. Its gradients are those of the
 * product and of unfold, whose backward is fold (sum the columns back into
 * the image) and whose double backward is unfold again: every order of
 * derivative comes from the two kernels and the GEMM. With groups 1 (and
 * a backend that has them) conv2d is instead one node on the backend's
 * fused conv2d kernels (see conv2d_fused); that chain of ops stays for the
 * other cases, for create_graph, and as the tests' oracle (DL_CONV=composite
 * in the environment makes every conv2d take it). A transposed
 * convolution is the same pieces the other way round (product with the
 * weight transposed, then fold). Float16 and bfloat16 are computed in
 * float32.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-ops-autocast-private.h"

#include <string.h>

#include "dl-ops-conv.h"
#include "dl-ops-private.h"
#include "dl-node-private.h"

typedef struct
{
  DlConvGeometry g;
} FoldState;

static DlTensor *
unfold_impl (DlTensor *x, const DlConvGeometry *g, gboolean batch_inner, GError **error);
static DlTensor *fold_impl (DlTensor *cols, const DlConvGeometry *g, GError **error);

/* Checks that each of the @n values of @what is at least @min, with
 * PyTorch's message when not. */
static gboolean
check_tuple (const gchar *op,
             const gchar *what,
             const gint64 *v,
             gint n,
             gint64 min,
             GError **error)
{
  g_autoptr (GString) values = g_string_new (NULL);
  const gchar *rule;
  gboolean ok = TRUE;

  g_return_val_if_fail (v != NULL, FALSE);
  for (gint i = 0; i < n; i++)
    {
      ok &= v[i] >= min;
      g_string_append_printf (values, "%s%" G_GINT64_FORMAT, i ? ", " : "", v[i]);
    }
  if (ok)
    return TRUE;
  if (g_str_equal (what, "stride"))
    rule = "non-positive stride is not supported";
  else if (g_str_has_suffix (what, "padding"))
    rule = "negative padding is not supported";
  else
    rule = min > 0 ? "should be greater than zero" : "should be non-negative";
  g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "%s: %s%s%s, got (%s)", op,
               rule[0] == 's' ? what : "", rule[0] == 's' ? " " : "", rule, values->str);
  return FALSE;
}

static gboolean
check_pair (const gchar *op, const gchar *what, const gint64 *v, gint64 min, GError **error)
{
  return check_tuple (op, what, v, 2, min, error);
}

/* Checks the window's parameters and sets them in @g. */
static gboolean
set_window (const gchar *op,
            DlConvGeometry *g,
            const gint64 *kernel,
            const gint64 *dilation,
            const gint64 *padding,
            const gint64 *stride,
            GError **error)
{
  if (!check_pair (op, "kernel_size", kernel, 1, error)
      || !check_pair (op, "dilation", dilation, 1, error)
      || !check_pair (op, "padding", padding, 0, error)
      || !check_pair (op, "stride", stride, 1, error))
    return FALSE;
  g->kh = kernel[0];
  g->kw = kernel[1];
  g->dh = dilation[0];
  g->dw = dilation[1];
  g->ph = padding[0];
  g->pw = padding[1];
  g->sh = stride[0];
  g->sw = stride[1];
  return TRUE;
}

/* The geometry of windows @kernel over an @h x @w image, or FALSE with an
 * error when no window fits. */
static gboolean
window_geometry (const gchar *op,
                 DlConvGeometry *g,
                 const gint64 *kernel,
                 const gint64 *dilation,
                 const gint64 *padding,
                 const gint64 *stride,
                 GError **error)
{
  if (!set_window (op, g, kernel, dilation, padding, stride, error))
    return FALSE;
  g->out_h = (g->h + 2 * g->ph - g->dh * (g->kh - 1) - 1) / g->sh + 1;
  g->out_w = (g->w + 2 * g->pw - g->dw * (g->kw - 1) - 1) / g->sw + 1;
  if (g->h + 2 * g->ph < g->dh * (g->kh - 1) + 1 || g->w + 2 * g->pw < g->dw * (g->kw - 1) + 1)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "%s: Calculated padded input size per channel: (%" G_GINT64_FORMAT
                   " x %" G_GINT64_FORMAT "). Kernel size: (%" G_GINT64_FORMAT
                   " x %" G_GINT64_FORMAT "). Kernel size can't be greater than actual input size",
                   op, g->h + 2 * g->ph, g->w + 2 * g->pw, g->dh * (g->kh - 1) + 1,
                   g->dw * (g->kw - 1) + 1);
      return FALSE;
    }
  return TRUE;
}

/* @t as a float32/float64 tensor (float16 and bfloat16 go to float32,
 * recorded), contiguous or, with @rows_ok, with contiguous last dim; or NULL
 * with an error for other dtypes */
static DlTensor *
compute_ready (const gchar *op, DlTensor *t, gboolean rows_ok, GError **error)
{
  if (t->dtype == DL_DTYPE_FLOAT16 || t->dtype == DL_DTYPE_BFLOAT16)
    {
      g_autoptr (DlTensor) f = dl_tensor_to_dtype (t, DL_DTYPE_FLOAT32, error);
      return f ? dl_tensor_contiguous (f, error) : NULL;
    }
  if (!dl_check_float_dtype (op, t, error))
    return NULL;
  if (rows_ok && (t->strides[t->ndim - 1] == 1 || t->sizes[t->ndim - 1] == 1))
    return g_object_ref (t);
  return dl_tensor_contiguous (t, error);
}

static gboolean
unfold_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  const FoldState *s = dl_node_state (node);

  return (gi[0] = fold_impl (go[0], &s->g, error)) != NULL;
}

static gboolean
fold_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  const FoldState *s = dl_node_state (node);

  return (gi[0] = unfold_impl (go[0], &s->g, FALSE, error)) != NULL;
}

/* Records @out as made from @in by @backward's adjoint, over @g. */
static void
record_window_op (const gchar *name,
                  DlBackwardFunc backward,
                  DlTensor *in,
                  DlTensor *out,
                  const DlConvGeometry *g)
{
  g_autoptr (DlNode) node = NULL;
  FoldState *s;

  if (!dl_autograd_any_requires (1, &in))
    return;
  node = dl_node_new_for_op (name, backward, 1, &in);
  s = DL_NODE_NEW_STATE (node, FoldState);
  s->g = *g;
  dl_node_set_output (node, out, 0);
}

/* [n, c, h, w] -> [n, c * kh * kw, out_h * out_w], laid out as its shape
 * or, with @batch_inner, as [c * kh * kw, n, out_h * out_w] (its permute
 * (1, 0, 2) is then contiguous) */
static DlTensor *
unfold_impl (DlTensor *x, const DlConvGeometry *g0, gboolean batch_inner, GError **error)
{
  g_autoptr (DlTensor) xc = NULL;
  g_autoptr (DlTensor) buf = NULL;
  DlBackendContext *ctx;
  DlConvGeometry g = *g0;
  DlTensor *cols;
  const gint64 rows = g.c * g.kh * g.kw, l = g.out_h * g.out_w;
  gint64 shape[3] = { g.n, rows, l }, strides[3] = { rows * l, l, 1 };

  if (!(ctx = DL_TENSOR_BACKEND (x, im2col, "unfold", error))
      || !(xc = compute_ready ("unfold", x, FALSE, error)))
    return NULL;
  if (xc->dtype != x->dtype)
    {
      g_autoptr (DlTensor) r = unfold_impl (xc, g0, FALSE, error);
      return r ? dl_tensor_to_dtype (r, x->dtype, error) : NULL;
    }
  if (batch_inner)
    {
      strides[0] = l;
      strides[1] = g.n * l;
    }
  g.col_batch_stride = strides[0];
  g.col_row_stride = strides[1];
  if (!(buf = dl_tensor_new_empty_internal (dl_tensor_device (x), x->dtype,
                                            (gint64[]){ g.n * rows * l }, 1, error)))
    return NULL;
  cols = dl_tensor_new_view_internal (buf, shape, strides, 3, 0);
  if (cols->numel > 0)
    ctx->backend->im2col (ctx, &g, dl_tensor_data (xc), dl_tensor_data (cols), x->dtype);
  record_window_op ("Im2ColBackward0", unfold_backward, x, cols, &g);
  return cols;
}

/* [n, c * kh * kw, out_h * out_w] -> [n, c, h, w]; the columns may have
 * any strides but contiguous positions */
static DlTensor *
fold_impl (DlTensor *cols, const DlConvGeometry *g0, GError **error)
{
  g_autoptr (DlTensor) cc = NULL;
  DlBackendContext *ctx;
  DlConvGeometry g = *g0;
  DlTensor *image;
  gint64 shape[4] = { g.n, g.c, g.h, g.w };

  if (!(ctx = DL_TENSOR_BACKEND (cols, col2im, "fold", error))
      || !(cc = compute_ready ("fold", cols, TRUE, error)))
    return NULL;
  if (cc->dtype != cols->dtype)
    {
      g_autoptr (DlTensor) r = fold_impl (cc, g0, error);
      return r ? dl_tensor_to_dtype (r, cols->dtype, error) : NULL;
    }
  g.col_batch_stride = cc->strides[0];
  g.col_row_stride = cc->strides[1];
  if (!(image = dl_tensor_new_empty_internal (dl_tensor_device (cols), cols->dtype, shape, 4,
                                              error)))
    return NULL;
  if (image->numel > 0)
    ctx->backend->col2im (ctx, &g, dl_tensor_data (cc), dl_tensor_data (image), cols->dtype);
  record_window_op ("Col2ImBackward0", fold_backward, cols, image, &g);
  return image;
}

/* @t with a batch dim in front when it has @batched_ndim - 1 dims (a new
 * reference), and whether it had none */
static DlTensor *
batched (const gchar *op, DlTensor *t, gint batched_ndim, gboolean *unbatched, GError **error)
{
  *unbatched = t->ndim == batched_ndim - 1;
  if (t->ndim != batched_ndim && !*unbatched)
    {
      g_autofree gchar *s = dl_shape_to_string (t->sizes, t->ndim);
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "%s: Expected %dD (unbatched) or %dD (batched) input, but got input of size: %s",
                   op, batched_ndim - 1, batched_ndim, s);
      return NULL;
    }
  return *unbatched ? dl_tensor_unsqueeze (t, 0, error) : g_object_ref (t);
}

static DlTensor *
unbatch (DlTensor *t, gboolean unbatched, GError **error)
{
  if (t == NULL || !unbatched)
    return t;
  {
    g_autoptr (DlTensor) owned = t;
    return dl_tensor_squeeze_dim (owned, 0, error);
  }
}

/**
 * dl_unfold:
 * @input: an image batch [N, C, H, W] (or one image [C, H, W])
 * @kernel_size: (array fixed-size=2): the window's height and width
 * @dilation: (array fixed-size=2): the spacing of the window's taps
 * @padding: (array fixed-size=2): zeros added on both sides of each
 *   spatial dim
 * @stride: (array fixed-size=2): the window's step
 * @error: return location for a #GError
 *
 * Extracts sliding windows as columns (im2col), as
 * torch.nn.functional.unfold() does: the result is [N, C * kh * kw, L]
 * with L the number of window positions. Differentiable (its gradient is
 * dl_fold()).
 *
 * Returns: (transfer full): the columns, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_unfold (DlTensor *input,
           const gint64 *kernel_size,
           const gint64 *dilation,
           const gint64 *padding,
           const gint64 *stride,
           GError **error)
{
  g_autoptr (DlTensor) x = NULL;
  DlConvGeometry g = { 0 };
  gboolean unbatched;

  g_return_val_if_fail (DL_IS_TENSOR (input), NULL);
  if (!(x = batched ("unfold", input, 4, &unbatched, error)))
    return NULL;
  g.n = x->sizes[0];
  g.c = x->sizes[1];
  g.h = x->sizes[2];
  g.w = x->sizes[3];
  if (!window_geometry ("unfold", &g, kernel_size, dilation, padding, stride, error))
    return NULL;
  return unbatch (unfold_impl (x, &g, FALSE, error), unbatched, error);
}

/**
 * dl_fold:
 * @input: columns [N, C * kh * kw, L] (or [C * kh * kw, L])
 * @output_size: (array fixed-size=2): the image's height and width
 * @kernel_size: (array fixed-size=2): the window's height and width
 * @dilation: (array fixed-size=2): the spacing of the window's taps
 * @padding: (array fixed-size=2): the padding the windows were taken with
 * @stride: (array fixed-size=2): the window's step
 * @error: return location for a #GError
 *
 * Sums columns back into an image batch (col2im), as
 * torch.nn.functional.fold() does: the adjoint of dl_unfold().
 * Differentiable.
 *
 * Returns: (transfer full): the image batch [N, C, H, W], or %NULL with
 *   @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_fold (DlTensor *input,
         const gint64 *output_size,
         const gint64 *kernel_size,
         const gint64 *dilation,
         const gint64 *padding,
         const gint64 *stride,
         GError **error)
{
  g_autoptr (DlTensor) x = NULL;
  DlConvGeometry g = { 0 };
  gboolean unbatched;
  gint64 taps;

  g_return_val_if_fail (DL_IS_TENSOR (input), NULL);
  if (!(x = batched ("fold", input, 3, &unbatched, error))
      || !check_pair ("fold", "output_size", output_size, 1, error)
      || !check_pair ("fold", "kernel_size", kernel_size, 1, error))
    return NULL;
  taps = kernel_size[0] * kernel_size[1];
  if (x->sizes[1] % taps != 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "fold: Expected size of input's dimension 1 to be divisible by the product "
                   "of kernel_size, but got input.size(1)=%" G_GINT64_FORMAT
                   " and kernel_size=(%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ").",
                   x->sizes[1], kernel_size[0], kernel_size[1]);
      return NULL;
    }
  g.n = x->sizes[0];
  g.c = x->sizes[1] / taps;
  g.h = output_size[0];
  g.w = output_size[1];
  if (!window_geometry ("fold", &g, kernel_size, dilation, padding, stride, error))
    return NULL;
  if (g.out_h * g.out_w != x->sizes[2])
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "fold: Given output_size=(%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
                   "), expected size of input's dimension 2 to match the calculated number of "
                   "sliding blocks %" G_GINT64_FORMAT " * %" G_GINT64_FORMAT " = %" G_GINT64_FORMAT
                   ", but got input.size(2)=%" G_GINT64_FORMAT ".",
                   g.h, g.w, g.out_h, g.out_w, g.out_h * g.out_w, x->sizes[2]);
      return NULL;
    }
  return unbatch (fold_impl (x, &g, error), unbatched, error);
}

/* Checks that @weight and @bias fit a convolution of @x ([N, C, ...]) in
 * @groups groups; @transposed: the weight is [C, O / groups, ...]. */
static gboolean
check_weights (const gchar *op,
               DlTensor *x,
               DlTensor *weight,
               DlTensor *bias,
               gint64 groups,
               gboolean transposed,
               GError **error)
{
  g_autofree gchar *ws = dl_shape_to_string (weight->sizes, weight->ndim);
  g_autofree gchar *xs = dl_shape_to_string (x->sizes, x->ndim);
  gint64 out_channels;

  if (groups < 1)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s: non-positive groups is not supported, got %" G_GINT64_FORMAT, op, groups);
      return FALSE;
    }
  if (weight->ndim != x->ndim)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "%s: Expected %dD weight for input of size %s, but got weight of size %s", op,
                   x->ndim, xs, ws);
      return FALSE;
    }
  if (!transposed && weight->sizes[0] % groups != 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "%s: Given groups=%" G_GINT64_FORMAT ", expected weight to be divisible by %" G_GINT64_FORMAT
                   " at dimension 0, but got weight of size %s instead",
                   op, groups, groups, ws);
      return FALSE;
    }
  if ((transposed ? weight->sizes[0] : weight->sizes[1] * groups) != x->sizes[1])
    {
      if (transposed)
        g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                     "%s: Given transposed=1, weight of size %s, expected input%s to have %" G_GINT64_FORMAT
                     " channels, but got %" G_GINT64_FORMAT " channels instead",
                     op, ws, xs, weight->sizes[0], x->sizes[1]);
      else
        g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                     "%s: Given groups=%" G_GINT64_FORMAT ", weight of size %s, expected input%s to "
                     "have %" G_GINT64_FORMAT " channels, but got %" G_GINT64_FORMAT
                     " channels instead",
                     op, groups, ws, xs, weight->sizes[1] * groups, x->sizes[1]);
      return FALSE;
    }
  if (transposed && x->sizes[1] % groups != 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "%s: Given groups=%" G_GINT64_FORMAT ", expected input channels %" G_GINT64_FORMAT
                   " to be divisible by the groups",
                   op, groups, x->sizes[1]);
      return FALSE;
    }
  if (weight->dtype != x->dtype || (bias && bias->dtype != x->dtype))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                   "%s: Input type (%s) and %s type (%s) should be the same", op,
                   dl_dtype_get_name (x->dtype), weight->dtype != x->dtype ? "weight" : "bias",
                   dl_dtype_get_name (weight->dtype != x->dtype ? weight->dtype : bias->dtype));
      return FALSE;
    }
  out_channels = transposed ? weight->sizes[1] * groups : weight->sizes[0];
  if (bias && (bias->ndim != 1 || bias->sizes[0] != out_channels))
    {
      g_autofree gchar *bs = dl_shape_to_string (bias->sizes, bias->ndim);
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "%s: Given weight of size %s, expected bias to be 1-dimensional with %" G_GINT64_FORMAT
                   " elements, but got bias of size %s instead",
                   op, ws, out_channels, bs);
      return FALSE;
    }
  return TRUE;
}

/* @out [N, O, H, W] plus @bias [O] along dim 1 */
static DlTensor *
add_channel_bias (DlTensor *out, DlTensor *bias, GError **error)
{
  g_autoptr (DlTensor) owned = out;
  g_autoptr (DlTensor) b4 = NULL;

  if (bias == NULL || out == NULL)
    return g_steal_pointer (&owned);
  if (!(b4 = dl_tensor_view (bias, (gint64[]){ 1, bias->sizes[0], 1, 1 }, 4, error)))
    return NULL;
  return dl_tensor_add (out, b4, error);
}

/* The fused convolution (groups 1): one node, ConvolutionBackward0 as
 * PyTorch names it, over input, weight and bias, whose forward and
 * backward are the backend's conv2d kernels. A backward that create_graph
 * records (grad mode on) computes the same gradients with differentiable
 * ops instead: conv_transpose2d for the input's, unfold and a product for
 * the weight's, a sum for the bias'. */
typedef struct
{
  DlConvGeometry g;
  DlSavedTensor x, weight;
} ConvState;

static gboolean
conv2d_backward_composite (const DlConvGeometry *g,
                           DlTensor *x,
                           DlTensor *w,
                           DlTensor *go,
                           const gboolean *need,
                           DlTensor **gi,
                           GError **error)
{
  const gint64 o = w->sizes[0], l = g->out_h * g->out_w;

  if (need[0])
    {
      const gint64 stride[2] = { g->sh, g->sw }, padding[2] = { g->ph, g->pw };
      const gint64 dilation[2] = { g->dh, g->dw };
      gint64 output_padding[2];

      output_padding[0] = g->h - ((g->out_h - 1) * g->sh - 2 * g->ph + g->dh * (g->kh - 1) + 1);
      output_padding[1] = g->w - ((g->out_w - 1) * g->sw - 2 * g->pw + g->dw * (g->kw - 1) + 1);
      TRY (gi[0] = dl_conv_transpose2d (go, w, NULL, stride, padding, output_padding, 1, dilation,
                                        error));
    }
  if (need[1])
    {
      g_autoptr (DlTensor) cols = NULL;
      g_autoptr (DlTensor) ct = NULL;
      g_autoptr (DlTensor) g3 = NULL;
      g_autoptr (DlTensor) p = NULL;
      g_autoptr (DlTensor) sum = NULL;

      TRY (cols = unfold_impl (x, g, FALSE, error));
      TRY (ct = dl_tensor_transpose (cols, 1, 2, error));
      TRY (g3 = dl_reshape_view (go, (gint64[]){ g->n, o, l }, 3, error));
      TRY (p = dl_tensor_matmul (g3, ct, error));
      TRY (sum = dl_tensor_sum_dims (p, (gint64[]){ 0 }, 1, FALSE, error));
      TRY (gi[1] = dl_reshape_view (sum, w->sizes, w->ndim, error));
    }
  if (need[2])
    TRY (gi[2] = dl_tensor_sum_dims (go, (gint64[]){ 0, 2, 3 }, 3, FALSE, error));
  return TRUE;
}

static gboolean
conv2d_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  const ConvState *s = dl_node_state (node);
  const gboolean need[3] = { dl_node_needs_input_grad (node, 0), dl_node_needs_input_grad (node, 1),
                             dl_node_needs_input_grad (node, 2) };
  g_autoptr (DlTensor) xc = NULL;
  g_autoptr (DlTensor) wc = NULL;
  g_autoptr (DlTensor) gc = NULL;
  DlBackendContext *ctx;
  DlConvArgs a = { 0 };
  DlTensor *x, *w;

  TRY (x = dl_node_saved (node, &s->x, error));
  TRY (w = dl_node_saved (node, &s->weight, error));
  if (dl_is_grad_enabled ())
    return conv2d_backward_composite (&s->g, x, w, go[0], need, gi, error);
  ctx = dl_tensor_context (x);
  TRY (xc = dl_tensor_contiguous (x, error));
  TRY (wc = dl_tensor_contiguous (w, error));
  TRY (gc = dl_tensor_contiguous (go[0], error));
  if (need[0])
    TRY (gi[0]
         = dl_tensor_new_empty_internal (dl_tensor_device (x), x->dtype, x->sizes, x->ndim, error));
  if (need[1])
    TRY (gi[1]
         = dl_tensor_new_empty_internal (dl_tensor_device (w), w->dtype, w->sizes, w->ndim, error));
  if (need[2])
    TRY (gi[2] = dl_tensor_new_empty_internal (dl_tensor_device (w), w->dtype, w->sizes, 1, error));
  a.g = s->g;
  a.o = w->sizes[0];
  a.x = dl_tensor_data (xc);
  a.weight = dl_tensor_data (wc);
  a.dy = dl_tensor_data (gc);
  a.dx = gi[0] ? dl_tensor_data (gi[0]) : NULL;
  a.dweight = gi[1] ? dl_tensor_data (gi[1]) : NULL;
  a.dbias = gi[2] ? dl_tensor_data (gi[2]) : NULL;
  ctx->backend->conv2d_backward (ctx, &a, x->dtype);
  return TRUE;
}

/* whether conv2d of @x by @weight and @bias (checked) can take the fused
 * kernels: groups 1, one device, a floating dtype (check_weights made
 * them all one), no empty dims */
static gboolean
conv2d_fusable (DlTensor *x,
                DlTensor *weight,
                DlTensor *bias,
                const DlConvGeometry *g,
                gint64 groups)
{
  static gint composite = -1; /* DL_CONV=composite: always the chain of ops */
  const DlBackend *b = dl_tensor_context (x)->backend;

  if (composite < 0)
    composite = g_strcmp0 (g_getenv ("DL_CONV"), "composite") == 0;
  if (composite || groups != 1 || !b->conv2d_forward || !b->conv2d_backward
      || dl_tensor_device (x) != dl_tensor_device (weight)
      || (bias && dl_tensor_device (bias) != dl_tensor_device (x)))
    return FALSE;
  if (x->dtype != DL_DTYPE_FLOAT32 && x->dtype != DL_DTYPE_FLOAT64 && x->dtype != DL_DTYPE_FLOAT16
      && x->dtype != DL_DTYPE_BFLOAT16)
    return FALSE;
  return x->numel > 0 && weight->numel > 0 && g->out_h > 0 && g->out_w > 0;
}

/* conv2d of [N, C, H, W] @x over @g with the fused kernels (see
 * conv2d_fusable); float16 and bfloat16 go through float32 */
static DlTensor *
conv2d_fused (DlTensor *x,
              DlTensor *weight,
              DlTensor *bias,
              const DlConvGeometry *g,
              GError **error)
{
  g_autoptr (DlTensor) xc = NULL;
  g_autoptr (DlTensor) wc = NULL;
  g_autoptr (DlTensor) bc = NULL;
  g_autoptr (DlNode) node = NULL;
  DlBackendContext *ctx = dl_tensor_context (x);
  DlTensor *inputs[3] = { x, weight, bias };
  DlConvArgs a = { 0 };
  DlTensor *out;
  ConvState *s;

  if (x->dtype == DL_DTYPE_FLOAT16 || x->dtype == DL_DTYPE_BFLOAT16)
    {
      g_autoptr (DlTensor) r = NULL;

      if (!(xc = dl_tensor_to_dtype (x, DL_DTYPE_FLOAT32, error))
          || !(wc = dl_tensor_to_dtype (weight, DL_DTYPE_FLOAT32, error))
          || (bias && !(bc = dl_tensor_to_dtype (bias, DL_DTYPE_FLOAT32, error)))
          || !(r = conv2d_fused (xc, wc, bc, g, error)))
        return NULL;
      return dl_tensor_to_dtype (r, x->dtype, error);
    }
  if (!(xc = dl_tensor_contiguous (x, error)) || !(wc = dl_tensor_contiguous (weight, error))
      || (bias && !(bc = dl_tensor_contiguous (bias, error))))
    return NULL;
  if (!(out = dl_tensor_new_empty_internal (
            dl_tensor_device (x), x->dtype,
            (gint64[]){ g->n, weight->sizes[0], g->out_h, g->out_w }, 4, error)))
    return NULL;
  a.g = *g;
  a.o = weight->sizes[0];
  a.x = dl_tensor_data (xc);
  a.weight = dl_tensor_data (wc);
  a.bias = bc ? dl_tensor_data (bc) : NULL;
  a.y = dl_tensor_data (out);
  ctx->backend->conv2d_forward (ctx, &a, x->dtype);
  if (!dl_autograd_any_requires (3, inputs))
    return out;
  node = dl_node_new_for_op ("ConvolutionBackward0", conv2d_backward, 3, inputs);
  s = DL_NODE_NEW_STATE (node, ConvState);
  s->g = *g;
  dl_node_save (node, &s->x, x, FALSE);
  dl_node_save (node, &s->weight, weight, FALSE);
  dl_node_set_output (node, out, 0);
  return out;
}

/**
 * dl_conv2d:
 * @input: an image batch [N, C, H, W] (or one image [C, H, W])
 * @weight: the filters [O, C / groups, kh, kw]
 * @bias: (nullable): [O], added to each output channel
 * @stride: (array fixed-size=2): the filters' step
 * @padding: (array fixed-size=2): zeros added on both sides of each
 *   spatial dim
 * @dilation: (array fixed-size=2): the spacing of the filters' taps
 * @groups: the number of groups the channels are split into
 * @error: return location for a #GError
 *
 * A 2-d convolution (cross-correlation) as torch.nn.functional.conv2d()
 * computes it, with gradients of every order: with groups 1, the backend's
 * fused convolution kernels (on the CPU, im2col and GEMMs one image at a
 * time, or Winograd F(2 x 2, 3 x 3) for 3 x 3 filters with stride 1);
 * otherwise im2col and a matrix product per group.
 *
 * Returns: (transfer full): the output [N, O, H', W'], or %NULL with
 *   @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_conv2d (DlTensor *input,
           DlTensor *weight,
           DlTensor *bias,
           const gint64 *stride,
           const gint64 *padding,
           const gint64 *dilation,
           gint64 groups,
           GError **error)
{
  g_autoptr (DlTensor) x = NULL;
  g_autoptr (DlTensor) cols = NULL;
  g_autoptr (DlTensor) prod = NULL;
  g_autoptr (DlTensor) w = NULL;
  g_autoptr (DlTensor) out = NULL;
  DlConvGeometry g = { 0 };
  gboolean unbatched;
  gint64 o, ck;

  g_return_val_if_fail (DL_IS_TENSOR (input), NULL);
  g_return_val_if_fail (DL_IS_TENSOR (weight), NULL);
  DL_AUTOCAST (DL_AUTOCAST_LOWER,
               dl_conv2d (a_[0], a_[1], a_[2], stride, padding, dilation, groups, error), error,
               input, weight, bias);
  g_return_val_if_fail (bias == NULL || DL_IS_TENSOR (bias), NULL);
  if (!(x = batched ("conv2d", input, 4, &unbatched, error))
      || !check_weights ("conv2d", x, weight, bias, groups, FALSE, error))
    return NULL;
  g.n = x->sizes[0];
  g.c = x->sizes[1];
  g.h = x->sizes[2];
  g.w = x->sizes[3];
  if (!window_geometry ("conv2d", &g, (gint64[]){ weight->sizes[2], weight->sizes[3] }, dilation,
                        padding, stride, error))
    return NULL;
  if (conv2d_fusable (x, weight, bias, &g, groups))
    return unbatch (conv2d_fused (x, weight, bias, &g, error), unbatched, error);
  if (!(cols = unfold_impl (x, &g, groups == 1, error)))
    return NULL;
  o = weight->sizes[0];
  ck = weight->sizes[1] * g.kh * g.kw;
  if (groups == 1)
    {
      /* one GEMM for the whole batch: [O, C k] @ [C k, N L], the columns
       * laid out [C k, N, L] by unfold; then [O, N, L] -> [N, O, L], which
       * the bias add (or a copy) makes contiguous. Its backward is two
       * GEMMs too: the weight's gradient sums over the batch inside one. */
      g_autoptr (DlTensor) ct = NULL;
      g_autoptr (DlTensor) c2 = NULL;
      g_autoptr (DlTensor) p2 = NULL;
      g_autoptr (DlTensor) p3 = NULL;
      g_autoptr (DlTensor) pt = NULL;
      gint64 l = g.out_h * g.out_w;

      if (!(w = dl_reshape_view (weight, (gint64[]){ o, ck }, 2, error))
          || !(ct = dl_tensor_permute (cols, (gint64[]){ 1, 0, 2 }, 3, error))
          || !(c2 = dl_reshape_view (ct, (gint64[]){ ck, g.n * l }, 2, error))
          || !(p2 = dl_tensor_matmul (w, c2, error))
          || !(p3 = dl_tensor_view (p2, (gint64[]){ o, g.n, l }, 3, error))
          || !(pt = dl_tensor_permute (p3, (gint64[]){ 1, 0, 2 }, 3, error)))
        return NULL;
      if (bias)
        {
          g_autoptr (DlTensor) b3 = dl_tensor_view (bias, (gint64[]){ 1, o, 1 }, 3, error);
          if (!b3 || !(prod = dl_tensor_add (pt, b3, error)))
            return NULL;
          bias = NULL;
        }
      else if (!(prod = dl_tensor_contiguous (pt, error)))
        return NULL;
    }
  else
    {
      /* [G, O/G, C/G k] @ [N, G, C/G k, L] */
      g_autoptr (DlTensor) c4 = NULL;
      g_autoptr (DlTensor) p4 = NULL;
      gint64 l = g.out_h * g.out_w;

      if (!(w = dl_reshape_view (weight, (gint64[]){ groups, o / groups, ck }, 3, error))
          || !(c4 = dl_tensor_view (cols, (gint64[]){ g.n, groups, ck, l }, 4, error))
          || !(p4 = dl_tensor_matmul (w, c4, error))
          || !(prod = dl_reshape_view (p4, (gint64[]){ g.n, o, l }, 3, error)))
        return NULL;
    }
  if (!(out = dl_tensor_view (prod, (gint64[]){ g.n, o, g.out_h, g.out_w }, 4, error)))
    return NULL;
  return unbatch (add_channel_bias (g_steal_pointer (&out), bias, error), unbatched, error);
}

/**
 * dl_conv1d:
 * @input: a batch of sequences [N, C, L] (or one sequence [C, L])
 * @weight: the filters [O, C / groups, k]
 * @bias: (nullable): [O], added to each output channel
 * @stride: the filters' step
 * @padding: zeros added on both ends
 * @dilation: the spacing of the filters' taps
 * @groups: the number of groups the channels are split into
 * @error: return location for a #GError
 *
 * A 1-d convolution as torch.nn.functional.conv1d() computes it (a 2-d one
 * over images of height 1).
 *
 * Returns: (transfer full): the output [N, O, L'], or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_conv1d (DlTensor *input,
           DlTensor *weight,
           DlTensor *bias,
           gint64 stride,
           gint64 padding,
           gint64 dilation,
           gint64 groups,
           GError **error)
{
  g_autoptr (DlTensor) x = NULL;
  g_autoptr (DlTensor) x4 = NULL;
  g_autoptr (DlTensor) w4 = NULL;
  g_autoptr (DlTensor) out = NULL;
  gboolean unbatched;

  g_return_val_if_fail (DL_IS_TENSOR (input), NULL);
  g_return_val_if_fail (DL_IS_TENSOR (weight), NULL);
  DL_AUTOCAST (DL_AUTOCAST_LOWER,
               dl_conv1d (a_[0], a_[1], a_[2], stride, padding, dilation, groups, error), error,
               input, weight, bias);
  if (!(x = batched ("conv1d", input, 3, &unbatched, error))
      || !check_weights ("conv1d", x, weight, bias, groups, FALSE, error)
      || !(x4 = dl_tensor_unsqueeze (x, 2, error)) || !(w4 = dl_tensor_unsqueeze (weight, 2, error))
      || !(out = dl_conv2d (x4, w4, bias, (gint64[]){ 1, stride }, (gint64[]){ 0, padding },
                            (gint64[]){ 1, dilation }, groups, error)))
    {
      if (error && *error && g_str_has_prefix ((*error)->message, "conv2d"))
        memcpy ((*error)->message, "conv1d", 6);
      return NULL;
    }
  return unbatch (dl_tensor_squeeze_dim (out, 2, error), unbatched, error);
}

/* Checks output_padding against stride and dilation (@n of each). */
static gboolean
check_output_padding (const gchar *op,
                      const gint64 *output_padding,
                      const gint64 *stride,
                      const gint64 *dilation,
                      gint n,
                      GError **error)
{
  for (gint i = 0; i < n; i++)
    if (output_padding[i] >= stride[i] && output_padding[i] >= dilation[i])
      {
        g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                     "%s: output padding must be smaller than either stride or dilation, but got "
                     "output_padding=%" G_GINT64_FORMAT ", stride=%" G_GINT64_FORMAT
                     ", dilation=%" G_GINT64_FORMAT " in dim %d",
                     op, output_padding[i], stride[i], dilation[i], i);
        return FALSE;
      }
  return TRUE;
}

/**
 * dl_conv_transpose2d:
 * @input: an image batch [N, C, H, W] (or one image [C, H, W])
 * @weight: the filters [C, O / groups, kh, kw]
 * @bias: (nullable): [O], added to each output channel
 * @stride: (array fixed-size=2): the step of the convolution this one
 *   transposes
 * @padding: (array fixed-size=2): its padding, taken off the output
 * @output_padding: (array fixed-size=2): added to one side of each
 *   spatial dim of the output (less than the stride or the dilation)
 * @groups: the number of groups the channels are split into
 * @dilation: (array fixed-size=2): the spacing of the filters' taps
 * @error: return location for a #GError
 *
 * A transposed 2-d convolution (the gradient of dl_conv2d() with respect
 * to its input) as torch.nn.functional.conv_transpose2d() computes it: a
 * matrix product per group, then col2im.
 *
 * Returns: (transfer full): the output [N, O, H', W'], or %NULL with
 *   @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_conv_transpose2d (DlTensor *input,
                     DlTensor *weight,
                     DlTensor *bias,
                     const gint64 *stride,
                     const gint64 *padding,
                     const gint64 *output_padding,
                     gint64 groups,
                     const gint64 *dilation,
                     GError **error)
{
  g_autoptr (DlTensor) x = NULL;
  g_autoptr (DlTensor) xg = NULL;
  g_autoptr (DlTensor) w = NULL;
  g_autoptr (DlTensor) wt = NULL;
  g_autoptr (DlTensor) p = NULL;
  g_autoptr (DlTensor) cols = NULL;
  g_autoptr (DlTensor) out = NULL;
  DlConvGeometry g = { 0 };
  gboolean unbatched;
  gint64 c, o, ck, hw;

  g_return_val_if_fail (DL_IS_TENSOR (input), NULL);
  g_return_val_if_fail (DL_IS_TENSOR (weight), NULL);
  DL_AUTOCAST (DL_AUTOCAST_NONE,
               dl_conv_transpose2d (a_[0], a_[1], a_[2], stride, padding, output_padding, groups,
                                    dilation, error),
               error, input, weight, bias);
  g_return_val_if_fail (bias == NULL || DL_IS_TENSOR (bias), NULL);
  if (!(x = batched ("conv_transpose2d", input, 4, &unbatched, error))
      || !check_weights ("conv_transpose2d", x, weight, bias, groups, TRUE, error)
      || !check_pair ("conv_transpose2d", "stride", stride, 1, error)
      || !check_pair ("conv_transpose2d", "dilation", dilation, 1, error)
      || !check_pair ("conv_transpose2d", "padding", padding, 0, error)
      || !check_pair ("conv_transpose2d", "output_padding", output_padding, 0, error)
      || !check_output_padding ("conv_transpose2d", output_padding, stride, dilation, 2, error))
    return NULL;
  c = x->sizes[1];
  o = weight->sizes[1] * groups;
  g.kh = weight->sizes[2];
  g.kw = weight->sizes[3];
  g.n = x->sizes[0];
  g.c = o;
  g.h = (x->sizes[2] - 1) * stride[0] - 2 * padding[0] + dilation[0] * (g.kh - 1)
        + output_padding[0] + 1;
  g.w = (x->sizes[3] - 1) * stride[1] - 2 * padding[1] + dilation[1] * (g.kw - 1)
        + output_padding[1] + 1;
  if (g.h < 1 || g.w < 1)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "conv_transpose2d: the output size (%" G_GINT64_FORMAT " x %" G_GINT64_FORMAT
                   ") is too small",
                   g.h, g.w);
      return NULL;
    }
  if (!window_geometry ("conv_transpose2d", &g, (gint64[]){ g.kh, g.kw }, dilation, padding,
                        stride, error))
    return NULL;
  g_assert (g.out_h == x->sizes[2] && g.out_w == x->sizes[3]);
  ck = weight->sizes[1] * g.kh * g.kw;
  hw = x->sizes[2] * x->sizes[3];
  /* columns [N, G, O/G k, HW] = W_g^T [G, O/G k, C/G] @ x [N, G, C/G, HW] */
  if (!(w = dl_reshape_view (weight, (gint64[]){ groups, c / groups, ck }, 3, error))
      || !(wt = dl_tensor_transpose (w, 1, 2, error))
      || !(xg = dl_reshape_view (x, (gint64[]){ g.n, groups, c / groups, hw }, 4, error))
      || !(p = dl_tensor_matmul (wt, xg, error))
      || !(cols = dl_reshape_view (p, (gint64[]){ g.n, o * g.kh * g.kw, hw }, 3, error))
      || !(out = fold_impl (cols, &g, error)))
    return NULL;
  return unbatch (add_channel_bias (g_steal_pointer (&out), bias, error), unbatched, error);
}

/* An error of @from (a 2-d op that a 1-d or 3-d one is made of) named
 * for @to, whose name is as long. */
static void
rename_error (GError **error, const gchar *from, const gchar *to)
{
  if (error && *error && g_str_has_prefix ((*error)->message, from))
    memcpy ((*error)->message, to, strlen (to));
}

/* Checks a 3-d op's stride, padding and dilation. */
static gboolean
check_triples (const gchar *op,
               const gint64 *stride,
               const gint64 *padding,
               const gint64 *dilation,
               GError **error)
{
  return check_tuple (op, "stride", stride, 3, 1, error)
         && check_tuple (op, "padding", padding, 3, 0, error)
         && check_tuple (op, "dilation", dilation, 3, 1, error);
}

/**
 * dl_conv3d:
 * @input: a volume batch [N, C, D, H, W] (or one volume [C, D, H, W])
 * @weight: the filters [O, C / groups, kd, kh, kw]
 * @bias: (nullable): [O], added to each output channel
 * @stride: (array fixed-size=3): the filters' step
 * @padding: (array fixed-size=3): zeros added on both sides of each
 *   spatial dim
 * @dilation: (array fixed-size=3): the spacing of the filters' taps
 * @groups: the number of groups the channels are split into
 * @error: return location for a #GError
 *
 * A 3-d convolution (cross-correlation) as torch.nn.functional.conv3d()
 * computes it, with gradients of every order: im2col along the depth
 * (each output depth's kd input slices side by side as channels), then
 * one dl_conv2d() over all the output depths of the batch.
 *
 * Returns: (transfer full): the output [N, O, D', H', W'], or %NULL with
 *   @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_conv3d (DlTensor *input,
           DlTensor *weight,
           DlTensor *bias,
           const gint64 *stride,
           const gint64 *padding,
           const gint64 *dilation,
           gint64 groups,
           GError **error)
{
  g_autoptr (DlTensor) x = NULL;
  g_autoptr (DlTensor) x4 = NULL;
  g_autoptr (DlTensor) cols = NULL;
  g_autoptr (DlTensor) c6 = NULL;
  g_autoptr (DlTensor) cp = NULL;
  g_autoptr (DlTensor) slices = NULL;
  g_autoptr (DlTensor) w4 = NULL;
  g_autoptr (DlTensor) y = NULL;
  g_autoptr (DlTensor) y5 = NULL;
  g_autoptr (DlTensor) out = NULL;
  DlConvGeometry g = { 0 };
  gboolean unbatched;
  gint64 n, c, h, w, o, kd;

  g_return_val_if_fail (DL_IS_TENSOR (input), NULL);
  g_return_val_if_fail (DL_IS_TENSOR (weight), NULL);
  DL_AUTOCAST (DL_AUTOCAST_LOWER,
               dl_conv3d (a_[0], a_[1], a_[2], stride, padding, dilation, groups, error), error,
               input, weight, bias);
  g_return_val_if_fail (bias == NULL || DL_IS_TENSOR (bias), NULL);
  if (!(x = batched ("conv3d", input, 5, &unbatched, error))
      || !check_weights ("conv3d", x, weight, bias, groups, FALSE, error)
      || !check_triples ("conv3d", stride, padding, dilation, error))
    return NULL;
  n = x->sizes[0];
  c = x->sizes[1];
  h = x->sizes[3];
  w = x->sizes[4];
  o = weight->sizes[0];
  kd = weight->sizes[2];
  /* the depth's windows: an image [N, C, D, H W] and a kd x 1 kernel */
  g.n = n;
  g.c = c;
  g.h = x->sizes[2];
  g.w = h * w;
  if (!window_geometry ("conv3d", &g, (gint64[]){ kd, 1 }, (gint64[]){ dilation[0], 1 },
                        (gint64[]){ padding[0], 0 }, (gint64[]){ stride[0], 1 }, error)
      || !(x4 = dl_reshape_view (x, (gint64[]){ n, c, g.h, g.w }, 4, error))
      /* [N, C kd, D' H W] -> [N D', C kd, H, W]: the slices of each output
       * depth, channel c's kd taps together as the weight has them */
      || !(cols = unfold_impl (x4, &g, FALSE, error))
      || !(c6 = dl_tensor_view (cols, (gint64[]){ n, c * kd, g.out_h, h, w }, 5, error))
      || !(cp = dl_tensor_permute (c6, (gint64[]){ 0, 2, 1, 3, 4 }, 5, error))
      || !(slices = dl_reshape_view (cp, (gint64[]){ n * g.out_h, c * kd, h, w }, 4, error))
      || !(w4 = dl_reshape_view (
               weight, (gint64[]){ o, weight->sizes[1] * kd, weight->sizes[3], weight->sizes[4] },
               4, error)))
    return NULL;
  if (!(y = dl_conv2d (slices, w4, NULL, stride + 1, padding + 1, dilation + 1, groups, error)))
    {
      rename_error (error, "conv2d", "conv3d");
      return NULL;
    }
  if (!(y5 = dl_tensor_view (y, (gint64[]){ n, g.out_h, o, y->sizes[2], y->sizes[3] }, 5, error))
      || !(out = dl_tensor_permute (y5, (gint64[]){ 0, 2, 1, 3, 4 }, 5, error)))
    return NULL;
  if (bias)
    {
      g_autoptr (DlTensor) b5 = dl_tensor_view (bias, (gint64[]){ 1, o, 1, 1, 1 }, 5, error);
      return b5 ? unbatch (dl_tensor_add (out, b5, error), unbatched, error) : NULL;
    }
  return unbatch (dl_tensor_contiguous (out, error), unbatched, error);
}

/**
 * dl_conv_transpose3d:
 * @input: a volume batch [N, C, D, H, W] (or one volume [C, D, H, W])
 * @weight: the filters [C, O / groups, kd, kh, kw]
 * @bias: (nullable): [O], added to each output channel
 * @stride: (array fixed-size=3): the step of the convolution this one
 *   transposes
 * @padding: (array fixed-size=3): its padding, taken off the output
 * @output_padding: (array fixed-size=3): added to one side of each
 *   spatial dim of the output (less than the stride or the dilation)
 * @groups: the number of groups the channels are split into
 * @dilation: (array fixed-size=3): the spacing of the filters' taps
 * @error: return location for a #GError
 *
 * A transposed 3-d convolution (the gradient of dl_conv3d() with respect
 * to its input) as torch.nn.functional.conv_transpose3d() computes it:
 * one dl_conv_transpose2d() over every input depth of the batch, whose
 * kd output slices each col2im sums into the output's depths.
 *
 * Returns: (transfer full): the output [N, O, D', H', W'], or %NULL with
 *   @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_conv_transpose3d (DlTensor *input,
                     DlTensor *weight,
                     DlTensor *bias,
                     const gint64 *stride,
                     const gint64 *padding,
                     const gint64 *output_padding,
                     gint64 groups,
                     const gint64 *dilation,
                     GError **error)
{
  g_autoptr (DlTensor) x = NULL;
  g_autoptr (DlTensor) xp = NULL;
  g_autoptr (DlTensor) x4 = NULL;
  g_autoptr (DlTensor) w4 = NULL;
  g_autoptr (DlTensor) y = NULL;
  g_autoptr (DlTensor) y6 = NULL;
  g_autoptr (DlTensor) yp = NULL;
  g_autoptr (DlTensor) cols = NULL;
  g_autoptr (DlTensor) image = NULL;
  g_autoptr (DlTensor) out = NULL;
  DlConvGeometry g = { 0 };
  gboolean unbatched;
  gint64 n, c, d, o, kd, oh, ow;

  g_return_val_if_fail (DL_IS_TENSOR (input), NULL);
  g_return_val_if_fail (DL_IS_TENSOR (weight), NULL);
  DL_AUTOCAST (DL_AUTOCAST_NONE,
               dl_conv_transpose3d (a_[0], a_[1], a_[2], stride, padding, output_padding, groups,
                                    dilation, error),
               error, input, weight, bias);
  g_return_val_if_fail (bias == NULL || DL_IS_TENSOR (bias), NULL);
  if (!(x = batched ("conv_transpose3d", input, 5, &unbatched, error))
      || !check_weights ("conv_transpose3d", x, weight, bias, groups, TRUE, error)
      || !check_triples ("conv_transpose3d", stride, padding, dilation, error)
      || !check_tuple ("conv_transpose3d", "output_padding", output_padding, 3, 0, error)
      || !check_output_padding ("conv_transpose3d", output_padding, stride, dilation, 3, error))
    return NULL;
  n = x->sizes[0];
  c = x->sizes[1];
  d = x->sizes[2];
  o = weight->sizes[1] * groups;
  kd = weight->sizes[2];
  /* [N D, C, H, W] by [C, O/G kd, kh, kw]: output channel (o, tap) */
  if (!(xp = dl_tensor_permute (x, (gint64[]){ 0, 2, 1, 3, 4 }, 5, error))
      || !(x4 = dl_reshape_view (xp, (gint64[]){ n * d, c, x->sizes[3], x->sizes[4] }, 4, error))
      || !(w4 = dl_reshape_view (
               weight, (gint64[]){ c, weight->sizes[1] * kd, weight->sizes[3], weight->sizes[4] },
               4, error)))
    return NULL;
  if (!(y = dl_conv_transpose2d (x4, w4, NULL, stride + 1, padding + 1, output_padding + 1, groups,
                                 dilation + 1, error)))
    {
      rename_error (error, "conv_transpose2d", "conv_transpose3d");
      return NULL;
    }
  oh = y->sizes[2];
  ow = y->sizes[3];
  /* col2im along the depth: columns [N, O kd, D H' W'] into [N, O, D', H' W'] */
  g.n = n;
  g.c = o;
  g.h = (d - 1) * stride[0] - 2 * padding[0] + dilation[0] * (kd - 1) + output_padding[0] + 1;
  g.w = oh * ow;
  if (g.h < 1)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "conv_transpose3d: the output depth %" G_GINT64_FORMAT " is too small", g.h);
      return NULL;
    }
  if (!window_geometry ("conv_transpose3d", &g, (gint64[]){ kd, 1 }, (gint64[]){ dilation[0], 1 },
                        (gint64[]){ padding[0], 0 }, (gint64[]){ stride[0], 1 }, error))
    return NULL;
  g_assert (g.out_h == d);
  if (!(y6 = dl_tensor_view (y, (gint64[]){ n, d, o * kd, oh, ow }, 5, error))
      || !(yp = dl_tensor_permute (y6, (gint64[]){ 0, 2, 1, 3, 4 }, 5, error))
      || !(cols = dl_reshape_view (yp, (gint64[]){ n, o * kd, d * oh * ow }, 3, error))
      || !(image = fold_impl (cols, &g, error))
      || !(out = dl_tensor_view (image, (gint64[]){ n, o, g.h, oh, ow }, 5, error)))
    return NULL;
  if (bias)
    {
      g_autoptr (DlTensor) b5 = dl_tensor_view (bias, (gint64[]){ 1, o, 1, 1, 1 }, 5, error);
      return b5 ? unbatch (dl_tensor_add (out, b5, error), unbatched, error) : NULL;
    }
  return unbatch (g_steal_pointer (&out), unbatched, error);
}

/**
 * dl_conv_transpose1d:
 * @input: a batch of sequences [N, C, L] (or one sequence [C, L])
 * @weight: the filters [C, O / groups, k]
 * @bias: (nullable): [O], added to each output channel
 * @stride: the step of the convolution this one transposes
 * @padding: its padding, taken off both ends of the output
 * @output_padding: added to the end of the output (less than the stride
 *   or the dilation)
 * @groups: the number of groups the channels are split into
 * @dilation: the spacing of the filters' taps
 * @error: return location for a #GError
 *
 * A transposed 1-d convolution as torch.nn.functional.conv_transpose1d()
 * computes it (a 2-d one over images of height 1).
 *
 * Returns: (transfer full): the output [N, O, L'], or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_conv_transpose1d (DlTensor *input,
                     DlTensor *weight,
                     DlTensor *bias,
                     gint64 stride,
                     gint64 padding,
                     gint64 output_padding,
                     gint64 groups,
                     gint64 dilation,
                     GError **error)
{
  g_autoptr (DlTensor) x = NULL;
  g_autoptr (DlTensor) x4 = NULL;
  g_autoptr (DlTensor) w4 = NULL;
  g_autoptr (DlTensor) out = NULL;
  gboolean unbatched;

  g_return_val_if_fail (DL_IS_TENSOR (input), NULL);
  g_return_val_if_fail (DL_IS_TENSOR (weight), NULL);
  DL_AUTOCAST (DL_AUTOCAST_NONE,
               dl_conv_transpose1d (a_[0], a_[1], a_[2], stride, padding, output_padding, groups,
                                    dilation, error),
               error, input, weight, bias);
  if (!(x = batched ("conv_transpose1d", input, 3, &unbatched, error))
      || !check_weights ("conv_transpose1d", x, weight, bias, groups, TRUE, error)
      || !(x4 = dl_tensor_unsqueeze (x, 2, error)) || !(w4 = dl_tensor_unsqueeze (weight, 2, error))
      || !(out = dl_conv_transpose2d (x4, w4, bias, (gint64[]){ 1, stride },
                                      (gint64[]){ 0, padding }, (gint64[]){ 0, output_padding },
                                      groups, (gint64[]){ 1, dilation }, error)))
    {
      rename_error (error, "conv_transpose2d", "conv_transpose1d");
      return NULL;
    }
  return unbatch (dl_tensor_squeeze_dim (out, 2, error), unbatched, error);
}

typedef struct
{
  DlSavedTensor indices;
  DlConvGeometry g;
  gboolean windowed; /* g holds max_pool2d's windows */
} MaxPoolState;

/* the output gradient added at each window's maximum: the backend's
 * kernel (2-d max pooling), or scatter_add, which create_graph records */
static gboolean
max_pool_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  const MaxPoolState *s = dl_node_state (node);
  DlInputMeta *in = &dl_node_data (node)->inputs[0];
  const gint64 n = in->sizes[0], c = in->sizes[1];
  g_autoptr (DlTensor) zeros = NULL;
  g_autoptr (DlTensor) idx3 = NULL;
  g_autoptr (DlTensor) g3 = NULL;
  g_autoptr (DlTensor) sum = NULL;
  gint64 plane = 1;
  DlTensor *idx;

  for (gint d = 2; d < in->ndim; d++)
    plane *= in->sizes[d];
  TRY (idx = dl_node_saved (node, &s->indices, error));
  if (s->windowed && !dl_is_grad_enabled ()
      && dl_tensor_context (go[0])->backend->max_pool2d_backward
      && (go[0]->dtype == DL_DTYPE_FLOAT32 || go[0]->dtype == DL_DTYPE_FLOAT64))
    {
      DlBackendContext *ctx = dl_tensor_context (go[0]);
      g_autoptr (DlTensor) gc = NULL;

      TRY (gc = dl_tensor_contiguous (go[0], error));
      TRY (gi[0] = dl_tensor_new_empty_internal (dl_tensor_device (gc), gc->dtype, in->sizes,
                                                 in->ndim, error));
      ctx->backend->max_pool2d_backward (ctx, &s->g, dl_tensor_data (gc),
                                         (const gint64 *)dl_tensor_data (idx),
                                         dl_tensor_data (gi[0]), gc->dtype);
      return TRUE;
    }
  TRY (zeros = dl_zeros ((gint64[]){ n, c, plane }, 3, go[0]->dtype, dl_tensor_get_device (go[0]),
                         error));
  TRY (idx3 = dl_reshape_view (idx, (gint64[]){ n, c, -1 }, 3, error));
  TRY (g3 = dl_reshape_view (go[0], (gint64[]){ n, c, -1 }, 3, error));
  TRY (sum = dl_tensor_scatter_add (zeros, 2, idx3, g3, error));
  return (gi[0] = dl_reshape_view (sum, in->sizes, in->ndim, error)) != NULL;
}

/* Records @out as the maxima of @x ([N, C, ...]) at the flat positions
 * @idx in their planes, with @name's node (max pooling, adaptive max
 * pooling); @g: see dl-ops-private.h. */
void
dl_max_pool_record (const gchar *name,
                    DlTensor *x,
                    DlTensor *out,
                    DlTensor *idx,
                    const DlConvGeometry *g)
{
  g_autoptr (DlNode) node = NULL;
  MaxPoolState *s;

  if (!dl_autograd_any_requires (1, &x))
    return;
  node = dl_node_new_for_op (name, max_pool_backward, 1, &x);
  s = DL_NODE_NEW_STATE (node, MaxPoolState);
  if (g)
    s->g = *g;
  s->windowed = g != NULL;
  dl_node_save (node, &s->indices, idx, FALSE);
  dl_node_set_output (node, out, 0);
}

/* PyTorch's pooling output size for one dim (max and average pooling) */
gint64
dl_pooled_size (gint64 in, gint64 k, gint64 s, gint64 p, gint64 d, gboolean ceil_mode)
{
  gint64 span = in + 2 * p - d * (k - 1) - 1;
  gint64 out;

  if (span < 0)
    return 0;
  out = (span + (ceil_mode ? s - 1 : 0)) / s + 1;
  /* the last window must start inside the image or its left padding */
  if (ceil_mode && (out - 1) * s >= in + p)
    out--;
  return out;
}

/**
 * dl_max_pool2d:
 * @input: an image batch [N, C, H, W] (or one image [C, H, W])
 * @kernel_size: (array fixed-size=2): the window's height and width
 * @stride: (array fixed-size=2): the window's step
 * @padding: (array fixed-size=2): implicit -inf padding on both sides,
 *   at most half the window
 * @dilation: (array fixed-size=2): the spacing of the window's taps
 * @ceil_mode: whether a last window that only partly covers the input
 *   counts (PyTorch's ceil_mode)
 * @indices: (out) (optional) (transfer full): where to store each
 *   maximum's flat position in its plane (int64, the output's shape), as
 *   torch.nn.functional.max_pool2d(return_indices=True) gives them
 * @error: return location for a #GError
 *
 * Max pooling, as torch.nn.functional.max_pool2d() computes it; NaN wins.
 * Differentiable, with gradients of every order.
 *
 * Returns: (transfer full): the pooled batch [N, C, H', W'], or %NULL with
 *   @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_max_pool2d (DlTensor *input,
               const gint64 *kernel_size,
               const gint64 *stride,
               const gint64 *padding,
               const gint64 *dilation,
               gboolean ceil_mode,
               DlTensor **indices,
               GError **error)
{
  g_autoptr (DlTensor) x = NULL;
  g_autoptr (DlTensor) xc = NULL;
  g_autoptr (DlTensor) out = NULL;
  g_autoptr (DlTensor) idx = NULL;
  DlBackendContext *ctx;
  DlConvGeometry g = { 0 };
  gboolean unbatched;

  g_return_val_if_fail (DL_IS_TENSOR (input), NULL);
  if (!(x = batched ("max_pool2d", input, 4, &unbatched, error))
      || !set_window ("max_pool2d", &g, kernel_size, dilation, padding, stride, error))
    return NULL;
  for (gint i = 0; i < 2; i++)
    if (padding[i] > kernel_size[i] / 2) /* padding * 2 could overflow */
      {
        g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                     "max_pool2d: pad should be at most half of effective kernel size, but got "
                     "pad=%" G_GINT64_FORMAT ", kernel_size=%" G_GINT64_FORMAT
                     " and dilation=%" G_GINT64_FORMAT,
                     padding[i], kernel_size[i], dilation[i]);
        return NULL;
      }
  g.n = x->sizes[0];
  g.c = x->sizes[1];
  g.h = x->sizes[2];
  g.w = x->sizes[3];
  g.out_h = dl_pooled_size (g.h, g.kh, g.sh, g.ph, g.dh, ceil_mode);
  g.out_w = dl_pooled_size (g.w, g.kw, g.sw, g.pw, g.dw, ceil_mode);
  if (g.out_h < 1 || g.out_w < 1)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "max_pool2d: Given input size: (%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT
                   "x%" G_GINT64_FORMAT "). Calculated output size: (%" G_GINT64_FORMAT
                   "x%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT "). Output size is too small",
                   g.c, g.h, g.w, g.c, MAX (g.out_h, 0), MAX (g.out_w, 0));
      return NULL;
    }
  if (!(ctx = DL_TENSOR_BACKEND (x, max_pool2d, "max_pool2d", error))
      || !(xc = compute_ready ("max_pool2d", x, FALSE, error)))
    return NULL;
  if (xc->dtype != x->dtype)
    {
      g_autoptr (DlTensor) r
          = dl_max_pool2d (xc, kernel_size, stride, padding, dilation, ceil_mode, indices, error);
      g_autoptr (DlTensor) back = r ? dl_tensor_to_dtype (r, x->dtype, error) : NULL;
      return back ? unbatch (g_steal_pointer (&back), unbatched, error) : NULL;
    }
  {
    gint64 shape[4] = { g.n, g.c, g.out_h, g.out_w };
    /* the positions only for the caller or the gradient: without them the
     * backend may pool with cuDNN, which gives none */
    gboolean want_idx = indices != NULL || dl_autograd_any_requires (1, &x);

    if (!(out = dl_tensor_new_empty_internal (dl_tensor_device (x), x->dtype, shape, 4, error))
        || (want_idx
            && !(idx = dl_tensor_new_empty_internal (dl_tensor_device (x), DL_DTYPE_INT64, shape, 4,
                                                     error))))
      return NULL;
  }
  if (out->numel > 0)
    ctx->backend->max_pool2d (ctx, &g, dl_tensor_data (xc), dl_tensor_data (out),
                              idx ? (gint64 *)dl_tensor_data (idx) : NULL, x->dtype);
  if (idx)
    dl_max_pool_record ("MaxPool2DWithIndicesBackward0", x, out, idx, &g);
  if (indices)
    *indices = unbatch (g_steal_pointer (&idx), unbatched, error);
  return unbatch (g_steal_pointer (&out), unbatched, error);
}

/* ---- max_unpool ----------------------------------------------------------- */

static gboolean
max_unpool_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  const MaxPoolState *s = dl_node_state (node);
  DlInputMeta *in = &dl_node_data (node)->inputs[0];
  g_autoptr (DlTensor) g3 = NULL;
  g_autoptr (DlTensor) idx3 = NULL;
  g_autoptr (DlTensor) picked = NULL;
  DlTensor *idx;

  TRY (idx = dl_node_saved (node, &s->indices, error));
  TRY (g3 = dl_reshape_view (go[0], (gint64[]){ in->sizes[0], in->sizes[1], -1 }, 3, error));
  TRY (idx3 = dl_reshape_view (idx, (gint64[]){ in->sizes[0], in->sizes[1], -1 }, 3, error));
  TRY (picked = dl_tensor_gather (g3, 2, idx3, error));
  return (gi[0] = dl_reshape_view (picked, in->sizes, in->ndim, error)) != NULL;
}

/**
 * dl_max_unpool:
 * @input: maxima [N, C, ...] (or [C, ...]) with 2 or 3 spatial dims
 * @indices: their flat positions in the output's planes (int64, the shape
 *   of @input), as dl_max_pool2d() and dl_max_pool3d() give them
 * @output_size: (array length=n_output_size): the output's spatial sizes
 * @n_output_size: 2 or 3, the number of spatial dims
 * @error: return location for a #GError
 *
 * The partial inverse of max pooling, as torch.nn.functional.max_unpool2d()
 * and max_unpool3d() compute it once they know the output's size: zeros,
 * with each element of @input at the position @indices gives it in its
 * plane. Differentiable (with respect to @input), with gradients of every
 * order.
 *
 * Returns: (transfer full): the output [N, C, @output_size...], or %NULL
 *   with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_max_unpool (DlTensor *input,
               DlTensor *indices,
               const gint64 *output_size,
               gsize n_output_size,
               GError **error)
{
  const gchar *op = n_output_size == 3 ? "max_unpool3d" : "max_unpool2d";
  g_autoptr (DlTensor) x = NULL;
  g_autoptr (DlTensor) idx = NULL;
  g_autoptr (DlTensor) x3 = NULL;
  g_autoptr (DlTensor) idx3 = NULL;
  g_autoptr (DlTensor) zeros = NULL;
  g_autoptr (DlTensor) flat = NULL;
  g_autoptr (DlTensor) out = NULL;
  g_autoptr (DlNode) node = NULL;
  gint64 shape[5], plane = 1;
  gboolean unbatched, was;
  const gint spatial = (gint)n_output_size;

  g_return_val_if_fail (DL_IS_TENSOR (input), NULL);
  g_return_val_if_fail (DL_IS_TENSOR (indices), NULL);
  if (n_output_size != 2 && n_output_size != 3)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "max_unpool: output_size must have 2 or 3 elements, got %" G_GSIZE_FORMAT,
                   n_output_size);
      return NULL;
    }
  if (indices->dtype != DL_DTYPE_INT64)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                   "%s: elements in indices should be type int64 but got: %s", op,
                   dl_dtype_get_name (indices->dtype));
      return NULL;
    }
  if (input->ndim != indices->ndim
      || memcmp (input->sizes, indices->sizes, input->ndim * sizeof (gint64)) != 0)
    {
      g_autofree gchar *is = dl_shape_to_string (input->sizes, input->ndim);
      g_autofree gchar *xs = dl_shape_to_string (indices->sizes, indices->ndim);
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "%s: Expected shape of indices to be same as that of the input tensor (%s) "
                   "but got indices tensor with shape: %s",
                   op, is, xs);
      return NULL;
    }
  if (!(x = batched (op, input, spatial + 2, &unbatched, error))
      || !(idx = unbatched ? dl_tensor_unsqueeze (indices, 0, error) : g_object_ref (indices))
      || !check_tuple (op, "output_size", output_size, spatial, 1, error))
    return NULL;
  for (gint d = 0; d < spatial; d++)
    plane *= output_size[d];
  if (idx->numel > 0)
    {
      g_autoptr (DlTensor) lo = dl_tensor_min (idx, error);
      g_autoptr (DlTensor) hi = lo ? dl_tensor_max (idx, error) : NULL;
      gint64 low, high;

      if (!hi)
        return NULL;
      low = (gint64)dl_tensor_item (lo, NULL);
      high = (gint64)dl_tensor_item (hi, NULL);
      if (low < 0 || high >= plane)
        {
          g_autoptr (GString) os = g_string_new (NULL);

          for (gint d = 0; d < spatial; d++)
            g_string_append_printf (os, "%s%" G_GINT64_FORMAT, d ? "x" : "", output_size[d]);
          g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                       "%s: Found an invalid max index: %" G_GINT64_FORMAT
                       " (output volumes are of size %s)",
                       op, low < 0 ? low : high, os->str);
          return NULL;
        }
    }
  shape[0] = x->sizes[0];
  shape[1] = x->sizes[1];
  memcpy (shape + 2, output_size, spatial * sizeof (gint64));
  was = dl_set_grad_enabled (FALSE);
  if ((x3 = dl_reshape_view (x, (gint64[]){ shape[0], shape[1], -1 }, 3, error))
      && (idx3 = dl_reshape_view (idx, (gint64[]){ shape[0], shape[1], -1 }, 3, error))
      && (zeros = dl_zeros ((gint64[]){ shape[0], shape[1], plane }, 3, x->dtype,
                            dl_tensor_get_device (x), error)))
    flat = dl_tensor_scatter (zeros, 2, idx3, x3, error);
  dl_set_grad_enabled (was);
  if (!flat || !(out = dl_reshape_view (flat, shape, spatial + 2, error)))
    return NULL;
  if (dl_autograd_any_requires (1, &x))
    {
      MaxPoolState *s;

      node = dl_node_new_for_op (spatial == 3 ? "MaxUnpool3DBackward0" : "MaxUnpool2DBackward0",
                                 max_unpool_backward, 1, &x);
      s = DL_NODE_NEW_STATE (node, MaxPoolState);
      dl_node_save (node, &s->indices, idx, FALSE);
      dl_node_set_output (node, out, 0);
    }
  return unbatch (g_steal_pointer (&out), unbatched, error);
}
