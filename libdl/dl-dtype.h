/* dl-dtype.h: element types, their sizes, names and promotion.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(DL_INSIDE) && !defined(DL_COMPILATION)
#error "Only <dl.h> can be included directly."
#endif

#include "dl-types.h"

G_BEGIN_DECLS

/**
 * DlDType:
 * @DL_DTYPE_FLOAT32: 32-bit IEEE float (the default)
 * @DL_DTYPE_FLOAT64: 64-bit IEEE float
 * @DL_DTYPE_FLOAT16: 16-bit IEEE half float
 * @DL_DTYPE_BFLOAT16: 16-bit brain float
 * @DL_DTYPE_INT32: 32-bit signed integer
 * @DL_DTYPE_INT64: 64-bit signed integer
 * @DL_DTYPE_UINT8: 8-bit unsigned integer
 * @DL_DTYPE_BOOL: boolean, one byte holding 0 or 1
 *
 * The element type of a tensor.
 *
 * Since: 0.1
 */
typedef enum
{
  DL_DTYPE_FLOAT32,
  DL_DTYPE_FLOAT64,
  DL_DTYPE_FLOAT16,
  DL_DTYPE_BFLOAT16,
  DL_DTYPE_INT32,
  DL_DTYPE_INT64,
  DL_DTYPE_UINT8,
  DL_DTYPE_BOOL,
} DlDType;

/**
 * DL_N_DTYPES:
 *
 * The number of #DlDType values: every dtype is below it, so it sizes
 * tables indexed by dtype.
 *
 * Since: 0.1
 */
#define DL_N_DTYPES 8

DL_EXPORT
gsize dl_dtype_get_size (DlDType dtype);
DL_EXPORT
const gchar *dl_dtype_get_name (DlDType dtype);
DL_EXPORT
gboolean dl_dtype_is_floating_point (DlDType dtype);
DL_EXPORT
gboolean dl_dtype_from_name (const gchar *name, DlDType *dtype);
DL_EXPORT
DlDType dl_dtype_promote (DlDType a, DlDType b);
DL_EXPORT
DlDType dl_get_default_dtype (void);
DL_EXPORT
gboolean dl_set_default_dtype (DlDType dtype, GError **error);

G_END_DECLS
