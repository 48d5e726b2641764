/* test-pytorch-format.c: dl_pytorch_load_state_dict() on archives that
 * torch.save wrote (tests/data/pytorch-*.pt, made by
 * tests/data/make-pytorch-fixtures.py): every dtype, views sharing a
 * storage, strides and offsets, nested dicts, mapped copy-on-write, a
 * Linear run on the loaded weights; then hostile archives built here (a
 * small stored-zip writer and hand-written pickles), truncation at every
 * length and seeded mutation loops, each loading or failing with a
 * DL_ERROR. The same for PyTorch's legacy (non-zip) stream
 * (tests/data/pytorch-legacy-*.pt and streams built here).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <glib/gstdio.h>

#include "dl-test-utils.h"

static GBytes *
fixture (const gchar *name)
{
  g_autofree gchar *path = g_test_build_filename (G_TEST_DIST, "data", name, NULL);
  g_autoptr (GError) error = NULL;
  gchar *contents;
  gsize len;

  g_file_get_contents (path, &contents, &len, &error);
  g_assert_no_error (error);
  return g_bytes_new_take (contents, len);
}

static DlTensorDict *
load_fixture (const gchar *name)
{
  g_autofree gchar *path = g_test_build_filename (G_TEST_DIST, "data", name, NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GError) error = NULL;
  DlTensorDict *d = dl_pytorch_load_state_dict (file, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (d);
  return d;
}

static void
check_mixed (DlTensorDict *d)
{
  static const gchar *const names[]
      = { "model.f32",    "model.f32_t", "model.f32_slice", "model.f64", "model.f16",
          "model.bf16",   "model.i32",   "model.i64",       "model.u8",  "model.bool",
          "model.scalar", "model.empty", "state.0.step",    NULL };
  g_auto (GStrv) got = dl_tensor_dict_get_names (d);
  gdouble v[24];
  DlTensor *f32, *t, *s;
  gsize nd;

  g_assert_cmpstrv (got, names);
  f32 = dl_tensor_dict_lookup (d, "model.f32");
  t = dl_tensor_dict_lookup (d, "model.f32_t");
  s = dl_tensor_dict_lookup (d, "model.f32_slice");
  dl_test_assert_shape (f32, DL_TEST_SHAPE (4, 6));
  for (int i = 0; i < 24; i++)
    v[i] = i * 0.5;
  dl_test_assert_values (f32, v, 24, 0);
  /* the transpose and the slice view the same storage */
  dl_test_assert_shape (t, DL_TEST_SHAPE (6, 4));
  g_assert_cmpint (dl_tensor_get_strides (t, &nd)[0], ==, 1);
  g_assert_cmpint (dl_tensor_get_strides (t, &nd)[1], ==, 6);
  g_assert_cmpuint (dl_tensor_get_data_ptr (t), ==, dl_tensor_get_data_ptr (f32));
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < 4; j++)
      v[i * 4 + j] = (j * 6 + i) * 0.5;
  dl_test_assert_values (t, v, 24, 0);
  dl_test_assert_shape (s, DL_TEST_SHAPE (2, 3));
  g_assert_cmpint (dl_tensor_get_storage_offset (s), ==, 6);
  g_assert_cmpint (dl_tensor_get_strides (s, &nd)[1], ==, 2);
  g_assert_cmpuint (dl_tensor_get_data_ptr (s), ==, dl_tensor_get_data_ptr (f32) + 6 * 4);
  dl_test_assert_values (s, (gdouble[]){ 3, 4, 5, 6, 7, 8 }, 6, 0);

  g_assert_cmpint (dl_tensor_get_dtype (dl_tensor_dict_lookup (d, "model.f64")), ==,
                   DL_DTYPE_FLOAT64);
  dl_test_assert_values (dl_tensor_dict_lookup (d, "model.f64"),
                         (gdouble[]){ 0, 0.25, 0.5, 0.75, 1, 1.25 }, 6, 0);
  g_assert_cmpint (dl_tensor_get_dtype (dl_tensor_dict_lookup (d, "model.f16")), ==,
                   DL_DTYPE_FLOAT16);
  dl_test_assert_values (dl_tensor_dict_lookup (d, "model.f16"), (gdouble[]){ -2, -1, 0, 1, 2 }, 5,
                         0);
  g_assert_cmpint (dl_tensor_get_dtype (dl_tensor_dict_lookup (d, "model.bf16")), ==,
                   DL_DTYPE_BFLOAT16);
  dl_test_assert_values (dl_tensor_dict_lookup (d, "model.bf16"), (gdouble[]){ 0, 2, 4, 6, 8 }, 5,
                         0);
  g_assert_cmpint (dl_tensor_get_dtype (dl_tensor_dict_lookup (d, "model.i32")), ==,
                   DL_DTYPE_INT32);
  dl_test_assert_values (dl_tensor_dict_lookup (d, "model.i32"), (gdouble[]){ -3, -2, -1, 0, 1, 2 },
                         6, 0);
  g_assert_cmpint (dl_tensor_get_dtype (dl_tensor_dict_lookup (d, "model.i64")), ==,
                   DL_DTYPE_INT64);
  dl_test_assert_values (dl_tensor_dict_lookup (d, "model.i64"),
                         (gdouble[]){ 0, 1000000007., 2000000014., 3000000021. }, 4, 0);
  g_assert_cmpint (dl_tensor_get_dtype (dl_tensor_dict_lookup (d, "model.u8")), ==, DL_DTYPE_UINT8);
  dl_test_assert_values (dl_tensor_dict_lookup (d, "model.u8"),
                         (gdouble[]){ 250, 251, 252, 253, 254, 255 }, 6, 0);
  g_assert_cmpint (dl_tensor_get_dtype (dl_tensor_dict_lookup (d, "model.bool")), ==,
                   DL_DTYPE_BOOL);
  dl_test_assert_values (dl_tensor_dict_lookup (d, "model.bool"), (gdouble[]){ 1, 0, 1 }, 3, 0);
  dl_test_assert_shape (dl_tensor_dict_lookup (d, "model.scalar"), NULL, 0);
  dl_test_assert_values (dl_tensor_dict_lookup (d, "model.scalar"), (gdouble[]){ 7.25 }, 1, 0);
  dl_test_assert_shape (dl_tensor_dict_lookup (d, "model.empty"), DL_TEST_SHAPE (0, 3));
  dl_test_assert_values (dl_tensor_dict_lookup (d, "state.0.step"), (gdouble[]){ 12 }, 1, 0);
}

/* the mixed checkpoint, in the fixture @name (zip or legacy), from its
 * file and from its bytes */
static void
test_mixed (gconstpointer name)
{
  g_autoptr (DlTensorDict) d = load_fixture (name);
  g_autoptr (GBytes) bytes = fixture (name);
  g_autoptr (DlTensorDict) copy = NULL;
  g_autoptr (GError) error = NULL;

  check_mixed (d);
  copy = dl_pytorch_load_state_dict_bytes (bytes, &error);
  g_assert_no_error (error);
  check_mixed (copy);
}

/* A loaded tensor views the file's mapping; writing into it copies the
 * page and leaves the file as it was. */
static void
test_copy_on_write (void)
{
  g_autoptr (GBytes) before = fixture ("pytorch-mixed.pt");
  g_autoptr (GBytes) after = NULL;
  gdouble v[24];

  {
    g_autoptr (DlTensorDict) d = load_fixture ("pytorch-mixed.pt");
    DlTensor *f32 = dl_tensor_dict_lookup (d, "model.f32");
    gfloat *p = GSIZE_TO_POINTER (dl_tensor_get_data_ptr (f32));
    const guint8 *file = g_bytes_get_data (before, NULL);

    /* the data lies in the mapping, not in a copy: not within the bytes
     * read above, but equal to them */
    g_assert_true ((const guint8 *)p < file
                   || (const guint8 *)p >= file + g_bytes_get_size (before));
    p[0] = 42;
    for (int i = 0; i < 24; i++)
      v[i] = i * 0.5;
    v[0] = 42;
    dl_test_assert_values (f32, v, 24, 0);
  }
  after = fixture ("pytorch-mixed.pt");
  g_assert_true (g_bytes_equal (before, after));
  {
    g_autoptr (DlTensorDict) d = load_fixture ("pytorch-mixed.pt");

    check_mixed (d);
  }
}

/* The weights PyTorch trained run here to PyTorch's outputs. */
static void
test_linear (void)
{
  g_autoptr (DlTensorDict) state = load_fixture ("pytorch-linear.pt");
  g_autoptr (DlTensorDict) io = load_fixture ("pytorch-linear-io.pt");
  g_autoptr (DlLinear) lin = dl_linear_new (4, 3, TRUE, NULL);
  g_autoptr (DlTensor) y = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_true (dl_module_load_state_dict (DL_MODULE (lin), state, TRUE, NULL, NULL, &error));
  g_assert_no_error (error);
  y = dl_module_forward (DL_MODULE (lin), dl_tensor_dict_lookup (io, "input"), &error);
  g_assert_no_error (error);
  g_assert_true (
      dl_tensor_allclose (y, dl_tensor_dict_lookup (io, "output"), 1e-5, 1e-6, FALSE, &error));
  g_assert_no_error (error);
}

/* ---- hostile archives ---------------------------------------------------- */

typedef struct
{
  const gchar *name;
  GBytes *data;
  guint16 method;
} Entry;

static void
put16 (GByteArray *a, guint16 v)
{
  guint8 b[2] = { v & 0xff, v >> 8 };

  g_byte_array_append (a, b, 2);
}

static void
put32 (GByteArray *a, guint32 v)
{
  put16 (a, v & 0xffff);
  put16 (a, v >> 16);
}

static void
put64 (GByteArray *a, guint64 v)
{
  put32 (a, v & 0xffffffff);
  put32 (a, v >> 32);
}

/* A zip archive of stored @entries, as torch.save lays it out; with
 * @zip64, the end of central directory and the entries' offsets go
 * through zip64 records. */
static GBytes *
build_zip (const Entry *entries, gsize n, gboolean zip64)
{
  GByteArray *a = g_byte_array_new ();
  g_autoptr (GArray) offsets = g_array_new (FALSE, FALSE, sizeof (guint32));
  guint32 cd_start, cd_size;

  for (gsize i = 0; i < n; i++)
    {
      gsize len = g_bytes_get_size (entries[i].data);
      guint32 at = a->len;

      g_array_append_val (offsets, at);
      put32 (a, 0x04034b50);
      put16 (a, 20);
      put16 (a, 0);
      put16 (a, entries[i].method);
      put32 (a, 0);
      put32 (a, 0);
      put32 (a, len);
      put32 (a, len);
      put16 (a, strlen (entries[i].name));
      put16 (a, 0);
      g_byte_array_append (a, (const guint8 *)entries[i].name, strlen (entries[i].name));
      g_byte_array_append (a, g_bytes_get_data (entries[i].data, NULL), len);
    }
  cd_start = a->len;
  for (gsize i = 0; i < n; i++)
    {
      gsize len = g_bytes_get_size (entries[i].data);

      put32 (a, 0x02014b50);
      put16 (a, 45);
      put16 (a, 20);
      put16 (a, 0);
      put16 (a, entries[i].method);
      put32 (a, 0);
      put32 (a, 0);
      put32 (a, zip64 ? 0xFFFFFFFF : len);
      put32 (a, zip64 ? 0xFFFFFFFF : len);
      put16 (a, strlen (entries[i].name));
      put16 (a, zip64 ? 28 : 0);
      put16 (a, 0);
      put16 (a, 0);
      put16 (a, 0);
      put32 (a, 0);
      put32 (a, zip64 ? 0xFFFFFFFF : g_array_index (offsets, guint32, i));
      g_byte_array_append (a, (const guint8 *)entries[i].name, strlen (entries[i].name));
      if (zip64)
        {
          put16 (a, 1);
          put16 (a, 24);
          put64 (a, len);
          put64 (a, len);
          put64 (a, g_array_index (offsets, guint32, i));
        }
    }
  cd_size = a->len - cd_start;
  if (zip64)
    {
      guint64 e64 = a->len;

      put32 (a, 0x06064b50);
      put64 (a, 44);
      put16 (a, 45);
      put16 (a, 45);
      put32 (a, 0);
      put32 (a, 0);
      put64 (a, n);
      put64 (a, n);
      put64 (a, cd_size);
      put64 (a, cd_start);
      put32 (a, 0x07064b50);
      put32 (a, 0);
      put64 (a, e64);
      put32 (a, 1);
    }
  put32 (a, 0x06054b50);
  put16 (a, 0);
  put16 (a, 0);
  put16 (a, zip64 ? 0xFFFF : n);
  put16 (a, zip64 ? 0xFFFF : n);
  put32 (a, zip64 ? 0xFFFFFFFF : cd_size);
  put32 (a, zip64 ? 0xFFFFFFFF : cd_start);
  put16 (a, 0);
  return g_byte_array_free_to_bytes (a);
}

/* pickle writers */
static void
p_op (GByteArray *a, guint8 op)
{
  g_byte_array_append (a, &op, 1);
}

static void
p_str (GByteArray *a, const gchar *s)
{
  p_op (a, 'X');
  put32 (a, strlen (s));
  g_byte_array_append (a, (const guint8 *)s, strlen (s));
}

static void
p_int (GByteArray *a, gint64 v)
{
  p_op (a, 0x8a);
  p_op (a, 8);
  put64 (a, v);
}

static void
p_global (GByteArray *a, const gchar *module, const gchar *name)
{
  p_op (a, 'c');
  g_byte_array_append (a, (const guint8 *)module, strlen (module));
  p_op (a, '\n');
  g_byte_array_append (a, (const guint8 *)name, strlen (name));
  p_op (a, '\n');
}

static void
p_ints (GByteArray *a, const gint64 *v, gint n)
{
  p_op (a, '(');
  for (gint i = 0; i < n; i++)
    p_int (a, v[i]);
  p_op (a, 't');
}

/* {"w": _rebuild_tensor_v2 (storage "0" of @numel @type, @offset, @sizes,
 * @strides, False, OrderedDict ())}; with @legacy the storage's persistent
 * id has the legacy format's sixth field, None, or with @view_numel >= 0
 * the view ("v", @view_offset, @view_numel). */
static GBytes *
tensor_pickle_full (const gchar *type,
                    gint64 numel,
                    gint64 offset,
                    const gint64 *sizes,
                    const gint64 *strides,
                    gint ndim,
                    gboolean legacy,
                    gint64 view_offset,
                    gint64 view_numel)
{
  GByteArray *a = g_byte_array_new ();

  p_op (a, 0x80);
  p_op (a, 2);
  p_op (a, '}');
  p_op (a, '(');
  p_str (a, "w");
  p_global (a, "torch._utils", "_rebuild_tensor_v2");
  p_op (a, '(');
  p_op (a, '(');
  p_str (a, "storage");
  p_global (a, "torch", type);
  p_str (a, "0");
  p_str (a, "cpu");
  p_int (a, numel);
  if (legacy && view_numel < 0)
    p_op (a, 'N');
  else if (legacy)
    {
      p_op (a, '(');
      p_str (a, "v");
      p_int (a, view_offset);
      p_int (a, view_numel);
      p_op (a, 't');
    }
  p_op (a, 't');
  p_op (a, 'Q');
  p_int (a, offset);
  p_ints (a, sizes, ndim);
  p_ints (a, strides, ndim);
  p_op (a, 0x89);
  p_global (a, "collections", "OrderedDict");
  p_op (a, ')');
  p_op (a, 'R');
  p_op (a, 't');
  p_op (a, 'R');
  p_op (a, 'u');
  p_op (a, '.');
  return g_byte_array_free_to_bytes (a);
}

static GBytes *
tensor_pickle (const gchar *type,
               gint64 numel,
               gint64 offset,
               const gint64 *sizes,
               const gint64 *strides,
               gint ndim)
{
  return tensor_pickle_full (type, numel, offset, sizes, strides, ndim, FALSE, 0, -1);
}

/* An archive of @pkl and a storage "0" of @nbytes bytes (1, 2, 3, ...). */
static GBytes *
archive (GBytes *pkl, gsize nbytes, gboolean zip64)
{
  g_autofree guint8 *data = g_malloc (MAX (nbytes, 1));
  g_autoptr (GBytes) storage = NULL;
  g_autoptr (GBytes) version = g_bytes_new_static ("3\n", 2);

  for (gsize i = 0; i < nbytes; i++)
    data[i] = i + 1;
  storage = g_bytes_new (data, nbytes);
  {
    Entry e[]
        = { { "a/data.pkl", pkl, 0 }, { "a/data/0", storage, 0 }, { "a/version", version, 0 } };

    return build_zip (e, G_N_ELEMENTS (e), zip64);
  }
}

static GBytes *
archive_of (const gchar *pkl, gsize len)
{
  g_autoptr (GBytes) b = g_bytes_new (pkl, len);

  return archive (b, 16, FALSE);
}

/* Loads @bytes: either tensors whose every element can be read, or NULL
 * with a DL_ERROR whose message is UTF-8. */
static gboolean
load_or_fail_cleanly (GBytes *bytes)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensorDict) d = dl_pytorch_load_state_dict_bytes (bytes, &error);
  g_auto (GStrv) names = NULL;

  if (d == NULL)
    {
      g_assert_nonnull (error);
      g_assert_true (error->domain == DL_ERROR);
      g_assert_true (g_utf8_validate (error->message, -1, NULL));
      return FALSE;
    }
  g_assert_no_error (error);
  names = dl_tensor_dict_get_names (d);
  for (gchar **n = names; *n; n++)
    {
      g_autoptr (GBytes) values = dl_tensor_to_bytes (dl_tensor_dict_lookup (d, *n), &error);

      g_assert_no_error (error);
      g_assert_true (g_utf8_validate (*n, -1, NULL));
    }
  return TRUE;
}

static void
expect_error (GBytes *bytes, gint code, const gchar *fragment)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensorDict) d = dl_pytorch_load_state_dict_bytes (bytes, &error);

  g_assert_null (d);
  g_assert_error (error, DL_ERROR, code);
  if (strstr (error->message, fragment) == NULL)
    g_error ("'%s' does not say '%s'", error->message, fragment);
}

static void
test_builder (void)
{
  /* the writer above makes archives the reader takes, zip64 or not */
  for (int zip64 = 0; zip64 < 2; zip64++)
    {
      g_autoptr (GBytes) pkl
          = tensor_pickle ("FloatStorage", 4, 1, (gint64[]){ 3 }, (gint64[]){ 1 }, 1);
      g_autoptr (GBytes) zip = archive (pkl, 16, zip64);
      g_autoptr (GError) error = NULL;
      g_autoptr (DlTensorDict) d = dl_pytorch_load_state_dict_bytes (zip, &error);
      guint32 bits[4];
      gdouble v[3];

      g_assert_no_error (error);
      for (int i = 0; i < 4; i++)
        bits[i] = (4 * i + 1) | (4 * i + 2) << 8 | (4 * i + 3) << 16 | (guint32)(4 * i + 4) << 24;
      for (int i = 0; i < 3; i++)
        {
          gfloat f;

          memcpy (&f, &bits[i + 1], 4);
          v[i] = f;
        }
      dl_test_assert_values (dl_tensor_dict_lookup (d, "w"), v, 3, 0);
    }
}

static void
test_hostile_views (void)
{
  struct
  {
    const gchar *type;
    gint64 numel, offset;
    gint64 sizes[2], strides[2];
    gint ndim;
    gsize nbytes;
    gint code;
    const gchar *says;
  } cases[] = {
    { "FloatStorage", 4, 1, { 4 }, { 1 }, 1, 16, DL_ERROR_FORMAT, "reaches past its 4 elements" },
    { "FloatStorage", 4, 0, { 2, 2 }, { 3, 1 }, 2, 16, DL_ERROR_FORMAT, "reaches past" },
    { "FloatStorage", 4, 5, { 0 }, { 1 }, 1, 16, DL_ERROR_FORMAT, "reaches past" },
    { "FloatStorage", 4, -1, { 1 }, { 1 }, 1, 16, DL_ERROR_FORMAT, "negative offset" },
    { "FloatStorage", 4, 0, { 2 }, { -1 }, 1, 16, DL_ERROR_FORMAT, "negative" },
    { "FloatStorage", 4, 0, { -2 }, { 1 }, 1, 16, DL_ERROR_FORMAT, "negative" },
    { "FloatStorage",
      4,
      0,
      { G_GINT64_CONSTANT (1) << 62, 8 },
      { 1, 1 },
      2,
      16,
      DL_ERROR_FORMAT,
      "overflow" },
    { "FloatStorage", 4, 0, { 2, 2 }, { G_MAXINT64, 1 }, 2, 16, DL_ERROR_FORMAT, "reaches past" },
    { "FloatStorage", 4, G_MAXINT64, { 1 }, { 1 }, 1, 16, DL_ERROR_FORMAT, "reaches past" },
    { "FloatStorage", 5, 0, { 4 }, { 1 }, 1, 16, DL_ERROR_FORMAT, "need 20" },
    { "FloatStorage", G_MAXINT64 / 2, 0, { 4 }, { 1 }, 1, 16, DL_ERROR_FORMAT, "the record holds" },
    { "FloatStorage", -1, 0, { 4 }, { 1 }, 1, 16, DL_ERROR_FORMAT, "negative size" },
    { "DoubleStorage", 4, 0, { 4 }, { 1 }, 1, 16, DL_ERROR_FORMAT, "the record holds 16 bytes" },
    { "CharStorage", 4, 0, { 4 }, { 1 }, 1, 4, DL_ERROR_NOT_SUPPORTED, "torch.CharStorage" },
    { "ComplexFloatStorage", 4, 0, { 4 }, { 1 }, 1, 4, DL_ERROR_NOT_SUPPORTED, "no libdl dtype" },
    { "UntypedStorage", 4, 0, { 4 }, { 1 }, 1, 4, DL_ERROR_NOT_SUPPORTED, "UntypedStorage" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GBytes) pkl = tensor_pickle (cases[i].type, cases[i].numel, cases[i].offset,
                                              cases[i].sizes, cases[i].strides, cases[i].ndim);
      g_autoptr (GBytes) zip = archive (pkl, cases[i].nbytes, FALSE);

      expect_error (zip, cases[i].code, cases[i].says);
    }
  {
    /* the storage's record is missing */
    g_autoptr (GBytes) pkl
        = tensor_pickle ("FloatStorage", 4, 0, (gint64[]){ 4 }, (gint64[]){ 1 }, 1);
    Entry e[] = { { "a/data.pkl", pkl, 0 } };
    g_autoptr (GBytes) zip = build_zip (e, 1, FALSE);

    expect_error (zip, DL_ERROR_FORMAT, "no record a/data/0");
  }
}

static void
test_hostile_archives (void)
{
  g_autoptr (GBytes) pkl
      = tensor_pickle ("FloatStorage", 4, 0, (gint64[]){ 4 }, (gint64[]){ 1 }, 1);
  g_autoptr (GBytes) storage = g_bytes_new_static ("0123456789abcdef", 16);

  {
    g_autoptr (GBytes) b = g_bytes_new_static ("", 0);

    expect_error (b, DL_ERROR_FORMAT, "not a zip archive");
  }
  {
    g_autoptr (GBytes) b = g_bytes_new_static ("\x80\x02}q\x00.", 6);

    expect_error (b, DL_ERROR_FORMAT, "not a zip archive");
  }
  {
    Entry e[] = { { "a/data.pkl", pkl, 8 }, { "a/data/0", storage, 0 } };
    g_autoptr (GBytes) zip = build_zip (e, 2, FALSE);

    expect_error (zip, DL_ERROR_NOT_SUPPORTED, "compressed");
  }
  {
    g_autoptr (GBytes) big = g_bytes_new_static ("big", 3);
    Entry e[] = { { "a/data.pkl", pkl, 0 }, { "a/data/0", storage, 0 }, { "a/byteorder", big, 0 } };
    g_autoptr (GBytes) zip = build_zip (e, 3, FALSE);

    expect_error (zip, DL_ERROR_NOT_SUPPORTED, "byteorder is 'big'");
  }
  {
    g_autoptr (GBytes) little = g_bytes_new_static ("little", 6);
    Entry e[]
        = { { "a/data.pkl", pkl, 0 }, { "a/data/0", storage, 0 }, { "a/byteorder", little, 0 } };
    g_autoptr (GBytes) zip = build_zip (e, 3, FALSE);

    g_assert_true (load_or_fail_cleanly (zip));
  }
  {
    Entry e[] = { { "a/data.pkl", pkl, 0 }, { "b/data.pkl", pkl, 0 } };
    g_autoptr (GBytes) zip = build_zip (e, 2, FALSE);

    expect_error (zip, DL_ERROR_FORMAT, "two data.pkl");
  }
  {
    Entry e[] = { { "a/data.pkl", pkl, 0 }, { "a/data.pkl", pkl, 0 } };
    g_autoptr (GBytes) zip = build_zip (e, 2, FALSE);

    expect_error (zip, DL_ERROR_FORMAT, "twice");
  }
  {
    Entry e[] = { { "a/other", pkl, 0 } };
    g_autoptr (GBytes) zip = build_zip (e, 1, FALSE);

    expect_error (zip, DL_ERROR_FORMAT, "no <name>/data.pkl");
  }
  {
    /* an entry count that cannot fit, a central directory past the end */
    g_autoptr (GBytes) zip = archive (pkl, 16, FALSE);
    GByteArray *a = g_byte_array_new ();
    g_autoptr (GBytes) b1 = NULL;
    g_autoptr (GBytes) b2 = NULL;
    gsize eocd;

    g_byte_array_append (a, g_bytes_get_data (zip, NULL), g_bytes_get_size (zip));
    eocd = a->len - 22;
    a->data[eocd + 10] = 0xF0;
    b1 = g_bytes_new (a->data, a->len);
    expect_error (b1, DL_ERROR_FORMAT, "cannot fit");
    a->data[eocd + 10] = 3;
    a->data[eocd + 19] = 0x7F;
    b2 = g_byte_array_free_to_bytes (a);
    expect_error (b2, DL_ERROR_FORMAT, "lies outside");
  }
}

static void
test_hostile_pickles (void)
{
  static const struct
  {
    const gchar *pkl;
    gsize len;
    gint code;
    const gchar *says;
  } cases[] = {
#define P(s) s, sizeof s - 1
    { P ("\x80\x02}q\x00"
         "cos\nsystem\nq\x01."),
      DL_ERROR_NOT_SUPPORTED, "global os.system" },
    { P ("\x80\x02}cbuiltins\neval\n."), DL_ERROR_NOT_SUPPORTED, "builtins.eval" },
    { P ("\x80\x02X\x02\x00\x00\x00osX\x06\x00\x00\x00system\x93."), DL_ERROR_NOT_SUPPORTED,
      "global os.system" },
    { P ("\x80\x02I1\n."), DL_ERROR_NOT_SUPPORTED, "opcode 0x49 ('I')" },
    { P ("\x80\x02}0."), DL_ERROR_NOT_SUPPORTED, "opcode 0x30" },
    { P ("\x80\x02\xff."), DL_ERROR_NOT_SUPPORTED, "opcode 0xff" },
    { P ("\x80\x09}."), DL_ERROR_NOT_SUPPORTED, "protocol 9" },
    { P ("\x80\x02h\x05."), DL_ERROR_FORMAT, "memo index 5" },
    { P ("\x80\x02}q\x00j\x00\x00\x00\x01."), DL_ERROR_FORMAT, "memo index 16777216" },
    { P ("\x80\x02}"), DL_ERROR_FORMAT, "without STOP" },
    { P ("\x80\x02."), DL_ERROR_FORMAT, "empty" },
    { P ("\x80\x02s."), DL_ERROR_FORMAT, "empty" },
    { P ("\x80\x02t."), DL_ERROR_FORMAT, "no MARK" },
    { P ("\x80\x02]K\x01s."), DL_ERROR_FORMAT, "empty" },
    { P ("\x80\x02]K\x01K\x02s."), DL_ERROR_FORMAT, "SETITEM on a list" },
    { P ("\x80\x02}(K\x01u."), DL_ERROR_FORMAT, "odd number" },
    { P ("\x80\x02}(K\x01"
         "e."),
      DL_ERROR_FORMAT, "APPENDS on a dict" },
    { P ("\x80\x02]."), DL_ERROR_FORMAT, "holds a list, not a state dict" },
    { P ("\x80\x02X\xff\xff\xff\xff."), DL_ERROR_FORMAT, "BINUNICODE needs 4294967295 bytes" },
    { P ("\x80\x02X\x02\x00\x00\x00\xc3(."), DL_ERROR_FORMAT, "not UTF-8" },
    { P ("\x80\x02X\x02\x00\x00\x00"
         "a\x00."),
      DL_ERROR_FORMAT, "not UTF-8 without NULs" },
    { P ("\x80\x02\x8a\x09\x01\x02\x03\x04\x05\x06\x07\x08\x09."), DL_ERROR_FORMAT, "LONG1 of 9" },
    { P ("\x80\x02J\x01\x00"), DL_ERROR_FORMAT, "BININT needs 4 bytes" },
    { P ("\x80\x02G\x01\x00"), DL_ERROR_FORMAT, "BINFLOAT needs 8" },
    { P ("\x80\x02"
         "ctorch\nFloatStorage"),
      DL_ERROR_FORMAT, "GLOBAL" },
    { P ("\x80\x02"
         "ctorch\nFloatStorage\n)R."),
      DL_ERROR_FORMAT, "REDUCE of a global" },
    { P ("\x80\x02"
         "ccollections\nOrderedDict\nK\x01R."),
      DL_ERROR_FORMAT, "with a int" },
    { P ("\x80\x02"
         "ccollections\nOrderedDict\nK\x01\x85R."),
      DL_ERROR_FORMAT, "OrderedDict called with 1" },
    { P ("\x80\x02"
         "ctorch._utils\n_rebuild_tensor_v2\n)R."),
      DL_ERROR_FORMAT, "6 or 7" },
    { P ("\x80\x02"
         "ctorch._utils\n_rebuild_tensor_v2\n(K\x01K\x02K\x03K\x04K\x05K\x06tR."),
      DL_ERROR_FORMAT, "not (int, int, int" },
    { P ("\x80\x02"
         "ctorch._utils\n_rebuild_parameter\n(K\x01\x88}tR."),
      DL_ERROR_FORMAT, "_rebuild_parameter takes" },
    { P ("\x80\x02K\x01Q."), DL_ERROR_FORMAT, "persistent id" },
    { P ("\x80\x02(X\x07\x00\x00\x00storagectorch\nFloatStorage\nX\x01\x00\x00\x00"
         "0X\x03\x00\x00"
         "\x00"
         "cpuK\x04tQ(X\x07\x00\x00\x00storagectorch\nLongStorage\nX\x01\x00\x00\x00"
         "0X\x03"
         "\x00\x00\x00"
         "cpuK\x02tQ."),
      DL_ERROR_FORMAT, "named again" },
    { P ("\x80\x02]K\x01"
         "b."),
      DL_ERROR_NOT_SUPPORTED, "BUILD on a list" },
    /* a dict holding itself: flattening stops at the nesting limit */
    { P ("\x80\x02}q\x00X\x01\x00\x00\x00"
         "ah\x00s."),
      DL_ERROR_FORMAT, "nest deeper than 32" },
#undef P
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GBytes) zip = archive_of (cases[i].pkl, cases[i].len);

      expect_error (zip, cases[i].code, cases[i].says);
    }
  {
    /* a list holding itself is no state dict, and frees */
    static const gchar pkl[] = "\x80\x02}X\x01\x00\x00\x00"
                               "a]q\x01h\x01"
                               "as.";
    g_autoptr (GBytes) zip = archive_of (pkl, sizeof pkl - 1);
    g_autoptr (GError) error = NULL;
    g_autoptr (DlTensorDict) d = dl_pytorch_load_state_dict_bytes (zip, &error);

    g_assert_no_error (error);
    g_assert_cmpuint (dl_tensor_dict_get_size (d), ==, 0);
  }
}

/* Nesting and stack bombs: a million MARKs, lists nested a hundred
 * thousand deep, dicts nested past the limit. */
static void
test_bombs (void)
{
  {
    GByteArray *a = g_byte_array_new ();
    g_autoptr (GBytes) pkl = NULL;
    g_autoptr (GBytes) zip = NULL;

    p_op (a, 0x80);
    p_op (a, 2);
    for (int i = 0; i < (1 << 20) + 1; i++)
      p_op (a, '(');
    p_op (a, '.');
    pkl = g_byte_array_free_to_bytes (a);
    zip = archive (pkl, 0, FALSE);
    expect_error (zip, DL_ERROR_FORMAT, "more than 1048576 MARKs");
  }
  {
    GByteArray *a = g_byte_array_new ();
    g_autoptr (GBytes) pkl = NULL;
    g_autoptr (GBytes) zip = NULL;

    p_op (a, 0x80);
    p_op (a, 2);
    for (int i = 0; i < (1 << 20) + 1; i++)
      p_op (a, 'N');
    p_op (a, '.');
    pkl = g_byte_array_free_to_bytes (a);
    zip = archive (pkl, 0, FALSE);
    expect_error (zip, DL_ERROR_FORMAT, "stack grows past");
  }
  {
    /* [[[...]]] 100000 deep inside the state dict: skipped */
    GByteArray *a = g_byte_array_new ();
    g_autoptr (GBytes) pkl = NULL;
    g_autoptr (GBytes) zip = NULL;
    g_autoptr (GError) error = NULL;
    g_autoptr (DlTensorDict) d = NULL;

    p_op (a, 0x80);
    p_op (a, 2);
    p_op (a, '}');
    p_str (a, "deep");
    for (int i = 0; i < 100000; i++)
      p_op (a, ']');
    for (int i = 0; i < 99999; i++)
      p_op (a, 'a');
    p_op (a, 's');
    p_op (a, '.');
    pkl = g_byte_array_free_to_bytes (a);
    zip = archive (pkl, 0, FALSE);
    d = dl_pytorch_load_state_dict_bytes (zip, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (dl_tensor_dict_get_size (d), ==, 0);
  }
  {
    /* {"k": {"k": ...}} 100000 deep */
    GByteArray *a = g_byte_array_new ();
    g_autoptr (GBytes) pkl = NULL;
    g_autoptr (GBytes) zip = NULL;

    p_op (a, 0x80);
    p_op (a, 2);
    p_op (a, '}');
    for (int i = 0; i < 100000; i++)
      {
        p_op (a, 'K');
        p_op (a, 1);
        p_op (a, '}');
      }
    for (int i = 0; i < 100000; i++)
      p_op (a, 's');
    p_op (a, '.');
    pkl = g_byte_array_free_to_bytes (a);
    zip = archive (pkl, 0, FALSE);
    expect_error (zip, DL_ERROR_FORMAT, "nest deeper than 32 levels (at '1.1.1.");
  }
}

/* Every prefix of a real archive is refused (the end of central
 * directory is at the end; a legacy stream ends with the last storage's
 * bytes). */
static void
test_truncated (gconstpointer name)
{
  g_autoptr (GBytes) seed = fixture (name);
  gsize size = g_bytes_get_size (seed);

  for (gsize n = 0; n < size; n++)
    {
      g_autoptr (GBytes) cut = g_bytes_new_from_bytes (seed, 0, n);
      /* a copy of its own, so that valgrind sees reads past its end */
      g_autoptr (GBytes) copy = g_bytes_new (g_bytes_get_data (cut, NULL), n);

      g_assert_false (load_or_fail_cleanly (copy));
    }
}

/* Mutates @data: bit flips, random bytes, interesting values, cuts and
 * duplicated runs; most land in @hot (an offset range) when given. */
static void
mutate (GByteArray *data, GRand *rand, gsize hot_start, gsize hot_end)
{
  static const guint8 interesting[] = { 0x00, 0x01, 0x7f, 0x80, 0xff, '(', ')', 't', 'q',
                                        'h',  'R',  'Q',  'b',  's',  'u', '.', 'K' };
  guint n = g_rand_int_range (rand, 1, 5);

  for (guint k = 0; k < n && data->len > 0; k++)
    {
      guint pos = g_rand_int_range (rand, 0, data->len);

      if (hot_end > hot_start && hot_end <= data->len && g_rand_int_range (rand, 0, 4) != 0)
        pos = g_rand_int_range (rand, hot_start, hot_end);
      switch (g_rand_int_range (rand, 0, 6))
        {
          case 0:
          case 1:
            data->data[pos] ^= 1 << g_rand_int_range (rand, 0, 8);
            break;
          case 2:
            data->data[pos] = g_rand_int_range (rand, 0, 256);
            break;
          case 3:
            data->data[pos] = interesting[g_rand_int_range (rand, 0, sizeof interesting)];
            break;
          case 4:
            if (pos + 4 <= data->len)
              {
                guint32 v = g_rand_boolean (rand) ? 0xFFFFFFFF
                                                  : (guint32)g_rand_int_range (rand, 0, 1 << 16);

                memcpy (data->data + pos, &v, 4);
              }
            break;
          default:
            if (g_rand_int_range (rand, 0, 8) == 0)
              g_byte_array_set_size (data, g_rand_int_range (rand, 0, data->len));
            else
              {
                /* copy a run of bytes over another place */
                guint from = g_rand_int_range (rand, 0, data->len);
                guint run = g_rand_int_range (rand, 1, 16);
                guint len = MIN (run, data->len - MAX (from, pos));

                memmove (data->data + pos, data->data + from, len);
              }
            break;
        }
    }
}

/* The pickle of the mixed fixture: its start and length in the file. */
static void
find_pickle (GBytes *seed, gsize *start, gsize *end)
{
  const guint8 *d = g_bytes_get_data (seed, NULL);
  gsize size = g_bytes_get_size (seed);
  guint32 cd, len;

  /* the first local header is data.pkl's (torch.save writes it first);
   * its size is in the central directory (the local header has a data
   * descriptor's zeros) */
  g_assert_cmpuint (size, >, 30);
  g_assert_cmpuint (d[0] | d[1] << 8 | d[2] << 16 | (guint32)d[3] << 24, ==, 0x04034b50);
  *start = 30 + (d[26] | d[27] << 8) + (d[28] | d[29] << 8);
  memcpy (&cd, d + size - 22 + 16, 4);
  g_assert_cmpuint (cd + 28, <, size);
  memcpy (&len, d + cd + 24, 4);
  *end = *start + len;
  g_assert_cmpuint (*end, <=, size);
}

static void
test_fuzz (void)
{
  g_autoptr (GBytes) seed = fixture ("pytorch-mixed.pt");
  g_autoptr (GRand) rand = g_rand_new_with_seed (g_test_rand_int ());
  const gchar *env = g_getenv ("DL_PYTORCH_FUZZ_RUNS");
  guint runs = env ? atoi (env) : 20000, loaded = 0, loaded_pkl = 0;
  gsize pkl_start, pkl_end;

  find_pickle (seed, &pkl_start, &pkl_end);
  g_assert_true (load_or_fail_cleanly (seed));
  /* mutations of the whole archive, most in the pickle */
  for (guint r = 0; r < runs; r++)
    {
      GByteArray *data = g_byte_array_new ();
      g_autoptr (GBytes) bytes = NULL;

      g_byte_array_append (data, g_bytes_get_data (seed, NULL), g_bytes_get_size (seed));
      mutate (data, rand, pkl_start, pkl_end);
      /* a copy of the exact size, so that valgrind sees a read past the end */
      bytes = g_bytes_new (data->data, data->len);
      g_byte_array_free (data, TRUE);
      loaded += load_or_fail_cleanly (bytes);
    }
  /* mutations of the pickle alone, in a well-formed archive of the same
   * storages: every one reaches the pickle machine */
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (DlTensorDict) d = dl_pytorch_load_state_dict_bytes (seed, &error);

    g_assert_no_error (error);
  }
  for (guint r = 0; r < runs; r++)
    {
      GByteArray *pkl = g_byte_array_new ();
      GByteArray *zip = g_byte_array_new ();
      g_autoptr (GBytes) bytes = NULL;
      gsize delta;

      g_byte_array_append (pkl, (const guint8 *)g_bytes_get_data (seed, NULL) + pkl_start,
                           pkl_end - pkl_start);
      mutate (pkl, rand, 0, 0);
      /* the same archive with the new pickle in place of the old: the
       * local header's sizes and every offset after it move by delta */
      g_byte_array_append (zip, g_bytes_get_data (seed, NULL), pkl_start);
      g_byte_array_append (zip, pkl->data, pkl->len);
      delta = pkl->len - (pkl_end - pkl_start);
      g_byte_array_append (zip, (const guint8 *)g_bytes_get_data (seed, NULL) + pkl_end,
                           g_bytes_get_size (seed) - pkl_end);
      for (int k = 0; k < 2; k++)
        {
          guint32 v = pkl->len;

          memcpy (zip->data + 18 + 4 * k, &v, 4);
        }
      {
        /* fix the central directory: sizes of the first entry, offsets of all */
        gsize eocd = zip->len - 22;
        guint32 cd, n;

        memcpy (&cd, zip->data + eocd + 16, 4);
        n = zip->data[eocd + 10] | zip->data[eocd + 11] << 8;
        cd += delta;
        memcpy (zip->data + eocd + 16, &cd, 4);
        for (guint e = 0, at = cd; e < n; e++)
          {
            guint32 off, v = pkl->len;
            guint16 nl, el, cl;

            if (e == 0)
              {
                memcpy (zip->data + at + 20, &v, 4);
                memcpy (zip->data + at + 24, &v, 4);
              }
            else
              {
                memcpy (&off, zip->data + at + 42, 4);
                off += delta;
                memcpy (zip->data + at + 42, &off, 4);
              }
            memcpy (&nl, zip->data + at + 28, 2);
            memcpy (&el, zip->data + at + 30, 2);
            memcpy (&cl, zip->data + at + 32, 2);
            at += 46 + nl + el + cl;
          }
      }
      g_byte_array_free (pkl, TRUE);
      bytes = g_bytes_new (zip->data, zip->len);
      g_byte_array_free (zip, TRUE);
      loaded_pkl += load_or_fail_cleanly (bytes);
    }
  g_test_message ("fuzz: %u mutated archives, %u loaded; %u mutated pickles, %u loaded", runs,
                  loaded, runs, loaded_pkl);
  /* the mutations do not all fail at the first check */
  g_assert_cmpuint (loaded_pkl, >, 0);
  g_assert_cmpuint (loaded_pkl, <, runs);
}

/* ---- the legacy format --------------------------------------------------- */

/* pickle protocol 4 (FRAMEs, MEMOIZE, SHORT_BINUNICODE): the same tensors
 * as the zip archive of the same state dict */
static void
test_legacy_linear (void)
{
  g_autoptr (DlTensorDict) legacy = load_fixture ("pytorch-legacy-linear-p4.pt");
  g_autoptr (DlTensorDict) zip = load_fixture ("pytorch-linear.pt");
  g_auto (GStrv) names = dl_tensor_dict_get_names (zip);
  g_auto (GStrv) legacy_names = dl_tensor_dict_get_names (legacy);
  g_autoptr (GError) error = NULL;

  g_assert_cmpstrv (legacy_names, names);
  for (gchar **n = names; *n; n++)
    {
      g_assert_true (dl_tensor_allclose (dl_tensor_dict_lookup (legacy, *n),
                                         dl_tensor_dict_lookup (zip, *n), 0, 0, FALSE, &error));
      g_assert_no_error (error);
    }
}

/* The legacy stream's head: magic, protocol version, sys_info. */
static void
legacy_head (GByteArray *a, gint64 version, gboolean little_endian)
{
  static const guint8 magic[]
      = { 0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19, '.' };

  g_byte_array_append (a, magic, sizeof magic);
  p_op (a, 0x80);
  p_op (a, 2);
  p_int (a, version);
  p_op (a, '.');
  p_op (a, 0x80);
  p_op (a, 2);
  p_op (a, '}');
  p_op (a, '(');
  p_str (a, "protocol_version");
  p_int (a, 1001);
  p_str (a, "little_endian");
  p_op (a, little_endian ? 0x88 : 0x89);
  p_op (a, 'u');
  p_op (a, '.');
}

/* A legacy stream: the head, @obj, the list of @keys (NULL-terminated),
 * then for each of the @n records the count @counts[i] and @nbytes[i]
 * bytes (1, 2, 3, ...). */
static GBytes *
legacy_stream (GBytes *obj,
               const gchar *const *keys,
               const gint64 *counts,
               const gsize *nbytes,
               gsize n)
{
  GByteArray *a = g_byte_array_new ();

  legacy_head (a, 1001, TRUE);
  g_byte_array_append (a, g_bytes_get_data (obj, NULL), g_bytes_get_size (obj));
  p_op (a, 0x80);
  p_op (a, 2);
  p_op (a, ']');
  p_op (a, '(');
  for (const gchar *const *k = keys; *k; k++)
    p_str (a, *k);
  p_op (a, 'e');
  p_op (a, '.');
  for (gsize i = 0; i < n; i++)
    {
      put64 (a, counts[i]);
      for (gsize j = 0; j < nbytes[i]; j++)
        p_op (a, j + 1);
    }
  return g_byte_array_free_to_bytes (a);
}

/* {"w": a view of 3 of storage "0"'s @numel floats at offset 1} */
static GBytes *
legacy_tensor (gint64 numel, gint64 view_offset, gint64 view_numel)
{
  return tensor_pickle_full ("FloatStorage", numel, 1, (gint64[]){ 3 }, (gint64[]){ 1 }, 1, TRUE,
                             view_offset, view_numel);
}

static void
test_legacy_hostile (void)
{
  static const gchar *const key0[] = { "0", NULL };
  g_autoptr (GBytes) obj = legacy_tensor (4, 0, -1);

  /* the builder's stream loads: w = elements 1..3 of the storage */
  {
    g_autoptr (GBytes) b = legacy_stream (obj, key0, (gint64[]){ 4 }, (gsize[]){ 16 }, 1);
    g_autoptr (GError) error = NULL;
    g_autoptr (DlTensorDict) d = dl_pytorch_load_state_dict_bytes (b, &error);
    g_autoptr (GBytes) values = NULL;

    g_assert_no_error (error);
    values = dl_tensor_to_bytes (dl_tensor_dict_lookup (d, "w"), &error);
    {
      static const guint8 want[] = { 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

      g_assert_no_error (error);
      g_assert_cmpmem (g_bytes_get_data (values, NULL), g_bytes_get_size (values), want, 12);
    }
  }
  /* an old file's storage view: elements [2, 6) of 6, the tensor at 1 of them */
  {
    g_autoptr (GBytes) v = legacy_tensor (6, 2, 4);
    g_autoptr (GBytes) b = legacy_stream (v, key0, (gint64[]){ 6 }, (gsize[]){ 24 }, 1);
    g_autoptr (GError) error = NULL;
    g_autoptr (DlTensorDict) d = dl_pytorch_load_state_dict_bytes (b, &error);

    g_assert_no_error (error);
    g_assert_cmpint (dl_tensor_get_storage_offset (dl_tensor_dict_lookup (d, "w")), ==, 3);
    g_clear_object (&d);
    g_clear_pointer (&b, g_bytes_unref);
    g_clear_pointer (&v, g_bytes_unref);
    v = legacy_tensor (6, 4, 3);
    b = legacy_stream (v, key0, (gint64[]){ 6 }, (gsize[]){ 24 }, 1);
    expect_error (b, DL_ERROR_FORMAT, "a view of 3 elements at 4 is past its 6 elements");
    g_clear_pointer (&b, g_bytes_unref);
    g_clear_pointer (&v, g_bytes_unref);
    v = legacy_tensor (6, 2, 3);
    b = legacy_stream (v, key0, (gint64[]){ 6 }, (gsize[]){ 24 }, 1);
    expect_error (b, DL_ERROR_FORMAT, "reaches past its 3 elements");
  }
  {
    struct
    {
      const gchar *const *keys;
      gint64 count;
      gsize nbytes;
      gint code;
      const gchar *fragment;
    } cases[] = {
      /* counts */
      { key0, 5, 20, DL_ERROR_FORMAT, "storage '0' has 5 elements, the object says 4" },
      { key0, 3, 12, DL_ERROR_FORMAT, "storage '0' has 3 elements, the object says 4" },
      { key0, -1, 16, DL_ERROR_FORMAT, "has -1 elements" },
      { key0, G_MAXINT64, 16, DL_ERROR_FORMAT, "has 9223372036854775807 elements" },
      /* bytes short of the count */
      { key0, 4, 15, DL_ERROR_FORMAT, "needs 4 float32 elements at byte" },
      { key0, 4, 0, DL_ERROR_FORMAT, "past the end of the file" },
      /* keys that are not the storages the object names */
      { (const gchar *const[]){ NULL }, 4, 16, DL_ERROR_FORMAT,
        "the storage keys are a list of 0, the object names 1 storages" },
      { (const gchar *const[]){ "1", NULL }, 4, 16, DL_ERROR_FORMAT,
        "storage key 0 is '1': not a storage the object names" },
      { (const gchar *const[]){ "0", "0", NULL }, 4, 16, DL_ERROR_FORMAT,
        "the storage keys are a list of 2" },
    };

    for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
      {
        g_autoptr (GBytes) b
            = legacy_stream (obj, cases[i].keys, &cases[i].count, &cases[i].nbytes, 1);

        expect_error (b, cases[i].code, cases[i].fragment);
      }
  }
  /* the same key twice where the object names two storages; a record missing */
  {
    GByteArray *a = g_byte_array_new ();
    g_autoptr (GBytes) two = NULL;
    g_autoptr (GBytes) b = NULL;

    /* {"w": tensor of storage "0", "x": tensor of storage "1"} */
    g_byte_array_append (a, g_bytes_get_data (obj, NULL), g_bytes_get_size (obj) - 2);
    p_str (a, "x");
    {
      g_autoptr (GBytes) t = tensor_pickle_full ("FloatStorage", 4, 0, (gint64[]){ 4 },
                                                 (gint64[]){ 1 }, 1, TRUE, 0, -1);
      const guint8 *p = g_bytes_get_data (t, NULL);
      gsize n = g_bytes_get_size (t);
      /* the tensor's ops: after PROTO, '}', '(' and "w" (X + 4 + 1 bytes) up to
       * the final 'u' '.', with the storage key "0" renamed "1" */
      GByteArray *inner = g_byte_array_new ();

      g_byte_array_append (inner, p + 4 + 6, n - 4 - 6 - 2);
      for (guint j = 0; j + 6 <= inner->len; j++)
        if (memcmp (inner->data + j,
                    "X\1\0\0\0"
                    "0",
                    6)
            == 0)
          inner->data[j + 5] = '1';
      g_byte_array_append (a, inner->data, inner->len);
      g_byte_array_free (inner, TRUE);
    }
    p_op (a, 'u');
    p_op (a, '.');
    two = g_byte_array_free_to_bytes (a);
    b = legacy_stream (two, (const gchar *const[]){ "0", "1", NULL }, (gint64[]){ 4, 4 },
                       (gsize[]){ 16, 16 }, 2);
    g_assert_true (load_or_fail_cleanly (b));
    g_clear_pointer (&b, g_bytes_unref);
    b = legacy_stream (two, (const gchar *const[]){ "0", "0", NULL }, (gint64[]){ 4, 4 },
                       (gsize[]){ 16, 16 }, 2);
    expect_error (b, DL_ERROR_FORMAT, "storage key 1 is '0': listed twice");
    g_clear_pointer (&b, g_bytes_unref);
    b = legacy_stream (two, (const gchar *const[]){ "0", "1", NULL }, (gint64[]){ 4 },
                       (gsize[]){ 16 }, 1);
    expect_error (b, DL_ERROR_FORMAT, "before the size of storage '1'");
  }
  /* the head */
  {
    struct
    {
      gint64 version;
      gboolean little_endian;
      gint code;
      const gchar *fragment;
    } cases[] = {
      { 1000, TRUE, DL_ERROR_FORMAT, "the protocol version is a int 1000, not 1001" },
      { 1001, FALSE, DL_ERROR_NOT_SUPPORTED, "only little-endian files" },
    };

    for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
      {
        GByteArray *a = g_byte_array_new ();
        g_autoptr (GBytes) b = NULL;

        legacy_head (a, cases[i].version, cases[i].little_endian);
        g_byte_array_append (a, (const guint8 *)"\x80\x02}.\x80\x02].", 8);
        b = g_byte_array_free_to_bytes (a);
        expect_error (b, cases[i].code, cases[i].fragment);
      }
  }
  /* keys that are not a list */
  {
    GByteArray *a = g_byte_array_new ();
    g_autoptr (GBytes) b = NULL;

    legacy_head (a, 1001, TRUE);
    g_byte_array_append (a, (const guint8 *)"\x80\x02}.\x80\x02}.", 8);
    b = g_byte_array_free_to_bytes (a);
    expect_error (b, DL_ERROR_FORMAT, "the storage keys are a dict, not a list");
  }
  /* an old file saved from a GPU: torch.cuda.FloatStorage at 'cuda:0' */
  {
    GByteArray *a = g_byte_array_new ();
    g_autoptr (GBytes) gpu = NULL;
    g_autoptr (GBytes) b = NULL;
    g_autoptr (GError) error = NULL;
    g_autoptr (DlTensorDict) d = NULL;
    const guint8 *p = g_bytes_get_data (obj, NULL);
    gsize n = g_bytes_get_size (obj);
    guint replaced = 0;

    for (gsize i = 0; i < n; i++)
      if (i + 19 <= n && memcmp (p + i, "ctorch\nFloatStorage", 19) == 0)
        {
          g_byte_array_append (a, (const guint8 *)"ctorch.cuda\nFloatStorage", 24);
          i += 18;
          replaced++;
        }
      else if (i + 8 <= n && memcmp (p + i, "X\3\0\0\0cpu", 8) == 0)
        {
          g_byte_array_append (a, (const guint8 *)"X\6\0\0\0cuda:0", 11);
          i += 7;
          replaced++;
        }
      else
        g_byte_array_append (a, p + i, 1);
    gpu = g_byte_array_free_to_bytes (a);
    g_assert_cmpuint (replaced, ==, 2);
    b = legacy_stream (gpu, key0, (gint64[]){ 4 }, (gsize[]){ 16 }, 1);
    d = dl_pytorch_load_state_dict_bytes (b, &error);
    g_assert_no_error (error);
    dl_test_assert_shape (dl_tensor_dict_lookup (d, "w"), DL_TEST_SHAPE (3));
  }
  /* the object: a zip-format persistent id, a global that is not allowed */
  {
    g_autoptr (GBytes) zipid
        = tensor_pickle ("FloatStorage", 4, 1, (gint64[]){ 3 }, (gint64[]){ 1 }, 1);
    g_autoptr (GBytes) b = legacy_stream (zipid, key0, (gint64[]){ 4 }, (gsize[]){ 16 }, 1);
    g_autoptr (GBytes) evil = g_bytes_new_static ("\x80\x02"
                                                  "cos\nsystem\n"
                                                  "X\x02\0\0\0id"
                                                  "\x85R.",
                                                  22);
    g_autoptr (GBytes) e = legacy_stream (evil, (const gchar *const[]){ NULL }, NULL, NULL, 0);

    expect_error (b, DL_ERROR_FORMAT, "not ('storage', storage type, key, location, numel, view)");
    expect_error (e, DL_ERROR_NOT_SUPPORTED, "os.system");
  }
  /* the empty dict with no storages, and a stream of the magic alone */
  {
    g_autoptr (GBytes) empty = g_bytes_new_static ("\x80\x02}.", 4);
    g_autoptr (GBytes) b = legacy_stream (empty, (const gchar *const[]){ NULL }, NULL, NULL, 0);
    g_autoptr (GError) error = NULL;
    g_autoptr (DlTensorDict) d = dl_pytorch_load_state_dict_bytes (b, &error);
    g_autoptr (GBytes) magic = g_bytes_new_static ("\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a"
                                                   "\xa8\x50\x19.",
                                                   15);

    g_assert_no_error (error);
    g_assert_nonnull (d);
    expect_error (magic, DL_ERROR_FORMAT, "the pickle ends without STOP");
  }
}

/* Seeded mutations of a legacy stream load readable tensors or fail with
 * a DL_ERROR. */
static void
test_legacy_fuzz (void)
{
  g_autoptr (GBytes) seed = fixture ("pytorch-legacy-mixed.pt");
  g_autoptr (GRand) rand = g_rand_new_with_seed (g_test_rand_int ());
  const gchar *env = g_getenv ("DL_PYTORCH_FUZZ_RUNS");
  guint runs = env ? atoi (env) : 20000, loaded = 0;
  gsize size = g_bytes_get_size (seed);

  g_assert_true (load_or_fail_cleanly (seed));
  for (guint r = 0; r < runs; r++)
    {
      GByteArray *data = g_byte_array_new ();
      g_autoptr (GBytes) bytes = NULL;

      g_byte_array_append (data, g_bytes_get_data (seed, NULL), size);
      mutate (data, rand, 0, 0);
      bytes = g_bytes_new (data->data, data->len);
      g_byte_array_free (data, TRUE);
      loaded += load_or_fail_cleanly (bytes);
    }
  g_test_message ("legacy fuzz: %u mutated streams, %u loaded", runs, loaded);
  g_assert_cmpuint (loaded, >, 0);
  g_assert_cmpuint (loaded, <, runs);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_data_func ("/pytorch/mixed", "pytorch-mixed.pt", test_mixed);
  g_test_add_func ("/pytorch/copy-on-write", test_copy_on_write);
  g_test_add_func ("/pytorch/linear", test_linear);
  g_test_add_func ("/pytorch/builder", test_builder);
  g_test_add_func ("/pytorch/hostile/views", test_hostile_views);
  g_test_add_func ("/pytorch/hostile/archives", test_hostile_archives);
  g_test_add_func ("/pytorch/hostile/pickles", test_hostile_pickles);
  g_test_add_func ("/pytorch/hostile/bombs", test_bombs);
  g_test_add_data_func ("/pytorch/truncated", "pytorch-mixed.pt", test_truncated);
  g_test_add_func ("/pytorch/fuzz", test_fuzz);
  g_test_add_data_func ("/pytorch/legacy/mixed", "pytorch-legacy-mixed.pt", test_mixed);
  g_test_add_func ("/pytorch/legacy/linear", test_legacy_linear);
  g_test_add_func ("/pytorch/legacy/hostile", test_legacy_hostile);
  g_test_add_data_func ("/pytorch/legacy/truncated", "pytorch-legacy-mixed.pt", test_truncated);
  g_test_add_func ("/pytorch/legacy/fuzz", test_legacy_fuzz);

  return g_test_run ();
}
