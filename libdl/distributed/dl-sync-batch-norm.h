/* dl-sync-batch-norm.h: DlSyncBatchNorm, batch normalisation whose batch
 * statistics span the ranks of a process group.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(DL_INSIDE) && !defined(DL_COMPILATION)
#error "Only <dl.h> can be included directly."
#endif

#include "nn/dl-norm-modules.h"
#include "distributed/dl-process-group.h"

G_BEGIN_DECLS

#define DL_TYPE_SYNC_BATCH_NORM (dl_sync_batch_norm_get_type ())
DL_EXPORT
G_DECLARE_DERIVABLE_TYPE (DlSyncBatchNorm, dl_sync_batch_norm, DL, SYNC_BATCH_NORM, DlBatchNorm)

/**
 * DlSyncBatchNormClass:
 * @parent_class: the parent class
 *
 * The class of #DlSyncBatchNorm.
 *
 * Since: 0.1
 */
struct _DlSyncBatchNormClass
{
  DlBatchNormClass parent_class;

  /*< private >*/
  gpointer padding[8];
};

DL_EXPORT
DlSyncBatchNorm *
dl_sync_batch_norm_new (gint64 num_features, DlProcessGroup *process_group, GError **error);
DL_EXPORT
DlProcessGroup *dl_sync_batch_norm_get_process_group (DlSyncBatchNorm *self);
DL_EXPORT
DlModule *dl_sync_batch_norm_convert_sync_batchnorm (DlModule *module,
                                                     DlProcessGroup *process_group,
                                                     GError **error);

G_END_DECLS
