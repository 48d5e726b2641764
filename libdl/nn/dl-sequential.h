/* dl-sequential.h: DlSequential, a chain of modules.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(DL_INSIDE) && !defined(DL_COMPILATION)
#error "Only <dl.h> can be included directly."
#endif

#include "nn/dl-module.h"

G_BEGIN_DECLS

#define DL_TYPE_SEQUENTIAL (dl_sequential_get_type ())
DL_EXPORT
G_DECLARE_DERIVABLE_TYPE (DlSequential, dl_sequential, DL, SEQUENTIAL, DlModule)

/**
 * DlSequentialClass:
 * @parent_class: the parent class
 *
 * The class of #DlSequential. Derivable, as PyTorch users subclass
 * nn.Sequential to name a block of layers.
 *
 * Since: 0.1
 */
struct _DlSequentialClass
{
  DlModuleClass parent_class;

  /*< private >*/
  gpointer padding[8];
};

DL_EXPORT
DlSequential *dl_sequential_new (GPtrArray *modules, GError **error);
DL_EXPORT
void dl_sequential_append (DlSequential *self, DlModule *module);
DL_EXPORT
DlModule *dl_sequential_get (DlSequential *self, gint64 index, GError **error);
DL_EXPORT
guint dl_sequential_get_length (DlSequential *self);
DL_EXPORT
gboolean dl_sequential_insert (DlSequential *self, gint64 index, DlModule *module, GError **error);
DL_EXPORT
gboolean dl_sequential_remove (DlSequential *self, gint64 index, GError **error);

G_END_DECLS
