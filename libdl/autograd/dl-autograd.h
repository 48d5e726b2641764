/* dl-autograd.h: gradients on demand, tensor hooks and anomaly mode.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(DL_INSIDE) && !defined(DL_COMPILATION)
#error "Only <dl.h> can be included directly."
#endif

#include "dl-types.h"

G_BEGIN_DECLS

DL_EXPORT
GPtrArray *dl_autograd_grad (DlTensor **outputs,
                             guint n_outputs,
                             DlTensor **inputs,
                             guint n_inputs,
                             DlTensor **grad_outputs,
                             guint n_grad_outputs,
                             gboolean retain_graph,
                             gboolean create_graph,
                             gboolean allow_unused,
                             GError **error);

/**
 * DlTensorHook:
 * @grad: the gradient of the tensor the hook was registered on
 * @user_data: (closure): the data given at registration
 * @error: return location for a #GError: a hook that fails stops the
 *   backward pass with this error
 *
 * A function run on the gradient of a tensor during a backward pass, before
 * the gradient is used. It may return a replacement gradient of the same
 * shape, or %NULL (without setting @error) to keep @grad.
 *
 * Returns: (transfer full) (nullable): a new gradient, or %NULL
 *
 * Since: 0.1
 */
typedef DlTensor *(*DlTensorHook) (DlTensor *grad, gpointer user_data, GError **error);

DL_EXPORT
guint dl_tensor_register_hook (DlTensor *self,
                               DlTensorHook hook,
                               gpointer user_data,
                               GDestroyNotify notify,
                               GError **error);
DL_EXPORT
gboolean dl_autograd_remove_hook (guint id);
DL_EXPORT
gboolean dl_tensor_retain_grad (DlTensor *self, GError **error);
DL_EXPORT
gboolean dl_tensor_get_retains_grad (DlTensor *self);
DL_EXPORT
gboolean dl_tensor_detach_ (DlTensor *self, GError **error);

G_END_DECLS
