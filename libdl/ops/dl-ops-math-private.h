/* dl-ops-math-private.h: helpers shared by the files of the math library.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dl-ops-private.h"

G_BEGIN_DECLS

static inline gboolean
dl_math_is_half (DlDType dtype)
{
  return dtype == DL_DTYPE_FLOAT16 || dtype == DL_DTYPE_BFLOAT16;
}

/* @t in the compute dtype @cdt; a result in a 16-bit float type is computed
 * in float32 on operands first rounded to that type */
DlTensor *dl_math_cast_through (DlTensor *t, DlDType result, DlDType cdt, GError **error);
/* @out converted to @rdt (consumes @out; NULL passes through) */
DlTensor *dl_math_finish_dtype (DlTensor *out, DlDType rdt, GError **error);
/* g * mask, the bool @mask (consumed) converted to @g's dtype */
DlTensor *dl_math_mul_mask (DlTensor *g, DlTensor *mask, GError **error);

G_END_DECLS
