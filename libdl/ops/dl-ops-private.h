/* dl-ops-private.h: helpers shared by the op families.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dl-tensor-private.h"
#include "dl-error.h"
#include "dl-iter-private.h"
#include "dl-node-private.h"
#include "dl-ops-creation.h"
#include "dl-ops-pointwise.h"
#include "dl-ops-reduce.h"
#include "dl-ops-scan.h"
#include "dl-ops-shape.h"
#include "dl-ops-linalg.h"
#include "dl-ops-activation.h"
#include "dl-ops-math.h"
#include "dl-ops-index.h"
#include "dl-ops-join.h"

G_BEGIN_DECLS

/* Returns FALSE from the calling function when @expr is false (or NULL):
 * for backward functions and other gboolean helpers. */
#define TRY(expr)                                                                                  \
  G_STMT_START                                                                                     \
  {                                                                                                \
    if (!(expr))                                                                                   \
      return FALSE;                                                                                \
  }                                                                                                \
  G_STMT_END

/* The backend context of @t's device when its backend fills @slot (a
 * member of DlBackend), else NULL with a DL_ERROR_NOT_SUPPORTED error that
 * names @op, the device and the slot. Every call into a kernel goes
 * through it, so that a partial backend fails politely:
 *
 *   DlBackendContext *ctx;
 *
 *   if (!(ctx = DL_TENSOR_BACKEND (x, unary, "exp", error)))
 *     return NULL;
 *   ctx->backend->unary (ctx, DL_UNARY_EXP, &iter, dtype);
 *
 * A released tensor (dl_tensor_release) is refused here too.
 * The check is two loads and compares; the error path is out of line. */
#define DL_TENSOR_BACKEND(t, slot, op, error)                                                      \
  (G_LIKELY (dl_tensor_context (t)->backend->slot != NULL && !(t)->storage->released)              \
       ? dl_tensor_context (t)                                                                     \
       : dl_backend_not_supported ((t), (op), #slot, (error)))
DlBackendContext *
dl_backend_not_supported (DlTensor *t, const gchar *op, const gchar *slot, GError **error);

/* The status to hand a kernel that checks its inputs (see DlKernelStatus):
 * @local, zeroed by the caller, on a host-memory backend, which the caller
 * then reads (local->error) and turns into its GError; the context's own
 * on a device backend, left for the next synchronisation (@local stays
 * zero, the op goes on). */
static inline DlKernelStatus *
dl_kernel_status (DlBackendContext *ctx, DlKernelStatus *local)
{
  return ctx->backend->host_memory ? local : ctx->status;
}

/* One int64 that a kernel computes on the device and the host then needs
 * (a count that sizes an output): a plain host variable on a host-memory
 * backend, else a 0-d tensor on the device that dl_host_value_read()
 * copies back through the backend (a synchronisation, where PyTorch makes
 * one too). Declare with g_auto (DlHostValue) v = { 0 }. */
typedef struct
{
  gint64 value;     /* the value, once read */
  DlTensor *device; /* (owned) (nullable) */
} DlHostValue;

/* FALSE with a DL_ERROR_NOT_SUPPORTED error naming @op: what @op needs is
 * the values of a meta tensor, which has none (a read to the host, an
 * output sized by values) */
gboolean dl_meta_no_data (const gchar *op, GError **error);
/* whether @t is on the meta device (no data) */
static inline gboolean
dl_tensor_on_meta (DlTensor *t)
{
  return dl_tensor_context (t)->backend->meta;
}
/* where the kernel writes it; NULL with @error set on failure */
gint64 *dl_host_value_init (DlHostValue *v, DlTensor *like, GError **error);
/* reads it into v->value; FALSE with @error set when a kernel of the
 * device failed a check (see dl_device_take_kernel_status) */
gboolean dl_host_value_read (DlHostValue *v, const gchar *op, GError **error);
void dl_host_value_clear (DlHostValue *v);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (DlHostValue, dl_host_value_clear)

/* @t converted to @dtype without recording autograd: @t itself (a new
 * reference) when it already has that dtype. */
DlTensor *dl_cast_nograd (DlTensor *t, DlDType dtype, GError **error);
/* A contiguous copy of @t (or @t itself, referenced), no autograd. */
DlTensor *dl_contiguous_nograd (DlTensor *t, GError **error);
/* A view of @self, made by the op itself, with another shape, recorded
 * as torch's _unsafe_view (UnsafeViewBackward0, dl-ops-shape.c). */
DlTensor *dl_unsafe_view (DlTensor *self, const gint64 *shape, gsize n_dims, GError **error);
/* reshape as the library's composites use it: a view recorded as
 * ViewBackward0 (PyTorch's C++ code calls view there; Tensor.reshape's
 * view, dl_tensor_reshape(), is ReshapeAliasBackward0), else a copy */
DlTensor *dl_reshape_view (DlTensor *self, const gint64 *shape, gsize n_dims, GError **error);
/* Sums @grad down to @shape, undoing broadcasting (differentiable). */
DlTensor *dl_sum_to (DlTensor *grad, const gint64 *shape, gint ndim, GError **error);
/* torch's norm.Scalar (v.norm (p) from C++): NormBackward0, dl-ops-stats.c */
DlTensor *dl_norm_scalar (DlTensor *self, gdouble p, GError **error);
gboolean dl_check_same_device (const gchar *op, DlTensor *a, DlTensor *b, GError **error);
/* The operands of an elementwise op on one device. As in PyTorch, a 0-d
 * tensor on the CPU (a Python number among them) may join tensors on
 * another device: *@a or *@b is then replaced by its copy there, which
 * *@moved holds (a wrapped number stays one). FALSE with @error set for
 * other tensors on different devices. */
gboolean dl_same_device_operands (const gchar *op,
                                  DlTensor **a,
                                  DlTensor **b,
                                  DlTensor **moved,
                                  GError **error);
/* A 0-d tensor for a number: int64 if integral, else float64, marked as a
 * wrapped number for type promotion. */
DlTensor *dl_wrapped_scalar (gdouble value);
/* PyTorch's result type of an op on @a and @b: tensors with dims decide,
 * then 0-d tensors, then wrapped numbers, a lower priority only winning
 * when it is of a higher category (bool < integer < floating). */
DlDType dl_result_type (DlTensor *a, DlTensor *b);

/* In-place writes: @out must be live and writable (not read-only memory,
 * dl_tensor_mark_read_only) and may not have several elements at one
 * address; an input may share memory with @out only if it is exactly @out
 * (dl_check_no_partial_overlap). */
gboolean dl_check_write_target (const gchar *op, DlTensor *out, GError **error);

/* PyTorch's pooling output size for one dim (dl-ops-conv.c) */
gint64 dl_pooled_size (gint64 in, gint64 k, gint64 s, gint64 p, gint64 d, gboolean ceil_mode);
/* records max pooling's node (dl-ops-conv.c): @out the maxima of the batch
 * @x ([N, C, ...]) at the flat positions @idx of their planes; @g, the
 * windows of a 2-d max pooling, lets the backward take the backend's
 * max_pool2d_backward kernel (NULL: other windows, a scatter_add) */
void dl_max_pool_record (const gchar *name,
                         DlTensor *x,
                         DlTensor *out,
                         DlTensor *idx,
                         const DlConvGeometry *g);
gboolean
dl_check_no_partial_overlap (const gchar *op, DlTensor *out, DlTensor *input, GError **error);

/* The in-place protocol (dl-ops-inplace.c): refuse what autograd cannot
 * record, compute out of place on an alias carrying @self's history, then
 * write the result back into @self (casting), bump its version, and take
 * the result's history over when it has one. In-place ops return @self
 * itself, not a new reference (as g_string_append does), so commit does
 * too. */
gboolean dl_inplace_check_history (const gchar *op, DlTensor *self, GError **error);
DlTensor *dl_inplace_alias (DlTensor *self);
DlTensor *dl_inplace_commit (const gchar *op, DlTensor *self, DlTensor *result, GError **error);
void dl_inplace_take_history (DlTensor *self, DlTensor *holder);
/* Whether an in-place write into @self must be recorded: grad is on and
 * @self's history (or its base's) or one of @others requires grad. */
gboolean dl_inplace_wants_history (DlTensor *self, guint n_others, DlTensor **others);
/* Computes an in-place op's values: from @src, into @into when it is not
 * NULL and the op can (returning @into itself), else into a new tensor. */
typedef DlTensor *(*DlInplaceCompute) (DlTensor *src,
                                       gpointer data,
                                       DlTensor *into,
                                       GError **error);
/* The checks of an in-place op @name's result before it is written into
 * @self: its broadcast @shape is @self's, and its dtype @from is one
 * PyTorch writes into @self's (not floats into integers, nor anything but
 * bool into bool). */
gboolean dl_inplace_check_shape (const gchar *name,
                                 DlTensor *self,
                                 const gint64 *shape,
                                 gint ndim,
                                 GError **error);
gboolean dl_inplace_check_castable (const gchar *name, DlDType from, DlDType to, GError **error);
/* Runs an in-place op @name through the protocol: with nothing to record,
 * @compute writes straight into @self (src and into are @self); otherwise
 * it computes out of place from @self's alias carrying its history, or
 * from a copy of its values when the op's gradient reads them
 * (@needs_old_values), and the result, checked against @self's shape and
 * dtype, is committed. @others are the op's other inputs. Returns @self
 * (transfer none). */
DlTensor *dl_inplace_run (const gchar *name,
                          DlTensor *self,
                          guint n_others,
                          DlTensor **others,
                          gboolean needs_old_values,
                          DlInplaceCompute compute,
                          gpointer data,
                          GError **error);
/* For writes that overwrite @self (with @src's values, or constants when
 * @src is NULL): a history holder, made before the write, to pass to
 * take_history after it. */
DlTensor *dl_inplace_overwrite_begin (const gchar *node_name, DlTensor *self, DlTensor *src);

/* A new tensor of @shape for the result of an elementwise op on @like: laid
 * out in memory as @like is when @like has that shape and is a dense
 * permutation of a contiguous tensor (a transpose, say), so that the loop
 * over both runs through memory in order, as PyTorch's output layouts do;
 * contiguous otherwise. */
DlTensor *dl_empty_like_layout (DlTensor *like,
                                DlDType dtype,
                                const gint64 *shape,
                                gint ndim,
                                GError **error);

/* The strides of a tensor like @t in PyTorch's preserve_format: @t's own
 * when it is dense (a permutation of a contiguous tensor, a transpose
 * say), else dense strides in the order of @t's (torch's
 * infer_dense_strides). */
void dl_preserve_format_strides (DlTensor *t, gint64 *strides);

/* A new tensor of @like's shape and @dtype laid out as
 * dl_preserve_format_strides() says. */
DlTensor *dl_empty_preserve_format (DlTensor *like, DlDType dtype, GError **error);

/* FALSE, with torch's DL_ERROR_DTYPE ("<op>: "<op>" not implemented for
 * 'int64'"), when @t is not of a floating dtype: the ops computed in
 * floating point only (convolution, pooling, resampling, normalisation)
 * refuse integers and bool this way */
static inline gboolean
dl_check_float_dtype (const gchar *op, DlTensor *t, GError **error)
{
  if (dl_dtype_is_float (t->dtype))
    return TRUE;
  g_set_error (error, DL_ERROR, DL_ERROR_DTYPE, "%s: \"%s\" not implemented for '%s'", op, op,
               dl_dtype_get_name (t->dtype));
  return FALSE;
}

G_END_DECLS
