/* dl-cpu-ternary.c: kernels over three inputs: where, lerp, addcmul,
 * addcdiv and clamp (see DlTernaryOp in dl-backend.h for the operands).
 *
 * The formulas are written as the composite ops they replace compute them,
 * one rounding per operation in the compute type (float for the 16-bit
 * floats), so that a fused kernel gives the same bits as the chain of
 * binary kernels: this file must not contract a * b + c into an FMA (the
 * pragma below; it is also built without target clones). addcmul is the
 * exception: it has no chain to match but PyTorch's own kernel, whose
 * AVX2 build fuses the last product with the sum, so it calls fma ()
 * explicitly (and has target clones, where that is one instruction).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

#include "dl-cpu-private.h"

/* ---- where: out = cond ? a : b, a bit copy of elements of any dtype ---- */

#define DEFINE_WHERE(NAME, T)                                                                      \
  static void NAME (char **data, const gint64 *s, gint64 n, gpointer ctx)                          \
  {                                                                                                \
    if (s[0] == sizeof (T) && s[1] == 1 && s[2] == sizeof (T) && s[3] == sizeof (T))               \
      {                                                                                            \
        T *restrict o = (T *)data[0];                                                              \
        const guint8 *restrict c = (const guint8 *)data[1];                                        \
        const T *restrict a = (const T *)data[2];                                                  \
        const T *restrict b = (const T *)data[3];                                                  \
        for (gint64 i = 0; i < n; i++)                                                             \
          o[i] = c[i] ? a[i] : b[i];                                                               \
      }                                                                                            \
    else if (s[0] == sizeof (T) && s[1] == 1 && s[2] == 0 && s[3] == sizeof (T))                   \
      {                                                                                            \
        /* masked_fill: a broadcast value */                                                       \
        T *restrict o = (T *)data[0];                                                              \
        const guint8 *restrict c = (const guint8 *)data[1];                                        \
        const T a = *(const T *)data[2];                                                           \
        const T *restrict b = (const T *)data[3];                                                  \
        for (gint64 i = 0; i < n; i++)                                                             \
          o[i] = c[i] ? a : b[i];                                                                  \
      }                                                                                            \
    else                                                                                           \
      for (gint64 i = 0; i < n; i++)                                                               \
        *(T *)(data[0] + i * s[0]) = *(const guint8 *)(data[1] + i * s[1])                         \
                                         ? *(const T *)(data[2] + i * s[2])                        \
                                         : *(const T *)(data[3] + i * s[3]);                       \
  }

DEFINE_WHERE (where_1, guint8)
DEFINE_WHERE (where_2, guint16)
DEFINE_WHERE (where_4, guint32)
DEFINE_WHERE (where_8, guint64)

/* ---- lerp, addcmul, addcdiv --------------------------------------------
 * Elements of type T computed in CT (float for the 16-bit floats), loaded
 * and stored with LOAD and STORE. EXPR computes from a, b, c (the third
 * input, or the number for the scalar forms) and v (params[0]). */

#define LOAD_NATIVE(T, p) (*(const T *)(p))
#define STORE_NATIVE(T, p, x) (*(T *)(p) = (x))
#define LOAD_F16(T, p) ((float)*(const dl_half *)(p))
#define STORE_F16(T, p, x) (*(dl_half *)(p) = (dl_half)(x))
#define LOAD_BF16(T, p) dl_bf16_to_float (*(const dl_bf16 *)(p))
#define STORE_BF16(T, p, x) (*(dl_bf16 *)(p) = dl_float_to_bf16 (x))

/* three inputs: operands (out, a, b, c); ATTR: target clones or nothing */
#define DEFINE_LOOP3(NAME, T, CT, LOAD, STORE, EXPR)                                               \
  DEFINE_LOOP3_ATTR (, NAME, T, CT, LOAD, STORE, EXPR)
#define DEFINE_LOOP3_ATTR(ATTR, NAME, T, CT, LOAD, STORE, EXPR)                                    \
  ATTR static void NAME (char **data, const gint64 *s, gint64 n, gpointer ctx)                     \
  {                                                                                                \
    const CT v = ctx ? (CT) * (const gdouble *)ctx : (CT)0;                                        \
    (void)v;                                                                                       \
    if (s[0] == sizeof (T) && s[1] == sizeof (T) && s[2] == sizeof (T) && s[3] == sizeof (T))      \
      {                                                                                            \
        char *restrict o = data[0];                                                                \
        const char *restrict pa = data[1], *restrict pb = data[2], *restrict pc = data[3];         \
        for (gint64 i = 0; i < n; i++)                                                             \
          {                                                                                        \
            CT a = LOAD (T, pa + i * sizeof (T)), b = LOAD (T, pb + i * sizeof (T));               \
            CT c = LOAD (T, pc + i * sizeof (T));                                                  \
            STORE (T, o + i * sizeof (T), (EXPR));                                                 \
          }                                                                                        \
      }                                                                                            \
    else                                                                                           \
      for (gint64 i = 0; i < n; i++)                                                               \
        {                                                                                          \
          CT a = LOAD (T, data[1] + i * s[1]), b = LOAD (T, data[2] + i * s[2]);                   \
          CT c = LOAD (T, data[3] + i * s[3]);                                                     \
          STORE (T, data[0] + i * s[0], (EXPR));                                                   \
        }                                                                                          \
  }

/* two inputs and a number: operands (out, a, b), c is params[0] */
#define DEFINE_LOOP2(NAME, T, CT, LOAD, STORE, EXPR)                                               \
  static void NAME (char **data, const gint64 *s, gint64 n, gpointer ctx)                          \
  {                                                                                                \
    const CT c = (CT) * (const gdouble *)ctx;                                                      \
    if (s[0] == sizeof (T) && s[1] == sizeof (T) && s[2] == sizeof (T))                            \
      {                                                                                            \
        char *restrict o = data[0];                                                                \
        const char *restrict pa = data[1], *restrict pb = data[2];                                 \
        for (gint64 i = 0; i < n; i++)                                                             \
          {                                                                                        \
            CT a = LOAD (T, pa + i * sizeof (T)), b = LOAD (T, pb + i * sizeof (T));               \
            STORE (T, o + i * sizeof (T), (EXPR));                                                 \
          }                                                                                        \
      }                                                                                            \
    else                                                                                           \
      for (gint64 i = 0; i < n; i++)                                                               \
        {                                                                                          \
          CT a = LOAD (T, data[1] + i * s[1]), b = LOAD (T, data[2] + i * s[2]);                   \
          STORE (T, data[0] + i * s[0], (EXPR));                                                   \
        }                                                                                          \
  }

/* a + w (b - a), as sub, mul and add compute it (w from c) */
#define LERP_EXPR(CT) (a + c * (b - a))
/* minimum (maximum (a, b), c), as the binary maximum and minimum kernels
 * compute them (a NaN in any operand gives NaN), written as two selects so
 * that GCC vectorises the loop */
#define CLAMP_LOW(x, lo) ((lo) != (lo) ? (lo) : ((lo) > (x) ? (lo) : (x)))
#define CLAMP_HIGH(x, hi) ((hi) != (hi) ? (hi) : ((hi) < (x) ? (hi) : (x)))
#define CLAMP_EXPR(CT) CLAMP_HIGH (CLAMP_LOW (a, b), c)
/* a + v * b * c and a + v * b / c, as PyTorch writes them; addcmul's
 * (v * b) * c + a in one rounding, as PyTorch's AVX2 kernel (contracted
 * by its compiler) gives it */
#define ADDCMUL_EXPR(CT) _Generic((a), float : fmaf, default : fma) (v * b, c, a)
#define ADDCDIV_EXPR(CT) (a + v * b / c)

#define DEFINE_FLOAT_OPS(TN, T, CT, LOAD, STORE)                                                   \
  DEFINE_LOOP3 (lerp_##TN, T, CT, LOAD, STORE, LERP_EXPR (CT))                                     \
  DEFINE_LOOP2 (lerp_scalar_##TN, T, CT, LOAD, STORE, LERP_EXPR (CT))                              \
  DEFINE_LOOP3_ATTR (DL_CPU_CLONES, addcmul_##TN, T, CT, LOAD, STORE, ADDCMUL_EXPR (CT))           \
  DEFINE_LOOP3 (addcdiv_##TN, T, CT, LOAD, STORE, ADDCDIV_EXPR (CT))                               \
  DEFINE_LOOP3 (clamp_strided_##TN, T, CT, LOAD, STORE, CLAMP_EXPR (CT))

DEFINE_FLOAT_OPS (f32, float, float, LOAD_NATIVE, STORE_NATIVE)
DEFINE_FLOAT_OPS (f64, double, double, LOAD_NATIVE, STORE_NATIVE)
DEFINE_FLOAT_OPS (f16, dl_half, float, LOAD_F16, STORE_F16)
DEFINE_FLOAT_OPS (bf16, dl_bf16, float, LOAD_BF16, STORE_BF16)

/* clamp with tensor bounds: a contiguous x and output, each bound
 * contiguous or one broadcast element (a missing bound is a 0-d infinity),
 * unrolled per case so that every case vectorises; other layouts take the
 * strided loop. */
#define CLAMP_RUN(T, o, x, lo, hi, n, LO_STEP, HI_STEP)                                            \
  for (gint64 i = 0; i < (n); i++)                                                                 \
    {                                                                                              \
      T a = (x)[i], b = (lo)[i * (LO_STEP)], c = (hi)[i * (HI_STEP)];                              \
      (o)[i] = CLAMP_EXPR (T);                                                                     \
    }

#define DEFINE_CLAMP_TENSOR(TN, T)                                                                 \
  DL_CPU_CLONES static void clamp_##TN (char **data, const gint64 *s, gint64 n, gpointer ctx)      \
  {                                                                                                \
    T *o = (T *)data[0];                                                                           \
    const T *x = (const T *)data[1], *lo = (const T *)data[2], *hi = (const T *)data[3];           \
    if (s[0] != sizeof (T) || s[1] != sizeof (T) || (s[2] != 0 && s[2] != sizeof (T))              \
        || (s[3] != 0 && s[3] != sizeof (T)))                                                      \
      clamp_strided_##TN (data, s, n, ctx);                                                        \
    else if (s[2] && s[3])                                                                         \
      CLAMP_RUN (T, o, x, lo, hi, n, 1, 1)                                                         \
    else if (s[2])                                                                                 \
      CLAMP_RUN (T, o, x, lo, hi, n, 1, 0)                                                         \
    else if (s[3])                                                                                 \
      CLAMP_RUN (T, o, x, lo, hi, n, 0, 1)                                                         \
    else                                                                                           \
      CLAMP_RUN (T, o, x, lo, hi, n, 0, 0)                                                         \
  }

DEFINE_CLAMP_TENSOR (f32, float)
DEFINE_CLAMP_TENSOR (f64, double)
#define clamp_f16 clamp_strided_f16
#define clamp_bf16 clamp_strided_bf16

/* integers: addcmul wraps around as PyTorch's does, computed in the
 * unsigned type of the width (where C defines overflow); v is the value
 * converted to the dtype, handed over as an int64 (ctx points at it). */
#define DEFINE_INT_ADDCMUL(TN, T, UT)                                                              \
  static void addcmul_##TN (char **data, const gint64 *s, gint64 n, gpointer ctx)                  \
  {                                                                                                \
    const UT v = (UT) * (const gint64 *)ctx;                                                       \
    for (gint64 i = 0; i < n; i++)                                                                 \
      {                                                                                            \
        UT a = (UT) * (const T *)(data[1] + i * s[1]), b = (UT) * (const T *)(data[2] + i * s[2]); \
        UT c = (UT) * (const T *)(data[3] + i * s[3]);                                             \
        *(T *)(data[0] + i * s[0]) = (T)(UT)(a + v * b * c);                                       \
      }                                                                                            \
  }

DEFINE_INT_ADDCMUL (i32, gint32, guint32)
DEFINE_INT_ADDCMUL (i64, gint64, guint64)
DEFINE_INT_ADDCMUL (u8, guint8, guint8)

/* clamp with number bounds: operands (out, x), ctx the two bounds. With
 * bounds that are not NaN, "lo > x ? lo : x" and "hi < y ? hi : y" are
 * exactly x86's maxps and minps (the second operand, x, wins an unordered
 * compare, so a NaN in x stays NaN): two instructions a vector, in the
 * AVX2 clone eight floats at a time. A NaN bound takes the _nan loops. */
#define CLAMP_BOUND(T, k) ((T)((const gdouble *)ctx)[k])
#define CLAMP_NUMBERS(T, x)                                                                        \
  ({                                                                                               \
    T y_ = CLAMP_BOUND (T, 0) > (x) ? CLAMP_BOUND (T, 0) : (x);                                    \
    CLAMP_BOUND (T, 1) < y_ ? CLAMP_BOUND (T, 1) : y_;                                             \
  })
#define CLAMP_NUMBERS_NAN(T, x) CLAMP_HIGH (CLAMP_LOW (x, CLAMP_BOUND (T, 0)), CLAMP_BOUND (T, 1))

DL_CPU_DEFINE_UNARY_LOOP (clamp_scalar_f32, float, float, CLAMP_NUMBERS (float, x))
DL_CPU_DEFINE_UNARY_LOOP (clamp_scalar_f64, double, double, CLAMP_NUMBERS (double, x))
DL_CPU_DEFINE_UNARY_LOOP (clamp_scalar_nan_f32, float, float, CLAMP_NUMBERS_NAN (float, x))
DL_CPU_DEFINE_UNARY_LOOP (clamp_scalar_nan_f64, double, double, CLAMP_NUMBERS_NAN (double, x))

typedef struct
{
  DlCpuLoop f32, f64, f16, bf16;
} FloatLoops;

static const FloatLoops float_loops[] = {
  [DL_TERNARY_LERP] = { lerp_f32, lerp_f64, lerp_f16, lerp_bf16 },
  [DL_TERNARY_LERP_SCALAR]
  = { lerp_scalar_f32, lerp_scalar_f64, lerp_scalar_f16, lerp_scalar_bf16 },
  [DL_TERNARY_ADDCMUL] = { addcmul_f32, addcmul_f64, addcmul_f16, addcmul_bf16 },
  [DL_TERNARY_ADDCDIV] = { addcdiv_f32, addcdiv_f64, addcdiv_f16, addcdiv_bf16 },
  [DL_TERNARY_CLAMP] = { clamp_f32, clamp_f64, clamp_f16, clamp_bf16 },
};

void
dl_cpu_ternary (DlBackendContext *ctx,
                DlTernaryOp op,
                DlIter *iter,
                DlDType dtype,
                const gdouble *params)
{
  const FloatLoops *fl;
  gdouble v;

  if (op == DL_TERNARY_WHERE)
    {
      static const DlCpuLoop where_loops[9]
          = { [1] = where_1, [2] = where_2, [4] = where_4, [8] = where_8 };
      dl_cpu_iter_for_each (iter, where_loops[dl_dtype_get_size (dtype)], NULL);
      return;
    }
  g_return_if_fail (params != NULL);
  if (op == DL_TERNARY_CLAMP_SCALAR)
    {
      gboolean nan = isnan (params[0]) || isnan (params[1]);
      DlCpuLoop loop = dtype == DL_DTYPE_FLOAT32 ? (nan ? clamp_scalar_nan_f32 : clamp_scalar_f32)
                                                 : (nan ? clamp_scalar_nan_f64 : clamp_scalar_f64);

      g_return_if_fail (dtype == DL_DTYPE_FLOAT32 || dtype == DL_DTYPE_FLOAT64);
      dl_cpu_iter_for_each (iter, loop, (gpointer)params);
      return;
    }
  v = params[0];
  if (op == DL_TERNARY_ADDCMUL && !dl_dtype_is_floating_point (dtype))
    {
      gint64 iv = (gint64)v;
      static const DlCpuLoop int_loops[DL_N_DTYPES] = {
        [DL_DTYPE_INT32] = addcmul_i32,
        [DL_DTYPE_INT64] = addcmul_i64,
        [DL_DTYPE_UINT8] = addcmul_u8,
      };

      g_return_if_fail (int_loops[dtype] != NULL); /* the ops layer checks the dtype first */
      dl_cpu_iter_for_each (iter, int_loops[dtype], &iv);
      return;
    }
  fl = &float_loops[op];
  switch (dtype)
    {
      case DL_DTYPE_FLOAT32:
        dl_cpu_iter_for_each (iter, fl->f32, &v);
        break;
      case DL_DTYPE_FLOAT64:
        dl_cpu_iter_for_each (iter, fl->f64, &v);
        break;
      case DL_DTYPE_FLOAT16:
        dl_cpu_iter_for_each (iter, fl->f16, &v);
        break;
      case DL_DTYPE_BFLOAT16:
        dl_cpu_iter_for_each (iter, fl->bf16, &v);
        break;
      default:
        g_return_if_reached (); /* the ops layer checks the dtype first */
    }
}
