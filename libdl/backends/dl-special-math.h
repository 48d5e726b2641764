/* dl-special-math.h: the special functions of the pointwise kernels
 * (erfinv, digamma, polygamma, the modified Bessel functions i0 and i1,
 * sinc), shared by the CPU backend (dl-cpu-math.c) and the CUDA module's
 * kernel bodies (cuda/dl-cuda-kernels.cuh): plain C on doubles, marked
 * __host__ __device__ under nvcc. float32 kernels call them on doubles and
 * round once.
 *
 * The values at poles and outside the domains are PyTorch 1.13's:
 * digamma (+0) = -inf, digamma (-0) = +inf, NaN at the negative integers
 * and at -inf; polygamma (n, x) = +inf at the non-positive integers;
 * erfinv (+-1) = +-inf and NaN outside [-1, 1]; i0 (+-inf) = i1 (+-inf) = NaN.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <math.h>

#ifdef __CUDACC__
#define DL_SPECIAL_FN static inline __host__ __device__
#else
#define DL_SPECIAL_FN static inline
#endif

#define DL_SPECIAL_PI 3.14159265358979323846
#define DL_SPECIAL_2_SQRTPI 1.12837916709551257390 /* 2 / sqrt (pi) */

/* sin (pi x) / (pi x), 1 at 0 */
DL_SPECIAL_FN double
dl_special_sinc (double x)
{
  double px;

  if (x == 0)
    return 1;
  px = DL_SPECIAL_PI * x;
  return sin (px) / px;
}

/* The inverse of erf on [-1, 1]. Winitzki's closed-form approximation of
 * the inverse (relative error about 2e-3) starts Newton's iteration, on
 * erf (x) = y near 0 and on erfc (x) = 1 - |y| in the tails, where 1 - |y|
 * is exact and erf's cancellation would lose the digits. */
DL_SPECIAL_FN double
dl_special_erfinv (double y)
{
  const double a = 0.147;
  double ay = fabs (y), l, b, x;

  if (!(ay <= 1)) /* NaN too */
    return ay > 1 ? NAN : y;
  if (ay == 1)
    return y > 0 ? INFINITY : -INFINITY;
  if (y == 0)
    return y;
  l = log ((1 - ay) * (1 + ay));
  b = 2 / (DL_SPECIAL_PI * a) + l / 2;
  x = sqrt (sqrt (b * b - l / a) - b);
  for (int i = 0; i < 4; i++)
    {
      double f = ay <= 0.5 ? erf (x) - ay : (1 - ay) - erfc (x);
      double d = DL_SPECIAL_2_SQRTPI * exp (-x * x);

      if (d == 0)
        break;
      x -= f / d;
    }
  return y < 0 ? -x : x;
}

/* The Hurwitz zeta function sum over k >= 0 of (q + k)^-s for an integer
 * s >= 2: the first terms summed until q + k >= 16, the rest by the
 * Euler-Maclaurin formula with the Bernoulli numbers B2 to B12. A
 * non-positive integer q is a pole (+inf). */
DL_SPECIAL_FN double
dl_special_hurwitz_zeta (int s, double q)
{
  /* B2k / (2k)! */
  const double b[6] = { 1.0 / 12,       -1.0 / 720,     1.0 / 30240,
                        -1.0 / 1209600, 1.0 / 47900160, -691.0 / 1307674368000.0 };
  double sum = 0, a, an, rising, t;

  if (q != q)
    return q;
  if (q <= 0 && q == floor (q))
    return INFINITY;
  if (q == INFINITY)
    return 0;
  if (q == -INFINITY)
    return NAN;
  while (q < 16)
    {
      sum += pow (q, (double)-s);
      q += 1;
    }
  a = q;
  an = pow (a, (double)-s);
  sum += a * an / (s - 1) + an / 2;
  /* term j: B2j / (2j)! s (s + 1) ... (s + 2j - 2) a^(-s - 2j + 1) */
  rising = s;
  t = an / a;
  for (int j = 0; j < 6; j++)
    {
      sum += b[j] * rising * t;
      rising *= (double)(s + 2 * j + 1) * (s + 2 * j + 2);
      t /= a * a;
    }
  return sum;
}

/* The n-th derivative of digamma, n >= 1: (-1)^(n+1) n! zeta (n + 1, x) */
DL_SPECIAL_FN double
dl_special_polygamma (int n, double x)
{
  double f = 1;

  for (int k = 2; k <= n; k++)
    f *= k;
  return ((n & 1) ? f : -f) * dl_special_hurwitz_zeta (n + 1, x);
}

/* The logarithmic derivative of the gamma function: reflected below 0,
 * moved up by the recurrence psi (x) = psi (x + 1) - 1 / x until x >= 16,
 * then the asymptotic series ln x - 1 / (2x) - sum B2k / (2k x^2k). */
DL_SPECIAL_FN double
dl_special_digamma (double x)
{
  double r = 0, x2;

  if (x == 0)
    return x < 0 || signbit (x) ? INFINITY : -INFINITY;
  if (x != x || x == INFINITY)
    return x;
  if (x < 0)
    {
      if (x == floor (x)) /* -inf too */
        return NAN;
      /* psi (x) = psi (1 - x) - pi / tan (pi x); tan of the fractional
       * part, exact, rather than of a large multiple of pi */
      r = -DL_SPECIAL_PI / tan (DL_SPECIAL_PI * (x - floor (x)));
      x = 1 - x;
    }
  while (x < 16) /* the series' first term left out is below 1e-16 there */
    {
      r -= 1 / x;
      x += 1;
    }
  x2 = 1 / (x * x);
  return r + log (x) - 0.5 / x
         - x2 * (1.0 / 12 - x2 * (1.0 / 120 - x2 * (1.0 / 252 - x2 * (1.0 / 240 - x2 / 132))));
}

/* The modified Bessel function of the first kind of order nu (0 or 1):
 * the power series (x/2)^nu sum (x^2/4)^k / (k! (k + nu)!), of positive
 * terms, up to |x| = 40; above, the asymptotic series
 * e^x / sqrt (2 pi x) sum_k (-1)^k prod_j (4 nu^2 - (2j - 1)^2) / (k! (8x)^k),
 * stopped at its smallest term. */
DL_SPECIAL_FN double
dl_special_bessel_i (int nu, double x)
{
  double ax = fabs (x), sum, t, odd = nu == 1 && x < 0 ? -1 : 1;

  if (x != x)
    return x;
  if (ax <= 40)
    {
      double q = ax * ax / 4;

      t = nu == 1 ? ax / 2 : 1;
      sum = t;
      for (int k = 1; k < 500; k++)
        {
          t *= q / ((double)k * (k + nu));
          sum += t;
          if (t < sum * 1e-17)
            break;
        }
      return odd * sum;
    }
  if (ax == INFINITY) /* PyTorch 1.13's value, where its expansion gives inf * 0 */
    return NAN;
  sum = 1;
  t = 1;
  for (int k = 1; k < 30; k++)
    {
      double next = t * -(4.0 * nu * nu - (2.0 * k - 1) * (2.0 * k - 1)) / (k * 8 * ax);

      if (fabs (next) >= fabs (t))
        break;
      t = next;
      sum += t;
    }
  /* e^x split in two so that its square root's product stays finite as
   * long as the result is */
  t = exp (ax / 2);
  return odd * (t * (t * sum / sqrt (2 * DL_SPECIAL_PI * ax)));
}
