/* dl-cpu-team.c: how many threads a parallel region of the CPU backend
 * takes, and the watch on the machine that can make it one.
 *
 * A parallel region ends at a barrier: it lasts as long as its slowest
 * thread. When other processes hold the cores (a build beside a training
 * run, data-loading processes, a shared CI machine), a worker that the
 * region wakes waits in the scheduler's queue behind them for up to a
 * time slice, milliseconds, while the thread that forked it has done its
 * own share in microseconds; libgomp's workers also spin after a region
 * (their share of the CPU spent spinning), so the next region finds them
 * descheduled. A step of a small model runs hundreds of regions, and each
 * then costs a time slice: measured on 2 cores with five busy processes
 * beside it, a 97x51x204 float64 linear layer with four elementwise ops
 * took 3.8 ms a step on two threads and 0.39 ms on one.
 *
 * So the regions that run most (the elementwise iterator, the full
 * reductions, the split GEMMs) note when their workers start. A worker that
 * starts more than DL_CPU_TEAM_LATE_US after the fork was kept waiting;
 * DL_CPU_TEAM_LATE_MIN such regions among the last DL_CPU_TEAM_WINDOW, at a
 * moment when more threads are runnable than there are processors, make
 * every region run on the calling thread alone for a span, and after it
 * the regions try their threads again. The span starts at
 * DL_CPU_TEAM_SOLO_MIN_US and doubles each time the regions after it are
 * late again, up to DL_CPU_TEAM_SOLO_MAX_US, so that a machine that stays
 * busy costs a few late regions every second or two; it starts short again
 * once the regions have been on time for DL_CPU_TEAM_CALM_US after a span.
 *
 * What is not judged: the first two regions after a pause of more than
 * DL_CPU_TEAM_WARM_US (the workers went to sleep, and on a virtual machine
 * an idle CPU can take a scheduler tick to wake, quiet or not), and
 * regions of one thread. On a quiet machine a worker then starts within a
 * few microseconds when it spins and within about a hundred when it
 * sleeps; the host now and then delays one past the limit, which costs a
 * short span when it happens three times in eight regions. Which kernels
 * take the team (those whose bits do not depend on it) and the
 * measurements: docs/threading.md.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <omp.h>

#include "dl-cpu-private.h"

/* the state, shared by every thread of the process (the machine is);
 * updated without locks: a lost update among threads only delays a span */
static gint64 solo_until;
static gint64 solo_span = DL_CPU_TEAM_SOLO_MIN_US;
static gint64 last_end;
static gint warm_run; /* regions since the last pause */
static const gchar *loadavg_path; /* a test's, or NULL: /proc/loadavg */
static guint late_bits;
static guint64 solo_count;

/* Whether more threads are runnable on the machine right now than it has
 * processors (the fourth field of /proc/loadavg counts them, this one and
 * this process's workers included): late workers with the processors to
 * spare were kept by the host or by a wake from sleep, which passes. TRUE
 * where the file cannot be read. Read only when a span would begin. */
static gboolean
crowded (void)
{
  static gsize cpus;
  g_autofree gchar *text = NULL;
  const gchar *field;
  gint i;

  if (g_once_init_enter (&cpus))
    g_once_init_leave (&cpus, g_get_num_processors ());
  if (!g_file_get_contents (loadavg_path ? loadavg_path : "/proc/loadavg", &text, NULL, NULL))
    return TRUE;
  /* "0.52 0.58 0.59 3/96 4747": runnable/total is the fourth field */
  for (field = text, i = 0; i < 3 && field; i++)
    if ((field = strchr (field, ' ')))
      field++;
  return field == NULL || g_ascii_strtoll (field, NULL, 10) > (gint64)cpus;
}

gint
dl_cpu_team_threads (void)
{
  gint64 until = __atomic_load_n (&solo_until, __ATOMIC_RELAXED);

  if (until != 0 && g_get_monotonic_time () < until)
    return 1;
  return omp_get_max_threads ();
}

void
dl_cpu_team_join (const DlCpuTeamClock *clock)
{
  dl_cpu_team_join_at (clock, g_get_monotonic_time ());
}

void
dl_cpu_team_join_at (const DlCpuTeamClock *clock, gint64 now)
{
  gint64 prev, until, span;
  guint bits;

  if (clock->threads < 2)
    return;
  prev = __atomic_exchange_n (&last_end, now, __ATOMIC_RELAXED);
  /* workers that slept (no region for a while) wake slowly on a quiet
   * virtual machine too, in the first region after the pause and often
   * in the second: those say nothing about the other processes */
  if (prev == 0 || clock->fork - prev > DL_CPU_TEAM_WARM_US)
    {
      __atomic_store_n (&warm_run, 0, __ATOMIC_RELAXED);
      return;
    }
  if (__atomic_add_fetch (&warm_run, 1, __ATOMIC_RELAXED) < 2)
    return;
  bits = (__atomic_load_n (&late_bits, __ATOMIC_RELAXED) << 1 | (clock->late != 0))
         & ((1u << DL_CPU_TEAM_WINDOW) - 1);
  if (!clock->late)
    {
      __atomic_store_n (&late_bits, bits, __ATOMIC_RELAXED);
      /* on time, and long enough after the last span: the next starts short */
      until = __atomic_load_n (&solo_until, __ATOMIC_RELAXED);
      if (until != 0 && clock->fork > until + DL_CPU_TEAM_CALM_US)
        {
          __atomic_store_n (&solo_span, DL_CPU_TEAM_SOLO_MIN_US, __ATOMIC_RELAXED);
          __atomic_store_n (&solo_until, 0, __ATOMIC_RELAXED);
        }
      return;
    }
  if (__builtin_popcount (bits) < DL_CPU_TEAM_LATE_MIN)
    {
      __atomic_store_n (&late_bits, bits, __ATOMIC_RELAXED);
      return;
    }
  __atomic_store_n (&late_bits, 0, __ATOMIC_RELAXED);
  if (!crowded ())
    return;
  span = __atomic_load_n (&solo_span, __ATOMIC_RELAXED);
  __atomic_store_n (&solo_until, now + span, __ATOMIC_RELAXED);
  __atomic_store_n (&solo_span, MIN (2 * span, DL_CPU_TEAM_SOLO_MAX_US), __ATOMIC_RELAXED);
  __atomic_add_fetch (&solo_count, 1, __ATOMIC_RELAXED);
  /* G_MESSAGES_DEBUG=Dl shows when and why the spans begin */
  g_debug ("regions run on one thread for %" G_GINT64_FORMAT " ms: %d of the last %d "
           "regions had a worker more than %d us late, with more threads runnable than "
           "processors",
           span / 1000, __builtin_popcount (bits), DL_CPU_TEAM_WINDOW, DL_CPU_TEAM_LATE_US);
}

void
dl_cpu_team_get_state (DlCpuTeamState *state)
{
  state->solo_until = __atomic_load_n (&solo_until, __ATOMIC_RELAXED);
  state->next_span = __atomic_load_n (&solo_span, __ATOMIC_RELAXED);
  state->solo_count = __atomic_load_n (&solo_count, __ATOMIC_RELAXED);
}

void
dl_cpu_team_reset (void)
{
  __atomic_store_n (&solo_until, 0, __ATOMIC_RELAXED);
  __atomic_store_n (&solo_span, DL_CPU_TEAM_SOLO_MIN_US, __ATOMIC_RELAXED);
  __atomic_store_n (&last_end, 0, __ATOMIC_RELAXED);
  __atomic_store_n (&late_bits, 0, __ATOMIC_RELAXED);
  __atomic_store_n (&warm_run, 0, __ATOMIC_RELAXED);
}

void
dl_cpu_team_set_loadavg_path (const gchar *path)
{
  loadavg_path = path;
}
