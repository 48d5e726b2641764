/* dl-loss-private.h: what the loss families share (dl-loss.c,
 * dl-margin-loss.c).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "nn/dl-loss.h"

G_BEGIN_DECLS

/* Whether @reduction is 'none', 'mean' or 'sum'; else the error torch
 * raises, naming @name. */
gboolean dl_loss_check_reduction (const gchar *name, DlReduction reduction, GError **error);
/* @loss reduced as @reduction says; takes @loss (NULL passes through). */
DlTensor *dl_loss_reduce (DlTensor *loss, DlReduction reduction, GError **error);
/* Zeros of @like's shape, dtype and device (dl-margin-loss.c). */
DlTensor *dl_loss_zeros_like (DlTensor *like, GError **error);
/* @t's shape as "[2, 3]" (dl-loss.c); free with g_free(). */
gchar *dl_loss_shape_string (DlTensor *t);

G_END_DECLS
