/* dl-cuda-optim.cuh: one element of the CUDA module's optim_step slot
 * (dl-cuda-optim.cu), an inline function that nvcc compiles for the
 * device and g++ for the host (tests/c/test-cuda-nn.cpp compares it with
 * the CPU backend's slot).
 *
 * The update rules and their order of operations are the CPU's
 * (dl-cpu-optim.c, torch.optim 1.13's single-tensor code): each step
 * rounds to the element type, and the module is built without FMA
 * contraction, so results match the CPU's to its own contraction.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dl-cuda-kernels.cuh"

template <typename T>
DL_HD void
dl_cuda_optim_elem (const DlOptimStepArgs &a, int64_t i)
{
  T *p = (T *)a.param;
  const T *grad = (const T *)a.grad;
  T *s0 = (T *)a.state[0], *s1 = (T *)a.state[1], *s2 = (T *)a.state[2];
  const T wd = (T)a.weight_decay, neg_lr = (T)-a.lr, mom = (T)a.momentum;
  const bool has_wd = a.weight_decay != 0;
  T g = (a.maximize ? (T)-1 : (T)1) * grad[i];

  switch (a.kind)
    {
      case DL_OPTIM_SGD:
        if (has_wd)
          g = g + wd * p[i];
        if (a.momentum != 0)
          {
            T b = a.first_step ? g : s0[i] * mom + (T)(1 - a.dampening) * g;

            s0[i] = b;
            g = a.nesterov ? g + mom * b : b;
          }
        p[i] = p[i] + neg_lr * g;
        break;
      case DL_OPTIM_ADAM:
        {
          T pi = p[i], m, v, vv;

          if (a.decoupled)
            pi = pi * (T)(1 - a.lr * a.weight_decay);
          else if (has_wd)
            g = g + wd * pi;
          m = s0[i] * (T)a.beta1 + (T)(1 - a.beta1) * g;
          v = s1[i] * (T)a.beta2 + (T)(1 - a.beta2) * (g * g);
          s0[i] = m;
          s1[i] = v;
          vv = v;
          if (a.amsgrad)
            {
              vv = s2[i] > v || dl_cuda_isnan (s2[i]) ? s2[i] : v;
              s2[i] = vv;
            }
          p[i]
              = pi + (T)-a.step_size * (m / (dl_sqrt (vv) / (T)a.bias_correction2_sqrt + (T)a.eps));
        }
        break;
      case DL_OPTIM_RMSPROP:
        {
          const T alpha = (T)a.beta1, c = (T)(1 - a.beta1);
          T sq, avg;

          if (has_wd)
            g = g + wd * p[i];
          sq = s0[i] * alpha + c * (g * g);
          s0[i] = sq;
          if (a.centered)
            {
              T ga = s2[i] * alpha + c * g;

              s2[i] = ga;
              avg = dl_sqrt (sq + (T)-1 * (ga * ga));
            }
          else
            avg = dl_sqrt (sq);
          avg = avg + (T)a.eps;
          if (a.momentum > 0)
            {
              T b = s1[i] * mom + g / avg;

              s1[i] = b;
              p[i] = p[i] + neg_lr * b;
            }
          else
            p[i] = p[i] + neg_lr * (g / avg);
        }
        break;
      case DL_OPTIM_ADAGRAD:
        {
          T s;

          if (has_wd)
            g = g + wd * p[i];
          s = s0[i] + g * g;
          s0[i] = s;
          p[i] = p[i] + neg_lr * (g / (dl_sqrt (s) + (T)a.eps));
        }
        break;
      case DL_OPTIM_ADADELTA:
        {
          const T rho = (T)a.beta1, c = (T)(1 - a.beta1), eps = (T)a.eps;
          T sq, delta;

          if (has_wd)
            g = g + wd * p[i];
          sq = s0[i] * rho + c * (g * g);
          s0[i] = sq;
          delta = dl_sqrt (s1[i] + eps) / dl_sqrt (sq + eps) * g;
          s1[i] = s1[i] * rho + c * (delta * delta);
          p[i] = p[i] + neg_lr * delta;
        }
        break;
      case DL_OPTIM_ADAMAX:
        {
          T m, u, v;

          if (has_wd)
            g = g + wd * p[i];
          m = s0[i] * (T)a.beta1 + (T)(1 - a.beta1) * g;
          s0[i] = m;
          u = s1[i] * (T)a.beta2;
          v = (g < 0 ? -g : g) + (T)a.eps;
          u = u > v || dl_cuda_isnan (u) ? u : v;
          s1[i] = u;
          p[i] = p[i] + (T)-a.step_size * m / u;
        }
        break;
      case DL_OPTIM_NADAM:
      case DL_OPTIM_RADAM:
        {
          const T bc = (T)a.bias_correction, eps = (T)a.eps;
          T m, v;

          if (has_wd)
            g = g + wd * p[i];
          m = s0[i] * (T)a.beta1 + (T)(1 - a.beta1) * g;
          v = s1[i] * (T)a.beta2 + (T)(1 - a.beta2) * (g * g);
          s0[i] = m;
          s1[i] = v;
          if (a.kind == DL_OPTIM_NADAM)
            {
              T denom = dl_sqrt (v / bc) + eps;
              T pi = p[i] + (T)a.coef1 * g / denom;

              p[i] = pi + (T)a.coef2 * m / denom;
            }
          else if (a.rectified)
            p[i] = p[i]
                   + (T)-1
                         * (m / bc * (T)a.lr * ((T)a.bias_correction2_sqrt / (dl_sqrt (v) + eps))
                            * (T)a.coef1);
          else
            p[i] = p[i] + (T)-1 * (m / bc * (T)a.lr);
        }
        break;
      case DL_OPTIM_RPROP:
        {
          const T minus = (T)a.beta1, plus = (T)a.beta2;
          T d = g * s0[i], f, st;

          f = d > 0 ? plus : d < 0 ? minus : d == 0 ? (T)1 : d;
          st = s1[i] * f;
          st = st < (T)a.step_min ? (T)a.step_min : st > (T)a.step_max ? (T)a.step_max : st;
          s1[i] = st;
          if (f == minus)
            g = 0;
          p[i] = p[i] + (T)-1 * ((T)((g > 0) - (g < 0)) * st);
          s0[i] = g;
        }
        break;
      case DL_OPTIM_ASGD:
        {
          const T mu = (T)a.coef2;
          T pi;

          if (has_wd)
            g = g + wd * p[i];
          pi = p[i] * (T)a.coef1;
          pi = pi + neg_lr * g;
          p[i] = pi;
          s0[i] = mu != 1 ? s0[i] + (pi - s0[i]) * mu : pi;
        }
        break;
    }
}
