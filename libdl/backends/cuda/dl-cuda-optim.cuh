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
    }
}
