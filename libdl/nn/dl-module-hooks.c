/* dl-module-hooks.c: registering and removing DlModule's forward
 * (pre-)hooks; dl-module.c runs them around forward.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include <gio/gio.h>

#include "dl-module.h"
#include "dl-module-private.h"
#include "dl-module-internal.h"
#include "dl-error.h"
#include "dl-node.h"
#include "dl-tensor-private.h"
#include "dl-device-private.h"
#include "dl-native-private.h"
#include "ops/dl-ops-creation.h"
#include "ops/dl-ops-pointwise.h"
#include "ops/dl-ops-shape.h"
#include "autograd/dl-autograd.h"

/* ---- hooks ------------------------------------------------------------- */

static guint
add_hook (DlModule *self, gboolean post, gpointer func, gpointer data, GDestroyNotify destroy)
{
  static guint next_id = 1;
  DlModulePrivate *priv = dl_module_priv (self);
  HookEntry *e = g_rc_box_new0 (HookEntry);

  e->id = g_atomic_int_add (&next_id, 1);
  e->post = post;
  e->func = func;
  e->data = data;
  e->destroy = destroy;
  g_ptr_array_add (priv->hooks, e);
  return e->id;
}

/**
 * dl_module_register_forward_pre_hook:
 * @self: a #DlModule
 * @hook: (scope notified) (closure user_data) (destroy destroy): the hook
 * @user_data: data for @hook
 * @destroy: (nullable): frees @user_data when the hook is removed or the
 *   module finalized
 *
 * Registers a hook that dl_module_forward() and dl_module_forward_many()
 * run, in registration order, before the module's forward, as torch's
 * `register_forward_pre_hook`. A hook that returns an array replaces the
 * inputs with it; one that fails stops the forward with its error.
 *
 * Returns: the hook's id (never 0), for dl_module_remove_hook()
 *
 * Since: 0.1
 */
guint
dl_module_register_forward_pre_hook (DlModule *self,
                                     DlModuleForwardPreHook hook,
                                     gpointer user_data,
                                     GDestroyNotify destroy)
{
  g_return_val_if_fail (DL_IS_MODULE (self), 0);
  g_return_val_if_fail (hook != NULL, 0);
  return add_hook (self, FALSE, hook, user_data, destroy);
}

/**
 * dl_module_register_forward_hook:
 * @self: a #DlModule
 * @hook: (scope notified) (closure user_data) (destroy destroy): the hook
 * @user_data: data for @hook
 * @destroy: (nullable): frees @user_data when the hook is removed or the
 *   module finalized
 *
 * Registers a hook that dl_module_forward() and dl_module_forward_many()
 * run, in registration order, after the module's forward, on its inputs
 * and outputs, as torch's `register_forward_hook`. A hook that returns an
 * array replaces the outputs with it.
 *
 * Returns: the hook's id (never 0), for dl_module_remove_hook()
 *
 * Since: 0.1
 */
guint
dl_module_register_forward_hook (DlModule *self,
                                 DlModuleForwardHook hook,
                                 gpointer user_data,
                                 GDestroyNotify destroy)
{
  g_return_val_if_fail (DL_IS_MODULE (self), 0);
  g_return_val_if_fail (hook != NULL, 0);
  return add_hook (self, TRUE, hook, user_data, destroy);
}

/**
 * dl_module_remove_hook:
 * @self: a #DlModule
 * @id: what a dl_module_register_forward_hook() or
 *   dl_module_register_forward_pre_hook() of @self returned
 *
 * Removes the hook (its destroy notify is called once no running forward
 * uses it any more). Removing it again does nothing, as a torch
 * RemovableHandle's remove().
 *
 * Returns: whether @self had a hook @id
 *
 * Since: 0.1
 */
gboolean
dl_module_remove_hook (DlModule *self, guint id)
{
  DlModulePrivate *priv;

  g_return_val_if_fail (DL_IS_MODULE (self), FALSE);
  priv = dl_module_priv (self);
  if (priv->hooks == NULL)
    return FALSE;
  for (guint i = 0; i < priv->hooks->len; i++)
    {
      HookEntry *e = g_ptr_array_index (priv->hooks, i);

      if (e->id == id)
        {
          e->func = NULL; /* a running forward's snapshot skips it */
          g_ptr_array_remove_index (priv->hooks, i);
          return TRUE;
        }
    }
  return FALSE;
}

/**
 * dl_module_get_n_hooks:
 * @self: a #DlModule
 *
 * Gives the number of forward hooks and forward pre-hooks registered on the
 * module and not yet removed (dl_module_register_forward_hook(),
 * dl_module_register_forward_pre_hook()).
 *
 * Returns: how many forward hooks and pre-hooks @self has
 *
 * Since: 0.1
 */
guint
dl_module_get_n_hooks (DlModule *self)
{
  DlModulePrivate *priv;

  g_return_val_if_fail (DL_IS_MODULE (self), 0);
  priv = dl_module_priv (self);
  return priv->hooks ? priv->hooks->len : 0;
}

/* ---- code that must stay on the binding's thread ------------------------ */

gchar *
dl_module_find_binding_code (DlModule *self, const gchar *path)
{
  DlModuleClass *klass = DL_MODULE_GET_CLASS (self);
  DlModulePrivate *priv = dl_module_priv (self);
  const gchar *what = NULL;

  if (!dl_is_native_code ((gpointer)klass->forward))
    what = "forward";
  else if (!dl_is_native_code ((gpointer)klass->forward_many))
    what = "forward_many";
  for (guint i = 0; what == NULL && priv->hooks && i < priv->hooks->len; i++)
    {
      HookEntry *e = g_ptr_array_index (priv->hooks, i);

      if (!dl_is_native_code (e->func))
        what = e->post ? "a forward hook" : "a forward pre-hook";
    }
  if (what)
    return g_strdup_printf ("'%s' (%s): %s", path, G_OBJECT_TYPE_NAME (self), what);
  for (guint i = 0; i < priv->children->len; i++)
    {
      DlModule *child = g_ptr_array_index (priv->children, i);
      const gchar *name = g_ptr_array_index (priv->child_names, i);
      g_autofree gchar *child_path = NULL;
      gchar *found;

      if (child == NULL)
        continue;
      child_path = g_strconcat (path, ".", name, NULL);
      found = dl_module_find_binding_code (child, child_path);
      if (found)
        return found;
    }
  return NULL;
}
