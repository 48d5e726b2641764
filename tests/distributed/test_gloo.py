# test_gloo.py: libdl's Gloo engine from Python on two processes over
# loopback (gloo_worker.py is each rank).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import os
import socket
import subprocess
import sys

import numpy as np
import pytest

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gloo_worker.py")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_ranks(scenario, outdir, timeout=120):
    """Both ranks of @scenario; their (returncode, stdout, stderr)"""
    env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(free_port()),
               WORLD_SIZE="2")
    procs = [subprocess.Popen([sys.executable, WORKER, scenario, str(outdir)],
                              env=dict(env, RANK=str(r)), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for r in range(2)]
    try:
        outs = [p.communicate(timeout=timeout) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    return [(p.returncode, o, e) for p, (o, e) in zip(procs, outs)]


def assert_ok(results):
    for rank, (rc, out, err) in enumerate(results):
        assert rc == 0, "rank %d exited %d:\n%s\n%s" % (rank, rc, out, err)


@pytest.mark.parametrize("scenario", ["collectives", "tcp"])
def test_collectives_every_dtype(scenario, tmp_path):
    assert_ok(run_ranks(scenario, tmp_path))


def test_mismatched_shapes_fail_on_both_ranks(tmp_path):
    results = run_ranks("mismatch", tmp_path)
    assert_ok(results)
    for rc, out, err in results:
        assert "all_reduce" in out


def test_dead_rank_is_an_error(tmp_path):
    results = run_ranks("dead", tmp_path, timeout=60)
    assert_ok(results)
    assert "rank 0 after" in results[0][1]


def test_same_results_as_torch_gloo(tmp_path):
    tdist = pytest.importorskip("torch.distributed")
    if not tdist.is_available() or not tdist.is_gloo_available():
        pytest.skip("this torch has no Gloo")
    assert_ok(run_ranks("compare", tmp_path))
    assert_ok(run_ranks("torch", tmp_path))
    for rank in range(2):
        for op in ("all_reduce", "all_gather"):
            ours = np.load(tmp_path / ("libdl-%d-%s.npy" % (rank, op)))
            theirs = np.load(tmp_path / ("torch-%d-%s.npy" % (rank, op)))
            assert ours.dtype == theirs.dtype == np.float32
            np.testing.assert_array_equal(ours, theirs)
