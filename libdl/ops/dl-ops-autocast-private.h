/* dl-ops-autocast-private.h: how an op takes part in autocast.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dl-tensor.h"

G_BEGIN_DECLS

/* What an op under autocast does with its floating-point arguments, as
 * PyTorch's autocast lists name it: lower_precision_fp casts them to the
 * autocast dtype of their device (bfloat16 on the CPU), fp32 to float32;
 * float64 tensors are never cast. NONE casts nothing but still runs the op
 * with autocast off, for an op off the lists written over ops on them (a
 * transposed convolution over matrix products). */
typedef enum
{
  DL_AUTOCAST_LOWER,
  DL_AUTOCAST_FP32,
  DL_AUTOCAST_NONE,
} DlAutocastPolicy;

/* non-zero while autocast is on for some device in this thread */
extern __thread gint dl_autocast_on;

gint dl_autocast_cast_args (DlAutocastPolicy policy,
                            DlTensor **args,
                            DlTensor **held,
                            guint n,
                            GError **error);
void dl_autocast_release (DlTensor **held, guint n);

/* The first statement of an op under autocast: when autocast is on, casts
 * the tensors named after @error_ (NULL ones are skipped) and returns
 * @call, which names the cast arguments a_[0], a_[1], ..., run with
 * autocast off in this thread, as PyTorch's autocast runs an op's kernel:
 * the ops it calls inside (a bfloat16 product computed over float32
 * copies) are not cast again. */
#define DL_AUTOCAST(policy, call, error_, ...)                                                     \
  G_STMT_START                                                                                     \
  {                                                                                                \
    if (G_UNLIKELY (dl_autocast_on))                                                               \
      {                                                                                            \
        DlTensor *a_[] = { __VA_ARGS__ };                                                          \
        DlTensor *h_[G_N_ELEMENTS (a_)] = { NULL };                                                \
        DlTensor *out_ = NULL;                                                                     \
        if (dl_autocast_cast_args ((policy), a_, h_, G_N_ELEMENTS (a_), (error_)) >= 0)            \
          {                                                                                        \
            gint on_ = dl_autocast_on;                                                             \
            dl_autocast_on = 0;                                                                    \
            out_ = (call);                                                                         \
            dl_autocast_on = on_;                                                                  \
          }                                                                                        \
        dl_autocast_release (h_, G_N_ELEMENTS (a_));                                               \
        return out_;                                                                               \
      }                                                                                            \
  }                                                                                                \
  G_STMT_END

G_END_DECLS
