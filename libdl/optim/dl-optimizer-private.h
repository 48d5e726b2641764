/* dl-optimizer-private.h: what the C optimizers of libdl share with
 * DlOptimizer: their name in messages, the error a construction left,
 * hyperparameters as properties that are also the options of every
 * parameter group, and the per-parameter state.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "optim/dl-optimizer.h"

G_BEGIN_DECLS

/* The name messages give the optimizers of class @klass and its
 * subclasses ("SGD"); a static string. Others use their type name. */
void dl_optimizer_class_set_display_name (DlOptimizerClass *klass, const gchar *name);
const gchar *dl_optimizer_get_display_name (DlOptimizer *self);

/* A subclass's constructed() hands over the first invalid construct
 * property as @error (taken); g_initable_init() and step fail with it. */
void dl_optimizer_take_construct_error (DlOptimizer *self, GError *error);

/* A group's options, read by name ("weight_decay"); 0 when missing. */
typedef struct _DlOptimizerGroup DlOptimizerGroup;
gdouble dl_optimizer_group_get (const DlOptimizerGroup *group, const gchar *name);
GPtrArray *dl_optimizer_group_params (const DlOptimizerGroup *group);
DlOptimizerGroup *dl_optimizer_get_group (DlOptimizer *self, guint index);

/* Checks a group's options (the defaults at construction, a group that
 * dl_optimizer_add_param_group() adds, every group before each step). */
typedef gboolean (*DlOptimizerCheck) (DlOptimizer *self,
                                      const DlOptimizerGroup *group,
                                      GError **error);
void dl_optimizer_class_set_check (DlOptimizerClass *klass, DlOptimizerCheck check);

/* Hyperparameter properties stored as group options: a C subclass
 * installs its doubles and booleans with this (name as the property,
 * "weight-decay"; the option is "weight_decay") and leaves its
 * get_property and set_property to DlOptimizer. Setting one after
 * construction sets it in every group. */
typedef struct
{
  const gchar *name;
  gdouble default_value;
  gboolean boolean;
} DlOptimizerOption;
void dl_optimizer_class_install_options (DlOptimizerClass *klass,
                                         const DlOptimizerOption *options,
                                         guint n_options);

/* The state of parameter @p, a table of name -> DlTensor that the
 * optimizer fills (created empty on first use). */
GHashTable *dl_optimizer_param_state (DlOptimizer *self, DlTensor *p);

/* Adds 1 to the 0-d step tensor @name of @state (created as a float32 or
 * int64 zero first) and returns the new count. */
gdouble
dl_optimizer_state_count (GHashTable *state, const gchar *name, DlDType dtype, GError **error);

/* The 0-d float32 tensor @name of @state (created filled with @init when
 * missing), for the numbers torch.optim keeps as 0-d tensors (NAdam's
 * mu_product, ASGD's eta and mu), and its value in *@value: rounded to
 * float32 as PyTorch's is. */
DlTensor *dl_optimizer_state_scalar (GHashTable *state,
                                     const gchar *name,
                                     gdouble init,
                                     gdouble *value,
                                     GError **error);

G_END_DECLS

G_BEGIN_DECLS

/* One parameter's update: @grad is its gradient, @state its state table. */
typedef gboolean (*DlOptimizerUpdate) (DlOptimizer *self,
                                       const DlOptimizerGroup *group,
                                       DlTensor *p,
                                       DlTensor *grad,
                                       GHashTable *state,
                                       GError **error);

/* Makes a parameter's state when its group arrives (@grad is NULL), as
 * torch.optim.Adagrad makes "step" and "sum" at construction. */
void dl_optimizer_class_set_init_state (DlOptimizerClass *klass, DlOptimizerUpdate init_state);

/* Calls @update on every parameter of every group that has a gradient. */
gboolean dl_optimizer_foreach_update (DlOptimizer *self, DlOptimizerUpdate update, GError **error);

/* The state tensor @name of @state, created shaped as @p and filled with
 * @init when missing (then *created is set). */
DlTensor *dl_optimizer_state_tensor (GHashTable *state,
                                     const gchar *name,
                                     DlTensor *p,
                                     gdouble init,
                                     gboolean *created,
                                     GError **error);

/* The options the optimizers check, with torch.optim's messages
 * ("Adam: Invalid epsilon value: -1"): FALSE with @error set when the
 * option @name of @group is below @min (or NaN). @what is the message's
 * word for it. */
gboolean dl_optimizer_check_min (DlOptimizer *self,
                                 const DlOptimizerGroup *group,
                                 const gchar *name,
                                 const gchar *what,
                                 gdouble min,
                                 GError **error);

/* Adam's and AdamW's update (dl-adam.c); @decoupled for AdamW. */
gboolean dl_adam_update (DlOptimizer *self,
                         const DlOptimizerGroup *group,
                         DlTensor *p,
                         DlTensor *grad,
                         GHashTable *state,
                         gboolean decoupled,
                         GError **error);
gboolean dl_adam_check (DlOptimizer *self, const DlOptimizerGroup *group, GError **error);

G_END_DECLS

G_BEGIN_DECLS

/* A new GListStore of the tensors of @params, for the params property of
 * the _new functions' g_initable_new(). */
GListStore *dl_optimizer_params_store (GPtrArray *params);

G_END_DECLS
