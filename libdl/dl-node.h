/* dl-node.h: DlNode, a node of the autograd graph.
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

#define DL_TYPE_NODE (dl_node_get_type ())
DL_EXPORT
G_DECLARE_DERIVABLE_TYPE (DlNode, dl_node, DL, NODE, GObject)

/**
 * DlNodeClass:
 * @parent_class: the parent class
 *
 * The class of autograd nodes. Built-in ops make instances of #DlNode
 * itself; user-defined functions will subclass it.
 *
 * Since: 0.1
 */
struct _DlNodeClass
{
  GObjectClass parent_class;

  /*< private >*/
  gpointer padding[8];
};

DL_EXPORT
const gchar *dl_node_get_name (DlNode *self);
DL_EXPORT
guint dl_node_get_n_inputs (DlNode *self);
DL_EXPORT
DlNode *dl_node_get_next_node (DlNode *self, guint input);
DL_EXPORT
DlTensor *dl_node_get_next_leaf (DlNode *self, guint input);

DL_EXPORT
gboolean dl_is_grad_enabled (void);
DL_EXPORT
gboolean dl_set_grad_enabled (gboolean enabled);

/**
 * DlAnomalyTraceFunc:
 * @user_data: (closure): the data given with the function
 *
 * Says where the program is, for anomaly mode: libdl calls it whenever an
 * op records a node while anomaly detection is on, and shows its answer in
 * the error of a backward that produced NaN. Python sets one that returns
 * the Python stack.
 *
 * Returns: (transfer full) (nullable): a description of the current call
 *   stack
 *
 * Since: 0.1
 */
typedef gchar *(*DlAnomalyTraceFunc) (gpointer user_data);

DL_EXPORT
void dl_autograd_set_detect_anomaly (gboolean enabled);
DL_EXPORT
gboolean dl_autograd_is_anomaly_enabled (void);
DL_EXPORT
void dl_autograd_set_anomaly_trace_func (DlAnomalyTraceFunc func,
                                         gpointer user_data,
                                         GDestroyNotify notify);
DL_EXPORT
gchar *dl_node_get_trace (DlNode *self);

G_END_DECLS
