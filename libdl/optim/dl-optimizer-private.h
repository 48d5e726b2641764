/* dl-optimizer-private.h: what the C optimizers of libdl share with
 * DlOptimizer: their name in messages and the error a construction left.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "optim/dl-optimizer.h"

G_BEGIN_DECLS

/* The name messages give the optimizers of class @klass and its
 * subclasses ("SGD"); a static string. Others use their type name. */
void dl_optimizer_class_set_display_name (DlOptimizerClass *klass, const gchar *name);
const gchar *dl_optimizer_get_display_name (DlOptimizer *self);

/* A subclass's constructed() hands over the first invalid construct
 * property as @error (taken); g_initable_init() and step fail with it. */
void dl_optimizer_take_construct_error (DlOptimizer *self, GError *error);

G_END_DECLS
