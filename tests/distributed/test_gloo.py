# test_gloo.py: libdl's Gloo engine from Python on two processes over
# loopback (gloo_worker.py is each rank).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import gc
import os
import socket
import subprocess
import sys
import time

import numpy as np
import pytest

import gi

gi.require_version("Dl", "1.0")
from gi.repository import Dl, GLib  # noqa: E402

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gloo_worker.py")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_ranks(scenario, outdir, timeout=120, size=2, **extra_env):
    """The @size ranks of @scenario; their (returncode, stdout, stderr)"""
    env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(free_port()),
               WORLD_SIZE=str(size), **extra_env)
    procs = [subprocess.Popen([sys.executable, WORKER, scenario, str(outdir)],
                              env=dict(env, RANK=str(r)), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for r in range(size)]
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


def test_collectives_every_dtype(tmp_path):
    assert_ok(run_ranks("collectives", tmp_path))


def test_tcp_init_and_socket_interface(tmp_path):
    # tcp://, and the ranks listening on the interface GLOO_SOCKET_IFNAME names
    assert_ok(run_ranks("tcp", tmp_path, GLOO_SOCKET_IFNAME="lo"))


def test_collectives_on_three_ranks(tmp_path):
    # Gloo's rings with chunks that do not divide evenly, a root in the middle
    assert_ok(run_ranks("collectives", tmp_path, size=3))


def test_mismatched_shapes_fail_on_both_ranks(tmp_path):
    results = run_ranks("mismatch", tmp_path)
    assert_ok(results)
    for rc, out, err in results:
        assert "all_reduce" in out


def test_check_off_lets_disagreeing_ranks_run(tmp_path):
    # the same disagreement fails on both ranks by default ("mismatch"
    # above checks shapes; this one the reduction) and runs with the
    # check off
    results = run_ranks("nocheck", tmp_path)
    assert all(rc != 0 for rc, _, _ in results), results
    assert all("the ranks disagree" in err for _, _, err in results), results
    assert_ok(run_ranks("nocheck", tmp_path, DL_DISTRIBUTED_CHECK="0"))


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


# In this process: a group of one, and the init errors

def test_group_of_one_through_a_directory(tmp_path):
    store = tmp_path / "store"
    pg = Dl.distributed_new_process_group("gloo", "file://%s" % store, 0, 1, 30.0)
    assert (pg.get_rank(), pg.get_size(), pg.get_backend_name()) == (0, 1, "gloo")
    t = Dl.tensor([1.5, -2.0, 3.0])
    assert pg.all_reduce(t, Dl.ReduceOpKind.SUM, False).is_completed()
    np.testing.assert_array_equal(t.numpy(), [1.5, -2.0, 3.0])
    del pg
    # the group's keys go with it (its worker thread may hold it a moment)
    deadline = time.monotonic() + 10
    while list(store.iterdir()) and time.monotonic() < deadline:
        gc.collect()
        time.sleep(0.05)
    assert list(store.iterdir()) == []


@pytest.mark.parametrize("method, words", [
    ("bogus://x", "unknown init method 'bogus://x'"),
    ("tcp://localhost", "'localhost' is not HOST:PORT"),
    ("tcp://localhost:99999", "the port '99999' is not in 1..65535"),
])
def test_bad_init_method(method, words):
    with pytest.raises(GLib.Error) as info:
        Dl.distributed_new_process_group("gloo", method, 0, 2, 5.0)
    assert words in info.value.message
    assert "init_process_group" in info.value.message


def test_env_needs_master_addr(monkeypatch):
    monkeypatch.delenv("MASTER_ADDR", raising=False)
    monkeypatch.setenv("MASTER_PORT", "29500")
    with pytest.raises(GLib.Error) as info:
        Dl.distributed_new_process_group("gloo", "env://", 0, 2, 5.0)
    assert "MASTER_ADDR" in info.value.message


def test_rank_from_env(monkeypatch):
    monkeypatch.delenv("RANK", raising=False)
    with pytest.raises(GLib.Error) as info:
        Dl.distributed_new_process_group("gloo", "env://", -1, 2, 5.0)
    assert "RANK is not set" in info.value.message


def test_no_store_is_a_timeout():
    """rank 1 waits for a store nobody serves, for the timeout only"""
    method = "tcp://127.0.0.1:%d" % free_port()
    with pytest.raises(GLib.Error) as info:
        Dl.distributed_new_process_group("gloo", method, 1, 2, 1.0)
    assert "cannot connect to the rendezvous store at 127.0.0.1" in info.value.message
    assert "within 1 s" in info.value.message


def test_store_port_in_use():
    """rank 0 serves the store: a port another socket holds is an error"""
    with socket.socket() as s:
        s.bind(("0.0.0.0", 0))
        s.listen(1)
        method = "tcp://127.0.0.1:%d" % s.getsockname()[1]
        with pytest.raises(GLib.Error) as info:
            Dl.distributed_new_process_group("gloo", method, 0, 2, 5.0)
    assert "the rendezvous store cannot listen on port" in info.value.message
    assert "Address already in use" in info.value.message
