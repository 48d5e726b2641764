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
 * @extra_repr: the module's own settings as dl_module_to_string() prints
 *   them inside its parentheses; see dl_module_extra_repr()
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
 * A module in C, y = x * w with a learned per-feature scale w, as a
 * `torch.nn.Module` subclass with a `torch.nn.Parameter` and a `forward`:
 *
 * |[<!-- language="C" -->
 * #define MY_TYPE_SCALE (my_scale_get_type ())
 * G_DECLARE_FINAL_TYPE (MyScale, my_scale, MY, SCALE, DlModule)
 *
 * struct _MyScale
 * {
 *   DlModule parent_instance;
 * };
 *
 * G_DEFINE_FINAL_TYPE (MyScale, my_scale, DL_TYPE_MODULE)
 *
 * static DlTensor *
 * my_scale_forward (DlModule *module, DlTensor *input, GError **error)
 * {
 *   return dl_tensor_mul (input, dl_module_get_parameter (module, "weight"), error);
 * }
 *
 * static void
 * my_scale_class_init (MyScaleClass *klass)
 * {
 *   DL_MODULE_CLASS (klass)->forward = my_scale_forward;
 * }
 *
 * static void
 * my_scale_init (MyScale *self)
 * {
 *   g_autoptr (DlTensor) weight = dl_ones (DL_SHAPE (4), DL_DTYPE_FLOAT32, NULL, NULL);
 *
 *   dl_tensor_set_requires_grad (weight, TRUE, NULL);
 *   dl_module_register_parameter (DL_MODULE (self), "weight", weight);
 * }
 * ]|
 *
 * g_object_new (MY_TYPE_SCALE, NULL) makes one; dl_module_forward() runs
 * it, dl_module_parameters() gives its weight to an optimizer, and
 * dl_module_state_dict() saves it under "weight". A module made of other
 * modules registers them with dl_module_register_module() in its init.
 *
 * Since: 0.1
 */
struct _DlModuleClass
{
  GObjectClass parent_class;

  DlTensor *(*forward) (DlModule *self, DlTensor *input, GError **error);
  void (*forward_many) (DlModule *self, GPtrArray *inputs, GPtrArray **outputs, GError **error);
  gchar *(*extra_repr) (DlModule *self);

  /*< private >*/
  gpointer padding[6];
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

/**
 * DlModuleApplyFunc:
 * @module: a module of the tree dl_module_apply() walks
 * @user_data: (closure): the data given to dl_module_apply()
 *
 * What dl_module_apply() calls on each module.
 *
 * Since: 0.1
 */
typedef void (*DlModuleApplyFunc) (DlModule *module, gpointer user_data);

/**
 * DlModuleForwardPreHook:
 * @module: the module about to run
 * @inputs: (element-type DlTensor): its inputs
 * @user_data: (closure): the data given at registration
 * @error: return location for a #GError
 *
 * A hook run before the module's forward, as torch's forward pre-hooks.
 *
 * Returns: (transfer full) (nullable) (element-type DlTensor): new inputs
 *   that replace @inputs, or %NULL (or an empty array) to keep them (and on
 *   error)
 *
 * Since: 0.1
 */
typedef GPtrArray *(*DlModuleForwardPreHook) (DlModule *module,
                                              GPtrArray *inputs,
                                              gpointer user_data,
                                              GError **error);

/**
 * DlModuleForwardHook:
 * @module: the module that ran
 * @inputs: (element-type DlTensor): its inputs (as the pre-hooks left them)
 * @outputs: (element-type DlTensor): its outputs
 * @user_data: (closure): the data given at registration
 * @error: return location for a #GError
 *
 * A hook run after the module's forward, as torch's forward hooks.
 *
 * Returns: (transfer full) (nullable) (element-type DlTensor): new outputs
 *   that replace @outputs, or %NULL (or an empty array) to keep them (and
 *   on error)
 *
 * Since: 0.1
 */
typedef GPtrArray *(*DlModuleForwardHook) (DlModule *module,
                                           GPtrArray *inputs,
                                           GPtrArray *outputs,
                                           gpointer user_data,
                                           GError **error);

DL_EXPORT
gboolean
dl_module_add_parameter (DlModule *self, const gchar *name, DlTensor *param, GError **error);
DL_EXPORT
gboolean dl_module_add_buffer (DlModule *self,
                               const gchar *name,
                               DlTensor *buffer,
                               gboolean persistent,
                               GError **error);
DL_EXPORT
gboolean dl_module_add_module (DlModule *self, const gchar *name, DlModule *child, GError **error);
DL_EXPORT
gboolean dl_module_remove (DlModule *self, const gchar *name);
DL_EXPORT
gboolean dl_module_has_parameter (DlModule *self, const gchar *name);
DL_EXPORT
gboolean dl_module_get_buffer_persistent (DlModule *self, const gchar *name);
DL_EXPORT
GPtrArray *dl_module_named_parameters (DlModule *self, gboolean recurse, GStrv *names);
DL_EXPORT
GPtrArray *dl_module_named_buffers (DlModule *self, gboolean recurse, GStrv *names);
DL_EXPORT
GPtrArray *dl_module_named_modules (DlModule *self, gboolean remove_duplicate, GStrv *names);
DL_EXPORT
void dl_module_apply (DlModule *self, DlModuleApplyFunc func, gpointer user_data);
DL_EXPORT
gboolean dl_module_requires_grad_ (DlModule *self, gboolean requires_grad, GError **error);
DL_EXPORT
gboolean dl_module_zero_grad_full (DlModule *self, gboolean set_to_none, GError **error);
DL_EXPORT
gboolean dl_module_to_dtype (DlModule *self, DlDType dtype, GError **error);
DL_EXPORT
gboolean dl_module_cast (DlModule *self, DlDType dtype, GError **error);
DL_EXPORT
gboolean dl_module_to_device (DlModule *self, DlDevice *device, GError **error);
DL_EXPORT
guint dl_module_register_forward_pre_hook (DlModule *self,
                                           DlModuleForwardPreHook hook,
                                           gpointer user_data,
                                           GDestroyNotify destroy);
DL_EXPORT
guint dl_module_register_forward_hook (DlModule *self,
                                       DlModuleForwardHook hook,
                                       gpointer user_data,
                                       GDestroyNotify destroy);
DL_EXPORT
gboolean dl_module_remove_hook (DlModule *self, guint id);
DL_EXPORT
guint dl_module_get_n_hooks (DlModule *self);
DL_EXPORT
const gchar *dl_module_get_member_kind (DlModule *self, const gchar *name);
DL_EXPORT
GObject *dl_module_lookup (DlModule *self, const gchar *name, gboolean *found);
DL_EXPORT
GStrv dl_module_get_own_names (DlModule *self);
DL_EXPORT
gboolean dl_module_register_parametrization (DlModule *self,
                                             const gchar *name,
                                             DlModule *parametrization,
                                             GError **error);
DL_EXPORT
gboolean dl_module_remove_parametrization (DlModule *self, const gchar *name);
DL_EXPORT
DlModule *dl_module_get_parametrization (DlModule *self, const gchar *name);
DL_EXPORT
gboolean dl_module_enter_parametrized (DlModule *self, GError **error);
DL_EXPORT
void dl_module_leave_parametrized (DlModule *self);
DL_EXPORT
gchar *dl_module_extra_repr (DlModule *self);
DL_EXPORT
gchar *dl_module_to_string (DlModule *self);

DL_EXPORT
DlTensor *dl_parameter_new (DlTensor *data, gboolean requires_grad, GError **error);
DL_EXPORT
gboolean dl_tensor_is_parameter (DlTensor *self);

G_END_DECLS
