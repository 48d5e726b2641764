/* dl-native-private.h: whether a function pointer is compiled code.
 *
 * A virtual method or callback that a language binding (PyGObject, GJS)
 * provides is a libffi closure in anonymous memory, which no loaded object
 * contains; such code must run on the thread the binding's interpreter
 * lives on. The layers that run user code on worker threads (the data
 * loader's workers, the trainer) ask this first.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* TRUE when @func is %NULL or lies in a loaded object (the library, the
 * program, a shared library); FALSE for a binding's closure */
gboolean dl_is_native_code (gconstpointer func);

G_END_DECLS
