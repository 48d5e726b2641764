/* dl-layer-props-private.h: construct properties of the simple layers
 * (pooling, dropout, embedding, the parametrised activations) declared as
 * a table of fields, with one get_property and one set_property for all.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

/* One property: its name, its value type (G_TYPE_INT64, G_TYPE_DOUBLE,
 * G_TYPE_BOOLEAN or an enum type), the offset of its field (gint64,
 * gdouble, gboolean, gint) in the instance struct, and its default. Every
 * value of the type is accepted, so that a bad one reaches constructed()
 * and becomes the module's construct error (a range would only print a
 * warning). */
typedef struct
{
  const gchar *name;
  GType type;
  gssize offset; /* from the instance: G_STRUCT_OFFSET, or G_PRIVATE_OFFSET */
  gdouble default_value;
  gboolean settable; /* also writable after construction (G_PARAM_CONSTRUCT) */
} DlLayerProp;

/* Installs @props (ids from 1) on @klass and its get/set_property; @props
 * must outlive the class (a static table). */
void dl_layer_props_install (GObjectClass *klass, const DlLayerProp *props, guint n_props);
/* Sets each field of @instance to its property's default (for init). */
void dl_layer_props_init (gpointer instance, const DlLayerProp *props, guint n_props);

G_END_DECLS
