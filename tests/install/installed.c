/* installed.c: a small C program built against an installed libdl with
 * pkg-config, as a user builds: a tensor op, a Linear layer, an SGD step.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <dl.h>

int
main (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = dl_ones ((gint64[]){ 3, 4 }, 2, DL_DTYPE_FLOAT32, NULL, &error);
  g_autoptr (DlTensor) x2 = NULL;
  g_autoptr (DlLinear) fc = NULL;
  g_autoptr (DlTensor) y = NULL;
  g_autoptr (DlTensor) loss = NULL;
  g_autoptr (GPtrArray) params = NULL;
  g_autoptr (DlSgd) sgd = NULL;
  gdouble before, after;

  if (!x || !(x2 = dl_tensor_add (x, x, &error))
      || !(fc = g_initable_new (DL_TYPE_LINEAR, NULL, &error, "in-features", (gint64)4,
                                "out-features", (gint64)2, NULL))
      || !(y = dl_module_forward (DL_MODULE (fc), x2, &error))
      || !(loss = dl_tensor_sum (y, &error)))
    goto fail;
  params = dl_module_parameters (DL_MODULE (fc));
  if (!(sgd = dl_sgd_new (params, 0.1, 0, 0, 0, FALSE, &error))
      || !dl_tensor_backward (loss, NULL, FALSE, FALSE, &error)
      || !dl_optimizer_step (DL_OPTIMIZER (sgd), &error))
    goto fail;
  before = dl_tensor_item (loss, &error);
  g_clear_object (&y);
  g_clear_object (&loss);
  if (!(y = dl_module_forward (DL_MODULE (fc), x2, &error)) || !(loss = dl_tensor_sum (y, &error)))
    goto fail;
  after = dl_tensor_item (loss, &error);
  g_print ("C: loss %g -> %g\n", before, after);
  return after < before ? 0 : 1;

fail:
  g_printerr ("C: %s\n", error ? error->message : "failed");
  return 1;
}
