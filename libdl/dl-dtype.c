/* dl-dtype.c
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-dtype.h"
#include "dl-error.h"

static const struct
{
  gsize size;
  const gchar *name;
} dtype_info[DL_N_DTYPES] = {
  [DL_DTYPE_FLOAT32] = { 4, "float32" }, [DL_DTYPE_FLOAT64] = { 8, "float64" },
  [DL_DTYPE_FLOAT16] = { 2, "float16" }, [DL_DTYPE_BFLOAT16] = { 2, "bfloat16" },
  [DL_DTYPE_INT32] = { 4, "int32" },     [DL_DTYPE_INT64] = { 8, "int64" },
  [DL_DTYPE_UINT8] = { 1, "uint8" },     [DL_DTYPE_BOOL] = { 1, "bool" },
};

static gint default_dtype = DL_DTYPE_FLOAT32;

/**
 * dl_dtype_get_size:
 * @dtype: a #DlDType
 *
 * Gives the number of bytes one element of @dtype takes, as
 * `torch.dtype.itemsize`: 4 for %DL_DTYPE_FLOAT32, 8 for %DL_DTYPE_INT64, 1
 * for %DL_DTYPE_BOOL.
 *
 * Returns: the size of one element of @dtype in bytes
 *
 * Since: 0.1
 */
gsize
dl_dtype_get_size (DlDType dtype)
{
  g_return_val_if_fail ((guint)dtype < DL_N_DTYPES, 0);
  return dtype_info[dtype].size;
}

/**
 * dl_dtype_get_name:
 * @dtype: a #DlDType
 *
 * Gives the name PyTorch prints for @dtype, without the `torch.` prefix:
 * "float32", "int64", "bool". The string is static. Messages and
 * dl_tensor_to_string() use these names.
 *
 * Returns: (transfer none): PyTorch's name of @dtype, such as "float32"
 *
 * Since: 0.1
 */
const gchar *
dl_dtype_get_name (DlDType dtype)
{
  g_return_val_if_fail ((guint)dtype < DL_N_DTYPES, NULL);
  return dtype_info[dtype].name;
}

/**
 * dl_dtype_is_floating_point:
 * @dtype: a #DlDType
 *
 * Says whether @dtype holds floating-point numbers, as
 * `torch.dtype.is_floating_point`. Only floating-point tensors can require
 * grad, and random and reduction ops such as dl_randn() and dl_tensor_mean()
 * need one.
 *
 * Returns: whether @dtype is one of the floating-point types
 *
 * Since: 0.1
 */
gboolean
dl_dtype_is_floating_point (DlDType dtype)
{
  return dtype == DL_DTYPE_FLOAT32 || dtype == DL_DTYPE_FLOAT64 || dtype == DL_DTYPE_FLOAT16
         || dtype == DL_DTYPE_BFLOAT16;
}

/**
 * dl_dtype_from_name:
 * @name: a dtype name such as "float32", "float", "long" or "half"
 * @dtype: (out): the dtype named
 *
 * Looks a dtype up by its name or one of PyTorch's aliases.
 *
 * Returns: %TRUE if @name names a dtype
 *
 * Since: 0.1
 */
gboolean
dl_dtype_from_name (const gchar *name, DlDType *dtype)
{
  static const struct
  {
    const gchar *alias;
    DlDType dtype;
  } aliases[] = {
    { "float", DL_DTYPE_FLOAT32 }, { "double", DL_DTYPE_FLOAT64 }, { "half", DL_DTYPE_FLOAT16 },
    { "int", DL_DTYPE_INT32 },     { "long", DL_DTYPE_INT64 },
  };

  g_return_val_if_fail (name != NULL, FALSE);
  for (guint i = 0; i < DL_N_DTYPES; i++)
    if (g_str_equal (name, dtype_info[i].name))
      {
        *dtype = i;
        return TRUE;
      }
  for (guint i = 0; i < G_N_ELEMENTS (aliases); i++)
    if (g_str_equal (name, aliases[i].alias))
      {
        *dtype = aliases[i].dtype;
        return TRUE;
      }
  return FALSE;
}

static gint
float_rank (DlDType dtype)
{
  switch (dtype)
    {
      case DL_DTYPE_FLOAT16:
      case DL_DTYPE_BFLOAT16:
        return 1;
      case DL_DTYPE_FLOAT32:
        return 2;
      case DL_DTYPE_FLOAT64:
        return 3;
      default:
        return 0;
    }
}

static gint
int_rank (DlDType dtype)
{
  switch (dtype)
    {
      case DL_DTYPE_BOOL:
        return 0;
      case DL_DTYPE_UINT8:
        return 1;
      case DL_DTYPE_INT32:
        return 2;
      case DL_DTYPE_INT64:
        return 3;
      default:
        return -1;
    }
}

/**
 * dl_dtype_promote:
 * @a: a #DlDType
 * @b: another #DlDType
 *
 * The dtype that an op on tensors of dtypes @a and @b computes in, by
 * PyTorch's promotion rules (torch.promote_types): bool < integers <
 * floating point; within a category the wider type wins; float16 with
 * bfloat16 gives float32.
 *
 * Returns: the promoted dtype
 *
 * Since: 0.1
 */
DlDType
dl_dtype_promote (DlDType a, DlDType b)
{
  gint fa = float_rank (a), fb = float_rank (b);

  if (a == b)
    return a;
  if (fa && fb)
    {
      if (fa == fb)
        return DL_DTYPE_FLOAT32; /* float16 with bfloat16 */
      return fa > fb ? a : b;
    }
  if (fa)
    return a;
  if (fb)
    return b;
  return int_rank (a) > int_rank (b) ? a : b;
}

/**
 * dl_get_default_dtype:
 *
 * Gives the dtype that the creation functions of the bindings use for
 * floating-point data when none is given, as `torch.get_default_dtype ()`:
 * %DL_DTYPE_FLOAT32 until dl_set_default_dtype() changes it.
 *
 * Returns: the dtype that creation functions use for floating-point values
 *   when none is given (float32 unless changed)
 *
 * Since: 0.1
 */
DlDType
dl_get_default_dtype (void)
{
  return g_atomic_int_get (&default_dtype);
}

/**
 * dl_set_default_dtype:
 * @dtype: a floating-point #DlDType
 * @error: return location for a #GError
 *
 * Sets the default floating-point dtype, as torch.set_default_dtype does.
 *
 * Returns: %TRUE on success, %FALSE if @dtype is not floating point
 *
 * Since: 0.1
 */
gboolean
dl_set_default_dtype (DlDType dtype, GError **error)
{
  if ((guint)dtype >= DL_N_DTYPES || !dl_dtype_is_floating_point (dtype))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                   "set_default_dtype: only floating-point dtypes are supported as default, got %s",
                   (guint)dtype < DL_N_DTYPES ? dtype_info[dtype].name : "an invalid dtype");
      return FALSE;
    }
  g_atomic_int_set (&default_dtype, dtype);
  return TRUE;
}
