/* dl-error.h: the DL_ERROR domain.
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
 * DL_ERROR:
 *
 * The error domain of libdl.
 *
 * Since: 0.1
 */
#define DL_ERROR (dl_error_quark ())

/**
 * DlError:
 * @DL_ERROR_FAILED: a failure that fits no other code
 * @DL_ERROR_SHAPE: shapes that do not fit the op (broadcast, matmul, view)
 * @DL_ERROR_DTYPE: a dtype the op does not support
 * @DL_ERROR_DEVICE: a device that is unknown, unavailable or mismatched
 * @DL_ERROR_INDEX: a dimension or index out of range
 * @DL_ERROR_ARGUMENT: an invalid argument value (negative size, zero step)
 * @DL_ERROR_OUT_OF_MEMORY: an allocation failed
 * @DL_ERROR_AUTOGRAD: misuse of autograd (backward twice, no grad_fn)
 * @DL_ERROR_IO: a file could not be read or written
 * @DL_ERROR_FORMAT: a file's contents are corrupt or unsupported
 * @DL_ERROR_NOT_SUPPORTED: the operation is not supported here
 *
 * Error codes of the %DL_ERROR domain.
 *
 * Since: 0.1
 */
typedef enum
{
  DL_ERROR_FAILED,
  DL_ERROR_SHAPE,
  DL_ERROR_DTYPE,
  DL_ERROR_DEVICE,
  DL_ERROR_INDEX,
  DL_ERROR_ARGUMENT,
  DL_ERROR_OUT_OF_MEMORY,
  DL_ERROR_AUTOGRAD,
  DL_ERROR_IO,
  DL_ERROR_FORMAT,
  DL_ERROR_NOT_SUPPORTED,
} DlError;

DL_EXPORT
GQuark dl_error_quark (void);

G_END_DECLS
