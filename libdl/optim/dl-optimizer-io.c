/* dl-optimizer-io.c: an optimizer's state dict as a safetensors file, in
 * the layout Dl.save gives a Python state dict (serialization.py): the
 * state tensors under "state.<index>.<name>", and the structure PyTorch's
 * state_dict() has as JSON in the metadata entry "dl.tree", each tensor
 * as {"$tensor": name}. So Python's Dl.load() of a file written here
 * gives torch's state dict, and a file Dl.save() wrote from Python loads
 * here.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>
#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "dl-optimizer.h"
#include "dl-optimizer-private.h"
#include "dl-lbfgs.h"
#include "dl-error.h"
#include "data/dl-safetensors.h"
#include "data/dl-tensor-dict.h"
#include "ops/dl-ops-creation.h"
#include "ops/dl-ops-join.h"
#include "ops/dl-ops-shape.h"

#define TREE_KEY "dl.tree"

/* ---- saving --------------------------------------------------------------- */

/* The options PyTorch's groups have that mean nothing to libdl (their
 * values as torch 1.13's defaults leave them): written for PyTorch's
 * layout, skipped when loading. */
static const struct
{
  const gchar *type_name;
  const gchar *json;
} torch_only[] = {
  { "DlSgd", "{\"foreach\": null, \"differentiable\": false}" },
  { "DlAdam",
    "{\"foreach\": null, \"capturable\": false, \"differentiable\": false, \"fused\": false}" },
  { "DlAdamW", "{\"foreach\": null, \"capturable\": false}" },
  { "DlRmsprop", "{\"foreach\": null, \"differentiable\": false}" },
  { "DlAdagrad", "{\"foreach\": null}" },
};

/* the torch-only options of @self's class, a JSON object (parsed on each
 * call: saving and loading are rare) */
static JsonObject *
torch_only_options (DlOptimizer *self)
{
  for (guint i = 0; i < G_N_ELEMENTS (torch_only); i++)
    if (strcmp (G_OBJECT_TYPE_NAME (self), torch_only[i].type_name) == 0)
      {
        g_autoptr (JsonNode) node = json_from_string (torch_only[i].json, NULL);

        return json_object_ref (json_node_get_object (node));
      }
  return NULL;
}

/* a string property of the optimizer's own class (LBFGS's line-search-fn)
 * is an option of PyTorch's groups */
static GParamSpec **
string_options (DlOptimizer *self, guint *n)
{
  g_autofree GParamSpec **all = g_object_class_list_properties (G_OBJECT_GET_CLASS (self), n);
  GParamSpec **out = g_new0 (GParamSpec *, *n + 1);
  guint k = 0;

  for (guint i = 0; i < *n; i++)
    if (G_PARAM_SPEC_VALUE_TYPE (all[i]) == G_TYPE_STRING && all[i]->owner_type != DL_TYPE_OPTIMIZER
        && (all[i]->flags & G_PARAM_READWRITE) == G_PARAM_READWRITE)
      out[k++] = all[i];
  *n = k;
  return out;
}

static gboolean
is_boolean_option (DlOptimizer *self, const gchar *name)
{
  g_autofree gchar *property = g_strdelimit (g_strdup (name), "_", '-');
  GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (self), property);

  return pspec && G_PARAM_SPEC_VALUE_TYPE (pspec) == G_TYPE_BOOLEAN;
}

/* json-glib 1.6 writes 1e-08 as "1e-08.0", which no parser reads: such
 * numbers, and inf and nan, which JSON lacks, go as {"$float": "1e-08"}
 * (Dl.load reads both forms) */
static void
add_double (JsonBuilder *b, gdouble v)
{
  gchar text[G_ASCII_DTOSTR_BUF_SIZE];

  g_ascii_formatd (text, sizeof text, "%.17g", v);
  if (isfinite (v) && (strchr (text, '.') || !strpbrk (text, "eE")))
    {
      json_builder_add_double_value (b, v);
      return;
    }
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "$float");
  json_builder_add_string_value (b, isnan (v) ? "nan" : isinf (v) ? (v > 0 ? "inf" : "-inf")
                                                                   : text);
  json_builder_end_object (b);
}

static void
add_number (JsonBuilder *b, gdouble v)
{
  /* whole numbers as integers, as PyTorch's ints */
  if (isfinite (v) && v == floor (v) && fabs (v) < 9007199254740992.)
    json_builder_add_int_value (b, (gint64)v);
  else
    add_double (b, v);
}

static void
add_group (DlOptimizer *self, JsonBuilder *b, guint g, guint *next_index)
{
  g_auto (GStrv) names = dl_optimizer_list_group_options (self, g);
  GPtrArray *params = dl_optimizer_get_group_params (self, g);

  json_builder_begin_object (b);
  for (guint i = 0; names[i]; i++)
    {
      gdouble v = dl_optimizer_get_group_option (self, g, names[i], NULL);

      if (strcmp (names[i], "beta2") == 0)
        continue;
      if (strcmp (names[i], "beta1") == 0)
        {
          /* Adam's betas, a tuple as PyTorch's */
          json_builder_set_member_name (b, "betas");
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "$tuple");
          json_builder_begin_array (b);
          add_double (b, v);
          add_double (b, dl_optimizer_get_group_option (self, g, "beta2", NULL));
          json_builder_end_array (b);
          json_builder_end_object (b);
          continue;
        }
      json_builder_set_member_name (b, names[i]);
      if (is_boolean_option (self, names[i]))
        json_builder_add_boolean_value (b, v != 0);
      else
        add_number (b, v);
    }
  {
    g_autoptr (JsonObject) extras = torch_only_options (self);
    guint n_strings;
    g_autofree GParamSpec **strings = string_options (self, &n_strings);

    g_autoptr (GList) extra_names = extras ? json_object_get_members (extras) : NULL;

    for (GList *l = extra_names; l; l = l->next)
      {
        json_builder_set_member_name (b, l->data);
        json_builder_add_value (b, json_node_copy (json_object_get_member (extras, l->data)));
      }
    for (guint i = 0; i < n_strings; i++)
      {
        g_autofree gchar *value = NULL;
        g_autofree gchar *name = g_strdelimit (g_strdup (strings[i]->name), "-", '_');

        g_object_get (self, strings[i]->name, &value, NULL);
        json_builder_set_member_name (b, name);
        if (value)
          json_builder_add_string_value (b, value);
        else
          json_builder_add_null_value (b);
      }
  }
  json_builder_set_member_name (b, "params");
  json_builder_begin_array (b);
  for (guint i = 0; i < params->len; i++)
    json_builder_add_int_value (b, (*next_index)++);
  json_builder_end_array (b);
  json_builder_end_object (b);
}

/* LBFGS's entries that PyTorch keeps as lists of tensors and as Python
 * numbers (see DlLbfgs) */
static const gchar *const LBFGS_LISTS[] = { "old_dirs", "old_stps", "ro", "al", NULL };
static const gchar *const LBFGS_NUMBERS[] = { "t", "prev_loss", NULL };

static void
add_tensor (JsonBuilder *b, DlTensorDict *dict, const gchar *key, DlTensor *t)
{
  dl_tensor_dict_insert (dict, key, t);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "$tensor");
  json_builder_add_string_value (b, key);
  json_builder_end_object (b);
}

/* the rows of @t as a list of tensors, "al" padded with None to
 * history_size as PyTorch's */
static void
add_rows (DlOptimizer *self,
          JsonBuilder *b,
          DlTensorDict *dict,
          const gchar *key,
          DlTensor *t,
          gboolean pad)
{
  gsize n_dims;
  const gint64 *shape = dl_tensor_get_shape (t, &n_dims);
  gint64 n = n_dims ? shape[0] : 0;
  gint64 size = pad ? (gint64)dl_optimizer_get_group_option (self, 0, "history_size", NULL) : 0;

  json_builder_begin_array (b);
  for (gint64 k = 0; k < n; k++)
    {
      g_autoptr (DlTensor) row = dl_tensor_select (t, 0, k, NULL);
      g_autofree gchar *name = g_strdup_printf ("%s.%" G_GINT64_FORMAT, key, k);

      if (row)
        add_tensor (b, dict, name, row);
    }
  for (gint64 k = n; k < size; k++)
    json_builder_add_null_value (b);
  json_builder_end_array (b);
}

/* the state of parameter @index: its tensors into @dict, the structure
 * into @b ({"$dict": [[index, {...}], ...]} entries) */
static void
add_param_state (DlOptimizer *self, JsonBuilder *b, DlTensorDict *dict, guint index)
{
  g_auto (GStrv) names = dl_optimizer_list_state (self, index);

  if (names[0] == NULL)
    return;
  json_builder_begin_array (b);
  json_builder_add_int_value (b, index);
  json_builder_begin_object (b);
  for (guint i = 0; names[i]; i++)
    {
      DlTensor *t = dl_optimizer_get_state (self, index, names[i]);
      g_autofree gchar *key = g_strdup_printf ("state.%u.%s", index, names[i]);
      gboolean lbfgs = DL_IS_LBFGS (self);

      json_builder_set_member_name (b, names[i]);
      if (t == NULL)
        json_builder_add_null_value (b);
      else if (lbfgs && g_strv_contains (LBFGS_LISTS, names[i]))
        add_rows (self, b, dict, key, t, strcmp (names[i], "al") == 0);
      else if (lbfgs && g_strv_contains (LBFGS_NUMBERS, names[i]))
        {
          gdouble v = dl_tensor_item (t, NULL);

          /* t is lr itself (an int when whole) until an iteration makes
           * another number of it */
          if (strcmp (names[i], "t") == 0 && v == dl_optimizer_get_group_option (self, 0, "lr", NULL))
            add_number (b, v);
          else
            add_double (b, v);
        }
      else if (dl_tensor_get_dtype (t) == DL_DTYPE_INT64 && dl_tensor_numel (t) == 1
               && dl_tensor_get_ndim (t) == 0)
        /* a counter: PyTorch's int */
        json_builder_add_int_value (b, (gint64)dl_tensor_item (t, NULL));
      else
        add_tensor (b, dict, key, t);
    }
  json_builder_end_object (b);
  json_builder_end_array (b);
}

/**
 * dl_optimizer_save_state:
 * @self: a #DlOptimizer
 * @file: where to write
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Writes the optimizer's state dict (torch.optim's layout: every
 * parameter's state and the parameter groups' options) as a safetensors
 * file: the state tensors under "state.<index>.<name>", the rest as JSON
 * in the `__metadata__` entry "dl.tree" (the layout of Python's
 * `Dl.save (optimizer.state_dict (), path)`, which `Dl.load` reads back
 * as the dict). dl_optimizer_load_state() restores it.
 *
 * Returns: %TRUE on success; %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
dl_optimizer_save_state (DlOptimizer *self,
                         GFile *file,
                         GCancellable *cancellable,
                         GError **error)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  g_autoptr (DlTensorDict) dict = dl_tensor_dict_new ();
  g_autoptr (JsonNode) root = NULL;
  g_autofree gchar *tree = NULL;
  guint n_params, next_index = 0;

  g_return_val_if_fail (DL_IS_OPTIMIZER (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);
  n_params = dl_optimizer_get_params (self)->len;
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "state");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "$dict");
  json_builder_begin_array (b);
  for (guint i = 0; i < n_params; i++)
    add_param_state (self, b, dict, i);
  json_builder_end_array (b);
  json_builder_end_object (b);
  json_builder_set_member_name (b, "param_groups");
  json_builder_begin_array (b);
  for (guint g = 0; g < dl_optimizer_get_n_param_groups (self); g++)
    add_group (self, b, g, &next_index);
  json_builder_end_array (b);
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  tree = json_to_string (root, FALSE);
  dl_tensor_dict_set_metadata (dict, "format", "pt");
  dl_tensor_dict_set_metadata (dict, TREE_KEY, tree);
  return dl_safetensors_save (dict, file, cancellable, error);
}

/* ---- loading --------------------------------------------------------------- */

static gboolean
format_error (DlOptimizer *self, GError **error, const gchar *what)
{
  g_set_error (error, DL_ERROR, DL_ERROR_FORMAT, "%s.load_state: %s",
               dl_optimizer_get_display_name (self), what);
  return FALSE;
}

/* the object's one member @key ("$tensor", "$tuple", ...), or NULL */
static JsonNode *
tagged (JsonNode *node, const gchar *key)
{
  JsonObject *o;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  o = json_node_get_object (node);
  return json_object_get_size (o) == 1 ? json_object_get_member (o, key) : NULL;
}

/* a JSON number, or {"$float": "inf"} */
static gboolean
number_of (JsonNode *node, gdouble *out)
{
  JsonNode *f = tagged (node, "$float");

  if (f && JSON_NODE_HOLDS_VALUE (f) && json_node_get_value_type (f) == G_TYPE_STRING)
    {
      *out = g_ascii_strtod (json_node_get_string (f), NULL);
      return TRUE;
    }
  if (!JSON_NODE_HOLDS_VALUE (node))
    return FALSE;
  switch (json_node_get_value_type (node))
    {
    case G_TYPE_INT64:
      *out = (gdouble)json_node_get_int (node);
      return TRUE;
    case G_TYPE_DOUBLE:
      *out = json_node_get_double (node);
      return TRUE;
    case G_TYPE_BOOLEAN:
      *out = json_node_get_boolean (node);
      return TRUE;
    default:
      return FALSE;
    }
}

static gboolean
load_group (DlOptimizer *self, guint g, JsonNode *node, gboolean apply, GError **error)
{
  JsonObject *o;
  JsonNode *params;
  g_autoptr (GList) members = NULL;
  g_autoptr (JsonObject) extras = NULL;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    return format_error (self, error, "a parameter group is not an object");
  o = json_node_get_object (node);
  params = json_object_get_member (o, "params");
  if (params == NULL || !JSON_NODE_HOLDS_ARRAY (params)
      || json_array_get_length (json_node_get_array (params))
             != dl_optimizer_get_group_params (self, g)->len)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s.load_state: loaded state dict contains a parameter group that doesn't "
                   "match the size of optimizer's group",
                   dl_optimizer_get_display_name (self));
      return FALSE;
    }
  members = json_object_get_members (o);
  extras = torch_only_options (self);
  for (GList *l = members; l; l = l->next)
    {
      const gchar *name = l->data;
      JsonNode *value = json_object_get_member (o, name);
      JsonNode *tuple = tagged (value, "$tuple");
      g_autofree gchar *property = g_strdelimit (g_strdup (name), "_", '-');
      GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (self), property);
      gdouble v;

      if ((extras && json_object_has_member (extras, name)) || strcmp (name, "params") == 0)
        continue;
      if (pspec && G_PARAM_SPEC_VALUE_TYPE (pspec) == G_TYPE_STRING
          && (JSON_NODE_HOLDS_NULL (value)
              || (JSON_NODE_HOLDS_VALUE (value)
                  && json_node_get_value_type (value) == G_TYPE_STRING)))
        {
          if (apply)
            g_object_set (self, property,
                          JSON_NODE_HOLDS_NULL (value) ? NULL : json_node_get_string (value), NULL);
        }
      else if (strcmp (name, "betas") == 0)
        {
          JsonArray *pair = tuple && JSON_NODE_HOLDS_ARRAY (tuple) ? json_node_get_array (tuple)
                            : JSON_NODE_HOLDS_ARRAY (value)        ? json_node_get_array (value)
                                                                   : NULL;
          gdouble b1, b2;

          if (!pair || json_array_get_length (pair) != 2
              || !number_of (json_array_get_element (pair, 0), &b1)
              || !number_of (json_array_get_element (pair, 1), &b2))
            return format_error (self, error, "'betas' is not a pair of numbers");
          if (apply
              && (!dl_optimizer_set_group_option (self, g, "beta1", b1, error)
                  || !dl_optimizer_set_group_option (self, g, "beta2", b2, error)))
            return FALSE;
        }
      /* strings and None (PyTorch's foreach, line_search_fn) mean
       * nothing to the C optimizers */
      else if (apply && number_of (value, &v)
               && !dl_optimizer_set_group_option (self, g, name, v, error))
        return FALSE;
    }
  return TRUE;
}

/* a tensor of the saved state: {"$tensor": name}, a number (a 0-d int64
 * or float64 tensor), or a list of those (LBFGS's history from Python:
 * stacked, Nones left out); NULL for None */
static gboolean
state_value (DlOptimizer *self,
             DlTensorDict *dict,
             JsonNode *node,
             DlTensor **out,
             GError **error)
{
  JsonNode *name = tagged (node, "$tensor");
  gdouble v;

  *out = NULL;
  if (JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (name)
    {
      DlTensor *t = JSON_NODE_HOLDS_VALUE (name) && json_node_get_value_type (name) == G_TYPE_STRING
                        ? dl_tensor_dict_lookup (dict, json_node_get_string (name))
                        : NULL;

      if (t == NULL)
        return format_error (self, error, "a state entry names a tensor the file does not hold");
      *out = g_object_ref (t);
      return TRUE;
    }
  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *items = json_node_get_array (node);
      g_autoptr (GPtrArray) rows = g_ptr_array_new_with_free_func (g_object_unref);

      for (guint i = 0; i < json_array_get_length (items); i++)
        {
          DlTensor *row;

          if (!state_value (self, dict, json_array_get_element (items, i), &row, error))
            return FALSE;
          if (row)
            g_ptr_array_add (rows, row);
        }
      if (rows->len == 0)
        {
          gint64 zero = 0;

          *out = dl_zeros (&zero, 1, DL_DTYPE_FLOAT32, NULL, error);
        }
      else
        *out = dl_stack ((DlTensor **)rows->pdata, rows->len, 0, error);
      return *out != NULL;
    }
  if (number_of (node, &v))
    {
      gboolean whole = JSON_NODE_HOLDS_VALUE (node)
                       && json_node_get_value_type (node) != G_TYPE_DOUBLE && tagged (node, "$float") == NULL;

      *out = dl_tensor_new_scalar (v, whole ? DL_DTYPE_INT64 : DL_DTYPE_FLOAT64);
      return TRUE;
    }
  return format_error (self, error, "a state entry is neither a tensor, a number nor None");
}

static gboolean
load_param_state (DlOptimizer *self,
                  DlTensorDict *dict,
                  guint index,
                  JsonNode *node,
                  gboolean apply,
                  GError **error)
{
  JsonObject *o;
  g_autoptr (GList) members = NULL;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    return format_error (self, error, "a parameter's state is not an object");
  o = json_node_get_object (node);
  members = json_object_get_members (o);
  for (GList *l = members; l; l = l->next)
    {
      g_autoptr (DlTensor) value = NULL;

      if (!state_value (self, dict, json_object_get_member (o, l->data), &value, error)
          || (apply && !dl_optimizer_set_state (self, index, l->data, value, error)))
        return FALSE;
    }
  return TRUE;
}

/* the saved states by saved index: {"$dict": [[0, {...}], ...]}, or an
 * object keyed "0", "1", ... */
static JsonNode *
saved_state_of (JsonNode *state, gint64 saved_index)
{
  JsonNode *pairs = tagged (state, "$dict");

  if (pairs && JSON_NODE_HOLDS_ARRAY (pairs))
    {
      JsonArray *a = json_node_get_array (pairs);

      for (guint i = 0; i < json_array_get_length (a); i++)
        {
          JsonNode *pair = json_array_get_element (a, i);
          JsonArray *kv = JSON_NODE_HOLDS_ARRAY (pair) ? json_node_get_array (pair) : NULL;
          gdouble key;

          if (kv && json_array_get_length (kv) == 2
              && number_of (json_array_get_element (kv, 0), &key) && key == saved_index)
            return json_array_get_element (kv, 1);
        }
      return NULL;
    }
  if (JSON_NODE_HOLDS_OBJECT (state))
    {
      g_autofree gchar *key = g_strdup_printf ("%" G_GINT64_FORMAT, saved_index);

      return json_object_get_member (json_node_get_object (state), key);
    }
  return NULL;
}

/**
 * dl_optimizer_load_state:
 * @self: a #DlOptimizer
 * @file: a file dl_optimizer_save_state() wrote, or Python's
 *   `Dl.save (optimizer.state_dict (), path)`
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Restores a saved state dict as torch.optim.Optimizer.load_state_dict()
 * does: the groups' options, and every parameter's state (cast to its
 * dtype, see dl_optimizer_set_state()), the saved parameter indices
 * matched to this optimizer's by position. The optimizer must have the
 * same number of groups, each with as many parameters.
 *
 * Returns: %TRUE on success; %FALSE with @error set (%DL_ERROR_FORMAT for
 *   a file that holds no optimizer state, %DL_ERROR_ARGUMENT for groups
 *   that do not match), and the optimizer unchanged
 *
 * Since: 0.1
 */
gboolean
dl_optimizer_load_state (DlOptimizer *self,
                         GFile *file,
                         GCancellable *cancellable,
                         GError **error)
{
  g_autoptr (DlTensorDict) dict = NULL;
  g_autoptr (JsonParser) parser = NULL;
  g_autoptr (GArray) saved_index = g_array_new (FALSE, FALSE, sizeof (gint64));
  const gchar *tree;
  JsonObject *root;
  JsonNode *groups, *state;
  JsonArray *group_list;
  guint n_groups;

  g_return_val_if_fail (DL_IS_OPTIMIZER (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);
  if (!(dict = dl_safetensors_load (file, cancellable, error)))
    return FALSE;
  if (!(tree = dl_tensor_dict_get_metadata (dict, TREE_KEY)))
    return format_error (self, error, "the file has no optimizer state (no \"" TREE_KEY
                                      "\" metadata)");
  parser = json_parser_new ();
  if (!json_parser_load_from_data (parser, tree, -1, NULL)
      || !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    return format_error (self, error, "the \"" TREE_KEY "\" metadata is not a JSON object");
  root = json_node_get_object (json_parser_get_root (parser));
  groups = json_object_get_member (root, "param_groups");
  state = json_object_get_member (root, "state");
  if (!groups || !JSON_NODE_HOLDS_ARRAY (groups) || !state)
    return format_error (self, error, "the state dict has no 'state' and 'param_groups'");
  group_list = json_node_get_array (groups);
  n_groups = dl_optimizer_get_n_param_groups (self);
  if (json_array_get_length (group_list) != n_groups)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s.load_state: loaded state dict has a different number of parameter groups "
                   "(%u, the optimizer has %u)",
                   dl_optimizer_get_display_name (self), json_array_get_length (group_list),
                   n_groups);
      return FALSE;
    }
  /* a first pass checks everything, so a bad file changes nothing */
  for (gint apply = 0; apply < 2; apply++)
    {
      g_array_set_size (saved_index, 0);
      for (guint g = 0; g < n_groups; g++)
        {
          JsonNode *group = json_array_get_element (group_list, g);
          JsonArray *params;

          if (!load_group (self, g, group, apply, error))
            return FALSE;
          params = json_node_get_array (
              json_object_get_member (json_node_get_object (group), "params"));
          for (guint i = 0; i < json_array_get_length (params); i++)
            {
              gdouble index;
              gint64 whole;

              if (!number_of (json_array_get_element (params, i), &index))
                return format_error (self, error, "a group's 'params' are not indices");
              whole = (gint64)index;
              g_array_append_val (saved_index, whole);
            }
        }
      for (guint i = 0; i < saved_index->len; i++)
        {
          JsonNode *saved = saved_state_of (state, g_array_index (saved_index, gint64, i));

          if ((apply && !dl_optimizer_clear_state (self, i, error))
              || (saved && !load_param_state (self, dict, i, saved, apply, error)))
            return FALSE;
        }
    }
  return TRUE;
}
