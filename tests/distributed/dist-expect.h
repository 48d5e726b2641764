/* dist-expect.h: what a reducing collective gives, computed on the CPU:
 * the oracle of the C tests of the engines (test-distributed.c over MPI,
 * test-nccl.c over NCCL).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

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
