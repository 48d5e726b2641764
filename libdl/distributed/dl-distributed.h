/* dl-distributed.h: the default process group (torch.distributed's
 * init_process_group and its kin).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(DL_INSIDE) && !defined(DL_COMPILATION)
#error "Only <dl.h> can be included directly."
#endif

#include "distributed/dl-process-group.h"

G_BEGIN_DECLS

/**
 * DL_DISTRIBUTED_DEFAULT_TIMEOUT:
 *
 * The timeout of a process group, in seconds, when none is given: 1800,
 * torch.distributed's default.
 *
 * Since: 0.1
 */
#define DL_DISTRIBUTED_DEFAULT_TIMEOUT 1800.0

DL_EXPORT
gboolean dl_distributed_is_backend_available (const gchar *backend);
DL_EXPORT
DlProcessGroup *dl_distributed_new_process_group (const gchar *backend,
                                                  const gchar *init_method,
                                                  gint rank,
                                                  gint world_size,
                                                  gdouble timeout,
                                                  GError **error);
DL_EXPORT
gboolean dl_distributed_init_process_group (const gchar *backend,
                                            const gchar *init_method,
                                            gint rank,
                                            gint world_size,
                                            gdouble timeout,
                                            GError **error);
DL_EXPORT
DlProcessGroup *dl_distributed_get_default_group (void);
DL_EXPORT
gboolean dl_distributed_is_initialized (void);
DL_EXPORT
gboolean dl_distributed_destroy_process_group (GError **error);

G_END_DECLS
