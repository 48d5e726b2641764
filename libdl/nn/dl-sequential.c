/* dl-sequential.c: a module that runs its children one after another.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gio/gio.h>

#include "dl-sequential.h"
#include "dl-module-private.h"
#include "dl-error.h"

/**
 * DlSequential:
 *
 * A container that feeds its input through its child modules in order, as
 * torch.nn.Sequential: forward gives the last child's output (its input
 * when there is no child). The children are named "0", "1", ... in the
 * order they were added, so their parameters are "0.weight", "0.bias",
 * "2.weight", ...
 *
 * Build it from a list of modules, #DlSequential:modules (in GJS, `new
 * Dl.Sequential({modules: store})` with a Gio.ListStore of modules), with
 * dl_sequential_new(), or empty and then dl_sequential_append().
 *
 * Since: 0.1
 */
G_DEFINE_TYPE (DlSequential, dl_sequential, DL_TYPE_MODULE)

enum
{
  PROP_0,
  PROP_MODULES,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static DlTensor *
dl_sequential_forward (DlModule *module, DlTensor *input, GError **error)
{
  g_autoptr (GPtrArray) children = dl_module_children (module);
  g_autoptr (DlTensor) x = g_object_ref (input);

  for (guint i = 0; i < children->len; i++)
    {
      DlTensor *y = dl_module_forward (g_ptr_array_index (children, i), x, error);

      if (y == NULL)
        return NULL;
      g_object_unref (x);
      x = y;
    }
  return g_steal_pointer (&x);
}

/* The modules property: every item must be a module; a first invalid
 * item becomes the construct error. */
static void
set_modules (DlSequential *self, GListModel *model)
{
  guint n = model ? g_list_model_get_n_items (model) : 0;

  for (guint i = 0; i < n; i++)
    {
      g_autoptr (GObject) item = g_list_model_get_item (model, i);

      if (!DL_IS_MODULE (item) || item == (GObject *)self)
        {
          dl_module_take_construct_error (
              DL_MODULE (self), g_error_new (DL_ERROR, DL_ERROR_ARGUMENT,
                                             "Sequential: modules: item %u is a %s, not a module",
                                             i, item ? G_OBJECT_TYPE_NAME (item) : "NULL"));
          return;
        }
      dl_sequential_append (self, DL_MODULE (item));
    }
}

static void
dl_sequential_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  switch (prop_id)
    {
      case PROP_MODULES:
        {
          g_autoptr (GPtrArray) children = dl_module_children (DL_MODULE (object));
          GListStore *store = g_list_store_new (DL_TYPE_MODULE);

          g_list_store_splice (store, 0, 0, children->pdata, children->len);
          g_value_take_object (value, store);
        }
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
dl_sequential_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  switch (prop_id)
    {
      case PROP_MODULES:
        set_modules (DL_SEQUENTIAL (object), g_value_get_object (value));
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
dl_sequential_class_init (DlSequentialClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = dl_sequential_get_property;
  object_class->set_property = dl_sequential_set_property;
  DL_MODULE_CLASS (klass)->forward = dl_sequential_forward;

  /**
   * DlSequential:modules:
   *
   * The modules to chain, a #GListModel of #DlModule, given at
   * construction (a GListModel because it is the list type every binding
   * can pass through a property; see #DlOptimizer:params). Read back, a
   * new list of the children, those appended since included.
   *
   * Since: 0.1
   */
  properties[PROP_MODULES]
      = g_param_spec_object ("modules", NULL, NULL, G_TYPE_LIST_MODEL,
                             G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS
                                 | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
dl_sequential_init (DlSequential *self)
{
}

/**
 * dl_sequential_new:
 * @modules: (nullable) (element-type DlModule): the modules to chain, in
 *   order, or %NULL for none
 * @error: return location for a #GError
 *
 * Creates a container of @modules (g_initable_new() on
 * #DlSequential:modules).
 *
 * As `torch.nn.Sequential (*modules)`, forward passes its input through each
 * module in turn; the modules become children named "0", "1", ..., so the
 * parameters of all of them are the container's. A multi-layer perceptron:
 *
 * |[<!-- language="C" -->
 * g_autoptr (GError) error = NULL;
 * g_autoptr (GPtrArray) layers = g_ptr_array_new_with_free_func (g_object_unref);
 * g_autoptr (DlSequential) model = NULL;
 *
 * g_ptr_array_add (layers, dl_linear_new (784, 128, TRUE, NULL));
 * g_ptr_array_add (layers, dl_relu_new (FALSE));
 * g_ptr_array_add (layers, dl_linear_new (128, 10, TRUE, NULL));
 * model = dl_sequential_new (layers, &error);
 * ]|
 *
 * The container takes its own references to the modules.
 * dl_sequential_append() adds more later.
 *
 * Returns: (transfer full): a new #DlSequential, or %NULL with @error set
 *   when an element of @modules is %NULL
 *
 * Since: 0.1
 */
DlSequential *
dl_sequential_new (GPtrArray *modules, GError **error)
{
  g_autoptr (GListStore) store = g_list_store_new (DL_TYPE_MODULE);

  for (guint i = 0; modules && i < modules->len; i++)
    {
      gpointer m = g_ptr_array_index (modules, i);

      if (m == NULL)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                       "Sequential: modules: item %u is NULL, not a module", i);
          return NULL;
        }
      g_return_val_if_fail (DL_IS_MODULE (m), NULL);
      g_list_store_append (store, m);
    }
  return g_initable_new (DL_TYPE_SEQUENTIAL, NULL, error, "modules", store, NULL);
}

/**
 * dl_sequential_append:
 * @self: a #DlSequential
 * @module: the module to add at the end
 *
 * Adds @module as the last child, named after its position ("0" for the
 * first).
 *
 * Since: 0.1
 */
void
dl_sequential_append (DlSequential *self, DlModule *module)
{
  g_autofree gchar *name = NULL;

  g_return_if_fail (DL_IS_SEQUENTIAL (self));
  g_return_if_fail (DL_IS_MODULE (module));
  name = g_strdup_printf ("%u", dl_sequential_get_length (self));
  dl_module_register_module (DL_MODULE (self), name, module);
}

/**
 * dl_sequential_get:
 * @self: a #DlSequential
 * @index: the position of the child; negative counts from the end (-1 is
 *   the last)
 * @error: return location for a #GError
 *
 * Gives the child module at @index, as `sequential[index]`; -1 is the last.
 *
 * Fails with %DL_ERROR_INDEX when there is no child at @index.
 *
 * Returns: (transfer none): the child at @index, or %NULL with @error set
 *   (%DL_ERROR_INDEX) when there is none
 *
 * Since: 0.1
 */
DlModule *
dl_sequential_get (DlSequential *self, gint64 index, GError **error)
{
  g_return_val_if_fail (DL_IS_SEQUENTIAL (self), NULL);
  return dl_module_child_at (DL_MODULE (self), "Sequential", index, error);
}

/**
 * dl_sequential_insert:
 * @self: a #DlSequential
 * @index: the position @module takes; negative counts from the end, and
 *   the length appends, as Python's list.insert
 * @module: the module
 * @error: return location for a #GError
 *
 * Inserts @module; the children are renamed after their positions ("0",
 * "1", ...), as torch's `Sequential.insert`.
 *
 * Returns: %TRUE on success, %FALSE with @error set (%DL_ERROR_INDEX for
 *   a position outside the sequence)
 *
 * Since: 0.1
 */
gboolean
dl_sequential_insert (DlSequential *self, gint64 index, DlModule *module, GError **error)
{
  g_return_val_if_fail (DL_IS_SEQUENTIAL (self), FALSE);
  g_return_val_if_fail (DL_IS_MODULE (module), FALSE);
  return dl_module_insert_child (DL_MODULE (self), "Sequential.insert", index, module, error);
}

/**
 * dl_sequential_remove:
 * @self: a #DlSequential
 * @index: the position; negative counts from the end
 * @error: return location for a #GError
 *
 * Removes the module at @index (`del seq[index]`); the children are
 * renamed after their positions, as torch's.
 *
 * Returns: %TRUE on success, %FALSE with @error set (%DL_ERROR_INDEX)
 *
 * Since: 0.1
 */
gboolean
dl_sequential_remove (DlSequential *self, gint64 index, GError **error)
{
  g_return_val_if_fail (DL_IS_SEQUENTIAL (self), FALSE);
  return dl_module_remove_child (DL_MODULE (self), "Sequential.remove", index, error);
}

/**
 * dl_sequential_get_length:
 * @self: a #DlSequential
 *
 * Gives the number of child modules, as `len ()` of a `torch.nn.Sequential`.
 *
 * Returns: the number of child modules
 *
 * Since: 0.1
 */
guint
dl_sequential_get_length (DlSequential *self)
{
  g_autoptr (GPtrArray) children = NULL;

  g_return_val_if_fail (DL_IS_SEQUENTIAL (self), 0);
  children = dl_module_children (DL_MODULE (self));
  return children->len;
}
