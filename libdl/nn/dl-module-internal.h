/* dl-module-internal.h: DlModule's instance data, shared by the files the
 * class is written in (dl-module.c, -tree.c, -state.c, -hooks.c,
 * -print.c); the layers use dl-module-private.h.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "nn/dl-module.h"

G_BEGIN_DECLS

typedef struct
{
  GPtrArray *param_names;    /* gchar* */
  GPtrArray *params;         /* DlTensor* or NULL */
  GPtrArray *buffer_names;   /* gchar* */
  GPtrArray *buffers;        /* DlTensor* or NULL */
  GArray *buffer_persistent; /* gboolean: in the state dict */
  GPtrArray *child_names;    /* gchar* */
  GPtrArray *children;       /* DlModule* */
  gboolean training;
  gint dtype;       /* DlModule:dtype: a floating DlDType once constructed */
  DlDevice *device; /* DlModule:device: set once constructed */
  GError *construct_error;
  GPtrArray *hooks; /* HookEntry* (rc boxes), in registration order */
  GPtrArray *parametrized;  /* ParametrizedEntry*, or NULL while there is none */
  guint parametrized_depth; /* the forwards of @self running (nested) */
} DlModulePrivate;

/* a tensor of the module that a parametrization computes for each
 * forward (dl_module_register_parametrization) */
typedef struct
{
  gchar *name;
  DlModule *source; /* its forward_many with no inputs gives the tensor */
  DlTensor *value;  /* while a forward of the module runs, else NULL */
} ParametrizedEntry;

/* a forward (pre-)hook; a running forward holds a reference to each entry
 * it calls, so that a hook may remove itself (or another) while it runs */
typedef struct
{
  guint id;
  gboolean post;
  gpointer func;
  gpointer data;
  GDestroyNotify destroy;
} HookEntry;

DlModulePrivate *dl_module_priv (DlModule *self);
/* the position of @name in @names, or -1 */
gint dl_module_find_name (GPtrArray *names, const gchar *name);
/* marks @t (nullable) as a parameter (dl_tensor_is_parameter) */
void dl_module_mark_parameter (DlTensor *t);
/* the value computed for the parametrized tensor @name of @self while a
 * forward of @self runs, NULL otherwise or when @name is not one */
DlTensor *dl_module_parametrized_value (DlModule *self, const gchar *name);
void dl_module_parametrized_entry_free (gpointer p);

G_END_DECLS
