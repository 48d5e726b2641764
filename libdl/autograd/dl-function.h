/* dl-function.h: DlFunction, a user-defined op with its own gradient.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(DL_INSIDE) && !defined(DL_COMPILATION)
#error "Only <dl.h> can be included directly."
#endif

#include "dl-node.h"
#include "dl-tensor.h"

G_BEGIN_DECLS

#define DL_TYPE_FUNCTION (dl_function_get_type ())
DL_EXPORT
G_DECLARE_DERIVABLE_TYPE (DlFunction, dl_function, DL, FUNCTION, DlNode)

/**
 * DlFunctionClass:
 * @parent_class: the parent class
 * @forward: computes the outputs from the inputs; see
 *   dl_function_forward()
 * @backward: computes the gradients of the inputs from those of the
 *   outputs; see dl_function_backward()
 *
 * The class of user-defined autograd functions. A subclass implements
 * both virtual methods: from Python `do_forward` and `do_backward`, from
 * GJS `vfunc_forward` and `vfunc_backward`, from Vala `override forward`
 * and `override backward`. Each takes an array of tensors and gives one
 * through an out parameter (a Python or GJS override returns a list).
 *
 * Since: 0.1
 */
struct _DlFunctionClass
{
  DlNodeClass parent_class;

  void (*forward) (DlFunction *self, GPtrArray *inputs, GPtrArray **outputs, GError **error);
  void (*backward) (DlFunction *self,
                    GPtrArray *grad_outputs,
                    GPtrArray **grad_inputs,
                    GError **error);

  /*< private >*/
  gpointer padding[8];
};

DL_EXPORT
GPtrArray *dl_function_apply (DlFunction *self, DlTensor **inputs, gsize n_inputs, GError **error);
DL_EXPORT
void dl_function_forward (DlFunction *self,
                          GPtrArray *inputs,
                          GPtrArray **outputs,
                          GError **error);
DL_EXPORT
void dl_function_backward (DlFunction *self,
                           GPtrArray *grad_outputs,
                           GPtrArray **grad_inputs,
                           GError **error);
DL_EXPORT
void dl_function_save_for_backward (DlFunction *self, DlTensor **tensors, gsize n_tensors);
DL_EXPORT
GPtrArray *dl_function_get_saved_tensors (DlFunction *self, GError **error);
DL_EXPORT
gboolean dl_function_needs_input_grad (DlFunction *self, guint input);
DL_EXPORT
void dl_function_mark_dirty (DlFunction *self, DlTensor **tensors, gsize n_tensors);
DL_EXPORT
void dl_function_mark_non_differentiable (DlFunction *self, DlTensor **tensors, gsize n_tensors);
DL_EXPORT
void dl_function_set_materialize_grads (DlFunction *self, gboolean materialize);
DL_EXPORT
gboolean dl_function_get_materialize_grads (DlFunction *self);

G_END_DECLS
