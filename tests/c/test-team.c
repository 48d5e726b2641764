/* test-team.c: the CPU backend's parallel regions on a busy machine
 * (libdl/backends/cpu/dl-cpu-team.c): a region whose worker starts late
 * makes regions run alone for a span that grows while the machine stays
 * busy, and a real crowd of busy threads sets it off.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <omp.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "dl-test-utils.h"

#include "backends/cpu/dl-cpu-private.h"

/* A two-thread region forked at @fork (microseconds on the monotonic
 * clock) and joined 10 us later, its worker late or not; returns its end */
static gint64
region_at (gint64 fork, gboolean late)
{
  DlCpuTeamClock clock = { .fork = fork, .threads = 2, .late = late };

  dl_cpu_team_join_at (&clock, fork + 10);
  return fork + 10;
}

static DlCpuTeamState
state (void)
{
  DlCpuTeamState st;

  dl_cpu_team_get_state (&st);
  return st;
}

/* a /proc/loadavg of @runnable runnable threads, read in its place */
static gchar *
fake_loadavg (gint64 runnable)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *text
      = g_strdup_printf ("0.50 0.40 0.30 %" G_GINT64_FORMAT "/120 4321\n", runnable);
  gchar *path = NULL;
  gint fd = g_file_open_tmp ("dl-loadavg-XXXXXX", &path, &error);

  g_assert_no_error (error);
  close (fd);
  g_file_set_contents (path, text, -1, &error);
  g_assert_no_error (error);
  dl_cpu_team_set_loadavg_path (path);
  return path;
}

static void
test_team_span (void)
{
  gint full = omp_get_max_threads ();
  gint64 t = g_get_monotonic_time ();
  g_autofree gchar *calm = NULL, *crowd = NULL;
  guint64 count;

  dl_cpu_team_reset ();
  /* late workers with processors to spare (a wake from sleep, the host)
   * start no span */
  calm = fake_loadavg (g_get_num_processors ());
  for (gint i = 0; i < 12; i++)
    t = region_at (t + 100, TRUE);
  g_assert_cmpint (state ().solo_until, ==, 0);
  g_unlink (calm);
  /* more runnable threads than processors: late workers count */
  crowd = fake_loadavg (g_get_num_processors () + 1);
  t = g_get_monotonic_time ();
  dl_cpu_team_reset ();
  g_assert_cmpint (dl_cpu_team_threads (), ==, full);
  count = state ().solo_count;

  /* the first two regions after a pause are not judged, late or not
   * (sleeping workers wake slowly); then one late region among the last
   * eight is not enough */
  t = region_at (t, TRUE);
  t = region_at (t + 100, TRUE);
  t = region_at (t + 100, TRUE);
  g_assert_cmpint (state ().solo_until, ==, 0);
  for (gint i = 0; i < 7; i++)
    t = region_at (t + 100, FALSE);
  t = region_at (t + 100, TRUE);
  g_assert_cmpint (state ().solo_until, ==, 0);
  g_assert_cmpint (dl_cpu_team_threads (), ==, full);

  /* three within eight: one thread for the first span, from the join on */
  t = region_at (t + 100, TRUE);
  t = region_at (t + 100, FALSE);
  t = region_at (t + 100, TRUE);
  g_assert_cmpint (state ().solo_count, ==, count + 1);
  g_assert_cmpint (state ().solo_until, ==, t + DL_CPU_TEAM_SOLO_MIN_US);
  g_assert_cmpint (state ().next_span, ==, 2 * DL_CPU_TEAM_SOLO_MIN_US);
  if (state ().solo_until > g_get_monotonic_time () + 1000)
    g_assert_cmpint (dl_cpu_team_threads (), ==, 1);

  /* a region that forks long after the last ended (its workers slept)
   * is not judged: late or on time, the span stays */
  t = region_at (t + DL_CPU_TEAM_SOLO_MIN_US + 5000, TRUE);
  t = region_at (t + DL_CPU_TEAM_CALM_US + 5000, FALSE);
  g_assert_cmpint (state ().next_span, ==, 2 * DL_CPU_TEAM_SOLO_MIN_US);

  /* late again soon after: the span doubles each time, up to the most */
  t = region_at (t + 100, FALSE);
  t = region_at (t + 100, TRUE);
  t = region_at (t + 100, TRUE);
  g_assert_cmpint (state ().solo_until, <, t);
  t = region_at (t + 100, TRUE);
  g_assert_cmpint (state ().solo_until, ==, t + 2 * DL_CPU_TEAM_SOLO_MIN_US);
  for (gint i = 0; i < 20; i++)
    for (gint j = 0; j < DL_CPU_TEAM_LATE_MIN; j++)
      t = region_at (t + 100, TRUE);
  g_assert_cmpint (state ().solo_until, ==, t + DL_CPU_TEAM_SOLO_MAX_US);
  g_assert_cmpint (state ().next_span, ==, DL_CPU_TEAM_SOLO_MAX_US);

  /* on time right after the span: it stays long; on time for a calm
   * while after it: the next starts short, and there is none now */
  t = region_at (state ().solo_until + 100, FALSE);
  t = region_at (t + 100, FALSE);
  g_assert_cmpint (state ().next_span, ==, DL_CPU_TEAM_SOLO_MAX_US);
  while (t < state ().solo_until + DL_CPU_TEAM_CALM_US + 1000)
    t = region_at (t + 1000, FALSE);
  g_assert_cmpint (state ().next_span, ==, DL_CPU_TEAM_SOLO_MIN_US);
  g_assert_cmpint (state ().solo_until, ==, 0);
  g_assert_cmpint (dl_cpu_team_threads (), ==, full);

  /* a region of one thread is not judged */
  {
    DlCpuTeamClock one = { .fork = t + 100, .threads = 1, .late = TRUE };
    dl_cpu_team_join_at (&one, t + 110);
    dl_cpu_team_join_at (&one, t + 120);
    g_assert_cmpint (state ().solo_until, ==, 0);
  }

  dl_cpu_team_reset ();
  g_assert_cmpint (dl_cpu_team_threads (), ==, full);
  dl_cpu_team_set_loadavg_path (NULL);
  g_unlink (crowd);
}

static gint spinning;

static gpointer
spin (gpointer data)
{
  volatile guint64 x = 0;

  while (g_atomic_int_get (&spinning))
    x++;
  return NULL;
}

/* Results whose bits could follow the team: a product split in blocks of
 * rows (their bits depend on the blocks) and a full sum over the grain */
static void
products (DlTensor *a, DlTensor *b, gdouble **mm, gdouble **sum)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) p = dl_tensor_matmul (a, b, &error);
  g_autoptr (DlTensor) s = NULL;

  g_assert_no_error (error);
  s = dl_tensor_sum (a, &error);
  g_assert_no_error (error);
  *mm = dl_test_values (p);
  *sum = dl_test_values (s);
}

/* Two busy threads per processor in this process: within a few seconds
 * of elementwise ops over more than the grain, a worker starts late and
 * the regions run alone; the results stay right throughout, and the
 * products and sums have the bits they have on a quiet machine. */
static void
test_team_crowd (void)
{
  gint n_spin = 2 * g_get_num_processors ();
  GThread **threads = g_new (GThread *, n_spin);
  g_autoptr (GError) error = NULL;
  g_autoptr (DlTensor) x = NULL;
  g_autoptr (DlTensor) a = NULL;
  g_autoptr (DlTensor) b = NULL;
  g_autofree gdouble *mm = NULL, *sum = NULL, *busy_mm = NULL, *busy_sum = NULL;
  guint64 before;
  gint64 deadline;
  gboolean ran_alone = FALSE;

  if (omp_get_max_threads () < 2)
    {
      g_test_skip ("one OpenMP thread: regions run alone already");
      return;
    }
  dl_cpu_team_reset ();
  before = state ().solo_count;
  x = dl_ones (DL_SHAPE (1 << 18), DL_DTYPE_FLOAT32, NULL, &error);
  g_assert_no_error (error);
  /* 64 x 512 by 512 x 32: its rows split in two, whose bits differ from
   * one product's here */
  a = dl_randn (DL_SHAPE (64, 512), DL_DTYPE_FLOAT64, NULL, &error);
  g_assert_no_error (error);
  b = dl_randn (DL_SHAPE (512, 32), DL_DTYPE_FLOAT64, NULL, &error);
  g_assert_no_error (error);
  products (a, b, &mm, &sum);

  g_atomic_int_set (&spinning, 1);
  for (gint i = 0; i < n_spin; i++)
    threads[i] = g_thread_new ("spin", spin, NULL);
  deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while (!ran_alone && g_get_monotonic_time () < deadline)
    {
      g_autoptr (DlTensor) y = dl_tensor_add_scalar (x, 1, &error);
      g_autoptr (DlTensor) s = NULL;

      g_assert_no_error (error);
      s = dl_tensor_sum (y, &error);
      g_assert_no_error (error);
      g_assert_cmpfloat (dl_tensor_item (s, &error), ==, 2.0 * (1 << 18));
      ran_alone = state ().solo_count > before && dl_cpu_team_threads () == 1;
      if (ran_alone)
        products (a, b, &busy_mm, &busy_sum);
      ran_alone = ran_alone && dl_cpu_team_threads () == 1;
      if (!ran_alone)
        {
          g_clear_pointer (&busy_mm, g_free);
          g_clear_pointer (&busy_sum, g_free);
        }
    }
  g_atomic_int_set (&spinning, 0);
  for (gint i = 0; i < n_spin; i++)
    g_thread_join (threads[i]);
  g_free (threads);
  g_assert_true (ran_alone);
  g_assert_cmpmem (busy_mm, 64 * 32 * sizeof (gdouble), mm, 64 * 32 * sizeof (gdouble));
  g_assert_cmpmem (busy_sum, sizeof (gdouble), sum, sizeof (gdouble));
  dl_cpu_team_reset ();
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/team/span", test_team_span);
  g_test_add_func ("/team/crowd", test_team_crowd);

  return g_test_run ();
}
