/* format-driver.c: reads tensors from stdin and prints dl_format_tensor ()
 * for each, for compare-with-torch.py.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Input, one case after another:
 *   KIND NDIM SHAPE... NSUFFIXES      (KIND is f, i or b)
 *   NSUFFIXES lines, one suffix each
 *   NUMEL lines, one value each (anything g_ascii_strtod reads: hex floats,
 *   inf, nan)
 * Output per case: the byte length of the result, a newline, the result.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl-format-private.h"

static gboolean
read_line (GString *line)
{
  int c;

  g_string_truncate (line, 0);
  while ((c = getchar ()) != EOF && c != '\n')
    g_string_append_c (line, (gchar)c);
  return c != EOF || line->len > 0;
}

int
main (void)
{
  g_autoptr (GString) line = g_string_new (NULL);

  while (read_line (line))
    {
      g_auto (GStrv) header = NULL;
      g_autofree gint64 *shape = NULL;
      g_autofree gdouble *values = NULL;
      g_autoptr (GPtrArray) suffixes = g_ptr_array_new_with_free_func (g_free);
      g_autofree gchar *result = NULL;
      DlFormatKind kind;
      gsize ndim, n_suffixes, numel = 1, i;

      if (line->len == 0)
        continue;

      header = g_strsplit (line->str, " ", -1);
      switch (header[0][0])
        {
          case 'f':
            kind = DL_FORMAT_FLOAT;
            break;
          case 'i':
            kind = DL_FORMAT_INT;
            break;
          case 'b':
            kind = DL_FORMAT_BOOL;
            break;
          default:
            g_printerr ("bad kind %s\n", header[0]);
            return 1;
        }

      ndim = g_ascii_strtoull (header[1], NULL, 10);
      shape = g_new0 (gint64, ndim + 1);
      for (i = 0; i < ndim; i++)
        {
          shape[i] = g_ascii_strtoll (header[2 + i], NULL, 10);
          numel *= (gsize)shape[i];
        }
      n_suffixes = g_ascii_strtoull (header[2 + ndim], NULL, 10);

      for (i = 0; i < n_suffixes; i++)
        {
          read_line (line);
          g_ptr_array_add (suffixes, g_strdup (line->str));
        }
      g_ptr_array_add (suffixes, NULL);

      values = g_new0 (gdouble, numel + 1);
      for (i = 0; i < numel; i++)
        {
          read_line (line);
          values[i] = g_ascii_strtod (line->str, NULL);
        }

      result = dl_format_tensor (values, shape, ndim, kind, (const gchar *const *)suffixes->pdata);
      printf ("%zu\n%s", strlen (result), result);
    }

  return 0;
}
