/* dl-lr-scheduler-fields.c: the schedulers' hyperparameters as
 * properties from a table of fields (see
 * dl-lr-scheduler-fields-private.h), and what the scheduler classes share
 * besides: a function slot, and the states of child schedulers.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <gio/gio.h>

#include "dl-lr-scheduler-fields-private.h"
#include "dl-error.h"

static const FieldTable *
field_table (GType type)
{
  return g_type_get_qdata (type, g_quark_from_static_string ("dl-lr-scheduler-fields"));
}

void
dl_lr_scheduler_field_get_property (GObject *object,
                                    guint prop_id,
                                    GValue *value,
                                    GParamSpec *pspec)
{
  const FieldTable *table = field_table (pspec->owner_type);
  const Field *f = &table->fields[prop_id - 1];
  gpointer p = G_STRUCT_MEMBER_P (object, f->offset);

  switch (f->type)
    {
      case 'd':
        g_value_set_double (value, *(gdouble *)p);
        break;
      case 'x':
        g_value_set_int64 (value, *(gint64 *)p);
        break;
      case 'b':
        g_value_set_boolean (value, *(gboolean *)p);
        break;
      case 's':
        g_value_set_string (value, *(gchar **)p);
        break;
      default:
        g_value_set_variant (value, *(GVariant **)p);
    }
}

void
dl_lr_scheduler_field_set_property (GObject *object,
                                    guint prop_id,
                                    const GValue *value,
                                    GParamSpec *pspec)
{
  const FieldTable *table = field_table (pspec->owner_type);
  const Field *f = &table->fields[prop_id - 1];
  gpointer p = G_STRUCT_MEMBER_P (object, f->offset);

  switch (f->type)
    {
      case 'd':
        *(gdouble *)p = g_value_get_double (value);
        break;
      case 'x':
        *(gint64 *)p = g_value_get_int64 (value);
        break;
      case 'b':
        *(gboolean *)p = g_value_get_boolean (value);
        break;
      case 's':
        g_free (*(gchar **)p);
        *(gchar **)p = g_value_dup_string (value);
        break;
      default:
        g_clear_pointer ((GVariant **)p, g_variant_unref);
        *(GVariant **)p = g_value_dup_variant (value);
    }
  g_object_notify_by_pspec (object, pspec);
}

void
dl_lr_scheduler_fields_finalize (GObject *object)
{
  const FieldTable *table = field_table (G_OBJECT_TYPE (object));
  GObjectClass *parent = g_type_class_peek_parent (G_OBJECT_GET_CLASS (object));

  for (guint i = 0; i < table->n_fields; i++)
    {
      gpointer p = G_STRUCT_MEMBER_P (object, table->fields[i].offset);

      if (table->fields[i].type == 's')
        g_clear_pointer ((gchar **)p, g_free);
      else if (table->fields[i].type == 'v' || table->fields[i].type == 'a')
        g_clear_pointer ((GVariant **)p, g_variant_unref);
    }
  parent->finalize (object);
}

void
dl_lr_scheduler_install_fields (GObjectClass *klass, const FieldTable *table)
{
  GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;

  g_type_set_qdata (G_TYPE_FROM_CLASS (klass),
                    g_quark_from_static_string ("dl-lr-scheduler-fields"), (gpointer)table);
  klass->get_property = dl_lr_scheduler_field_get_property;
  klass->set_property = dl_lr_scheduler_field_set_property;
  klass->finalize = dl_lr_scheduler_fields_finalize;
  for (guint i = 0; i < table->n_fields; i++)
    {
      const Field *f = &table->fields[i];
      GParamFlags flags = f->state ? rw : rw | G_PARAM_CONSTRUCT;
      GParamSpec *pspec;

      /* wide ranges: a bad value is a GError of the construction, not a
       * GParamSpec warning */
      switch (f->type)
        {
          case 'd':
            pspec = g_param_spec_double (f->name, NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE,
                                         f->default_value, flags);
            break;
          case 'x':
            pspec = g_param_spec_int64 (f->name, NULL, NULL, G_MININT64, G_MAXINT64,
                                        (gint64)f->default_value, flags);
            break;
          case 'b':
            pspec = g_param_spec_boolean (f->name, NULL, NULL, f->default_value != 0, flags);
            break;
          case 's':
            pspec = g_param_spec_string (f->name, NULL, NULL, f->default_string, flags);
            break;
          case 'a':
            pspec = g_param_spec_variant (f->name, NULL, NULL, G_VARIANT_TYPE ("ad"), NULL, flags);
            break;
          default:
            pspec = g_param_spec_variant (f->name, NULL, NULL, G_VARIANT_TYPE ("ax"), NULL, flags);
        }
      g_object_class_install_property (klass, i + 1, pspec);
    }
}

/* a construct error: the message names the scheduler */
void
dl_lr_scheduler_construct_error (gpointer self, const gchar *format, ...)
{
  va_list args;
  g_autofree gchar *message = NULL;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  dl_lr_scheduler_take_construct_error (
      DL_LR_SCHEDULER (self),
      g_error_new (DL_ERROR, DL_ERROR_ARGUMENT, "%s: %s",
                   dl_lr_scheduler_get_display_name (DL_LR_SCHEDULER (self)), message));
}

void
dl_lr_lambda_slot_set (DlLrLambdaSlot *slot,
                       DlLrLambda fn,
                       gpointer user_data,
                       GDestroyNotify destroy)
{
  if (slot->destroy)
    slot->destroy (slot->user_data);
  slot->fn = fn;
  slot->user_data = user_data;
  slot->destroy = destroy;
}

gdouble
dl_lr_lambda_slot_call (const DlLrLambdaSlot *slot,
                        gpointer self,
                        guint group,
                        gint64 x,
                        const gchar *what,
                        const gchar *setter,
                        GError **error)
{
  GError *local = NULL;
  gdouble value = NAN;

  if (slot->fn == NULL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "%s: no %s (see %s)",
                   dl_lr_scheduler_get_display_name (DL_LR_SCHEDULER (self)), what, setter);
      return NAN;
    }
  slot->fn (group, x, &value, slot->user_data, &local);
  if (local)
    {
      g_propagate_error (error, local);
      return NAN;
    }
  return value;
}

void
dl_lr_scheduler_save_children (GPtrArray *children, GVariantDict *dict)
{
  GVariantBuilder builder;

  g_variant_builder_init (&builder, G_VARIANT_TYPE ("av"));
  for (guint i = 0; i < children->len; i++)
    g_variant_builder_add (&builder, "v", dl_lr_scheduler_get_state (children->pdata[i]));
  g_variant_dict_insert_value (dict, "_schedulers", g_variant_builder_end (&builder));
}

gboolean
dl_lr_scheduler_load_children (gpointer self,
                               GPtrArray *children,
                               GVariantDict *dict,
                               GError **error)
{
  g_autoptr (GVariant) states = g_variant_dict_lookup_value (dict, "_schedulers", NULL);

  if (states == NULL)
    return TRUE;
  if (!g_variant_is_of_type (states, G_VARIANT_TYPE ("av"))
      || g_variant_n_children (states) != children->len)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "%s.load_state_dict: '_schedulers' must be a list of %u states",
                   dl_lr_scheduler_get_display_name (DL_LR_SCHEDULER (self)), children->len);
      return FALSE;
    }
  for (guint i = 0; i < children->len; i++)
    {
      g_autoptr (GVariant) boxed = g_variant_get_child_value (states, i);
      g_autoptr (GVariant) state = g_variant_get_variant (boxed);

      if (!dl_lr_scheduler_set_state (children->pdata[i], state, error))
        return FALSE;
    }
  return TRUE;
}
