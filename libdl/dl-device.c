/* dl-device.c: the device registry and the DlDevice class.
 *
 * One DlDevice exists per physical device for the life of the process;
 * dl_device_get() hands out references to it.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <stdlib.h>

#include "dl-device-private.h"
#include "dl-error.h"
#include "dl-enums.h"

/**
 * DlDevice:
 *
 * A device that tensors live on: the CPU, or a GPU once its backend is
 * available. Get one with dl_device_get(); there is one object per device.
 *
 * Since: 0.1
 */

G_DEFINE_FINAL_TYPE (DlDevice, dl_device, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_DEVICE_TYPE,
  PROP_INDEX,
  PROP_NAME,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
dl_device_finalize (GObject *object)
{
  DlDevice *self = DL_DEVICE (object);

  g_clear_pointer (&self->allocator, dl_allocator_free_all);
  g_free (self->name);
  G_OBJECT_CLASS (dl_device_parent_class)->finalize (object);
}

static void
dl_device_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  DlDevice *self = DL_DEVICE (object);

  switch (prop_id)
    {
      case PROP_DEVICE_TYPE:
        g_value_set_enum (value, self->type);
        break;
      case PROP_INDEX:
        g_value_set_int (value, self->index);
        break;
      case PROP_NAME:
        g_value_set_string (value, self->name);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
dl_device_class_init (DlDeviceClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = dl_device_finalize;
  object_class->get_property = dl_device_get_property;

  /**
   * DlDevice:device-type:
   *
   * The kind of device.
   *
   * Since: 0.1
   */
  properties[PROP_DEVICE_TYPE]
      = g_param_spec_enum ("device-type", NULL, NULL, DL_TYPE_DEVICE_TYPE, DL_DEVICE_TYPE_CPU,
                           G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  /**
   * DlDevice:index:
   *
   * The device's index among devices of its type, -1 for the CPU.
   *
   * Since: 0.1
   */
  properties[PROP_INDEX]
      = g_param_spec_int ("index", NULL, NULL, -1, G_MAXINT, -1,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  /**
   * DlDevice:name:
   *
   * The device's name as PyTorch writes it: "cpu", "cuda:0".
   *
   * Since: 0.1
   */
  properties[PROP_NAME]
      = g_param_spec_string ("name", NULL, NULL, "cpu",
                             G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
dl_device_init (DlDevice *self)
{
  self->type = DL_DEVICE_TYPE_CPU;
  self->index = -1;
}

static guint64
cpu_cache_limit (void)
{
  const gchar *env = g_getenv ("DL_CPU_CACHE_LIMIT");

  if (env)
    return g_ascii_strtoull (env, NULL, 10);
  return (guint64)2 << 30;
}

/* The CPU device: created on first use, kept for the process's life. */
DlDevice *
dl_device_cpu (void)
{
  static gsize cpu = 0;

  if (g_once_init_enter (&cpu))
    {
      DlDevice *device = g_object_new (DL_TYPE_DEVICE, NULL);
      const DlBackend *backend = dl_cpu_backend_get ();

      device->type = DL_DEVICE_TYPE_CPU;
      device->index = -1;
      device->name = g_strdup ("cpu");
      device->context.backend = backend;
      device->context.device_index = -1;
      device->allocator = dl_allocator_new (&device->context, backend->raw_alloc, backend->raw_free,
                                            256 * 1024, cpu_cache_limit ());
      g_once_init_leave (&cpu, (gsize)device);
    }
  return (DlDevice *)cpu;
}

/**
 * dl_device_get:
 * @name: a device name: "cpu", "cuda" or "cuda:N"
 * @error: return location for a #GError
 *
 * Looks a device up by name. Asking for a CUDA device where the CUDA backend
 * is not available is a %DL_ERROR_DEVICE error.
 *
 * Returns: (transfer full): the device, or %NULL with @error set
 *
 * Since: 0.1
 */
DlDevice *
dl_device_get (const gchar *name, GError **error)
{
  g_return_val_if_fail (name != NULL, NULL);

  if (g_str_equal (name, "cpu"))
    return g_object_ref (dl_device_cpu ());
  if (g_str_equal (name, "cuda") || g_str_has_prefix (name, "cuda:"))
    {
      const gchar *idx = name + 4;
      guint64 index = 0;

      if (*idx == ':' && !g_ascii_string_to_unsigned (idx + 1, 10, 0, G_MAXINT, &index, NULL))
        {
          g_set_error (error, DL_ERROR, DL_ERROR_DEVICE, "device: invalid device string '%s'",
                       name);
          return NULL;
        }
      g_set_error (error, DL_ERROR, DL_ERROR_DEVICE,
                   "device: '%s' is not available: this libdl has no CUDA backend "
                   "(it is not built yet; only 'cpu' works)",
                   name);
      return NULL;
    }
  g_set_error (error, DL_ERROR, DL_ERROR_DEVICE,
               "device: expected one of cpu, cuda device type at start of device string: %s", name);
  return NULL;
}

/**
 * dl_device_get_default:
 *
 * Returns: (transfer full): the device tensors are created on when none is
 *   given: the CPU
 *
 * Since: 0.1
 */
DlDevice *
dl_device_get_default (void)
{
  return g_object_ref (dl_device_cpu ());
}

/**
 * dl_device_get_device_type:
 * @self: a #DlDevice
 *
 * Returns: the kind of device
 *
 * Since: 0.1
 */
DlDeviceType
dl_device_get_device_type (DlDevice *self)
{
  g_return_val_if_fail (DL_IS_DEVICE (self), DL_DEVICE_TYPE_CPU);
  return self->type;
}

/**
 * dl_device_get_index:
 * @self: a #DlDevice
 *
 * Returns: the index among devices of the same type, -1 for the CPU
 *
 * Since: 0.1
 */
gint
dl_device_get_index (DlDevice *self)
{
  g_return_val_if_fail (DL_IS_DEVICE (self), -1);
  return self->index;
}

/**
 * dl_device_get_name:
 * @self: a #DlDevice
 *
 * Returns: (transfer none): the name, as in "cpu" or "cuda:0"
 *
 * Since: 0.1
 */
const gchar *
dl_device_get_name (DlDevice *self)
{
  g_return_val_if_fail (DL_IS_DEVICE (self), NULL);
  return self->name;
}

/**
 * dl_device_equal:
 * @self: a #DlDevice
 * @other: another #DlDevice
 *
 * Returns: whether both name the same device
 *
 * Since: 0.1
 */
gboolean
dl_device_equal (DlDevice *self, DlDevice *other)
{
  return self == other;
}

static DlAllocatorStats
device_stats (DlDevice *self)
{
  DlAllocatorStats stats = { 0 };

  if (self->allocator)
    dl_allocator_get_stats (self->allocator, &stats);
  return stats;
}

/**
 * dl_device_get_memory_allocated:
 * @self: a #DlDevice
 *
 * Returns: the bytes of tensor storage now allocated on the device
 *
 * Since: 0.1
 */
guint64
dl_device_get_memory_allocated (DlDevice *self)
{
  g_return_val_if_fail (DL_IS_DEVICE (self), 0);
  return device_stats (self).allocated;
}

/**
 * dl_device_get_max_memory_allocated:
 * @self: a #DlDevice
 *
 * Returns: the most bytes of tensor storage allocated at once so far
 *
 * Since: 0.1
 */
guint64
dl_device_get_max_memory_allocated (DlDevice *self)
{
  g_return_val_if_fail (DL_IS_DEVICE (self), 0);
  return device_stats (self).peak_allocated;
}

/**
 * dl_device_get_memory_reserved:
 * @self: a #DlDevice
 *
 * Returns: the bytes held by the caching allocator: allocated plus cached
 *
 * Since: 0.1
 */
guint64
dl_device_get_memory_reserved (DlDevice *self)
{
  g_return_val_if_fail (DL_IS_DEVICE (self), 0);
  return device_stats (self).reserved;
}

/**
 * dl_device_empty_cache:
 * @self: a #DlDevice
 *
 * Gives the blocks the caching allocator holds back to the system.
 *
 * Since: 0.1
 */
void
dl_device_empty_cache (DlDevice *self)
{
  g_return_if_fail (DL_IS_DEVICE (self));
  if (self->allocator)
    dl_allocator_empty_cache (self->allocator);
}

/**
 * dl_device_synchronize:
 * @self: a #DlDevice
 *
 * Waits until all work queued on the device has finished. A no-op on the
 * CPU, whose kernels run synchronously.
 *
 * Since: 0.1
 */
void
dl_device_synchronize (DlDevice *self)
{
  g_return_if_fail (DL_IS_DEVICE (self));
  if (self->context.backend->synchronize)
    self->context.backend->synchronize (&self->context);
}
