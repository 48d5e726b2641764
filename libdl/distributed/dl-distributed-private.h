/* dl-distributed-private.h: what the engine modules and the base share.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * An engine is a loadable module, libdl-<engine>-1.0.so, found like the
 * CUDA module (dl_backend_module_find(), dl-device-private.h): beside
 * libdl in dl-1.0/ when installed, in libdl/distributed/<engine>/ of the
 * build tree, or in $DL_BACKEND_PATH when that is set. It exports one
 * entry point,
 *
 *   DlProcessGroupFactory dl_<engine>_module_init (void);
 *
 * which returns the engine's factory: given the init method (NULL for
 * "env://"), the rank and world size asked for (-1: from the environment
 * or the engine) and the timeout in seconds, the factory joins the other
 * ranks and returns the engine's DlProcessGroup subclass, constructed with
 * "rank", "size", "timeout" and "backend-name" (transfer full), or NULL
 * with @error set.
 */
#pragma once

#include "distributed/dl-process-group.h"

G_BEGIN_DECLS

typedef DlProcessGroup *(*DlProcessGroupFactory) (const gchar *init_method,
                                                  gint rank,
                                                  gint world_size,
                                                  gdouble timeout,
                                                  GError **error);
typedef DlProcessGroupFactory (*DlDistributedModuleInit) (void);

/* The host reductions (dl-reduce-host.c, compiled into libdl and into
 * each engine module): @inout[i] = @inout[i] op @in[i] for @count
 * elements of @dtype (float16 and bfloat16 through float, rounded back
 * each time; bool as logical or/and; never AVG), and the division of AVG.
 * Both return FALSE for a combination they do not know. */
G_GNUC_INTERNAL
gboolean
dl_reduce_host (DlDType dtype, DlReduceOpKind op, gpointer inout, gconstpointer in, gsize count);
G_GNUC_INTERNAL
gboolean dl_reduce_host_divide (DlDType dtype, gpointer buf, gsize count, gint divisor);

/* The device whose tensors @group's collectives take: NULL (transfer
 * none) for the CPU engines, the GPU of an engine on a device (NCCL,
 * DlProcessGroupClass.device_type): what DistributedDataParallel makes
 * its buckets on (dl-process-group.c) */
G_GNUC_INTERNAL
DlDevice *dl_process_group_get_tensor_device (DlProcessGroup *group);

/* "sum", "product", ...: the op's name in errors */
G_GNUC_INTERNAL
const gchar *dl_reduce_op_kind_name (DlReduceOpKind op);

G_END_DECLS
