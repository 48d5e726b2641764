/* dl-layer-props.c: construct properties from a table of fields (see
 * dl-layer-props-private.h).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-layer-props-private.h"

static GQuark
offset_quark (void)
{
  return g_quark_from_static_string ("dl-layer-prop-offset");
}

static gpointer
field (GObject *object, GParamSpec *pspec)
{
  const gssize *offset = g_param_spec_get_qdata (pspec, offset_quark ());

  return G_STRUCT_MEMBER_P (object, *offset);
}

static void
layer_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  gpointer f = field (object, pspec);

  switch (G_TYPE_FUNDAMENTAL (G_PARAM_SPEC_VALUE_TYPE (pspec)))
    {
    case G_TYPE_INT64:
      g_value_set_int64 (value, *(gint64 *)f);
      break;
    case G_TYPE_DOUBLE:
      g_value_set_double (value, *(gdouble *)f);
      break;
    case G_TYPE_BOOLEAN:
      g_value_set_boolean (value, *(gboolean *)f);
      break;
    case G_TYPE_ENUM:
      g_value_set_enum (value, *(gint *)f);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
layer_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  gpointer f = field (object, pspec);

  switch (G_TYPE_FUNDAMENTAL (G_PARAM_SPEC_VALUE_TYPE (pspec)))
    {
    case G_TYPE_INT64:
      *(gint64 *)f = g_value_get_int64 (value);
      break;
    case G_TYPE_DOUBLE:
      *(gdouble *)f = g_value_get_double (value);
      break;
    case G_TYPE_BOOLEAN:
      *(gboolean *)f = g_value_get_boolean (value);
      break;
    case G_TYPE_ENUM:
      *(gint *)f = g_value_get_enum (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

void
dl_layer_props_install (GObjectClass *klass, const DlLayerProp *props, guint n_props)
{
  const GParamFlags common = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;

  klass->get_property = layer_get_property;
  klass->set_property = layer_set_property;
  for (guint i = 0; i < n_props; i++)
    {
      const DlLayerProp *p = &props[i];
      const GParamFlags flags = common | (p->settable ? G_PARAM_CONSTRUCT : G_PARAM_CONSTRUCT_ONLY);
      GParamSpec *pspec;

      if (p->type == G_TYPE_INT64)
        pspec = g_param_spec_int64 (p->name, NULL, NULL, G_MININT64, G_MAXINT64,
                                    (gint64)p->default_value, flags);
      else if (p->type == G_TYPE_DOUBLE)
        pspec = g_param_spec_double (p->name, NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE,
                                     p->default_value, flags);
      else if (p->type == G_TYPE_BOOLEAN)
        pspec = g_param_spec_boolean (p->name, NULL, NULL, p->default_value != 0, flags);
      else
        pspec = g_param_spec_enum (p->name, NULL, NULL, p->type, (gint)p->default_value, flags);
      g_param_spec_set_qdata (pspec, offset_quark (), (gpointer)&p->offset);
      g_object_class_install_property (klass, i + 1, pspec);
    }
}

void
dl_layer_props_init (gpointer instance, const DlLayerProp *props, guint n_props)
{
  for (guint i = 0; i < n_props; i++)
    {
      gpointer f = G_STRUCT_MEMBER_P (instance, props[i].offset);

      if (props[i].type == G_TYPE_INT64)
        *(gint64 *)f = (gint64)props[i].default_value;
      else if (props[i].type == G_TYPE_DOUBLE)
        *(gdouble *)f = props[i].default_value;
      else if (props[i].type == G_TYPE_BOOLEAN)
        *(gboolean *)f = props[i].default_value != 0;
      else
        *(gint *)f = (gint)props[i].default_value;
    }
}
