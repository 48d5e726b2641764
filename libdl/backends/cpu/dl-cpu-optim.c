/* dl-cpu-optim.c: the optimizers' fused updates, one pass over a
 * parameter, its gradient and its state, in the order of operations of
 * torch.optim 1.13's single-tensor code (each of its tensor ops rounds to
 * the element type; so does each step here):
 *
 *   SGD      g = ±grad [+ wd p];  b = first ? g : mom b + (1 - damp) g;
 *            g = nesterov ? g + mom b : b;  p = p - lr g
 *   Adam     g = ±grad [+ wd p]  (AdamW: p = p (1 - lr wd) instead)
 *            m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g g;
 *            [vmax = max (vmax, v)];  p = p - step_size m / (sqrt (v) / bc2 + eps)
 *   RMSprop  g = ±grad [+ wd p];  s = a s + (1 - a) g g;
 *            [c = a c + (1 - a) g;  avg = sqrt (s - c c)] else sqrt (s);
 *            avg += eps;  momentum: b = mom b + g / avg, p = p - lr b;
 *            else p = p - lr g / avg
 *   Adagrad  g = ±grad [+ wd p];  s = s + g g;  p = p - clr g / (sqrt (s) + eps)
 *   Adadelta g = ±grad [+ wd p];  s = rho s + (1 - rho) g g;
 *            d = sqrt (acc + eps) / sqrt (s + eps) g;
 *            acc = rho acc + (1 - rho) d d;  p = p - lr d
 *   Adamax   g = ±grad [+ wd p];  m = b1 m + (1 - b1) g;
 *            u = max (b2 u, |g| + eps);  p = p - clr m / u
 *   NAdam    g = grad [+ wd p];  m, v as Adam's;  den = sqrt (v / bc2) + eps;
 *            p = p + k1 g / den;  p = p + k2 m / den
 *   RAdam    g = grad [+ wd p];  m, v as Adam's;  rectified:
 *            p = p - m / bc1 lr (sqrt (bc2) / (sqrt (v) + eps)) rect;
 *            else p = p - m / bc1 lr
 *   Rprop    g = ±grad;  f = eta+, eta- or 1 as sign (g prev);
 *            step = clamp (step f, min, max);  g = 0 where f = eta-;
 *            p = p - sign (g) step;  prev = g
 *   ASGD     g = ±grad [+ wd p];  p = p (1 - lambd eta);  p = p - eta g;
 *            ax = mu != 1 ? ax + (p - ax) mu : p
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-cpu-private.h"

/* elements per block that one thread updates at a time */
#define OPTIM_BLOCK 16384

#define DEFINE_OPTIM_BLOCK(T, SQRT, SUFFIX)                                                        \
  static void optim_block_##SUFFIX (const DlOptimStepArgs *a, gint64 lo, gint64 hi)                \
  {                                                                                                \
    T *restrict p = (T *)a->param;                                                                 \
    const T *restrict grad = (const T *)a->grad;                                                   \
    T *restrict s0 = (T *)a->state[0];                                                             \
    T *restrict s1 = (T *)a->state[1];                                                             \
    T *restrict s2 = (T *)a->state[2];                                                             \
    const T sign = a->maximize ? (T)-1 : (T)1;                                                     \
    const T wd = (T)a->weight_decay, neg_lr = (T)-a->lr, mom = (T)a->momentum;                     \
    const gboolean has_wd = a->weight_decay != 0;                                                  \
                                                                                                   \
    switch (a->kind)                                                                               \
      {                                                                                            \
        case DL_OPTIM_SGD:                                                                         \
          {                                                                                        \
            const T damp1 = (T)(1 - a->dampening);                                                 \
            for (gint64 i = lo; i < hi; i++)                                                       \
              {                                                                                    \
                T g = sign * grad[i];                                                              \
                if (has_wd)                                                                        \
                  g = g + wd * p[i];                                                               \
                if (a->momentum != 0)                                                              \
                  {                                                                                \
                    T b = a->first_step ? g : s0[i] * mom + damp1 * g;                             \
                    s0[i] = b;                                                                     \
                    g = a->nesterov ? g + mom * b : b;                                             \
                  }                                                                                \
                p[i] = p[i] + neg_lr * g;                                                          \
              }                                                                                    \
          }                                                                                        \
          break;                                                                                   \
        case DL_OPTIM_ADAM:                                                                        \
          {                                                                                        \
            const T b1 = (T)a->beta1, c1 = (T)(1 - a->beta1);                                      \
            const T b2 = (T)a->beta2, c2 = (T)(1 - a->beta2);                                      \
            const T decay = (T)(1 - a->lr * a->weight_decay);                                      \
            const T bc2 = (T)a->bias_correction2_sqrt, eps = (T)a->eps;                            \
            const T neg_step = (T)-a->step_size;                                                   \
            const gboolean l2 = has_wd && !a->decoupled, decoupled = a->decoupled;                 \
            for (gint64 i = lo; i < hi; i++)                                                       \
              {                                                                                    \
                T g = sign * grad[i], pi = p[i], m, v, vv;                                         \
                if (decoupled)                                                                     \
                  pi = pi * decay;                                                                 \
                else if (l2)                                                                       \
                  g = g + wd * pi;                                                                 \
                m = s0[i] * b1 + c1 * g;                                                           \
                v = s1[i] * b2 + c2 * (g * g);                                                     \
                s0[i] = m;                                                                         \
                s1[i] = v;                                                                         \
                vv = v;                                                                            \
                if (a->amsgrad)                                                                    \
                  {                                                                                \
                    vv = s2[i] > v || isnan (s2[i]) ? s2[i] : v;                                   \
                    s2[i] = vv;                                                                    \
                  }                                                                                \
                p[i] = pi + neg_step * (m / (SQRT (vv) / bc2 + eps));                              \
              }                                                                                    \
          }                                                                                        \
          break;                                                                                   \
        case DL_OPTIM_RMSPROP:                                                                     \
          {                                                                                        \
            const T alpha = (T)a->beta1, c = (T)(1 - a->beta1), eps = (T)a->eps;                   \
            for (gint64 i = lo; i < hi; i++)                                                       \
              {                                                                                    \
                T g = sign * grad[i], sq, avg;                                                     \
                if (has_wd)                                                                        \
                  g = g + wd * p[i];                                                               \
                sq = s0[i] * alpha + c * (g * g);                                                  \
                s0[i] = sq;                                                                        \
                if (a->centered)                                                                   \
                  {                                                                                \
                    T ga = s2[i] * alpha + c * g;                                                  \
                    s2[i] = ga;                                                                    \
                    avg = SQRT (sq + (T)-1 * (ga * ga));                                           \
                  }                                                                                \
                else                                                                               \
                  avg = SQRT (sq);                                                                 \
                avg = avg + eps;                                                                   \
                if (a->momentum > 0)                                                               \
                  {                                                                                \
                    T b = s1[i] * mom + g / avg;                                                   \
                    s1[i] = b;                                                                     \
                    p[i] = p[i] + neg_lr * b;                                                      \
                  }                                                                                \
                else                                                                               \
                  p[i] = p[i] + neg_lr * (g / avg);                                                \
              }                                                                                    \
          }                                                                                        \
          break;                                                                                   \
        case DL_OPTIM_ADAGRAD:                                                                     \
          {                                                                                        \
            const T eps = (T)a->eps;                                                               \
            for (gint64 i = lo; i < hi; i++)                                                       \
              {                                                                                    \
                T g = sign * grad[i], s;                                                           \
                if (has_wd)                                                                        \
                  g = g + wd * p[i];                                                               \
                s = s0[i] + g * g;                                                                 \
                s0[i] = s;                                                                         \
                p[i] = p[i] + neg_lr * (g / (SQRT (s) + eps));                                     \
              }                                                                                    \
          }                                                                                        \
          break;                                                                                   \
        case DL_OPTIM_ADADELTA:                                                                    \
          {                                                                                        \
            const T rho = (T)a->beta1, c = (T)(1 - a->beta1), eps = (T)a->eps;                     \
            for (gint64 i = lo; i < hi; i++)                                                       \
              {                                                                                    \
                T g = sign * grad[i], sq, delta;                                                   \
                if (has_wd)                                                                        \
                  g = g + wd * p[i];                                                               \
                sq = s0[i] * rho + c * (g * g);                                                    \
                s0[i] = sq;                                                                        \
                delta = SQRT (s1[i] + eps) / SQRT (sq + eps) * g;                                  \
                s1[i] = s1[i] * rho + c * (delta * delta);                                         \
                p[i] = p[i] + neg_lr * delta;                                                      \
              }                                                                                    \
          }                                                                                        \
          break;                                                                                   \
        case DL_OPTIM_ADAMAX:                                                                      \
          {                                                                                        \
            const T b1 = (T)a->beta1, c1 = (T)(1 - a->beta1), b2 = (T)a->beta2;                    \
            const T eps = (T)a->eps, neg_step = (T)-a->step_size;                                  \
            for (gint64 i = lo; i < hi; i++)                                                       \
              {                                                                                    \
                T g = sign * grad[i], m, u, v;                                                     \
                if (has_wd)                                                                        \
                  g = g + wd * p[i];                                                               \
                m = s0[i] * b1 + c1 * g;                                                           \
                s0[i] = m;                                                                         \
                u = s1[i] * b2;                                                                    \
                v = (g < 0 ? -g : g) + eps;                                                        \
                u = u > v || isnan (u) ? u : v;                                                    \
                s1[i] = u;                                                                         \
                p[i] = p[i] + neg_step * m / u;                                                    \
              }                                                                                    \
          }                                                                                        \
          break;                                                                                   \
        case DL_OPTIM_NADAM:                                                                       \
        case DL_OPTIM_RADAM:                                                                       \
          {                                                                                        \
            const T b1 = (T)a->beta1, c1 = (T)(1 - a->beta1);                                      \
            const T b2 = (T)a->beta2, c2 = (T)(1 - a->beta2), eps = (T)a->eps;                     \
            const T bc = (T)a->bias_correction, k1 = (T)a->coef1, k2 = (T)a->coef2;                \
            const T lr = (T)a->lr, bc2 = (T)a->bias_correction2_sqrt;                              \
            const gboolean nadam = a->kind == DL_OPTIM_NADAM;                                      \
            for (gint64 i = lo; i < hi; i++)                                                       \
              {                                                                                    \
                T g = sign * grad[i], m, v;                                                        \
                if (has_wd)                                                                        \
                  g = g + wd * p[i];                                                               \
                m = s0[i] * b1 + c1 * g;                                                           \
                v = s1[i] * b2 + c2 * (g * g);                                                     \
                s0[i] = m;                                                                         \
                s1[i] = v;                                                                         \
                if (nadam)                                                                         \
                  {                                                                                \
                    T denom = SQRT (v / bc) + eps;                                                 \
                    T pi = p[i] + k1 * g / denom;                                                  \
                    p[i] = pi + k2 * m / denom;                                                    \
                  }                                                                                \
                else if (a->rectified)                                                             \
                  p[i] = p[i] + (T)-1 * (m / bc * lr * (bc2 / (SQRT (v) + eps)) * k1);             \
                else                                                                               \
                  p[i] = p[i] + (T)-1 * (m / bc * lr);                                             \
              }                                                                                    \
          }                                                                                        \
          break;                                                                                   \
        case DL_OPTIM_RPROP:                                                                       \
          {                                                                                        \
            const T minus = (T)a->beta1, plus = (T)a->beta2;                                       \
            const T lo_step = (T)a->step_min, hi_step = (T)a->step_max;                            \
            for (gint64 i = lo; i < hi; i++)                                                       \
              {                                                                                    \
                T g = sign * grad[i], d = g * s0[i], f, st;                                        \
                f = d > 0 ? plus : d < 0 ? minus : d == 0 ? (T)1 : d;                              \
                st = s1[i] * f;                                                                    \
                st = st < lo_step ? lo_step : st > hi_step ? hi_step : st;                         \
                s1[i] = st;                                                                        \
                if (f == minus)                                                                    \
                  g = 0;                                                                           \
                p[i] = p[i] + (T)-1 * ((T)((g > 0) - (g < 0)) * st);                               \
                s0[i] = g;                                                                         \
              }                                                                                    \
          }                                                                                        \
          break;                                                                                   \
        case DL_OPTIM_ASGD:                                                                        \
          {                                                                                        \
            const T decay = (T)a->coef1, mu = (T)a->coef2;                                         \
            for (gint64 i = lo; i < hi; i++)                                                       \
              {                                                                                    \
                T g = sign * grad[i], pi;                                                          \
                if (has_wd)                                                                        \
                  g = g + wd * p[i];                                                               \
                pi = p[i] * decay;                                                                 \
                pi = pi + neg_lr * g;                                                              \
                p[i] = pi;                                                                         \
                s0[i] = mu != 1 ? s0[i] + (pi - s0[i]) * mu : pi;                                  \
              }                                                                                    \
          }                                                                                        \
          break;                                                                                   \
        default:                                                                                   \
          g_assert_not_reached ();                                                                 \
      }                                                                                            \
  }

DL_CPU_CLONES
DEFINE_OPTIM_BLOCK (float, sqrtf, f32)
DL_CPU_CLONES
DEFINE_OPTIM_BLOCK (double, sqrt, f64)

void
dl_cpu_optim_step (DlBackendContext *ctx, const DlOptimStepArgs *args, DlDType dtype)
{
  gint64 n = args->n;
  gint64 n_blocks = (n + OPTIM_BLOCK - 1) / OPTIM_BLOCK;
  gboolean wide = dtype == DL_DTYPE_FLOAT64;

  g_return_if_fail (dtype == DL_DTYPE_FLOAT32 || wide);
  DL_CPU_FOR_IF (n >= DL_CPU_GRAIN, for (gint64 b = 0; b < n_blocks; b++) {
    gint64 lo = b * OPTIM_BLOCK, hi = MIN (n, lo + OPTIM_BLOCK);

    if (wide)
      optim_block_f64 (args, lo, hi);
    else
      optim_block_f32 (args, lo, hi);
  });
}
