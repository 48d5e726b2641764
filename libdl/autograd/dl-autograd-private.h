/* dl-autograd-private.h: what the engine needs from the hooks.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dl-node-private.h"
#include "dl-autograd.h"

G_BEGIN_DECLS

/* Runs the hooks in @hooks (a node's, for its output @output_nr; or a
 * leaf's, with @output_nr 0) on *@grad in the order they were registered;
 * a hook's replacement, checked against the shape and dtype of the value
 * it replaces, becomes *@grad. */
gboolean dl_hooks_run (GPtrArray *hooks,
                       guint output_nr,
                       const gchar *where,
                       DlTensor **grad,
                       gboolean create_graph,
                       GError **error);

/* Whether every hook registered on the leaf @self (dl_tensor_register_hook())
 * is compiled code, not a language binding's closure: the trainer's worker
 * thread runs a parameter's hooks in its backward passes. */
gboolean dl_tensor_hooks_are_native (DlTensor *self);

G_END_DECLS
