/* dl-safetensors.c: the safetensors checkpoint format, read and written.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The format (https://github.com/huggingface/safetensors): an unsigned
 * 64-bit little-endian header length N; N bytes of UTF-8 JSON, an object
 * mapping each tensor name to {"dtype": "F32", "shape": [2, 3],
 * "data_offsets": [begin, end]} plus an optional "__metadata__" object of
 * strings; then the data, each tensor's elements little-endian in
 * row-major order at [begin, end) of the data, the tensors together
 * covering the data exactly, without holes or overlaps.
 *
 * Reading trusts nothing in the file: every length, offset, shape and
 * dtype is checked before it is used, and the JSON is walked once before
 * json-glib parses it (json-glib recurses once per nesting level and wraps
 * integers past 64 bits without a word).
 */
#include "config.h"

#include <string.h>

#include <json-glib/json-glib.h>

#include "data/dl-file-map-private.h"
#include "data/dl-safetensors.h"
#include "dl-error.h"
#include "dl-node.h"
#include "ops/dl-ops-shape.h"

/* The file's bytes are the tensors' bytes: only a little-endian host can
 * map them as they are. */
G_STATIC_ASSERT (G_BYTE_ORDER == G_LITTLE_ENDIAN);

/* A header nests three deep ({"name": {"shape": [..]}}); anything far
 * deeper is an attack on the JSON parser's stack. */
#define MAX_DEPTH 16
#define MAX_DIMS 64
#define METADATA_KEY "__metadata__"

static const struct
{
  const gchar *name;
  DlDType dtype;
} dtypes[] = {
  { "F32", DL_DTYPE_FLOAT32 },   { "F64", DL_DTYPE_FLOAT64 }, { "F16", DL_DTYPE_FLOAT16 },
  { "BF16", DL_DTYPE_BFLOAT16 }, { "I32", DL_DTYPE_INT32 },   { "I64", DL_DTYPE_INT64 },
  { "U8", DL_DTYPE_UINT8 },      { "BOOL", DL_DTYPE_BOOL },
};

/* dtypes of the format that libdl has no tensors of */
static const gchar *const unsupported_dtypes[]
    = { "I8", "I16", "U16", "U32", "U64", "F8_E4M3", "F8_E5M2", NULL };

static const gchar *
dtype_to_format (DlDType dtype)
{
  for (gsize i = 0; i < G_N_ELEMENTS (dtypes); i++)
    if (dtypes[i].dtype == dtype)
      return dtypes[i].name;
  g_return_val_if_reached (NULL);
}

static void set_format_error (GError **error, const gchar *what, const gchar *format, ...)
    G_GNUC_PRINTF (3, 4);

static void
set_format_error (GError **error, const gchar *what, const gchar *format, ...)
{
  g_autofree gchar *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, DL_ERROR, DL_ERROR_FORMAT, "safetensors: %s: %s", what, message);
}

/* ---- reading ------------------------------------------------------------ */

typedef struct
{
  const gchar *name; /* borrowed from the parsed JSON */
  DlDType dtype;
  gint ndim;
  gint64 shape[MAX_DIMS];
  guint64 begin, end;
} Entry;

/* The value of the 4 hex digits at @p, or -1. */
static gint
hex4 (const gchar *p)
{
  gint v = 0;

  for (int k = 0; k < 4; k++)
    {
      gint d = g_ascii_xdigit_value (p[k]);

      if (d < 0)
        return -1;
      v = v * 16 + d;
    }
  return v;
}

/* Checks the escape at text[*i] (a backslash) and moves *i to its last
 * byte. A \u escape must not be \u0000 (a NUL would cut the decoded
 * string short) nor a lone surrogate (which decodes to invalid UTF-8, and
 * on which json-glib 1.6 leaks). */
static gboolean
check_escape (const gchar *text, gsize len, gsize *i, const gchar *what, GError **error)
{
  gsize at = *i;
  gint v, low;

  if (at + 1 < len && strchr ("\"\\/bfnrt", text[at + 1]) != NULL && text[at + 1] != '\0')
    {
      *i = at + 1;
      return TRUE;
    }
  if (at + 5 >= len || text[at + 1] != 'u' || (v = hex4 (text + at + 2)) < 0)
    {
      set_format_error (error, what,
                        "invalid escape in a string of the header at byte %" G_GSIZE_FORMAT, at);
      return FALSE;
    }
  if (v == 0)
    {
      set_format_error (error, what,
                        "a string of the header holds \\u0000 at byte %" G_GSIZE_FORMAT, at);
      return FALSE;
    }
  if (v >= 0xD800 && v <= 0xDBFF && at + 11 < len && text[at + 6] == '\\' && text[at + 7] == 'u'
      && (low = hex4 (text + at + 8)) >= 0xDC00 && low <= 0xDFFF)
    {
      *i = at + 11;
      return TRUE;
    }
  if (v >= 0xD800 && v <= 0xDFFF)
    {
      set_format_error (
          error, what,
          "a string of the header holds a lone surrogate \\u%04X at byte %" G_GSIZE_FORMAT, v, at);
      return FALSE;
    }
  *i = at + 5;
  return TRUE;
}

/* Walks the header text once before json-glib sees it: it must open with
 * '{', nest at most MAX_DEPTH deep, and hold no integer that does not fit
 * in 64 bits, and no string escape json-glib mishandles (check_escape).
 * The rest of the strings json-glib checks. */
static gboolean
scan_header (const gchar *text, gsize len, const gchar *what, GError **error)
{
  static const gchar int64_max[] = "9223372036854775807";
  guint depth = 0;
  gsize i = 0;

  if (len == 0 || text[0] != '{')
    {
      set_format_error (error, what, "the header is not a JSON object (it must begin with '{')");
      return FALSE;
    }
  while (i < len)
    {
      gchar c = text[i];

      if (c == '"')
        {
          for (i++; i < len && text[i] != '"'; i++)
            if (text[i] == '\\' && !check_escape (text, len, &i, what, error))
              return FALSE;
          i++;
          continue;
        }
      if (c == '{' || c == '[')
        {
          if (++depth > MAX_DEPTH)
            {
              set_format_error (error, what,
                                "the header nests deeper than %d levels at byte %" G_GSIZE_FORMAT,
                                MAX_DEPTH, i);
              return FALSE;
            }
        }
      else if ((c == '}' || c == ']') && depth > 0)
        depth--;
      else if (c == '-' || g_ascii_isdigit (c))
        {
          gsize start = i + (c == '-'), end = start;

          while (end < len && g_ascii_isdigit (text[end]))
            end++;
          if ((end == len || (text[end] != '.' && text[end] != 'e' && text[end] != 'E'))
              && (end - start > 19
                  || (end - start == 19 && memcmp (text + start, int64_max, 19) > 0)))
            {
              set_format_error (error, what,
                                "the integer %.*s%s at byte %" G_GSIZE_FORMAT
                                " of the header does not fit in 64 bits",
                                (int)MIN (end - i, 40), text + i, end - i > 40 ? "..." : "", i);
              return FALSE;
            }
          i = MAX (end, i + 1);
          continue;
        }
      i++;
    }
  return TRUE;
}

/* JSON objects the parser reported members of, and how many: an object
 * with fewer members than reports had a key twice (json-glib keeps the
 * last and says nothing). */
typedef struct
{
  GHashTable *counts; /* JsonObject* -> count */
  gchar *duplicate;   /* the first key seen twice */
  gboolean bad_utf8;  /* a key that u-escapes decoded to invalid UTF-8 (a lone surrogate) */
} MemberCheck;

static void
on_object_member (JsonParser *parser, JsonObject *object, const gchar *name, MemberCheck *check)
{
  guint n = GPOINTER_TO_UINT (g_hash_table_lookup (check->counts, object)) + 1;

  g_hash_table_insert (check->counts, object, GUINT_TO_POINTER (n));
  if (!g_utf8_validate (name, -1, NULL))
    check->bad_utf8 = TRUE;
  else if (n != json_object_get_size (object) && check->duplicate == NULL)
    check->duplicate = g_strdup (name);
}

/* The string of @node, or NULL if it holds none or one that u-escapes
 * made invalid UTF-8. */
static const gchar *
get_string (JsonNode *node)
{
  const gchar *s;

  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  s = json_node_get_string (node);
  return g_utf8_validate (s, -1, NULL) ? s : NULL;
}

static gboolean
read_uint (JsonNode *node, guint64 *value)
{
  gint64 v;

  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_INT64)
    return FALSE;
  v = json_node_get_int (node);
  if (v < 0)
    return FALSE;
  *value = v;
  return TRUE;
}

static gboolean
parse_entry (const gchar *what,
             const gchar *name,
             JsonNode *node,
             guint64 data_size,
             Entry *entry,
             GError **error)
{
  JsonObject *info;
  JsonNode *dtype_node, *shape_node, *offsets_node;
  JsonArray *shape, *offsets;
  const gchar *dtype;
  guint64 nbytes, begin, end;
  gboolean found = FALSE;

  entry->name = name;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      set_format_error (error, what, "tensor '%s': its entry is not a JSON object", name);
      return FALSE;
    }
  info = json_node_get_object (node);
  dtype_node = json_object_get_member (info, "dtype");
  shape_node = json_object_get_member (info, "shape");
  offsets_node = json_object_get_member (info, "data_offsets");
  if (dtype_node == NULL || shape_node == NULL || offsets_node == NULL)
    {
      set_format_error (error, what, "tensor '%s': %s missing", name,
                        dtype_node == NULL   ? "\"dtype\""
                        : shape_node == NULL ? "\"shape\""
                                             : "\"data_offsets\"");
      return FALSE;
    }
  dtype = get_string (dtype_node);
  if (dtype == NULL)
    {
      set_format_error (error, what, "tensor '%s': \"dtype\" is not a UTF-8 string", name);
      return FALSE;
    }
  for (gsize i = 0; i < G_N_ELEMENTS (dtypes) && !found; i++)
    if (g_str_equal (dtype, dtypes[i].name))
      {
        entry->dtype = dtypes[i].dtype;
        found = TRUE;
      }
  if (!found)
    {
      if (g_strv_contains (unsupported_dtypes, dtype))
        g_set_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED,
                     "safetensors: %s: tensor '%s': dtype %s has no libdl dtype "
                     "(F32 F64 F16 BF16 I32 I64 U8 BOOL)",
                     what, name, dtype);
      else
        {
          g_autofree gchar *shown
              = g_utf8_substring (dtype, 0, MIN (g_utf8_strlen (dtype, -1), 40));

          set_format_error (error, what, "tensor '%s': unknown dtype \"%s\"", name, shown);
        }
      return FALSE;
    }

  if (!JSON_NODE_HOLDS_ARRAY (shape_node))
    {
      set_format_error (error, what, "tensor '%s': \"shape\" is not an array", name);
      return FALSE;
    }
  shape = json_node_get_array (shape_node);
  if (json_array_get_length (shape) > MAX_DIMS)
    {
      set_format_error (error, what, "tensor '%s': %u dims, more than %d", name,
                        json_array_get_length (shape), MAX_DIMS);
      return FALSE;
    }
  entry->ndim = json_array_get_length (shape);
  nbytes = dl_dtype_get_size (entry->dtype);
  for (gint d = 0; d < entry->ndim; d++)
    {
      guint64 size;

      if (!read_uint (json_array_get_element (shape, d), &size))
        {
          set_format_error (error, what,
                            "tensor '%s': size %d of \"shape\" is not a non-negative integer", name,
                            d);
          return FALSE;
        }
      entry->shape[d] = size;
      if (!g_uint64_checked_mul (&nbytes, nbytes, size) || nbytes > G_MAXINT64)
        {
          set_format_error (error, what, "tensor '%s': shape of %s needs more than 2^63 bytes",
                            name, dtype);
          return FALSE;
        }
    }
  /* a shape with a 0 somewhere needs no bytes, whatever the other sizes */
  for (gint d = 0; d < entry->ndim; d++)
    if (entry->shape[d] == 0)
      nbytes = 0;

  if (!JSON_NODE_HOLDS_ARRAY (offsets_node)
      || json_array_get_length (offsets = json_node_get_array (offsets_node)) != 2
      || !read_uint (json_array_get_element (offsets, 0), &begin)
      || !read_uint (json_array_get_element (offsets, 1), &end))
    {
      set_format_error (error, what,
                        "tensor '%s': \"data_offsets\" is not two non-negative integers", name);
      return FALSE;
    }
  if (begin > end || end > data_size)
    {
      set_format_error (error, what,
                        "tensor '%s': data_offsets [%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
                        "] lie outside the %" G_GUINT64_FORMAT " bytes of data",
                        name, begin, end, data_size);
      return FALSE;
    }
  if (end - begin != nbytes)
    {
      set_format_error (error, what,
                        "tensor '%s': data_offsets [%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
                        "] hold %" G_GUINT64_FORMAT
                        " bytes, its shape of %s needs %" G_GUINT64_FORMAT,
                        name, begin, end, end - begin, dtype, nbytes);
      return FALSE;
    }
  entry->begin = begin;
  entry->end = end;
  return TRUE;
}

static gint
compare_entries_by_offset (gconstpointer a, gconstpointer b)
{
  const Entry *x = a, *y = b;

  if (x->begin != y->begin)
    return x->begin < y->begin ? -1 : 1;
  if (x->end != y->end)
    return x->end < y->end ? -1 : 1;
  return 0;
}

static gint
compare_entries_by_name (gconstpointer a, gconstpointer b)
{
  return strcmp (((const Entry *)a)->name, ((const Entry *)b)->name);
}

/* The tensors cover the data exactly, in some order. */
static gboolean
check_coverage (GArray *entries, guint64 data_size, const gchar *what, GError **error)
{
  guint64 cursor = 0;

  g_array_sort (entries, compare_entries_by_offset);
  for (guint i = 0; i < entries->len; i++)
    {
      Entry *e = &g_array_index (entries, Entry, i);

      if (e->begin != cursor)
        {
          set_format_error (error, what,
                            e->begin < cursor ? "tensor '%s': data_offsets [%" G_GUINT64_FORMAT
                                                ", %" G_GUINT64_FORMAT
                                                "] overlap the tensor before "
                                                "it, which ends at %" G_GUINT64_FORMAT
                                              : "tensor '%s': data_offsets [%" G_GUINT64_FORMAT
                                                ", %" G_GUINT64_FORMAT
                                                "] leave a hole after byte %" G_GUINT64_FORMAT,
                            e->name, e->begin, e->end, cursor);
          return FALSE;
        }
      cursor = e->end;
    }
  if (cursor != data_size)
    {
      set_format_error (error, what,
                        "the tensors cover %" G_GUINT64_FORMAT " of the %" G_GUINT64_FORMAT
                        " bytes of data after the header",
                        cursor, data_size);
      return FALSE;
    }
  return TRUE;
}

static gboolean
read_metadata (JsonNode *node, DlTensorDict *dict, const gchar *what, GError **error)
{
  JsonObject *object;
  JsonObjectIter iter;
  const gchar *key;
  JsonNode *value;

  if (JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      set_format_error (error, what, "\"" METADATA_KEY "\" is not a JSON object");
      return FALSE;
    }
  object = json_node_get_object (node);
  json_object_iter_init (&iter, object);
  while (json_object_iter_next (&iter, &key, &value))
    {
      const gchar *s = get_string (value);

      if (s == NULL)
        {
          set_format_error (error, what,
                            "\"" METADATA_KEY "\": the value of '%s' is not a UTF-8 string", key);
          return FALSE;
        }
      dl_tensor_dict_set_metadata (dict, key, s);
    }
  return TRUE;
}

/* Makes the tensor of @e over @data (the data section). With @map, the
 * tensor views the mapped file (writable, private: a write copies the
 * page, the file stays as it is); without, it holds a copy. An entry
 * whose bytes are not aligned for its dtype is copied too. */
static DlTensor *
make_tensor (const Entry *e, const guint8 *data, GMappedFile *map, GError **error)
{
  const guint8 *p = data + e->begin;
  gsize n = e->end - e->begin;

  if (map != NULL && n > 0 && GPOINTER_TO_SIZE (p) % dl_dtype_get_size (e->dtype) == 0)
    return dl_tensor_new_from_address (GPOINTER_TO_SIZE (p), e->shape, e->ndim, NULL, 0, e->dtype,
                                       (DlReleaseFunc)g_mapped_file_unref, g_mapped_file_ref (map),
                                       NULL, error);
  {
    g_autoptr (GBytes) bytes = g_bytes_new_static (n ? p : NULL, n);

    return dl_tensor_new_from_bytes (bytes, e->shape, e->ndim, e->dtype, error);
  }
}

/* Reads a whole file's bytes. @what names the file in messages. */
static DlTensorDict *
parse (const guint8 *contents, gsize size, GMappedFile *map, const gchar *what, GError **error)
{
  g_autoptr (JsonParser) parser = NULL;
  g_autoptr (GArray) entries = NULL;
  g_autoptr (DlTensorDict) dict = NULL;
  g_autoptr (GError) local = NULL;
  MemberCheck check = { NULL, NULL };
  const gchar *header;
  const guint8 *data;
  guint64 header_len, data_size;
  JsonObject *root;
  JsonObjectIter iter;
  const gchar *name;
  JsonNode *node;
  gboolean ok;

  if (size < 8)
    {
      set_format_error (
          error, what,
          "the file has %" G_GSIZE_FORMAT " bytes, too few for the 8-byte header length", size);
      return NULL;
    }
  memcpy (&header_len, contents, 8);
  header_len = GUINT64_FROM_LE (header_len);
  if (header_len > size - 8)
    {
      set_format_error (error, what,
                        "the header length %" G_GUINT64_FORMAT
                        " runs past the end of the file (%" G_GSIZE_FORMAT " bytes)",
                        header_len, size);
      return NULL;
    }
  if (header_len > DL_SAFETENSORS_MAX_HEADER)
    {
      set_format_error (error, what,
                        "the header length %" G_GUINT64_FORMAT " is over the limit of %d",
                        header_len, DL_SAFETENSORS_MAX_HEADER);
      return NULL;
    }
  header = (const gchar *)contents + 8;
  data = contents + 8 + header_len;
  data_size = size - 8 - header_len;
  {
    const gchar *bad;

    if (!g_utf8_validate_len (header, header_len, &bad))
      {
        set_format_error (error, what,
                          "the header is not valid UTF-8 (at byte %" G_GSIZE_FORMAT ")",
                          (gsize)(bad - header));
        return NULL;
      }
  }
  if (!scan_header (header, header_len, what, error))
    return NULL;

  parser = json_parser_new_immutable ();
  check.counts = g_hash_table_new (NULL, NULL);
  g_signal_connect (parser, "object-member", G_CALLBACK (on_object_member), &check);
  ok = json_parser_load_from_data (parser, header, header_len, &local);
  g_hash_table_unref (check.counts);
  if (!ok)
    {
      g_autofree gchar *message = g_utf8_make_valid (local->message, -1);

      g_free (check.duplicate);
      set_format_error (error, what, "the header is not valid JSON: %s", message);
      return NULL;
    }
  if (check.bad_utf8)
    {
      g_free (check.duplicate);
      set_format_error (error, what,
                        "a key of the header is not UTF-8 once its \\u escapes "
                        "are decoded (a lone surrogate)");
      return NULL;
    }
  if (check.duplicate)
    {
      set_format_error (error, what, "the header has the key '%s' twice", check.duplicate);
      g_free (check.duplicate);
      return NULL;
    }
  if (!JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    {
      set_format_error (error, what, "the header is not a JSON object");
      return NULL;
    }
  root = json_node_get_object (json_parser_get_root (parser));

  dict = dl_tensor_dict_new ();
  entries = g_array_new (FALSE, FALSE, sizeof (Entry));
  json_object_iter_init (&iter, root);
  while (json_object_iter_next (&iter, &name, &node))
    {
      Entry e;

      if (g_str_equal (name, METADATA_KEY))
        {
          if (!read_metadata (node, dict, what, error))
            return NULL;
          continue;
        }
      if (!parse_entry (what, name, node, data_size, &e, error))
        return NULL;
      g_array_append_val (entries, e);
    }
  if (!check_coverage (entries, data_size, what, error))
    return NULL;

  g_array_sort (entries, compare_entries_by_name);
  for (guint i = 0; i < entries->len; i++)
    {
      const Entry *e = &g_array_index (entries, Entry, i);
      g_autoptr (DlTensor) t = make_tensor (e, data, map, error);

      if (t == NULL)
        return NULL;
      dl_tensor_dict_insert (dict, e->name, t);
    }
  return g_steal_pointer (&dict);
}

/**
 * dl_safetensors_load_bytes:
 * @bytes: the contents of a safetensors file
 * @error: return location for a #GError
 *
 * Reads safetensors data from memory. The tensors hold copies of their
 * bytes. See dl_safetensors_load() for the checks.
 *
 * Returns: (transfer full): the tensors, by name in sorted order, and the
 *   `__metadata__` strings, or %NULL with @error set (%DL_ERROR_FORMAT for
 *   malformed data, %DL_ERROR_NOT_SUPPORTED for a dtype libdl has not)
 *
 * Since: 0.1
 */
DlTensorDict *
dl_safetensors_load_bytes (GBytes *bytes, GError **error)
{
  gsize size;
  gconstpointer data;

  g_return_val_if_fail (bytes != NULL, NULL);
  data = g_bytes_get_data (bytes, &size);
  return parse (data, size, NULL, "<bytes>", error);
}

/**
 * dl_safetensors_load:
 * @file: a safetensors file
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Reads a safetensors file. A local file is memory-mapped and its tensors
 * view the mapping: loading costs the header's parse, whatever the size
 * of the tensors, and a tensor's pages are read when first used. The
 * mapping is private: writing into a loaded tensor copies the pages it
 * touches and never changes the file. The file must not be truncated
 * while its tensors live (as with any mapped file, reading a page past
 * the new end is a SIGBUS). Files without a local path are read into
 * memory.
 *
 * Every header field is checked: a header length past the end of the
 * file, a header that is not UTF-8 or not a JSON object, one nested
 * deeper than 16 levels, a key given twice, an unknown dtype, a shape
 * whose byte count overflows, data offsets outside the data or not
 * matching the shape, tensors that overlap or leave holes, and trailing
 * bytes are each a %DL_ERROR_FORMAT naming the file, the tensor and the
 * values. A dtype of the format that libdl has no tensors of (I8, U16,
 * ...) is %DL_ERROR_NOT_SUPPORTED.
 *
 * Returns: (transfer full): the tensors, by name in sorted order, and the
 *   `__metadata__` strings, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensorDict *
dl_safetensors_load (GFile *file, GCancellable *cancellable, GError **error)
{
  g_autofree gchar *what = NULL;
  g_autoptr (GMappedFile) map = NULL;
  g_autoptr (GBytes) bytes = NULL;

  g_return_val_if_fail (G_IS_FILE (file), NULL);
  if (!dl_file_map_private (file, cancellable, "safetensors", &map, &bytes, error))
    return NULL;
  what = g_file_get_parse_name (file);
  if (bytes != NULL)
    return parse (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), NULL, what, error);
  return parse ((const guint8 *)g_mapped_file_get_contents (map), g_mapped_file_get_length (map),
                map, what, error);
}

/* ---- writing ------------------------------------------------------------ */

typedef struct
{
  gchar *name;      /* (owned) */
  DlTensor *tensor; /* borrowed from the dict */
  gsize elsize;
  guint64 nbytes;
} Item;

/* Wider elements first, then by name: the data section starts 8-byte
 * aligned, so every tensor's bytes are aligned for its dtype. */
static gint
compare_items (gconstpointer a, gconstpointer b)
{
  const Item *x = a, *y = b;

  if (x->elsize != y->elsize)
    return x->elsize > y->elsize ? -1 : 1;
  return strcmp (x->name, y->name);
}

static void
clear_item (gpointer p)
{
  g_free (((Item *)p)->name);
}

static gint
compare_item_names (gconstpointer a, gconstpointer b)
{
  return strcmp ((*(const Item *const *)a)->name, (*(const Item *const *)b)->name);
}

/* The items in data order and the header, padded with spaces to a
 * multiple of 8 bytes as the reference writer does. */
static GString *
build_header (DlTensorDict *dict, GArray *items)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  g_autoptr (JsonNode) root = NULL;
  g_auto (GStrv) names = dl_tensor_dict_get_names (dict);
  g_auto (GStrv) keys = dl_tensor_dict_get_metadata_keys (dict);
  g_autoptr (GPtrArray) by_name = g_ptr_array_new ();
  guint64 offset = 0;
  GString *header;
  gsize len;
  gchar *text;

  for (gchar **n = names; *n; n++)
    {
      DlTensor *t = dl_tensor_dict_lookup (dict, *n);
      Item item = { g_strdup (*n), t, dl_dtype_get_size (dl_tensor_get_dtype (t)), 0 };

      item.nbytes = (guint64)dl_tensor_numel (t) * item.elsize;
      g_array_append_val (items, item);
    }
  g_array_sort (items, compare_items);

  json_builder_begin_object (b);
  if (keys[0] != NULL)
    {
      json_builder_set_member_name (b, METADATA_KEY);
      json_builder_begin_object (b);
      for (gchar **k = keys; *k; k++)
        {
          json_builder_set_member_name (b, *k);
          json_builder_add_string_value (b, dl_tensor_dict_get_metadata (dict, *k));
        }
      json_builder_end_object (b);
    }
  for (guint i = 0; i < items->len; i++)
    g_ptr_array_add (by_name, &g_array_index (items, Item, i));
  g_ptr_array_sort (by_name, compare_item_names);
  {
    g_autofree guint64 *offsets = g_new (guint64, items->len);

    for (guint i = 0; i < items->len; i++)
      {
        offsets[i] = offset;
        offset += g_array_index (items, Item, i).nbytes;
      }
    for (guint i = 0; i < by_name->len; i++)
      {
        Item *item = g_ptr_array_index (by_name, i);
        guint pos = item - (Item *)(gpointer)items->data;
        gsize ndim;
        const gint64 *shape = dl_tensor_get_shape (item->tensor, &ndim);

        json_builder_set_member_name (b, item->name);
        json_builder_begin_object (b);
        json_builder_set_member_name (b, "dtype");
        json_builder_add_string_value (b, dtype_to_format (dl_tensor_get_dtype (item->tensor)));
        json_builder_set_member_name (b, "shape");
        json_builder_begin_array (b);
        for (gsize d = 0; d < ndim; d++)
          json_builder_add_int_value (b, shape[d]);
        json_builder_end_array (b);
        json_builder_set_member_name (b, "data_offsets");
        json_builder_begin_array (b);
        json_builder_add_int_value (b, offsets[pos]);
        json_builder_add_int_value (b, offsets[pos] + item->nbytes);
        json_builder_end_array (b);
        json_builder_end_object (b);
      }
  }
  json_builder_end_object (b);

  root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  text = json_generator_to_data (gen, &len);
  header = g_string_new_len (text, len);
  g_free (text);
  while (header->len % 8 != 0)
    g_string_append_c (header, ' ');
  return header;
}

static GArray *
new_items (void)
{
  GArray *items = g_array_new (FALSE, FALSE, sizeof (Item));

  g_array_set_clear_func (items, clear_item);
  return items;
}

/* Writes the file's bytes to @out: length, header, then each tensor's
 * values in row-major order (a view or a non-contiguous tensor is written
 * as its values; two entries sharing storage are written twice, as the
 * format has no way to share bytes). */
static gboolean
write_stream (DlTensorDict *dict, GOutputStream *out, GCancellable *cancellable, GError **error)
{
  g_autoptr (GArray) items = new_items ();
  g_autoptr (GString) header = NULL;
  guint64 len;

  header = build_header (dict, items);
  len = GUINT64_TO_LE ((guint64)header->len);
  if (!g_output_stream_write_all (out, &len, 8, NULL, cancellable, error)
      || !g_output_stream_write_all (out, header->str, header->len, NULL, cancellable, error))
    return FALSE;
  for (guint i = 0; i < items->len; i++)
    {
      Item *item = &g_array_index (items, Item, i);
      DlTensor *t = item->tensor;
      g_autoptr (GBytes) bytes = NULL;
      gconstpointer p;

      if (item->nbytes == 0)
        continue;
      if (dl_tensor_is_contiguous (t)
          && dl_device_get_device_type (dl_tensor_get_device (t)) == DL_DEVICE_TYPE_CPU)
        p = GSIZE_TO_POINTER (dl_tensor_get_data_ptr (t));
      else
        {
          bytes = dl_tensor_to_bytes (t, error);
          if (bytes == NULL)
            return FALSE;
          p = g_bytes_get_data (bytes, NULL);
        }
      if (!g_output_stream_write_all (out, p, item->nbytes, NULL, cancellable, error))
        return FALSE;
    }
  return TRUE;
}

/**
 * dl_safetensors_save_to_bytes:
 * @tensors: the tensors and metadata to write
 * @error: return location for a #GError
 *
 * Writes @tensors in the safetensors format to memory, as
 * dl_safetensors_save() writes a file.
 *
 * Returns: (transfer full): the file's contents, or %NULL with @error set
 *
 * Since: 0.1
 */
GBytes *
dl_safetensors_save_to_bytes (DlTensorDict *tensors, GError **error)
{
  g_autoptr (GOutputStream) out = g_memory_output_stream_new_resizable ();

  g_return_val_if_fail (DL_IS_TENSOR_DICT (tensors), NULL);
  if (!write_stream (tensors, out, NULL, error) || !g_output_stream_close (out, NULL, error))
    return NULL;
  return g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (out));
}

/**
 * dl_safetensors_save:
 * @tensors: the tensors and metadata to write
 * @file: the file to write (replaced if it exists)
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Writes @tensors as a safetensors file, which Hugging Face's safetensors
 * library and PyTorch users read: the header lists the tensors by sorted
 * name, with the metadata strings under `__metadata__`, padded with
 * spaces to a multiple of 8 bytes; the data holds the tensors with the
 * widest dtypes first, so each is aligned for its dtype. Views and
 * non-contiguous tensors are written as their values. The format cannot
 * share bytes between tensors: tensors that share storage are each
 * written in full (where the Python safetensors library's `save_file`
 * refuses them), and load as independent tensors.
 *
 * The file is replaced only when it is written completely: on an error
 * the old file, if any, stays as it was.
 *
 * Saving a model's state and reading it back, as
 * `safetensors.torch.save_file ()` and `load_file ()`:
 *
 * |[<!-- language="C" -->
 * g_autoptr (GError) error = NULL;
 * g_autoptr (DlLinear) fc = NULL;
 * g_autoptr (DlTensorDict) state = NULL;
 * g_autoptr (DlTensorDict) loaded = NULL;
 * g_autoptr (GFile) file = g_file_new_for_path ("model.safetensors");
 *
 * if (!(fc = dl_linear_new (4, 2, TRUE, &error)))
 *   return;
 * state = dl_module_state_dict (DL_MODULE (fc));
 * if (!dl_safetensors_save (state, file, NULL, &error)
 *     || !(loaded = dl_safetensors_load (file, NULL, &error)))
 *   g_printerr ("%s\n", error->message);
 * ]|
 *
 * `loaded` holds "bias" and "weight". dl_module_save_state() and
 * dl_module_load_state() do both steps for a module. Fails with %DL_ERROR_IO
 * when the file cannot be written.
 *
 * Returns: %TRUE on success, %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
dl_safetensors_save (DlTensorDict *tensors, GFile *file, GCancellable *cancellable, GError **error)
{
  g_autoptr (GFileOutputStream) out = NULL;
  g_autoptr (GError) local = NULL;
  g_autofree gchar *what = NULL;
  gboolean existed;

  g_return_val_if_fail (DL_IS_TENSOR_DICT (tensors), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);
  what = g_file_get_parse_name (file);
  existed = g_file_query_exists (file, NULL);
  out = g_file_replace (file, NULL, FALSE, G_FILE_CREATE_NONE, cancellable, &local);
  if (out != NULL && write_stream (tensors, G_OUTPUT_STREAM (out), cancellable, &local)
      && g_output_stream_close (G_OUTPUT_STREAM (out), cancellable, &local))
    return TRUE;
  if (out != NULL)
    {
      /* closing with a cancelled cancellable drops the temporary file and
       * leaves the old one in place; a new file is written in place, and
       * removed */
      g_autoptr (GCancellable) abort = g_cancellable_new ();

      g_cancellable_cancel (abort);
      g_output_stream_close (G_OUTPUT_STREAM (out), abort, NULL);
      if (!existed)
        g_file_delete (file, NULL, NULL);
    }
  if (local->domain == DL_ERROR)
    g_propagate_error (error, g_steal_pointer (&local));
  else
    g_set_error (error, DL_ERROR, DL_ERROR_IO, "safetensors: %s: %s", what, local->message);
  return FALSE;
}

/* ---- modules ------------------------------------------------------------ */

/**
 * dl_module_save_state:
 * @self: a #DlModule
 * @file: the file to write
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Saves dl_module_state_dict() of @self as a safetensors file
 * (dl_safetensors_save()).
 *
 * Returns: %TRUE on success, %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
dl_module_save_state (DlModule *self, GFile *file, GCancellable *cancellable, GError **error)
{
  g_autoptr (DlTensorDict) state = NULL;

  g_return_val_if_fail (DL_IS_MODULE (self), FALSE);
  state = dl_module_state_dict (self);
  return dl_safetensors_save (state, file, cancellable, error);
}

/**
 * dl_module_load_state:
 * @self: a #DlModule
 * @file: a safetensors file
 * @strict: whether the file's names must match the module's exactly
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Loads a safetensors file (dl_safetensors_load()) into the parameters of
 * @self (dl_module_load_state_dict()).
 *
 * Returns: %TRUE on success, %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
dl_module_load_state (DlModule *self,
                      GFile *file,
                      gboolean strict,
                      GCancellable *cancellable,
                      GError **error)
{
  g_autoptr (DlTensorDict) state = NULL;

  g_return_val_if_fail (DL_IS_MODULE (self), FALSE);
  state = dl_safetensors_load (file, cancellable, error);
  if (state == NULL)
    return FALSE;
  return dl_module_load_state_dict (self, state, strict, NULL, NULL, error);
}
