/* dl-loss-modules-private.h: what the loss module classes share
 * (dl-loss-modules.c, dl-margin-loss-modules.c): one instance layout,
 * LossModule, with every option of every loss, and the property code;
 * each class installs the properties of its mask.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "nn/dl-module.h"
#include "nn/dl-loss.h"

G_BEGIN_DECLS

typedef struct
{
  DlModule parent_instance;
  DlReduction reduction;
  DlTensor *weight;     /* only while constructing: then the buffer of that name */
  DlTensor *pos_weight; /* only while constructing: then the buffer "pos_weight" */
  gint64 ignore_index;
  gdouble label_smoothing;
  gdouble beta;
  gdouble delta;
  gboolean log_target;
  gdouble margin;
  gdouble p;
  gdouble eps;
  gboolean swap;
  gint64 dim;
  gboolean keepdim;
} LossModule;

#define LOSS_BUFFER(l, name) dl_module_get_buffer (DL_MODULE (l), name)

/* the properties, and the bit of each in a class's mask */
enum
{
  PROP_0,
  PROP_REDUCTION,
  PROP_WEIGHT,
  PROP_POS_WEIGHT,
  PROP_IGNORE_INDEX,
  PROP_LABEL_SMOOTHING,
  PROP_BETA,
  PROP_DELTA,
  PROP_LOG_TARGET,
  PROP_MARGIN,
  PROP_P,
  PROP_EPS,
  PROP_SWAP,
  PROP_DIM,
  PROP_KEEPDIM,
  N_PROPS
};

#define LOSS_REDUCTION (1u << PROP_REDUCTION)
#define LOSS_WEIGHT (1u << PROP_WEIGHT)
#define LOSS_POS_WEIGHT (1u << PROP_POS_WEIGHT)
#define LOSS_IGNORE_INDEX (1u << PROP_IGNORE_INDEX)
#define LOSS_LABEL_SMOOTHING (1u << PROP_LABEL_SMOOTHING)
#define LOSS_BETA (1u << PROP_BETA)
#define LOSS_DELTA (1u << PROP_DELTA)
#define LOSS_LOG_TARGET (1u << PROP_LOG_TARGET)
#define LOSS_MARGIN (1u << PROP_MARGIN)
#define LOSS_P (1u << PROP_P)
#define LOSS_EPS (1u << PROP_EPS)
#define LOSS_SWAP (1u << PROP_SWAP)
#define LOSS_DIM (1u << PROP_DIM)
#define LOSS_KEEPDIM (1u << PROP_KEEPDIM)
/* not a property: p must be 1 or 2 (MultiMarginLoss) */
#define LOSS_P_1_OR_2 (1u << N_PROPS)

/* the defaults of the options that differ between the classes */
typedef struct
{
  gdouble margin;
  gdouble p;
  gdouble eps;
  gint64 dim;
} LossDefaults;

/* Registers the weights of @mask as buffers, then checks the options'
 * values; a bad one is the module's construct error. */
void dl_loss_check_options (LossModule *self, const gchar *name, guint mask);
/* Installs the properties in @mask on @object_class, with the defaults @d. */
void dl_loss_class_init_with (GObjectClass *object_class, guint mask, const LossDefaults *d);
/* Sets the options of @self to their defaults, @d for those that differ. */
void dl_loss_init_with (LossModule *self, const LossDefaults *d);

G_END_DECLS
