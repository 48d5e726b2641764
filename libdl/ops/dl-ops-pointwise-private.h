/* dl-ops-pointwise-private.h: the pointwise op table and its pipelines.
 *
 * dl-ops-pointwise.def declares the ops; this header turns its rows into
 * an enum of op ids and a table of DlPointwiseOp records, and declares
 * the pipelines that run a record and the derivatives the rows name.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dl-ops-private.h"

G_BEGIN_DECLS

/* How an op's result dtype follows from its operands'. */
typedef enum
{
  /* unary */
  DL_POINTWISE_RULE_FLOAT,      /* integers and bool give the default float dtype */
  DL_POINTWISE_RULE_STRICT,     /* floating point only (binary: the result type) */
  DL_POINTWISE_RULE_KEEP,       /* any number dtype, kept; bool refused */
  DL_POINTWISE_RULE_ROUNDING,   /* floats computed; integers a copy; bool refused */
  DL_POINTWISE_RULE_SIGN,       /* every dtype, kept */
  DL_POINTWISE_RULE_PREDICATE,  /* a bool result; integers are finite */
  DL_POINTWISE_RULE_SIGNBIT,    /* a bool result, integers through float64 */
  DL_POINTWISE_RULE_SQUARE,     /* any dtype kept; bool gives int64 (pow's promotion) */
  DL_POINTWISE_RULE_BITWISE,    /* integer and bool only (both arities) */
  DL_POINTWISE_RULE_NAN_TO_NUM, /* floats computed; integers and bool a copy */
  /* binary: the result type of the two, and then */
  DL_POINTWISE_RULE_ARITH,        /* no bool subtraction */
  DL_POINTWISE_RULE_DIV,          /* integers give the default float dtype (atan2: FLOAT) */
  DL_POINTWISE_RULE_COMPARE,      /* a bool result */
  DL_POINTWISE_RULE_POWER,        /* bool refused; no negative integer powers of integers */
  DL_POINTWISE_RULE_INT_DIVISION, /* bool refused; no integer division by zero */
  DL_POINTWISE_RULE_INTEGER,      /* integers only: no bool, no floats (gcd, shifts) */
  DL_POINTWISE_RULE_SAME,         /* both operands of one dtype, any (heaviside) */
} DlPointwiseRule;

/* What a derivative reads, per input: the low bits are what the gradient
 * of self reads, the same bits shifted by DL_POINTWISE_FOR_OTHER what the
 * gradient of other reads. An op saves only what the gradients of the
 * inputs that require grad read (dl_pointwise_saves_for), so that an
 * in-place change of a tensor no gradient reads is allowed, as in
 * PyTorch: y = x * 2 keeps only the 2; y = x + 1 keeps nothing. */
typedef enum
{
  DL_POINTWISE_SAVES_NONE = 0,
  DL_POINTWISE_SAVES_SELF = 1 << 0,
  DL_POINTWISE_SAVES_OTHER = 1 << 1,
  DL_POINTWISE_SAVES_RESULT = 1 << 2,
} DlPointwiseSaves;

#define DL_POINTWISE_FOR_OTHER(saves) ((saves) << 3)
#define DL_POINTWISE_SAVES_ALL                                                                     \
  (DL_POINTWISE_SAVES_SELF | DL_POINTWISE_SAVES_OTHER | DL_POINTWISE_SAVES_RESULT)

/* the SAVES column's words: unary ops */
#define DL_POINTWISE_SAVES_INPUT DL_POINTWISE_SAVES_SELF
#define DL_POINTWISE_SAVES_OUTPUT DL_POINTWISE_SAVES_RESULT
/* binary ops: both gradients read both inputs (maximum, atan2) */
#define DL_POINTWISE_SAVES_INPUTS                                                                  \
  (DL_POINTWISE_SAVES_SELF | DL_POINTWISE_SAVES_OTHER                                              \
   | DL_POINTWISE_FOR_OTHER (DL_POINTWISE_SAVES_SELF | DL_POINTWISE_SAVES_OTHER))
/* each gradient reads the other input (mul: g b, g a) */
#define DL_POINTWISE_SAVES_CROSSED                                                                 \
  (DL_POINTWISE_SAVES_OTHER | DL_POINTWISE_FOR_OTHER (DL_POINTWISE_SAVES_SELF))
/* self's reads other, other's reads both (div: g / b, -g a / b^2) */
#define DL_POINTWISE_SAVES_QUOTIENT                                                                \
  (DL_POINTWISE_SAVES_OTHER                                                                        \
   | DL_POINTWISE_FOR_OTHER (DL_POINTWISE_SAVES_SELF | DL_POINTWISE_SAVES_OTHER))
/* self's reads nothing, other's reads both (remainder: g, -g floor (a / b)) */
#define DL_POINTWISE_SAVES_INPUTS_FOR_OTHER                                                        \
  DL_POINTWISE_FOR_OTHER (DL_POINTWISE_SAVES_SELF | DL_POINTWISE_SAVES_OTHER)
/* self's reads self and the output, other's nothing (copysign) */
#define DL_POINTWISE_SAVES_SELF_OUTPUT (DL_POINTWISE_SAVES_SELF | DL_POINTWISE_SAVES_RESULT)
/* each gradient reads its own input and the output (hypot: g a / y, g b / y) */
#define DL_POINTWISE_SAVES_EACH_OUTPUT                                                             \
  (DL_POINTWISE_SAVES_SELF | DL_POINTWISE_SAVES_RESULT                                             \
   | DL_POINTWISE_FOR_OTHER (DL_POINTWISE_SAVES_OTHER | DL_POINTWISE_SAVES_RESULT))
/* self's reads both inputs, other's the output too (pow) */
#define DL_POINTWISE_SAVES_INPUTS_OUTPUT                                                           \
  (DL_POINTWISE_SAVES_SELF | DL_POINTWISE_SAVES_OTHER                                              \
   | DL_POINTWISE_FOR_OTHER (DL_POINTWISE_SAVES_ALL))

/* What @saves (an op's column) asks to keep when the inputs that need a
 * gradient are those given. */
static inline guint
dl_pointwise_saves_for (guint saves, gboolean need_self, gboolean need_other)
{
  return (need_self ? saves & DL_POINTWISE_SAVES_ALL : 0)
         | (need_other ? (saves >> 3) & DL_POINTWISE_SAVES_ALL : 0);
}

/* the most numbers a unary op's kernel takes (elu: alpha, scale,
 * input_scale) */
#define DL_POINTWISE_MAX_PARAMS 3

/* What a derivative gets: the incoming gradient, the tensors its row
 * saves, and which inputs need a gradient. */
typedef struct
{
  DlTensor *grad;
  DlTensor *self;   /* (nullable): saved input */
  DlTensor *other;  /* (nullable): saved second input */
  DlTensor *result; /* (nullable): saved output */
  gdouble alpha;    /* add and sub: other's factor; unary ops with
                     * numbers: the first (leaky_relu's slope) */
  gdouble params[DL_POINTWISE_MAX_PARAMS]; /* unary ops with numbers: all of
                                            * them (n_params of the op) */
  gboolean need_self, need_other;
} DlPointwiseGradArgs;

/* A derivative: the gradients of the inputs that need one (gself only for
 * unary ops), new tensors shaped like the broadcast result; the pipeline
 * sums them back to the inputs' shapes. */
typedef gboolean (*DlPointwiseGradFunc) (const DlPointwiseGradArgs *args,
                                         DlTensor **gself,
                                         DlTensor **gother,
                                         GError **error);

typedef struct
{
  const gchar *name;
  const gchar *inplace_name; /* name_, for the in-place variant's errors */
  guint arity;
  gint kernel; /* a DlUnaryOp or a DlBinaryOp */
  DlPointwiseRule rule;
  const gchar *node; /* NULL: not differentiable */
  DlPointwiseGradFunc grad; /* NULL with a node: the node's backward fails, as
                             * PyTorch's does for a derivative it does not
                             * implement (nextafter) */
  guint saves;     /* DlPointwiseSaves for self's gradient, | DL_POINTWISE_FOR_OTHER () */
  DlOpFlags flags; /* the variants; DIFFERENTIABLE, BINARY, COMPARISON */
  guint n_params;  /* the numbers the kernel takes, which the node keeps
                    * (at most DL_POINTWISE_MAX_PARAMS; 0 for the table's
                    * ops and those that need only alpha) */
} DlPointwiseOp;

typedef enum
{
#define DL_UNARY_OP(name, ...) DL_OP_##name,
#define DL_BINARY_OP(name, ...) DL_OP_##name,
#include "dl-ops-pointwise.def"
#undef DL_UNARY_OP
#undef DL_BINARY_OP
  DL_N_POINTWISE_OPS
} DlPointwiseOpId;

/* The table, defined after the derivatives it names, in
 * dl-ops-pointwise-grad.c. */
extern const DlPointwiseOp dl_pointwise_ops[DL_N_POINTWISE_OPS];

/* The pipelines. The table's public functions are thin calls of these;
 * ops outside the table that share a kernel (nan_to_num) call them too. */
DlTensor *dl_pointwise_unary (DlPointwiseOpId id, DlTensor *self, GError **error);
DlTensor *dl_pointwise_unary_params (const DlPointwiseOp *op,
                                     DlTensor *self,
                                     const gdouble *params,
                                     GError **error);
DlTensor *dl_pointwise_unary_ (DlPointwiseOpId id, DlTensor *self, GError **error);
DlTensor *dl_pointwise_unary_params_ (const DlPointwiseOp *op,
                                      DlTensor *self,
                                      const gdouble *params,
                                      GError **error);
DlTensor *dl_pointwise_binary (DlPointwiseOpId id,
                               DlTensor *self,
                               DlTensor *other,
                               gdouble alpha,
                               GError **error);
DlTensor *dl_pointwise_binary_scalar (DlPointwiseOpId id,
                                      DlTensor *self,
                                      gdouble other,
                                      gboolean reflected,
                                      GError **error);
DlTensor *dl_pointwise_binary_ (DlPointwiseOpId id,
                                DlTensor *self,
                                DlTensor *other,
                                gdouble alpha,
                                GError **error);
DlTensor *
dl_pointwise_binary_scalar_ (DlPointwiseOpId id, DlTensor *self, gdouble other, GError **error);
/* The binary pipelines for an op outside the table (div with a rounding
 * mode), with its own record */
DlTensor *
dl_pointwise_binary_op (const DlPointwiseOp *op, DlTensor *self, DlTensor *other, GError **error);
DlTensor *dl_pointwise_binary_op_ (const DlPointwiseOp *op,
                                   DlTensor *self,
                                   DlTensor *other,
                                   gdouble alpha,
                                   GError **error);

/* The pipeline's ops that are not in the table, for the derivatives of
 * digamma and i0 (dl-ops-pointwise-grad.c): polygamma (n, x) for n >= 1
 * (PolygammaBackward0) and the modified Bessel function i1
 * (SpecialI1Backward0), both differentiable */
DlTensor *dl_pointwise_polygamma (gint n, DlTensor *x, GError **error);
DlTensor *dl_pointwise_i1 (DlTensor *x, GError **error);

/* the value of the one-element tensor @t (consumed; NULL: an error is
 * set already) into *value, or FALSE with @error set */
gboolean dl_pointwise_item (DlTensor *t, gdouble *value, GError **error);

/* g * mask, the bool @mask (consumed) converted to @g's dtype */
DlTensor *dl_pointwise_mul_mask (DlTensor *g, DlTensor *mask, GError **error);

static inline gboolean
dl_dtype_is_half (DlDType dtype)
{
  return dtype == DL_DTYPE_FLOAT16 || dtype == DL_DTYPE_BFLOAT16;
}

G_END_DECLS
