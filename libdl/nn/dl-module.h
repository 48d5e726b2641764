/* dl-module.h: DlModule, the base class of layers and models.
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

#define DL_TYPE_MODULE (dl_module_get_type ())
DL_EXPORT
G_DECLARE_DERIVABLE_TYPE (DlModule, dl_module, DL, MODULE, GObject)

/**
 * DlModuleClass:
 * @parent_class: the parent class
 * @forward: computes the module's output from @input; see dl_module_forward()
 *
 * The class of modules. Subclasses override @forward (from Python as
 * `do_forward`, from GJS as `vfunc_forward`, from Vala with `override`).
 *
 * Since: 0.1
 */
struct _DlModuleClass
{
  GObjectClass parent_class;

  DlTensor *(*forward) (DlModule *self, DlTensor *input, GError **error);

  /*< private >*/
  gpointer padding[8];
};

DL_EXPORT
DlTensor *dl_module_forward (DlModule *self, DlTensor *input, GError **error);
DL_EXPORT
void dl_module_register_parameter (DlModule *self, const gchar *name, DlTensor *param);
DL_EXPORT
void dl_module_register_module (DlModule *self, const gchar *name, DlModule *child);
DL_EXPORT
DlTensor *dl_module_get_parameter (DlModule *self, const gchar *name);
DL_EXPORT
DlModule *dl_module_get_module (DlModule *self, const gchar *name);
DL_EXPORT
GPtrArray *dl_module_parameters (DlModule *self);
DL_EXPORT
GStrv dl_module_parameter_names (DlModule *self);
DL_EXPORT
GPtrArray *dl_module_children (DlModule *self);
DL_EXPORT
GStrv dl_module_children_names (DlModule *self);
DL_EXPORT
void dl_module_zero_grad (DlModule *self);
DL_EXPORT
void dl_module_set_training (DlModule *self, gboolean training);
DL_EXPORT
gboolean dl_module_get_training (DlModule *self);

G_END_DECLS
