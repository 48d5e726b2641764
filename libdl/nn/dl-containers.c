/* dl-containers.c: DlModuleList and DlModuleDict, modules that hold
 * children for another module's forward, and DlUnflatten.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-containers.h"
#include "dl-module-private.h"
#include "dl-error.h"
#include "dl-tensor-private.h"
#include "ops/dl-ops-shape.h"

/**
 * DlModuleList:
 *
 * A list of modules, as torch.nn.ModuleList: its children are named "0",
 * "1", ... in order, so their parameters are part of the parent's; it has
 * no forward of its own. Inserting or removing renumbers the children
 * after that position.
 *
 * Since: 0.1
 */
G_DEFINE_TYPE (DlModuleList, dl_module_list, DL_TYPE_MODULE)

static void
dl_module_list_class_init (DlModuleListClass *klass)
{
}

static void
dl_module_list_init (DlModuleList *self)
{
}

/**
 * dl_module_list_new:
 * @modules: (nullable) (element-type DlModule): the modules, or %NULL for
 *   an empty list
 *
 * Makes a list of modules, as `torch.nn.ModuleList (modules)`: the modules
 * become children named "0", "1", ..., so their parameters are the list's. A
 * #DlModuleList has no forward of its own; a parent module calls its
 * entries.
 *
 * Returns: (transfer full): a new #DlModuleList holding @modules
 *
 * Since: 0.1
 */
DlModuleList *
dl_module_list_new (GPtrArray *modules)
{
  DlModuleList *self = g_object_new (DL_TYPE_MODULE_LIST, NULL);

  for (guint i = 0; modules && i < modules->len; i++)
    if (g_ptr_array_index (modules, i) != NULL)
      dl_module_list_append (self, g_ptr_array_index (modules, i));
  return self;
}

/**
 * dl_module_list_get_length:
 * @self: a #DlModuleList
 *
 * Gives the number of modules in the list, as `len ()` of a
 * `torch.nn.ModuleList`.
 *
 * Returns: the number of modules
 *
 * Since: 0.1
 */
guint
dl_module_list_get_length (DlModuleList *self)
{
  g_auto (GStrv) names = NULL;

  g_return_val_if_fail (DL_IS_MODULE_LIST (self), 0);
  names = dl_module_children_names (DL_MODULE (self));
  return g_strv_length (names);
}

/**
 * dl_module_list_append:
 * @self: a #DlModuleList
 * @module: the module to add at the end
 *
 * Adds @module at the end of the list as its next child, as
 * `torch.nn.ModuleList.append ()`. The list takes a reference.
 *
 * Since: 0.1
 */
void
dl_module_list_append (DlModuleList *self, DlModule *module)
{
  g_autofree gchar *name = NULL;

  g_return_if_fail (DL_IS_MODULE_LIST (self));
  g_return_if_fail (DL_IS_MODULE (module));
  name = g_strdup_printf ("%u", dl_module_list_get_length (self));
  dl_module_register_module (DL_MODULE (self), name, module);
}

static gboolean
normalize_index (const gchar *op, gint64 *index, guint n, GError **error)
{
  gint64 i = *index < 0 ? *index + n : *index;

  if (i < 0 || i >= (gint64)n)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_INDEX,
                   "%s: index %" G_GINT64_FORMAT " is out of range for %u modules", op, *index, n);
      return FALSE;
    }
  *index = i;
  return TRUE;
}

/* re-registers @modules as the children "0", "1", ... of @self */
static void
renumber (DlModule *self, GPtrArray *modules)
{
  g_auto (GStrv) names = dl_module_children_names (self);

  for (gchar **n = names; *n; n++)
    dl_module_remove (self, *n);
  for (guint i = 0; i < modules->len; i++)
    {
      g_autofree gchar *name = g_strdup_printf ("%u", i);

      dl_module_register_module (self, name, g_ptr_array_index (modules, i));
    }
}

DlModule *
dl_module_child_at (DlModule *self, const gchar *op, gint64 index, GError **error)
{
  g_autoptr (GPtrArray) children = dl_module_children (self);

  if (!normalize_index (op, &index, children->len, error))
    return NULL;
  /* the module itself holds the child; the array's reference goes */
  return g_ptr_array_index (children, index);
}

gboolean
dl_module_insert_child (DlModule *self,
                        const gchar *op,
                        gint64 index,
                        DlModule *module,
                        GError **error)
{
  g_autoptr (GPtrArray) children = dl_module_children (self);
  gint64 i = index < 0 ? index + children->len : index;

  if (i < 0 || i > (gint64)children->len)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_INDEX,
                   "%s: index %" G_GINT64_FORMAT " is out of range for %u modules", op, index,
                   children->len);
      return FALSE;
    }
  g_ptr_array_insert (children, i, g_object_ref (module));
  renumber (self, children);
  return TRUE;
}

gboolean
dl_module_remove_child (DlModule *self, const gchar *op, gint64 index, GError **error)
{
  g_autoptr (GPtrArray) children = dl_module_children (self);

  if (!normalize_index (op, &index, children->len, error))
    return FALSE;
  g_ptr_array_remove_index (children, index);
  renumber (self, children);
  return TRUE;
}

/**
 * dl_module_list_get:
 * @self: a #DlModuleList
 * @index: the position; negative counts from the end
 * @error: return location for a #GError
 *
 * Gives the module at @index, as `module_list[index]`; -1 is the last.
 *
 * Fails with %DL_ERROR_INDEX when there is no module at @index.
 *
 * Returns: (transfer none): the module at @index, or %NULL with @error set
 *   (%DL_ERROR_INDEX) when there is none
 *
 * Since: 0.1
 */
DlModule *
dl_module_list_get (DlModuleList *self, gint64 index, GError **error)
{
  g_return_val_if_fail (DL_IS_MODULE_LIST (self), NULL);
  return dl_module_child_at (DL_MODULE (self), "ModuleList.get", index, error);
}

/**
 * dl_module_list_set:
 * @self: a #DlModuleList
 * @index: the position; negative counts from the end
 * @module: the module to put there
 * @error: return location for a #GError
 *
 * Replaces the module at @index with @module, as `module_list[index] =
 * module`; the child keeps its name.
 *
 * Fails with %DL_ERROR_INDEX when there is no module at @index.
 *
 * Returns: %TRUE on success, %FALSE with @error set (%DL_ERROR_INDEX)
 *
 * Since: 0.1
 */
gboolean
dl_module_list_set (DlModuleList *self, gint64 index, DlModule *module, GError **error)
{
  g_autofree gchar *name = NULL;

  g_return_val_if_fail (DL_IS_MODULE_LIST (self), FALSE);
  g_return_val_if_fail (DL_IS_MODULE (module), FALSE);
  if (!normalize_index ("ModuleList.set", &index, dl_module_list_get_length (self), error))
    return FALSE;
  name = g_strdup_printf ("%" G_GINT64_FORMAT, index);
  dl_module_register_module (DL_MODULE (self), name, module);
  return TRUE;
}

/**
 * dl_module_list_insert:
 * @self: a #DlModuleList
 * @index: the position @module takes; negative counts from the end, and
 *   one past the end appends, as Python's list.insert
 * @module: the module
 * @error: return location for a #GError
 *
 * Inserts @module before position @index, as `torch.nn.ModuleList.insert
 * ()`; the modules after it move up one and are renamed to their new
 * positions.
 *
 * Fails with %DL_ERROR_INDEX for a position outside the list.
 *
 * Returns: %TRUE on success, %FALSE with @error set (%DL_ERROR_INDEX for
 *   a position outside the list)
 *
 * Since: 0.1
 */
gboolean
dl_module_list_insert (DlModuleList *self, gint64 index, DlModule *module, GError **error)
{
  g_return_val_if_fail (DL_IS_MODULE_LIST (self), FALSE);
  g_return_val_if_fail (DL_IS_MODULE (module), FALSE);
  return dl_module_insert_child (DL_MODULE (self), "ModuleList.insert", index, module, error);
}

/**
 * dl_module_list_remove:
 * @self: a #DlModuleList
 * @index: the position; negative counts from the end
 * @error: return location for a #GError
 *
 * Removes the module at @index (`del modules[index]`); those after it
 * move up one place.
 *
 * Returns: %TRUE on success, %FALSE with @error set (%DL_ERROR_INDEX)
 *
 * Since: 0.1
 */
gboolean
dl_module_list_remove (DlModuleList *self, gint64 index, GError **error)
{
  g_return_val_if_fail (DL_IS_MODULE_LIST (self), FALSE);
  return dl_module_remove_child (DL_MODULE (self), "ModuleList.remove", index, error);
}

/**
 * DlModuleDict:
 *
 * Modules by name, as torch.nn.ModuleDict: its children, in insertion
 * order; it has no forward of its own.
 *
 * Since: 0.1
 */
G_DEFINE_TYPE (DlModuleDict, dl_module_dict, DL_TYPE_MODULE)

static void
dl_module_dict_class_init (DlModuleDictClass *klass)
{
}

static void
dl_module_dict_init (DlModuleDict *self)
{
}

/**
 * dl_module_dict_new:
 *
 * Makes an empty dict of modules, as `torch.nn.ModuleDict ()`: each module
 * added with dl_module_dict_insert() becomes a child under its key. A
 * #DlModuleDict has no forward of its own.
 *
 * Returns: (transfer full): a new, empty #DlModuleDict
 *
 * Since: 0.1
 */
DlModuleDict *
dl_module_dict_new (void)
{
  return g_object_new (DL_TYPE_MODULE_DICT, NULL);
}

/**
 * dl_module_dict_insert:
 * @self: a #DlModuleDict
 * @key: the name: not empty, without a '.'
 * @module: the module
 * @error: return location for a #GError
 *
 * Adds @module under @key, or replaces the module of that key (which
 * keeps its place), as `modules[key] = module`.
 *
 * Returns: %TRUE on success, %FALSE with @error set (%DL_ERROR_ARGUMENT
 *   for a bad key)
 *
 * Since: 0.1
 */
gboolean
dl_module_dict_insert (DlModuleDict *self, const gchar *key, DlModule *module, GError **error)
{
  g_return_val_if_fail (DL_IS_MODULE_DICT (self), FALSE);
  g_return_val_if_fail (DL_IS_MODULE (module), FALSE);
  return dl_module_add_module (DL_MODULE (self), key, module, error);
}

/**
 * dl_module_dict_lookup:
 * @self: a #DlModuleDict
 * @key: a key
 *
 * Gives the module stored under @key, as `module_dict[key]`, or %NULL when
 * there is none.
 *
 * Returns: (transfer none) (nullable): the module of @key, or %NULL
 *
 * Since: 0.1
 */
DlModule *
dl_module_dict_lookup (DlModuleDict *self, const gchar *key)
{
  g_return_val_if_fail (DL_IS_MODULE_DICT (self), NULL);
  if (key == NULL)
    return NULL;
  return dl_module_get_module (DL_MODULE (self), key);
}

/**
 * dl_module_dict_pop:
 * @self: a #DlModuleDict
 * @key: a key
 * @error: return location for a #GError
 *
 * Removes the module of @key and gives it.
 *
 * Returns: (transfer full): the module, or %NULL with @error set
 *   (%DL_ERROR_INDEX when there is no such key)
 *
 * Since: 0.1
 */
DlModule *
dl_module_dict_pop (DlModuleDict *self, const gchar *key, GError **error)
{
  DlModule *m;

  g_return_val_if_fail (DL_IS_MODULE_DICT (self), NULL);
  m = key ? dl_module_get_module (DL_MODULE (self), key) : NULL;
  if (m == NULL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_INDEX, "ModuleDict.pop: no key '%s'",
                   key ? key : "(null)");
      return NULL;
    }
  g_object_ref (m);
  dl_module_remove (DL_MODULE (self), key);
  return m;
}

/**
 * dl_module_dict_get_keys:
 * @self: a #DlModuleDict
 *
 * Gives the keys of the dict in the order they were first inserted, as
 * `torch.nn.ModuleDict.keys ()`. Free the array with g_strfreev().
 *
 * Returns: (transfer full): the keys, in insertion order
 *
 * Since: 0.1
 */
GStrv
dl_module_dict_get_keys (DlModuleDict *self)
{
  g_return_val_if_fail (DL_IS_MODULE_DICT (self), NULL);
  return dl_module_children_names (DL_MODULE (self));
}

/**
 * dl_module_dict_get_length:
 * @self: a #DlModuleDict
 *
 * Gives the number of modules in the dict, as `len ()` of a
 * `torch.nn.ModuleDict`.
 *
 * Returns: the number of modules
 *
 * Since: 0.1
 */
guint
dl_module_dict_get_length (DlModuleDict *self)
{
  g_auto (GStrv) keys = NULL;

  g_return_val_if_fail (DL_IS_MODULE_DICT (self), 0);
  keys = dl_module_children_names (DL_MODULE (self));
  return g_strv_length (keys);
}

/**
 * dl_module_dict_clear:
 * @self: a #DlModuleDict
 *
 * Removes every module.
 *
 * Since: 0.1
 */
void
dl_module_dict_clear (DlModuleDict *self)
{
  g_auto (GStrv) keys = NULL;

  g_return_if_fail (DL_IS_MODULE_DICT (self));
  keys = dl_module_children_names (DL_MODULE (self));
  for (gchar **k = keys; *k; k++)
    dl_module_remove (DL_MODULE (self), *k);
}

/**
 * DlUnflatten:
 *
 * torch.nn.Unflatten(dim, unflattened_size): splits dimension
 * #DlUnflatten:dim of its input into #DlUnflatten:unflattened-size (a view
 * where the strides allow). A bad size is an error of forward naming the
 * shapes.
 *
 * Since: 0.1
 */
struct _DlUnflatten
{
  DlModule parent_instance;
  gint64 dim;
  GArray *sizes; /* gint64 */
};

/**
 * DlUnflattenClass:
 * @parent_class: the class of #DlModule
 *
 * The class structure of #DlUnflatten. The type is final: its class adds no
 * virtual method to that of #DlModule, and it cannot be subclassed.
 *
 * Since: 0.1
 */
G_DEFINE_FINAL_TYPE (DlUnflatten, dl_unflatten, DL_TYPE_MODULE)

enum
{
  UNFLATTEN_PROP_0,
  UNFLATTEN_PROP_DIM,
  UNFLATTEN_PROP_UNFLATTENED_SIZE,
  UNFLATTEN_N_PROPS
};

static GParamSpec *unflatten_properties[UNFLATTEN_N_PROPS];

static DlTensor *
dl_unflatten_forward (DlModule *module, DlTensor *input, GError **error)
{
  DlUnflatten *self = DL_UNFLATTEN (module);

  return dl_tensor_unflatten (input, self->dim, (const gint64 *)self->sizes->data, self->sizes->len,
                              error);
}

static gchar *
dl_unflatten_extra_repr (DlModule *module)
{
  DlUnflatten *self = DL_UNFLATTEN (module);
  GString *s = g_string_new (NULL);

  g_string_append_printf (s, "dim=%" G_GINT64_FORMAT ", unflattened_size=(", self->dim);
  for (guint i = 0; i < self->sizes->len; i++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i ? ", " : "",
                            g_array_index (self->sizes, gint64, i));
  g_string_append (s, self->sizes->len == 1 ? ",)" : ")");
  return g_string_free (s, FALSE);
}

static void
dl_unflatten_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  DlUnflatten *self = DL_UNFLATTEN (object);

  switch (prop_id)
    {
      case UNFLATTEN_PROP_DIM:
        g_value_set_int64 (value, self->dim);
        break;
      case UNFLATTEN_PROP_UNFLATTENED_SIZE:
        g_value_take_variant (value, g_variant_new_fixed_array (G_VARIANT_TYPE_INT64,
                                                                self->sizes->data, self->sizes->len,
                                                                sizeof (gint64)));
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
dl_unflatten_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  DlUnflatten *self = DL_UNFLATTEN (object);

  switch (prop_id)
    {
      case UNFLATTEN_PROP_DIM:
        self->dim = g_value_get_int64 (value);
        break;
      case UNFLATTEN_PROP_UNFLATTENED_SIZE:
        {
          GVariant *v = g_value_get_variant (value);
          gsize n = 0;
          const gint64 *sizes = v ? g_variant_get_fixed_array (v, &n, sizeof (gint64)) : NULL;

          g_array_set_size (self->sizes, 0);
          if (n)
            g_array_append_vals (self->sizes, sizes, n);
          break;
        }
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
dl_unflatten_constructed (GObject *object)
{
  DlUnflatten *self = DL_UNFLATTEN (object);

  G_OBJECT_CLASS (dl_unflatten_parent_class)->constructed (object);
  if (self->sizes->len == 0)
    dl_module_take_construct_error (
        DL_MODULE (self), g_error_new_literal (DL_ERROR, DL_ERROR_ARGUMENT,
                                               "Unflatten: unflattened-size must be a non-empty "
                                               "array of sizes"));
  for (guint i = 0; i < self->sizes->len; i++)
    if (g_array_index (self->sizes, gint64, i) < -1)
      {
        dl_module_take_construct_error (
            DL_MODULE (self),
            g_error_new (DL_ERROR, DL_ERROR_ARGUMENT,
                         "Unflatten: invalid size %" G_GINT64_FORMAT " in unflattened-size",
                         g_array_index (self->sizes, gint64, i)));
        break;
      }
}

static void
dl_unflatten_finalize (GObject *object)
{
  g_array_unref (DL_UNFLATTEN (object)->sizes);
  G_OBJECT_CLASS (dl_unflatten_parent_class)->finalize (object);
}

static void
dl_unflatten_class_init (DlUnflattenClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = dl_unflatten_get_property;
  object_class->set_property = dl_unflatten_set_property;
  object_class->constructed = dl_unflatten_constructed;
  object_class->finalize = dl_unflatten_finalize;
  DL_MODULE_CLASS (klass)->forward = dl_unflatten_forward;
  DL_MODULE_CLASS (klass)->extra_repr = dl_unflatten_extra_repr;

  /**
   * DlUnflatten:dim:
   *
   * The dimension to split; negative counts from the end.
   *
   * Since: 0.1
   */
  unflatten_properties[UNFLATTEN_PROP_DIM]
      = g_param_spec_int64 ("dim", NULL, NULL, G_MININT32, G_MAXINT32, 0,
                            G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /**
   * DlUnflatten:unflattened-size:
   *
   * The sizes the dimension becomes, an array of int64 (a #GVariant of
   * type `ax`); one may be -1, inferred.
   *
   * Since: 0.1
   */
  unflatten_properties[UNFLATTEN_PROP_UNFLATTENED_SIZE] = g_param_spec_variant (
      "unflattened-size", NULL, NULL, G_VARIANT_TYPE ("ax"), NULL,
      G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, UNFLATTEN_N_PROPS, unflatten_properties);
}

static void
dl_unflatten_init (DlUnflatten *self)
{
  self->sizes = g_array_new (FALSE, FALSE, sizeof (gint64));
}

/**
 * dl_unflatten_new:
 * @dim: the dimension to split
 * @unflattened_size: (array length=n_sizes): the sizes it becomes
 * @n_sizes: the number of sizes
 * @error: return location for a #GError
 *
 * Makes a module that splits one dimension into several, as
 * `torch.nn.Unflatten (dim, unflattened_size)`: with @dim 1 and sizes [16,
 * 4, 4] it turns a [N, 256] input into [N, 16, 4, 4], a view when the input
 * allows. The product of the sizes must equal the size of the split
 * dimension, which forward checks.
 *
 * Fails with %DL_ERROR_ARGUMENT when @unflattened_size is empty or holds a
 * size below 1.
 *
 * Returns: (transfer full): a new #DlUnflatten, or %NULL with @error set
 *
 * Since: 0.1
 */
DlUnflatten *
dl_unflatten_new (gint64 dim, const gint64 *unflattened_size, gsize n_sizes, GError **error)
{
  GVariant *v = g_variant_new_fixed_array (G_VARIANT_TYPE_INT64, unflattened_size, n_sizes,
                                           sizeof (gint64));

  return g_initable_new (DL_TYPE_UNFLATTEN, NULL, error, "dim", dim, "unflattened-size", v, NULL);
}

/**
 * dl_unflatten_get_dim:
 * @self: a #DlUnflatten
 *
 * Gives the dimension the module splits, the #DlUnflatten:dim property.
 *
 * Returns: the dimension split
 *
 * Since: 0.1
 */
gint64
dl_unflatten_get_dim (DlUnflatten *self)
{
  g_return_val_if_fail (DL_IS_UNFLATTEN (self), 0);
  return self->dim;
}

/**
 * dl_unflatten_get_unflattened_size:
 * @self: a #DlUnflatten
 * @n_sizes: (out): return location for the number of sizes
 *
 * Gives the sizes the split dimension becomes, the
 * #DlUnflatten:unflattened-size property. The array belongs to the module.
 *
 * Returns: (array length=n_sizes) (transfer none): the sizes
 *
 * Since: 0.1
 */
const gint64 *
dl_unflatten_get_unflattened_size (DlUnflatten *self, gsize *n_sizes)
{
  g_return_val_if_fail (DL_IS_UNFLATTEN (self), NULL);
  *n_sizes = self->sizes->len;
  return (const gint64 *)self->sizes->data;
}
