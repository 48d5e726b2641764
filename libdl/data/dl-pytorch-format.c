/* dl-pytorch-format.c: the tensors of a PyTorch .pt/.pth archive, read
 * without Python.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * torch.save (1.6 and later, the zip "new format") writes a zip archive
 * of stored (uncompressed) records under one top folder <name>/:
 *
 *   <name>/data.pkl    the object, pickled (protocol 2); each storage is a
 *                      persistent id ('storage', torch.FloatStorage, key,
 *                      location, numel)
 *   <name>/data/<key>  the bytes of storage <key>, little-endian, each
 *                      record's data aligned to 64 bytes in the file
 *   <name>/version     the format version ("3\n")
 *   <name>/byteorder   "little" or "big" (torch 2.x; absent means little)
 *
 * A tensor is torch._utils._rebuild_tensor_v2 (storage, offset, sizes,
 * strides, requires_grad, hooks[, metadata]): a view of its storage.
 *
 * Its legacy format (torch < 1.6, or _use_new_zipfile_serialization=False)
 * is a stream of pickles: the magic number, the protocol version 1001,
 * sys_info, the object (persistent ids ('storage', type, key, location,
 * numel, view), view None or (key, offset, numel) of old files' storage
 * slices), the sorted list of storage keys, then for each key its element
 * count (int64, little-endian) and its bytes; see parse_legacy ().
 *
 * The reader is a minimal zip reader (end of central directory, zip64
 * included, central directory, local headers) and a pickle machine that
 * knows only the opcodes and the globals state dicts use; everything else
 * is an error that names it. Nothing in the file is trusted: every offset,
 * length, size and stride is checked before it is used.
 */
#include "config.h"

#include <string.h>

#include "data/dl-file-map-private.h"
#include "data/dl-pytorch-format.h"
#include "dl-error.h"
#include "dl-tensor-private.h"

/* The archive's bytes are the tensors' bytes: only a little-endian host
 * can map them as they are. */
G_STATIC_ASSERT (G_BYTE_ORDER == G_LITTLE_ENDIAN);

#define MAX_DIMS 64
#define MAX_STACK (1 << 20)
#define MAX_GLOBAL_NAME 256

static void set_error (GError **error, gint code, const gchar *what, const gchar *format, ...)
    G_GNUC_PRINTF (4, 5);

static void
set_error (GError **error, gint code, const gchar *what, const gchar *format, ...)
{
  g_autofree gchar *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, DL_ERROR, code, "pytorch: %s: %s", what, message);
}

static guint16
le16 (const guint8 *p)
{
  return p[0] | (p[1] << 8);
}

static guint32
le32 (const guint8 *p)
{
  return p[0] | (p[1] << 8) | (p[2] << 16) | ((guint32)p[3] << 24);
}

static guint64
le64 (const guint8 *p)
{
  return le32 (p) | ((guint64)le32 (p + 4) << 32);
}

/* ---- zip ---------------------------------------------------------------- */

typedef struct
{
  guint64 offset; /* of the record's data in the archive */
  guint64 size;
} Record;

#define SIG_LOCAL 0x04034b50
#define SIG_CENTRAL 0x02014b50
#define SIG_EOCD 0x06054b50
#define SIG_EOCD64 0x06064b50
#define SIG_LOCATOR64 0x07064b50

/* Reads the zip64 extra field of a central directory entry: the 64-bit
 * values of the fields that hold 0xFFFFFFFF, in the order usize, csize,
 * local header offset. */
static gboolean
read_zip64_extra (const guint8 *extra,
                  gsize len,
                  guint64 *usize,
                  guint64 *csize,
                  guint64 *local,
                  const gchar *what,
                  const gchar *name,
                  GError **error)
{
  gsize at = 0;

  while (at + 4 <= len)
    {
      guint16 id = le16 (extra + at), n = le16 (extra + at + 2);
      gsize p = at + 4, end = at + 4 + n;
      guint64 *fields[] = { usize, csize, local };

      if (end > len)
        break;
      if (id == 1)
        {
          for (guint k = 0; k < G_N_ELEMENTS (fields); k++)
            if (*fields[k] == 0xFFFFFFFF)
              {
                if (p + 8 > end)
                  {
                    set_error (error, DL_ERROR_FORMAT, what,
                               "zip: entry '%s': its zip64 extra field is too short", name);
                    return FALSE;
                  }
                *fields[k] = le64 (extra + p);
                p += 8;
              }
          return TRUE;
        }
      at = end;
    }
  if (*usize == 0xFFFFFFFF || *csize == 0xFFFFFFFF || *local == 0xFFFFFFFF)
    {
      set_error (error, DL_ERROR_FORMAT, what,
                 "zip: entry '%s': a size or offset of 0xFFFFFFFF without a zip64 extra field",
                 name);
      return FALSE;
    }
  return TRUE;
}

/* The records of the archive @data (@size bytes): name -> Record. */
static GHashTable *
read_zip (const guint8 *data, gsize size, const gchar *what, GError **error)
{
  g_autoptr (GHashTable) records = NULL;
  gsize eocd = 0;
  gboolean found = FALSE;
  guint64 n_entries, cd_size, cd_offset, at;

  if (size >= 22)
    for (gsize i = size - 22 + 1; i-- > 0 && size - i <= 22 + 65535;)
      if (le32 (data + i) == SIG_EOCD && i + 22 + le16 (data + i + 20) <= size)
        {
          eocd = i;
          found = TRUE;
          break;
        }
  if (!found)
    {
      set_error (error, DL_ERROR_FORMAT, what,
                 "not a zip archive (%" G_GSIZE_FORMAT " bytes, no end of central directory) "
                 "nor a stream of torch.save's legacy format: not a PyTorch file",
                 size);
      return NULL;
    }
  n_entries = le16 (data + eocd + 10);
  cd_size = le32 (data + eocd + 12);
  cd_offset = le32 (data + eocd + 16);
  if (n_entries == 0xFFFF || cd_size == 0xFFFFFFFF || cd_offset == 0xFFFFFFFF)
    {
      guint64 e64;

      if (eocd < 20 || le32 (data + eocd - 20) != SIG_LOCATOR64)
        {
          set_error (error, DL_ERROR_FORMAT, what,
                     "zip: the end of central directory asks for zip64 and has no locator");
          return NULL;
        }
      e64 = le64 (data + eocd - 20 + 8);
      if (e64 > size || size - e64 < 56 || le32 (data + e64) != SIG_EOCD64)
        {
          set_error (error, DL_ERROR_FORMAT, what,
                     "zip: the zip64 end of central directory at %" G_GUINT64_FORMAT
                     " lies outside the %" G_GSIZE_FORMAT " bytes or is not one",
                     e64, size);
          return NULL;
        }
      n_entries = le64 (data + e64 + 32);
      cd_size = le64 (data + e64 + 40);
      cd_offset = le64 (data + e64 + 48);
    }
  if (cd_offset > size || cd_size > size - cd_offset)
    {
      set_error (error, DL_ERROR_FORMAT, what,
                 "zip: the central directory [%" G_GUINT64_FORMAT ", +%" G_GUINT64_FORMAT
                 "] lies outside the %" G_GSIZE_FORMAT " bytes",
                 cd_offset, cd_size, size);
      return NULL;
    }
  if (n_entries > cd_size / 46)
    {
      set_error (error, DL_ERROR_FORMAT, what,
                 "zip: %" G_GUINT64_FORMAT
                 " entries cannot fit in a central directory of %" G_GUINT64_FORMAT " bytes",
                 n_entries, cd_size);
      return NULL;
    }

  records = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  at = cd_offset;
  for (guint64 k = 0; k < n_entries; k++)
    {
      const guint8 *e = data + at;
      guint64 end = cd_offset + cd_size, usize, csize, local, start;
      guint16 flags, method, name_len, extra_len, comment_len;
      g_autofree gchar *name = NULL;
      Record *r;

      if (end - at < 46 || le32 (e) != SIG_CENTRAL)
        {
          set_error (error, DL_ERROR_FORMAT, what,
                     "zip: central directory entry %" G_GUINT64_FORMAT " at %" G_GUINT64_FORMAT
                     " is truncated or has no signature",
                     k, at);
          return NULL;
        }
      flags = le16 (e + 8);
      method = le16 (e + 10);
      csize = le32 (e + 20);
      usize = le32 (e + 24);
      name_len = le16 (e + 28);
      extra_len = le16 (e + 30);
      comment_len = le16 (e + 32);
      local = le32 (e + 42);
      if ((guint64)46 + name_len + extra_len + comment_len > end - at)
        {
          set_error (error, DL_ERROR_FORMAT, what,
                     "zip: central directory entry %" G_GUINT64_FORMAT
                     " runs past the directory's end",
                     k);
          return NULL;
        }
      name = g_strndup ((const gchar *)e + 46, name_len);
      if (strlen (name) != name_len || !g_utf8_validate (name, -1, NULL))
        {
          set_error (error, DL_ERROR_FORMAT, what,
                     "zip: the name of entry %" G_GUINT64_FORMAT " is not UTF-8 without NULs", k);
          return NULL;
        }
      if (!read_zip64_extra (e + 46 + name_len, extra_len, &usize, &csize, &local, what, name,
                             error))
        return NULL;
      if (flags & 1)
        {
          set_error (error, DL_ERROR_NOT_SUPPORTED, what, "zip: entry '%s' is encrypted", name);
          return NULL;
        }
      if (method != 0)
        {
          set_error (error, DL_ERROR_NOT_SUPPORTED, what,
                     "zip: entry '%s' is compressed (method %u); torch.save stores its records "
                     "uncompressed and only those are read",
                     name, method);
          return NULL;
        }
      if (csize != usize)
        {
          set_error (error, DL_ERROR_FORMAT, what,
                     "zip: stored entry '%s' has %" G_GUINT64_FORMAT
                     " bytes compressed and %" G_GUINT64_FORMAT " uncompressed",
                     name, csize, usize);
          return NULL;
        }
      if (local > size || size - local < 30 || le32 (data + local) != SIG_LOCAL)
        {
          set_error (error, DL_ERROR_FORMAT, what,
                     "zip: entry '%s': no local header at %" G_GUINT64_FORMAT, name, local);
          return NULL;
        }
      start = local + 30 + le16 (data + local + 26) + le16 (data + local + 28);
      if (le16 (data + local + 26) != name_len || start > size
          || memcmp (data + local + 30, name, MIN (name_len, size - local - 30)) != 0
          || usize > size - start)
        {
          set_error (error, DL_ERROR_FORMAT, what,
                     "zip: entry '%s': its local header does not match or its %" G_GUINT64_FORMAT
                     " bytes run past the end of the archive (%" G_GSIZE_FORMAT " bytes)",
                     name, usize, size);
          return NULL;
        }
      if (g_hash_table_contains (records, name))
        {
          set_error (error, DL_ERROR_FORMAT, what, "zip: entry '%s' is there twice", name);
          return NULL;
        }
      r = g_new (Record, 1);
      r->offset = start;
      r->size = usize;
      g_hash_table_insert (records, g_steal_pointer (&name), r);
      at += 46 + name_len + extra_len + comment_len;
    }
  return g_steal_pointer (&records);
}

/* ---- the pickle machine ------------------------------------------------- */

typedef enum
{
  V_NONE,
  V_BOOL,
  V_INT,
  V_FLOAT,
  V_STR,
  V_TUPLE,
  V_LIST,
  V_DICT, /* items: key, value, key, value, ... */
  V_GLOBAL,
  V_STORAGE,
  V_TENSOR,
} Kind;

static const gchar *const kind_names[] = { "None", "bool", "int",    "float",   "str",   "tuple",
                                           "list", "dict", "global", "storage", "tensor" };

typedef enum
{
  G_ORDERED_DICT,
  G_REBUILD_TENSOR_V2,
  G_REBUILD_PARAMETER,
  G_STORAGE_TYPE,
} Global;

typedef struct
{
  gchar *key;
  DlDType dtype;
  gint64 numel;
  gint64 data_offset; /* the legacy format: where its bytes start in the file; -1 not known */
  DlTensor *base;     /* 1-D, numel elements */
} Storage;

typedef struct
{
  Kind kind;
  gint64 i;         /* V_BOOL, V_INT; V_GLOBAL: Global */
  gdouble f;        /* V_FLOAT */
  gchar *s;         /* V_STR (owned) */
  GPtrArray *items; /* V_TUPLE, V_LIST, V_DICT (owned array, borrowed values) */
  DlDType dtype;    /* V_GLOBAL storage types */
  Storage *storage; /* V_STORAGE (borrowed from the machine): the elements
                     * [i, i + n) of it (a legacy view, or all of it) */
  gint64 n;         /* V_STORAGE */
  DlTensor *tensor; /* V_TENSOR (owned) */
} Value;

static void
value_free (gpointer p)
{
  Value *v = p;

  g_free (v->s);
  if (v->items)
    g_ptr_array_unref (v->items);
  g_clear_object (&v->tensor);
  g_free (v);
}

static void
storage_free (gpointer p)
{
  Storage *s = p;

  g_free (s->key);
  g_clear_object (&s->base);
  g_free (s);
}

typedef struct
{
  const gchar *what;
  const guint8 *archive; /* the whole file */
  gsize archive_size;
  GMappedFile *map; /* (nullable): the mapping of archive */
  GHashTable *records;
  const gchar *prefix;   /* "<name>/" */
  const gchar *pkl_name; /* "<name>/data.pkl", or the legacy stream */
  gboolean legacy;       /* storages are in the legacy stream (data_offset) */
  gboolean dry;          /* a first pass over a legacy pickle: tensors are checked, not made */
  const guint8 *pkl;
  gsize pkl_size, pos;
  GPtrArray *values;    /* (owned) every Value made: freed together, so cycles cannot leak */
  GPtrArray *stack;     /* borrowed Values */
  GArray *marks;        /* guint stack lengths */
  GHashTable *memo;     /* index -> Value */
  GHashTable *storages; /* key -> Storage (owned) */
  Value none, yes, no;
} Machine;

static Value *
new_value (Machine *m, Kind kind)
{
  Value *v = g_new0 (Value, 1);

  v->kind = kind;
  if (kind == V_TUPLE || kind == V_LIST || kind == V_DICT)
    v->items = g_ptr_array_new ();
  g_ptr_array_add (m->values, v);
  return v;
}

static void pkl_error (Machine *m, GError **error, gint code, const gchar *format, ...)
    G_GNUC_PRINTF (4, 5);

static void
pkl_error (Machine *m, GError **error, gint code, const gchar *format, ...)
{
  g_autofree gchar *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, DL_ERROR, code, "pytorch: %s: %s: at byte %" G_GSIZE_FORMAT ": %s", m->what,
               m->pkl_name, m->pos, message);
}

static gboolean
push (Machine *m, Value *v, GError **error)
{
  if (m->stack->len >= MAX_STACK)
    {
      pkl_error (m, error, DL_ERROR_FORMAT, "the pickle stack grows past %d values", MAX_STACK);
      return FALSE;
    }
  g_ptr_array_add (m->stack, v);
  return TRUE;
}

static Value *
pop (Machine *m, GError **error)
{
  guint floor = m->marks->len ? g_array_index (m->marks, guint, m->marks->len - 1) : 0;

  if (m->stack->len <= floor)
    {
      pkl_error (m, error, DL_ERROR_FORMAT, "pop from an empty pickle stack");
      return NULL;
    }
  return g_ptr_array_steal_index (m->stack, m->stack->len - 1);
}

static Value *
top (Machine *m, GError **error)
{
  guint floor = m->marks->len ? g_array_index (m->marks, guint, m->marks->len - 1) : 0;

  if (m->stack->len <= floor)
    {
      pkl_error (m, error, DL_ERROR_FORMAT, "the pickle stack is empty");
      return NULL;
    }
  return g_ptr_array_index (m->stack, m->stack->len - 1);
}

/* The values above the last mark, in order, and the mark dropped: the
 * caller owns the array (not the values). */
static GPtrArray *
pop_mark (Machine *m, GError **error)
{
  guint at;
  GPtrArray *items;

  if (m->marks->len == 0)
    {
      pkl_error (m, error, DL_ERROR_FORMAT, "no MARK to pop to");
      return NULL;
    }
  at = g_array_index (m->marks, guint, m->marks->len - 1);
  g_array_set_size (m->marks, m->marks->len - 1);
  items = g_ptr_array_sized_new (m->stack->len - at);
  for (guint i = at; i < m->stack->len; i++)
    g_ptr_array_add (items, g_ptr_array_index (m->stack, i));
  g_ptr_array_set_size (m->stack, at);
  return items;
}

static const guint8 *
take (Machine *m, gsize n, const gchar *op, GError **error)
{
  const guint8 *p;

  if (m->pkl_size - m->pos < n)
    {
      pkl_error (m, error, DL_ERROR_FORMAT,
                 "%s needs %" G_GSIZE_FORMAT " bytes, the pickle ends after %" G_GSIZE_FORMAT, op,
                 n, m->pkl_size - m->pos);
      return NULL;
    }
  p = m->pkl + m->pos;
  m->pos += n;
  return p;
}

static gboolean
push_string (Machine *m, const guint8 *p, gsize n, GError **error)
{
  Value *v;

  if (!g_utf8_validate_len ((const gchar *)p, n, NULL) || memchr (p, 0, n) != NULL)
    {
      pkl_error (m, error, DL_ERROR_FORMAT, "a string is not UTF-8 without NULs");
      return FALSE;
    }
  v = new_value (m, V_STR);
  v->s = g_strndup ((const gchar *)p, n);
  return push (m, v, error);
}

/* BINUNICODE, SHORT_BINUNICODE: a length of @width bytes, then UTF-8 */
static gboolean
op_string (Machine *m, gsize width, const gchar *op, GError **error)
{
  const guint8 *p = take (m, width, op, error);
  gsize n;

  if (p == NULL)
    return FALSE;
  n = width == 4 ? le32 (p) : p[0];
  return (p = take (m, n, op, error)) != NULL && push_string (m, p, n, error);
}

static gboolean
push_int (Machine *m, gint64 i, GError **error)
{
  Value *v = new_value (m, V_INT);

  v->i = i;
  return push (m, v, error);
}

static const struct
{
  const gchar *name;
  DlDType dtype;
} storage_types[] = {
  { "FloatStorage", DL_DTYPE_FLOAT32 }, { "DoubleStorage", DL_DTYPE_FLOAT64 },
  { "HalfStorage", DL_DTYPE_FLOAT16 },  { "BFloat16Storage", DL_DTYPE_BFLOAT16 },
  { "IntStorage", DL_DTYPE_INT32 },     { "LongStorage", DL_DTYPE_INT64 },
  { "ByteStorage", DL_DTYPE_UINT8 },    { "BoolStorage", DL_DTYPE_BOOL },
};

/* The value of the global @module.@name, if it is one of the few allowed. */
static Value *
find_global (Machine *m, const gchar *module, const gchar *name, GError **error)
{
  Value *v;
  Global g;

  if (g_str_equal (module, "collections") && g_str_equal (name, "OrderedDict"))
    g = G_ORDERED_DICT;
  else if (g_str_equal (module, "torch._utils") && g_str_equal (name, "_rebuild_tensor_v2"))
    g = G_REBUILD_TENSOR_V2;
  else if (g_str_equal (module, "torch._utils") && g_str_equal (name, "_rebuild_parameter"))
    g = G_REBUILD_PARAMETER;
  /* torch.cuda.<X>Storage: in legacy files of old versions saved from a GPU */
  else if ((g_str_equal (module, "torch") || g_str_equal (module, "torch.cuda"))
           && g_str_has_suffix (name, "Storage"))
    {
      for (gsize i = 0; i < G_N_ELEMENTS (storage_types); i++)
        if (g_str_equal (name, storage_types[i].name))
          {
            v = new_value (m, V_GLOBAL);
            v->i = G_STORAGE_TYPE;
            v->dtype = storage_types[i].dtype;
            return v;
          }
      pkl_error (m, error, DL_ERROR_NOT_SUPPORTED,
                 "storage type torch.%s has no libdl dtype (Float, Double, Half, BFloat16, "
                 "Int, Long, Byte and Bool storages are read)",
                 name);
      return NULL;
    }
  else
    {
      pkl_error (m, error, DL_ERROR_NOT_SUPPORTED,
                 "global %s.%s is not one a state dict uses (collections.OrderedDict, "
                 "torch._utils._rebuild_tensor_v2, torch._utils._rebuild_parameter and "
                 "torch.*Storage are)",
                 module, name);
      return NULL;
    }
  v = new_value (m, V_GLOBAL);
  v->i = g;
  return v;
}

/* GLOBAL: "module\nname\n" */
static gboolean
op_global (Machine *m, GError **error)
{
  gchar *lines[2] = { NULL, NULL };
  Value *v;

  for (int k = 0; k < 2; k++)
    {
      gsize left = m->pkl_size - m->pos;
      const guint8 *p = m->pkl + m->pos;
      const guint8 *nl = memchr (p, '\n', MIN (left, MAX_GLOBAL_NAME));

      if (nl == NULL || memchr (p, 0, nl - p) != NULL
          || !g_utf8_validate_len ((const gchar *)p, nl - p, NULL))
        {
          pkl_error (m, error, DL_ERROR_FORMAT,
                     "GLOBAL: no UTF-8 name ended by a newline in %d bytes", MAX_GLOBAL_NAME);
          g_free (lines[0]);
          return FALSE;
        }
      lines[k] = g_strndup ((const gchar *)p, nl - p);
      m->pos += nl - p + 1;
    }
  v = find_global (m, lines[0], lines[1], error);
  g_free (lines[0]);
  g_free (lines[1]);
  return v != NULL && push (m, v, error);
}

static gboolean
get_int_tuple (Value *v, gint64 *out, gint *n)
{
  if (v->kind != V_TUPLE || v->items->len > MAX_DIMS)
    return FALSE;
  for (guint i = 0; i < v->items->len; i++)
    {
      Value *x = g_ptr_array_index (v->items, i);

      if (x->kind != V_INT)
        return FALSE;
      out[i] = x->i;
    }
  *n = v->items->len;
  return TRUE;
}

/* The 1-D tensor of @s's @nbytes bytes at @p: with a mapping, a view of
 * the mapped file (private, copy-on-write); without, or if the bytes are
 * not aligned for the dtype, a copy. */
static DlTensor *
storage_tensor (Machine *m, Storage *s, const guint8 *p, gsize nbytes, GError **error)
{
  g_autoptr (GBytes) bytes = NULL;

  if (m->map != NULL && s->numel > 0 && GPOINTER_TO_SIZE (p) % dl_dtype_get_size (s->dtype) == 0)
    return dl_tensor_new_from_address (GPOINTER_TO_SIZE (p), &s->numel, 1, NULL, 0, s->dtype,
                                       (DlReleaseFunc)g_mapped_file_unref,
                                       g_mapped_file_ref (m->map), NULL, error);
  bytes = g_bytes_new_static (s->numel ? p : NULL, nbytes);
  return dl_tensor_new_from_bytes (bytes, &s->numel, 1, s->dtype, error);
}

/* The 1-D tensor of all of @s's elements, made on first use: with a
 * mapping, a view of the mapped file (private, copy-on-write); without,
 * or if the bytes are not aligned for the dtype, a copy. */
static DlTensor *
storage_base (Machine *m, Storage *s, GError **error)
{
  g_autofree gchar *record = NULL;
  Record *r;
  const guint8 *p;
  gsize elsize = dl_dtype_get_size (s->dtype);

  if (s->base != NULL)
    return s->base;
  if (m->legacy)
    {
      /* parse_legacy () checked the bytes of every storage the object's
       * first pass named against the file */
      if (s->data_offset < 0)
        {
          pkl_error (m, error, DL_ERROR_FORMAT, "storage '%s' has no bytes in the stream", s->key);
          return NULL;
        }
      p = m->archive + s->data_offset;
      return s->base = storage_tensor (m, s, p, (gsize)s->numel * elsize, error);
    }
  record = g_strdup_printf ("%sdata/%s", m->prefix, s->key);
  r = g_hash_table_lookup (m->records, record);
  if (r == NULL)
    {
      pkl_error (m, error, DL_ERROR_FORMAT, "storage '%s': the archive has no record %s", s->key,
                 record);
      return NULL;
    }
  if ((guint64)s->numel > r->size / elsize || r->size != (guint64)s->numel * elsize)
    {
      pkl_error (m, error, DL_ERROR_FORMAT,
                 "storage '%s': the record holds %" G_GUINT64_FORMAT " bytes, its %" G_GINT64_FORMAT
                 " %s elements need %" G_GUINT64_FORMAT,
                 s->key, r->size, s->numel, dl_dtype_get_name (s->dtype),
                 (guint64)s->numel * elsize);
      return NULL;
    }
  p = m->archive + r->offset;
  return s->base = storage_tensor (m, s, p, r->size, error);
}

/* _rebuild_tensor_v2 (storage, offset, sizes, strides, requires_grad,
 * hooks[, metadata]): a view of the storage, every element of it checked
 * to lie inside the storage. */
static Value *
rebuild_tensor (Machine *m, GPtrArray *args, GError **error)
{
  gint64 sizes[MAX_DIMS], strides[MAX_DIMS];
  gint ndim, nstrides;
  Value *storage, *offset, *grad, *v;
  guint64 last = 0, numel = 1;
  DlTensor *base;
  Storage *s;

  if (args->len != 6 && args->len != 7)
    {
      pkl_error (m, error, DL_ERROR_FORMAT, "_rebuild_tensor_v2 takes 6 or 7 arguments, not %u",
                 args->len);
      return NULL;
    }
  storage = g_ptr_array_index (args, 0);
  offset = g_ptr_array_index (args, 1);
  grad = g_ptr_array_index (args, 4);
  if (storage->kind != V_STORAGE || offset->kind != V_INT
      || !get_int_tuple (g_ptr_array_index (args, 2), sizes, &ndim)
      || !get_int_tuple (g_ptr_array_index (args, 3), strides, &nstrides)
      || (grad->kind != V_BOOL && grad->kind != V_INT))
    {
      pkl_error (m, error, DL_ERROR_FORMAT,
                 "_rebuild_tensor_v2 takes (storage, int, tuple of at most %d ints, tuple of "
                 "ints, bool, ...), not (%s, %s, %s, %s, %s, ...)",
                 MAX_DIMS, kind_names[storage->kind], kind_names[offset->kind],
                 kind_names[((Value *)g_ptr_array_index (args, 2))->kind],
                 kind_names[((Value *)g_ptr_array_index (args, 3))->kind], kind_names[grad->kind]);
      return NULL;
    }
  s = storage->storage;
  if (ndim != nstrides)
    {
      pkl_error (m, error, DL_ERROR_FORMAT, "storage '%s': %d sizes and %d strides", s->key, ndim,
                 nstrides);
      return NULL;
    }
  if (offset->i < 0)
    {
      pkl_error (m, error, DL_ERROR_FORMAT, "storage '%s': negative offset %" G_GINT64_FORMAT,
                 s->key, offset->i);
      return NULL;
    }
  for (gint d = 0; d < ndim; d++)
    {
      if (sizes[d] < 0 || strides[d] < 0)
        {
          pkl_error (m, error, DL_ERROR_FORMAT,
                     "storage '%s': size %" G_GINT64_FORMAT " and stride %" G_GINT64_FORMAT
                     " of dim %d: negative",
                     s->key, sizes[d], strides[d], d);
          return NULL;
        }
      if (!g_uint64_checked_mul (&numel, numel, sizes[d]) || numel > G_MAXINT64)
        numel = G_MAXUINT64;
    }
  if (numel == G_MAXUINT64)
    {
      g_autofree gchar *shape = dl_shape_to_string (sizes, ndim);

      pkl_error (m, error, DL_ERROR_FORMAT, "storage '%s': sizes %s overflow 64 bits", s->key,
                 shape);
      return NULL;
    }
  /* the last element's index: offset + sum (size - 1) * stride */
  last = offset->i;
  if (numel > 0)
    for (gint d = 0; d < ndim; d++)
      {
        guint64 step;

        if (!g_uint64_checked_mul (&step, sizes[d] - 1, strides[d])
            || !g_uint64_checked_add (&last, last, step))
          {
            last = G_MAXUINT64;
            break;
          }
      }
  if (numel > 0 ? last >= (guint64)storage->n : last > (guint64)storage->n)
    {
      g_autofree gchar *shape = dl_shape_to_string (sizes, ndim);
      g_autofree gchar *stride = dl_shape_to_string (strides, ndim);

      pkl_error (m, error, DL_ERROR_FORMAT,
                 "storage '%s': a view of sizes %s, strides %s at offset %" G_GINT64_FORMAT
                 " reaches past its %" G_GINT64_FORMAT " elements",
                 s->key, shape, stride, offset->i, storage->n);
      return NULL;
    }
  v = new_value (m, V_TENSOR);
  if (m->dry)
    return v;
  base = storage_base (m, s, error);
  if (base == NULL)
    return NULL;
  /* storage->i + offset->i: both at most the storage's numel */
  v->tensor = dl_tensor_new_view_internal (base, sizes, strides, ndim, storage->i + offset->i);
  if (grad->i && !dl_tensor_set_requires_grad (v->tensor, TRUE, error))
    return NULL;
  return v;
}

/* BINPERSID: ('storage', storage type, key, location, numel); in the
 * legacy format ('storage', storage type, key, location, numel, view),
 * view None or (view key, offset, numel), the elements [offset, offset +
 * numel) of the storage. */
static Value *
persistent_load (Machine *m, Value *pid, GError **error)
{
  Value *tag, *type, *key, *location, *numel, *view = NULL, *v;
  Storage *s;

  if (pid->kind != V_TUPLE || pid->items->len != (m->legacy ? 6 : 5)
      || (tag = g_ptr_array_index (pid->items, 0))->kind != V_STR
      || !g_str_equal (tag->s, "storage")
      || (type = g_ptr_array_index (pid->items, 1))->kind != V_GLOBAL || type->i != G_STORAGE_TYPE
      || (key = g_ptr_array_index (pid->items, 2))->kind != V_STR
      || (location = g_ptr_array_index (pid->items, 3))->kind != V_STR
      || (numel = g_ptr_array_index (pid->items, 4))->kind != V_INT)
    {
      pkl_error (m, error, DL_ERROR_FORMAT,
                 "a persistent id is not ('storage', storage type, key, location, numel%s)",
                 m->legacy ? ", view" : "");
      return NULL;
    }
  if (m->legacy)
    {
      view = g_ptr_array_index (pid->items, 5);
      if (view->kind == V_NONE)
        view = NULL;
      else if (view->kind != V_TUPLE || view->items->len != 3
               || ((Value *)g_ptr_array_index (view->items, 0))->kind != V_STR
               || ((Value *)g_ptr_array_index (view->items, 1))->kind != V_INT
               || ((Value *)g_ptr_array_index (view->items, 2))->kind != V_INT)
        {
          pkl_error (m, error, DL_ERROR_FORMAT,
                     "storage '%s': its view is a %s, not None or (key, offset, numel)", key->s,
                     kind_names[view->kind]);
          return NULL;
        }
    }
  if (numel->i < 0)
    {
      pkl_error (m, error, DL_ERROR_FORMAT, "storage '%s': negative size %" G_GINT64_FORMAT, key->s,
                 numel->i);
      return NULL;
    }
  s = g_hash_table_lookup (m->storages, key->s);
  if (s == NULL)
    {
      s = g_new0 (Storage, 1);
      s->key = g_strdup (key->s);
      s->dtype = type->dtype;
      s->numel = numel->i;
      s->data_offset = -1;
      g_hash_table_insert (m->storages, s->key, s);
    }
  else if (s->dtype != type->dtype || s->numel != numel->i)
    {
      pkl_error (m, error, DL_ERROR_FORMAT,
                 "storage '%s' is named again as %s of %" G_GINT64_FORMAT
                 " elements, first as %s of %" G_GINT64_FORMAT,
                 key->s, dl_dtype_get_name (type->dtype), numel->i, dl_dtype_get_name (s->dtype),
                 s->numel);
      return NULL;
    }
  v = new_value (m, V_STORAGE);
  v->storage = s;
  v->n = s->numel;
  if (view != NULL)
    {
      gint64 at = ((Value *)g_ptr_array_index (view->items, 1))->i;
      gint64 n = ((Value *)g_ptr_array_index (view->items, 2))->i;

      if (at < 0 || n < 0 || at > s->numel || n > s->numel - at)
        {
          pkl_error (m, error, DL_ERROR_FORMAT,
                     "storage '%s': a view of %" G_GINT64_FORMAT " elements at %" G_GINT64_FORMAT
                     " is past its %" G_GINT64_FORMAT " elements",
                     key->s, n, at, s->numel);
          return NULL;
        }
      v->i = at;
      v->n = n;
    }
  return v;
}

static Value *
reduce (Machine *m, Value *callable, Value *args, GError **error)
{
  Value *v;

  if (callable->kind != V_GLOBAL || callable->i == G_STORAGE_TYPE || args->kind != V_TUPLE)
    {
      pkl_error (m, error, DL_ERROR_FORMAT,
                 "REDUCE of a %s with a %s: only the allowed "
                 "functions are called, with a tuple",
                 kind_names[callable->kind], kind_names[args->kind]);
      return NULL;
    }
  switch ((Global)callable->i)
    {
      case G_ORDERED_DICT:
        if (args->items->len != 0)
          {
            pkl_error (m, error, DL_ERROR_FORMAT, "OrderedDict called with %u arguments",
                       args->items->len);
            return NULL;
          }
        return new_value (m, V_DICT);
      case G_REBUILD_TENSOR_V2:
        return rebuild_tensor (m, args->items, error);
      case G_REBUILD_PARAMETER:
        {
          Value *data, *grad;

          if (args->items->len != 3 || (data = g_ptr_array_index (args->items, 0))->kind != V_TENSOR
              || ((grad = g_ptr_array_index (args->items, 1))->kind != V_BOOL
                  && grad->kind != V_INT))
            {
              pkl_error (m, error, DL_ERROR_FORMAT,
                         "_rebuild_parameter takes (tensor, bool, hooks)");
              return NULL;
            }
          v = new_value (m, V_TENSOR);
          if (m->dry)
            return v;
          v->tensor = g_object_ref (data->tensor);
          if (!dl_tensor_set_requires_grad (v->tensor, grad->i != 0, error))
            return NULL;
          return v;
        }
      case G_STORAGE_TYPE:
      default:
        g_return_val_if_reached (NULL);
    }
}

static gboolean
memo_put (Machine *m, guint64 index, GError **error)
{
  Value *v = top (m, error);

  if (v == NULL)
    return FALSE;
  g_hash_table_insert (m->memo, GSIZE_TO_POINTER ((gsize)index), v);
  return TRUE;
}

static gboolean
memo_get (Machine *m, guint64 index, GError **error)
{
  Value *v = g_hash_table_lookup (m->memo, GSIZE_TO_POINTER ((gsize)index));

  if (v == NULL)
    {
      pkl_error (m, error, DL_ERROR_FORMAT, "memo index %" G_GUINT64_FORMAT " was never put",
                 index);
      return FALSE;
    }
  return push (m, v, error);
}

static gboolean
add_items (Machine *m, Value *container, GPtrArray *items, const gchar *op, GError **error)
{
  Kind want = (op[0] == 'S') ? V_DICT : V_LIST;

  if (container->kind != want)
    {
      pkl_error (m, error, DL_ERROR_FORMAT, "%s on a %s", op, kind_names[container->kind]);
      return FALSE;
    }
  if (want == V_DICT && items->len % 2 != 0)
    {
      pkl_error (m, error, DL_ERROR_FORMAT, "%s with an odd number (%u) of keys and values", op,
                 items->len);
      return FALSE;
    }
  for (guint i = 0; i < items->len; i++)
    g_ptr_array_add (container->items, g_ptr_array_index (items, i));
  return TRUE;
}

/* Runs the pickle; returns the object STOP found. */
static Value *
run (Machine *m, GError **error)
{
  while (m->pos < m->pkl_size)
    {
      guint8 op = m->pkl[m->pos++];
      const guint8 *p;
      Value *v, *w;

      switch (op)
        {
          case 0x80: /* PROTO */
            if (!(p = take (m, 1, "PROTO", error)))
              return NULL;
            if (p[0] > 5)
              {
                pkl_error (m, error, DL_ERROR_NOT_SUPPORTED, "pickle protocol %u", p[0]);
                return NULL;
              }
            break;
          case 0x95: /* FRAME */
            if (!take (m, 8, "FRAME", error))
              return NULL;
            break;
          case '}': /* EMPTY_DICT */
          case ']': /* EMPTY_LIST */
          case ')': /* EMPTY_TUPLE */
            if (!push (m, new_value (m, op == '}' ? V_DICT : op == ']' ? V_LIST : V_TUPLE), error))
              return NULL;
            break;
          case '(': /* MARK */
            if (m->marks->len >= MAX_STACK)
              {
                pkl_error (m, error, DL_ERROR_FORMAT, "more than %d MARKs", MAX_STACK);
                return NULL;
              }
            g_array_append_val (m->marks, m->stack->len);
            break;
          case 'X':  /* BINUNICODE */
          case 0x8c: /* SHORT_BINUNICODE */
            if (!op_string (m, op == 'X' ? 4 : 1, op == 'X' ? "BINUNICODE" : "SHORT_BINUNICODE",
                            error))
              return NULL;
            break;
          case 'J': /* BININT */
            if (!(p = take (m, 4, "BININT", error)) || !push_int (m, (gint32)le32 (p), error))
              return NULL;
            break;
          case 'K': /* BININT1 */
            if (!(p = take (m, 1, "BININT1", error)) || !push_int (m, p[0], error))
              return NULL;
            break;
          case 'M': /* BININT2 */
            if (!(p = take (m, 2, "BININT2", error)) || !push_int (m, le16 (p), error))
              return NULL;
            break;
          case 0x8a: /* LONG1 */
            if (!(p = take (m, 1, "LONG1", error)))
              return NULL;
            {
              guint8 n = p[0];
              guint64 x = 0;

              if (n > 8)
                {
                  pkl_error (m, error, DL_ERROR_FORMAT, "LONG1 of %u bytes does not fit in 64 bits",
                             n);
                  return NULL;
                }
              if (!(p = take (m, n, "LONG1", error)))
                return NULL;
              for (guint k = 0; k < n; k++)
                x |= (guint64)p[k] << (8 * k);
              if (n > 0 && n < 8 && (p[n - 1] & 0x80))
                x |= G_MAXUINT64 << (8 * n);
              if (!push_int (m, (gint64)x, error))
                return NULL;
            }
            break;
          case 'G': /* BINFLOAT, big-endian */
            if (!(p = take (m, 8, "BINFLOAT", error)))
              return NULL;
            {
              guint64 bits;

              memcpy (&bits, p, 8);
              bits = GUINT64_FROM_BE (bits);

              v = new_value (m, V_FLOAT);
              memcpy (&v->f, &bits, 8);
              if (!push (m, v, error))
                return NULL;
            }
            break;
          case 0x88: /* NEWTRUE */
          case 0x89: /* NEWFALSE */
          case 'N':  /* NONE */
            if (!push (m, op == 'N' ? &m->none : op == 0x88 ? &m->yes : &m->no, error))
              return NULL;
            break;
          case 't': /* TUPLE */
            {
              GPtrArray *items = pop_mark (m, error);

              if (items == NULL)
                return NULL;
              v = new_value (m, V_TUPLE);
              g_ptr_array_unref (v->items);
              v->items = items;
              if (!push (m, v, error))
                return NULL;
            }
            break;
          case 0x85: /* TUPLE1 */
          case 0x86: /* TUPLE2 */
          case 0x87: /* TUPLE3 */
            {
              guint n = op - 0x84;
              Value *items[3];

              for (guint k = n; k-- > 0;)
                if (!(items[k] = pop (m, error)))
                  return NULL;
              v = new_value (m, V_TUPLE);
              for (guint k = 0; k < n; k++)
                g_ptr_array_add (v->items, items[k]);
              if (!push (m, v, error))
                return NULL;
            }
            break;
          case 's': /* SETITEM */
            {
              Value *pair[2];

              if (!(pair[1] = pop (m, error)) || !(pair[0] = pop (m, error))
                  || !(v = top (m, error)))
                return NULL;
              if (v->kind != V_DICT)
                {
                  pkl_error (m, error, DL_ERROR_FORMAT, "SETITEM on a %s", kind_names[v->kind]);
                  return NULL;
                }
              g_ptr_array_add (v->items, pair[0]);
              g_ptr_array_add (v->items, pair[1]);
            }
            break;
          case 'a': /* APPEND */
            if (!(w = pop (m, error)) || !(v = top (m, error)))
              return NULL;
            if (v->kind != V_LIST)
              {
                pkl_error (m, error, DL_ERROR_FORMAT, "APPEND on a %s", kind_names[v->kind]);
                return NULL;
              }
            g_ptr_array_add (v->items, w);
            break;
          case 'u': /* SETITEMS */
          case 'e': /* APPENDS */
            {
              g_autoptr (GPtrArray) items = pop_mark (m, error);

              if (items == NULL || !(v = top (m, error))
                  || !add_items (m, v, items, op == 'u' ? "SETITEMS" : "APPENDS", error))
                return NULL;
            }
            break;
          case 'q': /* BINPUT */
            if (!(p = take (m, 1, "BINPUT", error)) || !memo_put (m, p[0], error))
              return NULL;
            break;
          case 'r': /* LONG_BINPUT */
            if (!(p = take (m, 4, "LONG_BINPUT", error)) || !memo_put (m, le32 (p), error))
              return NULL;
            break;
          case 0x94: /* MEMOIZE */
            if (!memo_put (m, g_hash_table_size (m->memo), error))
              return NULL;
            break;
          case 'h': /* BINGET */
            if (!(p = take (m, 1, "BINGET", error)) || !memo_get (m, p[0], error))
              return NULL;
            break;
          case 'j': /* LONG_BINGET */
            if (!(p = take (m, 4, "LONG_BINGET", error)) || !memo_get (m, le32 (p), error))
              return NULL;
            break;
          case 'c': /* GLOBAL */
            if (!op_global (m, error))
              return NULL;
            break;
          case 0x93: /* STACK_GLOBAL */
            if (!(w = pop (m, error)) || !(v = pop (m, error)))
              return NULL;
            if (v->kind != V_STR || w->kind != V_STR)
              {
                pkl_error (m, error, DL_ERROR_FORMAT, "STACK_GLOBAL of a %s and a %s",
                           kind_names[v->kind], kind_names[w->kind]);
                return NULL;
              }
            if (!(v = find_global (m, v->s, w->s, error)) || !push (m, v, error))
              return NULL;
            break;
          case 'R': /* REDUCE */
            if (!(w = pop (m, error)) || !(v = pop (m, error)) || !(v = reduce (m, v, w, error))
                || !push (m, v, error))
              return NULL;
            break;
          case 'Q': /* BINPERSID */
            if (!(v = pop (m, error)) || !(v = persistent_load (m, v, error))
                || !push (m, v, error))
              return NULL;
            break;
          case 'b': /* BUILD: an OrderedDict's _metadata, ignored */
            if (!(w = pop (m, error)) || !(v = top (m, error)))
              return NULL;
            if (v->kind != V_DICT)
              {
                pkl_error (m, error, DL_ERROR_NOT_SUPPORTED,
                           "BUILD on a %s (only a state dict's metadata is accepted)",
                           kind_names[v->kind]);
                return NULL;
              }
            break;
          case '.': /* STOP */
            return top (m, error);
          default:
            m->pos--;
            pkl_error (m, error, DL_ERROR_NOT_SUPPORTED,
                       "opcode 0x%02x%s%c%s is not one of those PyTorch state dicts use", op,
                       g_ascii_isprint (op) ? " ('" : "", g_ascii_isprint (op) ? op : ' ',
                       g_ascii_isprint (op) ? "')" : "");
            return NULL;
        }
    }
  pkl_error (m, error, DL_ERROR_FORMAT, "the pickle ends without STOP");
  return NULL;
}

/* Puts the tensors of @dict into @out under @prefix, dicts inside
 * flattened to dotted names; other values are skipped. */
static gboolean
flatten (Machine *m,
         Value *dict,
         const gchar *prefix,
         guint depth,
         DlTensorDict *out,
         GError **error)
{
  if (depth > DL_PYTORCH_MAX_NESTING)
    {
      set_error (error, DL_ERROR_FORMAT, m->what, "dicts nest deeper than %d levels (at '%s')",
                 DL_PYTORCH_MAX_NESTING, prefix);
      return FALSE;
    }
  for (guint i = 0; i + 1 < dict->items->len; i += 2)
    {
      Value *key = g_ptr_array_index (dict->items, i);
      Value *value = g_ptr_array_index (dict->items, i + 1);
      g_autofree gchar *name = NULL;

      if (key->kind == V_STR)
        name = g_strconcat (prefix, key->s, NULL);
      else if (key->kind == V_INT)
        name = g_strdup_printf ("%s%" G_GINT64_FORMAT, prefix, key->i);
      else
        continue;
      if (value->kind == V_TENSOR)
        dl_tensor_dict_insert (out, name, value->tensor);
      else if (value->kind == V_DICT)
        {
          g_autofree gchar *inner = g_strconcat (name, ".", NULL);

          if (!flatten (m, value, inner, depth + 1, out, error))
            return FALSE;
        }
    }
  return TRUE;
}

static void
machine_init (Machine *m, const gchar *what, const guint8 *contents, gsize size, GMappedFile *map)
{
  m->what = what;
  m->archive = contents;
  m->archive_size = size;
  m->map = map;
  m->values = g_ptr_array_new_with_free_func (value_free);
  m->stack = g_ptr_array_new ();
  m->marks = g_array_new (FALSE, FALSE, sizeof (guint));
  m->memo = g_hash_table_new (NULL, NULL);
  m->storages = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, storage_free);
  m->none.kind = V_NONE;
  m->yes.kind = m->no.kind = V_BOOL;
  m->yes.i = 1;
}

static void
machine_clear (Machine *m)
{
  g_ptr_array_unref (m->values);
  g_ptr_array_unref (m->stack);
  g_array_unref (m->marks);
  g_hash_table_unref (m->memo);
  g_hash_table_unref (m->storages);
}

/* Runs the next pickle of the machine's stream with a fresh stack and
 * memo (each pickle.dump has its own). */
static Value *
run_next (Machine *m, GError **error)
{
  g_ptr_array_set_size (m->stack, 0);
  g_array_set_size (m->marks, 0);
  g_hash_table_remove_all (m->memo);
  return run (m, error);
}

/* The state dict of the object @root of the pickle. */
static DlTensorDict *
finish (Machine *m, Value *root, GError **error)
{
  g_autoptr (DlTensorDict) dict = NULL;

  if (root == NULL)
    return NULL;
  if (root->kind != V_DICT)
    {
      set_error (error, DL_ERROR_FORMAT, m->what,
                 "the file holds a %s, not a state dict (a dict of tensors)",
                 kind_names[root->kind]);
      return NULL;
    }
  dict = dl_tensor_dict_new ();
  if (!flatten (m, root, "", 0, dict, error))
    return NULL;
  return g_steal_pointer (&dict);
}

static DlTensorDict *
parse_zip (Machine *m, GError **error)
{
  g_autoptr (GHashTable) records = read_zip (m->archive, m->archive_size, m->what, error);
  g_autofree gchar *prefix = NULL;
  g_autofree gchar *name = NULL;
  GHashTableIter iter;
  gpointer key, value;
  Record *pkl, *byteorder;

  if (records == NULL)
    return NULL;
  g_hash_table_iter_init (&iter, records);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      const gchar *slash = strchr (key, '/');

      if (slash != NULL && g_str_equal (slash, "/data.pkl"))
        {
          if (prefix != NULL)
            {
              set_error (error, DL_ERROR_FORMAT, m->what,
                         "the archive has two data.pkl: %sdata.pkl "
                         "and %s",
                         prefix, (const gchar *)key);
              return NULL;
            }
          prefix = g_strndup (key, slash - (const gchar *)key + 1);
        }
    }
  if (prefix == NULL)
    {
      set_error (error, DL_ERROR_FORMAT, m->what,
                 "the zip archive has no <name>/data.pkl: not a file of torch.save");
      return NULL;
    }
  name = g_strconcat (prefix, "byteorder", NULL);
  byteorder = g_hash_table_lookup (records, name);
  if (byteorder != NULL
      && !(byteorder->size == 6 && memcmp (m->archive + byteorder->offset, "little", 6) == 0))
    {
      set_error (error, DL_ERROR_NOT_SUPPORTED, m->what,
                 "%sbyteorder is '%.*s': only little-endian archives are read", prefix,
                 (int)MIN (byteorder->size, 16), m->archive + byteorder->offset);
      return NULL;
    }
  g_free (name);
  name = g_strconcat (prefix, "data.pkl", NULL);
  pkl = g_hash_table_lookup (records, name);

  m->records = records;
  m->prefix = prefix;
  m->pkl_name = name;
  m->pkl = m->archive + pkl->offset;
  m->pkl_size = pkl->size;
  return finish (m, run (m, error), error);
}

/* The legacy format's first pickle: PROTO (2 unless torch.save was given
 * another), in protocols 4 and 5 a FRAME, then the magic number
 * 0x1950a86a20f9469cfc6c (LONG1 of 10 bytes) and STOP. Returns its length,
 * 0 if @p does not start with it. */
static gsize
legacy_magic_length (const guint8 *p, gsize size)
{
  static const guint8 number[]
      = { 0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19, '.' };

  if (size < 2 + sizeof number || p[0] != 0x80 || p[1] < 2 || p[1] > 5)
    return 0;
  if (memcmp (p + 2, number, sizeof number) == 0)
    return 2 + sizeof number;
  if (p[1] >= 4 && size >= 11 + sizeof number && p[2] == 0x95 && le64 (p + 3) == sizeof number
      && memcmp (p + 11, number, sizeof number) == 0)
    return 11 + sizeof number;
  return 0;
}

#define LEGACY_PROTOCOL_VERSION 1001

/* PyTorch's legacy format (torch < 1.6, and torch.save (...,
 * _use_new_zipfile_serialization=False)): a stream of pickles, the magic
 * number, the protocol version 1001, sys_info (a dict), the object, the
 * sorted list of storage keys; then for each key its element count (int64
 * little-endian) and its bytes. Where a storage's bytes lie is known only
 * once the object's pickle has named every storage's dtype, so the
 * object's pickle is run twice: a dry pass that checks every tensor and
 * finds the pickle's end, then (once the keys and counts are checked
 * against the storages) the pass that makes the tensors. */
static DlTensorDict *
parse_legacy (Machine *m, GError **error)
{
  Value *v, *keys;
  gsize object, at;

  m->legacy = TRUE;
  m->dry = TRUE; /* until the object's second pass: no pickle makes a tensor */
  m->pkl_name = "the legacy stream";
  m->pkl = m->archive;
  m->pkl_size = m->archive_size;
  m->pos = legacy_magic_length (m->archive, m->archive_size);
  if ((v = run_next (m, error)) == NULL)
    return NULL;
  if (v->kind != V_INT || v->i != LEGACY_PROTOCOL_VERSION)
    {
      pkl_error (m, error, DL_ERROR_FORMAT,
                 "the protocol version is a %s%s%" G_GINT64_FORMAT ", not %d", kind_names[v->kind],
                 v->kind == V_INT ? " " : "", v->kind == V_INT ? v->i : 0, LEGACY_PROTOCOL_VERSION);
      return NULL;
    }
  if ((v = run_next (m, error)) == NULL)
    return NULL;
  if (v->kind != V_DICT)
    {
      pkl_error (m, error, DL_ERROR_FORMAT, "sys_info is a %s, not a dict", kind_names[v->kind]);
      return NULL;
    }
  for (guint i = 0; i + 1 < v->items->len; i += 2)
    {
      Value *key = g_ptr_array_index (v->items, i);
      Value *value = g_ptr_array_index (v->items, i + 1);

      if (key->kind == V_STR && g_str_equal (key->s, "little_endian")
          && !(value->kind == V_BOOL && value->i))
        {
          pkl_error (m, error, DL_ERROR_NOT_SUPPORTED,
                     "sys_info says the data is not little-endian: only little-endian files "
                     "are read");
          return NULL;
        }
    }
  object = m->pos;
  if (run_next (m, error) == NULL)
    return NULL;
  if ((keys = run_next (m, error)) == NULL)
    return NULL;
  if (keys->kind != V_LIST)
    {
      pkl_error (m, error, DL_ERROR_FORMAT, "the storage keys are a %s, not a list",
                 kind_names[keys->kind]);
      return NULL;
    }
  if (keys->items->len != g_hash_table_size (m->storages))
    {
      pkl_error (m, error, DL_ERROR_FORMAT,
                 "the storage keys are a list of %u, the object names %u storages",
                 keys->items->len, g_hash_table_size (m->storages));
      return NULL;
    }
  at = m->pos;
  for (guint i = 0; i < keys->items->len; i++)
    {
      Value *key = g_ptr_array_index (keys->items, i);
      Storage *s = key->kind == V_STR ? g_hash_table_lookup (m->storages, key->s) : NULL;
      gsize elsize;
      gint64 numel;

      if (s == NULL || s->data_offset >= 0)
        {
          pkl_error (m, error, DL_ERROR_FORMAT, "storage key %u is %s%s%s: %s", i,
                     key->kind == V_STR ? "'" : "a ",
                     key->kind == V_STR ? key->s : kind_names[key->kind],
                     key->kind == V_STR ? "'" : "",
                     s == NULL ? "not a storage the object names" : "listed twice");
          return NULL;
        }
      if (m->archive_size - at < 8)
        {
          set_error (error, DL_ERROR_FORMAT, m->what,
                     "the file ends at byte %" G_GSIZE_FORMAT ", before the size of storage '%s'",
                     m->archive_size, s->key);
          return NULL;
        }
      numel = (gint64)le64 (m->archive + at);
      if (numel != s->numel)
        {
          set_error (error, DL_ERROR_FORMAT, m->what,
                     "at byte %" G_GSIZE_FORMAT ": storage '%s' has %" G_GINT64_FORMAT
                     " elements, the object says %" G_GINT64_FORMAT,
                     at, s->key, numel, s->numel);
          return NULL;
        }
      at += 8;
      elsize = dl_dtype_get_size (s->dtype);
      if ((guint64)s->numel > (m->archive_size - at) / elsize)
        {
          set_error (error, DL_ERROR_FORMAT, m->what,
                     "storage '%s' needs %" G_GINT64_FORMAT " %s elements at byte %" G_GSIZE_FORMAT
                     ", past the end of the file (%" G_GSIZE_FORMAT " bytes)",
                     s->key, s->numel, dl_dtype_get_name (s->dtype), at, m->archive_size);
          return NULL;
        }
      s->data_offset = at;
      at += (gsize)s->numel * elsize;
    }
  m->pos = object;
  m->dry = FALSE;
  return finish (m, run_next (m, error), error);
}

static DlTensorDict *
parse (const guint8 *contents, gsize size, GMappedFile *map, const gchar *what, GError **error)
{
  DlTensorDict *dict;
  Machine m = { 0 };

  machine_init (&m, what, contents, size, map);
  if (legacy_magic_length (contents, size) > 0)
    dict = parse_legacy (&m, error);
  else
    dict = parse_zip (&m, error);
  machine_clear (&m);
  return dict;
}

/**
 * dl_pytorch_load_state_dict_bytes:
 * @bytes: the contents of a file written by `torch.save`
 * @error: return location for a #GError
 *
 * Reads the tensors of a PyTorch archive (zip or legacy stream) from
 * memory, as dl_pytorch_load_state_dict() reads a file; the tensors hold
 * copies of their storages (tensors that share a storage share the copy).
 *
 * Returns: (transfer full): the tensors by name, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensorDict *
dl_pytorch_load_state_dict_bytes (GBytes *bytes, GError **error)
{
  gsize size;
  gconstpointer data;

  g_return_val_if_fail (bytes != NULL, NULL);
  data = g_bytes_get_data (bytes, &size);
  return parse (data, size, NULL, "<bytes>", error);
}

/**
 * dl_pytorch_load_state_dict:
 * @file: a `.pt`/`.pth` file written by `torch.save`
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Reads the tensors of a state dict that PyTorch saved
 * (`torch.save (model.state_dict (), "model.pt")`), without Python: the
 * zip archive of PyTorch 1.6 and later (zip64 included), or the legacy
 * stream of earlier versions (and of `torch.save (...,
 * _use_new_zipfile_serialization=False)`: pickles of the magic number,
 * the protocol version and sys_info, the object, the list of storage
 * keys, then each storage's element count and bytes). The object's pickle
 * (`data.pkl` in the archive) is run by a pickle machine that knows only
 * the opcodes and globals a state dict uses (`collections.OrderedDict`,
 * `torch._utils._rebuild_tensor_v2`, `torch._utils._rebuild_parameter` and
 * the Float, Double, Half, BFloat16, Int, Long, Byte and Bool storages,
 * as `torch.` or, in old files saved from a GPU, `torch.cuda.`).
 * Any other opcode or global, a compressed or encrypted record, a
 * big-endian archive or a storage of another dtype is an error naming it
 * (%DL_ERROR_NOT_SUPPORTED); a malformed archive is %DL_ERROR_FORMAT, and
 * so is a legacy stream whose storage keys are not the storages the
 * object names, whose element counts differ from the object's or whose
 * bytes end early. No code from the file is ever run.
 *
 * Each tensor is a view (sizes, strides, offset) of its storage, checked
 * to lie inside it; tensors that share a storage in PyTorch share it
 * here. A local file is memory-mapped, private and copy-on-write, as
 * dl_safetensors_load() does: loading reads the pickle only, and writing
 * into a tensor never changes the file. Tensors load on the CPU whatever
 * device they were saved from. CRCs are not checked (the data is not read
 * at load time). In a legacy stream a storage's bytes follow its 8-byte
 * count wherever the pickles before it end, so only those whose bytes
 * happen to be aligned for their dtype are mapped; the others are
 * copied.
 *
 * The object saved must be a dict. Tensors in dicts inside it are named
 * by their dotted path, so a checkpoint `{"model": state_dict, "epoch":
 * 3}` gives `model.fc.weight`, ...; integer keys are written in decimal
 * (an optimizer's `state.0.exp_avg`); values that are neither tensors nor
 * dicts (numbers, strings, lists) are skipped.
 *
 * Returns: (transfer full): the tensors by name, in the file's order, or
 *   %NULL with @error set
 *
 * Since: 0.1
 */
DlTensorDict *
dl_pytorch_load_state_dict (GFile *file, GCancellable *cancellable, GError **error)
{
  g_autofree gchar *what = NULL;
  g_autoptr (GMappedFile) map = NULL;
  g_autoptr (GBytes) bytes = NULL;

  g_return_val_if_fail (G_IS_FILE (file), NULL);
  if (!dl_file_map_private (file, cancellable, "pytorch", &map, &bytes, error))
    return NULL;
  what = g_file_get_parse_name (file);
  if (bytes != NULL)
    return parse (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), NULL, what, error);
  return parse ((const guint8 *)g_mapped_file_get_contents (map), g_mapped_file_get_length (map),
                map, what, error);
}
