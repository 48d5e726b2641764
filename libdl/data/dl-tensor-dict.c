/* dl-tensor-dict.c: DlTensorDict, an ordered map of names to tensors with
 * string metadata beside it.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "data/dl-tensor-dict.h"

/**
 * DlTensorDict:
 *
 * Named tensors, in the order they were inserted, and string metadata:
 * a module's state dict (dl_module_state_dict()) and the contents of a
 * safetensors checkpoint (dl_safetensors_load(), dl_safetensors_save()).
 *
 * A final object rather than a #GHashTable, so that Python, GJS and Vala
 * all see the same ordered names and own the tensors the same way.
 *
 * ```c
 * g_autoptr (DlTensorDict) dict = dl_tensor_dict_new ();
 * dl_tensor_dict_insert (dict, "weight", weight);
 * dl_tensor_dict_set_metadata (dict, "epoch", "3");
 * if (!dl_safetensors_save (dict, file, NULL, &error))
 *   ...
 * ```
 *
 * Since: 0.1
 */
struct _DlTensorDict
{
  GObject parent_instance;

  GPtrArray *names;     /* (owned) gchar*, insertion order */
  GHashTable *tensors;  /* (owned) name (borrowed from names) -> DlTensor (owned) */
  GHashTable *metadata; /* (owned) gchar* -> gchar* */
};

/**
 * DlTensorDictClass:
 * @parent_class: the class of GObject
 *
 * The class structure of #DlTensorDict. The type is final: its class adds no
 * virtual method to that of GObject, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlTensorDict, dl_tensor_dict, G_TYPE_OBJECT)

static void
dl_tensor_dict_finalize (GObject *object)
{
  DlTensorDict *self = DL_TENSOR_DICT (object);

  g_hash_table_unref (self->tensors);
  g_ptr_array_unref (self->names);
  g_hash_table_unref (self->metadata);
  G_OBJECT_CLASS (dl_tensor_dict_parent_class)->finalize (object);
}

static void
dl_tensor_dict_class_init (DlTensorDictClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = dl_tensor_dict_finalize;
}

static void
dl_tensor_dict_init (DlTensorDict *self)
{
  self->names = g_ptr_array_new_with_free_func (g_free);
  self->tensors = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_object_unref);
  self->metadata = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

/**
 * dl_tensor_dict_new:
 *
 * Makes an empty dict of named tensors: the state dicts of modules and the
 * contents of checkpoint files (dl_safetensors_load()), with string metadata
 * beside the tensors.
 *
 * Returns: (transfer full): a new, empty dict
 *
 * Since: 0.1
 */
DlTensorDict *
dl_tensor_dict_new (void)
{
  return g_object_new (DL_TYPE_TENSOR_DICT, NULL);
}

/**
 * dl_tensor_dict_insert:
 * @self: a #DlTensorDict
 * @name: the tensor's name
 * @tensor: the tensor; the dict keeps a reference, not a copy
 *
 * Adds @tensor under @name, or replaces the tensor of that name (which
 * keeps its place in the order).
 *
 * Since: 0.1
 */
void
dl_tensor_dict_insert (DlTensorDict *self, const gchar *name, DlTensor *tensor)
{
  gchar *key;

  g_return_if_fail (DL_IS_TENSOR_DICT (self));
  g_return_if_fail (name != NULL);
  g_return_if_fail (DL_IS_TENSOR (tensor));
  if (g_hash_table_lookup_extended (self->tensors, name, (gpointer *)&key, NULL))
    {
      g_hash_table_insert (self->tensors, key, g_object_ref (tensor));
      return;
    }
  key = g_strdup (name);
  g_ptr_array_add (self->names, key);
  g_hash_table_insert (self->tensors, key, g_object_ref (tensor));
}

/**
 * dl_tensor_dict_lookup:
 * @self: a #DlTensorDict
 * @name: a tensor name
 *
 * Gives the tensor stored under @name, as `state_dict[name]`, or %NULL when
 * there is none.
 *
 * Returns: (transfer none) (nullable): the tensor of that name, or %NULL
 *
 * Since: 0.1
 */
DlTensor *
dl_tensor_dict_lookup (DlTensorDict *self, const gchar *name)
{
  g_return_val_if_fail (DL_IS_TENSOR_DICT (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);
  return g_hash_table_lookup (self->tensors, name);
}

/**
 * dl_tensor_dict_contains:
 * @self: a #DlTensorDict
 * @name: a tensor name
 *
 * Says whether the dict holds a tensor named @name, as `name in state_dict`.
 *
 * Returns: whether the dict holds a tensor of that name
 *
 * Since: 0.1
 */
gboolean
dl_tensor_dict_contains (DlTensorDict *self, const gchar *name)
{
  g_return_val_if_fail (DL_IS_TENSOR_DICT (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);
  return g_hash_table_contains (self->tensors, name);
}

/**
 * dl_tensor_dict_remove:
 * @self: a #DlTensorDict
 * @name: a tensor name
 *
 * Drops the tensor of that name.
 *
 * Returns: whether there was one
 *
 * Since: 0.1
 */
gboolean
dl_tensor_dict_remove (DlTensorDict *self, const gchar *name)
{
  gchar *key;

  g_return_val_if_fail (DL_IS_TENSOR_DICT (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);
  if (!g_hash_table_lookup_extended (self->tensors, name, (gpointer *)&key, NULL))
    return FALSE;
  g_hash_table_remove (self->tensors, name);
  g_ptr_array_remove (self->names, key);
  return TRUE;
}

/**
 * dl_tensor_dict_get_size:
 * @self: a #DlTensorDict
 *
 * Gives the number of tensors in the dict, as `len ()` of a state dict;
 * metadata does not count.
 *
 * Returns: the number of tensors
 *
 * Since: 0.1
 */
guint
dl_tensor_dict_get_size (DlTensorDict *self)
{
  g_return_val_if_fail (DL_IS_TENSOR_DICT (self), 0);
  return self->names->len;
}

/**
 * dl_tensor_dict_get_names:
 * @self: a #DlTensorDict
 *
 * Gives the names of the tensors in the order they were first inserted:
 * the modules' order for dl_module_state_dict(), sorted for
 * dl_safetensors_load(). Free the array with g_strfreev().
 *
 * Returns: (transfer full): the tensor names, in insertion order
 *
 * Since: 0.1
 */
GStrv
dl_tensor_dict_get_names (DlTensorDict *self)
{
  GStrv out;

  g_return_val_if_fail (DL_IS_TENSOR_DICT (self), NULL);
  out = g_new (gchar *, self->names->len + 1);
  for (guint i = 0; i < self->names->len; i++)
    out[i] = g_strdup (g_ptr_array_index (self->names, i));
  out[self->names->len] = NULL;
  return out;
}

/**
 * dl_tensor_dict_set_metadata:
 * @self: a #DlTensorDict
 * @key: the key
 * @value: (nullable): the value, or %NULL to remove the key
 *
 * Sets a metadata string (a safetensors file keeps them in its
 * `__metadata__` object).
 *
 * Since: 0.1
 */
void
dl_tensor_dict_set_metadata (DlTensorDict *self, const gchar *key, const gchar *value)
{
  g_return_if_fail (DL_IS_TENSOR_DICT (self));
  g_return_if_fail (key != NULL);
  if (value == NULL)
    g_hash_table_remove (self->metadata, key);
  else
    g_hash_table_insert (self->metadata, g_strdup (key), g_strdup (value));
}

/**
 * dl_tensor_dict_get_metadata:
 * @self: a #DlTensorDict
 * @key: the key
 *
 * Gives the metadata string stored under @key (the `__metadata__` of a
 * safetensors file), or %NULL when there is none.
 *
 * Returns: (nullable): the metadata string of @key, or %NULL
 *
 * Since: 0.1
 */
const gchar *
dl_tensor_dict_get_metadata (DlTensorDict *self, const gchar *key)
{
  g_return_val_if_fail (DL_IS_TENSOR_DICT (self), NULL);
  g_return_val_if_fail (key != NULL, NULL);
  return g_hash_table_lookup (self->metadata, key);
}

static int
compare_strings (const void *a, const void *b)
{
  return strcmp (*(char *const *)a, *(char *const *)b);
}

/**
 * dl_tensor_dict_get_metadata_keys:
 * @self: a #DlTensorDict
 *
 * Gives the keys of the metadata, sorted. Free the array with g_strfreev().
 *
 * Returns: (transfer full): the metadata keys, sorted
 *
 * Since: 0.1
 */
GStrv
dl_tensor_dict_get_metadata_keys (DlTensorDict *self)
{
  GStrv keys;

  g_return_val_if_fail (DL_IS_TENSOR_DICT (self), NULL);
  keys = (GStrv)g_hash_table_get_keys_as_array (self->metadata, NULL);
  for (gchar **k = keys; *k; k++)
    *k = g_strdup (*k);
  qsort (keys, g_strv_length (keys), sizeof (gchar *), compare_strings);
  return keys;
}
