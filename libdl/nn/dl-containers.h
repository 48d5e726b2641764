/* dl-containers.h: DlModuleList, DlModuleDict and DlUnflatten.
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

#define DL_TYPE_MODULE_LIST (dl_module_list_get_type ())
DL_EXPORT
G_DECLARE_DERIVABLE_TYPE (DlModuleList, dl_module_list, DL, MODULE_LIST, DlModule)

/**
 * DlModuleListClass:
 * @parent_class: the parent class
 *
 * The class of #DlModuleList.
 *
 * Since: 0.1
 */
struct _DlModuleListClass
{
  DlModuleClass parent_class;

  /*< private >*/
  gpointer padding[4];
};

DL_EXPORT
DlModuleList *dl_module_list_new (GPtrArray *modules);
DL_EXPORT
void dl_module_list_append (DlModuleList *self, DlModule *module);
DL_EXPORT
gboolean dl_module_list_insert (DlModuleList *self, gint64 index, DlModule *module, GError **error);
DL_EXPORT
DlModule *dl_module_list_get (DlModuleList *self, gint64 index, GError **error);
DL_EXPORT
gboolean dl_module_list_set (DlModuleList *self, gint64 index, DlModule *module, GError **error);
DL_EXPORT
gboolean dl_module_list_remove (DlModuleList *self, gint64 index, GError **error);
DL_EXPORT
guint dl_module_list_get_length (DlModuleList *self);

#define DL_TYPE_MODULE_DICT (dl_module_dict_get_type ())
DL_EXPORT
G_DECLARE_DERIVABLE_TYPE (DlModuleDict, dl_module_dict, DL, MODULE_DICT, DlModule)

/**
 * DlModuleDictClass:
 * @parent_class: the parent class
 *
 * The class of #DlModuleDict.
 *
 * Since: 0.1
 */
struct _DlModuleDictClass
{
  DlModuleClass parent_class;

  /*< private >*/
  gpointer padding[4];
};

DL_EXPORT
DlModuleDict *dl_module_dict_new (void);
DL_EXPORT
gboolean dl_module_dict_insert (DlModuleDict *self,
                                const gchar *key,
                                DlModule *module,
                                GError **error);
DL_EXPORT
DlModule *dl_module_dict_lookup (DlModuleDict *self, const gchar *key);
DL_EXPORT
DlModule *dl_module_dict_pop (DlModuleDict *self, const gchar *key, GError **error);
DL_EXPORT
GStrv dl_module_dict_get_keys (DlModuleDict *self);
DL_EXPORT
guint dl_module_dict_get_length (DlModuleDict *self);
DL_EXPORT
void dl_module_dict_clear (DlModuleDict *self);

#define DL_TYPE_UNFLATTEN (dl_unflatten_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlUnflatten, dl_unflatten, DL, UNFLATTEN, DlModule)

DL_EXPORT
DlUnflatten *
dl_unflatten_new (gint64 dim, const gint64 *unflattened_size, gsize n_sizes, GError **error);
DL_EXPORT
gint64 dl_unflatten_get_dim (DlUnflatten *self);
DL_EXPORT
const gint64 *dl_unflatten_get_unflattened_size (DlUnflatten *self, gsize *n_sizes);

G_END_DECLS
