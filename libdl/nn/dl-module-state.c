/* dl-module-state.c: DlModule's state dicts: the persistent tensors by
 * dotted name, and loading them back with torch's key checks.
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
#include "ops/dl-ops-creation.h"
#include "ops/dl-ops-pointwise.h"
#include "ops/dl-ops-shape.h"
#include "autograd/dl-autograd.h"

/* Every (dotted name, parameter) pair, own before children's; unlike
 * collect_params, a tensor registered under two names is listed under
 * both, as PyTorch's state_dict lists tied weights. */
static void
collect_state (DlModule *self, const gchar *prefix, GPtrArray *names, GPtrArray *params)
{
  DlModulePrivate *priv = dl_module_priv (self);

  for (guint i = 0; i < priv->params->len; i++)
    {
      DlTensor *p = g_ptr_array_index (priv->params, i);

      if (p == NULL)
        continue;
      g_ptr_array_add (names, g_strconcat (prefix, g_ptr_array_index (priv->param_names, i), NULL));
      g_ptr_array_add (params, p);
    }
  for (guint i = 0; i < priv->buffers->len; i++)
    {
      DlTensor *b = g_ptr_array_index (priv->buffers, i);

      if (b == NULL || !g_array_index (priv->buffer_persistent, gboolean, i))
        continue;
      g_ptr_array_add (names,
                       g_strconcat (prefix, g_ptr_array_index (priv->buffer_names, i), NULL));
      g_ptr_array_add (params, b);
    }
  for (guint i = 0; i < priv->children->len; i++)
    {
      g_autofree gchar *sub
          = g_strconcat (prefix, g_ptr_array_index (priv->child_names, i), ".", NULL);
      collect_state (g_ptr_array_index (priv->children, i), sub, names, params);
    }
}

/**
 * dl_module_state_dict:
 * @self: a #DlModule
 *
 * The module's state by dotted name ("fc1.weight"), as torch's
 * `state_dict()`: each parameter detached (sharing its memory, not
 * requiring grad), in the order of dl_module_parameters(); a parameter
 * registered under two names appears under both. Save it with
 * dl_safetensors_save(), or use dl_module_save_state().
 *
 * Returns: (transfer full): the state
 *
 * Since: 0.1
 */
DlTensorDict *
dl_module_state_dict (DlModule *self)
{
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) params = g_ptr_array_new ();
  DlTensorDict *state;

  g_return_val_if_fail (DL_IS_MODULE (self), NULL);
  state = dl_tensor_dict_new ();
  collect_state (self, "", names, params);
  for (guint i = 0; i < names->len; i++)
    {
      g_autoptr (DlTensor) t = dl_tensor_detach (g_ptr_array_index (params, i));

      dl_tensor_dict_insert (state, g_ptr_array_index (names, i), t);
    }
  return state;
}

static GStrv
steal_strv (GPtrArray *array)
{
  g_ptr_array_add (array, NULL);
  return (GStrv)g_ptr_array_free (array, FALSE);
}

static void
append_keys (GString *message, const gchar *what, GPtrArray *keys)
{
  if (keys->len == 0)
    return;
  g_string_append_printf (message, "\n\t%s key(s) in state_dict: ", what);
  for (guint i = 0; i < keys->len; i++)
    g_string_append_printf (message, "%s\"%s\"", i ? ", " : "",
                            (const gchar *)g_ptr_array_index (keys, i));
  g_string_append (message, ". ");
}

/**
 * dl_module_load_state_dict:
 * @self: a #DlModule
 * @state: the state, by dotted name, as dl_module_state_dict() gives it
 * @strict: whether the names of @state must be exactly the module's
 * @missing_keys: (out) (optional) (transfer full): the module's names that
 *   @state lacks
 * @unexpected_keys: (out) (optional) (transfer full): the names of @state
 *   the module has no parameter for
 * @error: return location for a #GError
 *
 * Copies the tensors of @state into the module's parameters, as torch's
 * `load_state_dict()`; values are converted to each parameter's dtype and
 * the copy is not recorded by autograd. Everything is checked before
 * anything is copied: a shape that differs from the parameter's, or with
 * @strict a missing or unexpected name, is a %DL_ERROR_ARGUMENT naming
 * them all, and the module is left as it was.
 *
 * Returns: %TRUE on success, %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
dl_module_load_state_dict (DlModule *self,
                           DlTensorDict *state,
                           gboolean strict,
                           GStrv *missing_keys,
                           GStrv *unexpected_keys,
                           GError **error)
{
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) params = g_ptr_array_new ();
  g_autoptr (GPtrArray) missing = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) unexpected = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GHashTable) known = g_hash_table_new (g_str_hash, g_str_equal);
  g_auto (GStrv) state_names = NULL;
  g_autoptr (GString) mismatch = g_string_new (NULL);
  gboolean was_enabled, ok = TRUE;

  g_return_val_if_fail (DL_IS_MODULE (self), FALSE);
  g_return_val_if_fail (DL_IS_TENSOR_DICT (state), FALSE);
  collect_state (self, "", names, params);
  for (guint i = 0; i < names->len; i++)
    {
      const gchar *name = g_ptr_array_index (names, i);
      DlTensor *p = g_ptr_array_index (params, i), *src;
      gsize np, ns;
      const gint64 *sp, *ss;

      g_hash_table_add (known, (gpointer)name);
      src = dl_tensor_dict_lookup (state, name);
      if (src == NULL)
        {
          g_ptr_array_add (missing, g_strdup (name));
          continue;
        }
      sp = dl_tensor_get_shape (p, &np);
      ss = dl_tensor_get_shape (src, &ns);
      if (np != ns || (np && memcmp (sp, ss, np * sizeof (gint64)) != 0))
        {
          g_autofree gchar *a = dl_shape_to_string (ss, ns);
          g_autofree gchar *b = dl_shape_to_string (sp, np);

          g_string_append_printf (mismatch,
                                  "\n\tsize mismatch for %s: copying a param with shape %s "
                                  "from checkpoint, the shape in current model is %s.",
                                  name, a, b);
        }
    }
  state_names = dl_tensor_dict_get_names (state);
  for (gchar **n = state_names; *n; n++)
    if (!g_hash_table_contains (known, *n))
      g_ptr_array_add (unexpected, g_strdup (*n));

  if (mismatch->len || (strict && (missing->len || unexpected->len)))
    {
      g_autoptr (GString) message = g_string_new (NULL);

      g_string_append_printf (message,
                              "Error(s) in loading state_dict for %s:", G_OBJECT_TYPE_NAME (self));
      if (strict)
        {
          append_keys (message, "Missing", missing);
          append_keys (message, "Unexpected", unexpected);
        }
      g_string_append (message, mismatch->str);
      g_set_error_literal (error, DL_ERROR, DL_ERROR_ARGUMENT, message->str);
      return FALSE;
    }

  was_enabled = dl_set_grad_enabled (FALSE);
  for (guint i = 0; i < names->len && ok; i++)
    {
      DlTensor *src = dl_tensor_dict_lookup (state, g_ptr_array_index (names, i));

      if (src != NULL && src != g_ptr_array_index (params, i))
        ok = dl_tensor_copy_ (g_ptr_array_index (params, i), src, error) != NULL;
    }
  dl_set_grad_enabled (was_enabled);
  if (!ok)
    return FALSE;
  if (missing_keys)
    *missing_keys = steal_strv (g_steal_pointer (&missing));
  if (unexpected_keys)
    *unexpected_keys = steal_strv (g_steal_pointer (&unexpected));
  return TRUE;
}
