/* dl-ops-resample.c: padding, average and adaptive average pooling and
 * interpolation, all separable linear maps of the last one to three dims
 * of a tensor (see DlResampleArgs in dl-backend.h), and dropout.
 *
 * Each op builds a plan: per spatial axis, the input positions and
 * weights each output position reads (one position of weight 1 for
 * reflect/replicate/circular padding, none for constant padding outside
 * the input, a window of equal weights for average pooling, two weighted
 * neighbours for linear interpolation). One kernel applies a plan, one its
 * adjoint: the backward of the map is its adjoint, and the backward of the
 * adjoint is the map again (without constant padding's fill), so every
 * order of derivative comes from the two kernels.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "dl-ops-resample.h"
#include "dl-ops-private.h"
#include "dl-node-private.h"
#include "dl-generator-private.h"

typedef struct
{
  gatomicrefcount ref;
  gint spatial;                /* 1 to 3 trailing dims */
  const gchar *name;           /* the map's node */
  const gchar *adjoint_name;   /* its adjoint's node */
  GArray *start[3], *index[3]; /* gint64, per args axis */
  GArray *weight[3];           /* gdouble */
  DlResampleArgs args;         /* planes set per call */
} Plan;

static Plan *
plan_new (gint spatial, const gchar *name, const gchar *adjoint_name)
{
  Plan *p = g_new0 (Plan, 1);

  g_atomic_ref_count_init (&p->ref);
  p->spatial = spatial;
  p->name = name;
  p->adjoint_name = adjoint_name;
  for (gint a = 0; a < 3; a++)
    {
      gint64 zero = 0, one = 1;
      gdouble w = 1;

      p->start[a] = g_array_new (FALSE, FALSE, sizeof (gint64));
      p->index[a] = g_array_new (FALSE, FALSE, sizeof (gint64));
      p->weight[a] = g_array_new (FALSE, FALSE, sizeof (gdouble));
      /* an axis the op does not use: the identity of size 1 */
      g_array_append_val (p->start[a], zero);
      g_array_append_val (p->start[a], one);
      g_array_append_val (p->index[a], zero);
      g_array_append_val (p->weight[a], w);
      p->args.axis[a].in_size = p->args.axis[a].out_size = 1;
    }
  return p;
}

static void
plan_unref (Plan *p)
{
  if (!g_atomic_ref_count_dec (&p->ref))
    return;
  for (gint a = 0; a < 3; a++)
    {
      g_array_unref (p->start[a]);
      g_array_unref (p->index[a]);
      g_array_unref (p->weight[a]);
    }
  g_free (p);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Plan, plan_unref)

/* the args axis of spatial dim @d (0: the first of the plan's dims) */
static gint
plan_axis (const Plan *p, gint d)
{
  return 3 - p->spatial + d;
}

/* Starts spatial dim @d over: @in input positions into @out outputs. */
static void
plan_begin (Plan *p, gint d, gint64 in, gint64 out)
{
  gint a = plan_axis (p, d);
  gint64 zero = 0;

  g_array_set_size (p->start[a], 0);
  g_array_set_size (p->index[a], 0);
  g_array_set_size (p->weight[a], 0);
  g_array_append_val (p->start[a], zero);
  p->args.axis[a].in_size = in;
  p->args.axis[a].out_size = out;
}

/* Adds input position @i with weight @w to the current output of @d. */
static void
plan_tap (Plan *p, gint d, gint64 i, gdouble w)
{
  gint a = plan_axis (p, d);

  g_array_append_val (p->index[a], i);
  g_array_append_val (p->weight[a], w);
}

/* Ends the current output of @d. */
static void
plan_next (Plan *p, gint d)
{
  gint a = plan_axis (p, d);
  gint64 n = p->index[a]->len;

  g_array_append_val (p->start[a], n);
}

/* @plan's arrays into @args (planes and fill left to the caller) */
static void
plan_args (const Plan *plan, DlResampleArgs *args)
{
  *args = plan->args;
  for (gint a = 0; a < 3; a++)
    {
      args->axis[a].start = (const gint64 *)(gpointer)plan->start[a]->data;
      args->axis[a].index = (const gint64 *)(gpointer)plan->index[a]->data;
      args->axis[a].weight = (const gdouble *)(gpointer)plan->weight[a]->data;
    }
}

typedef struct
{
  Plan *plan;
  gboolean adjoint;
} ResampleState;

static void
resample_state_clear (gpointer data)
{
  ResampleState *s = data;

  g_clear_pointer (&s->plan, plan_unref);
}

static DlTensor *resample_apply (const gchar *op,
                                 DlTensor *x,
                                 Plan *plan,
                                 gboolean adjoint,
                                 gdouble fill,
                                 GError **error);

static gboolean
resample_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  const ResampleState *s = dl_node_state (node);

  return (gi[0] = resample_apply (s->adjoint ? s->plan->name : s->plan->adjoint_name, go[0],
                                  s->plan, !s->adjoint, 0, error))
         != NULL;
}

/* The map of @plan (or its adjoint) over the trailing dims of @x, with
 * @fill where the map reads nothing; a node records it. */
static DlTensor *
resample_apply (const gchar *op,
                DlTensor *x,
                Plan *plan,
                gboolean adjoint,
                gdouble fill,
                GError **error)
{
  g_autoptr (DlTensor) xc = NULL;
  DlBackendContext *ctx;
  DlResampleArgs args;
  gint64 shape[DL_MAX_DIMS];
  const gint lead = x->ndim - plan->spatial;
  DlTensor *out;

  if (x->dtype == DL_DTYPE_FLOAT16 || x->dtype == DL_DTYPE_BFLOAT16)
    {
      g_autoptr (DlTensor) f = dl_tensor_to_dtype (x, DL_DTYPE_FLOAT32, error);
      g_autoptr (DlTensor) r = f ? resample_apply (op, f, plan, adjoint, fill, error) : NULL;
      return r ? dl_tensor_to_dtype (r, x->dtype, error) : NULL;
    }
  if (!dl_check_float_dtype (op, x, error))
    return NULL;
  if (!(ctx = DL_TENSOR_BACKEND (x, resample, op, error))
      || !DL_TENSOR_BACKEND (x, resample_adjoint, op, error)
      || !(xc = dl_tensor_contiguous (x, error)))
    return NULL;
  plan_args (plan, &args);
  args.planes = 1;
  for (gint d = 0; d < lead; d++)
    {
      shape[d] = x->sizes[d];
      args.planes *= x->sizes[d];
    }
  for (gint d = 0; d < plan->spatial; d++)
    {
      const DlResampleAxis *ax = &args.axis[plan_axis (plan, d)];
      g_assert (x->sizes[lead + d] == (adjoint ? ax->out_size : ax->in_size));
      shape[lead + d] = adjoint ? ax->in_size : ax->out_size;
    }
  args.fill = fill;
  if (!(out = dl_tensor_new_empty_internal (dl_tensor_device (x), x->dtype, shape, x->ndim, error)))
    return NULL;
  if (out->numel > 0 && args.planes > 0)
    {
      if (adjoint)
        ctx->backend->resample_adjoint (ctx, &args, dl_tensor_data (xc), dl_tensor_data (out),
                                        x->dtype);
      else
        ctx->backend->resample (ctx, &args, dl_tensor_data (xc), dl_tensor_data (out), x->dtype);
    }
  if (dl_autograd_any_requires (1, &x))
    {
      g_autoptr (DlNode) node = dl_node_new_for_op (adjoint ? plan->adjoint_name : plan->name,
                                                    resample_backward, 1, &x);
      ResampleState *s = dl_node_alloc_state (node, sizeof (ResampleState), resample_state_clear);

      s->plan = plan;
      g_atomic_ref_count_inc (&plan->ref);
      s->adjoint = adjoint;
      dl_node_set_output (node, out, 0);
    }
  return out;
}

/* ---- pad ---------------------------------------------------------------- */

static const gchar *const pad_names[4][3][2] = {
  { { "ConstantPadNdBackward0", "ConstantPadNdBackwardBackward0" },
    { "ConstantPadNdBackward0", "ConstantPadNdBackwardBackward0" },
    { "ConstantPadNdBackward0", "ConstantPadNdBackwardBackward0" } },
  { { "ReflectionPad1DBackward0", "ReflectionPad1DBackwardBackward0" },
    { "ReflectionPad2DBackward0", "ReflectionPad2DBackwardBackward0" },
    { "ReflectionPad3DBackward0", "ReflectionPad3DBackwardBackward0" } },
  { { "ReplicationPad1DBackward0", "ReplicationPad1DBackwardBackward0" },
    { "ReplicationPad2DBackward0", "ReplicationPad2DBackwardBackward0" },
    { "ReplicationPad3DBackward0", "ReplicationPad3DBackwardBackward0" } },
  { { "CircularPadBackward0", "CircularPadBackwardBackward0" },
    { "CircularPadBackward0", "CircularPadBackwardBackward0" },
    { "CircularPadBackward0", "CircularPadBackwardBackward0" } },
};

static const gchar *const pad_ops[4]
    = { "constant_pad_nd", "reflection_pad", "replication_pad", "circular_pad" };

/* the input position output @o of a dim of @in elements padded by @left
 * and @right reads, or -1 for the constant (circular padding crops by the
 * negative paddings first and wraps around what is left, as PyTorch's) */
static gint64
pad_source (DlPadMode mode, gint64 o, gint64 in, gint64 left, gint64 right)
{
  gint64 i = o - left;

  switch (mode)
    {
      case DL_PAD_REFLECT:
        if (i < 0)
          i = -i;
        if (i >= in)
          i = 2 * (in - 1) - i;
        return i;
      case DL_PAD_REPLICATE:
        return CLAMP (i, 0, in - 1);
      case DL_PAD_CIRCULAR:
        {
          const gint64 kept = in + MIN (left, 0) + MIN (right, 0);
          return ((o - MAX (left, 0)) % kept + kept) % kept + MAX (-left, 0);
        }
      case DL_PAD_CONSTANT:
      default:
        return i >= 0 && i < in ? i : -1;
    }
}

/* constant padding of a tensor no gradient flows through (any dtype):
 * the value everywhere, then the input's kept part copied in */
static DlTensor *
pad_constant_plain (DlTensor *input,
                    const gint64 *out_sizes,
                    const gint64 *pad,
                    gsize n_pad,
                    gdouble value,
                    GError **error)
{
  g_autoptr (DlTensor) out = NULL;
  g_autoptr (DlTensor) src = g_object_ref (input);
  g_autoptr (DlTensor) dst = NULL;

  if (!(out
        = dl_full (out_sizes, input->ndim, value, input->dtype, dl_tensor_device (input), error)))
    return NULL;
  dst = g_object_ref (out);
  for (gsize k = 0; k < n_pad / 2; k++)
    {
      const gint d = input->ndim - 1 - k;
      const gint64 l = pad[2 * k], r = pad[2 * k + 1];
      const gint64 keep = input->sizes[d] + MIN (l, 0) + MIN (r, 0);
      DlTensor *t;

      if (keep <= 0)
        return g_steal_pointer (&out);
      if (!(t = dl_tensor_narrow (src, d, MAX (-l, 0), keep, error)))
        return NULL;
      g_object_unref (src);
      src = t;
      if (!(t = dl_tensor_narrow (dst, d, MAX (l, 0), keep, error)))
        return NULL;
      g_object_unref (dst);
      dst = t;
    }
  if (!dl_tensor_copy_ (dst, src, error))
    return NULL;
  return g_steal_pointer (&out);
}

/**
 * dl_pad:
 * @input: the tensor to pad
 * @pad: (array length=n_pad): pairs (before, after) of paddings, the
 *   first pair for the last dim, the next for the one before it, ...
 * @n_pad: the length of @pad, even
 * @mode: how to fill the padding
 * @value: the fill of %DL_PAD_CONSTANT (0 for the other modes)
 * @error: return location for a #GError
 *
 * Pads @input as torch.nn.functional.pad() does. %DL_PAD_CONSTANT pads
 * any number of trailing dims and takes negative paddings (which crop);
 * the other modes pad the last 1, 2 or 3 dims of an input with one or two
 * more dims (a batch and channels, or channels), reflect by less than the
 * dim's size, circular by at most it. Differentiable, with gradients of
 * every order; non-float tensors are padded with constants only.
 *
 * Returns: (transfer full): the padded tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_pad (DlTensor *input,
        const gint64 *pad,
        gsize n_pad,
        DlPadMode mode,
        gdouble value,
        GError **error)
{
  g_autoptr (Plan) plan = NULL;
  g_autofree gchar *shape = NULL;
  gint64 out_sizes[DL_MAX_DIMS];
  const gsize k = n_pad / 2;
  const gchar *op;

  g_return_val_if_fail (DL_IS_TENSOR (input), NULL);
  g_return_val_if_fail (pad != NULL || n_pad == 0, NULL);
  if ((guint)mode > DL_PAD_CIRCULAR)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "pad: unknown padding mode %d", mode);
      return NULL;
    }
  op = pad_ops[mode];
  shape = dl_shape_to_string (input->sizes, input->ndim);
  if (n_pad % 2 != 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "pad: Padding length must be divisible by 2");
      return NULL;
    }
  if (n_pad > 2 * (gsize)input->ndim)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "pad: Padding length too large: %" G_GSIZE_FORMAT
                   " values for an input of size %s",
                   n_pad, shape);
      return NULL;
    }
  if (mode != DL_PAD_CONSTANT)
    {
      if (value != 0)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                       "pad: Padding mode \"%s\" doesn't take in value argument",
                       mode == DL_PAD_REFLECT     ? "reflect"
                       : mode == DL_PAD_REPLICATE ? "replicate"
                                                  : "circular");
          return NULL;
        }
      if (k < 1 || k > 3 || input->ndim < (gint)k + 1 || input->ndim > (gint)k + 2)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED,
                       "pad: Only 2D, 3D, 4D, 5D padding with non-constant padding are "
                       "supported for now (padding of length %" G_GSIZE_FORMAT
                       " for an input of size %s)",
                       n_pad, shape);
          return NULL;
        }
    }
  for (gint d = 0; d < input->ndim; d++)
    out_sizes[d] = input->sizes[d];
  for (gsize j = 0; j < k; j++)
    {
      const gint d = input->ndim - 1 - j;
      const gint64 l = pad[2 * j], r = pad[2 * j + 1], in = input->sizes[d];

      out_sizes[d] = in + l + r;
      if (mode == DL_PAD_REFLECT && (l >= in || r >= in))
        {
          g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                       "%s: Padding size should be less than the corresponding input dimension, "
                       "but got: padding (%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
                       ") at dimension %d of input %s",
                       op, l, r, d, shape);
          return NULL;
        }
      if (mode == DL_PAD_CIRCULAR
          && (l > in + MIN (r, 0) || r > in + MIN (l, 0) || in + MIN (l, 0) + MIN (r, 0) <= 0))
        {
          g_set_error (
              error, DL_ERROR, DL_ERROR_ARGUMENT,
              "%s: Padding value causes wrapping around more than once: padding (%" G_GINT64_FORMAT
              ", %" G_GINT64_FORMAT ") at dimension %d of input %s",
              op, l, r, d, shape);
          return NULL;
        }
      if (mode != DL_PAD_CONSTANT && in == 0)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                       "%s: Expected the padded dims to be non-empty, but got input of size %s "
                       "with dimension %d being empty",
                       op, shape, d);
          return NULL;
        }
      if (out_sizes[d] < (mode == DL_PAD_CONSTANT ? 0 : 1))
        {
          g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                       "%s: The input size %" G_GINT64_FORMAT
                       ", plus negative padding %" G_GINT64_FORMAT " and %" G_GINT64_FORMAT
                       " resulted in a negative output size, which is "
                       "invalid. Check dimension %d of your input %s.",
                       op, in, l, r, d, shape);
          return NULL;
        }
    }
  if (k == 0)
    return dl_tensor_clone (input, error);
  if (mode == DL_PAD_CONSTANT && !dl_dtype_is_float (input->dtype))
    return pad_constant_plain (input, out_sizes, pad, n_pad, value, error);
  if (mode == DL_PAD_CONSTANT && k > 3)
    {
      /* constant padding of more than 3 dims: 3 at a time */
      g_autoptr (DlTensor) inner = dl_pad (input, pad, 6, mode, value, error);
      g_autoptr (DlTensor) moved = NULL;
      g_autoptr (DlTensor) padded = NULL;
      g_autofree gint64 *perm = g_new (gint64, input->ndim);
      const gint nd = input->ndim;

      if (!inner)
        return NULL;
      /* bring the next dims to the back, pad them, and move them home */
      for (gint d = 0; d < nd; d++)
        perm[d] = (d + nd - 3) % nd;
      if (!(moved = dl_tensor_permute (inner, perm, nd, error))
          || !(padded = dl_pad (moved, pad + 6, n_pad - 6, mode, value, error)))
        return NULL;
      for (gint d = 0; d < nd; d++)
        perm[d] = (d + 3) % nd;
      {
        g_autoptr (DlTensor) back = dl_tensor_permute (padded, perm, nd, error);
        return back ? dl_tensor_contiguous (back, error) : NULL;
      }
    }
  plan = plan_new (k, pad_names[mode][k - 1][0], pad_names[mode][k - 1][1]);
  for (gsize j = 0; j < k; j++)
    {
      const gint dd = k - 1 - j; /* the plan's dim */
      const gint d = input->ndim - 1 - j;
      const gint64 in = input->sizes[d];

      plan_begin (plan, dd, in, out_sizes[d]);
      for (gint64 o = 0; o < out_sizes[d]; o++)
        {
          gint64 i = pad_source (mode, o, in, pad[2 * j], pad[2 * j + 1]);

          if (i >= 0)
            plan_tap (plan, dd, i, 1.0);
          plan_next (plan, dd);
        }
    }
  return resample_apply (op, input, plan, FALSE, mode == DL_PAD_CONSTANT ? value : 0, error);
}

/* ---- pooling -------------------------------------------------------------- */

/* @t with a batch dim in front when it has @batched_ndim - 1 dims */
static DlTensor *
image_batch (const gchar *op, DlTensor *t, gint batched_ndim, gboolean *unbatched, GError **error)
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
  return g_object_ref (t);
}

/* checks that the non-batch dims of @x are non-empty */
static gboolean
check_nonempty (const gchar *op, DlTensor *x, gboolean unbatched, GError **error)
{
  for (gint d = unbatched ? 0 : 1; d < x->ndim; d++)
    if (x->sizes[d] == 0)
      {
        g_autofree gchar *s = dl_shape_to_string (x->sizes, x->ndim);
        g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                     "%s: Expected input to have non-zero size for non-batch dimensions, but "
                     "input has sizes %s with dimension %d being empty",
                     op, s, d);
        return FALSE;
      }
  return TRUE;
}

/* the values of @v (@n of them) as "a, b, c" */
static gchar *
values_string (const gint64 *v, gint n)
{
  GString *s = g_string_new (NULL);

  for (gint i = 0; i < n; i++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i ? ", " : "", v[i]);
  return g_string_free (s, FALSE);
}

/* Checks a pooling window over @spatial dims (kernel, stride and dilation
 * >= 1, padding >= 0 and at most half the window) and sets @out to the
 * pooled sizes of @x's trailing dims; FALSE with PyTorch's messages
 * otherwise. @dilation is NULL for average pooling (all 1). */
static gboolean
pool_window (const gchar *op,
             DlTensor *x,
             gint spatial,
             const gint64 *kernel_size,
             const gint64 *stride,
             const gint64 *padding,
             const gint64 *dilation,
             gboolean ceil_mode,
             gint64 *out,
             GError **error)
{
  g_autofree gchar *ks = values_string (kernel_size, spatial);
  g_autofree gchar *ss = values_string (stride, spatial);
  g_autofree gchar *ps = values_string (padding, spatial);
  static const gint64 ones[3] = { 1, 1, 1 };
  const gint64 *dil = dilation ? dilation : ones;
  gboolean small = FALSE;

  for (gint i = 0; i < spatial; i++)
    if (kernel_size[i] < 1 || stride[i] < 1 || padding[i] < 0 || dil[i] < 1)
      {
        g_autofree gchar *ds = values_string (dil, spatial);
        g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                     "%s: kernel_size, stride and dilation must be greater than zero and "
                     "padding non-negative, but got kernel_size=(%s), stride=(%s), "
                     "padding=(%s), dilation=(%s)",
                     op, ks, ss, ps, ds);
        return FALSE;
      }
  for (gint i = 0; i < spatial; i++)
    if (padding[i] > kernel_size[i] / 2) /* padding * 2 could overflow */
      {
        g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                     "%s: pad should be %s half of %skernel size, but got pad=(%s), "
                     "kernel_size=(%s)",
                     op, dilation ? "at most" : "smaller than or equal to",
                     dilation ? "effective " : "", ps, ks);
        return FALSE;
      }
  for (gint i = 0; i < spatial; i++)
    {
      out[i] = dl_pooled_size (x->sizes[x->ndim - spatial + i], kernel_size[i], stride[i],
                               padding[i], dil[i], ceil_mode);
      small |= out[i] < 1;
    }
  if (small)
    {
      g_autofree gchar *s = dl_shape_to_string (x->sizes, x->ndim);
      gint64 shown[3];
      g_autofree gchar *os = NULL;

      for (gint i = 0; i < spatial; i++)
        shown[i] = MAX (out[i], 0);
      os = values_string (shown, spatial);
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "%s: Given input size %s, calculated output size (%s): Output size is too "
                   "small",
                   op, s, os);
      return FALSE;
    }
  return TRUE;
}

/* Average pooling over the last @spatial dims of @input ([N, C, ...] or
 * [C, ...]), its nodes @name and @adjoint (see dl_avg_pool2d()). */
static DlTensor *
avg_pool (const gchar *op,
          gint spatial,
          const gchar *name,
          const gchar *adjoint,
          DlTensor *input,
          const gint64 *kernel_size,
          const gint64 *stride,
          const gint64 *padding,
          gboolean ceil_mode,
          gboolean count_include_pad,
          gint64 divisor_override,
          GError **error)
{
  g_autoptr (DlTensor) x = NULL;
  g_autoptr (Plan) plan = NULL;
  gboolean unbatched;
  gint64 out[3];

  if (!(x = image_batch (op, input, spatial + 2, &unbatched, error))
      || !check_nonempty (op, x, unbatched, error))
    return NULL;
  if (divisor_override < 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s: divisor must be not zero, got %" G_GINT64_FORMAT, op, divisor_override);
      return NULL;
    }
  if (!pool_window (op, x, spatial, kernel_size, stride, padding, NULL, ceil_mode, out, error))
    return NULL;
  plan = plan_new (spatial, name, adjoint);
  for (gint d = 0; d < spatial; d++)
    {
      const gint64 in = x->sizes[x->ndim - spatial + d];

      plan_begin (plan, d, in, out[d]);
      for (gint64 o = 0; o < out[d]; o++)
        {
          gint64 start = o * stride[d] - padding[d];
          gint64 end = MIN (start + kernel_size[d], in + padding[d]);
          const gint64 padded = end - start;
          gdouble div;

          start = MAX (start, 0);
          end = MIN (end, in);
          div = divisor_override    ? (d == 0 ? divisor_override : 1)
                : count_include_pad ? padded
                                    : end - start;
          for (gint64 i = start; i < end; i++)
            plan_tap (plan, d, i, 1.0 / div);
          plan_next (plan, d);
        }
    }
  return resample_apply (op, x, plan, FALSE, 0, error);
}

/**
 * dl_avg_pool2d:
 * @input: an image batch [N, C, H, W] (or one image [C, H, W])
 * @kernel_size: (array fixed-size=2): the window's height and width
 * @stride: (array fixed-size=2): the window's step
 * @padding: (array fixed-size=2): implicit zeros on both sides, at most
 *   half the window
 * @ceil_mode: whether a last window that only partly covers the input
 *   counts
 * @count_include_pad: whether the padding's zeros count in the divisor
 * @divisor_override: the divisor of every window when nonzero
 * @error: return location for a #GError
 *
 * Average pooling, as torch.nn.functional.avg_pool2d() computes it (a
 * window reaching past the padding under @ceil_mode divides by the part
 * inside the padded input). Differentiable, with gradients of every order.
 *
 * Returns: (transfer full): the pooled batch [N, C, H', W'], or %NULL with
 *   @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_avg_pool2d (DlTensor *input,
               const gint64 *kernel_size,
               const gint64 *stride,
               const gint64 *padding,
               gboolean ceil_mode,
               gboolean count_include_pad,
               gint64 divisor_override,
               GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (input), NULL);
  return avg_pool ("avg_pool2d", 2, "AvgPool2DBackward0", "AvgPool2DBackwardBackward0", input,
                   kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override,
                   error);
}

/**
 * dl_avg_pool3d:
 * @input: a volume batch [N, C, D, H, W] (or one volume [C, D, H, W])
 * @kernel_size: (array fixed-size=3): the window's depth, height and width
 * @stride: (array fixed-size=3): the window's step
 * @padding: (array fixed-size=3): implicit zeros on both sides, at most
 *   half the window
 * @ceil_mode: whether a last window that only partly covers the input
 *   counts
 * @count_include_pad: whether the padding's zeros count in the divisor
 * @divisor_override: the divisor of every window when nonzero
 * @error: return location for a #GError
 *
 * Average pooling over volumes, as torch.nn.functional.avg_pool3d()
 * computes it (see dl_avg_pool2d()). Differentiable, with gradients of
 * every order.
 *
 * Returns: (transfer full): the pooled batch [N, C, D', H', W'], or %NULL
 *   with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_avg_pool3d (DlTensor *input,
               const gint64 *kernel_size,
               const gint64 *stride,
               const gint64 *padding,
               gboolean ceil_mode,
               gboolean count_include_pad,
               gint64 divisor_override,
               GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (input), NULL);
  return avg_pool ("avg_pool3d", 3, "AvgPool3DBackward0", "AvgPool3DBackwardBackward0", input,
                   kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override,
                   error);
}

/* Whether an output of @x's leading dims and @spatial trailing sizes @out
 * can be allocated: checked before the plan, whose tables are of the
 * output's length (an output of 2^62 elements is refused at once, not
 * after billions of plan entries). */
static gboolean
check_output_shape (const gchar *op,
                    DlTensor *x,
                    gint spatial,
                    const gint64 *out,
                    GError **error)
{
  gint64 shape[DL_MAX_DIMS];
  const gint lead = x->ndim - spatial;

  memcpy (shape, x->sizes, lead * sizeof (gint64));
  memcpy (shape + lead, out, spatial * sizeof (gint64));
  return dl_check_shape (op, shape, x->ndim, NULL, error);
}

/* the bins of adaptive pooling of @x's last @spatial dims into
 * @output_size: output o of a dim of n into m reads floor(o n / m) to
 * ceil((o + 1) n / m) - 1, each with weight 1 / its size */
static Plan *
adaptive_plan (DlTensor *x,
               gint spatial,
               const gint64 *output_size,
               const gchar *name,
               const gchar *adjoint)
{
  Plan *plan = plan_new (spatial, name, adjoint);

  for (gint d = 0; d < spatial; d++)
    {
      const gint64 in = x->sizes[x->ndim - spatial + d], m = output_size[d];

      plan_begin (plan, d, in, m);
      for (gint64 o = 0; o < m; o++)
        {
          const gint64 start = o * in / m, end = ((o + 1) * in + m - 1) / m;

          for (gint64 i = start; i < end; i++)
            plan_tap (plan, d, i, 1.0 / (gdouble)(end - start));
          plan_next (plan, d);
        }
    }
  return plan;
}

/* the checks of adaptive pooling (@op) of @x into @output_size (@spatial
 * values) */
static gboolean
check_adaptive (const gchar *op,
                DlTensor *x,
                gboolean unbatched,
                gint spatial,
                const gint64 *output_size,
                GError **error)
{
  if (!check_nonempty (op, x, unbatched, error))
    return FALSE;
  for (gint d = 0; d < spatial; d++)
    if (output_size[d] < 0)
      {
        g_autofree gchar *os = values_string (output_size, spatial);
        g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                     "%s: elements of output_size must be greater than or equal to 0 but "
                     "received {%s}",
                     op, os);
        return FALSE;
      }
  return check_output_shape (op, x, spatial, output_size, error);
}

/* The maxima of @x ([N, C, ...] or [C, ...] with @unbatched) over the taps
 * of @plan (weights ignored), recorded as @name's node, and their flat
 * positions in their planes into *@indices when non-NULL; NaN wins. */
static DlTensor *
max_over_plan (const gchar *op,
               DlTensor *x,
               gboolean unbatched,
               Plan *plan,
               const gchar *name,
               DlTensor **indices,
               GError **error)
{
  g_autoptr (DlTensor) xb = NULL;
  g_autoptr (DlTensor) xc = NULL;
  g_autoptr (DlTensor) out = NULL;
  g_autoptr (DlTensor) idx = NULL;
  DlBackendContext *ctx;
  DlResampleArgs args;
  gint64 shape[5];
  const gint ndim = plan->spatial + 2;

  if (x->dtype == DL_DTYPE_FLOAT16 || x->dtype == DL_DTYPE_BFLOAT16)
    {
      g_autoptr (DlTensor) f = dl_tensor_to_dtype (x, DL_DTYPE_FLOAT32, error);
      g_autoptr (DlTensor) r
          = f ? max_over_plan (op, f, unbatched, plan, name, indices, error) : NULL;
      return r ? dl_tensor_to_dtype (r, x->dtype, error) : NULL;
    }
  if (!dl_check_float_dtype (op, x, error))
    return NULL;
  if (!(ctx = DL_TENSOR_BACKEND (x, resample_max, op, error))
      || !(xb = unbatched ? dl_tensor_unsqueeze (x, 0, error) : g_object_ref (x))
      || !(xc = dl_tensor_contiguous (xb, error)))
    return NULL;
  plan_args (plan, &args);
  args.planes = xb->sizes[0] * xb->sizes[1];
  shape[0] = xb->sizes[0];
  shape[1] = xb->sizes[1];
  for (gint d = 0; d < plan->spatial; d++)
    shape[2 + d] = args.axis[plan_axis (plan, d)].out_size;
  if (!(out = dl_tensor_new_empty_internal (dl_tensor_device (x), x->dtype, shape, ndim, error))
      || !(idx = dl_tensor_new_empty_internal (dl_tensor_device (x), DL_DTYPE_INT64, shape, ndim,
                                               error)))
    return NULL;
  if (out->numel > 0)
    ctx->backend->resample_max (ctx, &args, dl_tensor_data (xc), dl_tensor_data (out),
                                (gint64 *)dl_tensor_data (idx), x->dtype);
  dl_max_pool_record (name, xb, out, idx, NULL);
  if (unbatched)
    {
      g_autoptr (DlTensor) o = dl_tensor_squeeze_dim (out, 0, error);
      if (indices)
        *indices = dl_tensor_squeeze_dim (idx, 0, error);
      return g_steal_pointer (&o);
    }
  if (indices)
    *indices = g_steal_pointer (&idx);
  return g_steal_pointer (&out);
}

/* adaptive average or max pooling (@max) of @input's last @spatial dims */
static DlTensor *
adaptive_pool (const gchar *op,
               gint spatial,
               gboolean max,
               const gchar *name,
               const gchar *adjoint,
               DlTensor *input,
               const gint64 *output_size,
               DlTensor **indices,
               GError **error)
{
  g_autoptr (DlTensor) x = NULL;
  g_autoptr (Plan) plan = NULL;
  gboolean unbatched;

  if (!(x = image_batch (op, input, spatial + 2, &unbatched, error))
      || !check_adaptive (op, x, unbatched, spatial, output_size, error))
    return NULL;
  plan = adaptive_plan (x, spatial, output_size, name, adjoint);
  if (max)
    return max_over_plan (op, x, unbatched, plan, name, indices, error);
  return resample_apply (op, x, plan, FALSE, 0, error);
}

/**
 * dl_adaptive_avg_pool2d:
 * @input: an image batch [N, C, H, W] (or one image [C, H, W])
 * @output_size: (array fixed-size=2): the output's height and width
 * @error: return location for a #GError
 *
 * Adaptive average pooling, as torch.nn.functional.adaptive_avg_pool2d()
 * computes it: output position o of a dim of size n into m averages the
 * input positions floor(o n / m) to ceil((o + 1) n / m) - 1 (bins of
 * unequal sizes where m does not divide n). Differentiable, with
 * gradients of every order.
 *
 * Returns: (transfer full): the pooled batch [N, C, oh, ow], or %NULL with
 *   @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_adaptive_avg_pool2d (DlTensor *input, const gint64 *output_size, GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (input), NULL);
  return adaptive_pool ("adaptive_avg_pool2d", 2, FALSE, "AdaptiveAvgPool2DBackward0",
                        "AdaptiveAvgPool2DBackwardBackward0", input, output_size, NULL, error);
}

/**
 * dl_adaptive_avg_pool3d:
 * @input: a volume batch [N, C, D, H, W] (or one volume [C, D, H, W])
 * @output_size: (array fixed-size=3): the output's depth, height and width
 * @error: return location for a #GError
 *
 * Adaptive average pooling over volumes, as
 * torch.nn.functional.adaptive_avg_pool3d() computes it, with the bins of
 * dl_adaptive_avg_pool2d() along each dim. Differentiable, with gradients
 * of every order.
 *
 * Returns: (transfer full): the pooled batch [N, C, od, oh, ow], or %NULL
 *   with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_adaptive_avg_pool3d (DlTensor *input, const gint64 *output_size, GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (input), NULL);
  return adaptive_pool ("adaptive_avg_pool3d", 3, FALSE, "AdaptiveAvgPool3DBackward0",
                        "AdaptiveAvgPool3DBackwardBackward0", input, output_size, NULL, error);
}

/**
 * dl_adaptive_max_pool2d:
 * @input: an image batch [N, C, H, W] (or one image [C, H, W])
 * @output_size: (array fixed-size=2): the output's height and width
 * @indices: (out) (optional) (transfer full): where to store each
 *   maximum's flat position in its plane (int64, the output's shape), as
 *   torch.nn.functional.adaptive_max_pool2d(return_indices=True) gives them
 * @error: return location for a #GError
 *
 * Adaptive max pooling, as torch.nn.functional.adaptive_max_pool2d()
 * computes it, over the bins of dl_adaptive_avg_pool2d(); NaN wins.
 * Differentiable, with gradients of every order.
 *
 * Returns: (transfer full): the pooled batch [N, C, oh, ow], or %NULL with
 *   @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_adaptive_max_pool2d (DlTensor *input,
                        const gint64 *output_size,
                        DlTensor **indices,
                        GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (input), NULL);
  return adaptive_pool ("adaptive_max_pool2d", 2, TRUE, "AdaptiveMaxPool2DBackward0", NULL, input,
                        output_size, indices, error);
}

/**
 * dl_adaptive_max_pool3d:
 * @input: a volume batch [N, C, D, H, W] (or one volume [C, D, H, W])
 * @output_size: (array fixed-size=3): the output's depth, height and width
 * @indices: (out) (optional) (transfer full): where to store each
 *   maximum's flat position in its volume (int64, the output's shape), as
 *   torch.nn.functional.adaptive_max_pool3d(return_indices=True) gives them
 * @error: return location for a #GError
 *
 * Adaptive max pooling over volumes, as
 * torch.nn.functional.adaptive_max_pool3d() computes it, over the bins of
 * dl_adaptive_avg_pool3d(); NaN wins. Differentiable, with gradients of
 * every order.
 *
 * Returns: (transfer full): the pooled batch [N, C, od, oh, ow], or %NULL
 *   with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_adaptive_max_pool3d (DlTensor *input,
                        const gint64 *output_size,
                        DlTensor **indices,
                        GError **error)
{
  g_return_val_if_fail (DL_IS_TENSOR (input), NULL);
  return adaptive_pool ("adaptive_max_pool3d", 3, TRUE, "AdaptiveMaxPool3DBackward0", NULL, input,
                        output_size, indices, error);
}

/**
 * dl_max_pool3d:
 * @input: a volume batch [N, C, D, H, W] (or one volume [C, D, H, W])
 * @kernel_size: (array fixed-size=3): the window's depth, height and width
 * @stride: (array fixed-size=3): the window's step
 * @padding: (array fixed-size=3): implicit -inf padding on both sides, at
 *   most half the window
 * @dilation: (array fixed-size=3): the spacing of the window's taps
 * @ceil_mode: whether a last window that only partly covers the input
 *   counts (PyTorch's ceil_mode)
 * @indices: (out) (optional) (transfer full): where to store each
 *   maximum's flat position in its volume (int64, the output's shape), as
 *   torch.nn.functional.max_pool3d(return_indices=True) gives them
 * @error: return location for a #GError
 *
 * Max pooling over volumes, as torch.nn.functional.max_pool3d() computes
 * it; the first maximum of a window (in depth, row, column order) wins,
 * and NaN wins. Differentiable, with gradients of every order.
 *
 * Returns: (transfer full): the pooled batch [N, C, D', H', W'], or %NULL
 *   with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_max_pool3d (DlTensor *input,
               const gint64 *kernel_size,
               const gint64 *stride,
               const gint64 *padding,
               const gint64 *dilation,
               gboolean ceil_mode,
               DlTensor **indices,
               GError **error)
{
  g_autoptr (DlTensor) x = NULL;
  g_autoptr (Plan) plan = NULL;
  gboolean unbatched;
  gint64 out[3];

  g_return_val_if_fail (DL_IS_TENSOR (input), NULL);
  if (!(x = image_batch ("max_pool3d", input, 5, &unbatched, error))
      || !check_nonempty ("max_pool3d", x, unbatched, error)
      || !pool_window ("max_pool3d", x, 3, kernel_size, stride, padding, dilation, ceil_mode, out,
                       error)
      || !check_output_shape ("max_pool3d", x, 3, out, error))
    return NULL;
  plan = plan_new (3, "MaxPool3DWithIndicesBackward0", NULL);
  for (gint d = 0; d < 3; d++)
    {
      const gint64 in = x->sizes[x->ndim - 3 + d];

      plan_begin (plan, d, in, out[d]);
      for (gint64 o = 0; o < out[d]; o++)
        {
          for (gint64 t = 0; t < kernel_size[d]; t++)
            {
              const gint64 i = o * stride[d] - padding[d] + t * dilation[d];

              if (i >= 0 && i < in)
                plan_tap (plan, d, i, 1.0);
            }
          plan_next (plan, d);
        }
    }
  return max_over_plan ("max_pool3d", x, unbatched, plan, "MaxPool3DWithIndicesBackward0", indices,
                        error);
}

/* ---- interpolate -------------------------------------------------------- */

/* PyTorch's source scale of one dim (compute_scales_value) */
#define SCALE(T, scale, in, out) ((scale) > 0 ? (T)(1.0 / (scale)) : (T)(in) / (T)(out))

/* the two neighbours of output @o and their weights, as PyTorch's
 * compute_source_index_and_lambda computes them in T */
#define LINEAR_TAPS(T, plan, d, o, in, out, scale, align_corners)                                  \
  G_STMT_START                                                                                     \
  {                                                                                                \
    if ((in) == (out))                                                                             \
      plan_tap (plan, d, o, 1.0);                                                                  \
    else                                                                                           \
      {                                                                                            \
        const T ratio = (align_corners) ? ((out) > 1 ? (T)((in)-1) / (T)((out)-1) : (T)0)          \
                                        : SCALE (T, scale, in, out);                               \
        T real = (align_corners) ? ratio * (T)(o) : ratio * ((T)(o) + (T)0.5) - (T)0.5;            \
        gint64 i0, i1;                                                                             \
        T l1;                                                                                      \
                                                                                                   \
        if (!(align_corners) && real < 0)                                                          \
          real = 0;                                                                                \
        i0 = (gint64)real;                                                                         \
        i1 = i0 + (i0 < (in)-1 ? 1 : 0);                                                           \
        l1 = MIN (MAX (real - (T)i0, (T)0), (T)1);                                                 \
        plan_tap (plan, d, i0, (gdouble)((T)1 - l1));                                              \
        plan_tap (plan, d, i1, (gdouble)l1);                                                       \
      }                                                                                            \
  }                                                                                                \
  G_STMT_END

/* the four taps of output @o and their cubic convolution weights, as
 * PyTorch's compute_indices_weights_cubic computes them in T */
#define CUBIC_TAPS(T, plan, d, o, in, out, scale, align_corners)                                   \
  G_STMT_START                                                                                     \
  {                                                                                                \
    const T A = (T)-0.75;                                                                          \
    const T ratio = (align_corners) ? ((out) > 1 ? (T)((in)-1) / (T)((out)-1) : (T)0)              \
                                    : SCALE (T, scale, in, out);                                   \
    const T real = (align_corners) ? ratio * (T)(o) : ratio * ((T)(o) + (T)0.5) - (T)0.5;          \
    const gint64 i0 = MIN ((gint64)floor (real), (in)-1);                                          \
    const T t = MIN (MAX (real - (T)i0, (T)0), (T)1);                                              \
    const T x1 = t + 1, x2 = 1 - t, x3 = 2 - t;                                                    \
    const T w[4] = { ((A * x1 - 5 * A) * x1 + 8 * A) * x1 - 4 * A,                                 \
                     ((A + 2) * t - (A + 3)) * t * t + 1, ((A + 2) * x2 - (A + 3)) * x2 * x2 + 1,  \
                     ((A * x3 - 5 * A) * x3 + 8 * A) * x3 - 4 * A };                               \
                                                                                                   \
    for (gint k = 0; k < 4; k++)                                                                   \
      plan_tap (plan, d, CLAMP (i0 - 1 + k, 0, (in)-1), (gdouble)w[k]);                            \
  }                                                                                                \
  G_STMT_END

/**
 * dl_interpolate:
 * @input: a batch [N, C, L] (nearest, linear), [N, C, H, W] (nearest,
 *   bilinear, bicubic) or [N, C, D, H, W] (nearest, trilinear)
 * @size: (array length=n_size): the output's spatial sizes
 * @n_size: their number, the input's dims less 2
 * @scales: (array length=n_scales) (nullable): the scale factors the
 *   sizes came from, which PyTorch maps positions with when given (a
 *   value <= 0: none, use input size / output size)
 * @n_scales: 0 or @n_size
 * @mode: nearest, linear, bilinear, bicubic or trilinear
 * @align_corners: for the linear modes, whether the corner elements of input and
 *   output line up, rather than their corner areas
 * @error: return location for a #GError
 *
 * Resamples @input as torch.nn.functional.interpolate() does once it has
 * resolved its size (the Python layer turns a scale_factor and
 * recompute_scale_factor into @size and @scales as PyTorch's does).
 * Differentiable, with gradients of every order.
 *
 * Returns: (transfer full): the resampled batch, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_interpolate (DlTensor *input,
                const gint64 *size,
                gsize n_size,
                const gdouble *scales,
                gsize n_scales,
                DlInterpolateMode mode,
                gboolean align_corners,
                GError **error)
{
  static const gchar *const names[5][3][2] = {
    { { "UpsampleNearest1DBackward0", "UpsampleNearest1DBackwardBackward0" },
      { "UpsampleNearest2DBackward0", "UpsampleNearest2DBackwardBackward0" },
      { "UpsampleNearest3DBackward0", "UpsampleNearest3DBackwardBackward0" } },
    { { "UpsampleLinear1DBackward0", "UpsampleLinear1DBackwardBackward0" }, { NULL }, { NULL } },
    { { NULL },
      { "UpsampleBilinear2DBackward0", "UpsampleBilinear2DBackwardBackward0" },
      { NULL } },
    { { NULL }, { "UpsampleBicubic2DBackward0", "UpsampleBicubic2DBackwardBackward0" }, { NULL } },
    { { NULL },
      { NULL },
      { "UpsampleTrilinear3DBackward0", "UpsampleTrilinear3DBackwardBackward0" } },
  };
  static const gchar *const ops[5][3] = {
    { "upsample_nearest1d", "upsample_nearest2d", "upsample_nearest3d" },
    { "upsample_linear1d", NULL, NULL },
    { NULL, "upsample_bilinear2d", NULL },
    { NULL, "upsample_bicubic2d", NULL },
    { NULL, NULL, "upsample_trilinear3d" },
  };
  g_autoptr (Plan) plan = NULL;
  g_autofree gchar *shape = NULL;
  gint spatial;
  gboolean wide;
  const gchar *op;

  g_return_val_if_fail (DL_IS_TENSOR (input), NULL);
  g_return_val_if_fail (size != NULL || n_size == 0, NULL);
  spatial = input->ndim - 2;
  wide = input->dtype == DL_DTYPE_FLOAT64;
  shape = dl_shape_to_string (input->sizes, input->ndim);
  if ((guint)mode > DL_INTERPOLATE_TRILINEAR || spatial < 1 || spatial > 3
      || !(op = ops[mode][spatial - 1]))
    {
      static const gchar *const mode_names[]
          = { "nearest", "linear", "bilinear", "bicubic", "trilinear" };
      g_set_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED,
                   "interpolate: Input Error: Only 3D, 4D and 5D input Tensors supported (got "
                   "%dD) for the modes: nearest | linear | bilinear | bicubic | trilinear (got %s, "
                   "input of size %s)",
                   input->ndim, (guint)mode <= DL_INTERPOLATE_TRILINEAR ? mode_names[mode] : "?",
                   shape);
      return NULL;
    }
  if (n_size != (gsize)spatial || (n_scales != 0 && n_scales != n_size))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s: expected %d output sizes (and as many scales or none) for input of size "
                   "%s, got %" G_GSIZE_FORMAT " sizes and %" G_GSIZE_FORMAT " scales",
                   op, spatial, shape, n_size, n_scales);
      return NULL;
    }
  for (gint d = 0; d < spatial; d++)
    if (size[d] <= 0 || input->sizes[2 + d] <= 0)
      {
        g_autofree gchar *out = dl_shape_to_string (size, n_size);
        g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                     "%s: Input and output sizes should be greater than 0, but got input %s "
                     "output %s",
                     op, shape, out);
        return NULL;
      }
  if (!check_output_shape (op, input, spatial, size, error))
    return NULL;
  plan = plan_new (spatial, names[mode][spatial - 1][0], names[mode][spatial - 1][1]);
  for (gint d = 0; d < spatial; d++)
    {
      const gint64 in = input->sizes[2 + d], out = size[d];
      const gdouble scale = n_scales ? scales[d] : 0;

      plan_begin (plan, d, in, out);
      for (gint64 o = 0; o < out; o++)
        {
          if (mode == DL_INTERPOLATE_NEAREST)
            {
              gint64 i;

              if (out == in)
                i = o;
              else if (out == 2 * in)
                i = o >> 1;
              else
                i = MIN ((gint64)floorf ((gfloat)o * SCALE (gfloat, scale, in, out)), in - 1);
              plan_tap (plan, d, i, 1.0);
            }
          else if (mode == DL_INTERPOLATE_BICUBIC && wide)
            CUBIC_TAPS (gdouble, plan, d, o, in, out, scale, align_corners);
          else if (mode == DL_INTERPOLATE_BICUBIC)
            CUBIC_TAPS (gfloat, plan, d, o, in, out, scale, align_corners);
          else if (wide)
            LINEAR_TAPS (gdouble, plan, d, o, in, out, scale, align_corners);
          else
            LINEAR_TAPS (gfloat, plan, d, o, in, out, scale, align_corners);
          plan_next (plan, d);
        }
    }
  return resample_apply (op, input, plan, FALSE, 0, error);
}

/* ---- dropout ------------------------------------------------------------ */

typedef struct
{
  DlSavedTensor mask;
  gdouble scale;
} DropoutState;

/* grad * mask / (1 - p), with tensor ops (create_graph records them) */
static gboolean
dropout_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  const DropoutState *s = dl_node_state (node);
  g_autoptr (DlTensor) masked = NULL;
  DlTensor *mask;

  TRY (mask = dl_node_saved (node, &s->mask, error));
  TRY (masked = dl_tensor_mul (go[0], mask, error));
  return (gi[0] = dl_tensor_mul_scalar (masked, s->scale, error)) != NULL;
}

/**
 * dl_dropout:
 * @input: a float tensor
 * @p: the probability of zeroing an element, in [0, 1]
 * @train: whether to drop (otherwise @input is returned)
 * @generator: (nullable): where the random numbers come from (the
 *   device's default generator when %NULL)
 * @error: return location for a #GError
 *
 * Dropout as torch.nn.functional.dropout() does it: in training, each
 * element is zeroed with probability @p and the others scaled by
 * 1 / (1 - @p), in one pass that draws from @generator (the numbers are
 * libdl's stream, not PyTorch's). Differentiable: the mask is kept for
 * the backward.
 *
 * Returns: (transfer full): the result (@input itself when not training
 *   or @p is 0), or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_dropout (DlTensor *input, gdouble p, gboolean train, DlGenerator *generator, GError **error)
{
  g_autoptr (DlTensor) xc = NULL;
  g_autoptr (DlTensor) out = NULL;
  g_autoptr (DlTensor) mask = NULL;
  DlBackendContext *ctx;
  DlRandomDraw draw;
  DlGenerator *held;
  gint per_block;

  g_return_val_if_fail (DL_IS_TENSOR (input), NULL);
  g_return_val_if_fail (generator == NULL || DL_IS_GENERATOR (generator), NULL);
  if (!(p >= 0 && p <= 1))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "dropout: dropout probability has to be between 0 and 1, but got %g", p);
      return NULL;
    }
  if (!train || p == 0)
    return g_object_ref (input);
  if (generator && !dl_device_equal (dl_generator_get_device (generator), dl_tensor_device (input)))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DEVICE,
                   "dropout: expected a generator on device %s, but got one on %s",
                   dl_device_get_name (dl_tensor_device (input)),
                   dl_device_get_name (dl_generator_get_device (generator)));
      return NULL;
    }
  if (input->dtype == DL_DTYPE_FLOAT16 || input->dtype == DL_DTYPE_BFLOAT16)
    {
      g_autoptr (DlTensor) f = dl_tensor_to_dtype (input, DL_DTYPE_FLOAT32, error);
      g_autoptr (DlTensor) r = f ? dl_dropout (f, p, train, generator, error) : NULL;
      return r ? dl_tensor_to_dtype (r, input->dtype, error) : NULL;
    }
  if (input->dtype != DL_DTYPE_FLOAT32 && input->dtype != DL_DTYPE_FLOAT64)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                   "dropout: expected a floating-point input, got %s",
                   dl_dtype_get_name (input->dtype));
      return NULL;
    }
  if (!(ctx = DL_TENSOR_BACKEND (input, dropout, "dropout", error))
      || !(xc = dl_tensor_contiguous (input, error))
      || !(out = dl_tensor_new_empty_internal (dl_tensor_device (input), input->dtype, input->sizes,
                                               input->ndim, error))
      || !(mask = dl_tensor_new_empty_internal (dl_tensor_device (input), DL_DTYPE_UINT8,
                                                input->sizes, input->ndim, error)))
    return NULL;
  per_block = input->dtype == DL_DTYPE_FLOAT64 ? 2 : 4;
  held = dl_generator_begin (generator, dl_tensor_device (input),
                             (input->numel + per_block - 1) / per_block, &draw);
  if (input->numel > 0)
    ctx->backend->dropout (ctx, dl_tensor_data (xc), dl_tensor_data (out),
                           (guint8 *)dl_tensor_data (mask), input->numel, p, input->dtype, &draw);
  dl_generator_end (held);
  if (dl_autograd_any_requires (1, &input))
    {
      g_autoptr (DlNode) node
          = dl_node_new_for_op ("NativeDropoutBackward0", dropout_backward, 1, &input);
      DropoutState *s = DL_NODE_NEW_STATE (node, DropoutState);

      s->scale = p < 1 ? 1.0 / (1.0 - p) : 0.0;
      dl_node_save (node, &s->mask, mask, FALSE);
      dl_node_set_output (node, out, 0);
    }
  return g_steal_pointer (&out);
}
