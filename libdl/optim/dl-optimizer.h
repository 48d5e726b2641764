/* dl-optimizer.h: DlOptimizer, the base class of optimizers.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(DL_INSIDE) && !defined(DL_COMPILATION)
#error "Only <dl.h> can be included directly."
#endif

#include "dl-tensor.h"

G_BEGIN_DECLS

#define DL_TYPE_OPTIMIZER (dl_optimizer_get_type ())
DL_EXPORT
G_DECLARE_DERIVABLE_TYPE (DlOptimizer, dl_optimizer, DL, OPTIMIZER, GObject)

/**
 * DlOptimizerClass:
 * @parent_class: the parent class
 * @step: updates the parameters from their gradients; see
 *   dl_optimizer_step()
 *
 * The class of optimizers. Subclasses override @step.
 *
 * Since: 0.1
 */
struct _DlOptimizerClass
{
  GObjectClass parent_class;

  gboolean (*step) (DlOptimizer *self, GError **error);

  /*< private >*/
  gpointer padding[8];
};

DL_EXPORT
gboolean dl_optimizer_step (DlOptimizer *self, GError **error);
DL_EXPORT
void dl_optimizer_zero_grad (DlOptimizer *self, gboolean set_to_none);
DL_EXPORT
void dl_optimizer_add_params (DlOptimizer *self, GPtrArray *params);
DL_EXPORT
GPtrArray *dl_optimizer_get_params (DlOptimizer *self);
DL_EXPORT
gdouble dl_optimizer_get_lr (DlOptimizer *self);
DL_EXPORT
void dl_optimizer_set_lr (DlOptimizer *self, gdouble lr);

DL_EXPORT
guint dl_optimizer_get_n_param_groups (DlOptimizer *self);
DL_EXPORT
GPtrArray *dl_optimizer_get_group_params (DlOptimizer *self, guint group);
DL_EXPORT
gchar **dl_optimizer_list_group_options (DlOptimizer *self, guint group);
DL_EXPORT
gdouble
dl_optimizer_get_group_option (DlOptimizer *self, guint group, const gchar *name, GError **error);
DL_EXPORT
gboolean dl_optimizer_set_group_option (DlOptimizer *self,
                                        guint group,
                                        const gchar *name,
                                        gdouble value,
                                        GError **error);
DL_EXPORT
gdouble dl_optimizer_get_group_lr (DlOptimizer *self, guint group);
DL_EXPORT
void dl_optimizer_set_group_lr (DlOptimizer *self, guint group, gdouble lr);
DL_EXPORT
gboolean dl_optimizer_add_param_group (DlOptimizer *self,
                                       GPtrArray *params,
                                       const gchar *const *names,
                                       const gdouble *values,
                                       gsize n_values,
                                       GError **error);

DL_EXPORT
gchar **dl_optimizer_list_state (DlOptimizer *self, guint index);
DL_EXPORT
DlTensor *dl_optimizer_get_state (DlOptimizer *self, guint index, const gchar *name);
DL_EXPORT
gboolean
dl_optimizer_save_state (DlOptimizer *self, GFile *file, GCancellable *cancellable, GError **error);
DL_EXPORT
gboolean
dl_optimizer_load_state (DlOptimizer *self, GFile *file, GCancellable *cancellable, GError **error);
DL_EXPORT
gboolean dl_optimizer_clear_state (DlOptimizer *self, guint index, GError **error);
DL_EXPORT
gboolean dl_optimizer_set_state (DlOptimizer *self,
                                 guint index,
                                 const gchar *name,
                                 DlTensor *value,
                                 GError **error);

G_END_DECLS
