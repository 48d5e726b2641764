/* dl-philox.h: libdl's counter-based random numbers, shared by the
 * backends: the Philox4x32-10 block function and how a request (seed,
 * offset) turns blocks into the numbers of each distribution. The CUDA
 * module (nvcc, dl-cuda-random.cu) computes element i from these
 * functions; so does the CPU backend (gcc, dl-cpu-random.c) for a draw
 * that hands it no Mersenne Twister (the per-element samplers and
 * attention's dropout, keyed from the CPU generator, and the host checks
 * of the CUDA kernels).
 *
 * Element i of a request (seed, offset) takes its bits from Philox block
 * offset + i / per_block:
 *   uniform float32 (and the 16-bit floats): 4 values per block, 24 bits
 *     each: u = (x >> 8) * 2^-24
 *   uniform float64: 2 values per block, 53 bits from two words
 *   normal: Box-Muller on pairs of uniforms, both outputs used
 *   bernoulli: 1 where the uniform is below p
 *   exponential: -ln (1 - u) / lambda; cauchy: median + sigma tan (pi (u -
 *     1/2)); geometric: ceil (ln (1 - u) / ln (1 - p)), at least 1;
 *     log-normal: e^x of the normal's x
 *   gamma, poisson, binomial (per-element parameters): element i draws as
 *     many numbers as its rejection loop needs from its own stream, the
 *     blocks (offset + i, sub) for sub = 0, 1, ... (sub in the counter's
 *     third word), two float64 uniforms a block: one block of the request
 *     per element
 *   multinomial: sample s of row r takes the float64 uniform s of the row's
 *     blocks; with replacement a binary search in the cumulative weights,
 *     without it a scan of the weights not yet drawn
 *   permutation: Fisher-Yates from the last element down; the swap for
 *     position i (n - 1 .. 1) takes a float64 uniform, two per block
 *
 * Plain C99 that is also valid C++: no GLib types, no intrinsics. Under
 * nvcc every function is __host__ __device__. The math (log, sqrt, sin,
 * cos) is the C library's on the host and CUDA's on the device, which
 * rounds differently in the last place: normal's numbers agree to about
 * an ulp of a double there; everything else is integer arithmetic and
 * exactly rounded IEEE operations, the same bits on both.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <math.h>
#include <stdint.h>

#ifdef __CUDACC__
#define DL_PHILOX_FN __host__ __device__ static inline
#else
#define DL_PHILOX_FN static inline
#endif

#define DL_PHILOX_M0 0xD2511F53u
#define DL_PHILOX_M1 0xCD9E8D57u
#define DL_PHILOX_W0 0x9E3779B9u
#define DL_PHILOX_W1 0xBB67AE85u

/* 2 pi as the CPU's G_PI rounds to a double */
#define DL_PHILOX_2PI (2.0 * 3.1415926535897932384626433832795028841971693993751)

/* Philox4x32-10: the four words of block @counter of the stream @seed,
 * with @sub in the counter's third word (0 but for the per-element streams
 * of dl_philox_stream_uniform) */
DL_PHILOX_FN void
dl_philox_sub (uint64_t seed, uint64_t counter, uint32_t sub, uint32_t out[4])
{
  uint32_t c0 = (uint32_t)counter, c1 = (uint32_t)(counter >> 32), c2 = sub, c3 = 0;
  uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);

  for (int r = 0; r < 10; r++)
    {
      uint64_t p0 = (uint64_t)DL_PHILOX_M0 * c0;
      uint64_t p1 = (uint64_t)DL_PHILOX_M1 * c2;
      uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0;
      uint32_t n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
      c1 = (uint32_t)p1;
      c3 = (uint32_t)p0;
      c0 = n0;
      c2 = n2;
      k0 += DL_PHILOX_W0;
      k1 += DL_PHILOX_W1;
    }
  out[0] = c0;
  out[1] = c1;
  out[2] = c2;
  out[3] = c3;
}

/* Philox4x32-10: the four words of block @counter of the stream @seed */
DL_PHILOX_FN void
dl_philox (uint64_t seed, uint64_t counter, uint32_t out[4])
{
  dl_philox_sub (seed, counter, 0, out);
}

/* a uniform in [0, 1) from the top 24 bits of a word */
DL_PHILOX_FN double
dl_philox_u24 (uint32_t x)
{
  return (x >> 8) * (1.0 / 16777216.0);
}

/* a uniform in [0, 1) from 53 bits of two words */
DL_PHILOX_FN double
dl_philox_u53 (uint32_t hi, uint32_t lo)
{
  uint64_t v = ((uint64_t)hi << 21) ^ (lo >> 11);
  return (v & (((uint64_t)1 << 53) - 1)) * (1.0 / 9007199254740992.0);
}

/* how many numbers one block gives: 2 for float64, 4 otherwise */
DL_PHILOX_FN int
dl_philox_per_block (int wide)
{
  return wide ? 2 : 4;
}

/* the uniforms of block @blk of the request: 2 (wide: float64) or 4 */
DL_PHILOX_FN void
dl_philox_uniforms (uint64_t seed, uint64_t offset, int64_t blk, int wide, double u[4])
{
  uint32_t x[4];

  dl_philox (seed, offset + (uint64_t)blk, x);
  if (wide)
    {
      u[0] = dl_philox_u53 (x[0], x[1]);
      u[1] = dl_philox_u53 (x[2], x[3]);
    }
  else
    for (int j = 0; j < 4; j++)
      u[j] = dl_philox_u24 (x[j]);
}

/* The distributions of the backends' random slot (DlRandomOp's values
 * but permutation, which is a sequential draw: dl_philox_permutation) */
typedef enum
{
  DL_PHILOX_UNIFORM,   /* in [a, b) */
  DL_PHILOX_NORMAL,    /* mean a, std b */
  DL_PHILOX_BERNOULLI, /* 1 with probability a, else 0 */
  /* 3 is DlRandomOp's permutation */
  DL_PHILOX_EXPONENTIAL = 4, /* rate a */
  DL_PHILOX_CAUCHY,          /* median a, scale b */
  DL_PHILOX_LOG_NORMAL,      /* e^x, x normal with mean a, std b */
  DL_PHILOX_GEOMETRIC,       /* trials to the first success, success probability a */
} DlPhiloxKind;

/* The numbers of block @blk of a request as doubles (u[0 .. per_block)),
 * before they are stored in the request's dtype */
DL_PHILOX_FN void
dl_philox_block (DlPhiloxKind kind,
                 uint64_t seed,
                 uint64_t offset,
                 int64_t blk,
                 int wide,
                 double a,
                 double b,
                 double u[4])
{
  const int per_block = dl_philox_per_block (wide);

  dl_philox_uniforms (seed, offset, blk, wide, u);
  if (kind == DL_PHILOX_NORMAL || kind == DL_PHILOX_LOG_NORMAL)
    for (int j = 0; j < per_block; j += 2)
      {
        double r = sqrt (-2.0 * log (1.0 - u[j]));
        double th = DL_PHILOX_2PI * u[j + 1];
        u[j] = a + b * r * cos (th);
        u[j + 1] = a + b * r * sin (th);
        if (kind == DL_PHILOX_LOG_NORMAL)
          {
            u[j] = exp (u[j]);
            u[j + 1] = exp (u[j + 1]);
          }
      }
  else if (kind == DL_PHILOX_EXPONENTIAL)
    for (int j = 0; j < per_block; j++)
      u[j] = -log (1.0 - u[j]) / a;
  else if (kind == DL_PHILOX_CAUCHY)
    for (int j = 0; j < per_block; j++)
      u[j] = a + b * tan (0.5 * DL_PHILOX_2PI * (u[j] - 0.5));
  else if (kind == DL_PHILOX_GEOMETRIC)
    for (int j = 0; j < per_block; j++)
      {
        double k = ceil (log (1.0 - u[j]) / log1p (-a));
        u[j] = k < 1 ? 1 : k;
      }
  else if (kind == DL_PHILOX_BERNOULLI)
    for (int j = 0; j < per_block; j++)
      u[j] = u[j] < a ? 1.0 : 0.0;
  else
    for (int j = 0; j < per_block; j++)
      u[j] = a + (b - a) * u[j];
}

/* The dropout of block @blk: keep[j] = 1 where uniform j of the block (as
 * the uniform distribution draws it) is below 1 - p */
DL_PHILOX_FN void
dl_philox_dropout_block (uint64_t seed,
                         uint64_t offset,
                         int64_t blk,
                         int wide,
                         double p,
                         int keep[4])
{
  double u[4];

  dl_philox_uniforms (seed, offset, blk, wide, u);
  for (int j = 0; j < dl_philox_per_block (wide); j++)
    keep[j] = u[j] < 1.0 - p;
}

/* A per-element stream: the blocks (counter, sub) for sub = 0, 1, ...,
 * two float64 uniforms each */
typedef struct
{
  uint64_t seed, counter;
  uint32_t sub;
  int left;
  double u[2];
} DlPhiloxStream;

DL_PHILOX_FN void
dl_philox_stream_init (DlPhiloxStream *s, uint64_t seed, uint64_t counter)
{
  s->seed = seed;
  s->counter = counter;
  s->sub = 0;
  s->left = 0;
}

/* the stream's next float64 uniform, in [0, 1) */
DL_PHILOX_FN double
dl_philox_stream_uniform (DlPhiloxStream *s)
{
  if (s->left == 0)
    {
      uint32_t x[4];

      dl_philox_sub (s->seed, s->counter, s->sub++, x);
      s->u[0] = dl_philox_u53 (x[2], x[3]);
      s->u[1] = dl_philox_u53 (x[0], x[1]);
      s->left = 2;
    }
  return s->u[--s->left];
}

/* the stream's next standard normal number (Box-Muller, one of the pair) */
DL_PHILOX_FN double
dl_philox_stream_normal (DlPhiloxStream *s)
{
  double u0 = dl_philox_stream_uniform (s), u1 = dl_philox_stream_uniform (s);

  return sqrt (-2.0 * log (1.0 - u0)) * cos (DL_PHILOX_2PI * u1);
}

/* A Gamma (alpha, 1) number: Marsaglia and Tsang's squeeze for alpha >=
 * 1; below 1, Gamma (alpha + 1) u^(1 / alpha). At least @tiny (the
 * smallest normal number of the result's dtype), as torch's, and that for
 * a non-positive alpha; NaN for a NaN alpha. */
DL_PHILOX_FN double
dl_philox_gamma (DlPhiloxStream *s, double alpha, double tiny)
{
  double boost = 1, d, c;

  if (alpha != alpha)
    return NAN;
  if (alpha <= 0)
    return tiny;
  if (alpha < 1)
    {
      /* 1 - u is in (0, 1]: the boost is never 0 before the clamp */
      boost = pow (1.0 - dl_philox_stream_uniform (s), 1.0 / alpha);
      alpha += 1;
    }
  d = alpha - 1.0 / 3.0;
  c = 1.0 / sqrt (9.0 * d);
  for (;;)
    {
      double x = dl_philox_stream_normal (s), v = 1 + c * x, u;

      if (v <= 0)
        continue;
      v = v * v * v;
      u = 1.0 - dl_philox_stream_uniform (s);
      if (u < 1 - 0.0331 * x * x * x * x || log (u) < 0.5 * x * x + d * (1 - v + log (v)))
        {
          double g = d * v * boost;
          return g < tiny ? tiny : g;
        }
    }
}

/* A Poisson (rate) number: counting uniforms' product down to e^-rate
 * below rate 10, Hoermann's transformed rejection (PTRS) from 10 on; NaN
 * for a NaN or negative rate */
DL_PHILOX_FN double
dl_philox_poisson (DlPhiloxStream *s, double rate)
{
  if (!(rate >= 0))
    return NAN;
  if (rate < 10)
    {
      double limit = exp (-rate), prod = 1;
      double k = -1;

      do
        {
          prod *= dl_philox_stream_uniform (s);
          k++;
        }
      while (prod > limit);
      return k;
    }
  else
    {
      const double slam = sqrt (rate), loglam = log (rate);
      const double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
      const double inv_alpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2);

      for (;;)
        {
          double u = dl_philox_stream_uniform (s) - 0.5, v = dl_philox_stream_uniform (s);
          double us = 0.5 - fabs (u), k = floor ((2 * a / us + b) * u + rate + 0.43);

          if (us >= 0.07 && v <= vr)
            return k;
          if (k < 0 || (us < 0.013 && v > us))
            continue;
          if (log (v) + log (inv_alpha) - log (a / (us * us) + b)
              <= -rate + k * loglam - lgamma (k + 1))
            return k;
        }
    }
}

/* A Binomial (count, p) number for 0 <= p <= 1/2: the number of
 * geometric waiting times that fit in count trials where count p < 10,
 * Hoermann's BTRS rejection above */
DL_PHILOX_FN double
dl_philox_binomial_low (DlPhiloxStream *s, double count, double p)
{
  if (p == 0 || count == 0)
    return 0;
  if (count * p < 10)
    {
      const double lq = log1p (-p);
      double trials = 0, k = 0;

      for (;;)
        {
          double g = ceil (log (1.0 - dl_philox_stream_uniform (s)) / lq);

          trials += g < 1 ? 1 : g;
          if (trials > count)
            return k;
          k++;
        }
    }
  else
    {
      const double spq = sqrt (count * p * (1 - p)), b = 1.15 + 2.53 * spq;
      const double a = -0.0873 + 0.0248 * b + 0.01 * p, c = count * p + 0.5;
      const double vr = 0.92 - 4.2 / b, alpha = (2.83 + 5.1 / b) * spq;
      const double lr = log (p / (1 - p)), m = floor ((count + 1) * p);
      const double lfm = lgamma (m + 1) + lgamma (count - m + 1);

      for (;;)
        {
          double u = dl_philox_stream_uniform (s) - 0.5, v = dl_philox_stream_uniform (s);
          double us = 0.5 - fabs (u), k = floor ((2 * a / us + b) * u + c);

          if (k < 0 || k > count)
            continue;
          if (us >= 0.07 && v <= vr)
            return k;
          /* f (k) / f (m) of the binomial's probabilities, in logs */
          if (log (v * alpha / (a / (us * us) + b))
              <= lfm - lgamma (k + 1) - lgamma (count - k + 1) + (k - m) * lr)
            return k;
        }
    }
}

/* A Binomial (count, p) number; NaN for a negative or NaN count or a p
 * outside [0, 1] */
DL_PHILOX_FN double
dl_philox_binomial (DlPhiloxStream *s, double count, double p)
{
  if (!(count >= 0) || !(p >= 0 && p <= 1))
    return NAN;
  if (p > 0.5)
    return count - dl_philox_binomial_low (s, count, 1 - p);
  return dl_philox_binomial_low (s, count, p);
}

/* The draws with a parameter per element (DlRandomParamsOp's values) */
#define DL_PHILOX_PARAMS_GAMMA 0
#define DL_PHILOX_PARAMS_POISSON 1
#define DL_PHILOX_PARAMS_BINOMIAL 2

/* the smallest normal number of float64 (@wide), float16 (@half) or
 * float32 and bfloat16 (neither) */
DL_PHILOX_FN double
dl_philox_tiny (int wide, int half)
{
  return wide ? 2.2250738585072014e-308 : half ? 6.103515625e-05 : 1.1754943508222875e-38;
}

/* element i of a request (seed, offset) with parameters a (and b,
 * binomial's): its own stream, the blocks (offset + i, sub); @tiny is the
 * smallest normal number of the result's dtype (gamma's floor) */
DL_PHILOX_FN double
dl_philox_params_elem (int op,
                       uint64_t seed,
                       uint64_t offset,
                       int64_t i,
                       double a,
                       double b,
                       double tiny)
{
  DlPhiloxStream s;

  dl_philox_stream_init (&s, seed, offset + (uint64_t)i);
  if (op == DL_PHILOX_PARAMS_GAMMA)
    return dl_philox_gamma (&s, a, tiny);
  if (op == DL_PHILOX_PARAMS_POISSON)
    return dl_philox_poisson (&s, a);
  return dl_philox_binomial (&s, a, b);
}

/* the float64 uniform number i of the stream starting at block @offset */
DL_PHILOX_FN double
dl_philox_uniform_at (uint64_t seed, uint64_t offset, int64_t i)
{
  uint32_t x[4];

  dl_philox (seed, offset + (uint64_t)(i / 2), x);
  return i % 2 == 0 ? dl_philox_u53 (x[0], x[1]) : dl_philox_u53 (x[2], x[3]);
}

/* data[0 .. n) = a random permutation of 0 .. n - 1 */
DL_PHILOX_FN void
dl_philox_permutation (int64_t *data, int64_t n, uint64_t seed, uint64_t offset)
{
  for (int64_t i = 0; i < n; i++)
    data[i] = i;
  for (int64_t i = n - 1, k = 0; i > 0; i--, k++)
    {
      double u = dl_philox_uniform_at (seed, offset, k);
      int64_t j = (int64_t)(u * (double)(i + 1));

      if (j > i)
        j = i;
      if (j != i)
        {
          int64_t tmp = data[i];
          data[i] = data[j];
          data[j] = tmp;
        }
    }
}

/* What dl_philox_multinomial_row finds wrong with a row: the values of
 * DlKernelError */
#define DL_PHILOX_ROW_OK 0
#define DL_PHILOX_ROW_BAD_WEIGHT 2
#define DL_PHILOX_ROW_ZERO_SUM 3

/* Draws @n_samples indices of one row of @k weights into @out, taking
 * uniform s from (seed, offset); @tmp holds k doubles of scratch. Returns
 * DL_PHILOX_ROW_OK, or why the row cannot be drawn from. */
DL_PHILOX_FN int
dl_philox_multinomial_row (const double *w,
                           int64_t k,
                           int64_t n_samples,
                           int replacement,
                           int64_t *out,
                           uint64_t seed,
                           uint64_t offset,
                           double *tmp)
{
  double total = 0;
  for (int64_t j = 0; j < k; j++)
    {
      /* negative, NaN or infinite */
      if (!(w[j] >= 0) || w[j] - w[j] != 0)
        return DL_PHILOX_ROW_BAD_WEIGHT;
      total += w[j];
      tmp[j] = total;
    }
  if (!(total > 0))
    return DL_PHILOX_ROW_ZERO_SUM;

  if (replacement)
    for (int64_t s = 0; s < n_samples; s++)
      {
        /* the first category whose cumulative weight exceeds the target */
        double target = dl_philox_uniform_at (seed, offset, s) * total;
        int64_t lo = 0, hi = k - 1;

        while (lo < hi)
          {
            int64_t mid = lo + (hi - lo) / 2;
            if (tmp[mid] > target)
              hi = mid;
            else
              lo = mid + 1;
          }
        while (lo > 0 && w[lo] == 0) /* rounding at the top end */
          lo--;
        out[s] = lo;
      }
  else
    {
      /* tmp: the weights not drawn yet, -1 for those drawn */
      for (int64_t j = 0; j < k; j++)
        tmp[j] = w[j];
      for (int64_t s = 0; s < n_samples; s++)
        {
          double sum = 0, target, acc = 0, u = dl_philox_uniform_at (seed, offset, s);
          int64_t pick = -1, left = 0;

          for (int64_t j = 0; j < k; j++)
            if (tmp[j] > 0)
              sum += tmp[j];
            else if (tmp[j] == 0)
              left++;
          if (sum > 0)
            {
              target = u * sum;
              for (int64_t j = 0; j < k; j++)
                if (tmp[j] > 0)
                  {
                    pick = j;
                    acc += tmp[j];
                    if (acc > target)
                      break;
                  }
            }
          else
            {
              /* the positive weights are used up: the zero ones follow, in a
               * uniformly random order, as torch draws them */
              int64_t nth = (int64_t)(u * (double)left);

              if (nth > left - 1)
                nth = left - 1;
              for (int64_t j = 0; j < k && pick < 0; j++)
                if (tmp[j] == 0 && nth-- == 0)
                  pick = j;
            }
          out[s] = pick;
          tmp[pick] = -1;
        }
    }
  return DL_PHILOX_ROW_OK;
}

/* The attention dropout's scale of element (b, i, j) of the probabilities
 * [n_batch, l, s] (see DlAttentionArgs), @row = b l + i: 0 or 1 / (1 - p),
 * kept when the
 * float32 uniform of word j % 4 of block offset + (b l + i) ceil (s / 4) +
 * j / 4 is at least p (compared in float, as the CPU's kernel does) */
DL_PHILOX_FN double
dl_philox_attention_scale (uint64_t seed,
                           uint64_t offset,
                           int64_t s,
                           int64_t row,
                           int64_t j,
                           double p)
{
  uint32_t x[4];
  const uint64_t counter = offset + (uint64_t)row * (uint64_t)((s + 3) / 4) + (uint64_t)(j / 4);

  dl_philox (seed, counter, x);
  if (!((x[j % 4] >> 8) * (1.0f / 16777216.0f) >= (float)p))
    return 0;
  return p < 1 ? 1.0 / (1.0 - p) : 0;
}
