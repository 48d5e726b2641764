/* test-autoptr.c: g_autoptr works for every class and boxed type of the
 * library. The list comes from the GIR at build time (gen-autoptr-types.py
 * writes dl-autoptr-types.h), so a type without a cleanup function fails to
 * compile here, and a new class is tested the moment it is public.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dl-test-utils.h"

/* A plain g_object_new() of @type, or NULL for an abstract type: every
 * class is constructible without properties (GInitable ones keep a missing
 * value's error for their first use). */
static GObject *
new_instance (GType type, gboolean abstract)
{
  if (abstract)
    {
      g_assert_true (G_TYPE_IS_ABSTRACT (type) || G_TYPE_IS_INTERFACE (type));
      return NULL;
    }
  g_assert_true (g_type_is_a (type, G_TYPE_OBJECT));
  return g_object_new (type, NULL);
}

/* A reference to a real value of boxed @type, or NULL where none is cheap. */
static gpointer
new_boxed (GType type)
{
  g_autoptr (DlTensor) t = NULL;

  g_assert_true (G_TYPE_IS_BOXED (type));
  if (type != DL_TYPE_STORAGE)
    return NULL;
  t = dl_zeros (DL_SHAPE (2, 3), DL_DTYPE_FLOAT32, NULL, NULL);
  return dl_storage_ref (dl_tensor_get_storage (t));
}

static void
test_autoptr_every_type (void)
{
  guint n_types = 0, n_instances = 0;

#define DL_AUTOPTR_CLASS(T, get_type, abstract)                                                    \
  {                                                                                                \
    GObject *watch = NULL;                                                                         \
    {                                                                                              \
      g_autoptr (T) obj = (T *)new_instance (get_type (), abstract);                               \
                                                                                                   \
      if (obj)                                                                                     \
        {                                                                                          \
          watch = G_OBJECT (obj);                                                                  \
          g_object_add_weak_pointer (watch, (gpointer *)&watch);                                   \
          n_instances++;                                                                           \
        }                                                                                          \
    }                                                                                              \
    if (watch)                                                                                     \
      g_test_fail_printf ("%s outlived its g_autoptr", #T);                                        \
    n_types++;                                                                                     \
  }
#define DL_AUTOPTR_BOXED(T, get_type)                                                              \
  {                                                                                                \
    g_autoptr (T) value = new_boxed (get_type ());                                                 \
                                                                                                   \
    n_instances += value != NULL;                                                                  \
    n_types++;                                                                                     \
  }
#define DL_AUTOPTR_RECORD(T)                                                                       \
  {                                                                                                \
    g_autoptr (T) value = NULL;                                                                    \
                                                                                                   \
    n_types++;                                                                                     \
  }
#include "dl-autoptr-types.h"
#undef DL_AUTOPTR_CLASS
#undef DL_AUTOPTR_BOXED
#undef DL_AUTOPTR_RECORD

  g_test_message ("%u types, %u of them instantiated", n_types, n_instances);
  g_assert_cmpuint (n_types, >, 80);
  g_assert_cmpuint (n_instances, >, 70);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/autoptr/every-type", test_autoptr_every_type);
  return g_test_run ();
}
