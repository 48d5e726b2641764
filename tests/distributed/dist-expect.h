/* dist-expect.h: what a reducing collective gives, computed on the CPU,
 * and one DistributedDataParallel step with its expected gradient: the
 * oracles of the C tests of the engines (test-distributed.c over MPI,
 * test-nccl.c over NCCL, test-device-group.c over a loopback engine).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <string.h>

#include <dl.h>

/* @acc combined with the next rank's @v by @op (bool: sum and max are or,
 * product and min are and; AVG sums, see dist_expect_finish()) */
static inline gdouble
dist_expect_step (DlReduceOpKind op, DlDType dtype, gdouble acc, gdouble v)
{
  switch (op)
    {
      case DL_REDUCE_OP_KIND_SUM:
      case DL_REDUCE_OP_KIND_AVG:
        return dtype == DL_DTYPE_BOOL ? (acc || v) : acc + v;
      case DL_REDUCE_OP_KIND_PRODUCT:
        return dtype == DL_DTYPE_BOOL ? (acc && v) : acc * v;
      case DL_REDUCE_OP_KIND_MIN:
        return MIN (acc, v);
      case DL_REDUCE_OP_KIND_MAX:
        return MAX (acc, v);
    }
  g_assert_not_reached ();
  return 0;
}

/* the result over @size ranks from the combined @acc: AVG divides (integer
 * tensors with truncation) */
static inline gdouble
dist_expect_finish (DlReduceOpKind op, DlDType dtype, gdouble acc, gint size)
{
  if (op != DL_REDUCE_OP_KIND_AVG)
    return acc;
  if (dl_dtype_is_floating_point (dtype))
    return acc / size;
  return (gdouble)((gint64)acc / size); /* integer division truncates */
}

/* Rank @rank's input of the DDP step: 4 rows of 3 */
static inline gdouble
dist_ddp_input (gint rank, gint i)
{
  return (rank + 1) * 0.5 + i * 0.125;
}

/* One step of @ddp, which wraps @fc, a Linear (3, 2) without bias on
 * @device (NULL: the CPU): forward on rank @rank's batch, the loss the sum
 * of the outputs, backward; @grad gets the weight's gradient (row-major) */
static inline void
dist_ddp_step (DlModule *ddp, DlModule *fc, DlDevice *device, gint rank, gdouble grad[6])
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlDevice) cpu = dl_device_get ("cpu", &error);
  g_autoptr (DlTensor) f64 = NULL, f32 = NULL, x = NULL, on = NULL, out = NULL, loss = NULL;
  g_autoptr (DlTensor) host = NULL, g64 = NULL;
  g_autoptr (GBytes) bytes = NULL;
  gdouble xv[12];
  gsize len = 0;

  for (gint i = 0; i < 12; i++)
    xv[i] = dist_ddp_input (rank, i);
  f64 = dl_tensor_new_from_data (xv, sizeof xv, DL_SHAPE (4, 3), DL_DTYPE_FLOAT64, &error);
  g_assert_no_error (error);
  f32 = dl_tensor_to_dtype (f64, DL_DTYPE_FLOAT32, &error);
  g_assert_no_error (error);
  x = dl_tensor_to_device (f32, device ? device : cpu, &error);
  g_assert_no_error (error);
  out = dl_module_forward (ddp, x, &error);
  g_assert_no_error (error);
  loss = dl_tensor_sum (out, &error);
  g_assert_no_error (error);
  g_assert_true (dl_tensor_backward (loss, NULL, FALSE, FALSE, &error));
  g_assert_no_error (error);
  host = dl_tensor_to_device (dl_tensor_get_grad (dl_module_get_parameter (fc, "weight")), cpu,
                              &error);
  g_assert_no_error (error);
  g64 = dl_tensor_to_dtype (host, DL_DTYPE_FLOAT64, &error);
  g_assert_no_error (error);
  bytes = dl_tensor_to_bytes (g64, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (bytes), ==, 6 * sizeof (gdouble));
  memcpy (grad, g_bytes_get_data (bytes, &len), 6 * sizeof (gdouble));
}

/* The weight's gradient of dist_ddp_step() averaged over @world ranks, at
 * column @c of either row: the mean over the ranks of the batch's sums */
static inline gdouble
dist_ddp_expected_grad (gint world, gint c)
{
  gdouble sum = 0;

  for (gint r = 0; r < world; r++)
    for (gint b = 0; b < 4; b++)
      sum += dist_ddp_input (r, b * 3 + c);
  return sum / world;
}
