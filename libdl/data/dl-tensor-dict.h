/* dl-tensor-dict.h: DlTensorDict, named tensors and string metadata: what a
 * checkpoint holds.
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

#define DL_TYPE_TENSOR_DICT (dl_tensor_dict_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlTensorDict, dl_tensor_dict, DL, TENSOR_DICT, GObject)

DL_EXPORT
DlTensorDict *dl_tensor_dict_new (void);
DL_EXPORT
void dl_tensor_dict_insert (DlTensorDict *self, const gchar *name, DlTensor *tensor);
DL_EXPORT
DlTensor *dl_tensor_dict_lookup (DlTensorDict *self, const gchar *name);
DL_EXPORT
gboolean dl_tensor_dict_contains (DlTensorDict *self, const gchar *name);
DL_EXPORT
gboolean dl_tensor_dict_remove (DlTensorDict *self, const gchar *name);
DL_EXPORT
guint dl_tensor_dict_get_size (DlTensorDict *self);
DL_EXPORT
GStrv dl_tensor_dict_get_names (DlTensorDict *self);
DL_EXPORT
void dl_tensor_dict_set_metadata (DlTensorDict *self, const gchar *key, const gchar *value);
DL_EXPORT
const gchar *dl_tensor_dict_get_metadata (DlTensorDict *self, const gchar *key);
DL_EXPORT
GStrv dl_tensor_dict_get_metadata_keys (DlTensorDict *self);

G_END_DECLS
