/* dl-mt19937.h: the CPU's random stream, a 32-bit Mersenne Twister
 * (MT19937) with the draws PyTorch's CPU generator makes from it, so that
 * a seed gives PyTorch's numbers.
 *
 * The engine is the standard MT19937 (Matsumoto and Nishimura, 1998):
 * 624 words of state seeded by the usual linear recurrence from the low 32
 * bits of the seed, all of them regenerated at once when they run out, and
 * tempered on the way out. `left` and `next` count as PyTorch's engine
 * counts them (left is 1 right after seeding, so the first draw
 * regenerates), which is what lets dl_generator_get_state() write the
 * state in PyTorch's layout.
 *
 * The draws on top of it are PyTorch's (its CPU kernels, measured against
 * python3-torch 1.13):
 *   word: one 32-bit output; wide: two, the first in the high half
 *   uniform float32: (word & (2^24 - 1)) * 2^-24 (dl-cpu-random.c's
 *     fills, a chunk of words at a time); float64: (wide & (2^53 - 1)) *
 *     2^-53
 *   normal (one float64 at a time): Box-Muller on two float64 uniforms u1,
 *     u2: r = sqrt (-2 ln (1 - u2)), theta = 2 pi u1; r cos theta is
 *     returned and r sin theta kept for the next call (the cache that
 *     seeding clears)
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <math.h>
#include <glib.h>

#include "dl-backend.h"

#define DL_MT_N 624
#define DL_MT_M 397

/* 2 pi as a double */
#define DL_MT_2PI (2.0 * 3.1415926535897932384626433832795028841971693993751)

struct _DlMtState
{
  guint32 state[DL_MT_N];
  gint left;      /* draws until the state is regenerated, plus one */
  guint32 next;   /* the index of the next word of state */
  guint64 seed;   /* the seed it started from */
  guint64 drawn;  /* words drawn since seeding (or since a state was set) */
  /* the second number of the last Box-Muller pair, not yet used */
  gboolean has_normal;
  gdouble normal;
  /* PyTorch's float cache, which no CPU kernel of 1.13 fills; kept so that
   * a state read from PyTorch round-trips */
  gboolean has_float_normal;
  gfloat float_normal;
};


static inline void
dl_mt_seed (DlMtState *s, guint64 seed)
{
  s->seed = seed;
  s->state[0] = (guint32)seed;
  for (guint32 i = 1; i < DL_MT_N; i++)
    s->state[i] = 1812433253u * (s->state[i - 1] ^ (s->state[i - 1] >> 30)) + i;
  s->left = 1;
  s->next = 0;
  s->drawn = 0;
  s->has_normal = FALSE;
  s->normal = 0;
  s->has_float_normal = FALSE;
  s->float_normal = 0;
}

/* the word of the recurrence from state[i], state[i + 1] and state[i + M] */
static inline guint32
dl_mt_twist (guint32 upper, guint32 lower, guint32 far)
{
  guint32 y = (upper & 0x80000000u) | (lower & 0x7fffffffu);

  return far ^ (y >> 1) ^ ((lower & 1u) ? 0x9908b0dfu : 0u);
}

static inline void
dl_mt_regenerate (DlMtState *s)
{
  guint32 *x = s->state;
  gint i;

  for (i = 0; i < DL_MT_N - DL_MT_M; i++)
    x[i] = dl_mt_twist (x[i], x[i + 1], x[i + DL_MT_M]);
  for (; i < DL_MT_N - 1; i++)
    x[i] = dl_mt_twist (x[i], x[i + 1], x[i + DL_MT_M - DL_MT_N]);
  x[DL_MT_N - 1] = dl_mt_twist (x[DL_MT_N - 1], x[0], x[DL_MT_M - 1]);
  s->left = DL_MT_N;
  s->next = 0;
}

static inline guint32
dl_mt_word (DlMtState *s)
{
  guint32 y;

  if (--s->left == 0)
    dl_mt_regenerate (s);
  s->drawn++;
  y = s->state[s->next++];
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680u;
  y ^= (y << 15) & 0xefc60000u;
  y ^= y >> 18;
  return y;
}

/* @n words into @out, the same as n calls of dl_mt_word(): the runs
 * between regenerations tempered in one loop */
static inline void
dl_mt_words (DlMtState *s, guint32 *out, gint64 n)
{
  while (n > 0)
    {
      gint64 k = MIN (n, (gint64)s->left - 1);
      const guint32 *x = s->state + s->next;

      for (gint64 i = 0; i < k; i++)
        {
          guint32 y = x[i];

          y ^= y >> 11;
          y ^= (y << 7) & 0x9d2c5680u;
          y ^= (y << 15) & 0xefc60000u;
          y ^= y >> 18;
          out[i] = y;
        }
      s->left -= (gint)k;
      s->next += (guint32)k;
      s->drawn += (guint64)k;
      out += k;
      n -= k;
      if (n > 0)
        {
          /* this one regenerates the state */
          *out++ = dl_mt_word (s);
          n--;
        }
    }
}

static inline guint64
dl_mt_wide (DlMtState *s)
{
  guint64 hi = dl_mt_word (s);

  return (hi << 32) | dl_mt_word (s);
}

/* uniform in [0, 1) with 53 bits (float64's draw) */
static inline double
dl_mt_double (DlMtState *s)
{
  return (double)(dl_mt_wide (s) & G_GUINT64_CONSTANT (0x1fffffffffffff)) * (1.0 / 9007199254740992.0);
}

/* a standard normal float64, half of a Box-Muller pair */
static inline double
dl_mt_normal (DlMtState *s)
{
  double u1, u2, r, theta;

  if (s->has_normal)
    {
      s->has_normal = FALSE;
      return s->normal;
    }
  u1 = dl_mt_double (s);
  u2 = dl_mt_double (s);
  r = sqrt (-2.0 * log (1.0 - u2));
  theta = DL_MT_2PI * u1;
  s->normal = r * sin (theta);
  s->has_normal = TRUE;
  return r * cos (theta);
}
