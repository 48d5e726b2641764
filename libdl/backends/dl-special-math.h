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

/* The sum of the asymptotic series of I_nu (ax) e^-ax sqrt (2 pi ax), ax
 * large: sum_k (-1)^k prod_j (4 nu^2 - (2j - 1)^2) / (k! (8 ax)^k), stopped
 * at its smallest term */
DL_SPECIAL_FN double
dl_special_bessel_i_asymptotic (int nu, double ax)
{
  double sum = 1, t = 1;

  for (int k = 1; k < 30; k++)
    {
      double next = t * -(4.0 * nu * nu - (2.0 * k - 1) * (2.0 * k - 1)) / (k * 8 * ax);

      if (fabs (next) >= fabs (t))
        break;
      t = next;
      sum += t;
    }
  return sum;
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
  sum = dl_special_bessel_i_asymptotic (nu, ax);
  /* e^x split in two so that its square root's product stays finite as
   * long as the result is */
  t = exp (ax / 2);
  return odd * (t * (t * sum / sqrt (2 * DL_SPECIAL_PI * ax)));
}

/* d x / d alpha of a Gamma (alpha, 1) sample x, by implicit
 * differentiation of its distribution function P (alpha, x) (the
 * regularised lower incomplete gamma function):
 *   dx/dalpha = -(dP/dalpha) / (x^(alpha-1) e^-x / Gamma (alpha)),
 * dP/dalpha from the series P = sum_k x^(alpha+k) e^-x / Gamma (alpha+k+1)
 * differentiated term by term (each term times ln x - psi (alpha+k+1)).
 * 0 where x is not positive, NaN for a NaN or non-positive alpha. */
DL_SPECIAL_FN double
dl_special_standard_gamma_grad (double alpha, double x)
{
  double lx, t, psi, dsum, density;

  if (!(alpha > 0) || x != x)
    return NAN;
  if (!(x > 0))
    return 0;
  if (x == INFINITY)
    return INFINITY;
  lx = log (x);
  t = exp (alpha * lx - x - lgamma (alpha + 1));
  psi = dl_special_digamma (alpha + 1);
  dsum = t * (lx - psi);
  for (int k = 1; k < 10000000; k++)
    {
      double d;

      t *= x / (alpha + k);
      psi += 1 / (alpha + k);
      d = t * (lx - psi);
      dsum += d;
      /* past the largest term, once the terms no longer count */
      if (alpha + k > x && fabs (d) <= 1e-17 * fabs (dsum))
        break;
    }
  density = exp ((alpha - 1) * lx - x - lgamma (alpha));
  return -dsum / density;
}

/* The exponentially scaled modified Bessel function of the first kind,
 * e^-|x| I_nu (x) for nu 0 or 1: dl_special_bessel_i's series times e^-|x|
 * up to |x| = 40, its asymptotic series without the e^x above (finite for
 * every finite x). */
DL_SPECIAL_FN double
dl_special_bessel_ie (int nu, double x)
{
  double ax = fabs (x), odd = nu == 1 && x < 0 ? -1 : 1;

  if (x != x)
    return x;
  if (ax <= 40)
    return dl_special_bessel_i (nu, x) * exp (-ax);
  if (ax == INFINITY)
    return odd * 0.0;
  return odd * dl_special_bessel_i_asymptotic (nu, ax) / sqrt (2 * DL_SPECIAL_PI * ax);
}

/* e^(x^2) erfc (x): directly below x = 2, Laplace's continued fraction
 * erfc (x) = e^-x^2 / sqrt (pi) / (x + (1/2) / (x + 1 / (x + (3/2) / (x +
 * ...)))) from 2 on, evaluated from 60 terms deep; 2 e^(x^2) - erfcx (-x)
 * for negative x. */
DL_SPECIAL_FN double
dl_special_erfcx (double x)
{
  double f;

  if (x != x)
    return x;
  if (x < 0)
    {
      if (x < -26.7)
        return INFINITY;
      return 2 * exp (x * x) - dl_special_erfcx (-x);
    }
  if (x < 2)
    return exp (x * x) * erfc (x);
  if (x == INFINITY)
    return 0;
  f = x;
  for (int k = 60; k >= 1; k--)
    f = x + (k / 2.0) / f;
  return 1 / (sqrt (DL_SPECIAL_PI) * f);
}

/* ln of the standard normal distribution function: ln (erfc (-x / sqrt 2) / 2),
 * through erfcx where erfc would underflow and log1p near 1 */
DL_SPECIAL_FN double
dl_special_log_ndtr (double x)
{
  const double r = 0.70710678118654752440; /* 1 / sqrt 2 */

  if (x != x)
    return x;
  if (x < -1)
    return log (dl_special_erfcx (-x * r) / 2) - x * x / 2;
  if (x > 3)
    return log1p (-erfc (x * r) / 2);
  return log (erfc (-x * r) / 2);
}

/* The inverse of the standard normal distribution function: Acklam's
 * rational approximation (relative error below 1.2e-9), then two Newton
 * steps on erfc, which make it exact to rounding. -inf at 0, inf at 1, NaN
 * outside [0, 1]. */
DL_SPECIAL_FN double
dl_special_ndtri (double p)
{
  static const double a[]
      = { -3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
          1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00 };
  static const double b[] = { -5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                              6.680131188771972e+01, -1.328068155288572e+01 };
  static const double c[]
      = { -7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
          -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00 };
  static const double d[] = { 7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                              3.754408661907416e+00 };
  double q, r, x;

  if (!(p >= 0 && p <= 1))
    return NAN;
  if (p == 0)
    return -INFINITY;
  if (p == 1)
    return INFINITY;
  if (p < 0.02425 || p > 1 - 0.02425)
    {
      q = sqrt (-2 * log (p < 0.5 ? p : 1 - p));
      x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
          / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
      if (p > 0.5)
        x = -x;
    }
  else
    {
      q = p - 0.5;
      r = q * q;
      x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q
          / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
    }
  /* Newton on Phi (x) = p, Phi from erfc on the side where it is accurate
   * (above the median as 1 - p minus the upper tail, 1 - p exact there) */
  for (int i = 0; i < 2; i++)
    {
      double e = x < 0 ? 0.5 * erfc (-x / sqrt (2.0)) - p : (1 - p) - 0.5 * erfc (x / sqrt (2.0));
      double dens = exp (-x * x / 2) / sqrt (2 * DL_SPECIAL_PI);

      if (dens > 0)
        x -= e / dens;
    }
  return x;
}

/* The regularised incomplete gamma functions P (a, x) (@upper FALSE) and
 * Q (a, x) = 1 - P (@upper TRUE): P's power series below x = a + 1, Q's
 * continued fraction (modified Lentz) from there, each the complement of
 * the other. PyTorch's values at the edges: NaN for a negative a or x and
 * for a = x = 0; P (0, x > 0) = 1; P (a, 0) = 0; P (a, inf) = 1. */
DL_SPECIAL_FN double
dl_special_gammainc (double a, double x, int upper)
{
  const double eps = 1e-16, tiny = 1e-300;
  double front, p;

  if (a != a || x != x || a < 0 || x < 0 || (a == 0 && x == 0))
    return NAN;
  if (a == 0)
    return upper ? 0 : 1;
  if (x == 0)
    return upper ? 1 : 0;
  if (x == INFINITY)
    return upper ? 0 : 1;
  if (a == INFINITY)
    return upper ? 1 : 0;
  front = exp (a * log (x) - x - lgamma (a));
  if (x < a + 1)
    {
      double ap = a, del = 1 / a, sum = del;

      for (int n = 0; n < 100000; n++)
        {
          ap += 1;
          del *= x / ap;
          sum += del;
          if (fabs (del) < fabs (sum) * eps)
            break;
        }
      p = sum * front;
      return upper ? 1 - p : p;
    }
  else
    {
      double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d, q;

      for (int i = 1; i < 100000; i++)
        {
          double an = -i * (i - a), del;

          b += 2;
          d = an * d + b;
          if (fabs (d) < tiny)
            d = tiny;
          c = b + an / c;
          if (fabs (c) < tiny)
            c = tiny;
          d = 1 / d;
          del = d * c;
          h *= del;
          if (fabs (del - 1) < eps)
            break;
        }
      q = front * h;
      return upper ? q : 1 - q;
    }
}

/* The Hurwitz zeta function sum_k (k + q)^-x for real x: the first terms
 * summed, the rest by the Euler-Maclaurin formula ((2k)! / B_2k in the
 * table). inf at x = 1 and at the non-positive integer q, NaN for x below
 * 1 and for a negative q with a non-integer x. */
DL_SPECIAL_FN double
dl_special_zeta (double x, double q)
{
  static const double A[] = { 12.0,
                              -720.0,
                              30240.0,
                              -1209600.0,
                              47900160.0,
                              -1.8924375803183791606e9,
                              7.47242496e10,
                              -2.950130727918164224e12,
                              1.1646782814350067249e14,
                              -4.5979787224074726105e15,
                              1.8152105401943546773e17,
                              -7.1661652561756670113e18 };
  double s, a, b, k, w, t;
  int i;

  if (x != x || q != q)
    return NAN;
  if (x == 1)
    return INFINITY;
  if (x < 1)
    return NAN;
  if (q <= 0)
    {
      if (q == floor (q))
        return INFINITY;
      if (x != floor (x))
        return NAN;
    }
  s = pow (q, -x);
  a = q;
  b = 0;
  i = 0;
  while (i < 9 || a <= 9)
    {
      i++;
      a += 1;
      b = pow (a, -x);
      s += b;
      if (fabs (b / s) < 1e-17)
        return s;
    }
  w = a;
  s += b * w / (x - 1);
  s -= 0.5 * b;
  a = 1;
  k = 0;
  for (i = 0; i < 12; i++)
    {
      a *= x + k;
      b /= w;
      t = a * b / A[i];
      s += t;
      if (fabs (t / s) < 1e-17)
        break;
      k += 1;
      a *= x + k;
      b /= w;
      k += 1;
    }
  return s;
}
