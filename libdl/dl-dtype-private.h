/* dl-dtype-private.h: the dtype facts the hot paths read, inline.
 *
 * dl_dtype_get_size() and dl_dtype_is_floating_point() are the public,
 * checked forms; inside the library every op asks these questions several
 * times, so they are answered here without a call.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dl-dtype.h"

G_BEGIN_DECLS

/* the floating-point dtypes come first in DlDType */
G_STATIC_ASSERT (DL_DTYPE_FLOAT32 == 0 && DL_DTYPE_FLOAT64 == 1 && DL_DTYPE_FLOAT16 == 2
                 && DL_DTYPE_BFLOAT16 == 3 && DL_DTYPE_INT32 == 4);

static inline gsize
dl_dtype_size (DlDType dtype)
{
  static const guint8 sizes[DL_N_DTYPES] = {
    [DL_DTYPE_FLOAT32] = 4, [DL_DTYPE_FLOAT64] = 8, [DL_DTYPE_FLOAT16] = 2, [DL_DTYPE_BFLOAT16] = 2,
    [DL_DTYPE_INT32] = 4,   [DL_DTYPE_INT64] = 8,   [DL_DTYPE_UINT8] = 1,   [DL_DTYPE_BOOL] = 1,
  };

  return sizes[dtype];
}

static inline gboolean
dl_dtype_is_float (DlDType dtype)
{
  return (guint)dtype <= DL_DTYPE_BFLOAT16;
}

G_END_DECLS
