/* test-backend.c: the device seam from the backend's side: the device
 * registry, backend contexts and optional slots, through a fake partial
 * backend registered as the device type "fake".
 *
 * The fake backend keeps its "device memory" in malloc'ed host memory but
 * says it does not (host_memory FALSE), so the library must treat it as
 * it would a GPU's: reach values only through copy_to_host. Its kernels
 * run the CPU backend's on that memory; it has only a few of them.
 *
 * Built from the library's objects, so that it reaches the private
 * symbols (see tests/meson.build).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <string.h>
#include <unistd.h>

#include "dl-test-utils.h"
#include "backends/cpu/dl-cpu-private.h"
#include "dl-tensor-private.h"
#include "ops/dl-iter-private.h"

/* ---- the fake backend ---------------------------------------------------- */

#define FAKE_N_DEVICES 2

typedef struct
{
  gint index;
  guint n_allocs;
  guint n_frees;
  guint n_to_host;
  guint n_from_host;
  guint n_syncs;
} FakeDevice;

static FakeDevice fake_devices[FAKE_N_DEVICES];
static guint n_context_inits;

static DlBackendContext *
cpu_ctx (void)
{
  return dl_device_get_context (dl_device_cpu ());
}

static FakeDevice *
fake (DlBackendContext *ctx)
{
  g_assert_nonnull (ctx);
  g_assert_nonnull (ctx->data);
  g_assert_cmpint (((FakeDevice *)ctx->data)->index, ==, ctx->device_index);
  return ctx->data;
}

static gpointer
fake_raw_alloc (DlBackendContext *ctx, gsize nbytes)
{
  fake (ctx)->n_allocs++;
  return g_malloc (MAX (nbytes, 1));
}

static void
fake_raw_free (DlBackendContext *ctx, gpointer ptr, gsize nbytes)
{
  fake (ctx)->n_frees++;
  g_free (ptr);
}

static void
fake_copy_to_host (DlBackendContext *ctx, gpointer dst, gconstpointer src, gsize nbytes)
{
  fake (ctx)->n_to_host++;
  memcpy (dst, src, nbytes);
}

static void
fake_copy_from_host (DlBackendContext *ctx, gpointer dst, gconstpointer src, gsize nbytes)
{
  fake (ctx)->n_from_host++;
  memcpy (dst, src, nbytes);
}

static void
fake_synchronize (DlBackendContext *ctx)
{
  fake (ctx)->n_syncs++;
}

static void
fake_fill (DlBackendContext *ctx, DlIter *iter, DlDType dtype, gdouble value)
{
  fake (ctx);
  cpu_ctx ()->backend->fill (cpu_ctx (), iter, dtype, value);
}

static void
fake_copy (DlBackendContext *ctx, DlIter *iter, DlDType dst_dtype, DlDType src_dtype)
{
  fake (ctx);
  cpu_ctx ()->backend->copy (cpu_ctx (), iter, dst_dtype, src_dtype);
}

/* the checking kernels report into the status they are handed: this
 * device's own (ctx->status), since its memory is not host memory */
static void
fake_index (DlBackendContext *ctx,
            DlIndexOp op,
            const DlIndexArgs *args,
            DlDType dtype,
            DlKernelStatus *status)
{
  g_assert_true (status == ctx->status);
  cpu_ctx ()->backend->index (cpu_ctx (), op, args, dtype, status);
}

static void
fake_nonzero (DlBackendContext *ctx,
              const char *data,
              DlDType dtype,
              gint ndim,
              const gint64 *shape,
              const gint64 *strides,
              gint64 *count,
              gint64 *out)
{
  fake (ctx);
  cpu_ctx ()->backend->nonzero (cpu_ctx (), data, dtype, ndim, shape, strides, count, out);
}

/* memory, fill, copy, index and nonzero: every other kernel slot is NULL */
static const DlBackend fake_backend = {
  .name = "fake",
  .host_memory = FALSE,
  .raw_alloc = fake_raw_alloc,
  .raw_free = fake_raw_free,
  .copy_to_host = fake_copy_to_host,
  .copy_from_host = fake_copy_from_host,
  .synchronize = fake_synchronize,
  .fill = fake_fill,
  .copy = fake_copy,
  .index = fake_index,
  .nonzero = fake_nonzero,
};

static gint
fake_device_count (void)
{
  return FAKE_N_DEVICES;
}

static gboolean
fake_context_init (DlBackendContext *ctx, GError **error)
{
  g_assert_true (ctx->backend == &fake_backend);
  g_assert_cmpint (ctx->device_index, >=, 0);
  g_assert_cmpint (ctx->device_index, <, FAKE_N_DEVICES);
  n_context_inits++;
  fake_devices[ctx->device_index].index = ctx->device_index;
  ctx->data = &fake_devices[ctx->device_index];
  return TRUE;
}

static void
register_fake (void)
{
  DlDeviceTypeInfo info = {
    .type = "fake",
    .device_type = DL_DEVICE_TYPE_CUDA, /* it stands in for an accelerator */
    .backend = &fake_backend,
    .indexed = TRUE,
    .device_count = fake_device_count,
    .context_init = fake_context_init,
  };
  g_autoptr (GError) error = NULL;

  g_assert_true (dl_device_register_type (&info, &error));
  g_assert_no_error (error);
}

static DlDevice *
fake_device (gint index)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *name = g_strdup_printf ("fake:%d", index);
  DlDevice *device = dl_device_get (name, &error);

  g_assert_no_error (error);
  g_assert_nonnull (device);
  return device;
}

/* ---- the registry ---------------------------------------------------------- */

static void
assert_device_error (const gchar *name, const gchar *message)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlDevice) device = dl_device_get (name, &error);

  g_assert_null (device);
  g_assert_error (error, DL_ERROR, DL_ERROR_DEVICE);
  if (strstr (error->message, message) == NULL)
    g_error ("dl_device_get (\"%s\"): expected \"%s\" in \"%s\"", name, message, error->message);
}

static void
test_registry_builtin (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlDevice) a = dl_device_get ("cpu", &error);
  g_autoptr (DlDevice) b = dl_device_get ("cpu", &error);

  g_assert_no_error (error);
  g_assert_true (a == b);
  g_assert_true (a == dl_device_cpu ());
  g_assert_cmpint (dl_device_get_index (a), ==, -1);
  g_assert_cmpstr (dl_device_get_name (a), ==, "cpu");
  g_assert_true (dl_device_get_context (a)->backend->host_memory);
  g_assert_cmpint (dl_device_get_context (a)->device_index, ==, -1);

  /* CUDA is a known type whose module this test, linked to libdl's
   * objects, does not find beside it (test-cuda covers the module) */
  assert_device_error ("cuda", "device: 'cuda' is not available: the CUDA backend module");
  assert_device_error ("cuda:1", "device: 'cuda:1' is not available: the CUDA backend module");
  assert_device_error ("cuda:x", "invalid device string 'cuda:x'");
  /* unknown types list the known ones, registered first */
  assert_device_error ("tpu",
                       "expected one of cpu, meta, fake, bare, cuda device type at start of device "
                       "string: tpu");
  /* the CPU is one unnumbered device */
  assert_device_error ("cpu:0", "device string: cpu:0");
}

/* The devices' descriptions: the CPU's model name as /proc/cpuinfo gives
 * it, the machine's memory and processors; meta names itself */
static void
test_device_info (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlDevice) cpu = dl_device_get ("cpu", &error);
  g_autoptr (DlDevice) meta = dl_device_get ("meta", &error);
  g_autofree gchar *text = NULL, *product = NULL;
  const gchar *model;
  guint64 total = 0;
  gint major = -1, minor = -1, count = 0;

  g_assert_no_error (error);
  if (g_file_get_contents ("/proc/cpuinfo", &text, NULL, NULL)
      && (model = strstr (text, "model name")) != NULL)
    {
      g_autofree gchar *line = g_strndup (model, strcspn (model, "\n"));

      g_assert_cmpstr (dl_device_get_product_name (cpu), ==, g_strstrip (strchr (line, ':') + 1));
    }
  else
    g_assert_cmpstr (dl_device_get_product_name (cpu), ==, "cpu");
  g_assert_cmpuint (dl_device_get_total_memory (cpu), ==,
                    (guint64)sysconf (_SC_PHYS_PAGES) * (guint64)sysconf (_SC_PAGESIZE));
  g_assert_cmpint (dl_device_get_multi_processor_count (cpu), ==, (gint)g_get_num_processors ());
  dl_device_get_capability (cpu, &major, &minor);
  g_assert_cmpint (major, ==, 0);
  g_assert_cmpint (minor, ==, 0);
  /* the properties are the getters' */
  g_object_get (cpu, "product-name", &product, "total-memory", &total, "multi-processor-count",
                &count, NULL);
  g_assert_cmpstr (product, ==, dl_device_get_product_name (cpu));
  g_assert_cmpuint (total, ==, dl_device_get_total_memory (cpu));
  g_assert_cmpint (count, ==, dl_device_get_multi_processor_count (cpu));

  g_assert_cmpstr (dl_device_get_product_name (meta), ==, "meta");
  g_assert_cmpuint (dl_device_get_total_memory (meta), ==, 0);
  g_assert_cmpint (dl_device_get_multi_processor_count (meta), ==, 0);
  dl_device_get_capability (meta, NULL, NULL);
}

static void
test_registry_register (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlDevice) d0 = fake_device (0);
  g_autoptr (DlDevice) d1 = fake_device (1);
  g_autoptr (DlDevice) plain = dl_device_get ("fake", &error);
  DlDeviceTypeInfo again = { .type = "fake", .backend = &fake_backend };
  guint inits;

  g_assert_no_error (error);
  /* one object per device; "fake" is "fake:0" */
  g_assert_true (plain == d0);
  g_assert_false (d0 == d1);
  g_assert_cmpstr (dl_device_get_name (d0), ==, "fake:0");
  g_assert_cmpstr (dl_device_get_name (d1), ==, "fake:1");
  g_assert_cmpint (dl_device_get_index (d1), ==, 1);
  g_assert_cmpint (dl_device_get_device_type (d1), ==, DL_DEVICE_TYPE_CUDA);
  g_assert_false (dl_device_equal (d0, d1));
  /* each device has its own context, made once */
  g_assert_true (dl_device_get_context (d0)->data == &fake_devices[0]);
  g_assert_true (dl_device_get_context (d1)->data == &fake_devices[1]);
  inits = n_context_inits;
  g_clear_object (&plain);
  plain = fake_device (0);
  g_assert_cmpuint (n_context_inits, ==, inits);

  assert_device_error ("fake:2", "there are 2 fake devices");
  assert_device_error ("fake:-1", "invalid device string");

  g_assert_false (dl_device_register_type (&again, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_DEVICE);
}

/* Lookups from several threads at once get the same objects. */
static gpointer
lookup_thread (gpointer data)
{
  DlDevice **out = data;

  for (gint i = 0; i < 100; i++)
    {
      g_autoptr (DlDevice) d = fake_device (i % 2);
      out[i % 2] = d;
    }
  return NULL;
}

static void
test_registry_threads (void)
{
  DlDevice *seen[4][2];
  GThread *threads[4];
  g_autoptr (DlDevice) d0 = fake_device (0);
  g_autoptr (DlDevice) d1 = fake_device (1);

  for (gint t = 0; t < 4; t++)
    threads[t] = g_thread_new ("lookup", lookup_thread, seen[t]);
  for (gint t = 0; t < 4; t++)
    {
      g_thread_join (threads[t]);
      g_assert_true (seen[t][0] == d0 && seen[t][1] == d1);
    }
}

/* ---- contexts and optional slots -------------------------------------- */

static void
test_backend_context_memory (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlDevice) d1 = fake_device (1);
  gint64 shape[2] = { 300, 300 };
  guint allocs = fake_devices[1].n_allocs, frees = fake_devices[1].n_frees;
  guint syncs = fake_devices[1].n_syncs;
  DlTensor *t;

  /* the allocator calls raw_alloc with the device's context: fake()
   * checks that it is device 1's */
  t = dl_zeros (shape, 2, DL_DTYPE_FLOAT32, d1, &error);
  g_assert_no_error (error);
  g_assert_true (dl_tensor_get_device (t) == d1);
  g_assert_cmpuint (fake_devices[1].n_allocs, ==, allocs + 1);
  g_assert_cmpuint (dl_device_get_memory_allocated (d1), >=, 300 * 300 * 4);
  g_object_unref (t);
  dl_device_empty_cache (d1);
  g_assert_cmpuint (fake_devices[1].n_frees, ==, frees + 1);
  g_assert_true (dl_device_synchronize (d1, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (fake_devices[1].n_syncs, ==, syncs + 1);
}

static void
assert_not_supported (GError *error, const gchar *message)
{
  g_assert_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED);
  if (strcmp (error->message, message) != 0)
    g_error ("expected \"%s\", got \"%s\"", message, error->message);
}

static void
test_backend_optional_slots (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlDevice) d0 = fake_device (0);
  gint64 shape[1] = { 4 };
  g_autoptr (DlTensor) x = dl_full (shape, 1, 2.5, DL_DTYPE_FLOAT32, d0, &error);
  g_autoptr (DlTensor) c = NULL;
  DlTensor *r;

  g_assert_no_error (error);
  /* fill and copy exist: full, clone and a cast run */
  c = dl_tensor_to_dtype (x, DL_DTYPE_FLOAT64, &error);
  g_assert_no_error (error);
  g_assert_true (dl_tensor_get_device (c) == d0);

  /* the rest is a clean error naming the op, the device and the slot */
  r = dl_tensor_exp (x, &error);
  g_assert_null (r);
  assert_not_supported (error, "exp: not supported on device 'fake:0' (its backend, 'fake', has "
                               "no 'unary' kernel)");
  g_clear_error (&error);
  r = dl_tensor_add (x, x, &error);
  g_assert_null (r);
  assert_not_supported (error, "add: not supported on device 'fake:0' (its backend, 'fake', has "
                               "no 'binary' kernel)");
  g_clear_error (&error);
  r = dl_tensor_sum (x, &error);
  g_assert_null (r);
  g_assert_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED);
  g_clear_error (&error);
  r = dl_tensor_matmul (x, x, &error);
  g_assert_null (r);
  g_assert_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED);
  g_clear_error (&error);
  r = dl_tensor_cumsum (x, 0, &error);
  g_assert_null (r);
  assert_not_supported (error, "cumsum: not supported on device 'fake:0' (its backend, 'fake', "
                               "has no 'scan' kernel)");
  g_clear_error (&error);
  r = dl_layer_norm (x, shape, 1, NULL, NULL, 1e-5, &error);
  g_assert_null (r);
  assert_not_supported (error, "layer_norm: not supported on device 'fake:0' (its backend, "
                               "'fake', has no 'norm_forward' kernel)");
  g_clear_error (&error);
  {
    g_autoptr (DlTensor) w = dl_ones (shape, 1, DL_DTYPE_FLOAT32, NULL, &error);

    r = dl_layer_norm (x, shape, 1, w, NULL, 1e-5, &error);
    g_assert_null (r);
    g_assert_error (error, DL_ERROR, DL_ERROR_DEVICE);
    g_clear_error (&error);
  }
  r = dl_tensor_unique (x, NULL, NULL, &error);
  g_assert_null (r);
  g_assert_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED);
}

/* ---- values the host needs --------------------------------------------- */

/* A count that sizes an output comes back through copy_to_host. */
static void
test_backend_host_value (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlDevice) d0 = fake_device (0);
  gint64 shape[1] = { 5 };
  g_autoptr (DlTensor) x = dl_full (shape, 1, 1, DL_DTYPE_INT64, d0, &error);
  g_autoptr (DlTensor) nz = NULL;
  guint to_host = fake_devices[0].n_to_host;

  g_assert_no_error (error);
  nz = dl_tensor_nonzero (x, &error);
  g_assert_no_error (error);
  g_assert_true (dl_tensor_get_device (nz) == d0);
  g_assert_cmpint (dl_tensor_get_ndim (nz), ==, 2);
  g_assert_cmpint (dl_tensor_numel (nz), ==, 5); /* [5, 1] */
  /* the count, and the status checked at that synchronisation */
  g_assert_cmpuint (fake_devices[0].n_to_host, ==, to_host + 2);
}

/* A bad index on a device backend does not fail the gather: it is
 * reported at the next synchronising read, once, as a device-side assert
 * (on the CPU the gather itself fails, see test-errors). */
static void
test_backend_deferred_status (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlDevice) d0 = fake_device (0);
  g_autoptr (DlDevice) d1 = fake_device (1);
  gint64 shape[1] = { 4 }, ishape[1] = { 2 };
  g_autoptr (DlTensor) x = dl_full (shape, 1, 1.5, DL_DTYPE_FLOAT32, d0, &error);
  g_autoptr (DlTensor) idx = dl_full (ishape, 1, 7, DL_DTYPE_INT64, d0, &error);
  g_autoptr (DlTensor) x1 = dl_full (shape, 1, 1.5, DL_DTYPE_FLOAT32, d1, &error);
  g_autoptr (DlTensor) g = NULL;
  g_autoptr (DlTensor) nz = NULL;

  g_assert_no_error (error);
  g = dl_tensor_gather (x, 0, idx, &error);
  g_assert_no_error (error);
  g_assert_nonnull (g);

  /* another device's status is its own */
  nz = dl_tensor_nonzero (x1, &error);
  g_assert_no_error (error);
  g_clear_object (&nz);

  nz = dl_tensor_nonzero (x, &error);
  g_assert_null (nz);
  g_assert_error (error, DL_ERROR, DL_ERROR_INDEX);
  g_assert_cmpstr (error->message, ==,
                   "nonzero: a kernel on device 'fake:0' failed a check (a device-side assert, "
                   "reported at the next synchronisation): index 7 is out of bounds");
  g_clear_error (&error);

  /* reported once */
  nz = dl_tensor_nonzero (x, &error);
  g_assert_no_error (error);
  g_assert_cmpint (dl_tensor_numel (nz), ==, 4); /* [4, 1] */

  /* item is a synchronising read too */
  g_clear_object (&g);
  g = dl_tensor_gather (x, 0, idx, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (dl_tensor_item (x1, &error), ==, 0); /* x1 is [4]: not one element */
  g_assert_error (error, DL_ERROR, DL_ERROR_SHAPE);
  g_clear_error (&error);
  {
    g_autoptr (DlTensor) one = dl_full (NULL, 0, 3, DL_DTYPE_FLOAT32, d0, &error);

    g_assert_no_error (error);
    dl_tensor_item (one, &error);
    g_assert_error (error, DL_ERROR, DL_ERROR_INDEX);
    g_assert_nonnull (strstr (error->message, "item: a kernel on device 'fake:0' failed"));
    g_clear_error (&error);
    g_assert_cmpfloat (dl_tensor_item (one, &error), ==, 3);
    g_assert_no_error (error);
  }
}

/* ---- reading and writing values through the backend --------------------- */

static void
test_backend_read_values (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlDevice) d0 = fake_device (0);
  gint64 shape[2] = { 2, 3 };
  g_autoptr (DlTensor) r = NULL;
  g_autoptr (DlTensor) m = NULL;
  g_autoptr (DlTensor) t = NULL;
  g_autoptr (DlTensor) s = NULL;
  g_autoptr (GBytes) bytes = NULL;
  g_autofree gchar *text = NULL;
  const gdouble *v;
  gsize size;
  guint to_host, from_host = fake_devices[0].n_from_host;

  /* arange writes its values with copy_from_host */
  r = dl_arange (0, 6, 1, DL_DTYPE_FLOAT64, d0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (fake_devices[0].n_from_host, ==, from_host + 1);
  m = dl_tensor_reshape (r, shape, 2, &error);
  g_assert_no_error (error);
  t = dl_tensor_transpose (m, 0, 1, &error);
  g_assert_no_error (error);
  g_assert_false (dl_tensor_is_contiguous (t));

  /* a non-contiguous tensor is made contiguous on the device first */
  to_host = fake_devices[0].n_to_host;
  bytes = dl_tensor_to_bytes (t, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (fake_devices[0].n_to_host, >, to_host);
  v = g_bytes_get_data (bytes, &size);
  g_assert_cmpuint (size, ==, 6 * sizeof (gdouble));
  g_assert_cmpfloat (v[0], ==, 0);
  g_assert_cmpfloat (v[1], ==, 3);
  g_assert_cmpfloat (v[2], ==, 1);
  g_assert_cmpfloat (v[5], ==, 5);

  text = dl_tensor_to_string (t);
  g_assert_cmpstr (text, ==,
                   "tensor([[0., 3.],\n        [1., 4.],\n        [2., 5.]], device='fake:0', "
                   "dtype=torch.float64)");

  /* item converts on the host */
  s = dl_full (NULL, 0, 7, DL_DTYPE_INT32, d0, &error);
  g_assert_no_error (error);
  to_host = fake_devices[0].n_to_host;
  g_assert_cmpfloat (dl_tensor_item (s, &error), ==, 7);
  g_assert_no_error (error);
  g_assert_cmpuint (fake_devices[0].n_to_host, >, to_host);
}

/* "bare": one unnumbered device whose backend has memory and nothing else */
static const DlBackend bare_backend = {
  .name = "bare",
  .raw_alloc = fake_raw_alloc,
  .raw_free = fake_raw_free,
  .copy_to_host = fake_copy_to_host,
  .copy_from_host = fake_copy_from_host,
};

static gboolean
bare_context_init (DlBackendContext *ctx, GError **error)
{
  static FakeDevice bare_device = { .index = -1 };

  g_assert_cmpint (ctx->device_index, ==, -1);
  ctx->data = &bare_device;
  return TRUE;
}

static void
register_bare (void)
{
  DlDeviceTypeInfo info = {
    .type = "bare",
    .device_type = DL_DEVICE_TYPE_CUDA,
    .backend = &bare_backend,
    .context_init = bare_context_init,
  };
  g_autoptr (GError) error = NULL;

  g_assert_true (dl_device_register_type (&info, &error));
  g_assert_no_error (error);
}

static void
test_backend_bare (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlDevice) bare = NULL;
  gint64 shape[2] = { 2, 2 }, one = 1;
  g_autoptr (DlTensor) e = NULL;
  g_autoptr (DlTensor) t = NULL;
  g_autoptr (DlTensor) a = NULL;
  g_autoptr (GBytes) bytes = NULL;
  g_autofree gchar *text = NULL;

  bare = dl_device_get ("bare", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (dl_device_get_name (bare), ==, "bare");
  g_assert_cmpint (dl_device_get_index (bare), ==, -1);

  /* no kernel is needed to read a contiguous tensor... */
  e = dl_empty (shape, 2, DL_DTYPE_FLOAT32, bare, &error);
  g_assert_no_error (error);
  bytes = dl_tensor_to_bytes (e, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (bytes), ==, 16);

  /* ...a strided one needs the copy kernel */
  t = dl_tensor_transpose (e, 0, 1, &error);
  g_assert_no_error (error);
  g_clear_pointer (&bytes, g_bytes_unref);
  bytes = dl_tensor_to_bytes (t, &error);
  g_assert_null (bytes);
  g_assert_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED);
  g_assert_nonnull (strstr (error->message, "to_bytes: not supported on device 'bare'"));
  g_clear_error (&error);
  text = dl_tensor_to_string (t);
  g_assert_nonnull (strstr (text, "values that cannot be read"));
  g_assert_nonnull (strstr (text, "device='bare'"));

  /* creation ops that fill need fill */
  a = dl_zeros (&one, 1, DL_DTYPE_FLOAT32, bare, &error);
  g_assert_null (a);
  g_assert_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED);
}

/* dl_tensor_to_device: onto the device through copy_from_host, back
 * through copy_to_host, the values kept (a transposed source too) */
static void
test_backend_to_device (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlDevice) d0 = fake_device (0);
  gint64 shape[2] = { 2, 3 };
  g_autoptr (DlTensor) r = dl_arange (0, 6, 1, DL_DTYPE_FLOAT32, NULL, &error);
  g_autoptr (DlTensor) m = dl_tensor_reshape (r, shape, 2, &error);
  g_autoptr (DlTensor) t = dl_tensor_transpose (m, 0, 1, &error);
  g_autoptr (DlTensor) on_fake = NULL;
  g_autoptr (DlTensor) back = NULL;
  g_autoptr (GBytes) bytes = NULL;
  guint to_host, from_host = fake_devices[0].n_from_host;
  const gfloat *v;
  gsize size;

  g_assert_no_error (error);
  on_fake = dl_tensor_to_device (t, d0, &error);
  g_assert_no_error (error);
  g_assert_true (dl_tensor_get_device (on_fake) == d0);
  g_assert_cmpuint (fake_devices[0].n_from_host, ==, from_host + 1);
  to_host = fake_devices[0].n_to_host;
  back = dl_tensor_to_device (on_fake, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (fake_devices[0].n_to_host, >, to_host);
  g_assert_true (dl_tensor_get_device (back) == dl_device_cpu ());
  bytes = dl_tensor_to_bytes (back, &error);
  g_assert_no_error (error);
  v = g_bytes_get_data (bytes, &size);
  g_assert_cmpuint (size, ==, 6 * sizeof (gfloat));
  g_assert_cmpfloat (v[0], ==, 0);
  g_assert_cmpfloat (v[1], ==, 3);
  g_assert_cmpfloat (v[2], ==, 1);
  g_assert_cmpfloat (v[5], ==, 5);
}

/* When libdl picks OpenBLAS's kernels again (dl-cpu-blas.c): only over
 * the Prescott fallback, with the kernels of the CPU's level */
static void
test_blas_better_core (void)
{
  g_assert_cmpstr (dl_cpu_blas_better_core ("Prescott", DL_CPU_ISA_V4), ==, "SkylakeX");
  g_assert_cmpstr (dl_cpu_blas_better_core ("prescott", DL_CPU_ISA_V3), ==, "Haswell");
  g_assert_null (dl_cpu_blas_better_core ("Prescott", DL_CPU_ISA_BASELINE));
  g_assert_null (dl_cpu_blas_better_core ("Haswell", DL_CPU_ISA_V4));
  g_assert_null (dl_cpu_blas_better_core ("Zen", DL_CPU_ISA_V3));
  g_assert_null (dl_cpu_blas_better_core ("SkylakeX", DL_CPU_ISA_V4));
  g_assert_null (dl_cpu_blas_better_core (NULL, DL_CPU_ISA_V4));
}

/* After the CPU backend started, the OpenBLAS libdl calls runs kernels
 * that the rule above keeps, and GEMMs still give exact small products */
static void
test_blas_core_in_use (void)
{
  g_autoptr (DlTensor) a = dl_arange (0, 6, 1, DL_DTYPE_FLOAT32, NULL, NULL);
  g_autoptr (DlTensor) m = dl_tensor_reshape (a, (gint64[]){ 2, 3 }, 2, NULL);
  g_autoptr (DlTensor) mt = dl_tensor_t (m, NULL);
  g_autoptr (DlTensor) p = dl_tensor_matmul (m, mt, NULL);
  const gchar *core = dl_cpu_blas_get_core ();
  float v[4];

  g_assert_nonnull (p);
  g_assert_true (dl_tensor_copy_to_host (p, DL_DTYPE_FLOAT32, v, "test", NULL));
  g_assert_cmpfloat (v[0], ==, 5);
  g_assert_cmpfloat (v[1], ==, 14);
  g_assert_cmpfloat (v[3], ==, 50);
  if (core == NULL)
    {
      g_test_skip ("this OpenBLAS does not name its kernels");
      return;
    }
  g_test_message ("OpenBLAS kernels: %s", core);
  if (g_getenv ("OPENBLAS_CORETYPE") == NULL)
    g_assert_null (dl_cpu_blas_better_core (core, dl_cpu_hardware_isa ()));
}

/* dl_set_num_threads(): the calling thread's count, which GEMMs and the
 * split kernels follow without changing their results; bad counts are
 * errors that leave the count alone */
static void
test_num_threads (void)
{
  gint before = dl_get_num_threads ();
  g_autoptr (DlTensor) a = dl_arange (0, 96 * 80, 1, DL_DTYPE_FLOAT32, NULL, NULL);
  g_autoptr (DlTensor) m = dl_tensor_reshape (a, (gint64[]){ 96, 80 }, 2, NULL);
  g_autoptr (DlTensor) mt = dl_tensor_t (m, NULL);
  g_autoptr (DlTensor) many = dl_tensor_matmul (m, mt, NULL);
  g_autoptr (DlTensor) one = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_cmpint (before, >=, 1);
  g_assert_true (dl_set_num_threads (1, &error));
  g_assert_no_error (error);
  g_assert_cmpint (dl_get_num_threads (), ==, 1);
  g_assert_cmpint (dl_cpu_get_num_threads (), ==, 1);
  one = dl_tensor_matmul (m, mt, NULL);
  g_assert_true (dl_tensor_allclose (one, many, 1e-6, 0, FALSE, NULL));
  g_assert_false (dl_set_num_threads (0, &error));
  g_assert_error (error, DL_ERROR, DL_ERROR_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "positive integer"));
  g_assert_cmpint (dl_get_num_threads (), ==, 1);
  g_assert_true (dl_set_num_threads (before, NULL));
  g_assert_cmpint (dl_get_num_threads (), ==, before);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  register_fake ();
  register_bare ();

  g_test_add_func ("/backend/registry/builtin", test_registry_builtin);
  g_test_add_func ("/backend/device-info", test_device_info);
  g_test_add_func ("/backend/registry/register", test_registry_register);
  g_test_add_func ("/backend/registry/threads", test_registry_threads);
  g_test_add_func ("/backend/context/memory", test_backend_context_memory);
  g_test_add_func ("/backend/optional-slots", test_backend_optional_slots);
  g_test_add_func ("/backend/host-value", test_backend_host_value);
  g_test_add_func ("/backend/deferred-status", test_backend_deferred_status);
  g_test_add_func ("/backend/read-values", test_backend_read_values);
  g_test_add_func ("/backend/to-device", test_backend_to_device);
  g_test_add_func ("/backend/bare", test_backend_bare);
  g_test_add_func ("/backend/blas/better-core", test_blas_better_core);
  g_test_add_func ("/backend/blas/core-in-use", test_blas_core_in_use);
  g_test_add_func ("/backend/num-threads", test_num_threads);

  return g_test_run ();
}
