/* dl-cpu-rnn.c: the fused recurrent kernels (tanh/relu RNN, LSTM, GRU),
 * one layer in one direction over a packed sequence (see DlRnnArgs).
 *
 * Forward: the input projection of every step is one GEMM, x [n, I] times
 * w_ih^T into the gates buffer; then per step one GEMM of the previous
 * states by w_hh^T, and one pass over the step's rows that adds both
 * biases, applies the gate nonlinearities, computes the new c and h and
 * writes the activated gates back over the input projection (what the
 * backward reads). PyTorch's formulas and gate order:
 *   LSTM  i, f, g, o = sig, sig, tanh, sig (x w_ih^T + b_ih + h w_hh^T + b_hh)
 *         c' = f c + i g,  h' = o tanh (c')  (then h' w_hr^T with proj_size)
 *   GRU   r, z = sig (x w_ir^T + b_ir + h w_hr^T + b_hr), same for z
 *         n = tanh (x w_in^T + b_in + r (h w_hn^T + b_hn))
 *         h' = (1 - z) n + z h
 *   RNN   h' = tanh or relu (x w_ih^T + b_ih + h w_hh^T + b_hh)
 * Backward through time: per step (last to first) one pass over the rows
 * computes the gates' gradients from the saved gates, then one GEMM gives
 * the previous state's gradient; after the loop the weights' gradients are
 * single GEMMs over all n rows (dW_ih = dG^T x, dW_hh = dG^T h_prev) and
 * dx = dG w_ih; the biases' are dG^T times a column of ones.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dl-cpu-private.h"

/* a step's row pass runs on the threads from this many gate values */
#define RNN_PASS_GRAIN 8192

static inline G_ALWAYS_INLINE float
sigmoid_f (float v)
{
  return 1.0f / (1.0f + dl_expf (-v));
}

static inline G_ALWAYS_INLINE float
tanh_f (float v)
{
  float e = dl_expf (-2.0f * fabsf (v));
  float r = (1.0f - e) / (1.0f + e);
  return v < 0 ? -r : r;
}

static inline G_ALWAYS_INLINE double
sigmoid_d (double v)
{
  return 1.0 / (1.0 + exp (-v));
}

static inline G_ALWAYS_INLINE double
tanh_d (double v)
{
  return tanh (v);
}

static gint
rnn_gate_count (DlRnnCellKind cell)
{
  return cell == DL_RNN_CELL_LSTM ? 4 : cell == DL_RNN_CELL_GRU ? 3 : 1;
}

/* the first row of each step, and the total (steps + 1 entries) */
static gint64 *
step_offsets (const DlRnnArgs *a)
{
  gint64 *off = g_new (gint64, a->steps + 1);

  off[0] = 0;
  for (gint64 t = 0; t < a->steps; t++)
    off[t + 1] = off[t] + a->batch_sizes[t];
  return off;
}

#define DEFINE_RNN(S, T, DT)                                                                       \
  /* one step's rows [0, bs): gx the step's input projection (overwritten                          \
   * with the activated gates), gh the hidden one, h and c the running                             \
   * states ([batch, ho], [batch, h]) */                                                           \
  DL_CPU_CLONES static void rnn_cells_##S (const DlRnnArgs *a, gint64 bs, T *gx, const T *gh,      \
                                           const T *bias, const T *bhn, T *h, T *c, T *cells,      \
                                           T *y, T *m)                                             \
  {                                                                                                \
    const gint64 H = a->hidden_size, HO = a->proj_size ? a->proj_size : H;                         \
    const gint64 GH = (gint64)rnn_gate_count (a->cell) * H;                                        \
    const gint mode = a->cell;                                                                     \
    DL_CPU_FOR_IF (                                                                                \
        bs *GH >= RNN_PASS_GRAIN, for (gint64 r = 0; r < bs; r++) {                                \
          T *g = gx + r * GH;                                                                      \
          const T *q = gh + r * GH;                                                                \
          T *hr = h + r * HO, *yr = y + r * HO;                                                    \
          if (mode == DL_RNN_CELL_LSTM)                                                            \
            {                                                                                      \
              T *cr = c + r * H, *sr = cells + r * H, *mr = m ? m + r * H : yr;                    \
              _Pragma ("omp simd") for (gint64 j = 0; j < H; j++)                                  \
              {                                                                                    \
                T i = sigmoid_##S (g[j] + q[j] + bias[j]);                                         \
                T f = sigmoid_##S (g[H + j] + q[H + j] + bias[H + j]);                             \
                T gg = tanh_##S (g[2 * H + j] + q[2 * H + j] + bias[2 * H + j]);                   \
                T o = sigmoid_##S (g[3 * H + j] + q[3 * H + j] + bias[3 * H + j]);                 \
                T cn = f * cr[j] + i * gg;                                                         \
                g[j] = i;                                                                          \
                g[H + j] = f;                                                                      \
                g[2 * H + j] = gg;                                                                 \
                g[3 * H + j] = o;                                                                  \
                cr[j] = cn;                                                                        \
                sr[j] = cn;                                                                        \
                mr[j] = o * tanh_##S (cn);                                                         \
              }                                                                                    \
              if (!m)                                                                              \
                memcpy (hr, yr, H * sizeof (T));                                                   \
            }                                                                                      \
          else if (mode == DL_RNN_CELL_GRU)                                                        \
            {                                                                                      \
              T *sr = cells + r * H;                                                               \
              _Pragma ("omp simd") for (gint64 j = 0; j < H; j++)                                  \
              {                                                                                    \
                T rr = sigmoid_##S (g[j] + q[j] + bias[j]);                                        \
                T z = sigmoid_##S (g[H + j] + q[H + j] + bias[H + j]);                             \
                T hn = q[2 * H + j] + bhn[j];                                                      \
                T n = tanh_##S (g[2 * H + j] + bias[2 * H + j] + rr * hn);                         \
                T hv = n + z * (hr[j] - n);                                                        \
                g[j] = rr;                                                                         \
                g[H + j] = z;                                                                      \
                g[2 * H + j] = n;                                                                  \
                sr[j] = hn;                                                                        \
                yr[j] = hv;                                                                        \
                hr[j] = hv;                                                                        \
              }                                                                                    \
            }                                                                                      \
          else                                                                                     \
            {                                                                                      \
              const gboolean relu = mode == DL_RNN_CELL_RELU;                                      \
              _Pragma ("omp simd") for (gint64 j = 0; j < H; j++)                                  \
              {                                                                                    \
                T v = g[j] + q[j] + bias[j];                                                       \
                T hv = relu ? (v > 0 ? v : 0) : tanh_##S (v);                                      \
                g[j] = hv;                                                                         \
                yr[j] = hv;                                                                        \
                hr[j] = hv;                                                                        \
              }                                                                                    \
            }                                                                                      \
        });                                                                                        \
  }                                                                                                \
                                                                                                   \
  static void rnn_forward_##S (const DlRnnArgs *a)                                                 \
  {                                                                                                \
    const gint64 B = a->batch, I = a->input_size, H = a->hidden_size;                              \
    const gint64 P = a->proj_size, HO = P ? P : H;                                                 \
    const gint G = rnn_gate_count (a->cell);                                                       \
    const gint64 GH = G * H;                                                                       \
    const gboolean lstm = a->cell == DL_RNN_CELL_LSTM;                                             \
    g_autofree gint64 *off = step_offsets (a);                                                     \
    g_autofree T *gh = g_new (T, MAX (B * GH, 1));                                                 \
    g_autofree T *bias = g_new0 (T, GH);                                                           \
    g_autofree T *bhn = g_new0 (T, H);                                                             \
    const T *b_ih = a->b_ih, *b_hh = a->b_hh;                                                      \
    T *gates = a->gates, *h = a->h_n, *c = a->c_n;                                                 \
                                                                                                   \
    /* both biases summed once (GRU: b_hn stays apart, inside r (...)) */                          \
    for (gint64 k = 0; k < GH; k++)                                                                \
      {                                                                                            \
        const gboolean hn = a->cell == DL_RNN_CELL_GRU && k >= 2 * H;                              \
        bias[k] = (b_ih ? b_ih[k] : 0) + (b_hh && !hn ? b_hh[k] : 0);                              \
        if (hn && b_hh)                                                                            \
          bhn[k - 2 * H] = b_hh[k];                                                                \
      }                                                                                            \
    memcpy (h, a->h0, B *HO * sizeof (T));                                                         \
    if (lstm)                                                                                      \
      memcpy (c, a->c0, B *H * sizeof (T));                                                        \
    dl_cpu_blas_gemm_ex (DT, FALSE, TRUE, off[a->steps], GH, I, a->x, I, a->w_ih, I, 0.0, gates,   \
                         GH);                                                                      \
    for (gint64 s = 0; s < a->steps; s++)                                                          \
      {                                                                                            \
        const gint64 t = a->reverse ? a->steps - 1 - s : s;                                        \
        const gint64 bs = a->batch_sizes[t], o = off[t];                                           \
        T *hp = (T *)a->hprev + o * HO;                                                            \
        T *y = (T *)a->y + o * HO;                                                                 \
                                                                                                   \
        memcpy (hp, h, bs *HO * sizeof (T));                                                       \
        if (lstm)                                                                                  \
          memcpy ((T *)a->cprev + o * H, c, bs * H * sizeof (T));                                  \
        dl_cpu_blas_gemm_ex (DT, FALSE, TRUE, bs, GH, HO, hp, HO, a->w_hh, HO, 0.0, gh, GH);       \
        rnn_cells_##S (a, bs, gates + o * GH, gh, bias, bhn, h, c,                                 \
                       a->cells ? (T *)a->cells + o * H : NULL, y, P ? (T *)a->m + o * H : NULL);  \
        if (P)                                                                                     \
          {                                                                                        \
            dl_cpu_blas_gemm_ex (DT, FALSE, TRUE, bs, P, H, (T *)a->m + o * H, H, a->w_hr, H, 0.0, \
                                 y, P);                                                            \
            memcpy (h, y, bs *P * sizeof (T));                                                     \
          }                                                                                        \
      }                                                                                            \
  }                                                                                                \
                                                                                                   \
  /* one step's gate gradients for rows [0, bs): dh the running gradient                           \
   * of the states ([batch, ho]; for a GRU its rows become the direct part                         \
   * of the previous state's), dm that of o tanh (c) (dh without a                                 \
   * projection), dc that of the cells */                                                          \
  DL_CPU_CLONES static void rnn_cells_backward_##S (const DlRnnArgs *a, gint64 bs, gint64 o,       \
                                                    T *dh, const T *dm, T *dc)                     \
  {                                                                                                \
    const gint64 H = a->hidden_size, HO = a->proj_size ? a->proj_size : H;                         \
    const gint64 GH = (gint64)rnn_gate_count (a->cell) * H;                                        \
    const gint mode = a->cell;                                                                     \
    const T *gates = (const T *)a->gates + o * GH;                                                 \
    T *dgx = (T *)a->dgx + o * GH;                                                                 \
    DL_CPU_FOR_IF (                                                                                \
        bs *GH >= RNN_PASS_GRAIN, for (gint64 r = 0; r < bs; r++) {                                \
          const T *g = gates + r * GH;                                                             \
          T *d = dgx + r * GH;                                                                     \
          if (mode == DL_RNN_CELL_LSTM)                                                            \
            {                                                                                      \
              const T *cr = (const T *)a->cells + (o + r) * H;                                     \
              const T *cp = (const T *)a->cprev + (o + r) * H;                                     \
              const T *dmr = dm + r * H;                                                           \
              T *dcr = dc + r * H;                                                                 \
              _Pragma ("omp simd") for (gint64 j = 0; j < H; j++)                                  \
              {                                                                                    \
                T i = g[j], f = g[H + j], gg = g[2 * H + j], og = g[3 * H + j];                    \
                T tc = tanh_##S (cr[j]);                                                           \
                T dct = dcr[j] + dmr[j] * og * (1 - tc * tc);                                      \
                d[j] = dct * gg * i * (1 - i);                                                     \
                d[H + j] = dct * cp[j] * f * (1 - f);                                              \
                d[2 * H + j] = dct * i * (1 - gg * gg);                                            \
                d[3 * H + j] = dmr[j] * tc * og * (1 - og);                                        \
                dcr[j] = dct * f;                                                                  \
              }                                                                                    \
            }                                                                                      \
          else if (mode == DL_RNN_CELL_GRU)                                                        \
            {                                                                                      \
              const T *hn = (const T *)a->cells + (o + r) * H;                                     \
              const T *hp = (const T *)a->hprev + (o + r) * HO;                                    \
              T *e = (T *)a->dgh + (o + r) * GH;                                                   \
              T *dhr = dh + r * HO;                                                                \
              _Pragma ("omp simd") for (gint64 j = 0; j < H; j++)                                  \
              {                                                                                    \
                T rr = g[j], z = g[H + j], n = g[2 * H + j];                                       \
                T dhv = dhr[j];                                                                    \
                T dnp = dhv * (1 - z) * (1 - n * n);                                               \
                T dr = dnp * hn[j] * rr * (1 - rr);                                                \
                T dz = dhv * (hp[j] - n) * z * (1 - z);                                            \
                d[j] = e[j] = dr;                                                                  \
                d[H + j] = e[H + j] = dz;                                                          \
                d[2 * H + j] = dnp;                                                                \
                e[2 * H + j] = dnp * rr;                                                           \
                dhr[j] = dhv * z;                                                                  \
              }                                                                                    \
            }                                                                                      \
          else                                                                                     \
            {                                                                                      \
              const gboolean relu = mode == DL_RNN_CELL_RELU;                                      \
              const T *dhr = dh + r * HO;                                                          \
              _Pragma ("omp simd") for (gint64 j = 0; j < H; j++)                                  \
              {                                                                                    \
                T hv = g[j];                                                                       \
                d[j] = relu ? (hv > 0 ? dhr[j] : 0) : dhr[j] * (1 - hv * hv);                      \
              }                                                                                    \
            }                                                                                      \
        });                                                                                        \
  }                                                                                                \
                                                                                                   \
  static void rnn_backward_##S (const DlRnnArgs *a)                                                \
  {                                                                                                \
    const gint64 B = a->batch, I = a->input_size, H = a->hidden_size;                              \
    const gint64 P = a->proj_size, HO = P ? P : H;                                                 \
    const gint64 GH = (gint64)rnn_gate_count (a->cell) * H;                                        \
    const gboolean lstm = a->cell == DL_RNN_CELL_LSTM, gru = a->cell == DL_RNN_CELL_GRU;           \
    g_autofree gint64 *off = step_offsets (a);                                                     \
    const gint64 N = off[a->steps];                                                                \
    g_autofree T *dh_own = a->dh0 ? NULL : g_new (T, MAX (B * HO, 1));                             \
    g_autofree T *dc_own = lstm && !a->dc0 ? g_new (T, MAX (B * H, 1)) : NULL;                     \
    g_autofree T *dm_own = P ? g_new (T, MAX (B * H, 1)) : NULL;                                   \
    T *dh = a->dh0 ? a->dh0 : dh_own, *dc = lstm ? (a->dc0 ? a->dc0 : dc_own) : NULL;              \
    const T *dgh = gru ? a->dgh : a->dgx;                                                          \
                                                                                                   \
    if (a->dh_n)                                                                                   \
      memcpy (dh, a->dh_n, B *HO * sizeof (T));                                                    \
    else                                                                                           \
      memset (dh, 0, B *HO * sizeof (T));                                                          \
    if (lstm && a->dc_n)                                                                           \
      memcpy (dc, a->dc_n, B *H * sizeof (T));                                                     \
    else if (lstm)                                                                                 \
      memset (dc, 0, B *H * sizeof (T));                                                           \
    for (gint64 s = a->steps - 1; s >= 0; s--)                                                     \
      {                                                                                            \
        const gint64 t = a->reverse ? a->steps - 1 - s : s;                                        \
        const gint64 bs = a->batch_sizes[t], o = off[t];                                           \
        const T *dm = dh;                                                                          \
                                                                                                   \
        if (a->dy)                                                                                 \
          {                                                                                        \
            const T *dy = (const T *)a->dy + o * HO;                                               \
            _Pragma ("omp simd") for (gint64 k = 0; k < bs * HO; k++) dh[k] += dy[k];              \
          }                                                                                        \
        if (P)                                                                                     \
          {                                                                                        \
            memcpy ((T *)a->dhs + o * P, dh, bs * P * sizeof (T));                                 \
            dl_cpu_blas_gemm_ex (DT, FALSE, FALSE, bs, H, P, dh, P, a->w_hr, H, 0.0, dm_own, H);   \
            dm = dm_own;                                                                           \
          }                                                                                        \
        rnn_cells_backward_##S (a, bs, o, dh, dm, dc);                                             \
        dl_cpu_blas_gemm_ex (DT, FALSE, FALSE, bs, HO, GH, (const T *)dgh + o * GH, GH, a->w_hh,   \
                             HO, gru ? 1.0 : 0.0, dh, HO);                                         \
      }                                                                                            \
    if (a->dx)                                                                                     \
      dl_cpu_blas_gemm_ex (DT, FALSE, FALSE, N, I, GH, a->dgx, GH, a->w_ih, I, 0.0, a->dx, I);     \
    if (a->dw_ih)                                                                                  \
      dl_cpu_blas_gemm_ex (DT, TRUE, FALSE, GH, I, N, a->dgx, GH, a->x, I, 0.0, a->dw_ih, I);      \
    if (a->dw_hh)                                                                                  \
      dl_cpu_blas_gemm_ex (DT, TRUE, FALSE, GH, HO, N, dgh, GH, a->hprev, HO, 0.0, a->dw_hh, HO);  \
    if (a->dw_hr)                                                                                  \
      dl_cpu_blas_gemm_ex (DT, TRUE, FALSE, P, H, N, a->dhs, P, a->m, H, 0.0, a->dw_hr, H);        \
    if (a->db_ih || a->db_hh)                                                                      \
      {                                                                                            \
        g_autofree T *ones = g_new (T, MAX (N, 1));                                                \
        for (gint64 k = 0; k < N; k++)                                                             \
          ones[k] = 1;                                                                             \
        if (a->db_ih)                                                                              \
          dl_cpu_blas_gemm_ex (DT, TRUE, FALSE, GH, 1, N, a->dgx, GH, ones, 1, 0.0, a->db_ih, 1);  \
        if (a->db_hh)                                                                              \
          dl_cpu_blas_gemm_ex (DT, TRUE, FALSE, GH, 1, N, dgh, GH, ones, 1, 0.0, a->db_hh, 1);     \
      }                                                                                            \
  }

DEFINE_RNN (f, float, DL_DTYPE_FLOAT32)
DEFINE_RNN (d, double, DL_DTYPE_FLOAT64)

void
dl_cpu_rnn_forward (DlBackendContext *ctx, const DlRnnArgs *args, DlDType dtype)
{
  if (dtype == DL_DTYPE_FLOAT32)
    rnn_forward_f (args);
  else
    rnn_forward_d (args);
}

void
dl_cpu_rnn_backward (DlBackendContext *ctx, const DlRnnArgs *args, DlDType dtype)
{
  if (dtype == DL_DTYPE_FLOAT32)
    rnn_backward_f (args);
  else
    rnn_backward_d (args);
}
