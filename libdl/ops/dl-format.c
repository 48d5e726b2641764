/* dl-format.c: DlTensor's printed form, as PyTorch prints it
 * (dl_tensor_to_string), and the formatter behind it.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* Tensor pretty-printing that mirrors the repr() of a strided CPU tensor in
 * PyTorch 1.13 (torch/_tensor_str.py) with the default print options:
 * precision 4, threshold 1000, edgeitems 3, linewidth 80 and automatic
 * choice of scientific notation.  The rules reproduced here are:
 *
 *  - one formatter (fixed / integer-valued / scientific mode plus a common
 *    column width) is chosen from the values that are actually shown, i.e.
 *    from the summarised data when the tensor has more than 1000 elements;
 *  - floats use fixed notation with 4 decimals, or "N." when every nonzero
 *    finite value is integral, or 4-digit scientific notation when the
 *    max/min magnitude ratio exceeds 1000, the max exceeds 1e8 or (for
 *    non-integral data) the min is below 1e-4;
 *  - every element is right-aligned to the common width, innermost rows are
 *    wrapped to fit in 80 columns, nested rows are indented one column per
 *    level and separated by dim-1 newlines;
 *  - summarised dimensions show 3 leading and 3 trailing items around "...";
 *  - empty tensors print "[]" followed by a size suffix unless 1-D, and extra
 *    suffixes are appended, wrapping onto a new line past 80 columns.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "dl-format-private.h"
#include "dl-ops-private.h"

#define FORMAT_INTEGRAL "%.0f"
#define FORMAT_PREFIX "tensor("

/* Large enough for "%.0f" / "%.*f" of any finite double at the largest
 * precision dl_set_print_options() takes. */
#define FORMAT_BUF_SIZE 512
#define FORMAT_MAX_PRECISION 100

/* torch.set_printoptions: process-wide, as torch's PRINT_OPTS are; each
 * print takes a copy under the lock. */
typedef struct
{
  gint precision;
  gint64 threshold;
  gint64 edgeitems;
  gint64 linewidth;
  gint sci_mode; /* -1: automatic, 0: never, 1: always */
} PrintOptions;

#define DEFAULT_PRINT_OPTIONS                                                                      \
  {                                                                                                \
    4, 1000, 3, 80, -1                                                                             \
  }

static PrintOptions print_options = DEFAULT_PRINT_OPTIONS;
static GMutex print_options_lock;

static PrintOptions
get_print_options (void)
{
  PrintOptions copy;

  g_mutex_lock (&print_options_lock);
  copy = print_options;
  g_mutex_unlock (&print_options_lock);
  return copy;
}

/**
 * dl_set_print_options:
 * @precision: digits after the decimal point of floats, 0 to 100 (torch's
 *   default 4)
 * @threshold: tensors of more elements than this print summarised (1000);
 *   %G_MAXINT64 never summarises
 * @edgeitems: how many items a summarised dim shows at each end (3)
 * @linewidth: the width rows are wrapped to (80)
 * @sci_mode: 1 for scientific notation always, 0 never, -1 to choose from
 *   the values as torch does by default
 *
 * Sets how dl_tensor_to_string() prints every tensor from then on, as
 * torch.set_printoptions; the options are the process's, like torch's.
 * Values out of range are clamped.
 *
 * Since: 0.1
 */
void
dl_set_print_options (gint precision,
                      gint64 threshold,
                      gint64 edgeitems,
                      gint64 linewidth,
                      gint sci_mode)
{
  g_mutex_lock (&print_options_lock);
  print_options.precision = CLAMP (precision, 0, FORMAT_MAX_PRECISION);
  print_options.threshold = MAX (threshold, 0);
  /* edge items beyond a quarter of the int64 range cannot be shown */
  print_options.edgeitems = CLAMP (edgeitems, 0, G_MAXINT64 / 4);
  print_options.linewidth = MAX (linewidth, 0);
  print_options.sci_mode = CLAMP (sci_mode, -1, 1);
  g_mutex_unlock (&print_options_lock);
}

/**
 * dl_get_print_options:
 * @precision: (out) (optional): return location for the precision
 * @threshold: (out) (optional): return location for the threshold
 * @edgeitems: (out) (optional): return location for the edge items
 * @linewidth: (out) (optional): return location for the line width
 * @sci_mode: (out) (optional): return location for the scientific mode
 *   (-1 automatic, 0 never, 1 always)
 *
 * The options dl_set_print_options() last set.
 *
 * Since: 0.1
 */
void
dl_get_print_options (gint *precision,
                      gint64 *threshold,
                      gint64 *edgeitems,
                      gint64 *linewidth,
                      gint *sci_mode)
{
  PrintOptions o = get_print_options ();

  if (precision)
    *precision = o.precision;
  if (threshold)
    *threshold = o.threshold;
  if (edgeitems)
    *edgeitems = o.edgeitems;
  if (linewidth)
    *linewidth = o.linewidth;
  if (sci_mode)
    *sci_mode = o.sci_mode;
}

typedef struct
{
  DlFormatKind kind;
  gchar fixed_format[16]; /* "%.4f" at precision 4: g_ascii_formatd's, */
  gchar sci_format[16];   /* which ignore the locale */
  gint forced_sci;        /* the sci_mode option */
  gboolean int_mode;
  gboolean sci_mode;
  gsize max_width;
} Formatter;

typedef struct
{
  const gdouble *values;
  const gint64 *shape;
  gsize ndim;
  const gsize *strides;
  gboolean summarize;
  /* values holds only the shown items (a summarised tensor's print) */
  gboolean compact;
  gint64 edgeitems;
  gint64 linewidth;
  Formatter formatter;
} PrintContext;

/* Writes the unpadded text of @value into @buf and returns its length. */
static gsize
format_raw (const Formatter *formatter, gdouble value, gchar *buf)
{
  switch (formatter->kind)
    {
      case DL_FORMAT_BOOL:
        g_strlcpy (buf, value != 0.0 ? "True" : "False", FORMAT_BUF_SIZE);
        break;

      case DL_FORMAT_INT:
        /* Adding 0.0 turns a stray -0.0 into 0.0. */
        g_ascii_formatd (buf, FORMAT_BUF_SIZE, FORMAT_INTEGRAL, value + 0.0);
        break;

      case DL_FORMAT_FLOAT:
      default:
        if (isnan (value))
          g_strlcpy (buf, "nan", FORMAT_BUF_SIZE);
        else if (isinf (value))
          g_strlcpy (buf, value > 0 ? "inf" : "-inf", FORMAT_BUF_SIZE);
        else if (formatter->sci_mode)
          g_ascii_formatd (buf, FORMAT_BUF_SIZE, formatter->sci_format, value);
        else if (formatter->int_mode)
          {
            gsize len;

            g_ascii_formatd (buf, FORMAT_BUF_SIZE - 1, FORMAT_INTEGRAL, value);
            len = strlen (buf);
            buf[len] = '.';
            buf[len + 1] = '\0';
          }
        else
          g_ascii_formatd (buf, FORMAT_BUF_SIZE, formatter->fixed_format, value);
        break;
    }

  return strlen (buf);
}

/* Appends @value right-aligned to the formatter's width. */
static void
append_value (GString *out, const Formatter *formatter, gdouble value)
{
  gchar buf[FORMAT_BUF_SIZE];
  gsize len;

  len = format_raw (formatter, value, buf);
  for (; len < formatter->max_width; len++)
    g_string_append_c (out, ' ');
  g_string_append (out, buf);
}

/* torch.set_printoptions (sci_mode=) overrides the automatic choice after
 * the width is measured, so, as in torch, the width stays the automatic
 * mode's. */
static void
formatter_force_sci (Formatter *formatter)
{
  if (formatter->forced_sci >= 0)
    formatter->sci_mode = formatter->forced_sci == 1;
}

static void
formatter_init (Formatter *formatter,
                const PrintOptions *options,
                DlFormatKind kind,
                const gdouble *values,
                gsize n_values)
{
  gchar buf[FORMAT_BUF_SIZE];
  gdouble min_abs = INFINITY;
  gdouble max_abs = 0.0;
  gsize n_nonzero_finite = 0;
  gsize i;

  formatter->kind = kind;
  g_snprintf (formatter->fixed_format, sizeof formatter->fixed_format, "%%.%df",
              options->precision);
  g_snprintf (formatter->sci_format, sizeof formatter->sci_format, "%%.%de", options->precision);
  formatter->forced_sci = options->sci_mode;
  formatter->int_mode = TRUE;
  formatter->sci_mode = FALSE;
  formatter->max_width = 1;

  if (kind != DL_FORMAT_FLOAT)
    {
      for (i = 0; i < n_values; i++)
        formatter->max_width = MAX (formatter->max_width, format_raw (formatter, values[i], buf));
      return;
    }

  for (i = 0; i < n_values; i++)
    {
      gdouble v = values[i];

      if (!isfinite (v) || v == 0.0)
        continue;

      n_nonzero_finite++;
      min_abs = MIN (min_abs, fabs (v));
      max_abs = MAX (max_abs, fabs (v));
      if (v != ceil (v))
        formatter->int_mode = FALSE;
    }

  /* Only zeros and non-finite values: integral mode with width 1 (where
   * torch returns before applying the sci_mode option) */
  if (n_nonzero_finite == 0)
    return;

  if (max_abs / min_abs > 1000.0 || max_abs > 1.0e8)
    formatter->sci_mode = TRUE;
  else if (!formatter->int_mode && min_abs < 1.0e-4)
    formatter->sci_mode = TRUE;

  /* The width only considers nonzero finite values. */
  for (i = 0; i < n_values; i++)
    {
      gdouble v = values[i];

      if (!isfinite (v) || v == 0.0)
        continue;

      formatter->max_width = MAX (formatter->max_width, format_raw (formatter, v, buf));
    }
  formatter_force_sci (formatter);
}

/* Whether dimension @dim is shown as edge items around an ellipsis. */
static inline gboolean
dim_is_trimmed (const PrintContext *ctx, gsize dim)
{
  return ctx->summarize && ctx->shape[dim] > 2 * ctx->edgeitems;
}

/* Maps the @k-th shown item of dimension @dim to its index, or -1 for the
 * ellipsis. */
static gint64
shown_index (const PrintContext *ctx, gsize dim, gint64 k)
{
  if (!dim_is_trimmed (ctx, dim))
    return k;
  if (k < ctx->edgeitems)
    return k;
  if (k == ctx->edgeitems)
    return -1;
  if (ctx->compact)
    return k - 1;
  return ctx->shape[dim] - (2 * ctx->edgeitems + 1 - k);
}

static gint64
n_shown_items (const PrintContext *ctx, gsize dim)
{
  return dim_is_trimmed (ctx, dim) ? 2 * ctx->edgeitems + 1 : ctx->shape[dim];
}

/* Collects the values that get printed, i.e. the summarised data. */
static void
collect_shown (const PrintContext *ctx, gsize dim, gsize offset, GArray *out)
{
  gint64 n_items = n_shown_items (ctx, dim);
  gint64 k;

  for (k = 0; k < n_items; k++)
    {
      gint64 index = shown_index (ctx, dim, k);
      gsize child;

      if (index < 0)
        continue;

      child = offset + (gsize)index * ctx->strides[dim];
      if (dim + 1 == ctx->ndim)
        g_array_append_val (out, ctx->values[child]);
      else
        collect_shown (ctx, dim + 1, child, out);
    }
}

static void
append_spaces (GString *out, gsize n)
{
  for (; n > 0; n--)
    g_string_append_c (out, ' ');
}

static void
append_row (GString *out, const PrintContext *ctx, gsize offset, gsize indent)
{
  gsize dim = ctx->ndim - 1;
  gint64 n_items = n_shown_items (ctx, dim);
  gint64 element_length = (gint64)ctx->formatter.max_width + 2;
  gint64 per_line;
  gint64 k;

  per_line = (ctx->linewidth - (gint64)indent) / element_length;
  per_line = MAX (1, per_line);

  g_string_append_c (out, '[');
  for (k = 0; k < n_items; k++)
    {
      gint64 index = shown_index (ctx, dim, k);

      if (k > 0)
        {
          if (k % per_line == 0)
            {
              g_string_append (out, ",\n");
              append_spaces (out, indent + 1);
            }
          else
            g_string_append (out, ", ");
        }

      if (index < 0)
        g_string_append (out, " ...");
      else
        append_value (out, &ctx->formatter, ctx->values[offset + (gsize)index * ctx->strides[dim]]);
    }
  g_string_append_c (out, ']');
}

static void
append_slice (GString *out, const PrintContext *ctx, gsize dim, gsize offset, gsize indent)
{
  gint64 n_items;
  gint64 k;
  gsize i;

  if (dim + 1 == ctx->ndim)
    {
      append_row (out, ctx, offset, indent);
      return;
    }

  n_items = n_shown_items (ctx, dim);
  g_string_append_c (out, '[');
  for (k = 0; k < n_items; k++)
    {
      gint64 index = shown_index (ctx, dim, k);

      if (k > 0)
        {
          /* A slice of rank r is separated from the next by r-1 newlines. */
          g_string_append_c (out, ',');
          for (i = dim + 1; i < ctx->ndim; i++)
            g_string_append_c (out, '\n');
          append_spaces (out, indent + 1);
        }

      if (index < 0)
        g_string_append (out, "...");
      else
        append_slice (out, ctx, dim + 1, offset + (gsize)index * ctx->strides[dim], indent + 1);
    }
  g_string_append_c (out, ']');
}

static void
append_suffix (GString *out,
               const gchar *suffix,
               gsize indent,
               gint64 linewidth,
               glong *last_line_len)
{
  glong suffix_len = g_utf8_strlen (suffix, -1);

  if (*last_line_len + suffix_len + 2 > linewidth)
    {
      g_string_append (out, ",\n");
      append_spaces (out, indent);
      g_string_append (out, suffix);
      *last_line_len = (glong)indent + suffix_len;
    }
  else
    {
      g_string_append (out, ", ");
      g_string_append (out, suffix);
      *last_line_len += suffix_len + 2;
    }
}

static gchar *
format_tensor (const gdouble *values,
               const gint64 *shape,
               gsize ndim,
               DlFormatKind kind,
               const gchar *const *suffixes,
               gboolean compact,
               const PrintOptions *opts)
{
  g_autoptr (GString) out = NULL;
  g_autofree gsize *strides = NULL;
  g_autofree gchar *size_suffix = NULL;
  const gchar *last_newline;
  const gsize indent = strlen (FORMAT_PREFIX);
  const PrintOptions options = *opts;
  glong last_line_len;
  gsize numel = 1;
  gsize i;

  g_return_val_if_fail (ndim == 0 || shape != NULL, NULL);

  for (i = 0; i < ndim; i++)
    {
      g_return_val_if_fail (shape[i] >= 0, NULL);
      numel *= (gsize)shape[i];
    }

  g_return_val_if_fail (numel == 0 || values != NULL, NULL);

  out = g_string_new (FORMAT_PREFIX);

  if (numel == 0)
    {
      g_autoptr (GString) size = g_string_new ("size=(");

      g_string_append (out, "[]");

      /* Like NumPy, the shape is spelled out unless it is (0,). */
      if (ndim != 1)
        {
          for (i = 0; i < ndim; i++)
            g_string_append_printf (size, "%s%" G_GINT64_FORMAT, i > 0 ? ", " : "", shape[i]);
          g_string_append_c (size, ')');
          size_suffix = g_string_free (g_steal_pointer (&size), FALSE);
        }
    }
  else if (ndim == 0)
    {
      Formatter formatter;

      formatter_init (&formatter, &options, kind, values, 1);
      append_value (out, &formatter, values[0]);
    }
  else
    {
      PrintContext ctx = {
        0,
      };
      g_autoptr (GArray) shown = NULL;

      ctx.values = values;
      ctx.shape = shape;
      ctx.ndim = ndim;
      /* @values of a compact print hold only the shown items, cut with
       * @opts: those decide, even if the options changed since */
      ctx.summarize = compact || (gint64)numel > options.threshold;
      ctx.compact = compact && ctx.summarize;
      ctx.edgeitems = options.edgeitems;
      ctx.linewidth = options.linewidth;

      strides = g_new (gsize, ndim);
      strides[ndim - 1] = 1;
      for (i = ndim - 1; i > 0; i--)
        strides[i - 1] = strides[i]
                         * (ctx.compact && dim_is_trimmed (&ctx, i) ? 2 * (gsize)ctx.edgeitems
                                                                    : (gsize)shape[i]);
      ctx.strides = strides;

      if (ctx.summarize)
        {
          shown = g_array_new (FALSE, FALSE, sizeof (gdouble));
          collect_shown (&ctx, 0, 0, shown);
          formatter_init (&ctx.formatter, &options, kind, (const gdouble *)shown->data, shown->len);
        }
      else
        formatter_init (&ctx.formatter, &options, kind, values, numel);

      append_slice (out, &ctx, 0, 0, indent);
    }

  /* PyTorch measures the last line as its length plus one, so a single
   * line counts as its length plus two. */
  last_newline = strrchr (out->str, '\n');
  if (last_newline != NULL)
    last_line_len = (glong)(out->len - (gsize)(last_newline - out->str)) + 1;
  else
    last_line_len = (glong)out->len + 2;

  if (size_suffix != NULL)
    append_suffix (out, size_suffix, indent, options.linewidth, &last_line_len);

  for (i = 0; suffixes != NULL && suffixes[i] != NULL; i++)
    append_suffix (out, suffixes[i], indent, options.linewidth, &last_line_len);

  g_string_append_c (out, ')');

  return g_string_free (g_steal_pointer (&out), FALSE);
}

gchar *
dl_format_tensor (const gdouble *values,
                  const gint64 *shape,
                  gsize ndim,
                  DlFormatKind kind,
                  const gchar *const *suffixes)
{
  PrintOptions options = get_print_options ();

  return format_tensor (values, shape, ndim, kind, suffixes, FALSE, &options);
}

/* ---- DlTensor's printed form ---------------------------------------- */

/* The items of @t that a summarised print shows, from dimension @dim on:
 * each dimension longer than 6 keeps its first and last 3 items. Only
 * views are taken until every dimension is cut, so a broadcast view of
 * 2^40 elements costs no more than its printed part. */
static DlTensor *
summary (DlTensor *t, gint dim, gint64 edgeitems, GError **error)
{
  g_autoptr (DlTensor) head = NULL;
  g_autoptr (DlTensor) tail = NULL;
  g_autoptr (DlTensor) head_shown = NULL;
  g_autoptr (DlTensor) tail_shown = NULL;
  gint64 size;

  if (dim == t->ndim)
    return dl_tensor_contiguous (t, error);
  size = t->sizes[dim];
  if (size <= 2 * edgeitems)
    return summary (t, dim + 1, edgeitems, error);
  if (!(head = dl_tensor_slice (t, dim, 0, edgeitems, 1, error))
      || !(tail = dl_tensor_slice (t, dim, size - edgeitems, size, 1, error))
      || !(head_shown = summary (head, dim + 1, edgeitems, error))
      || !(tail_shown = summary (tail, dim + 1, edgeitems, error)))
    return NULL;
  return dl_cat ((DlTensor *[]){ head_shown, tail_shown }, 2, dim, error);
}

/* A meta tensor has no values: torch prints its size instead, and its
 * dtype whenever that is not the default */
static gchar *
meta_to_string (DlTensor *self, const gchar *device_s)
{
  GString *out = g_string_new ("tensor(..., ");

  g_string_append_printf (out, "%s, size=(", device_s);
  for (gint d = 0; d < self->ndim; d++)
    g_string_append_printf (out, "%s%" G_GINT64_FORMAT, d ? ", " : "", self->sizes[d]);
  g_string_append (out, self->ndim == 1 ? ",)" : ")");
  if (self->dtype != dl_get_default_dtype ())
    g_string_append_printf (out, ", dtype=torch.%s", dl_dtype_get_name (self->dtype));
  if (self->grad_fn)
    g_string_append_printf (out, ", grad_fn=<%s>", dl_node_get_name (self->grad_fn));
  else if (self->requires_grad)
    g_string_append (out, ", requires_grad=True");
  g_string_append_c (out, ')');
  return g_string_free (out, FALSE);
}

/**
 * dl_tensor_to_string:
 * @self: a #DlTensor
 *
 * Formats the tensor as PyTorch prints it, as in
 * `tensor([[1., 2.],\n        [3., 4.]], dtype=torch.float64)`.
 *
 * Returns: (transfer full): the text
 *
 * Since: 0.1
 */
gchar *
dl_tensor_to_string (DlTensor *self)
{
  g_autofree gdouble *values = NULL;
  const gchar *suffixes[5] = { NULL };
  g_autofree gchar *device_s = NULL;
  g_autofree gchar *dtype_s = NULL;
  g_autofree gchar *grad_fn_s = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) shown = NULL;
  DlDevice *device = dl_tensor_device (self);
  DlFormatKind kind;
  const PrintOptions options = get_print_options ();
  gboolean summarized;
  gint n = 0;

  g_return_val_if_fail (DL_IS_TENSOR (self), NULL);
  dl_view_sync (self);
  summarized = self->numel > options.threshold;
  /* torch names a device other than the CPU first */
  if (device != dl_device_cpu ())
    suffixes[n++] = device_s = g_strdup_printf ("device='%s'", dl_device_get_name (device));
  if (dl_device_get_backend (device)->meta)
    return meta_to_string (self, device_s);
  if (summarized)
    {
      gboolean was_enabled = dl_set_grad_enabled (FALSE);

      shown = summary (self, 0, options.edgeitems, &error);
      dl_set_grad_enabled (was_enabled);
    }
  if (!error)
    {
      DlTensor *src = summarized ? shown : self;

      values = g_new (gdouble, MAX (src->numel, 1));
      dl_tensor_copy_to_host (src, DL_DTYPE_FLOAT64, values, "print", &error);
    }
  if (error)
    {
      g_autofree gchar *shape = dl_shape_to_string (self->sizes, self->ndim);
      return g_strdup_printf ("tensor(<%s %s values that cannot be read: %s>%s%s)", shape,
                              dl_dtype_get_name (self->dtype), error->message, device_s ? ", " : "",
                              device_s ? device_s : "");
    }
  if (dl_dtype_is_float (self->dtype))
    kind = DL_FORMAT_FLOAT;
  else if (self->dtype == DL_DTYPE_BOOL)
    kind = DL_FORMAT_BOOL;
  else
    kind = DL_FORMAT_INT;
  /* torch names the dtype unless it is implied: the default float dtype,
   * int64 and bool for non-empty tensors; any but the default when empty */
  if (self->dtype != dl_get_default_dtype ()
      && (self->numel == 0 || (self->dtype != DL_DTYPE_INT64 && self->dtype != DL_DTYPE_BOOL)))
    suffixes[n++] = dtype_s = g_strdup_printf ("dtype=torch.%s", dl_dtype_get_name (self->dtype));
  if (self->grad_fn)
    suffixes[n++] = grad_fn_s = g_strdup_printf ("grad_fn=<%s>", dl_node_get_name (self->grad_fn));
  else if (self->requires_grad)
    suffixes[n++] = "requires_grad=True";
  return format_tensor (values, self->sizes, self->ndim, kind, suffixes, summarized, &options);
}
