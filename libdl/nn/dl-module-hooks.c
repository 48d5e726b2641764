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

/* ---- parametrizations ------------------------------------------------------ */

void
dl_module_parametrized_entry_free (gpointer p)
{
  ParametrizedEntry *e = p;

  g_free (e->name);
  g_clear_object (&e->source);
  g_clear_object (&e->value);
  g_free (e);
}

static gint
find_parametrized (DlModulePrivate *priv, const gchar *name)
{
  if (priv->parametrized == NULL || name == NULL)
    return -1;
  for (guint i = 0; i < priv->parametrized->len; i++)
    {
      ParametrizedEntry *e = g_ptr_array_index (priv->parametrized, i);

      if (g_str_equal (e->name, name))
        return i;
    }
  return -1;
}

DlTensor *
dl_module_parametrized_value (DlModule *self, const gchar *name)
{
  DlModulePrivate *priv = dl_module_priv (self);
  gint i;

  if (G_LIKELY (priv->parametrized_depth == 0))
    return NULL;
  i = find_parametrized (priv, name);

  return i >= 0 ? ((ParametrizedEntry *)g_ptr_array_index (priv->parametrized, i))->value : NULL;
}

/**
 * dl_module_register_parametrization:
 * @self: a #DlModule
 * @name: the name under which the module's forward reads the tensor (as
 *   "weight")
 * @parametrization: the module that computes it: the one output of its
 *   dl_module_forward_many() on no inputs
 * @error: return location for a #GError
 *
 * Makes the tensor @name of @self a computed one, as torch's
 * `torch.nn.utils.parametrize.register_parametrization` does: each
 * forward of @self (dl_module_forward(), dl_module_forward_many(), or
 * between dl_module_enter_parametrized() and
 * dl_module_leave_parametrized()) first runs @parametrization, and
 * dl_module_get_parameter() and dl_module_get_buffer() give its output
 * under @name until the forward returns. The output is an ordinary
 * result of autograd, so the gradients of the forward reach the
 * parameters @parametrization computes it from (in torch's layout, a
 * child "parametrizations.weight" that holds "original").
 *
 * torch's layout removes the original parameter @name from @self first
 * (dl_module_remove()) and gives it to @parametrization. When @name is
 * still a parameter or buffer of @self, the computed tensor takes its
 * place during the forwards only, and the member stays what
 * dl_module_parameters() and the state dict give (torch's
 * `functional_call` swaps tensors in so for one call). A second
 * registration under @name replaces the first. @self keeps a reference
 * to @parametrization, which is not made a child (register it as one,
 * or as a descendant, for its parameters to be @self's).
 *
 * Returns: %TRUE, or %FALSE with @error set (%DL_ERROR_ARGUMENT) when
 *   @parametrization is @self
 *
 * Since: 0.1
 */
gboolean
dl_module_register_parametrization (DlModule *self,
                                    const gchar *name,
                                    DlModule *parametrization,
                                    GError **error)
{
  DlModulePrivate *priv;
  ParametrizedEntry *e;
  gint i;

  g_return_val_if_fail (DL_IS_MODULE (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);
  g_return_val_if_fail (DL_IS_MODULE (parametrization), FALSE);
  priv = dl_module_priv (self);
  if (parametrization == self)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "register_parametrization: %s cannot compute its own tensor '%s'",
                   G_OBJECT_TYPE_NAME (self), name);
      return FALSE;
    }
  if (priv->parametrized == NULL)
    priv->parametrized = g_ptr_array_new_with_free_func (dl_module_parametrized_entry_free);
  if ((i = find_parametrized (priv, name)) >= 0)
    {
      e = g_ptr_array_index (priv->parametrized, i);
      g_set_object (&e->source, parametrization);
      return TRUE;
    }
  e = g_new0 (ParametrizedEntry, 1);
  e->name = g_strdup (name);
  e->source = g_object_ref (parametrization);
  g_ptr_array_add (priv->parametrized, e);
  return TRUE;
}

/**
 * dl_module_remove_parametrization:
 * @self: a #DlModule
 * @name: the name of a tensor dl_module_register_parametrization() made
 *   computed
 *
 * Makes @name a plain name again: the forwards of @self stop computing
 * it (register the tensor it should read under @name afterwards).
 *
 * Returns: whether @name was a parametrized tensor of @self
 *
 * Since: 0.1
 */
gboolean
dl_module_remove_parametrization (DlModule *self, const gchar *name)
{
  DlModulePrivate *priv;
  gint i;

  g_return_val_if_fail (DL_IS_MODULE (self), FALSE);
  priv = dl_module_priv (self);
  if ((i = find_parametrized (priv, name)) < 0)
    return FALSE;
  g_ptr_array_remove_index (priv->parametrized, i);
  return TRUE;
}

/**
 * dl_module_get_parametrization:
 * @self: a #DlModule
 * @name: a name
 *
 * Gives the module that computes the tensor @name of @self, as
 * dl_module_register_parametrization() set it.
 *
 * Returns: (transfer none) (nullable): the parametrization of @name, or
 *   %NULL when @name is not a parametrized tensor of @self
 *
 * Since: 0.1
 */
DlModule *
dl_module_get_parametrization (DlModule *self, const gchar *name)
{
  DlModulePrivate *priv;
  gint i;

  g_return_val_if_fail (DL_IS_MODULE (self), NULL);
  priv = dl_module_priv (self);
  if ((i = find_parametrized (priv, name)) < 0)
    return NULL;
  return ((ParametrizedEntry *)g_ptr_array_index (priv->parametrized, i))->source;
}

/**
 * dl_module_enter_parametrized:
 * @self: a #DlModule
 * @error: return location for a #GError
 *
 * Computes each parametrized tensor of @self (see
 * dl_module_register_parametrization()) for a forward, so that
 * dl_module_get_parameter() gives them, until the matching
 * dl_module_leave_parametrized(). dl_module_forward() and
 * dl_module_forward_many() do this themselves; a binding that runs a
 * class's forward virtual method directly (a subclass chaining up to its
 * parent's forward) calls the pair around it. Calls nest: only the
 * outermost computes and drops the values. A module without
 * parametrizations does nothing.
 *
 * Returns: %TRUE, or %FALSE with @error set when a parametrization failed
 *   or did not give exactly one tensor (then nothing is entered: do not
 *   call dl_module_leave_parametrized())
 *
 * Since: 0.1
 */
gboolean
dl_module_enter_parametrized (DlModule *self, GError **error)
{
  DlModulePrivate *priv;

  g_return_val_if_fail (DL_IS_MODULE (self), FALSE);
  priv = dl_module_priv (self);
  if (priv->parametrized == NULL || priv->parametrized->len == 0)
    return TRUE;
  if (priv->parametrized_depth++ > 0)
    return TRUE;
  for (guint i = 0; i < priv->parametrized->len; i++)
    {
      ParametrizedEntry *e = g_ptr_array_index (priv->parametrized, i);
      g_autoptr (GPtrArray) none = g_ptr_array_new ();
      g_autoptr (GPtrArray) out = NULL;
      g_autoptr (DlModule) source = g_object_ref (e->source);

      out = dl_module_forward_many (source, none, error);
      if (out != NULL && (out->len != 1 || g_ptr_array_index (out, 0) == NULL))
        {
          g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                       "forward: the parametrization %s of '%s' of %s gave %u outputs, not one "
                       "tensor",
                       G_OBJECT_TYPE_NAME (source), e->name, G_OBJECT_TYPE_NAME (self), out->len);
          g_clear_pointer (&out, g_ptr_array_unref);
        }
      if (out == NULL)
        {
          dl_module_leave_parametrized (self);
          return FALSE;
        }
      /* the entries may have changed while a binding's code ran */
      if (i < priv->parametrized->len && g_ptr_array_index (priv->parametrized, i) == e)
        g_set_object (&e->value, g_ptr_array_index (out, 0));
    }
  return TRUE;
}

/**
 * dl_module_leave_parametrized:
 * @self: a #DlModule
 *
 * Ends what dl_module_enter_parametrized() began: the outermost call
 * drops the computed tensors (the outputs of the forward keep what their
 * gradients need).
 *
 * Since: 0.1
 */
void
dl_module_leave_parametrized (DlModule *self)
{
  DlModulePrivate *priv;

  g_return_if_fail (DL_IS_MODULE (self));
  priv = dl_module_priv (self);
  if (priv->parametrized == NULL || priv->parametrized_depth == 0)
    return;
  if (--priv->parametrized_depth > 0)
    return;
  for (guint i = 0; i < priv->parametrized->len; i++)
    g_clear_object (&((ParametrizedEntry *)g_ptr_array_index (priv->parametrized, i))->value);
}
