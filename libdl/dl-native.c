/* dl-native.c: whether a function pointer is compiled code
 * (dl-native-private.h).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#define _GNU_SOURCE
#include <dlfcn.h>

#include "dl-native-private.h"

gboolean
dl_is_native_code (gconstpointer func)
{
  Dl_info info;

  /* a binding's closure is in anonymous memory, which no object contains */
  return func == NULL || (dladdr (func, &info) != 0 && info.dli_fname != NULL);
}
