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

/* A function run on a leaf once a backward pass has added the leaf's whole
 * gradient to its .grad (torch's register_post_accumulate_grad_hook). */
typedef gboolean (*DlPostAccumulateGradHook) (DlTensor *leaf, gpointer user_data, GError **error);

/* Registers @hook on the leaf @self (which must require grad); removed with
 * dl_autograd_remove_hook(). Returns its id, or 0 with @error set. */
guint dl_tensor_register_post_accumulate_grad_hook (DlTensor *self,
                                                    DlPostAccumulateGradHook hook,
                                                    gpointer user_data,
                                                    GDestroyNotify notify,
                                                    GError **error);

/* Runs the post-accumulate hooks of @leaf in the order they were
 * registered. */
gboolean dl_hooks_run_post_accumulate (DlTensor *leaf, GError **error);

/* A function the engine runs at the end of the backward pass during which
 * it was queued (torch's Variable._execution_engine.queue_callback); a
 * failure is the pass's error. */
typedef gboolean (*DlAutogradCallback) (gpointer user_data, GError **error);

/* Queues @callback to run once the backward pass running on this thread
 * has finished its nodes and leaves (callbacks run in the order queued,
 * and may queue more); @notify frees @user_data after it ran or when the
 * pass failed first. An error, and @notify called at once, when no pass
 * is running on this thread. */
gboolean dl_autograd_queue_callback (DlAutogradCallback callback,
                                     gpointer user_data,
                                     GDestroyNotify notify,
                                     GError **error);

/* Whether every hook registered on the leaf @self (dl_tensor_register_hook())
 * is compiled code, not a language binding's closure: the trainer's worker
 * thread runs a parameter's hooks in its backward passes. */
gboolean dl_tensor_hooks_are_native (DlTensor *self);

G_END_DECLS
