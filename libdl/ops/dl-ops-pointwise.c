/* dl-ops-pointwise.c: the elementwise ops of the op table
 * (dl-ops-pointwise.def): their two pipelines, unary and binary (checks,
 * broadcasting, dtype rules, dispatch to the backend, autograd), the in-place
 * protocol they share, and the op list; then copy_, fill_, to_dtype and
 * clone. The table's public functions are generated
 * (dl-ops-pointwise-table.c); the derivatives are in dl-ops-pointwise-grad.c.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "dl-ops-pointwise-private.h"

/* ---- helpers shared with the other families --------------------------- */

gboolean
dl_check_same_device (const gchar *op, DlTensor *a, DlTensor *b, GError **error)
{
  if (!dl_check_live (op, a, error) || !dl_check_live (op, b, error))
    return FALSE;
  if (dl_tensor_device (a) == dl_tensor_device (b))
    return TRUE;
  g_set_error (error, DL_ERROR, DL_ERROR_DEVICE,
               "%s: expected all tensors to be on the same device, but found at least "
               "two devices, %s and %s",
               op, dl_device_get_name (dl_tensor_device (a)),
               dl_device_get_name (dl_tensor_device (b)));
  return FALSE;
}

gboolean
dl_same_device_operands (const gchar *op,
                         DlTensor **a,
                         DlTensor **b,
                         DlTensor **moved,
                         GError **error)
{
  DlTensor **scalar;

  if (!dl_check_live (op, *a, error) || !dl_check_live (op, *b, error))
    return FALSE;
  if (G_LIKELY (dl_tensor_device (*a) == dl_tensor_device (*b)))
    return TRUE;
  if ((*b)->ndim == 0 && dl_tensor_device (*b) == dl_device_cpu ())
    scalar = b;
  else if ((*a)->ndim == 0 && dl_tensor_device (*a) == dl_device_cpu ())
    scalar = a;
  else
    return dl_check_same_device (op, *a, *b, error);
  if (!(*moved = dl_tensor_to_device (*scalar, dl_tensor_device (scalar == a ? *b : *a), error)))
    return FALSE;
  (*moved)->is_wrapped_number = (*scalar)->is_wrapped_number;
  *scalar = *moved;
  return TRUE;
}

/* A number's kind from its value: integral values are integers, but for
 * -0.0, which only a float can be (x / -0.0 is -inf, x * -0.0 is -0). */
DlTensor *
dl_wrapped_scalar (gdouble value)
{
  gboolean integral
      = value == floor (value) && fabs (value) < 9.2e18 && !(value == 0 && signbit (value));

  return dl_tensor_new_wrapped_scalar (value, integral ? DL_DTYPE_INT64 : DL_DTYPE_FLOAT64);
}

/**
 * dl_tensor_new_wrapped_scalar:
 * @value: the value
 * @dtype: the kind of number: %DL_DTYPE_FLOAT64 for a floating-point
 *   number, %DL_DTYPE_INT64 for an integer, %DL_DTYPE_BOOL for a boolean
 *
 * Makes a 0-d tensor that takes part in type promotion as a Python number
 * does in PyTorch: it never widens the other operand's dtype within its
 * category, so that an int32 tensor plus an integer stays int32 and an
 * integer tensor times the float 2.0 becomes the default float dtype.
 * Bindings whose numbers are all floats (JavaScript) use it to say which
 * kind of number they mean.
 *
 * Returns: (transfer full): the 0-d tensor
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_new_wrapped_scalar (gdouble value, DlDType dtype)
{
  DlTensor *s = dl_tensor_new_scalar (value, dtype);

  s->is_wrapped_number = TRUE;
  return s;
}

/* -1 stands for "no operand of this priority yet" */
static gint
combine_categories (gint higher, gint lower)
{
  if (higher >= 0 && dl_dtype_is_float (higher))
    return higher;
  if (higher == DL_DTYPE_BOOL || (lower >= 0 && dl_dtype_is_float (lower)))
    return higher < 0 ? lower : lower < 0 ? higher : (gint)dl_dtype_promote (higher, lower);
  return higher >= 0 ? higher : lower;
}

static void
update_state (gint *state, DlDType dtype)
{
  *state = *state < 0 ? (gint)dtype : (gint)dl_dtype_promote (*state, dtype);
}

DlDType
dl_result_type (DlTensor *a, DlTensor *b)
{
  gint dim = -1, zero = -1, wrapped = -1;
  DlTensor *ops[2] = { a, b };

  for (gint i = 0; i < 2; i++)
    {
      DlTensor *t = ops[i];

      if (t->is_wrapped_number)
        update_state (&wrapped, dl_dtype_is_float (t->dtype) ? dl_get_default_dtype () : t->dtype);
      else if (t->ndim == 0)
        update_state (&zero, t->dtype);
      else
        update_state (&dim, t->dtype);
    }
  return combine_categories (dim, combine_categories (zero, wrapped));
}

/* a copy of @t converted to @dtype: contiguous, or laid out as PyTorch's
 * preserve_format says with @preserve */
static DlTensor *
copy_into_new_layout (DlTensor *t, DlDType dtype, gboolean preserve, GError **error)
{
  DlBackendContext *ctx;
  DlTensor *out, *ops[2];
  DlIter iter;

  if (!(ctx = DL_TENSOR_BACKEND (t, copy, "copy", error))
      || !(out = preserve ? dl_empty_preserve_format (t, dtype, error)
                          : dl_tensor_new_empty_internal (dl_tensor_device (t), dtype, t->sizes,
                                                          t->ndim, error)))
    return NULL;
  ops[0] = out;
  ops[1] = t;
  dl_iter_init (&iter, 2, ops, t->sizes, t->ndim);
  ctx->backend->copy (ctx, &iter, dtype, t->dtype);
  return out;
}

static DlTensor *
copy_into_new (DlTensor *t, DlDType dtype, GError **error)
{
  return copy_into_new_layout (t, dtype, FALSE, error);
}

DlTensor *
dl_cast_nograd (DlTensor *t, DlDType dtype, GError **error)
{
  if (t->dtype == dtype)
    return g_object_ref (t);
  return copy_into_new (t, dtype, error);
}

DlTensor *
dl_contiguous_nograd (DlTensor *t, GError **error)
{
  if (dl_tensor_is_contiguous (t))
    return g_object_ref (t);
  return copy_into_new (t, t->dtype, error);
}

/* ---- the op list ----------------------------------------------------------- */

/**
 * dl_pointwise_op_names:
 * @flags: what the ops must have, all of it; %DL_OP_FLAGS_NONE for every op
 *
 * The names of the elementwise ops of libdl's op table that have every one
 * of @flags: each name is a function `dl_tensor_<name>` (a method of
 * #DlTensor), with the variants the flags name (`<name>_` in place,
 * `<name>_scalar` with a number, ...). Bindings build their op lists from
 * it, as the Python layer does.
 *
 * Returns: (transfer full): the names, in the table's order
 *
 * Since: 0.1
 */
GStrv
dl_pointwise_op_names (DlOpFlags flags)
{
  g_autoptr (GStrvBuilder) b = g_strv_builder_new ();

  for (guint i = 0; i < DL_N_POINTWISE_OPS; i++)
    {
      const DlPointwiseOp *op = &dl_pointwise_ops[i];
      DlOpFlags has = op->flags;

      if (op->node && op->grad && !g_str_equal (op->node, "NotImplemented"))
        has |= DL_OP_FLAGS_DIFFERENTIABLE;
      if (op->rule == DL_POINTWISE_RULE_COMPARE)
        has |= DL_OP_FLAGS_COMPARISON;
      if ((has & flags) == flags)
        g_strv_builder_add (b, op->name);
    }
  return g_strv_builder_end (b);
}

/* ---- dtypes ------------------------------------------------------------------ */

/* @t in the compute dtype @cdt. An op whose result is a 16-bit float
 * computes in float32 on operands first rounded to that type, so that a
 * number too large for it (float16 * 1e5) overflows as PyTorch's does. */
static DlTensor *
cast_through (DlTensor *t, DlDType result, DlDType cdt, GError **error)
{
  if (dl_dtype_is_half (result) && t->dtype != result)
    {
      g_autoptr (DlTensor) r = dl_cast_nograd (t, result, error);
      return r ? dl_cast_nograd (r, cdt, error) : NULL;
    }
  return dl_cast_nograd (t, cdt, error);
}

/* @out converted to @rdt (consumes @out) */
static DlTensor *
finish_dtype (DlTensor *out, DlDType rdt, GError **error)
{
  DlTensor *r;

  if (out == NULL || out->dtype == rdt)
    return out;
  r = dl_cast_nograd (out, rdt, error);
  g_object_unref (out);
  return r;
}

DlTensor *
dl_pointwise_mul_mask (DlTensor *g, DlTensor *mask, GError **error)
{
  g_autoptr (DlTensor) m = mask;
  g_autoptr (DlTensor) f = NULL;

  if (m == NULL || !(f = dl_tensor_to_dtype (m, g->dtype, error)))
    return NULL;
  return dl_tensor_mul (g, f, error);
}

/* ---- autograd ----------------------------------------------------------------- */

typedef struct
{
  const DlPointwiseOp *op;
  gdouble alpha;
  gdouble params[DL_POINTWISE_MAX_PARAMS]; /* a unary op's numbers */
  guint saved; /* DlPointwiseSaves: what record () kept */
  DlSavedTensor self, other, result;
} PointwiseState;

static gboolean
pointwise_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  const PointwiseState *s = dl_node_state (node);
  const DlPointwiseOp *op = s->op;
  DlNodeData *d = dl_node_data (node);
  DlPointwiseGradArgs args = { .grad = go[0], .alpha = s->alpha };
  g_autoptr (DlTensor) gs = NULL;
  g_autoptr (DlTensor) gt = NULL;

  memcpy (args.params, s->params, sizeof args.params);

  if (s->saved & DL_POINTWISE_SAVES_SELF)
    TRY (args.self = dl_node_saved (node, &s->self, error));
  if (s->saved & DL_POINTWISE_SAVES_OTHER)
    TRY (args.other = dl_node_saved (node, &s->other, error));
  if (s->saved & DL_POINTWISE_SAVES_RESULT)
    TRY (args.result = dl_node_saved (node, &s->result, error));
  args.need_self = dl_node_needs_input_grad (node, 0);
  args.need_other = op->arity == 2 && dl_node_needs_input_grad (node, 1);
  if (op->grad == NULL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_AUTOGRAD,
                   "the derivative for '%s' is not implemented.", op->name);
      return FALSE;
    }
  TRY (op->grad (&args, &gs, &gt, error));
  if (op->arity == 1)
    {
      gi[0] = g_steal_pointer (&gs);
      return TRUE;
    }
  /* undo the broadcast */
  if (gs)
    TRY (gi[0] = dl_sum_to (gs, d->inputs[0].sizes, d->inputs[0].ndim, error));
  if (gt)
    TRY (gi[1] = dl_sum_to (gt, d->inputs[1].sizes, d->inputs[1].ndim, error));
  return TRUE;
}

/* PyTorch's names for the node of a binary op with a Python number as
 * other or as self (its Tensor-Scalar and Scalar-Tensor overloads), where
 * they differ from the table's, the tensor form's */
static const struct
{
  DlBinaryOp kernel;
  const gchar *number_other, *number_self;
} number_nodes[] = {
  { DL_BINARY_POW, "PowBackward0", "PowBackward2" },
  { DL_BINARY_FMOD, "FmodBackward0", NULL },
  { DL_BINARY_REMAINDER, "RemainderBackward0", NULL },
  { DL_BINARY_COPYSIGN, "CopysignBackward1", NULL },
  { DL_BINARY_XLOGY, "XlogyBackward2", "XlogyBackward1" },
};

static const gchar *
node_name (const DlPointwiseOp *op, DlTensor *self, DlTensor *other)
{
  if (op->arity != 2 || !(self->is_wrapped_number || other->is_wrapped_number))
    return op->node;
  for (gsize i = 0; i < G_N_ELEMENTS (number_nodes); i++)
    if ((gint)number_nodes[i].kernel == op->kernel)
      {
        const gchar *name
            = other->is_wrapped_number ? number_nodes[i].number_other : number_nodes[i].number_self;
        return name ? name : op->node;
      }
  return op->node;
}

/* Records @out as the result of @op on @self (and @other) when the result
 * is floating point and an input requires grad, saving what the gradients
 * of the inputs that require grad read, and the unary op's @params
 * (nullable: none). */
static void
record (const DlPointwiseOp *op,
        DlTensor *self,
        DlTensor *other,
        gdouble alpha,
        const gdouble *params,
        DlTensor *out)
{
  DlTensor *inputs[2] = { self, other };
  g_autoptr (DlNode) node = NULL;
  PointwiseState *s;

  if (op->node == NULL || !dl_autograd_any_requires (op->arity, inputs)
      || !dl_dtype_is_float (out->dtype))
    return;
  node = dl_node_new_for_op (node_name (op, self, other), pointwise_backward, op->arity, inputs);
  s = DL_NODE_NEW_STATE (node, PointwiseState);
  s->op = op;
  s->alpha = alpha;
  if (params)
    memcpy (s->params, params, op->n_params * sizeof (gdouble));
  s->saved = dl_pointwise_saves_for (op->saves, dl_node_needs_input_grad (node, 0),
                                     op->arity == 2 && dl_node_needs_input_grad (node, 1));
  if (s->saved & DL_POINTWISE_SAVES_SELF)
    dl_node_save (node, &s->self, self, FALSE);
  if (s->saved & DL_POINTWISE_SAVES_OTHER)
    dl_node_save (node, &s->other, other, FALSE);
  if (s->saved & DL_POINTWISE_SAVES_RESULT)
    dl_node_save (node, &s->result, out, TRUE);
  dl_node_set_output (node, out, 0);
}

/* ---- unary ops ------------------------------------------------------------------ */

/* What a unary op does with @x's dtype: computes in *cdt and gives *rdt;
 * or, with *shortcut set, gives a copy of @x (rounding of integers) or a
 * constant (predicates of integers) without a kernel. */
typedef enum
{
  UNARY_KERNEL,
  UNARY_COPY,
  UNARY_CONSTANT,
} UnaryPlan;

static gboolean
unary_dtypes (const DlPointwiseOp *op,
              DlDType dtype,
              DlDType *cdt,
              DlDType *rdt,
              UnaryPlan *plan,
              GError **error)
{
  gboolean floating = dl_dtype_is_float (dtype);

  *plan = UNARY_KERNEL;
  *cdt = *rdt = dtype;
  switch (op->rule)
    {
      case DL_POINTWISE_RULE_FLOAT:
        if (!floating)
          *cdt = *rdt = dl_get_default_dtype ();
        break;
      case DL_POINTWISE_RULE_STRICT:
        if (!floating)
          goto unsupported;
        break;
      case DL_POINTWISE_RULE_KEEP:
        if (dtype == DL_DTYPE_BOOL)
          {
            g_set_error (
                error, DL_ERROR, DL_ERROR_DTYPE, "%s: not supported for bool tensors%s", op->name,
                op->kernel == DL_UNARY_NEG ? "; use the `~` or `logical_not()` operator instead"
                                           : "");
            return FALSE;
          }
        break;
      case DL_POINTWISE_RULE_ROUNDING:
        if (dtype == DL_DTYPE_BOOL)
          goto unsupported;
        if (!floating)
          *plan = UNARY_COPY;
        break;
      case DL_POINTWISE_RULE_NAN_TO_NUM:
        if (!floating)
          *plan = UNARY_COPY;
        break;
      case DL_POINTWISE_RULE_SIGN:
        break;
      case DL_POINTWISE_RULE_PREDICATE:
        *rdt = DL_DTYPE_BOOL;
        if (!floating)
          *plan = UNARY_CONSTANT;
        break;
      case DL_POINTWISE_RULE_SQUARE:
        if (dtype == DL_DTYPE_BOOL)
          *cdt = *rdt = DL_DTYPE_INT64;
        break;
      case DL_POINTWISE_RULE_SIGNBIT: /* float64 holds every integer's sign */
        *rdt = DL_DTYPE_BOOL;
        if (!floating)
          *cdt = DL_DTYPE_FLOAT64;
        break;
      case DL_POINTWISE_RULE_BITWISE:
        if (floating)
          {
            g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                         "%s: only integer and bool tensors are supported, not %s", op->name,
                         dl_dtype_get_name (dtype));
            return FALSE;
          }
        break;
      default:
        g_assert_not_reached ();
    }
  if (dl_dtype_is_half (*cdt))
    *cdt = DL_DTYPE_FLOAT32;
  return TRUE;

unsupported:
  g_set_error (error, DL_ERROR, DL_ERROR_DTYPE, "%s: not supported for %s tensors", op->name,
               dl_dtype_get_name (dtype));
  return FALSE;
}

/* Runs @op's kernel on @x: into @into when it has the kernel's output
 * dtype (returning @into, not a new reference), else into a new tensor. */
static DlTensor *
unary_kernel (const DlPointwiseOp *op,
              DlTensor *x,
              DlDType cdt,
              DlDType rdt,
              const gdouble *params,
              DlTensor *into,
              GError **error)
{
  DlDType odt = op->rule == DL_POINTWISE_RULE_PREDICATE || op->rule == DL_POINTWISE_RULE_SIGNBIT
                    ? DL_DTYPE_BOOL
                    : cdt;
  g_autoptr (DlTensor) cx = NULL;
  g_autoptr (DlTensor) out = NULL;
  DlTensor *ops[2];
  DlBackendContext *ctx;
  DlIter iter;

  if (!(ctx = params ? DL_TENSOR_BACKEND (x, unary_params, op->name, error)
                     : DL_TENSOR_BACKEND (x, unary, op->name, error))
      || !(cx = dl_cast_nograd (x, cdt, error)))
    return NULL;
  if (into && into->dtype == odt)
    out = g_object_ref (into);
  else if (!(out = dl_empty_like_layout (x, odt, x->sizes, x->ndim, error)))
    return NULL;
  ops[0] = out;
  ops[1] = cx;
  dl_iter_init (&iter, 2, ops, x->sizes, x->ndim);
  if (params)
    ctx->backend->unary_params (ctx, op->kernel, &iter, cdt, params);
  else
    ctx->backend->unary (ctx, op->kernel, &iter, cdt);
  if (out == into)
    return into;
  return finish_dtype (g_steal_pointer (&out), rdt, error);
}

/* a bool tensor of @t's shape filled with @value */
static DlTensor *
constant_bool (DlTensor *t, gboolean value, GError **error)
{
  DlBackendContext *ctx;
  DlTensor *out;
  DlIter iter;

  if (!(ctx = DL_TENSOR_BACKEND (t, fill, "fill", error))
      || !(out = dl_tensor_new_empty_internal (dl_tensor_device (t), DL_DTYPE_BOOL, t->sizes,
                                               t->ndim, error)))
    return NULL;
  dl_iter_init (&iter, 1, &out, t->sizes, t->ndim);
  ctx->backend->fill (ctx, &iter, DL_DTYPE_BOOL, value ? 1.0 : 0.0);
  return out;
}

DlTensor *
dl_pointwise_unary_params (const DlPointwiseOp *op,
                           DlTensor *self,
                           const gdouble *params,
                           GError **error)
{
  DlDType cdt, rdt;
  UnaryPlan plan;
  DlTensor *out;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_check_live (op->name, self, error)
      || !unary_dtypes (op, self->dtype, &cdt, &rdt, &plan, error))
    return NULL;
  if (plan == UNARY_COPY)
    return dl_tensor_clone (self, error);
  if (plan == UNARY_CONSTANT)
    return constant_bool (self, op->kernel == DL_UNARY_ISFINITE, error);
  if (!(out = unary_kernel (op, self, cdt, rdt, params, NULL, error)))
    return NULL;
  record (op, self, NULL, params ? params[0] : 1.0, params, out);
  return out;
}

DlTensor *
dl_pointwise_unary (DlPointwiseOpId id, DlTensor *self, GError **error)
{
  return dl_pointwise_unary_params (&dl_pointwise_ops[id], self, NULL, error);
}

typedef struct
{
  const DlPointwiseOp *op;
  const gdouble *params; /* (nullable) */
} UnaryOperand;

/* the in-place protocol's compute step (dl_inplace_run) for a unary op */
static DlTensor *
unary_compute (DlTensor *self, gpointer data, DlTensor *into, GError **error)
{
  const UnaryOperand *u = data;
  const DlPointwiseOp *op = u->op;
  DlDType cdt, rdt;
  UnaryPlan plan;
  DlTensor *out;

  if (into == NULL)
    return dl_pointwise_unary_params (op, self, u->params, error);
  /* in place without history: the checks are done */
  unary_dtypes (op, self->dtype, &cdt, &rdt, &plan, NULL);
  if (plan == UNARY_COPY) /* integers rounded: nothing changes */
    return into;
  /* into itself when the kernel's output dtype is into's, else a new
   * tensor the protocol copies in */
  if ((out = unary_kernel (op, self, cdt, rdt, u->params, into, error)) == into)
    dl_storage_bump_version (into->storage);
  return out;
}

DlTensor *
dl_pointwise_unary_params_ (const DlPointwiseOp *op,
                            DlTensor *self,
                            const gdouble *params,
                            GError **error)
{
  UnaryOperand u = { op, params };
  DlDType cdt, rdt;
  UnaryPlan plan;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_check_live (op->inplace_name, self, error)
      || !unary_dtypes (op, self->dtype, &cdt, &rdt, &plan, error)
      || !dl_inplace_check_castable (op->inplace_name, rdt, self->dtype, error)
      || !dl_check_write_target (op->inplace_name, self, error))
    return NULL;
  return dl_inplace_run (op->inplace_name, self, 0, NULL,
                         (op->saves & DL_POINTWISE_SAVES_SELF) != 0, unary_compute, &u, error);
}

DlTensor *
dl_pointwise_unary_ (DlPointwiseOpId id, DlTensor *self, GError **error)
{
  return dl_pointwise_unary_params_ (&dl_pointwise_ops[id], self, NULL, error);
}

/* ---- binary ops ------------------------------------------------------------------- */

gboolean
dl_pointwise_item (DlTensor *t, gdouble *value, GError **error)
{
  g_autoptr (DlTensor) owned = t;
  GError *local = NULL;

  if (owned == NULL)
    return FALSE;
  *value = dl_tensor_item (owned, &local);
  if (local)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  return TRUE;
}

/* whether the integer tensor @b has a zero element */
static gboolean
has_zero (DlTensor *b, gboolean *result, GError **error)
{
  g_autoptr (DlTensor) z = dl_tensor_eq_scalar (b, 0, error);
  gdouble count;

  if (z == NULL || !dl_pointwise_item (dl_tensor_sum (z, error), &count, error))
    return FALSE;
  *result = count > 0;
  return TRUE;
}

/* The dtypes of @op on @a and @b: it computes in *cdt and gives *rdt. */
static gboolean
binary_dtypes (const DlPointwiseOp *op,
               DlTensor *a,
               DlTensor *b,
               DlDType *cdt,
               DlDType *rdt,
               GError **error)
{
  DlDType r = dl_result_type (a, b);

  switch (op->rule)
    {
      case DL_POINTWISE_RULE_ARITH:
        if (op->kernel == DL_BINARY_SUB && (a->dtype == DL_DTYPE_BOOL || b->dtype == DL_DTYPE_BOOL))
          {
            g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                         "sub: subtraction, the `-` operator, with %s bool tensor%s is not "
                         "supported. If you are trying to invert a mask, use the `~` or "
                         "`logical_not()` operator instead.",
                         a->dtype == b->dtype ? "two" : "a", a->dtype == b->dtype ? "s" : "");
            return FALSE;
          }
        break;
      case DL_POINTWISE_RULE_DIV:
      case DL_POINTWISE_RULE_FLOAT:
        if (!dl_dtype_is_float (r))
          r = dl_get_default_dtype ();
        break;
      case DL_POINTWISE_RULE_STRICT:
        if (!dl_dtype_is_float (r))
          {
            g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                         "%s: not implemented for %s tensors (floating point only)", op->name,
                         dl_dtype_get_name (r));
            return FALSE;
          }
        break;
      case DL_POINTWISE_RULE_INTEGER:
        if (dl_dtype_is_float (r) || r == DL_DTYPE_BOOL)
          {
            g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                         "%s: not implemented for %s tensors (integers only)", op->name,
                         dl_dtype_get_name (r));
            return FALSE;
          }
        break;
      case DL_POINTWISE_RULE_SAME:
        if (a->dtype != b->dtype)
          {
            g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                         "%s is not yet implemented for tensors with different dtypes (%s and %s).",
                         op->name, dl_dtype_get_name (a->dtype), dl_dtype_get_name (b->dtype));
            return FALSE;
          }
        break;
      case DL_POINTWISE_RULE_COMPARE:
        break;
      case DL_POINTWISE_RULE_POWER:
      case DL_POINTWISE_RULE_INT_DIVISION:
        if (r == DL_DTYPE_BOOL)
          {
            g_set_error (error, DL_ERROR, DL_ERROR_DTYPE, "%s: not supported for bool tensors",
                         op->name);
            return FALSE;
          }
        break;
      case DL_POINTWISE_RULE_BITWISE:
        if (dl_dtype_is_float (r))
          {
            g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                         "%s: only integer and bool tensors are supported, not %s", op->name,
                         dl_dtype_get_name (r));
            return FALSE;
          }
        break;
      default:
        g_assert_not_reached ();
    }
  *rdt = op->rule == DL_POINTWISE_RULE_COMPARE ? DL_DTYPE_BOOL : r;
  *cdt = dl_dtype_is_half (r) ? DL_DTYPE_FLOAT32 : r;
  return TRUE;
}

/* The value checks integer kernels need: no integer division by zero, no
 * negative power of an integer (PyTorch refuses both). */
static gboolean
binary_values (const DlPointwiseOp *op, DlDType cdt, DlTensor *cb, DlTensor *b, GError **error)
{
  /* a meta tensor has no values to check */
  if (dl_dtype_is_float (cdt) || dl_tensor_on_meta (cb))
    return TRUE;
  if (op->rule == DL_POINTWISE_RULE_INT_DIVISION)
    {
      gboolean zero = FALSE;

      if (!has_zero (cb, &zero, error))
        return FALSE;
      if (zero)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                       "ZeroDivisionError: %s: integer division by zero", op->name);
          return FALSE;
        }
    }
  if (op->rule == DL_POINTWISE_RULE_POWER && b->is_wrapped_number)
    {
      GError *local = NULL;
      gdouble e = dl_tensor_item (b, &local);

      if (local)
        {
          g_propagate_error (error, local);
          return FALSE;
        }
      if (e < 0)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                       "pow: Integers to negative integer powers are not allowed (exponent %g).",
                       e);
          return FALSE;
        }
    }
  return TRUE;
}

/* Computes op (a, b) into a new tensor (transfer full), or into @into when
 * given (its shape is the broadcast shape; returns @into itself, transfer
 * none). @known (nullable) holds the compute and result dtypes when the
 * caller has worked them out already. Records autograd for a new tensor. */
static DlTensor *
binary_run (const DlPointwiseOp *op,
            DlTensor *a,
            DlTensor *b,
            gdouble alpha,
            DlTensor *into,
            const DlDType *known,
            GError **error)
{
  gint64 shape[DL_MAX_DIMS];
  gint ndim;
  DlDType cdt, rdt, odt;
  g_autoptr (DlTensor) ca = NULL;
  g_autoptr (DlTensor) cb = NULL;
  g_autoptr (DlTensor) out = NULL;
  g_autoptr (DlTensor) moved = NULL;
  DlTensor *ops[3];
  DlBackendContext *ctx;
  DlIter iter;

  g_return_val_if_fail (DL_IS_TENSOR (a) && DL_IS_TENSOR (b), NULL);
  if (!dl_same_device_operands (op->name, &a, &b, &moved, error)
      || !dl_broadcast_shapes (op->name, a->sizes, a->ndim, b->sizes, b->ndim, shape, &ndim, error))
    return NULL;
  if (known)
    {
      cdt = known[0];
      rdt = known[1];
    }
  else if (!binary_dtypes (op, a, b, &cdt, &rdt, error))
    return NULL;
  if (!(ctx = DL_TENSOR_BACKEND (a, binary, op->name, error))
      || (into && !DL_TENSOR_BACKEND (a, copy, op->name, error))
      || !(ca = cast_through (a, rdt, cdt, error)) || !(cb = cast_through (b, rdt, cdt, error))
      || !binary_values (op, cdt, cb, b, error))
    return NULL;

  odt = op->rule == DL_POINTWISE_RULE_COMPARE ? DL_DTYPE_BOOL : cdt;
  if (into && into->dtype == odt)
    out = g_object_ref (into);
  else if (!(out = dl_empty_like_layout (a->ndim == ndim ? a : b, odt, shape, ndim, error)))
    return NULL;
  ops[0] = out;
  ops[1] = ca;
  ops[2] = cb;
  dl_iter_init (&iter, 3, ops, shape, ndim);
  ctx->backend->binary (ctx, op->kernel, &iter, cdt, alpha);

  if (into)
    {
      if (out != into)
        {
          DlTensor *cops[2] = { into, out };
          dl_iter_init (&iter, 2, cops, shape, ndim);
          ctx->backend->copy (ctx, &iter, into->dtype, out->dtype);
        }
      dl_storage_bump_version (into->storage);
      return into;
    }
  if (!(out = finish_dtype (g_steal_pointer (&out), rdt, error)))
    return NULL;
  record (op, a, b, alpha, NULL, out);
  return g_steal_pointer (&out);
}

DlTensor *
dl_pointwise_binary (DlPointwiseOpId id,
                     DlTensor *self,
                     DlTensor *other,
                     gdouble alpha,
                     GError **error)
{
  return binary_run (&dl_pointwise_ops[id], self, other, alpha, NULL, NULL, error);
}

DlTensor *
dl_pointwise_binary_op (const DlPointwiseOp *op, DlTensor *self, DlTensor *other, GError **error)
{
  return binary_run (op, self, other, 1.0, NULL, NULL, error);
}

DlTensor *
dl_pointwise_binary_scalar (DlPointwiseOpId id,
                            DlTensor *self,
                            gdouble other,
                            gboolean reflected,
                            GError **error)
{
  g_autoptr (DlTensor) s = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  s = dl_wrapped_scalar (other);
  if (reflected)
    return binary_run (&dl_pointwise_ops[id], s, self, 1.0, NULL, NULL, error);
  return binary_run (&dl_pointwise_ops[id], self, s, 1.0, NULL, NULL, error);
}

typedef struct
{
  const DlPointwiseOp *op;
  DlTensor *other;
  gdouble alpha;
  DlDType dtypes[2]; /* compute, result */
} BinaryOperand;

/* the in-place protocol's compute step for a binary op: straight into
 * self, the dtypes known; or out of place on an alias */
static DlTensor *
binary_compute (DlTensor *self, gpointer data, DlTensor *into, GError **error)
{
  BinaryOperand *b = data;

  return binary_run (b->op, self, b->other, b->alpha, into, into ? b->dtypes : NULL, error);
}

DlTensor *
dl_pointwise_binary_ (DlPointwiseOpId id,
                      DlTensor *self,
                      DlTensor *other,
                      gdouble alpha,
                      GError **error)
{
  return dl_pointwise_binary_op_ (&dl_pointwise_ops[id], self, other, alpha, error);
}

DlTensor *
dl_pointwise_binary_op_ (const DlPointwiseOp *op,
                         DlTensor *self,
                         DlTensor *other,
                         gdouble alpha,
                         GError **error)
{
  const gchar *name = op->inplace_name;
  BinaryOperand b = { op, other, alpha };
  g_autoptr (DlTensor) moved = NULL;
  DlTensor *target = self, *given = other;
  gint64 shape[DL_MAX_DIMS];
  gint ndim;
  guint saves;

  g_return_val_if_fail (DL_IS_TENSOR (self) && DL_IS_TENSOR (other), NULL);
  if (!dl_check_live (name, self, error) || !dl_check_live (name, other, error)
      || !dl_broadcast_shapes (op->name, self->sizes, self->ndim, other->sizes, other->ndim, shape,
                               &ndim, error))
    return NULL;
  if (!dl_inplace_check_shape (name, self, shape, ndim, error)
      || !dl_check_write_target (name, self, error)
      || !dl_check_no_partial_overlap (name, self, other, error)
      || !dl_same_device_operands (name, &target, &other, &moved, error)
      || (target != self && !dl_check_same_device (name, self, given, error))
      || !binary_dtypes (op, self, other, &b.dtypes[0], &b.dtypes[1], error)
      || !dl_inplace_check_castable (name, b.dtypes[1], self->dtype, error))
    return NULL;
  /* the old values of self are needed when a gradient reads them */
  b.other = other;
  saves = dl_pointwise_saves_for (op->saves, dl_inplace_wants_history (self, 0, NULL),
                                  dl_autograd_any_requires (1, &other));
  return dl_inplace_run (name, self, 1, &other, (saves & DL_POINTWISE_SAVES_SELF) != 0,
                         binary_compute, &b, error);
}

DlTensor *
dl_pointwise_binary_scalar_ (DlPointwiseOpId id, DlTensor *self, gdouble other, GError **error)
{
  g_autoptr (DlTensor) s = NULL;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  s = dl_wrapped_scalar (other);
  return dl_pointwise_binary_ (id, self, s, 1.0, error);
}

/* ---- fills and copies ----------------------------------------------------------- */

/**
 * dl_tensor_fill_:
 * @self: a #DlTensor, written in place
 * @value: the value
 * @error: return location for a #GError
 *
 * Sets every element to @value.
 *
 * Returns: (transfer none): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_fill_ (DlTensor *self, gdouble value, GError **error)
{
  g_autoptr (DlTensor) holder = NULL;
  DlBackendContext *ctx;
  DlIter iter;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_check_write_target ("fill_", self, error)
      || !(ctx = DL_TENSOR_BACKEND (self, fill, "fill_", error)))
    return NULL;
  if (dl_inplace_wants_history (self, 0, NULL))
    {
      if (!dl_inplace_check_history ("fill_", self, error))
        return NULL;
      holder = dl_inplace_overwrite_begin ("FillBackward0", self, NULL);
    }
  dl_iter_init (&iter, 1, &self, self->sizes, self->ndim);
  ctx->backend->fill (ctx, &iter, self->dtype, value);
  dl_storage_bump_version (self->storage);
  if (holder)
    dl_inplace_take_history (self, holder);
  return self;
}

/**
 * dl_tensor_zero_:
 * @self: a #DlTensor, written in place
 * @error: return location for a #GError
 *
 * Sets every element to zero.
 *
 * Returns: (transfer none): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_zero_ (DlTensor *self, GError **error)
{
  return dl_tensor_fill_ (self, 0, error);
}

/* copy_'s devices: a source on any device goes into a meta tensor (there
 * is nothing to write), as torch; out of a meta tensor there is nothing to
 * read; otherwise both on one device */
static gboolean
copy_check_devices (DlTensor *self, DlTensor *src, GError **error)
{
  if (dl_tensor_on_meta (self))
    return TRUE;
  if (dl_tensor_on_meta (src))
    return dl_meta_no_data ("copy_", error);
  return dl_check_same_device ("copy_", self, src, error);
}

/**
 * dl_tensor_copy_:
 * @self: a #DlTensor, written in place
 * @src: a tensor that broadcasts to the shape of @self
 * @error: return location for a #GError
 *
 * Copies the elements of @src into @self, converting dtypes. Both are on
 * one device, except that a meta @self takes a source on any device (it
 * only checks the shapes, as torch), and a meta @src is a
 * %DL_ERROR_NOT_SUPPORTED error for any other @self (it has no data).
 *
 * Returns: (transfer none): @self, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_copy_ (DlTensor *self, DlTensor *src, GError **error)
{
  gint64 shape[DL_MAX_DIMS];
  gint ndim;
  DlTensor *ops[2] = { self, src };
  g_autoptr (DlTensor) holder = NULL;
  DlBackendContext *ctx;
  DlIter iter;

  g_return_val_if_fail (DL_IS_TENSOR (self) && DL_IS_TENSOR (src), NULL);
  if (!dl_check_write_target ("copy_", self, error)
      || !dl_check_no_partial_overlap ("copy_", self, src, error)
      || !copy_check_devices (self, src, error)
      || !dl_broadcast_shapes ("copy_", self->sizes, self->ndim, src->sizes, src->ndim, shape,
                               &ndim, error)
      || !(ctx = DL_TENSOR_BACKEND (self, copy, "copy_", error)))
    return NULL;
  if (ndim != self->ndim || memcmp (shape, self->sizes, ndim * sizeof (gint64)) != 0)
    {
      g_autofree gchar *s = dl_shape_to_string (self->sizes, self->ndim);
      g_autofree gchar *ss = dl_shape_to_string (src->sizes, src->ndim);
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "copy_: the size of source %s does not broadcast to the destination %s", ss, s);
      return NULL;
    }
  /* a source that requires grad matters only for a float destination */
  if (dl_inplace_wants_history (self, dl_dtype_is_float (self->dtype) ? 1 : 0, &src))
    {
      if (!dl_inplace_check_history ("copy_", self, error))
        return NULL;
      holder = dl_inplace_overwrite_begin ("CopyBackwards", self, src);
    }
  dl_iter_init (&iter, 2, ops, self->sizes, self->ndim);
  ctx->backend->copy (ctx, &iter, self->dtype, src->dtype);
  dl_storage_bump_version (self->storage);
  if (holder)
    dl_inplace_take_history (self, holder);
  return self;
}

/* ---- dtype conversion and clone --------------------------------------- */

static gboolean
to_dtype_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  gi[0] = dl_tensor_to_dtype (go[0], dl_node_data (node)->inputs[0].dtype, error);
  return gi[0] != NULL;
}

/**
 * dl_tensor_to_dtype:
 * @self: a #DlTensor
 * @dtype: the dtype wanted
 * @error: return location for a #GError
 *
 * Converts the elements to @dtype. When @self already has @dtype, returns
 * @self itself, as torch's to() does.
 *
 * Returns: (transfer full): the converted tensor, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_to_dtype (DlTensor *self, DlDType dtype, GError **error)
{
  DlTensor *out;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_check_live ("to", self, error))
    return NULL;
  if ((guint)dtype >= DL_N_DTYPES)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE, "to: invalid dtype %d", dtype);
      return NULL;
    }
  if (self->dtype == dtype)
    return g_object_ref (self);
  if (!(out = copy_into_new (self, dtype, error)))
    return NULL;
  if (dl_dtype_is_float (dtype) && dl_autograd_any_requires (1, &self))
    {
      g_autoptr (DlNode) node = dl_node_new_for_op ("ToCopyBackward0", to_dtype_backward, 1, &self);
      dl_node_set_output (node, out, 0);
    }
  return out;
}

static gboolean
identity_backward (DlNode *node, DlTensor **go, DlTensor **gi, GError **error)
{
  gi[0] = g_object_ref (go[0]);
  return TRUE;
}

/**
 * dl_tensor_clone_format:
 * @self: a #DlTensor
 * @format: the layout of the copy
 * @error: return location for a #GError
 *
 * Copies @self into its own storage, as torch.clone (memory_format=...):
 * with %DL_MEMORY_FORMAT_CONTIGUOUS the copy is contiguous; with
 * %DL_MEMORY_FORMAT_PRESERVE it keeps the strides of a dense @self (a
 * transpose or permutation of a contiguous tensor), and a @self that is
 * not dense (a slice with steps) gives dense strides in the order of
 * its own. Its gradient is the incoming gradient.
 *
 * Returns: (transfer full): the copy, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_clone_format (DlTensor *self, DlMemoryFormat format, GError **error)
{
  DlTensor *out;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  if (!dl_check_live ("clone", self, error))
    return NULL;
  if (format != DL_MEMORY_FORMAT_PRESERVE && format != DL_MEMORY_FORMAT_CONTIGUOUS)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "clone: invalid memory format %d",
                   (gint)format);
      return NULL;
    }
  if (!(out = copy_into_new_layout (self, self->dtype, format == DL_MEMORY_FORMAT_PRESERVE, error)))
    return NULL;
  if (dl_autograd_any_requires (1, &self))
    {
      g_autoptr (DlNode) node = dl_node_new_for_op ("CloneBackward0", identity_backward, 1, &self);
      dl_node_set_output (node, out, 0);
    }
  return out;
}

/**
 * dl_tensor_clone:
 * @self: a #DlTensor
 * @error: return location for a #GError
 *
 * Copies @self into its own storage, contiguous (as
 * dl_tensor_clone_format() with %DL_MEMORY_FORMAT_CONTIGUOUS; torch's
 * clone keeps the layout by default: use %DL_MEMORY_FORMAT_PRESERVE for
 * that).
 *
 * Returns: (transfer full): a contiguous copy with its own storage, or
 *   %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_clone (DlTensor *self, GError **error)
{
  return dl_tensor_clone_format (self, DL_MEMORY_FORMAT_CONTIGUOUS, error);
}
