/* dl-module-private.h: what the C modules of libdl share with DlModule:
 * the error a construction left behind.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "nn/dl-module.h"
#include "ops/dl-ops-shape.h"

G_BEGIN_DECLS

/* A subclass's constructed() hands the first invalid or missing construct
 * property over as @error (taken); g_initable_init(), forward and
 * forward_many then fail with a copy of it. */
void dl_module_take_construct_error (DlModule *self, GError *error);
/* The dtype in which @self makes its floating parameters and buffers: its
 * #DlModule:dtype, resolved to a floating dtype when it was constructed
 * (the default dtype before that). */
DlDType dl_module_get_factory_dtype (DlModule *self);
/* The device on which @self makes its parameters and buffers: its
 * #DlModule:device, the thread's default device when not given (transfer
 * none; %NULL before construction, which factories read as the default) */
DlDevice *dl_module_get_factory_device (DlModule *self);
/* Registers a new leaf parameter @name of @shape in @self's dtype,
 * uniform in [-bound, bound] (PyTorch's default initialisation of linear
 * and convolution layers). */
gboolean dl_module_add_uniform_parameter (DlModule *self,
                                          const gchar *name,
                                          const gint64 *shape,
                                          gsize n_dims,
                                          gdouble bound,
                                          GError **error);

/* A layer's size property @name of @layer (e.g. "Linear", "in_features"):
 * TRUE when given and >= 0, else FALSE with a DL_ERROR_ARGUMENT saying it
 * is missing (-1, the properties' default) or negative. */
gboolean dl_module_check_size (const gchar *layer, const gchar *name, gint64 value, GError **error);

/* @value as Python's repr of a float prints it, as torch's extra_repr
 * shows a hyperparameter: the shortest text that reads back, with ".0"
 * on an integral value ("0.01", "1.0"). Free with g_free(). */
gchar *dl_module_repr_double (gdouble value);

/* FALSE with a copy of the construction's error set, when there was one */
gboolean dl_module_check_constructed (DlModule *self, GError **error);

/* the children of a list-like container (DlSequential, DlModuleList),
 * named "0", "1", ... by position; @op names the caller in errors
 * (DL_ERROR_INDEX for a position out of range) */
DlModule *dl_module_child_at (DlModule *self, const gchar *op, gint64 index, GError **error);
gboolean dl_module_insert_child (DlModule *self,
                                 const gchar *op,
                                 gint64 index,
                                 DlModule *module,
                                 GError **error);
gboolean dl_module_remove_child (DlModule *self, const gchar *op, gint64 index, GError **error);

/* dl_module_set_training() without notifying #DlModule:training: for a
 * worker thread that switches a model's mode for one job and back (a
 * notification would run the program's handlers on the worker) */
void dl_module_set_training_quietly (DlModule *self, gboolean training);

/* the #DlModule:training of each module of @self's tree (itself, then its
 * children's trees in order), as gboolean; and setting them back quietly
 * (a tree that has not changed its shape in between) */
GArray *dl_module_get_modes (DlModule *self);
void dl_module_set_modes_quietly (DlModule *self, GArray *modes);

/* %NULL when every module of @self's tree (itself included) runs compiled
 * code only: its class's forward and forward_many, and its forward hooks
 * and pre-hooks. Otherwise a description of the first that runs a
 * language binding's code ("'model.layers.0' (PyScale): forward"), for
 * the error of an op that would run the tree on another thread. @path
 * names @self in it ("model"). Free with g_free(). */
gchar *dl_module_find_binding_code (DlModule *self, const gchar *path);

/* A reshape as PyTorch's C++ composites write it, with view: a view
 * (ViewBackward0) when @t's layout allows, else dl_tensor_reshape()'s
 * copy (Tensor.reshape's own view is ReshapeAliasBackward0). */
static inline DlTensor *
dl_nn_reshape (DlTensor *t, const gint64 *shape, gsize n_dims, GError **error)
{
  g_autoptr (GError) not_a_view = NULL;
  DlTensor *v = dl_tensor_view (t, shape, n_dims, &not_a_view);

  return v ? v : dl_tensor_reshape (t, shape, n_dims, error);
}

G_END_DECLS
