/* dl-tensor-private.h: DlTensor's fields, for ops, autograd and backends glue.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dl-tensor.h"
#include "dl-dtype-private.h"
#include "dl-storage-private.h"

G_BEGIN_DECLS

#define DL_TENSOR_INLINE_DIMS 6

struct _DlTensor
{
  GObject parent_instance;

  DlStorage *storage; /* (owned) */
  DlDType dtype;
  gint ndim;
  gint64 offset; /* in elements */
  gint64 numel;
  gint64 *sizes;   /* [ndim]: in inline_dims, or for many dims on the heap */
  gint64 *strides; /* [ndim], in elements */

  /* a 0-d tensor made from a C/Python number for one op: it takes part in
   * type promotion at the lowest priority (PyTorch's wrapped numbers) */
  gboolean is_wrapped_number;

  /* autograd */
  gboolean requires_grad;
  DlTensor *grad;  /* (owned) (nullable) */
  DlNode *grad_fn; /* (owned) (nullable) */
  guint output_nr;
  gboolean retains_grad;
  GPtrArray *hooks; /* (owned) (nullable): a leaf's gradient hooks (autograd/dl-hooks.c) */

  /* views: the tensor whose storage this one views (never itself a view;
   * set by the view ops, not by internal aliases), and the storage version
   * for which grad_fn was last made. An in-place change of the base or of
   * any of its views bumps the version: the view's history is then remade
   * over the base's (dl_view_sync). */
  DlTensor *base; /* (owned) (nullable) */
  gint view_version;
  /* one of the views one node records together (split, chunk, unbind), or
   * a view of one: as torch, no in-place write into it while it requires
   * grad (the node could not take the write's history) */
  gboolean multi_output_view;

  /* sizes and strides of tensors of up to DL_TENSOR_INLINE_DIMS dims: a
   * small tensor object keeps the memory of a deep autograd graph small */
  gint64 inline_dims[2 * DL_TENSOR_INLINE_DIMS];
};

/* Drops a reference to @object (a tensor or an autograd node) like
 * g_object_unref(), but when that frees it, what it in turn drops through
 * dl_object_release() is freed after it returns, from a queue, not inside
 * it: freeing a chain of a million nodes then takes no stack. */
void dl_object_release (gpointer object);
#define dl_clear_released(pp) g_clear_pointer ((pp), dl_object_release)

DlTensor *dl_tensor_new_empty_internal (DlDevice *device,
                                        DlDType dtype,
                                        const gint64 *shape,
                                        gint ndim,
                                        GError **error);
DlTensor *dl_tensor_new_empty_at_internal (DlDevice *device,
                                           DlDType dtype,
                                           const gint64 *shape,
                                           gint ndim,
                                           gssize place,
                                           GError **error);
DlTensor *dl_tensor_new_view_internal (DlTensor *base,
                                       const gint64 *sizes,
                                       const gint64 *strides,
                                       gint ndim,
                                       gint64 offset);
void dl_tensor_set_geometry_internal (DlTensor *t,
                                      const gint64 *sizes,
                                      const gint64 *strides,
                                      gint ndim,
                                      gint64 offset);
gboolean
dl_check_shape (const gchar *op, const gint64 *shape, gsize ndim, gint64 *numel, GError **error);
gboolean dl_check_numel (const gchar *op, const gint64 *shape, gsize ndim, GError **error);
gchar *dl_shape_to_string (const gint64 *shape, gint ndim);
gboolean dl_normalize_dim (const gchar *op, gint64 *dim, gint ndim, GError **error);
gboolean
dl_normalize_diagonal_dims (const gchar *op, gint64 *dim1, gint64 *dim2, gint ndim, GError **error);

static inline char *
dl_tensor_data (DlTensor *t)
{
  return t->storage->data + t->offset * (gint64)dl_dtype_size (t->dtype);
}

/* FALSE, with "<op>: tensor was released" (DL_ERROR_ARGUMENT), when @t's
 * memory went with dl_tensor_release(); DL_TENSOR_BACKEND() and
 * dl_check_same_device() check every kernel's first operand and every
 * other operand this way, the ops that run no kernel (views) themselves. */
gboolean dl_tensor_released_error (const gchar *op, GError **error);
#define dl_check_live(op, t, error)                                                                \
  (G_LIKELY (!(t)->storage->released) || dl_tensor_released_error ((op), (error)))

static inline DlDevice *
dl_tensor_device (DlTensor *t)
{
  return t->storage->device;
}

/* The backend context of @t's device: calls into the backend go
 * ctx->backend->slot (ctx, ...). */
static inline DlBackendContext *
dl_tensor_context (DlTensor *t)
{
  return dl_device_get_context (t->storage->device);
}

/* What the layers below the autograd engine (this one, the graph record,
 * the ops) need from the view-history code above the ops, which installs
 * it when the library loads (dl-view-autograd.c): they call up through
 * it, never by name (PyTorch inverts this dependency the same way). */
typedef struct
{
  /* remakes the history of a view whose storage an in-place op changed */
  void (*view_regenerate) (DlTensor *view);
  /* records an in-place write into @view, whose values and history @holder
   * carries, in the history of the view's base */
  void (*view_take_history) (DlTensor *view, DlTensor *holder);
} DlAutogradHooks;

extern const DlAutogradHooks *dl_autograd_hooks;
void dl_autograd_install_hooks (const DlAutogradHooks *hooks);

/* Brings a view's history up to date after an in-place change of its base
 * or of another view of it (see dl-view-autograd.c). */
static inline void
dl_view_sync (DlTensor *t)
{
  if (G_UNLIKELY (t->base != NULL && t->view_version != t->storage->version))
    dl_autograd_hooks->view_regenerate (t);
}

G_END_DECLS
