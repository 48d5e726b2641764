# test_process_group_mpi.py: torch.distributed on libdl's MPI engine
# across processes on this machine (loopback, 2 ranks, under mpirun): the
# collectives of every dtype against numpy (dist_worker.py), mismatches, a
# timeout and a dead rank; and MPI under the launcher, which it refuses.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Run by meson (suite distributed), which sets DL_TEST_MPIRUN to mpirun's
# path when the MPI engine was built (else DL_TEST_MPI_SKIP says why).

import os
import subprocess
import sys
import textwrap
import time

import pytest
from gi.repository import Dl

dist = Dl.distributed

HERE = os.path.dirname(os.path.abspath(__file__))
WORKER = os.path.join(HERE, 'dist_worker.py')
MPIRUN = os.environ.get('DL_TEST_MPIRUN', '')
PYTHON = sys.executable

needs_mpi = pytest.mark.skipif(
    not MPIRUN or not dist.is_mpi_available(),
    reason='MPI tests skipped: %s' % (os.environ.get('DL_TEST_MPI_SKIP') or
                                      'DL_TEST_MPIRUN is not set or the MPI engine is missing'))


def mpirun(scenario, n=2, timeout=50, options=()):
    start = time.monotonic()
    proc = subprocess.run([MPIRUN, '-np', str(n)] + list(options) +
                          [PYTHON, WORKER, scenario, 'mpi'],
                          capture_output=True, text=True, timeout=timeout)
    return proc, time.monotonic() - start


def launch(args, timeout=50):
    return subprocess.run([PYTHON, '-m', 'dl.distributed.run'] + args, capture_output=True,
                          text=True, timeout=timeout)


# ---- under mpirun ----------------------------------------------------------

@needs_mpi
def test_collectives_mpi():
    proc, _ = mpirun('collectives')
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for r in range(2):
        assert 'rank %d: collectives ok' % r in proc.stdout


@needs_mpi
def test_mismatch_fails_on_every_rank():
    proc, _ = mpirun('mismatch')
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for r in range(2):
        assert 'rank %d: mismatch ok' % r in proc.stdout


@needs_mpi
def test_timeout_names_the_collective():
    proc, took = mpirun('timeout')
    out = proc.stdout + proc.stderr
    assert 'rank 0: timeout ok' in out, out
    assert 'rank 1: timeout ok' in out, out
    assert 'all_reduce failed after' in out


@needs_mpi
def test_dead_rank_stops_the_job():
    # By default Open MPI's runtime stops the job when a rank exits with a
    # non-zero status: the survivor, waiting in all_reduce, is killed by
    # mpirun, which names the dead rank and exits non-zero, before the
    # group's timeout (4 s) has passed.
    proc, took = mpirun('dead')
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, out
    assert 'rank 1: exiting abruptly' in out
    assert 'rank 0: all_reduce failed' not in out
    assert took < 30, took


@needs_mpi
def test_dead_rank_is_a_timeout_error_for_the_survivor():
    # Told not to stop the job (orte_abort_on_non_zero_status 0), mpirun
    # lets the survivor run on: its all_reduce fails with the timeout's
    # error, naming the collective and (of two ranks) the one it waited
    # for, once the 4 s have passed.
    proc, took = mpirun('dead', options=['--mca', 'orte_abort_on_non_zero_status', '0'])
    out = proc.stdout + proc.stderr
    assert 'rank 1: exiting abruptly' in out
    assert 'rank 0: all_reduce failed: all_reduce: timed out after 4 s waiting for rank 1' in out, out
    assert took < 30, took


@needs_mpi
def test_rank_stuck_inside_mpi_ends_the_job():
    # Past the arrival rounds a blocking MPI call cannot be abandoned; one
    # that outlives the timeout (2 s) by the watchdog's grace (10 s) ends
    # the job with a message naming the collective, never a hang
    os.environ['DL_DISTRIBUTED_CHECK'] = '0'
    try:
        proc, took = mpirun('stuck', options=['-x', 'DL_DISTRIBUTED_CHECK'])
    finally:
        del os.environ['DL_DISTRIBUTED_CHECK']
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, out
    assert 'rank 0: entering a mismatched collective' in out, out
    assert 'still inside MPI after 2 s and 10 s more' in out, out
    assert 'the mpi engine ends the job' in out, out
    assert 11 < took < 40, took


@needs_mpi
def test_mpi_under_the_launcher_says_to_use_mpirun(tmp_path):
    # each child of the launcher is an MPI singleton (a world of one),
    # which the MPI engine refuses when WORLD_SIZE says 2
    script = tmp_path / 'mpi.py'
    script.write_text(textwrap.dedent('''
        from gi.repository import Dl as torch
        try:
            torch.distributed.init_process_group('mpi')
        except RuntimeError as e:
            print('ERR', e, flush=True)
    '''))
    env = {k: v for k, v in os.environ.items() if not k.startswith('OMPI_COMM')}
    proc = subprocess.run([PYTHON, '-m', 'dl.distributed.run', '--nproc-per-node', '2',
                           str(script)], capture_output=True, text=True, timeout=50, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count('launch with mpirun') == 2, proc.stdout
