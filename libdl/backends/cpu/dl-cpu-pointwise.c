/* dl-cpu-pointwise.c: copy/cast, fill, unary and binary kernels.
 *
 * Every kernel is a loop over one run of n elements with byte strides; the
 * driver in dl-cpu-backend.c walks the rest of the loop nest and splits it
 * over threads. Runs whose operands are all contiguous take a separate
 * branch with unit-stride, restrict-qualified pointers that GCC vectorises
 * at -O3; broadcast scalars get their own branch too.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-cpu-private.h"
#include "dl-dtype-private.h"

/* X-macro of the dtypes with a native C type: (NAME, DTYPE, C type) */
#define DL_FOR_NATIVE_DTYPES(X)                                                                    \
  X (f32, DL_DTYPE_FLOAT32, float)                                                                 \
  X (f64, DL_DTYPE_FLOAT64, double)                                                                \
  X (f16, DL_DTYPE_FLOAT16, dl_half)                                                               \
  X (bf16, DL_DTYPE_BFLOAT16, dl_bf16)                                                             \
  X (i32, DL_DTYPE_INT32, gint32)                                                                  \
  X (i64, DL_DTYPE_INT64, gint64)                                                                  \
  X (u8, DL_DTYPE_UINT8, guint8)                                                                   \
  X (b8, DL_DTYPE_BOOL, guint8)

/* loading one element as its natural arithmetic value */
#define LOAD_f32(p) (*(const float *)(p))
#define LOAD_f64(p) (*(const double *)(p))
#define LOAD_f16(p) ((float)*(const dl_half *)(p))
#define LOAD_bf16(p) dl_bf16_to_float (*(const dl_bf16 *)(p))
#define LOAD_i32(p) (*(const gint32 *)(p))
#define LOAD_i64(p) (*(const gint64 *)(p))
#define LOAD_u8(p) (*(const guint8 *)(p))
#define LOAD_b8(p) (*(const guint8 *)(p))

/* storing a value converted to the element type */
#define STORE_f32(p, v) (*(float *)(p) = (float)(v))
#define STORE_f64(p, v) (*(double *)(p) = (double)(v))
#define STORE_f16(p, v) (*(dl_half *)(p) = (dl_half)(v))
#define STORE_bf16(p, v) (*(dl_bf16 *)(p) = dl_float_to_bf16 ((float)(v)))
#define STORE_i32(p, v) (*(gint32 *)(p) = (gint32)(v))
#define STORE_i64(p, v) (*(gint64 *)(p) = (gint64)(v))
#define STORE_u8(p, v) (*(guint8 *)(p) = (guint8)(v))
#define STORE_b8(p, v) (*(guint8 *)(p) = ((v) != 0))

/* ---- copy / cast ---------------------------------------------------- */

/* element sizes, for the contiguous runs */
#define SIZE_f32 4
#define SIZE_f64 8
#define SIZE_f16 2
#define SIZE_bf16 2
#define SIZE_i32 4
#define SIZE_i64 8
#define SIZE_u8 1
#define SIZE_b8 1

/* Contiguous runs with constant strides, which GCC vectorises; cloned per
 * level, so that float16 converts with F16C's vcvtph2ps/vcvtps2ph where the
 * CPU has it (x86-64-v3) instead of libgcc's bit-by-bit calls. */
#define DEFINE_COPY(DN, DD, DT, SN)                                                                \
  DL_CPU_CLONES static void copy_##DN##_##SN (char **data, const gint64 *s, gint64 n,              \
                                              gpointer ctx)                                        \
  {                                                                                                \
    char *d = data[0];                                                                             \
    const char *src = data[1];                                                                     \
    if (s[0] == SIZE_##DN && s[1] == SIZE_##SN)                                                    \
      for (gint64 i = 0; i < n; i++)                                                               \
        STORE_##DN (d + i * SIZE_##DN, LOAD_##SN (src + i * SIZE_##SN));                           \
    else                                                                                           \
      for (gint64 i = 0; i < n; i++)                                                               \
        STORE_##DN (d + i * s[0], LOAD_##SN (src + i * s[1]));                                     \
  }
#define DEFINE_COPY_FROM(SN, SD, ST)                                                               \
  DEFINE_COPY (f32, 0, 0, SN)                                                                      \
  DEFINE_COPY (f64, 0, 0, SN)                                                                      \
  DEFINE_COPY (f16, 0, 0, SN)                                                                      \
  DEFINE_COPY (bf16, 0, 0, SN) DEFINE_COPY (i32, 0, 0, SN) DEFINE_COPY (i64, 0, 0, SN)             \
      DEFINE_COPY (u8, 0, 0, SN) DEFINE_COPY (b8, 0, 0, SN)
DL_FOR_NATIVE_DTYPES (DEFINE_COPY_FROM)

#define COPY_ROW(SN, SD, ST)                                                                       \
  [SD] = { [DL_DTYPE_FLOAT32] = copy_f32_##SN, [DL_DTYPE_FLOAT64] = copy_f64_##SN,                 \
           [DL_DTYPE_FLOAT16] = copy_f16_##SN, [DL_DTYPE_BFLOAT16] = copy_bf16_##SN,               \
           [DL_DTYPE_INT32] = copy_i32_##SN,   [DL_DTYPE_INT64] = copy_i64_##SN,                   \
           [DL_DTYPE_UINT8] = copy_u8_##SN,    [DL_DTYPE_BOOL] = copy_b8_##SN },
/* copy_loops[src][dst] */
static const DlCpuLoop copy_loops[DL_N_DTYPES][DL_N_DTYPES] = { DL_FOR_NATIVE_DTYPES (COPY_ROW) };

static void
copy_same (char **data, const gint64 *s, gint64 n, gpointer ctx)
{
  gsize es = GPOINTER_TO_SIZE (ctx);

  if ((gsize)s[0] == es && (gsize)s[1] == es)
    memcpy (data[0], data[1], n * es);
  else
    for (gint64 i = 0; i < n; i++)
      memcpy (data[0] + i * s[0], data[1] + i * s[1], es);
}

void
dl_cpu_copy (DlBackendContext *ctx, DlIter *iter, DlDType dst_dtype, DlDType src_dtype)
{
  if (dst_dtype == src_dtype)
    dl_cpu_iter_for_each (iter, copy_same, GSIZE_TO_POINTER (dl_dtype_get_size (dst_dtype)));
  else /* a conversion to or from float16 or bfloat16: half the op's cost */
    dl_cpu_iter_for_each_cost (iter, copy_loops[src_dtype][dst_dtype], NULL,
                               (dl_cpu_dtype_cost (src_dtype) + dl_cpu_dtype_cost (dst_dtype)) / 2);
}

/* ---- fill -------------------------------------------------------------- */

typedef struct
{
  gsize es;      /* the element size */
  gboolean zero; /* every byte of the value is 0 */
  union
  {
    guint8 bytes[8];
    guint64 align; /* the STORE_ macros write the value as its own type */
  };
} FillCtx;

/* contiguous runs as 1-, 2-, 4- or 8-byte patterns (any dtype: the bytes
 * are the value's), in the level's widest stores */
DL_CPU_CLONES static void
fill_loop (char **data, const gint64 *s, gint64 n, gpointer ctx)
{
  FillCtx *f = ctx;
  gsize es = f->es;

  if ((gsize)s[0] == es && f->zero)
    {
      memset (data[0], 0, n * es);
      return;
    }
  if ((gsize)s[0] == es)
    switch (es)
      {
        case 1:
          memset (data[0], f->bytes[0], n);
          return;
#define FILL_RUN(N, T)                                                                             \
  case N:                                                                                          \
    {                                                                                              \
      T v, *restrict d = (T *)data[0];                                                             \
      memcpy (&v, f->bytes, N);                                                                    \
      for (gint64 i = 0; i < n; i++)                                                               \
        d[i] = v;                                                                                  \
      return;                                                                                      \
    }
          FILL_RUN (2, guint16)
          FILL_RUN (4, guint32)
          FILL_RUN (8, guint64)
#undef FILL_RUN
        default:
          break;
      }
  for (gint64 i = 0; i < n; i++)
    memcpy (data[0] + i * s[0], f->bytes, es);
}

void
dl_cpu_fill (DlBackendContext *ctx, DlIter *iter, DlDType dtype, gdouble value)
{
  FillCtx f = { .es = dl_dtype_get_size (dtype) };

  switch (dtype)
    {
#define FILL_CASE(N, D, T)                                                                         \
  case D:                                                                                          \
    STORE_##N (f.bytes, value);                                                                    \
    break;
      DL_FOR_NATIVE_DTYPES (FILL_CASE)
#undef FILL_CASE
    }
  f.zero = TRUE;
  for (gsize i = 0; i < sizeof f.bytes; i++)
    f.zero = f.zero && f.bytes[i] == 0;
  dl_cpu_iter_for_each (iter, fill_loop, &f);
}

#define FN DL_CPU_FN

/* ---- unary --------------------------------------------------------------
 * out = f (x); computed in the element type for float32/float64 and in the
 * integer type for neg/abs/relu on integers. float32's transcendental ops
 * (exp, log, sin, tanh, sigmoid, ...: those dl_cpu_vmath_loop() lists)
 * are vector kernels of their own (dl-cpu-vmath.c), and so are float64's
 * exp, expm1, log, log1p, log2, sin, cos, tan, tanh, sigmoid, silu and
 * gelu_tanh (dl_cpu_vmath_loop_f64 ()). */

#define UNARY_FLOAT_OPS(X)                                                                         \
  X (NEG, neg, -x)                                                                                 \
  X (RELU, relu, (x > 0 ? x : (x != x ? x : 0)))                                                   \
  X (ABS, abs, FABSF (x))                                                                          \
  X (SQRT, sqrt, SQRTF (x))

#define UNARY_F64_OPS(X)                                                                           \
  X (EXP, exp, exp (x))                                                                            \
  X (LOG, log, log (x))                                                                            \
  X (TANH, tanh, tanh (x))                                                                         \
  X (SIGMOID, sigmoid, (1 / (1 + exp (-x))))

#define DEFINE_UNARY(OPN, opn, EXPR) DL_CPU_DEFINE_UNARY_LOOP (FN (unary_, opn, TN), T, T, EXPR)

#define T float
#define TN f32
#define FABSF fabsf
#define SQRTF sqrtf
UNARY_FLOAT_OPS (DEFINE_UNARY)
#undef T
#undef TN
#undef FABSF
#undef SQRTF

#define T double
#define TN f64
#define FABSF fabs
#define SQRTF sqrt
UNARY_FLOAT_OPS (DEFINE_UNARY)
UNARY_F64_OPS (DEFINE_UNARY)
#undef T
#undef TN

#define UNARY_INT_OPS(X)                                                                           \
  X (NEG, neg, (T)-x)                                                                              \
  X (RELU, relu, (x > 0 ? x : 0))                                                                  \
  X (ABS, abs, (x < 0 ? (T)-x : x))

#define T gint32
#define TN i32
UNARY_INT_OPS (DEFINE_UNARY)
#undef T
#undef TN
#define T gint64
#define TN i64
UNARY_INT_OPS (DEFINE_UNARY)
#undef T
#undef TN
#define UNARY_UINT_OPS(X)                                                                          \
  X (NEG, neg, (T)-x)                                                                              \
  X (RELU, relu, x)                                                                                \
  X (ABS, abs, x)

#define T guint8
#define TN u8
UNARY_UINT_OPS (DEFINE_UNARY)
#undef T
#undef TN

#define UNARY_ENTRY(OPN, opn, EXPR) [DL_UNARY_##OPN] = FN (unary_, opn, TN),
static const DlCpuLoop unary_loops[DL_N_DTYPES][DL_N_UNARY_OPS] = {
#define TN f32
  [DL_DTYPE_FLOAT32] = { UNARY_FLOAT_OPS (UNARY_ENTRY) },
#undef TN
#define TN f64
  [DL_DTYPE_FLOAT64] = { UNARY_FLOAT_OPS (UNARY_ENTRY) UNARY_F64_OPS (UNARY_ENTRY) },
#undef TN
#define TN i32
  [DL_DTYPE_INT32] = { UNARY_INT_OPS (UNARY_ENTRY) },
#undef TN
#define TN i64
  [DL_DTYPE_INT64] = { UNARY_INT_OPS (UNARY_ENTRY) },
#undef TN
#define TN u8
  [DL_DTYPE_UINT8] = { UNARY_UINT_OPS (UNARY_ENTRY) },
#undef TN
};

/* Each op's time per element on one thread as a multiple of neg's (the
 * cheapest, memory-bound op), measured by bench/grain.py on the AVX-512
 * development machine and rounded; float32 and float64 (float16 and
 * bfloat16: dl_cpu_dtype_cost). Ops not listed cost 1. The grain is DL_CPU_GRAIN / cost
 * elements: float32 sin, at 6, splits from about 5500, float64 sin, at 7,
 * from about 4700. */
static const guint8 unary_costs[DL_N_UNARY_OPS][2] = {
  [DL_UNARY_EXP] = { 2, 3 },       [DL_UNARY_EXPM1] = { 5, 6 },      [DL_UNARY_LOG] = { 3, 5 },
  [DL_UNARY_LOG1P] = { 4, 6 },     [DL_UNARY_LOG2] = { 3, 8 },       [DL_UNARY_SQRT] = { 2, 3 },
  [DL_UNARY_RSQRT] = { 3, 4 },     [DL_UNARY_RECIPROCAL] = { 1, 2 }, [DL_UNARY_SIN] = { 6, 7 },
  [DL_UNARY_COS] = { 6, 7 },       [DL_UNARY_TAN] = { 7, 8 },        [DL_UNARY_TANH] = { 6, 7 },
  [DL_UNARY_SIGMOID] = { 4, 6 },   [DL_UNARY_ERF] = { 7, 60 },       [DL_UNARY_GELU] = { 7, 55 },
  [DL_UNARY_GELU_TANH] = { 5, 8 }, [DL_UNARY_SILU] = { 5, 7 },
  /* libm per element and the special functions (dl-special-math.h):
   * estimates from their operation counts, not measured */
  [DL_UNARY_ASIN] = { 8, 8 },      [DL_UNARY_ACOS] = { 8, 8 },       [DL_UNARY_ATAN] = { 8, 8 },
  [DL_UNARY_SINH] = { 8, 8 },      [DL_UNARY_COSH] = { 8, 8 },       [DL_UNARY_ASINH] = { 10, 10 },
  [DL_UNARY_ACOSH] = { 10, 10 },   [DL_UNARY_ATANH] = { 10, 10 },    [DL_UNARY_LOG10] = { 6, 8 },
  [DL_UNARY_EXP2] = { 4, 6 },      [DL_UNARY_ERFC] = { 10, 30 },     [DL_UNARY_ERFINV] = { 60, 60 },
  [DL_UNARY_LGAMMA] = { 20, 30 },  [DL_UNARY_DIGAMMA] = { 30, 30 },  [DL_UNARY_SINC] = { 8, 8 },
  [DL_UNARY_I0] = { 60, 60 },      [DL_UNARY_I1] = { 60, 60 },       [DL_UNARY_LOGIT] = { 6, 8 },
  [DL_UNARY_POLYGAMMA] = { 60, 60 },
  /* the activations that call libm (dl-cpu-math.c): estimates, as above */
  [DL_UNARY_MISH] = { 12, 14 },    [DL_UNARY_LOGSIGMOID] = { 8, 10 }, [DL_UNARY_TANHSHRINK] = { 6, 7 },
  [DL_UNARY_ELU] = { 5, 6 },
};

/* float16 and bfloat16 ops convert to float32 and back around the float32
 * kernel: a float16 element costs about 12 float32 negs more (F16C), a
 * bfloat16 one about 4 (bench/grain.py's method on float16 and bfloat16
 * tensors: neg 0.95 and 0.28 ns per element, float32's 0.09) */
guint
dl_cpu_dtype_cost (DlDType dtype)
{
  return dtype == DL_DTYPE_FLOAT16 ? 12 : dtype == DL_DTYPE_BFLOAT16 ? 4 : 1;
}

guint
dl_cpu_unary_cost (DlUnaryOp op, DlDType dtype)
{
  guint c;

  if (op < 0 || op >= DL_N_UNARY_OPS || !dl_dtype_is_float (dtype))
    return 1;
  c = MAX (unary_costs[op][dtype == DL_DTYPE_FLOAT64], 1);
  if (dtype == DL_DTYPE_FLOAT16 || dtype == DL_DTYPE_BFLOAT16)
    c += dl_cpu_dtype_cost (dtype);
  return c;
}

void
dl_cpu_unary (DlBackendContext *ctx, DlUnaryOp op, DlIter *iter, DlDType dtype)
{
  DlCpuLoop loop;

  if (dtype == DL_DTYPE_FLOAT32 && (loop = dl_cpu_vmath_loop (op)) != NULL)
    {
      dl_cpu_iter_for_each_cost (iter, loop, NULL, dl_cpu_unary_cost (op, dtype));
      return;
    }
  if (dtype == DL_DTYPE_FLOAT64 && (loop = dl_cpu_vmath_loop_f64 (op)) != NULL)
    {
      dl_cpu_iter_for_each_cost (iter, loop, NULL, dl_cpu_unary_cost (op, dtype));
      return;
    }
  if (op >= DL_UNARY_EXPM1)
    {
      dl_cpu_math_unary (ctx, op, iter, dtype, NULL);
      return;
    }
  loop = unary_loops[dtype][op];
  g_return_if_fail (loop != NULL); /* the ops layer promotes first */
  dl_cpu_iter_for_each_cost (iter, loop, NULL, dl_cpu_unary_cost (op, dtype));
}

/* ---- binary -------------------------------------------------------------
 * out = a OP b. ADD and SUB scale b by alpha. Comparisons write bool. */

#define BINARY_ARITH_OPS(X)                                                                        \
  X (ADD, add, (a + alpha * b))                                                                    \
  X (SUB, sub, (a - alpha * b))                                                                    \
  X (MUL, mul, (a * b))                                                                            \
  X (DIV, div, (a / b))                                                                            \
  X (MAXIMUM, maximum, (a != a ? a : (b != b ? b : (a > b ? a : b))))                              \
  X (MINIMUM, minimum, (a != a ? a : (b != b ? b : (a < b ? a : b))))

#define BINARY_CMP_OPS(X)                                                                          \
  X (EQ, eq, (a == b))                                                                             \
  X (NE, ne, (a != b))                                                                             \
  X (LT, lt, (a < b))                                                                              \
  X (LE, le, (a <= b))                                                                             \
  X (GT, gt, (a > b))                                                                              \
  X (GE, ge, (a >= b))

#define DEFINE_BINARY(OPN, opn, EXPR, OT)                                                          \
  DL_CPU_DEFINE_BINARY_LOOP (FN (binary_, opn, TN), T, OT, EXPR)
#define DEFINE_ARITH(OPN, opn, EXPR) DEFINE_BINARY (OPN, opn, EXPR, T)
#define DEFINE_CMP(OPN, opn, EXPR) DEFINE_BINARY (OPN, opn, EXPR, guint8)

#define T float
#define TN f32
BINARY_ARITH_OPS (DEFINE_ARITH)
BINARY_CMP_OPS (DEFINE_CMP)
#undef T
#undef TN
#define T double
#define TN f64
BINARY_ARITH_OPS (DEFINE_ARITH)
BINARY_CMP_OPS (DEFINE_CMP)
#undef T
#undef TN
#define T gint32
#define TN i32
BINARY_ARITH_OPS (DEFINE_ARITH)
BINARY_CMP_OPS (DEFINE_CMP)
#undef T
#undef TN
#define T gint64
#define TN i64
BINARY_ARITH_OPS (DEFINE_ARITH)
BINARY_CMP_OPS (DEFINE_CMP)
#undef T
#undef TN
#define T guint8
#define TN u8
BINARY_ARITH_OPS (DEFINE_ARITH)
BINARY_CMP_OPS (DEFINE_CMP)
#undef T
#undef TN

/* bool: add is or, mul is and; comparisons as on bytes */
#define BOOL_OPS(X)                                                                                \
  X (ADD, add, (a | b))                                                                            \
  X (MUL, mul, (a & b))                                                                            \
  X (MAXIMUM, maximum, (a | b))                                                                    \
  X (MINIMUM, minimum, (a & b))
#define T guint8
#define TN b8
BOOL_OPS (DEFINE_ARITH)
#undef T
#undef TN

#define BINARY_ENTRY(OPN, opn, EXPR) [DL_BINARY_##OPN] = FN (binary_, opn, TN),
static const DlCpuLoop binary_loops[DL_N_DTYPES][DL_N_BINARY_OPS] = {
#define TN f32
  [DL_DTYPE_FLOAT32] = { BINARY_ARITH_OPS (BINARY_ENTRY) BINARY_CMP_OPS (BINARY_ENTRY) },
#undef TN
#define TN f64
  [DL_DTYPE_FLOAT64] = { BINARY_ARITH_OPS (BINARY_ENTRY) BINARY_CMP_OPS (BINARY_ENTRY) },
#undef TN
#define TN i32
  [DL_DTYPE_INT32] = { BINARY_ARITH_OPS (BINARY_ENTRY) BINARY_CMP_OPS (BINARY_ENTRY) },
#undef TN
#define TN i64
  [DL_DTYPE_INT64] = { BINARY_ARITH_OPS (BINARY_ENTRY) BINARY_CMP_OPS (BINARY_ENTRY) },
#undef TN
#define TN u8
  [DL_DTYPE_UINT8] = { BINARY_ARITH_OPS (BINARY_ENTRY) BINARY_CMP_OPS (BINARY_ENTRY) },
#undef TN
#define TN b8
  [DL_DTYPE_BOOL] = { BOOL_OPS (BINARY_ENTRY)
#undef TN
#define TN u8
                          BINARY_CMP_OPS (BINARY_ENTRY) },
#undef TN
};

void
dl_cpu_binary (DlBackendContext *ctx, DlBinaryOp op, DlIter *iter, DlDType dtype, gdouble alpha)
{
  DlCpuLoop loop;

  if (op >= DL_BINARY_POW)
    {
      dl_cpu_math_binary (ctx, op, iter, dtype);
      return;
    }
  loop = binary_loops[dtype][op];
  g_return_if_fail (loop != NULL); /* the ops layer promotes first */
  dl_cpu_iter_for_each_cost (iter, loop, &alpha, dl_cpu_dtype_cost (dtype));
}
