/* dl-ops-lapack-private.h: what the files of torch.linalg's ops share
 * (dl-ops-lapack.c): argument checks, the column-major copies the kernel
 * takes, the lapack slot's call and its info codes.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dl-ops-private.h"
#include "dl-ops-lapack.h"

G_BEGIN_DECLS

G_GNUC_INTERNAL
gint64 dl_lapack_batch_count (DlTensor *t, gint n_matrix_dims);
G_GNUC_INTERNAL
gboolean dl_lapack_check_info (const gchar *op,
                               DlTensor *a,
                               const gint32 *info,
                               gint64 n,
                               const gchar *before,
                               gboolean with_info,
                               const gchar *after,
                               GError **error);
G_GNUC_INTERNAL
gboolean dl_lapack_check_kernel_matrix (const gchar *op,
                                        const gchar *what,
                                        DlTensor *t,
                                        gboolean square,
                                        GError **error);
G_GNUC_INTERNAL
gboolean dl_lapack_check_matrix (const gchar *op,
                                 const gchar *what,
                                 DlTensor *t,
                                 gboolean square,
                                 GError **error);
G_GNUC_INTERNAL
DlTensor *dl_lapack_colmajor_copy (DlTensor *t, GError **error);
G_GNUC_INTERNAL
gdouble dl_lapack_get_el (DlDType dtype, const void *p, gint64 i);
G_GNUC_INTERNAL
DlTensor *dl_lapack_identity_like (DlTensor *a, GError **error);
G_GNUC_INTERNAL
void dl_lapack_args_init (DlLapackArgs *g, DlTensor *a, DlTensor *ac, gint32 **info);
G_GNUC_INTERNAL
DlTensor *dl_lapack_mT (DlTensor *t, GError **error);
G_GNUC_INTERNAL
DlTensor *
dl_lapack_new_batched (DlTensor *like, gint drop, const gint64 *tail, gint n_tail, GError **error);
G_GNUC_INTERNAL
DlTensor *dl_lapack_rowmajor (DlTensor *buf, GError **error);
G_GNUC_INTERNAL
gboolean dl_lapack_run (DlTensor *like,
                        const gchar *op,
                        DlLapackOp kind,
                        DlLapackArgs *args,
                        GError **error);
G_GNUC_INTERNAL
void dl_lapack_set_el (DlDType dtype, void *p, gint64 i, gdouble v);
G_GNUC_INTERNAL
const gchar *dl_lapack_torch_type_name (DlDType dtype);
G_GNUC_INTERNAL
gchar *dl_lapack_batch_prefix (DlTensor *t, gint64 bi);

G_END_DECLS
