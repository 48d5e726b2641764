/* dl-gradcheck.h: gradients checked against finite differences
 * (torch.autograd.gradcheck and gradgradcheck), and the names of the
 * autograd nodes the library makes.
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

/**
 * DlGradcheckFunc:
 * @inputs: (array length=n_inputs): the inputs
 * @n_inputs: the number of inputs
 * @user_data: (closure): the data given to the check
 * @error: return location for a #GError
 *
 * The function whose gradients dl_autograd_gradcheck() checks: it
 * computes its outputs from @inputs with tensor ops.
 *
 * Returns: (transfer full) (element-type DlTensor) (nullable): the
 *   outputs, one tensor or several, or %NULL with @error set
 *
 * Since: 0.1
 */
typedef GPtrArray *(*DlGradcheckFunc) (DlTensor **inputs,
                                       guint n_inputs,
                                       gpointer user_data,
                                       GError **error);

DL_EXPORT
gboolean dl_autograd_gradcheck (DlGradcheckFunc func,
                                gpointer user_data,
                                DlTensor **inputs,
                                guint n_inputs,
                                gdouble eps,
                                gdouble atol,
                                gdouble rtol,
                                gboolean raise_exception,
                                gdouble nondet_tol,
                                gboolean check_undefined_grad,
                                GError **error);

DL_EXPORT
gboolean dl_autograd_gradgradcheck (DlGradcheckFunc func,
                                    gpointer user_data,
                                    DlTensor **inputs,
                                    guint n_inputs,
                                    DlTensor **grad_outputs,
                                    guint n_grad_outputs,
                                    gdouble eps,
                                    gdouble atol,
                                    gdouble rtol,
                                    gboolean gen_non_contig_grad_outputs,
                                    gboolean raise_exception,
                                    gdouble nondet_tol,
                                    gboolean check_undefined_grad,
                                    GError **error);

DL_EXPORT
const gchar *const *dl_autograd_get_node_names (void);

G_END_DECLS
