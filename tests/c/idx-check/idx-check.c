/* idx-check.c: scratch harness for dl_idx_read ().
 *
 * Usage: idx-check SPEC-FILE, each line one of
 *   ok  PATH TYPE-CODE DIM,DIM,.. SHA256-OF-HOST-ORDER-DATA [labels]
 *   err PATH DL-ERROR-CODE
 */
#include <stdio.h>
#include <stdlib.h>

#include "dl-idx-private.h"

static int failures;

static void
check_ok (gchar **f)
{
  g_autoptr (GFile) file = g_file_new_for_path (f[1]);
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) bytes = NULL;
  g_autofree gint64 *dims = NULL;
  g_autofree gchar *sum = NULL;
  g_autoptr (GString) shape = g_string_new (NULL);
  DlIdxType type = 0;
  gsize n_dims = 0, i;
  gint64 t0 = g_get_monotonic_time ();

  bytes = dl_idx_read (file, &type, &n_dims, &dims, NULL, &error);
  if (bytes == NULL)
    {
      printf ("FAIL %s: %s\n", f[1], error->message);
      failures++;
      return;
    }
  for (i = 0; i < n_dims; i++)
    g_string_append_printf (shape, "%s%" G_GINT64_FORMAT, i ? "," : "", dims[i]);
  sum = g_compute_checksum_for_bytes (G_CHECKSUM_SHA256, bytes);

  if ((int)type != (int)strtol (f[2], NULL, 0) || g_strcmp0 (shape->str, f[3]) != 0
      || g_strcmp0 (sum, f[4]) != 0)
    {
      printf ("FAIL %s: type 0x%02x shape %s sha %s\n", f[1], type, shape->str, sum);
      failures++;
      return;
    }
  if (f[5] != NULL && g_str_equal (f[5], "labels"))
    {
      gsize n;
      const guint8 *p = g_bytes_get_data (bytes, &n);
      guint counts[256] = { 0 };

      for (i = 0; i < n; i++)
        counts[p[i]]++;
      for (i = 10; i < 256; i++)
        if (counts[i] != 0)
          {
            printf ("FAIL %s: label %" G_GSIZE_FORMAT " out of range\n", f[1], i);
            failures++;
            return;
          }
      printf ("     label counts:");
      for (i = 0; i < 10; i++)
        printf (" %u", counts[i]);
      printf ("\n");
    }
  printf ("ok   %s: type 0x%02x shape %s, %" G_GSIZE_FORMAT " bytes, %.3f s\n", f[1], type,
          shape->str, g_bytes_get_size (bytes), (g_get_monotonic_time () - t0) / 1e6);
}

static void
check_err (gchar **f)
{
  g_autoptr (GFile) file = g_file_new_for_path (f[1]);
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) bytes = NULL;
  gint64 *dims = GINT_TO_POINTER (1); /* must stay untouched */
  gsize n_dims = 77;

  bytes = dl_idx_read (file, NULL, &n_dims, &dims, NULL, &error);
  if (bytes != NULL || error == NULL || error->domain != DL_ERROR || error->code != atoi (f[2])
      || n_dims != 77 || dims != GINT_TO_POINTER (1))
    {
      printf ("FAIL %s: expected DL_ERROR %s, got %s %d: %s\n", f[1], f[2],
              error ? g_quark_to_string (error->domain) : "(none)", error ? error->code : -1,
              error ? error->message : "");
      failures++;
      return;
    }
  printf ("ok   [%d] %s\n", error->code, error->message);
}

static void
check_cancelled (const gchar *path)
{
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) bytes = NULL;

  g_cancellable_cancel (cancellable);
  bytes = dl_idx_read (file, NULL, NULL, NULL, cancellable, &error);
  if (bytes != NULL || !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      printf ("FAIL cancelled: %s\n", error ? error->message : "no error");
      failures++;
      return;
    }
  printf ("ok   cancelled: %s\n", error->message);
}

int
main (int argc, char **argv)
{
  g_autofree gchar *spec = NULL;
  g_auto (GStrv) lines = NULL;
  g_autoptr (GError) error = NULL;
  gsize i;

  if (argc != 2 || !g_file_get_contents (argv[1], &spec, NULL, &error))
    {
      fprintf (stderr, "usage: %s SPEC-FILE\n", argv[0]);
      return 2;
    }
  lines = g_strsplit (spec, "\n", -1);
  for (i = 0; lines[i] != NULL; i++)
    {
      g_auto (GStrv) f = g_strsplit (lines[i], " ", -1);

      if (f[0] == NULL || f[1] == NULL)
        continue;
      if (g_str_equal (f[0], "ok") && g_strv_length (f) >= 5)
        check_ok (f);
      else if (g_str_equal (f[0], "err") && g_strv_length (f) == 3)
        check_err (f);
      else if (g_str_equal (f[0], "cancel"))
        check_cancelled (f[1]);
    }
  printf (failures ? "%d FAILURES\n" : "all passed\n", failures);
  return failures ? 1 : 0;
}
