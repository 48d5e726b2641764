/* dl-ops-optim-private.h: the optimizers' fused update, the op below
 * libdl's optimizers (optim/): one backend kernel per parameter.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dl-tensor.h"
#include "backends/dl-backend.h"

G_BEGIN_DECLS

/* Updates @param in place from @grad and its @n_state state tensors as
 * @args says (kind and scalars; the pointers and n are filled here), in
 * one pass of the backend's optim_step kernel. @param is a float32 or
 * float64 tensor; @grad has its shape (any dtype and strides: it is
 * converted first when needed); the state tensors must be contiguous
 * tensors of @param's dtype and shape (the optimizers make them with
 * dl_optim_new_state()). @name names the optimizer in messages. Bumps
 * @param's version counter; records no autograd. */
gboolean dl_optim_fused_step (const gchar *name,
                              DlTensor *param,
                              DlTensor *grad,
                              DlTensor **state,
                              guint n_state,
                              DlOptimStepArgs *args,
                              GError **error);

/* A new contiguous state tensor shaped as @param, filled with @value. */
DlTensor *dl_optim_new_state (DlTensor *param, gdouble value, GError **error);

G_END_DECLS
