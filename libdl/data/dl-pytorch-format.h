/* dl-pytorch-format.h: reading the tensors of PyTorch's .pt/.pth archives.
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

G_BEGIN_DECLS

/**
 * DL_PYTORCH_MAX_NESTING:
 *
 * How deep dl_pytorch_load_state_dict() follows dicts inside dicts
 * (`{"model": {"encoder": state_dict}}`) before it calls the archive
 * hostile.
 *
 * Since: 0.1
 */
#define DL_PYTORCH_MAX_NESTING 32

DL_EXPORT
DlTensorDict *dl_pytorch_load_state_dict (GFile *file, GCancellable *cancellable, GError **error);
DL_EXPORT
DlTensorDict *dl_pytorch_load_state_dict_bytes (GBytes *bytes, GError **error);

G_END_DECLS
