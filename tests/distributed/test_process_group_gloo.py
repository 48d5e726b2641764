# test_process_group_gloo.py: torch.distributed on libdl's Gloo engine
# across processes on this machine (loopback, 2 ranks, started by the
# launcher dl.distributed.run): the scenarios of dist_worker.py (every
# collective of every dtype against numpy, mismatches, a timeout, a dead
# rank), the same that test_process_group_mpi.py runs under mpirun.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import os
import socket
import subprocess
import sys
import time

import pytest
from gi.repository import Dl

dist = Dl.distributed

HERE = os.path.dirname(os.path.abspath(__file__))
WORKER = os.path.join(HERE, 'dist_worker.py')

pytestmark = pytest.mark.skipif(not dist.is_gloo_available(),
                                reason='the Gloo engine (libdl-gloo-1.0.so) was not built')


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


# a free port of its own, not the launcher's default 29500: meson runs
# other tests (and a user other jobs) beside this one
def launch(scenario, timeout=50):
    start = time.monotonic()
    proc = subprocess.run([sys.executable, '-m', 'dl.distributed.run', '--nproc-per-node', '2',
                           '--master-port', str(free_port()), WORKER, scenario, 'gloo'], capture_output=True, text=True,
                          timeout=timeout)
    return proc, proc.stdout + proc.stderr, time.monotonic() - start


@pytest.mark.parametrize('scenario', ['collectives', 'mismatch'])
def test_scenario(scenario):
    proc, out, _ = launch(scenario)
    assert proc.returncode == 0, out
    for r in range(2):
        assert 'rank %d: %s ok' % (r, scenario) in out, out


def test_timeout_names_the_collective():
    proc, out, _ = launch('timeout')
    assert proc.returncode == 0, out
    assert 'rank 0: timeout ok' in out and 'rank 1: timeout ok' in out, out
    assert 'all_reduce failed after' in out


def test_dead_rank_is_an_error_naming_the_peer():
    # Gloo sees the closed connection: rank 0's all_reduce fails at once,
    # well before the group's 10 s timeout, naming the collective and the
    # peer. The two ranks are started here rather than by the launcher,
    # which would stop rank 0 as soon as rank 1 exits, perhaps before its
    # error is out.
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        port = s.getsockname()[1]
    env = dict(os.environ, MASTER_ADDR='127.0.0.1', MASTER_PORT=str(port), WORLD_SIZE='2')
    start = time.monotonic()
    procs = [subprocess.Popen([sys.executable, WORKER, 'dead', 'gloo'],
                              env=dict(env, RANK=str(r), LOCAL_RANK=str(r)),
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
             for r in range(2)]
    outs = [p.communicate(timeout=50)[0] for p in procs]
    took = time.monotonic() - start
    assert [p.returncode for p in procs] == [2, 3], outs
    assert 'rank 1: exiting abruptly' in outs[1]
    assert 'rank 0: all_reduce failed: all_reduce' in outs[0], outs[0]
    assert 'peer: rank 1' in outs[0], outs[0]
    assert took < 30, took
