/* dl-device.c: the device registry and the DlDevice class.
 *
 * One DlDevice exists per physical device for the life of the process;
 * dl_device_get() hands out references to it.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define _GNU_SOURCE /* dladdr */
#include "config.h"
#include "dl-mutex-private.h"

#include <dlfcn.h>
#include <gmodule.h>
#include <stdlib.h>
#include <string.h>

#include "dl-device-private.h"
#include "dl-stream-private.h"
#include "dl-error.h"
#include "dl-enums.h"

/**
 * DlDevice:
 *
 * A device that tensors live on: the CPU, the meta device (tensors with
 * a shape, a dtype and strides but no data, to work out what a model's
 * ops make without computing or allocating anything), or a GPU once its
 * backend is available. Get one with dl_device_get(); there is one
 * object per device.
 *
 * Since: 0.1
 */

/**
 * DlDeviceClass:
 * @parent_class: the class of GObject
 *
 * The class structure of #DlDevice. The type is final: its class adds no
 * virtual method to that of GObject, and it cannot be subclassed.
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
  PROP_PRODUCT_NAME,
  PROP_TOTAL_MEMORY,
  PROP_MULTI_PROCESSOR_COUNT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
dl_device_finalize (GObject *object)
{
  DlDevice *self = DL_DEVICE (object);

  g_clear_pointer (&self->allocator, dl_allocator_free_all);
  if (self->context.status)
    self->context.backend->raw_free (&self->context, self->context.status, sizeof (DlKernelStatus));
  if (self->context_clear)
    self->context_clear (&self->context);
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
      case PROP_PRODUCT_NAME:
        g_value_set_string (value, self->info.product_name);
        break;
      case PROP_TOTAL_MEMORY:
        g_value_set_uint64 (value, self->info.total_memory);
        break;
      case PROP_MULTI_PROCESSOR_COUNT:
        g_value_set_int (value, self->info.multi_processor_count);
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
  /**
   * DlDevice:product-name:
   *
   * What the device is, as its backend names it: a GPU's product name
   * ("NVIDIA H200"), the CPU's model name, "meta" for the meta device.
   *
   * Since: 0.1
   */
  properties[PROP_PRODUCT_NAME]
      = g_param_spec_string ("product-name", NULL, NULL, NULL,
                             G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  /**
   * DlDevice:total-memory:
   *
   * The device's memory in bytes (the machine's for the CPU, 0 for meta).
   *
   * Since: 0.1
   */
  properties[PROP_TOTAL_MEMORY]
      = g_param_spec_uint64 ("total-memory", NULL, NULL, 0, G_MAXUINT64, 0,
                             G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  /**
   * DlDevice:multi-processor-count:
   *
   * A GPU's streaming multiprocessors, the CPU's logical processors, 0 for
   * meta.
   *
   * Since: 0.1
   */
  properties[PROP_MULTI_PROCESSOR_COUNT]
      = g_param_spec_int ("multi-processor-count", NULL, NULL, 0, G_MAXINT, 0,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
dl_device_init (DlDevice *self)
{
  self->type = DL_DEVICE_TYPE_CPU;
  self->index = -1;
}

/* ---- the registry -------------------------------------------------------
 * Device types in the order they registered, each with its devices (made
 * on first lookup, kept for the process's life). One lock guards it all;
 * lookups of the CPU device skip it (dl_device_cpu caches the pointer). */

typedef struct
{
  DlDeviceTypeInfo info;
  gchar *type; /* info.type, owned */
  gint n_devices;
  DlDevice **devices; /* n_devices, each NULL until first asked for */
} DeviceType;

/* Types libdl knows of without a backend in this build: asking for one is
 * a clear "not available" rather than an unknown type. */
static const struct
{
  const gchar *type;
} reserved_types[] = {
  { "cuda" },
};

static GMutex registry_lock;
static GPtrArray *registry; /* of DeviceType, guarded by registry_lock */

static DeviceType *
find_type_locked (const gchar *type, gsize len)
{
  for (guint i = 0; i < registry->len; i++)
    {
      DeviceType *t = g_ptr_array_index (registry, i);
      if (strlen (t->type) == len && strncmp (t->type, type, len) == 0)
        return t;
    }
  return NULL;
}

static gboolean
register_type_locked (const DlDeviceTypeInfo *info, GError **error)
{
  DeviceType *t;

  if (find_type_locked (info->type, strlen (info->type)))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DEVICE,
                   "device: a backend for the device type '%s' is already registered", info->type);
      return FALSE;
    }
  t = g_new0 (DeviceType, 1);
  t->info = *info;
  t->type = g_strdup (info->type);
  t->info.type = t->type;
  t->n_devices = -1; /* asked on first lookup */
  g_ptr_array_add (registry, t);
  return TRUE;
}

/* Takes the lock, registering the built-in CPU backend on first use. */
static void
registry_lock_and_init (void)
{
  dl_mutex_lock (&registry_lock);
  if (G_UNLIKELY (registry == NULL))
    {
      DlDeviceTypeInfo cpu, meta;

      registry = g_ptr_array_new ();
      dl_cpu_get_device_type_info (&cpu);
      register_type_locked (&cpu, NULL);
      dl_meta_get_device_type_info (&meta);
      register_type_locked (&meta, NULL);
    }
}

/* ---- the CUDA module ------------------------------------------------------
 * libdl-cuda-1.0.so, opened once, on the first lookup of a "cuda" device or
 * call of dl_cuda_is_available() / dl_cuda_device_count(), with the
 * registry's lock held. It is looked for in $DL_BACKEND_PATH when that is
 * set (and only there), else beside libdl: in dl-1.0/ (installed) or in
 * backends/cuda/ (the build tree), then in the configured DL_BACKEND_DIR.
 * Its entry point registers the "cuda" type, or says why there is none
 * (no driver, no device); cuda_unavailable keeps that reason. */

#define DL_CUDA_MODULE_NAME "libdl-cuda-1.0.so"

typedef gboolean (*DlCudaModuleInit) (DlDeviceTypeInfo *info, GError **error);

static gboolean cuda_tried;
static gchar *cuda_unavailable; /* why "cuda" is not registered, once tried */

static gboolean register_type_locked (const DlDeviceTypeInfo *info, GError **error);

/* The directories to look for a module in, in order: $DL_BACKEND_PATH
 * when set (and only there), else beside libdl in dl-1.0/ (installed) or
 * in @build_subdir (the build tree, relative to libdl's folder), then
 * DL_BACKEND_DIR */
static GPtrArray *
module_dirs (const gchar *build_subdir)
{
  GPtrArray *dirs = g_ptr_array_new_with_free_func (g_free);
  const gchar *env = g_getenv ("DL_BACKEND_PATH");
  Dl_info self;

  if (env != NULL)
    {
      g_auto (GStrv) parts = g_strsplit (env, G_SEARCHPATH_SEPARATOR_S, -1);

      for (gsize i = 0; parts[i]; i++)
        if (*parts[i])
          g_ptr_array_add (dirs, g_strdup (parts[i]));
      return dirs;
    }
  if (dladdr ((void *)module_dirs, &self) && self.dli_fname)
    {
      g_autofree gchar *libdir = g_path_get_dirname (self.dli_fname);

      g_ptr_array_add (dirs, g_build_filename (libdir, "dl-1.0", NULL));
      g_ptr_array_add (dirs, g_build_filename (libdir, build_subdir, NULL));
    }
  g_ptr_array_add (dirs, g_strdup (DL_BACKEND_DIR));
  return dirs;
}

/* Where the module @file_name is (see dl-device-private.h) */
gchar *
dl_backend_module_find (const gchar *file_name, const gchar *build_subdir, gchar **searched)
{
  g_autoptr (GPtrArray) dirs = module_dirs (build_subdir);
  g_autoptr (GString) where = g_string_new (NULL);

  for (guint i = 0; i < dirs->len; i++)
    {
      gchar *candidate = g_build_filename (g_ptr_array_index (dirs, i), file_name, NULL);

      if (g_file_test (candidate, G_FILE_TEST_IS_REGULAR))
        return candidate;
      g_free (candidate);
      g_string_append_printf (where, "%s%s", i ? ", " : "", (gchar *)g_ptr_array_index (dirs, i));
    }
  if (searched)
    *searched = g_strdup_printf ("%s%s", where->len ? where->str : "nothing",
                                 g_getenv ("DL_BACKEND_PATH") ? ", from DL_BACKEND_PATH" : "");
  return NULL;
}

static void
cuda_load_locked (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *path = NULL;
  g_autofree gchar *where = NULL;
  DlCudaModuleInit init = NULL;
  DlDeviceTypeInfo info;
  GModule *module;

  if (cuda_tried)
    return;
  cuda_tried = TRUE;
  path = dl_backend_module_find (DL_CUDA_MODULE_NAME, "backends/cuda", &where);
  if (path == NULL)
    {
#ifdef DL_HAVE_CUDA_MODULE
      cuda_unavailable = g_strdup_printf ("the CUDA backend module %s was not found (looked in %s)",
                                          DL_CUDA_MODULE_NAME, where);
#else
      cuda_unavailable = g_strdup_printf ("the CUDA backend module %s was not built (this libdl "
                                          "was configured without it; looked in %s)",
                                          DL_CUDA_MODULE_NAME, where);
#endif
      return;
    }
  /* kept open for the process's life: the registry points into it */
  module = g_module_open (path, G_MODULE_BIND_LOCAL);
  if (module == NULL)
    {
      cuda_unavailable = g_strdup_printf ("the CUDA backend module %s cannot be loaded: %s", path,
                                          g_module_error ());
      return;
    }
  if (!g_module_symbol (module, "dl_cuda_module_init", (gpointer *)&init) || init == NULL)
    {
      cuda_unavailable
          = g_strdup_printf ("the CUDA backend module %s has no dl_cuda_module_init", path);
      g_module_close (module);
      return;
    }
  g_module_make_resident (module);
  if (!init (&info, &error) || !register_type_locked (&info, &error))
    cuda_unavailable = g_strdup (error->message);
}

/* Adds a backend's device type (@info is copied) to the registry, so that
 * dl_device_get() finds its devices; FALSE with @error set when the type
 * is already registered. Private to libdl and its backends. */
gboolean
dl_device_register_type (const DlDeviceTypeInfo *info, GError **error)
{
  gboolean ok;

  g_return_val_if_fail (info != NULL && info->type != NULL && info->backend != NULL, FALSE);
  g_return_val_if_fail (info->backend->raw_alloc && info->backend->raw_free
                            && info->backend->copy_to_host && info->backend->copy_from_host,
                        FALSE);
  registry_lock_and_init ();
  ok = register_type_locked (info, error);
  dl_mutex_unlock (&registry_lock);
  return ok;
}

static void
append_known_types_locked (GString *out)
{
  for (guint i = 0; i < registry->len; i++)
    {
      DeviceType *t = g_ptr_array_index (registry, i);
      g_string_append_printf (out, "%s%s", out->len ? ", " : "", t->type);
    }
  for (gsize i = 0; i < G_N_ELEMENTS (reserved_types); i++)
    if (!find_type_locked (reserved_types[i].type, strlen (reserved_types[i].type)))
      g_string_append_printf (out, "%s%s", out->len ? ", " : "", reserved_types[i].type);
}

/* The device @index of @t, made on first use. */
static DlDevice *
get_device_locked (DeviceType *t, gint index, GError **error)
{
  gint slot = t->info.indexed ? index : 0;
  DlDevice *device;

  if (t->devices[slot])
    return t->devices[slot];
  device = g_object_new (DL_TYPE_DEVICE, NULL);
  device->type = t->info.device_type;
  device->index = t->info.indexed ? index : -1;
  device->name = t->info.indexed ? g_strdup_printf ("%s:%d", t->type, index) : g_strdup (t->type);
  device->context.backend = t->info.backend;
  device->context.device_index = device->index;
  device->context.current_stream = dl_stream_context_current;
  if (t->info.context_init && !t->info.context_init (&device->context, error))
    {
      g_prefix_error (error, "device: cannot open '%s': ", device->name);
      g_object_unref (device);
      return NULL;
    }
  device->context_clear = t->info.context_clear;
  g_strlcpy (device->info.product_name, t->info.type, sizeof device->info.product_name);
  if (t->info.get_info)
    t->info.get_info (&device->context, &device->info);
  if (!t->info.backend->host_memory && !t->info.backend->meta)
    {
      /* where its kernels report failed checks (see DlKernelStatus) */
      static const DlKernelStatus ok = { DL_KERNEL_OK };
      DlBackendContext *ctx = &device->context;

      if (!(ctx->status = ctx->backend->raw_alloc (ctx, sizeof (DlKernelStatus))))
        {
          g_set_error (error, DL_ERROR, DL_ERROR_OUT_OF_MEMORY,
                       "device: cannot open '%s': out of memory", device->name);
          g_object_unref (device);
          return NULL;
        }
      ctx->backend->copy_from_host (ctx, ctx->status, &ok, sizeof ok);
    }
  device->allocator
      = dl_allocator_new (&device->context, t->info.backend->raw_alloc, t->info.backend->raw_free,
                          t->info.min_cached_size, t->info.cache_limit);
  t->devices[slot] = device;
  return device;
}

/* How many devices @t has, asked of its backend on first use. */
static gint
count_devices_locked (DeviceType *t)
{
  if (t->n_devices < 0)
    {
      t->n_devices = t->info.indexed && t->info.device_count ? t->info.device_count () : 1;
      t->n_devices = MAX (t->n_devices, 0);
      t->devices = g_new0 (DlDevice *, MAX (t->n_devices, 1));
    }
  return t->n_devices;
}

/* Parses "type" or "type:N" and finds (or makes) the device. */
static DlDevice *
lookup_locked (const gchar *name, GError **error)
{
  const gchar *colon = strchr (name, ':');
  gsize len = colon ? (gsize)(colon - name) : strlen (name);
  DeviceType *t = find_type_locked (name, len);
  guint64 index = 0;

  if (t == NULL)
    {
      gsize r;

      for (r = 0; r < G_N_ELEMENTS (reserved_types); r++)
        if (strlen (reserved_types[r].type) == len
            && strncmp (reserved_types[r].type, name, len) == 0)
          break;
      if (r < G_N_ELEMENTS (reserved_types))
        {
          if (colon && !g_ascii_string_to_unsigned (colon + 1, 10, 0, G_MAXINT, &index, NULL))
            {
              g_set_error (error, DL_ERROR, DL_ERROR_DEVICE, "device: invalid device string '%s'",
                           name);
              return NULL;
            }
          if (strcmp (reserved_types[r].type, "cuda") == 0)
            {
              cuda_load_locked ();
              t = find_type_locked (name, len);
            }
          if (t == NULL)
            {
              g_set_error (error, DL_ERROR, DL_ERROR_DEVICE, "device: '%s' is not available: %s",
                           name,
                           cuda_unavailable ? cuda_unavailable : "its backend is not available");
              return NULL;
            }
        }
    }
  if (t == NULL || (colon && !t->info.indexed))
    {
      g_autoptr (GString) known = g_string_new (NULL);

      append_known_types_locked (known);
      g_set_error (error, DL_ERROR, DL_ERROR_DEVICE,
                   "device: expected one of %s device type at start of device string: %s",
                   known->str, name);
      return NULL;
    }
  if (colon && !g_ascii_string_to_unsigned (colon + 1, 10, 0, G_MAXINT, &index, NULL))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DEVICE, "device: invalid device string '%s'", name);
      return NULL;
    }
  count_devices_locked (t);
  if (t->info.indexed && (gint64)index >= t->n_devices)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DEVICE,
                   "device: '%s' is not available: there %s %d %s device%s", name,
                   t->n_devices == 1 ? "is" : "are", t->n_devices, t->type,
                   t->n_devices == 1 ? "" : "s");
      return NULL;
    }
  return get_device_locked (t, (gint)index, error);
}

/* The CPU device: created on first use, kept for the process's life. */
DlDevice *
dl_device_cpu (void)
{
  static gsize cpu = 0;

  if (g_once_init_enter (&cpu))
    {
      DlDevice *device;

      registry_lock_and_init ();
      device = lookup_locked ("cpu", NULL);
      dl_mutex_unlock (&registry_lock);
      g_assert (device != NULL);
      g_once_init_leave (&cpu, (gsize)device);
    }
  return (DlDevice *)cpu;
}

/**
 * dl_device_get:
 * @name: a device name: "cpu", "meta", "cuda" or "cuda:N"
 * @error: return location for a #GError
 *
 * Looks a device up by name: a device type ("cpu", "meta", "cuda"), and for a
 * type whose devices are numbered an optional ":N" ("cuda" is "cuda:0").
 * Device types come from the backends this libdl has; asking for a CUDA
 * device where the CUDA backend is not available is a %DL_ERROR_DEVICE
 * error, as is an unknown type.
 *
 * Returns: (transfer full): the device, or %NULL with @error set
 *
 * Since: 0.1
 */
DlDevice *
dl_device_get (const gchar *name, GError **error)
{
  DlDevice *device;

  g_return_val_if_fail (name != NULL, NULL);

  if (g_str_equal (name, "cpu"))
    return g_object_ref (dl_device_cpu ());
  registry_lock_and_init ();
  device = lookup_locked (name, error);
  if (device)
    g_object_ref (device);
  dl_mutex_unlock (&registry_lock);
  return device;
}

/* Reads the checks the kernels of a device backend reported since the last
 * read (see DlKernelStatus) and clears them: FALSE with @error set, the
 * message prefixed with @op (the synchronising read), when one failed.
 * Always TRUE on a host-memory backend, whose ops read theirs at once. */
gboolean
dl_device_take_kernel_status (DlDevice *self, const gchar *op, GError **error)
{
  static const DlKernelStatus ok = { DL_KERNEL_OK };
  DlBackendContext *ctx = &self->context;
  DlKernelStatus status;
  g_autofree gchar *what = NULL;

  if (ctx->status == NULL)
    return TRUE;
  ctx->backend->copy_to_host (ctx, &status, ctx->status, sizeof status);
  if (status.error == DL_KERNEL_OK)
    return TRUE;
  ctx->backend->copy_from_host (ctx, ctx->status, &ok, sizeof ok);
  switch (status.error)
    {
      case DL_KERNEL_INDEX_OUT_OF_BOUNDS:
        what = g_strdup_printf ("index %" G_GINT64_FORMAT " is out of bounds", status.value);
        break;
      case DL_KERNEL_BAD_WEIGHT:
        what = g_strdup ("multinomial: probability tensor contains either inf, nan or element < 0");
        break;
      case DL_KERNEL_ZERO_SUM:
        what = g_strdup (
            "multinomial: invalid multinomial distribution (sum of probabilities <= 0)");
        break;
      default:
        what = g_strdup_printf ("kernel error %d", status.error);
    }
  g_set_error (error, DL_ERROR,
               status.error == DL_KERNEL_INDEX_OUT_OF_BOUNDS ? DL_ERROR_INDEX : DL_ERROR_ARGUMENT,
               "%s: a kernel on device '%s' failed a check (a device-side assert, reported at "
               "the next synchronisation): %s",
               op, self->name, what);
  return FALSE;
}

/* the calling thread's default device (dl_set_default_device); NULL for
 * the CPU. No reference: devices live as long as the process. */
static __thread DlDevice *thread_default;

DlDevice *
dl_device_default (void)
{
  return thread_default ? thread_default : dl_device_cpu ();
}

/**
 * dl_device_get_default:
 *
 * Gives the device that tensors are made on when none is given, as
 * `torch.get_default_device ()`: the CPU. Creation functions take %NULL for
 * it.
 *
 * Returns: (transfer full): the device tensors are created on when none is
 *   given: the CPU, unless dl_set_default_device() chose another for the
 *   calling thread
 *
 * Since: 0.1
 */
DlDevice *
dl_device_get_default (void)
{
  return g_object_ref (dl_device_default ());
}

/**
 * dl_set_default_device:
 * @device: (nullable): the device, or %NULL for the CPU
 *
 * Chooses the device that factories (dl_empty(), dl_zeros(), ... and the
 * parameters and buffers modules make) use when given none, for the
 * calling thread, as torch.set_default_device(). Building a model with
 * the meta device as the default sizes it without allocating memory.
 *
 * Since: 0.1
 */
void
dl_set_default_device (DlDevice *device)
{
  g_return_if_fail (device == NULL || DL_IS_DEVICE (device));
  thread_default = device == dl_device_cpu () ? NULL : device;
}

/**
 * dl_set_num_threads:
 * @n: the number of threads, at least 1
 * @error: return location for a #GError
 *
 * Sets how many threads the CPU kernels and the matrix products started
 * from the calling thread run on, as torch.set_num_threads(). It is
 * OpenMP's thread count of the calling thread (`omp_set_num_threads()`),
 * which the OpenBLAS libdl calls follows as well, and which PyTorch sets
 * too: in one process both libraries share it. Threads that the program
 * starts afterwards begin with the process's count (`OMP_NUM_THREADS`,
 * else one per core); a #DlTrainer's threads take the count of the thread
 * that starts their job.
 *
 * Returns: %TRUE, or %FALSE with %DL_ERROR_ARGUMENT when @n is below 1
 *
 * Since: 0.1
 */
gboolean
dl_set_num_threads (gint n, GError **error)
{
  if (n < 1)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "set_num_threads expects a positive integer, got %d", n);
      return FALSE;
    }
  dl_cpu_set_num_threads (n);
  return TRUE;
}

/**
 * dl_get_num_threads:
 *
 * Gives how many threads the CPU kernels started from the calling thread
 * run on (torch.get_num_threads()): the count dl_set_num_threads() set
 * in this thread, else the process's (`OMP_NUM_THREADS`, else one per
 * core).
 *
 * Returns: the number of threads, at least 1
 *
 * Since: 0.1
 */
gint
dl_get_num_threads (void)
{
  return dl_cpu_get_num_threads ();
}

/**
 * dl_set_flush_denormal:
 * @enabled: whether to flush denormal floats to zero
 *
 * Turns flushing of denormal (subnormal) floating-point numbers to zero on
 * or off for the CPU kernels, as torch.set_flush_denormal(): on x86 it
 * sets or clears the flush-to-zero and denormals-are-zero bits of the
 * MXCSR register of the calling thread and of the threads of its OpenMP
 * pool, which run the kernels it starts (threads started later inherit
 * the calling thread's setting). Denormal inputs then read as zero and
 * results that would be denormal are zero, which spares the slow path
 * many CPUs take for them. Other threads keep their own setting.
 *
 * Returns: %TRUE, or %FALSE where the CPU has no such mode (nothing
 *   changes then), as PyTorch answers
 *
 * Since: 0.1
 */
gboolean
dl_set_flush_denormal (gboolean enabled)
{
  return dl_cpu_set_flush_denormal (enabled);
}

/**
 * dl_device_get_device_type:
 * @self: a #DlDevice
 *
 * Gives the kind of the device, as `torch.device.type`: %DL_DEVICE_TYPE_CPU
 * or %DL_DEVICE_TYPE_CUDA.
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
 * Gives the number of the device among the devices of its type, as
 * `torch.device.index`: 0 for "cuda:0". The CPU has no index and gives -1
 * (where PyTorch has None).
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
 * Gives the device's name as PyTorch writes it: "cpu", "cuda:0". The string
 * belongs to the device.
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
 * dl_device_get_product_name:
 * @self: a #DlDevice
 *
 * Gives what the device is, as its backend names it: a GPU's product name
 * ("NVIDIA H200", as `torch.cuda.get_device_name ()`), the CPU's model
 * name, or "meta". The string belongs to the device.
 *
 * Returns: (transfer none): the product name
 *
 * Since: 0.1
 */
const gchar *
dl_device_get_product_name (DlDevice *self)
{
  g_return_val_if_fail (DL_IS_DEVICE (self), NULL);
  return self->info.product_name;
}

/**
 * dl_device_get_total_memory:
 * @self: a #DlDevice
 *
 * Gives the device's memory: a GPU's global memory, the machine's physical
 * memory for the CPU, 0 for meta (`total_memory` of
 * `torch.cuda.get_device_properties ()`).
 *
 * Returns: the memory in bytes
 *
 * Since: 0.1
 */
guint64
dl_device_get_total_memory (DlDevice *self)
{
  g_return_val_if_fail (DL_IS_DEVICE (self), 0);
  return self->info.total_memory;
}

/**
 * dl_device_get_multi_processor_count:
 * @self: a #DlDevice
 *
 * Gives a GPU's streaming multiprocessors, or the CPU's logical processors
 * (0 for meta), as `multi_processor_count` of
 * `torch.cuda.get_device_properties ()`.
 *
 * Returns: the count
 *
 * Since: 0.1
 */
gint
dl_device_get_multi_processor_count (DlDevice *self)
{
  g_return_val_if_fail (DL_IS_DEVICE (self), 0);
  return self->info.multi_processor_count;
}

/**
 * dl_device_get_capability:
 * @self: a #DlDevice
 * @major: (out) (optional): where to store the major version
 * @minor: (out) (optional): where to store the minor version
 *
 * Gives a GPU's compute capability, as
 * `torch.cuda.get_device_capability ()` (9.0 for an H100 or H200); 0.0
 * for the CPU and meta.
 *
 * Since: 0.1
 */
void
dl_device_get_capability (DlDevice *self, gint *major, gint *minor)
{
  g_return_if_fail (DL_IS_DEVICE (self));
  if (major)
    *major = self->info.major;
  if (minor)
    *minor = self->info.minor;
}

/**
 * dl_device_equal:
 * @self: a #DlDevice
 * @other: another #DlDevice
 *
 * Says whether @self and @other name the same device: the same type and
 * index, as `==` on two `torch.device`. Devices are shared objects, but
 * comparing them with this function does not depend on that.
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

/* a boxed type, so the bindings copy and free the figures */
G_DEFINE_BOXED_TYPE (DlMemoryStats, dl_memory_stats, dl_memory_stats_copy, dl_memory_stats_free)

/**
 * dl_memory_stats_copy:
 * @self: a #DlMemoryStats
 *
 * Copies the figures.
 *
 * Returns: (transfer full): a copy of @self, to free with dl_memory_stats_free()
 *
 * Since: 0.1
 */
DlMemoryStats *
dl_memory_stats_copy (const DlMemoryStats *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return g_memdup2 (self, sizeof *self);
}

/**
 * dl_memory_stats_free:
 * @self: (transfer full): a #DlMemoryStats
 *
 * Frees figures that dl_device_get_memory_stats() or dl_memory_stats_copy()
 * returned.
 *
 * Since: 0.1
 */
void
dl_memory_stats_free (DlMemoryStats *self)
{
  g_free (self);
}

/* The device's figures: its backend's own allocator's when it has one
 * (the stream allocator of CUDA), else libdl's allocator's. */
static DlMemoryStats
device_stats (DlDevice *self)
{
  DlMemoryStats stats = { 0 };
  DlAllocatorStats a = { 0 };

  if (self->context.backend->memory_stats)
    {
      self->context.backend->memory_stats (&self->context, &stats);
      return stats;
    }
  if (self->allocator)
    dl_allocator_get_stats (self->allocator, &a);
  stats.allocated_bytes = a.allocated;
  stats.max_allocated_bytes = a.peak_allocated;
  stats.reserved_bytes = a.reserved;
  stats.max_reserved_bytes = a.peak_reserved;
  stats.cached_bytes = a.cached;
  return stats;
}

/**
 * dl_device_get_memory_allocated:
 * @self: a #DlDevice
 *
 * Gives the number of bytes of tensor storage allocated on the device now,
 * as `torch.cuda.memory_allocated ()`. A device whose allocator keeps no
 * count gives 0.
 *
 * Returns: the bytes of tensor storage now allocated on the device
 *
 * Since: 0.1
 */
guint64
dl_device_get_memory_allocated (DlDevice *self)
{
  g_return_val_if_fail (DL_IS_DEVICE (self), 0);
  return device_stats (self).allocated_bytes;
}

/**
 * dl_device_get_max_memory_allocated:
 * @self: a #DlDevice
 *
 * Gives the peak of dl_device_get_memory_allocated() since the program
 * started or dl_device_reset_peak_memory_stats() was last called, as
 * `torch.cuda.max_memory_allocated ()`.
 *
 * Returns: the most bytes of tensor storage allocated at once so far
 *
 * Since: 0.1
 */
guint64
dl_device_get_max_memory_allocated (DlDevice *self)
{
  g_return_val_if_fail (DL_IS_DEVICE (self), 0);
  return device_stats (self).max_allocated_bytes;
}

/**
 * dl_device_get_memory_reserved:
 * @self: a #DlDevice
 *
 * Gives the number of bytes the device's caching allocator holds: the memory
 * allocated to tensors plus freed blocks it keeps for reuse, as
 * `torch.cuda.memory_reserved ()`.
 *
 * Returns: the bytes held by the caching allocator: allocated plus cached
 *
 * Since: 0.1
 */
guint64
dl_device_get_memory_reserved (DlDevice *self)
{
  g_return_val_if_fail (DL_IS_DEVICE (self), 0);
  return device_stats (self).reserved_bytes;
}

/**
 * dl_device_get_max_memory_reserved:
 * @self: a #DlDevice
 *
 * Gives the peak of dl_device_get_memory_reserved() since the program
 * started or dl_device_reset_peak_memory_stats() was last called, as
 * `torch.cuda.max_memory_reserved ()`.
 *
 * Returns: the most bytes the caching allocator has held at once so far
 *
 * Since: 0.1
 */
guint64
dl_device_get_max_memory_reserved (DlDevice *self)
{
  g_return_val_if_fail (DL_IS_DEVICE (self), 0);
  return device_stats (self).max_reserved_bytes;
}

/**
 * dl_device_get_memory_stats:
 * @self: a #DlDevice
 *
 * Reads every memory figure of the device at once, as
 * `torch.cuda.memory_stats ()`: bytes allocated and reserved with their
 * peaks, and how fragmented the cached memory is (see #DlMemoryStats).
 *
 * Returns: (transfer full): the figures, to free with dl_memory_stats_free()
 *
 * Since: 0.1
 */
DlMemoryStats *
dl_device_get_memory_stats (DlDevice *self)
{
  DlMemoryStats stats;

  g_return_val_if_fail (DL_IS_DEVICE (self), NULL);
  stats = device_stats (self);
  return dl_memory_stats_copy (&stats);
}

/**
 * dl_device_reset_peak_memory_stats:
 * @self: a #DlDevice
 *
 * Starts the peaks of allocated and reserved memory again from what is
 * allocated and reserved now, as `torch.cuda.reset_peak_memory_stats ()`.
 *
 * Since: 0.1
 */
void
dl_device_reset_peak_memory_stats (DlDevice *self)
{
  g_return_if_fail (DL_IS_DEVICE (self));
  if (self->context.backend->memory_reset_peaks)
    self->context.backend->memory_reset_peaks (&self->context);
  if (self->allocator)
    dl_allocator_reset_peaks (self->allocator);
}

/**
 * dl_device_empty_cache:
 * @self: a #DlDevice
 *
 * Gives the blocks the caching allocator holds back to the system, as
 * `torch.cuda.empty_cache ()`. Memory that tensors hold stays.
 *
 * Since: 0.1
 */
void
dl_device_empty_cache (DlDevice *self)
{
  g_return_if_fail (DL_IS_DEVICE (self));
  if (self->allocator)
    dl_allocator_empty_cache (self->allocator);
  if (self->context.backend->memory_empty_cache)
    self->context.backend->memory_empty_cache (&self->context);
}

/**
 * dl_device_synchronize:
 * @self: a #DlDevice
 * @error: return location for a #GError
 *
 * Waits until all the work queued on the device, on every stream, has
 * finished, as `torch.cuda.synchronize ()`; a check that one of its
 * kernels failed (an index out of bounds: PyTorch's device-side assert)
 * is reported here. Returns at once on the CPU and the meta device, whose
 * ops run synchronously.
 *
 * Returns: %TRUE, or %FALSE with @error set when a kernel failed a check
 *
 * Since: 0.1
 */
gboolean
dl_device_synchronize (DlDevice *self, GError **error)
{
  g_return_val_if_fail (DL_IS_DEVICE (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  if (self->context.backend->synchronize)
    self->context.backend->synchronize (&self->context);
  return dl_device_take_kernel_status (self, "synchronize", error);
}

/**
 * dl_cuda_device_count:
 *
 * Counts the CUDA devices libdl can use, as `torch.cuda.device_count ()`.
 * The first call loads the CUDA backend module; the count is 0 when the
 * module was not built or is not found, when there is no CUDA driver, or
 * when the driver finds no device. dl_device_get() for "cuda" then fails
 * with a %DL_ERROR_DEVICE error that says which.
 *
 * Returns: the number of CUDA devices, 0 without any
 *
 * Since: 0.1
 */
gint
dl_cuda_device_count (void)
{
  DeviceType *t;
  gint n = 0;

  registry_lock_and_init ();
  cuda_load_locked ();
  t = find_type_locked ("cuda", strlen ("cuda"));
  if (t != NULL)
    n = count_devices_locked (t);
  dl_mutex_unlock (&registry_lock);
  return n;
}

/**
 * dl_cuda_is_available:
 *
 * Whether a CUDA device can be used, as `torch.cuda.is_available ()`: the
 * CUDA backend module loads, the driver is there and it finds a device.
 *
 * Returns: %TRUE when dl_device_get() can open "cuda"
 *
 * Since: 0.1
 */
gboolean
dl_cuda_is_available (void)
{
  return dl_cuda_device_count () > 0;
}
