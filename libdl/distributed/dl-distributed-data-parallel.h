/* dl-distributed-data-parallel.h: DlDistributedDataParallel, a module
 * that trains its wrapped module on every rank of a process group with the
 * gradients averaged across the ranks.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(DL_INSIDE) && !defined(DL_COMPILATION)
#error "Only <dl.h> can be included directly."
#endif

#include "nn/dl-module.h"
#include "distributed/dl-process-group.h"

G_BEGIN_DECLS

#define DL_TYPE_DISTRIBUTED_DATA_PARALLEL (dl_distributed_data_parallel_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlDistributedDataParallel,
                      dl_distributed_data_parallel,
                      DL,
                      DISTRIBUTED_DATA_PARALLEL,
                      DlModule)

DL_EXPORT
DlDistributedDataParallel *
dl_distributed_data_parallel_new (DlModule *module, DlProcessGroup *process_group, GError **error);
DL_EXPORT
DlModule *dl_distributed_data_parallel_get_module (DlDistributedDataParallel *self);
DL_EXPORT
DlProcessGroup *dl_distributed_data_parallel_get_process_group (DlDistributedDataParallel *self);
DL_EXPORT
void dl_distributed_data_parallel_set_require_sync (DlDistributedDataParallel *self,
                                                    gboolean require_sync);
DL_EXPORT
gboolean dl_distributed_data_parallel_get_require_sync (DlDistributedDataParallel *self);
DL_EXPORT
gboolean dl_distributed_data_parallel_pre_forward (DlDistributedDataParallel *self, GError **error);
DL_EXPORT
gint64 *dl_distributed_data_parallel_get_bucket_sizes (DlDistributedDataParallel *self,
                                                       gsize *n_buckets);
DL_EXPORT
gdouble dl_distributed_data_parallel_get_last_wait (DlDistributedDataParallel *self);

G_END_DECLS
