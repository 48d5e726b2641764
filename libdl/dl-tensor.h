/* dl-tensor.h: DlTensor, an n-dimensional strided view of a storage.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(DL_INSIDE) && !defined(DL_COMPILATION)
#error "Only <dl.h> can be included directly."
#endif

#include <gio/gio.h>

#include "dl-types.h"
#include "dl-dtype.h"
#include "dl-device.h"
#include "dl-storage.h"

G_BEGIN_DECLS

#define DL_TYPE_TENSOR (dl_tensor_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlTensor, dl_tensor, DL, TENSOR, GObject)

/* DL_SHAPE (...): a shape and its length, the two arguments creation
 * functions take: `dl_zeros (DL_SHAPE (2, 3), DL_DTYPE_FLOAT32, NULL,
 * &error)` makes a 2 x 3 tensor. C only: a macro, kept from g-ir-scanner
 * (bindings pass shapes as arrays). */
#ifndef __GI_SCANNER__
#define DL_SHAPE(...)                                                                              \
  ((const gint64[]){ __VA_ARGS__ }), G_N_ELEMENTS (((const gint64[]){ __VA_ARGS__ }))
#endif

DL_EXPORT
DlTensor *dl_tensor_new_from_data (gconstpointer data,
                                   gsize size,
                                   const gint64 *shape,
                                   gsize n_dims,
                                   DlDType dtype,
                                   GError **error);
DL_EXPORT
DlTensor *dl_tensor_new_from_bytes (GBytes *bytes,
                                    const gint64 *shape,
                                    gsize n_dims,
                                    DlDType dtype,
                                    GError **error);
DL_EXPORT
DlTensor *dl_tensor_new_from_address (guintptr address,
                                      const gint64 *shape,
                                      gsize n_dims,
                                      const gint64 *strides,
                                      gsize n_strides,
                                      DlDType dtype,
                                      DlReleaseFunc release,
                                      gpointer user_data,
                                      GDestroyNotify notify,
                                      GError **error);
DL_EXPORT
DlTensor *dl_tensor_new_scalar (gdouble value, DlDType dtype);
DL_EXPORT
DlTensor *dl_tensor_new_wrapped_scalar (gdouble value, DlDType dtype);
DL_EXPORT
GBytes *dl_tensor_to_bytes (DlTensor *self, GError **error);
DL_EXPORT
gdouble dl_tensor_item (DlTensor *self, GError **error);
DL_EXPORT
DlTensor *dl_tensor_to_device (DlTensor *self, DlDevice *device, GError **error);
DL_EXPORT
gchar *dl_tensor_to_string (DlTensor *self);
DL_EXPORT
void dl_set_print_options (gint precision,
                           gint64 threshold,
                           gint64 edgeitems,
                           gint64 linewidth,
                           gint sci_mode);
DL_EXPORT
void dl_get_print_options (gint *precision,
                           gint64 *threshold,
                           gint64 *edgeitems,
                           gint64 *linewidth,
                           gint *sci_mode);

DL_EXPORT
DlDType dl_tensor_get_dtype (DlTensor *self);
DL_EXPORT
gint dl_tensor_get_ndim (DlTensor *self);
DL_EXPORT
const gint64 *dl_tensor_get_shape (DlTensor *self, gsize *n_dims);
DL_EXPORT
const gint64 *dl_tensor_get_strides (DlTensor *self, gsize *n_dims);
DL_EXPORT
gint64 dl_tensor_get_size (DlTensor *self, gint64 dim, GError **error);
DL_EXPORT
gint64 dl_tensor_get_storage_offset (DlTensor *self);
DL_EXPORT
void dl_tensor_mark_read_only (DlTensor *self);
DL_EXPORT
gboolean dl_tensor_is_read_only (DlTensor *self);
DL_EXPORT
gint64 dl_tensor_numel (DlTensor *self);
DL_EXPORT
gsize dl_tensor_element_size (DlTensor *self);
DL_EXPORT
gboolean dl_tensor_is_contiguous (DlTensor *self);
DL_EXPORT
DlDevice *dl_tensor_get_device (DlTensor *self);
DL_EXPORT
DlStorage *dl_tensor_get_storage (DlTensor *self);
DL_EXPORT
guintptr dl_tensor_get_data_ptr (DlTensor *self);

DL_EXPORT
gboolean dl_tensor_get_requires_grad (DlTensor *self);
DL_EXPORT
gboolean dl_tensor_set_requires_grad (DlTensor *self, gboolean requires_grad, GError **error);
DL_EXPORT
DlTensor *dl_tensor_get_grad (DlTensor *self);
DL_EXPORT
gboolean dl_tensor_set_grad (DlTensor *self, DlTensor *grad, GError **error);
DL_EXPORT
void dl_tensor_release (DlTensor *self);
DL_EXPORT
gboolean dl_tensor_is_released (DlTensor *self);
DL_EXPORT
DlNode *dl_tensor_get_grad_fn (DlTensor *self);
DL_EXPORT
DlTensor *dl_tensor_get_base (DlTensor *self);
DL_EXPORT
guint dl_tensor_get_output_nr (DlTensor *self);
DL_EXPORT
gboolean dl_tensor_is_leaf (DlTensor *self);
DL_EXPORT
gboolean dl_tensor_backward (DlTensor *self,
                             DlTensor *gradient,
                             gboolean retain_graph,
                             gboolean create_graph,
                             GError **error);

DL_EXPORT
gboolean dl_tensor_share_memory (DlTensor *self, GError **error);
DL_EXPORT
gboolean dl_tensor_is_shared (DlTensor *self);
DL_EXPORT
gint dl_tensor_get_shared_fd (DlTensor *self);
DL_EXPORT
gsize dl_tensor_get_storage_nbytes (DlTensor *self);
DL_EXPORT
DlTensor *dl_tensor_new_from_shared_fd (gint fd,
                                        gsize nbytes,
                                        const gint64 *shape,
                                        gsize n_dims,
                                        const gint64 *strides,
                                        gsize n_strides,
                                        gint64 offset,
                                        DlDType dtype,
                                        GError **error);

G_END_DECLS
