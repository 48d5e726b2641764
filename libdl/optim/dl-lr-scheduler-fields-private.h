/* dl-lr-scheduler-fields-private.h: what libdl's scheduler classes
 * (dl-lr-schedulers.c, dl-lr-schedulers-factor.c, dl-cyclic-lr.c) share:
 * hyperparameters as properties kept in each class's struct through one
 * table of fields per class, and small helpers.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "optim/dl-lr-scheduler.h"
#include "optim/dl-lr-schedulers.h"
#include "dl-lr-scheduler-private.h"

G_BEGIN_DECLS

typedef struct
{
  const gchar *name;
  gchar type; /* 'd' double, 'x' int64, 'b' boolean, 's' string, 'v' variant "ax",
               * 'a' variant "ad" */
  gdouble default_value;
  const gchar *default_string;
  gsize offset;
  gboolean state; /* read-write state, not a construct property */
} Field;

typedef struct
{
  const Field *fields;
  guint n_fields;
} FieldTable;

/* Installs @table's fields as the properties of @klass (and its
 * get_property, set_property and finalize) */
void dl_lr_scheduler_install_fields (GObjectClass *klass, const FieldTable *table);

/* The get_property and set_property install_fields gives a class, for a
 * class with properties of its own besides (SequentialLR) */
void dl_lr_scheduler_field_get_property (GObject *object,
                                         guint prop_id,
                                         GValue *value,
                                         GParamSpec *pspec);
/* The finalize install_fields gives a class (it frees the fields, then
 * chains up), for a class that frees more before calling it */
void dl_lr_scheduler_fields_finalize (GObject *object);
void dl_lr_scheduler_field_set_property (GObject *object,
                                         guint prop_id,
                                         const GValue *value,
                                         GParamSpec *pspec);

#define FIELD(T, name, type, def, member)                                                          \
  {                                                                                                \
    name, type, def, NULL, G_STRUCT_OFFSET (T, member), FALSE                                      \
  }
#define STATE(T, name, type, member)                                                               \
  {                                                                                                \
    name, type, 0, NULL, G_STRUCT_OFFSET (T, member), TRUE                                         \
  }
#define INSTALL(klass, fields)                                                                     \
  G_STMT_START                                                                                     \
  {                                                                                                \
    static const FieldTable table = { fields, G_N_ELEMENTS (fields) };                             \
    dl_lr_scheduler_install_fields (G_OBJECT_CLASS (klass), &table);                               \
  }                                                                                                \
  G_STMT_END

static inline DlOptimizer *
optimizer_of (gpointer self)
{
  return dl_lr_scheduler_get_optimizer (DL_LR_SCHEDULER (self));
}

static inline gint64
epoch_of (gpointer self)
{
  return dl_lr_scheduler_get_last_epoch (DL_LR_SCHEDULER (self));
}

static inline gdouble
base_of (gpointer self, guint group)
{
  return dl_lr_scheduler_get_base_lr (DL_LR_SCHEDULER (self), group);
}

static inline gdouble
group_option (gpointer self, guint group, const gchar *name)
{
  return dl_optimizer_get_group_option (optimizer_of (self), group, name, NULL);
}

/* a construct error: the message names the scheduler */
G_GNUC_PRINTF (2, 3)
void dl_lr_scheduler_construct_error (gpointer self, const gchar *format, ...);

/* the subclasses compute a rate as a return value; the class's vfuncs
 * hand it back through an out parameter (see DlLrSchedulerClass) */
#define OUT_LR(fn)                                                                                 \
  static void fn##_out (DlLrScheduler *self, guint group, gdouble lr, gdouble *out,                \
                        GError **error)                                                            \
  {                                                                                                \
    *out = fn (self, group, lr, error);                                                            \
  }
#define OUT_CLOSED_FORM(fn)                                                                        \
  static void fn##_out (DlLrScheduler *self, guint group, gdouble *out, GError **error)            \
  {                                                                                                \
    *out = fn (self, group, error);                                                                \
  }

/* A function of a scheduler's (LambdaLR's and MultiplicativeLR's factor,
 * CyclicLR's scale) with its data */
typedef struct
{
  DlLrLambda fn;
  gpointer user_data;
  GDestroyNotify destroy;
} DlLrLambdaSlot;

/* Sets @slot's function, freeing the data of the one before (fn NULL:
 * only that) */
void dl_lr_lambda_slot_set (DlLrLambdaSlot *slot,
                            DlLrLambda fn,
                            gpointer user_data,
                            GDestroyNotify destroy);

/* The function's value for @group and @x; NAN with @error set when it
 * fails or there is none (the message says "<scheduler>: no <what> (see
 * <setter>)") */
gdouble dl_lr_lambda_slot_call (const DlLrLambdaSlot *slot,
                                gpointer self,
                                guint group,
                                gint64 x,
                                const gchar *what,
                                const gchar *setter,
                                GError **error);

/* The states of @children as an "av" under "_schedulers" in @dict, and
 * back (SequentialLR and ChainedScheduler) */
void dl_lr_scheduler_save_children (GPtrArray *children, GVariantDict *dict);
gboolean dl_lr_scheduler_load_children (gpointer self,
                                        GPtrArray *children,
                                        GVariantDict *dict,
                                        GError **error);

G_END_DECLS
