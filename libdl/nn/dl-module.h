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
#include "data/dl-tensor-dict.h"

G_BEGIN_DECLS

#define DL_TYPE_MODULE (dl_module_get_type ())
DL_EXPORT
G_DECLARE_DERIVABLE_TYPE (DlModule, dl_module, DL, MODULE, GObject)

/**
 * DlModuleClass:
 * @parent_class: the parent class
 * @forward: computes the module's one output from its one input; see
 *   dl_module_forward()
 * @forward_many: computes the module's outputs from several inputs into
 *   @outputs; see dl_module_forward_many() and #DlModuleClass::forward_many
 *
 * The class of modules. A subclass overrides one of the two forms of
 * forward: a module with one input and one output overrides @forward, one
 * that takes or gives several tensors (a loss, a recurrent layer,
 * attention) overrides @forward_many. From Python they are `do_forward`
 * and `do_forward_many`, from GJS `vfunc_forward` and
 * `vfunc_forward_many`, from Vala `override forward` and `override
 * forward_many_vfunc` (the Vala name keeps the vfunc apart from the
 * dl_module_forward_many() method). Each default calls the other, so both
 * dl_module_forward() and dl_module_forward_many() reach whichever the
 * subclass implemented; a subclass implementing neither fails with
 * %DL_ERROR_NOT_SUPPORTED.
 *
 * Since: 0.1
 */
struct _DlModuleClass
{
  GObjectClass parent_class;

  DlTensor *(*forward) (DlModule *self, DlTensor *input, GError **error);
  void (*forward_many) (DlModule *self, GPtrArray *inputs, GPtrArray **outputs, GError **error);

  /*< private >*/
  gpointer padding[7];
};

DL_EXPORT
DlTensor *dl_module_forward (DlModule *self, DlTensor *input, GError **error);
DL_EXPORT
GPtrArray *dl_module_forward_many (DlModule *self, GPtrArray *inputs, GError **error);
DL_EXPORT
void dl_module_register_parameter (DlModule *self, const gchar *name, DlTensor *param);
DL_EXPORT
void dl_module_register_module (DlModule *self, const gchar *name, DlModule *child);
DL_EXPORT
DlTensor *dl_module_get_parameter (DlModule *self, const gchar *name);
DL_EXPORT
void dl_module_register_buffer (DlModule *self,
                                const gchar *name,
                                DlTensor *buffer,
                                gboolean persistent);
DL_EXPORT
DlTensor *dl_module_get_buffer (DlModule *self, const gchar *name);
DL_EXPORT
gboolean dl_module_has_buffer (DlModule *self, const gchar *name);
DL_EXPORT
GPtrArray *dl_module_buffers (DlModule *self);
DL_EXPORT
GStrv dl_module_buffer_names (DlModule *self);
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
DL_EXPORT
DlTensorDict *dl_module_state_dict (DlModule *self);
DL_EXPORT
gboolean dl_module_load_state_dict (DlModule *self,
                                    DlTensorDict *state,
                                    gboolean strict,
                                    GStrv *missing_keys,
                                    GStrv *unexpected_keys,
                                    GError **error);

G_END_DECLS
