/* dl-module-print.c: extra_repr and torch's printed module tree.
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

/* ---- printing ------------------------------------------------------------ */

/**
 * dl_module_extra_repr: (virtual extra_repr)
 * @self: a #DlModule
 *
 * The module's own settings as torch's `extra_repr()` gives them
 * ("in_features=4, out_features=2, bias=True"): what dl_module_to_string()
 * prints between the parentheses. The default is empty.
 *
 * Returns: (transfer full): the settings, possibly empty
 *
 * Since: 0.1
 */
gchar *
dl_module_extra_repr (DlModule *self)
{
  gchar *s;

  g_return_val_if_fail (DL_IS_MODULE (self), NULL);
  s = DL_MODULE_GET_CLASS (self)->extra_repr (self);
  return s ? s : g_strdup ("");
}

gchar *
dl_module_repr_double (gdouble value)
{
  gchar buf[G_ASCII_DTOSTR_BUF_SIZE];

  /* the shortest that reads back, with a ".0" on an integral value */
  for (gint precision = 1; precision <= 17; precision++)
    {
      gchar format[8];

      g_snprintf (format, sizeof format, "%%.%dg", precision);
      g_ascii_formatd (buf, sizeof buf, format, value);
      if (g_ascii_strtod (buf, NULL) == value)
        break;
    }
  return g_strconcat (buf, strpbrk (buf, ".eni") ? "" : ".0", NULL);
}

/* the class name as torch prints it: DlLinear -> Linear, DlRelu -> ReLU */
static const gchar *
printed_name (DlModule *self)
{
  static const gchar *const renamed[][2] = {
    { "DlRelu", "ReLU" },           { "DlLeakyRelu", "LeakyReLU" },
    { "DlGelu", "GELU" },           { "DlSilu", "SiLU" },
    { "DlMseLoss", "MSELoss" },     { "DlNllLoss", "NLLLoss" },
    { "DlBceLoss", "BCELoss" },     { "DlBceWithLogitsLoss", "BCEWithLogitsLoss" },
    { "DlKlDivLoss", "KLDivLoss" }, { "DlElu", "ELU" },
    { "DlRelu6", "ReLU6" },         { "DlSelu", "SELU" },
    { "DlCelu", "CELU" },           { "DlRrelu", "RReLU" },
    { "DlPrelu", "PReLU" },         { "DlGlu", "GLU" },
  };
  const gchar *name = G_OBJECT_TYPE_NAME (self);

  for (guint i = 0; i < G_N_ELEMENTS (renamed); i++)
    if (g_str_equal (name, renamed[i][0]))
      return renamed[i][1];
  return g_str_has_prefix (name, "Dl") && g_ascii_isupper (name[2]) ? name + 2 : name;
}

static void
append_indented (GString *out, const gchar *text)
{
  for (const gchar *c = text; *c; c++)
    {
      g_string_append_c (out, *c);
      if (*c == '\n')
        g_string_append (out, "  ");
    }
}

/**
 * dl_module_to_string:
 * @self: a #DlModule
 *
 * The module tree as torch prints a module: the class name, its
 * dl_module_extra_repr() and each child on an indented line `(name):
 * ...`.
 *
 * Returns: (transfer full): the printed form
 *
 * Since: 0.1
 */
gchar *
dl_module_to_string (DlModule *self)
{
  DlModulePrivate *priv;
  g_autofree gchar *extra = NULL;
  g_auto (GStrv) extra_lines = NULL;
  GString *out;

  g_return_val_if_fail (DL_IS_MODULE (self), NULL);
  priv = dl_module_priv (self);
  extra = dl_module_extra_repr (self);
  extra_lines = *extra ? g_strsplit (extra, "\n", -1) : g_new0 (gchar *, 1);
  out = g_string_new (printed_name (self));
  g_string_append_c (out, '(');
  if (g_strv_length (extra_lines) == 1 && priv->children->len == 0)
    g_string_append (out, extra_lines[0]);
  else if (extra_lines[0] != NULL || priv->children->len > 0)
    {
      for (gchar **l = extra_lines; *l; l++)
        g_string_append_printf (out, "\n  %s", *l);
      for (guint i = 0; i < priv->children->len; i++)
        {
          g_autofree gchar *child = dl_module_to_string (g_ptr_array_index (priv->children, i));

          g_string_append_printf (
              out, "\n  (%s): ", (const gchar *)g_ptr_array_index (priv->child_names, i));
          append_indented (out, child);
        }
      g_string_append_c (out, '\n');
    }
  g_string_append_c (out, ')');
  return g_string_free (out, FALSE);
}
