/* dl-safetensors.h: reading and writing safetensors checkpoints.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(DL_INSIDE) && !defined(DL_COMPILATION)
#error "Only <dl.h> can be included directly."
#endif

#include <gio/gio.h>

#include "data/dl-tensor-dict.h"
#include "nn/dl-module.h"

G_BEGIN_DECLS

/**
 * DL_SAFETENSORS_MAX_HEADER:
 *
 * The largest header (in bytes) dl_safetensors_load() accepts, as the
 * safetensors reference implementation.
 *
 * Since: 0.1
 */
#define DL_SAFETENSORS_MAX_HEADER 100000000

DL_EXPORT
gboolean
dl_safetensors_save (DlTensorDict *tensors, GFile *file, GCancellable *cancellable, GError **error);
DL_EXPORT
GBytes *dl_safetensors_save_to_bytes (DlTensorDict *tensors, GError **error);
DL_EXPORT
DlTensorDict *dl_safetensors_load (GFile *file, GCancellable *cancellable, GError **error);
DL_EXPORT
DlTensorDict *dl_safetensors_load_bytes (GBytes *bytes, GError **error);

DL_EXPORT
gboolean
dl_module_save_state (DlModule *self, GFile *file, GCancellable *cancellable, GError **error);
DL_EXPORT
gboolean dl_module_load_state (DlModule *self,
                               GFile *file,
                               gboolean strict,
                               GCancellable *cancellable,
                               GError **error);

G_END_DECLS
