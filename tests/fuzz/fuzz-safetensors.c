/* fuzz-safetensors.c: libFuzzer target for the safetensors reader. Each
 * input is a file's bytes: it must load (every tensor's values readable,
 * names and metadata UTF-8) or fail with a DL_ERROR whose message is
 * UTF-8; AddressSanitizer catches the rest.
 *
 * Build (clang): meson setup build-fuzz -Dfuzzing=true -Db_sanitize=address
 *   --native-file with CC=clang, or CC=clang meson setup ...; then run
 *   build-fuzz/tests/fuzz/fuzz-safetensors -max_total_time=60 CORPUS/
 * tests/fuzz/make-seeds.py writes a seed corpus.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <dl.h>

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  g_autoptr (GBytes) bytes = g_bytes_new_static (data, size);
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensorDict) dict = dl_safetensors_load_bytes (bytes, &error);
  g_auto (GStrv) names = NULL;

  if (dict == NULL)
    {
      if (error == NULL || error->domain != DL_ERROR || !g_utf8_validate (error->message, -1, NULL))
        __builtin_trap ();
      return 0;
    }
  names = dl_tensor_dict_get_names (dict);
  for (gchar **n = names; *n; n++)
    {
      g_autoptr (GBytes) values = dl_tensor_to_bytes (dl_tensor_dict_lookup (dict, *n), NULL);

      if (values == NULL || !g_utf8_validate (*n, -1, NULL))
        __builtin_trap ();
    }
  {
    g_auto (GStrv) keys = dl_tensor_dict_get_metadata_keys (dict);

    for (gchar **k = keys; *k; k++)
      if (!g_utf8_validate (*k, -1, NULL)
          || !g_utf8_validate (dl_tensor_dict_get_metadata (dict, *k), -1, NULL))
        __builtin_trap ();
  }
  return 0;
}
