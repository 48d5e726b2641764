/* dl-backend.h: the private device interface every backend fills.
 *
 * Ops dispatch through this vtable; nothing above it names OpenBLAS or CUDA.
 * A backend sees raw pointers, element sizes and byte strides only, never a
 * GObject. Every slot takes the device's DlBackendContext first.
 *
 * The memory slots (raw_alloc, raw_free, copy_to_host, copy_from_host) are
 * required; every other slot may be NULL: the op that needs it then fails
 * with DL_ERROR_NOT_SUPPORTED naming the op and the device (the ops layer
 * asks through DL_TENSOR_BACKEND in ops/dl-ops-private.h), so a partial
 * backend fails politely. synchronize is NULL for a backend whose kernels
 * run synchronously.
 *
 * The pieces, each described where it is defined:
 *   DlIter (dl-iter.h)  the strided loop nest of the elementwise kernels,
 *                       over any number of operands
 *   DlBackendContext    what every slot receives first: the device's
 *                       backend, index, stream, state and kernel status
 *   DlBackend           the vtable
 *   DlKernelStatus      how kernels report failed checks with no host
 *                       round trip per call
 *   DlGemmArgs          a batch of matrix products for gemm_batched
 *   DlDeviceTypeInfo    how a backend registers its device type with the
 *                       device registry (dl_device_register_type)
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>
#include "dl-dtype.h"
#include "dl-device.h"
#include "dl-iter.h"

G_BEGIN_DECLS

typedef enum
{
  DL_UNARY_NEG,
  DL_UNARY_EXP,
  DL_UNARY_LOG,
  DL_UNARY_RELU,
  DL_UNARY_ABS,
  DL_UNARY_SQRT,
  DL_UNARY_TANH,
  DL_UNARY_SIGMOID,
  /* the math library (dl-cpu-math.c); floating-point kernels unless noted */
  DL_UNARY_EXPM1,
  DL_UNARY_LOG1P,
  DL_UNARY_LOG2,
  DL_UNARY_RSQRT,
  DL_UNARY_SIN,
  DL_UNARY_COS,
  DL_UNARY_TAN,
  DL_UNARY_GELU,      /* exact: x Phi (x) */
  DL_UNARY_GELU_TANH, /* the tanh approximation */
  DL_UNARY_SILU,
  DL_UNARY_SIGN, /* also integer and bool */
  DL_UNARY_FLOOR,
  DL_UNARY_CEIL,
  DL_UNARY_ROUND, /* half to even */
  DL_UNARY_TRUNC,
  DL_UNARY_FRAC,
  DL_UNARY_RECIPROCAL,
  DL_UNARY_ERF,
  DL_UNARY_BITWISE_NOT, /* integer and bool only */
  DL_UNARY_ASIN,
  DL_UNARY_ACOS,
  DL_UNARY_ATAN,
  DL_UNARY_SINH,
  DL_UNARY_COSH,
  DL_UNARY_ASINH,
  DL_UNARY_ACOSH,
  DL_UNARY_ATANH,
  DL_UNARY_LOG10,
  DL_UNARY_EXP2,
  DL_UNARY_ERFC,
  DL_UNARY_ERFINV,
  DL_UNARY_LGAMMA,
  DL_UNARY_DIGAMMA,
  DL_UNARY_DEG2RAD,
  DL_UNARY_RAD2DEG,
  DL_UNARY_SINC,
  DL_UNARY_I0, /* the modified Bessel functions of the first kind */
  DL_UNARY_I1,
  DL_UNARY_SQUARE,      /* also integer */
  DL_UNARY_HARDSWISH,   /* x relu6 (x + 3) / 6 */
  DL_UNARY_HARDSIGMOID, /* relu6 (x + 3) / 6 */
  DL_UNARY_MISH,        /* x tanh (softplus (x)) */
  DL_UNARY_LOGSIGMOID,  /* ln sigmoid (x) = min (x, 0) - ln (1 + e^-|x|) */
  DL_UNARY_SOFTSIGN,    /* x / (1 + |x|) */
  DL_UNARY_TANHSHRINK,  /* x - tanh (x) */
  /* predicates: the output operand is bool */
  DL_UNARY_ISNAN,
  DL_UNARY_ISINF,
  DL_UNARY_ISFINITE,
  DL_UNARY_ISNEGINF,
  DL_UNARY_ISPOSINF,
  DL_UNARY_SIGNBIT,
  /* with parameters, through unary_params: (nan, posinf, neginf) */
  DL_UNARY_NAN_TO_NUM,
  DL_UNARY_LEAKY_RELU, /* (negative_slope): x > 0 ? x : x * negative_slope; floats */
  DL_UNARY_LOGIT,      /* (eps): ln (x / (1 - x)), x clamped to [eps, 1 - eps] if eps >= 0 */
  DL_UNARY_POLYGAMMA,  /* (n), n >= 1: the n-th derivative of digamma */
  DL_UNARY_HARDTANH,   /* (min, max): min (max (x, min), max); NaN stays NaN */
  DL_UNARY_ELU,        /* (alpha, scale, input_scale): scale x for x > 0, else
                        * scale alpha (e^(input_scale x) - 1) */
  DL_UNARY_HARDSHRINK, /* (lambd): x where |x| > lambd, else 0 */
  DL_UNARY_SOFTSHRINK, /* (lambd): x - lambd above lambd, x + lambd below -lambd, else 0 */
  DL_UNARY_THRESHOLD,  /* (threshold, value): x where x > threshold, else value */
  DL_N_UNARY_OPS
} DlUnaryOp;

typedef enum
{
  DL_BINARY_ADD, /* a + alpha * b */
  DL_BINARY_SUB, /* a - alpha * b */
  DL_BINARY_MUL,
  DL_BINARY_DIV,
  DL_BINARY_MAXIMUM,
  DL_BINARY_MINIMUM,
  /* comparisons: the output operand is bool, the inputs are compute dtype */
  DL_BINARY_EQ,
  DL_BINARY_NE,
  DL_BINARY_LT,
  DL_BINARY_LE,
  DL_BINARY_GT,
  DL_BINARY_GE,
  /* the math library (dl-cpu-math.c) */
  DL_BINARY_POW,
  DL_BINARY_FLOOR_DIVIDE, /* integers: the ops layer rules out b == 0 */
  DL_BINARY_TRUNC_DIVIDE, /* trunc (a / b); integers: as FLOOR_DIVIDE */
  DL_BINARY_REMAINDER,    /* with the sign of b, as Python's % */
  DL_BINARY_ATAN2,        /* floating point only */
  DL_BINARY_BITWISE_AND,  /* integer and bool only */
  DL_BINARY_BITWISE_OR,
  DL_BINARY_BITWISE_XOR,
  DL_BINARY_FMOD,       /* C's fmod: the sign of a; integers: the ops layer rules out b == 0 */
  DL_BINARY_HYPOT,      /* floating point only */
  DL_BINARY_COPYSIGN,   /* floating point only */
  DL_BINARY_XLOGY,      /* a ln b, 0 where a == 0 unless b is NaN; floating point only */
  DL_BINARY_FMAX,       /* the larger, a NaN losing to a number; bool: or */
  DL_BINARY_FMIN,       /* the smaller, a NaN losing to a number; bool: and */
  DL_BINARY_HEAVISIDE,  /* a < 0: 0, a == 0: b, a > 0: 1; every dtype */
  DL_BINARY_GCD,        /* integers only; non-negative */
  DL_BINARY_LCM,        /* integers only; |a b| / gcd, 0 when either is */
  DL_BINARY_NEXTAFTER,  /* floating point only */
  DL_BINARY_LOGADDEXP,  /* ln (e^a + e^b); floating point only */
  DL_BINARY_LOGADDEXP2, /* log2 (2^a + 2^b); floating point only */
  DL_BINARY_LSHIFT,     /* integers only; shifted as C's int (int64: int64) with the
                         * count masked to its width, as x86 and PyTorch's CPU do */
  DL_BINARY_RSHIFT,     /* integers only; arithmetic for signed types */
  DL_N_BINARY_OPS
} DlBinaryOp;

#define DL_BINARY_IS_COMPARISON(op) ((op) >= DL_BINARY_EQ && (op) <= DL_BINARY_GE)

/* Kernels over three inputs, through the ternary slot. The operands of
 * the iterator come in the order of the formula, the output first; every
 * operand has the kernel's dtype but WHERE's condition (bool). The 16-bit
 * floats compute in float32, rounding once per operation as the separate
 * binary kernels would. params[0] is the number each formula names. */
typedef enum
{
  DL_TERNARY_WHERE,        /* (out, cond, a, b): cond ? a : b; every dtype */
  DL_TERNARY_LERP,         /* (out, a, b, w): a + w * (b - a); floats */
  DL_TERNARY_LERP_SCALAR,  /* (out, a, b): a + params[0] * (b - a); floats */
  DL_TERNARY_ADDCMUL,      /* (out, a, b, c): a + params[0] * b * c; floats and
                            * integers (wrapping, params[0] cast to the dtype) */
  DL_TERNARY_ADDCDIV,      /* (out, a, b, c): a + params[0] * b / c; floats */
  DL_TERNARY_CLAMP,        /* (out, x, lo, hi): min (max (x, lo), hi), NaN winning as
                            * maximum and minimum do; floats; params unused */
  DL_TERNARY_CLAMP_SCALAR, /* (out, x): as CLAMP with lo params[0], hi params[1];
                            * float32 and float64 */
  DL_N_TERNARY_OPS
} DlTernaryOp;

typedef enum
{
  DL_REDUCE_SUM,
  DL_REDUCE_MEAN,
  DL_REDUCE_MAX, /* values, and indices into the reduced dim if asked */
  DL_REDUCE_MIN,
  DL_REDUCE_PROD,   /* floats in double, integers in int64 (int64 output) */
  DL_REDUCE_ALL,    /* output bool or uint8: every element nonzero */
  DL_REDUCE_ANY,    /* output bool or uint8: some element nonzero */
  DL_REDUCE_NANSUM, /* a sum that skips NaN */
} DlReduceOp;

typedef enum
{
  DL_SCAN_CUMSUM,
  DL_SCAN_CUMPROD,
} DlScanOp;

/* A reduction: n_outer output positions, each reducing n_inner elements.
 * Both index spaces are strided loop nests (byte strides). The output is
 * laid out by out_strides over the outer dims; indices (int64, nullable)
 * share the output's outer layout. */
typedef struct
{
  gint outer_ndim;
  gint inner_ndim;
  gint64 outer_shape[DL_MAX_DIMS];
  gint64 inner_shape[DL_MAX_DIMS];
  const char *in;
  gint64 in_outer_strides[DL_MAX_DIMS];
  gint64 in_inner_strides[DL_MAX_DIMS];
  char *out;
  gint64 out_strides[DL_MAX_DIMS];
  char *indices;
  gint64 indices_strides[DL_MAX_DIMS];
} DlReduceArgs;

typedef enum
{
  DL_RANDOM_UNIFORM,     /* in [a, b) */
  DL_RANDOM_NORMAL,      /* mean a, std b */
  DL_RANDOM_BERNOULLI,   /* 1 with probability a, else 0 */
  DL_RANDOM_PERMUTATION, /* int64 data: a random permutation of 0 .. n - 1 */
  DL_RANDOM_EXPONENTIAL, /* rate a */
  DL_RANDOM_CAUCHY,      /* median a, scale b */
  DL_RANDOM_LOG_NORMAL,  /* e^x, x normal with mean a, std b */
  DL_RANDOM_GEOMETRIC,   /* trials to the first success, success probability a */
  DL_RANDOM_INTEGER,     /* int64 data: low + (a draw mod range), see DlRandomDraw; the
                          * CPU's generator only */
} DlRandomOp;

typedef struct _DlMtState DlMtState;

/* Where a draw takes its numbers from, and what random () and
 * multinomial () need besides their parameters. A CPU generator hands its
 * Mersenne Twister (dl-mt19937.h), locked for the call, and the CPU's
 * kernels draw from it one element after the other as PyTorch's CPU
 * kernels do; every other device's generator hands a counter-based
 * (Philox) stream, a key and the first block (dl-philox.h). */
typedef struct
{
  DlMtState *mt; /* the CPU generator's engine, or NULL */
  guint64 seed;  /* the Philox key and first block (mt NULL) */
  guint64 offset;
  /* random (): the n elements are a whole contiguous tensor, which is
   * when PyTorch draws normal numbers 16 at a time */
  gboolean dense;
  /* DL_RANDOM_INTEGER: the values low + (x mod range), x one word of the
   * stream, or two when wide (PyTorch's choice: a range of 2^32 or more
   * into int64, float64, float32 or bfloat16) */
  gint64 low;
  guint64 range;
  gboolean wide;
  /* multinomial (): the dtype the weights came in, whose precision the
   * CPU's cumulative sums and ratios keep */
  DlDType weights_dtype;
} DlRandomDraw;

/* the draws with a parameter per element (the random_params slot) */
typedef enum
{
  DL_RANDOM_PARAMS_GAMMA,    /* Gamma (a[i], 1) */
  DL_RANDOM_PARAMS_POISSON,  /* Poisson (a[i]) */
  DL_RANDOM_PARAMS_BINOMIAL, /* Binomial (a[i] trials, probability b[i]) */
} DlRandomParamsOp;

typedef enum
{
  DL_INDEX_GATHER,      /* other[p] = self[p with p[dim] := index[p]] */
  DL_INDEX_SCATTER,     /* self[p with p[dim] := index[p]] = other[p] */
  DL_INDEX_SCATTER_ADD, /* self[p with p[dim] := index[p]] += other[p] */
  /* the other reducing scatters, as SCATTER_ADD with another operation:
   * floats in their own precision, integers wrapping, bool as logic */
  DL_INDEX_SCATTER_MUL,  /* *= other[p] (bool: and) */
  DL_INDEX_SCATTER_AMAX, /* = max (self[...], other[p]), NaN winning (bool: or) */
  DL_INDEX_SCATTER_AMIN, /* = min (self[...], other[p]), NaN winning (bool: and) */
} DlIndexOp;

/* Gather or scatter along one dim. The loop runs over the index tensor's
 * shape; at position p, self's element sits at
 *   self + sum_{d != dim} p[d] * self_strides[d] + index[p] * self_strides[dim]
 * and other's at other + sum_d p[d] * other_strides[d]. The index is int64;
 * every entry must lie in [0, dim_size). Strides are in bytes.
 * exclude_self (reducing scatters only): every element of self that the
 * index names first takes the reduction's identity (0, 1, the lowest or the
 * highest value of the dtype), so that it ends up reducing other's values
 * alone. */
typedef struct
{
  gint ndim;
  gint dim;
  gint64 dim_size;
  gint64 shape[DL_MAX_DIMS];
  char *self;
  gint64 self_strides[DL_MAX_DIMS];
  char *other;
  gint64 other_strides[DL_MAX_DIMS];
  const char *index;
  gint64 index_strides[DL_MAX_DIMS];
  gboolean exclude_self;
} DlIndexArgs;

/* A batch of matrix products C[i] = A[i] @ B[i] (A[i] is m x k, B[i] k x n,
 * C[i] m x n), for gemm_batched. Each matrix is given by its element
 * strides (row, column): A and B have a unit stride in one of the two (the
 * ops layer makes a contiguous copy otherwise; a size-1 dim's stride is
 * set to one that fits), C is row-major (c_cs 1, c_rs >= n). The batch is
 * a loop nest of batch_ndim dims (0: one product) over batch_shape, with
 * each operand's element strides per dim (0 where it is shared: a weight
 * broadcast over the batch). The ops layer merges the batch dims that are
 * contiguous in all three, so a plain or broadcast batch has one dim and
 * maps onto a strided batched GEMM (cuBLAS'); a backend may loop over the
 * outer dims of a batch that stays two or more. Pointers are to the first
 * element of the first matrix; only the first batch_ndim entries of the
 * arrays are read. With accumulate set, C holds values already and the
 * products are added to them, C[i] += A[i] @ B[i] (BLAS's beta = 1: an
 * addmm's input copied into C first, then one GEMM, as torch's addmm). */
typedef struct
{
  gint64 m, n, k;
  const char *a;
  gint64 a_rs, a_cs;
  const char *b;
  gint64 b_rs, b_cs;
  char *c;
  gint64 c_rs, c_cs;
  gboolean accumulate;
  gint batch_ndim;
  gint64 batch_shape[DL_MAX_DIMS];
  gint64 a_batch_strides[DL_MAX_DIMS];
  gint64 b_batch_strides[DL_MAX_DIMS];
  gint64 c_batch_strides[DL_MAX_DIMS];
} DlGemmArgs;

/* Where the windows of a 2-d convolution lie, for im2col and col2im: an
 * image batch [n, c, h, w] and, for each of its channels, kh x kw kernel
 * taps each sliding over out_h x out_w positions. Row (c, i, j) of the
 * columns [n, c * kh * kw, out_h * out_w] holds, at position (y, x), the
 * image element at (y * sh - ph + i * dh, x * sw - pw + j * dw), or zero
 * where that lies in the padding. The columns' positions are contiguous;
 * image n's row r starts at element n * col_batch_stride + r *
 * col_row_stride (c * kh * kw * L and L for the plain layout; L and n * L
 * for the layout [c * kh * kw, n, L] that makes a whole batch's product one
 * GEMM). */
typedef struct
{
  gint64 n, c, h, w;
  gint64 kh, kw;
  gint64 sh, sw;
  gint64 ph, pw;
  gint64 dh, dw;
  gint64 out_h, out_w;
  gint64 col_batch_stride, col_row_stride;
} DlConvGeometry;

/* What the normalisation kernels see: a contiguous float32/float64 input
 * x viewed as [n, c, s] (batch, channels, the other dims flattened).
 *
 *   DL_NORM_BATCH  statistics per channel over n * s elements; mean and
 *                  rstd hold c values. Training: the kernel computes them
 *                  (and var, the biased variance, when non-NULL); else
 *                  mean and var are given (the running statistics) and the
 *                  kernel writes rstd = 1 / sqrt (var + eps).
 *   DL_NORM_GROUP  statistics per (sample, group) over the c / groups * s
 *                  elements of the group; mean and rstd hold n * groups
 *                  values. Layer norm is the case groups = 1, s = 1, c =
 *                  the normalised size.
 * y = (x - mean) * rstd * weight[channel] + bias[channel], weight and bias
 * nullable (1 and 0). Backward: dx, dweight, dbias are each written when
 * non-NULL, from dy (contiguous like x), x, weight and the forward's mean
 * and rstd; with training FALSE (batch norm in eval mode) mean and rstd
 * are constants. */
typedef enum
{
  DL_NORM_BATCH,
  DL_NORM_GROUP,
} DlNormKind;

typedef struct
{
  DlNormKind kind;
  gint64 n, c, s;
  gint64 groups;
  gdouble eps;
  gboolean training;
  const void *x;
  const void *weight; /* nullable */
  const void *bias;   /* nullable */
  void *mean;
  void *rstd;
  void *var; /* batch norm: out in training (nullable), in otherwise */
  void *y;
  /* backward */
  const void *dy;
  void *dx;      /* nullable */
  void *dweight; /* nullable */
  void *dbias;   /* nullable */
} DlNormArgs;

/* What the fused convolution kernels see (groups 1): contiguous
 * float32/float64 x [n, c, h, w] (g's sizes), weight [o, c * kh * kw],
 * y and dy [n, o, out_h * out_w]. The forward writes y = the convolution
 * of x, plus bias[o] (nullable); the backward writes each of dx [n, c, h,
 * w], dweight [o, c * kh * kw] and dbias [o] that is non-NULL (every
 * element), from dy, x and weight. g's column strides are the kernel's
 * own business. */
typedef struct
{
  DlConvGeometry g;
  gint64 o;
  const void *x;
  const void *weight;
  const void *bias; /* nullable */
  void *y;
  /* backward */
  const void *dy;
  void *dx;      /* nullable */
  void *dweight; /* nullable */
  void *dbias;   /* nullable */
} DlConvArgs;
/* What the fused attention kernels see (scaled_dot_product_attention),
 * float32/float64: n_batch problems (the batch dims, batch_shape, in
 * row-major order), each softmax (scale q k^T + mask) v with q [l, e],
 * k [s, e], v [s, ev]. q, k and v are given by element strides: one per
 * batch dim (0 where broadcast), then a row stride at least the row's
 * length; their columns are contiguous. The mask (nullable) is bool (True:
 * may attend) or of the dtype (added to the scores), with strides for the
 * batch dims, rows and columns (0 where broadcast). causal: row i attends
 * columns j <= i only. Dropout with probability dropout_p (0: none) keeps
 * element (b, i, j) of the probabilities, scaled by 1 / (1 - p), when the
 * float32 uniform (x >> 8) 2^-24 of word j % 4 of Philox block offset + (b l
 * + i) ceil (s / 4) + j / 4 (key seed) is at least p.
 * The forward writes out [n_batch, l, ev] and lse [n_batch, l] (the
 * logsumexp of each row's scores, NaN for a row with nothing to attend,
 * whose output is NaN), both contiguous. The backward reads them with dout
 * [n_batch, l, ev] (contiguous) and writes each non-NULL gradient, every
 * element, contiguous over the full batch: dq [n_batch, l, e], dk
 * [n_batch, s, e], dv [n_batch, s, ev], dmask [n_batch, l, s] (the
 * gradient of the scores, for a float mask). dropout_mask writes the kept
 * elements' scales (0 or 1 / (1 - p)) as mask [n_batch, l, s] of the
 * dtype, for a backward that autograd records. */
typedef struct
{
  gint64 n_batch, l, s, e, ev;
  gint batch_ndim;
  gint64 batch_shape[DL_MAX_DIMS];
  const void *q, *k, *v;
  gint64 q_bs[DL_MAX_DIMS], k_bs[DL_MAX_DIMS], v_bs[DL_MAX_DIMS];
  gint64 q_rs, k_rs, v_rs;
  const void *mask; /* nullable */
  gboolean mask_is_bool;
  gint64 mask_bs[DL_MAX_DIMS], mask_rs, mask_cs;
  gboolean causal;
  gdouble scale;
  gdouble dropout_p;
  guint64 seed, offset;
  void *out;
  void *lse;
  /* backward */
  const void *dout;
  void *dq;    /* nullable */
  void *dk;    /* nullable */
  void *dv;    /* nullable */
  void *dmask; /* nullable */
} DlAttentionArgs;

/* What the fused recurrent kernels see: one layer in one direction of an
 * RNN (cell: its kind), over a packed sequence of `steps` steps whose
 * step t has batch_sizes[t] rows (host memory, non-increasing, the first
 * is `batch`), all its rows n = sum of batch_sizes stacked in step order
 * (step t's rows start at the sum of the sizes before it). The gates G are
 * 4 (LSTM: i, f, g, o), 3 (GRU: r, z, n) or 1 (tanh/relu RNN), in
 * PyTorch's order; h is hidden_size, ho the size of the state h (proj_size
 * when not 0, else h). Contiguous float32/float64 arrays: x [n, input_size],
 * w_ih [G h, input_size], w_hh [G h, ho], b_ih and b_hh [G h] (nullable),
 * w_hr [proj_size, h] (LSTM with projection), h0 [batch, ho], c0 [batch,
 * h] (LSTM). A reverse layer runs the steps from the last to the first,
 * its batch growing; a sequence's final state is its state after its own
 * last step. The forward writes y [n, ho], h_n [batch, ho], c_n [batch, h]
 * and the reserve the backward reads (no recomputation): gates [n, G h]
 * (activated), cells [n, h] (LSTM: c_t; GRU: W_hn h + b_hn), hprev [n, ho]
 * (each row's state before its step), cprev [n, h] and, with a projection,
 * m [n, h] (o * tanh (c_t)). The backward reads dy [n, ho], dh_n and dc_n
 * (nullable: zero), writes each non-NULL gradient of dx .. dc0 (every
 * element) and uses dgx, dgh [n, G h] (dgh: GRU only) and dhs [n,
 * proj_size] as scratch. */
typedef enum
{
  DL_RNN_CELL_TANH, /* the values of DlRnnMode */
  DL_RNN_CELL_RELU,
  DL_RNN_CELL_LSTM,
  DL_RNN_CELL_GRU,
} DlRnnCellKind;

typedef struct
{
  DlRnnCellKind cell;
  gboolean reverse;
  gint64 steps, batch, input_size, hidden_size, proj_size;
  const gint64 *batch_sizes;
  const void *x, *w_ih, *w_hh, *b_ih, *b_hh, *w_hr, *h0, *c0;
  void *y, *h_n, *c_n;
  void *gates, *cells, *hprev, *cprev, *m;
  /* backward */
  const void *dy, *dh_n, *dc_n;
  void *dx, *dw_ih, *dw_hh, *db_ih, *db_hh, *dw_hr, *dh0, *dc0;
  void *dgx, *dgh, *dhs;
} DlRnnArgs;
/* A linear map along one axis, for the separable resampling kernels
 * (pad, average and adaptive pooling, interpolation): output position o
 * of the axis reads the input positions index[start[o] .. start[o + 1])
 * with the weights of the same range. Arrays live in host memory. */
typedef struct
{
  gint64 in_size, out_size;
  const gint64 *start; /* out_size + 1 offsets into index and weight */
  const gint64 *index; /* input positions, each in [0, in_size) */
  const gdouble *weight;
} DlResampleAxis;

/* A separable linear map of a contiguous batch of planes [planes, d, h, w]
 * into [planes, out_d, out_h, out_w] (axis 0: d, 1: h, 2: w):
 *   out[p, z, y, x] = sum over the taps a, b, c of z, y, x of
 *                     wz[a] * wy[b] * wx[c] * in[p, iz[a], iy[b], ix[c]]
 * and fill where one of z, y, x has no taps (constant padding). */
typedef struct
{
  gint64 planes;
  DlResampleAxis axis[3];
  gdouble fill;
} DlResampleArgs;

typedef struct _DlBackend DlBackend;
typedef struct _DlBackendContext DlBackendContext;

/* Checks that kernels make on their inputs as they run (PyTorch makes them
 * on the device too: gather/scatter index bounds, multinomial's weights). */
typedef enum
{
  DL_KERNEL_OK,
  DL_KERNEL_INDEX_OUT_OF_BOUNDS, /* value: the first bad index found */
  DL_KERNEL_BAD_WEIGHT,          /* multinomial: inf, nan or negative */
  DL_KERNEL_ZERO_SUM,            /* multinomial: a row sums to 0 */
} DlKernelError;

/* Where a kernel reports a failed check, in the device's memory: the first
 * failure wins (error and value); a kernel never clears it. Values reach
 * the host only as PyTorch's do:
 *
 * - A host-memory backend (the CPU) is handed a status on the caller's
 *   stack, which the ops layer reads right after the call: the op fails
 *   at once with its GError, as it always has.
 * - A device backend is handed its context's status (ctx->status, device
 *   memory the registry allocates for each device), which nothing reads
 *   until the next synchronising read (item, to_bytes, a nonzero count):
 *   that read fails (DL_ERROR_INDEX for a bad index, DL_ERROR_ARGUMENT
 *   for bad weights) with a message naming the check, and clears it.
 *   The op that launched the kernel returned normally and its output is
 *   undefined: PyTorch's device-side assert, without a host round trip
 *   per call. */
typedef struct
{
  gint32 error; /* a DlKernelError */
  gint32 reserved;
  gint64 value;
} DlKernelStatus;

/* The state one device of a backend runs with: what every slot receives
 * first. Each DlDevice owns one (the device registry makes it, with the
 * context_init its backend registered, see DlDeviceTypeInfo), and the
 * caching allocator keeps a pointer to it for raw_alloc and raw_free.
 * Plain data, no GObjects: a backend sees no type above DlDevice.
 *
 *   backend       the vtable the context belongs to
 *   device_index  the device among its type's (0, 1, ...), -1 for a type
 *                 with one unnumbered device (the CPU)
 *   stream        the device's default stream (a cudaStream_t); NULL for
 *                 the runtime's default stream, or a backend without
 *                 streams
 *   current_stream  gives the stream the calling thread's work on the
 *                 device goes on: the DlStream it made current
 *                 (dl_stream_set_current), else @stream. The registry sets
 *                 it; a backend with streams asks it in every slot
 *   data          the backend's own per-device state (handles, workspaces)
 *   status        where its kernels report failed checks, in device memory
 *                 (see DlKernelStatus); NULL for a host-memory backend
 *                 and for a meta one, whose kernels check nothing */
struct _DlBackendContext
{
  const DlBackend *backend;
  gint device_index;
  gpointer stream;
  gpointer (*current_stream) (const DlBackendContext *ctx);
  gpointer data;
  DlKernelStatus *status;
};

/* One optimizer update over the n elements of a parameter, its gradient
 * and its state (all contiguous, of the parameter's dtype), in one pass:
 * the update rules of torch.optim 1.13's single-tensor paths, with the
 * scalars that depend on the step count (step_size, bias_correction2_sqrt,
 * the Adagrad clr) computed by the caller.
 *
 *   SGD      state[0] = momentum buffer (when momentum != 0);
 *            first_step: the buffer is set to the gradient
 *   ADAM     state[0] = exp_avg, state[1] = exp_avg_sq, state[2] =
 *            max_exp_avg_sq (amsgrad); decoupled: AdamW's weight decay
 *   RMSPROP  state[0] = square_avg, state[1] = momentum buffer (momentum >
 *            0), state[2] = grad_avg (centered)
 *   ADAGRAD  state[0] = sum; lr is the decayed clr
 *   ADADELTA state[0] = square_avg, state[1] = acc_delta; beta1 is rho
 *   ADAMAX   state[0] = exp_avg, state[1] = exp_inf; step_size is the clr
 *   NADAM    state[0] = exp_avg, state[1] = exp_avg_sq; bias_correction is
 *            bias_correction2, coef1 and coef2 the values of the two
 *            addcdiv_ (gradient, then average)
 *   RADAM    state[0] = exp_avg, state[1] = exp_avg_sq; bias_correction is
 *            bias_correction1; rectified: coef1 is the rectification term
 *   RPROP    state[0] = prev, state[1] = step_size; beta1 and beta2 are
 *            etaminus and etaplus, step_min and step_max the bounds
 *   ASGD     state[0] = ax; lr is eta, coef1 the decay 1 - lambd eta,
 *            coef2 mu */
typedef enum
{
  DL_OPTIM_SGD,
  DL_OPTIM_ADAM,
  DL_OPTIM_RMSPROP,
  DL_OPTIM_ADAGRAD,
  DL_OPTIM_ADADELTA,
  DL_OPTIM_ADAMAX,
  DL_OPTIM_NADAM,
  DL_OPTIM_RADAM,
  DL_OPTIM_RPROP,
  DL_OPTIM_ASGD,
} DlOptimKind;

typedef struct
{
  DlOptimKind kind;
  gint64 n;
  void *param;
  const void *grad;
  void *state[3];
  gdouble lr;
  gdouble weight_decay;
  gdouble momentum;
  gdouble dampening;
  gdouble beta1; /* RMSprop: alpha */
  gdouble beta2;
  gdouble eps;
  gdouble step_size;
  gdouble bias_correction2_sqrt;
  gdouble bias_correction;
  gdouble coef1;
  gdouble coef2;
  gdouble step_min;
  gdouble step_max;
  gboolean maximize;
  gboolean nesterov;
  gboolean first_step;
  gboolean amsgrad;
  gboolean decoupled;
  gboolean centered;
  gboolean rectified;
} DlOptimStepArgs;

/* The dense factorizations of the lapack slot, one per matrix of a batch
 * of n_batch, each matrix column-major (LAPACK's layout) and contiguous,
 * one after the other:
 *   GESV   solves a[n, n] x = b[n, nrhs]: b receives x, a its LU factors
 *   GETRF  a[n, n] receives its LU factors, ipiv (n per matrix, 1-based)
 *          the row swaps
 *   POTRF  a[n, n] receives its Cholesky factor in the triangle upper
 *          says (the other triangle is zeroed)
 *   GEQRF  a[m, n] receives R above the diagonal and, with compute_q, q
 *          (m x k, k = min (m, n), or m x m with full) receives Q; r
 *          (k x n, or m x n with full) receives R, zeroed below
 *   GESDD  s (k per matrix) receives the singular values of a[m, n],
 *          descending; with compute_uv u (m x k, or m x m with full) and
 *          vt (k x n, or n x n) the vectors; a is overwritten
 *   SYEVD  w (n per matrix) receives the eigenvalues of the symmetric
 *          a[n, n] (read from the triangle upper says), ascending; with
 *          compute_uv a receives the eigenvectors, one per column
 *   TRTRS  solves the triangular a[n, n] (upper, unit_diagonal, trans:
 *          a^T) x = b[n, nrhs] into b
 * info (one int32 per matrix) receives LAPACK's info: 0, or where the
 * factorization broke down (a zero pivot, a minor not positive
 * definite, no convergence). */
typedef enum
{
  DL_LAPACK_GESV,
  DL_LAPACK_GETRF,
  DL_LAPACK_POTRF,
  DL_LAPACK_GEQRF,
  DL_LAPACK_GESDD,
  DL_LAPACK_SYEVD,
  DL_LAPACK_TRTRS,
} DlLapackOp;

typedef struct
{
  gint64 n_batch, m, n, nrhs;
  void *a, *b, *q, *r, *s, *u, *vt, *w;
  gint32 *ipiv;
  gint32 *info;
  gboolean upper, unit_diagonal, trans, full, compute_q, compute_uv;
} DlLapackArgs;

struct _DlBackend
{
  const gchar *name;
  /* device memory is plain host memory that the host may read and write
   * directly (the CPU); otherwise values reach the host only through
   * copy_to_host */
  gboolean host_memory;
  /* tensors on the device hold no data (the meta device): a storage
   * records its size and has no memory, the kernels compute nothing, and
   * the ops layer refuses every read of values to the host */
  gboolean meta;

  /* memory (required): raw allocation (64-byte aligned), below the
   * caching allocator */
  gpointer (*raw_alloc) (DlBackendContext *ctx, gsize nbytes);
  void (*raw_free) (DlBackendContext *ctx, gpointer ptr, gsize nbytes);
  /* copy nbytes between host memory and this device's memory; to_host
   * returns when the bytes are there (it waits for the queued work) */
  void (*copy_to_host) (DlBackendContext *ctx, gpointer dst, gconstpointer src, gsize nbytes);
  void (*copy_from_host) (DlBackendContext *ctx, gpointer dst, gconstpointer src, gsize nbytes);
  /* waits for the work queued on the device, on all its streams
   * (optional: NULL for a backend whose kernels run synchronously) */
  void (*synchronize) (DlBackendContext *ctx);

  /* Streams and events (optional, all or none): handles of the backend's
   * own queues (cudaStream_t) and markers in them (cudaEvent_t). Without
   * them the device runs its work synchronously and the core gives it one
   * trivial stream that is always complete (dl-stream.c).
   *   stream_new          a new stream of @priority (lower runs first, as
   *                       CUDA's); NULL when the runtime refuses
   *   stream_query        whether the work queued on @stream has finished
   *   stream_wait_event   later work on @stream waits for @event, on the
   *                       device (the host does not wait)
   *   event_new           a new event; NULL when the runtime refuses
   *   event_record        marks the point of @stream's queue where it is
   *   event_elapsed       milliseconds between two completed events made
   *                       with timing; FALSE when the runtime cannot tell */
  gpointer (*stream_new) (DlBackendContext *ctx, gint priority);
  void (*stream_free) (DlBackendContext *ctx, gpointer stream);
  gboolean (*stream_query) (DlBackendContext *ctx, gpointer stream);
  void (*stream_synchronize) (DlBackendContext *ctx, gpointer stream);
  void (*stream_wait_event) (DlBackendContext *ctx, gpointer stream, gpointer event);
  gpointer (*event_new) (DlBackendContext *ctx, gboolean enable_timing, gboolean blocking);
  void (*event_free) (DlBackendContext *ctx, gpointer event);
  void (*event_record) (DlBackendContext *ctx, gpointer event, gpointer stream);
  gboolean (*event_query) (DlBackendContext *ctx, gpointer event);
  void (*event_synchronize) (DlBackendContext *ctx, gpointer event);
  gboolean (*event_elapsed) (DlBackendContext *ctx, gpointer start, gpointer end, gdouble *ms);

  /* The memory statistics of a backend with its own caching allocator
   * below libdl's (the stream allocator of CUDA), optional: without them
   * the device's figures are libdl's allocator's. memory_stats fills
   * every field of @stats. */
  void (*memory_stats) (DlBackendContext *ctx, DlMemoryStats *stats);
  void (*memory_reset_peaks) (DlBackendContext *ctx);
  void (*memory_empty_cache) (DlBackendContext *ctx);

  /* kernels (each optional) */
  void (*copy) (DlBackendContext *ctx, DlIter *iter, DlDType dst_dtype, DlDType src_dtype);
  void (*fill) (DlBackendContext *ctx, DlIter *iter, DlDType dtype, gdouble value);
  void (*unary) (DlBackendContext *ctx, DlUnaryOp op, DlIter *iter, DlDType dtype);
  void (*binary) (DlBackendContext *ctx, DlBinaryOp op, DlIter *iter, DlDType dtype, gdouble alpha);
  /* a unary op that takes numbers (DL_UNARY_NAN_TO_NUM: three,
   * DL_UNARY_LEAKY_RELU: one) */
  void (*unary_params) (DlBackendContext *ctx,
                        DlUnaryOp op,
                        DlIter *iter,
                        DlDType dtype,
                        const gdouble *params);
  /* three inputs, see DlTernaryOp; params may be NULL for WHERE */
  void (*ternary) (DlBackendContext *ctx,
                   DlTernaryOp op,
                   DlIter *iter,
                   DlDType dtype,
                   const gdouble *params);
  void (*reduce) (DlBackendContext *ctx, DlReduceOp op, const DlReduceArgs *args, DlDType dtype);
  /* a batch of matrix products in one call, see DlGemmArgs */
  void (*gemm_batched) (DlBackendContext *ctx, DlDType dtype, const DlGemmArgs *args);
  /* gathers or scatters (see DlIndexArgs); checks the indices and reports
   * a bad one as DL_KERNEL_INDEX_OUT_OF_BOUNDS into status (see
   * DlKernelStatus); after a failed check the output is undefined (the CPU
   * checks them all first and writes nothing) */
  void (*index) (DlBackendContext *ctx,
                 DlIndexOp op,
                 const DlIndexArgs *args,
                 DlDType dtype,
                 DlKernelStatus *status);
  /* with out NULL, counts the nonzero elements of a strided tensor (byte
   * strides) into *count (one int64 of device memory); with out, writes
   * their coordinates (int64, [count, ndim], row major) there. The ops
   * layer reads the count to size out: a synchronisation, as PyTorch's */
  void (*nonzero) (DlBackendContext *ctx,
                   const char *data,
                   DlDType dtype,
                   gint ndim,
                   const gint64 *shape,
                   const gint64 *strides,
                   gint64 *count,
                   gint64 *out);
  /* inclusive scans of n_rows contiguous rows of n elements, in place */
  void (*scan) (DlBackendContext *ctx,
                DlScanOp op,
                void *data,
                gint64 n_rows,
                gint64 n,
                DlDType dtype);
  /* stable sorts of n_rows contiguous rows of n elements, in place, NaN
   * greatest; indices (int64, same layout) receive the original positions.
   * Only the first k of each row need be sorted (k <= n), or with kth_only
   * only the k-th be in its place; the rows stay permutations. */
  void (*sort) (DlBackendContext *ctx,
                void *data,
                void *indices,
                gint64 n_rows,
                gint64 n,
                gint64 k,
                gboolean kth_only,
                DlDType dtype,
                gboolean descending);
  /* running maxima (or minima) of n_rows contiguous rows of n elements, in
   * place, NaN winning; indices (int64) receive where each was (the last
   * position on ties) */
  void (*scan_extremum) (DlBackendContext *ctx,
                         void *data,
                         void *indices,
                         gint64 n_rows,
                         gint64 n,
                         DlDType dtype,
                         gboolean is_max);
  /* out[r, index[r, j]] = src[r, j] (+= where accumulate) for n_rows
   * contiguous rows: src and index have n_src columns, out has n_out */
  void (*scatter_rows) (DlBackendContext *ctx,
                        void *out,
                        const void *src,
                        const void *index,
                        gint64 n_rows,
                        gint64 n_src,
                        gint64 n_out,
                        DlDType dtype,
                        gboolean accumulate);
  /* out[r, j] = src[r, index[r, j]] for n_rows contiguous rows: out and
   * index have n_out columns, src has n_src */
  void (*gather_rows) (DlBackendContext *ctx,
                       void *out,
                       const void *src,
                       const void *index,
                       gint64 n_rows,
                       gint64 n_out,
                       gint64 n_src,
                       DlDType dtype);
  /* groups of equal neighbours in a (sorted) contiguous array of n elements:
   * values[g] gets each group's value, counts[g] its size, group[i] the group
   * of element i; *n_groups (one int64 of device memory) the number of
   * groups, which the ops layer reads to size the result (as PyTorch) */
  void (*unique_sorted) (DlBackendContext *ctx,
                         const void *sorted,
                         gint64 n,
                         DlDType dtype,
                         void *values,
                         void *counts,
                         void *group,
                         gint64 *n_groups);
  /* fills n contiguous elements from @draw's stream */
  void (*random) (DlBackendContext *ctx,
                  DlRandomOp op,
                  void *data,
                  gint64 n,
                  DlDType dtype,
                  const DlRandomDraw *draw,
                  gdouble a,
                  gdouble b);
  /* fills n contiguous float elements of dtype from the parameters a[i]
   * (and b[i], binomial's; NULL otherwise), contiguous float64: from the
   * CPU's stream (draw->mt), the elements in turn as PyTorch's CPU kernels
   * draw them; from a Philox stream, element i from its own stream of
   * blocks (draw->offset + i, sub) (see dl-philox.h) */
  void (*random_params) (DlBackendContext *ctx,
                         DlRandomParamsOp op,
                         const gdouble *a,
                         const gdouble *b,
                         void *data,
                         gint64 n,
                         DlDType dtype,
                         const DlRandomDraw *draw);
  /* draws n_samples category indices into out[rows, n_samples] from each
   * row of the contiguous weights[rows, k], with or without replacement;
   * from a Philox stream, row r takes its numbers from blocks offset + r *
   * ((n_samples + 1) / 2) on; from the CPU's, the rows draw in turn as
   * PyTorch's do. A bad row (DL_KERNEL_BAD_WEIGHT, DL_KERNEL_ZERO_SUM) is reported
   * into status (see DlKernelStatus). */
  void (*multinomial) (DlBackendContext *ctx,
                       const gdouble *weights,
                       gint64 rows,
                       gint64 k,
                       gint64 n_samples,
                       gboolean replacement,
                       gint64 *out,
                       const DlRandomDraw *draw,
                       DlKernelStatus *status);
  /* softmax (or log_softmax) of each of n_rows contiguous rows of n
   * float32/float64 elements, in one pass per row over cached data */
  void (*softmax) (DlBackendContext *ctx,
                   const void *in,
                   void *out,
                   gint64 n_rows,
                   gint64 n,
                   DlDType dtype,
                   gboolean log);
  /* float32/float64 contiguous image batch -> columns (see
   * DlConvGeometry), every element of cols written */
  void (*im2col) (DlBackendContext *ctx,
                  const DlConvGeometry *g,
                  const void *image,
                  void *cols,
                  DlDType dtype);
  /* the adjoint: columns summed into a contiguous image batch, every
   * element of image written (zero where no window reaches) */
  void (*col2im) (DlBackendContext *ctx,
                  const DlConvGeometry *g,
                  const void *cols,
                  void *image,
                  DlDType dtype);
  /* an optimizer's update of one float32/float64 parameter in one pass
   * (see DlOptimStepArgs) */
  void (*optim_step) (DlBackendContext *ctx, const DlOptimStepArgs *args, DlDType dtype);
  /* max pooling of a contiguous float32/float64 image batch [n, c, h, w]
   * over the windows of g (out_h, out_w may count windows that start in
   * the right padding: ceil_mode) into out [n, c, out_h, out_w], with each
   * maximum's flat position (y * w + x) in its plane into indices (int64,
   * nullable: NULL when the ops layer records no gradient and the caller
   * asked for no indices; the maxima alone, as cuDNN's pooling gives them);
   * NaN wins, as in PyTorch */
  void (*max_pool2d) (DlBackendContext *ctx,
                      const DlConvGeometry *g,
                      const void *image,
                      void *out,
                      gint64 *indices,
                      DlDType dtype);
  /* batch, group and layer normalisation in one pass over cached data
   * (see DlNormArgs): the forward writes y, mean and rstd; the backward
   * dx, dweight and dbias together */
  void (*norm_forward) (DlBackendContext *ctx, const DlNormArgs *args, DlDType dtype);
  void (*norm_backward) (DlBackendContext *ctx, const DlNormArgs *args, DlDType dtype);
  /* max_pool2d's gradient: each of grad_out's elements [n, c, out_h,
   * out_w] added into the contiguous grad_in [n, c, h, w] at the flat
   * position in its plane that indices (from max_pool2d) holds; every
   * element of grad_in written */
  void (*max_pool2d_backward) (DlBackendContext *ctx,
                               const DlConvGeometry *g,
                               const void *grad_out,
                               const gint64 *indices,
                               void *grad_in,
                               DlDType dtype);
  /* the separable linear map of a (see DlResampleArgs), float32/float64,
   * every element of out written */
  void (*resample) (DlBackendContext *ctx,
                    const DlResampleArgs *a,
                    const void *in,
                    void *out,
                    DlDType dtype);
  /* its adjoint: out-shaped grad summed back into in-shaped grad_in with
   * the same weights (fill ignored), every element of grad_in written */
  void (*resample_adjoint) (DlBackendContext *ctx,
                            const DlResampleArgs *a,
                            const void *grad,
                            void *grad_in,
                            DlDType dtype);
  /* the maximum over the taps of each output of a (weights and fill
   * ignored, every output with taps), and its flat position in its input
   * plane into indices (int64); NaN wins (the last one), as in PyTorch's
   * adaptive max pooling */
  void (*resample_max) (DlBackendContext *ctx,
                        const DlResampleArgs *a,
                        const void *in,
                        void *out,
                        gint64 *indices,
                        DlDType dtype);
  /* dropout of n contiguous float32/float64 elements: out = in * mask / (1
   * - p), mask[i] = 1 with probability 1 - p from @draw's stream as
   * DL_RANDOM_BERNOULLI draws it; mask (uint8) nullable */
  void (*dropout) (DlBackendContext *ctx,
                   const void *in,
                   void *out,
                   guint8 *mask,
                   gint64 n,
                   gdouble p,
                   DlDType dtype,
                   const DlRandomDraw *draw);
  /* a 2-d convolution (groups 1) and its gradients, see DlConvArgs */
  void (*conv2d_forward) (DlBackendContext *ctx, const DlConvArgs *args, DlDType dtype);
  void (*conv2d_backward) (DlBackendContext *ctx, const DlConvArgs *args, DlDType dtype);
  /* fused scaled dot product attention, see DlAttentionArgs */
  void (*attention_forward) (DlBackendContext *ctx, const DlAttentionArgs *args, DlDType dtype);
  void (*attention_backward) (DlBackendContext *ctx, const DlAttentionArgs *args, DlDType dtype);
  void (*attention_dropout_mask) (DlBackendContext *ctx,
                                  const DlAttentionArgs *args,
                                  void *mask,
                                  DlDType dtype);
  /* one recurrent layer in one direction and its gradients, see DlRnnArgs */
  void (*rnn_forward) (DlBackendContext *ctx, const DlRnnArgs *args, DlDType dtype);
  void (*rnn_backward) (DlBackendContext *ctx, const DlRnnArgs *args, DlDType dtype);
  /* a dense factorization or solve of each matrix of a batch, LAPACK's
   * (see DlLapackArgs); float32/float64 */
  void (*lapack) (DlBackendContext *ctx, DlLapackOp op, const DlLapackArgs *args, DlDType dtype);
};

/* A device type as a backend registers it with the device registry
 * (dl-device.c), which turns device strings into DlDevices: "type" or
 * "type:N" for an indexed type ("type" alone meaning device 0), "type"
 * alone for a type of one unnumbered device (index -1, as the CPU).
 *
 *   type             the device string's prefix: "cpu", "cuda", "meta"
 *   device_type      what DlDevice:device-type reports
 *   backend          the vtable of every device of the type
 *   indexed          whether devices are numbered
 *   device_count     how many devices there are (asked once, on the first
 *                    lookup of the type); NULL for one
 *   context_init     fills a new device's context (stream, data): backend
 *                    and device_index are set on entry; NULL when the
 *                    backend keeps no per-device state. May fail (a device
 *                    that cannot be opened): the lookup then fails with
 *                    its error.
 *   context_clear    frees what context_init made; nullable
 *   min_cached_size  blocks the caching allocator keeps for reuse start at
 *                    this size (0: 64 bytes)
 *   cache_limit      the most bytes it keeps cached (0: none)
 *   get_info         describes a device (DlDeviceInfo); nullable
 *
 * The CPU and meta backends register on the registry's first use. A backend built
 * into the library calls dl_device_register_type(); a loadable backend
 * module (CUDA, later) hands its DlDeviceTypeInfo to the registry from its
 * entry point when the registry loads it. Each DlDevice owns the context
 * made for it and lives as long as the process. */
/* What a device is, as the backend describes it (torch.cuda's
 * get_device_properties): the product's name, its memory in bytes, its
 * compute capability (0.0 where there is none) and its multiprocessors (a
 * CPU's logical processors). */
typedef struct
{
  gchar product_name[256];
  guint64 total_memory;
  gint major;
  gint minor;
  gint multi_processor_count;
} DlDeviceInfo;

typedef struct
{
  const gchar *type;
  DlDeviceType device_type;
  const DlBackend *backend;
  gboolean indexed;
  gint (*device_count) (void);
  gboolean (*context_init) (DlBackendContext *ctx, GError **error);
  void (*context_clear) (DlBackendContext *ctx);
  gsize min_cached_size;
  guint64 cache_limit;
  /* fills @info for the device of @ctx (after context_init); nullable:
   * the product name is then the type's, the figures 0 */
  void (*get_info) (const DlBackendContext *ctx, DlDeviceInfo *info);
} DlDeviceTypeInfo;

gboolean dl_device_register_type (const DlDeviceTypeInfo *info, GError **error);

void dl_cpu_get_device_type_info (DlDeviceTypeInfo *info);
gint dl_cpu_get_num_threads (void);
void dl_cpu_set_num_threads (gint n);
gboolean dl_cpu_set_flush_denormal (gboolean on);
void dl_meta_get_device_type_info (DlDeviceTypeInfo *info);

G_END_DECLS
