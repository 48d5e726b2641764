"""dl.multiprocessing.spawn (torch.multiprocessing.spawn): fn(i, *args) in
N spawned processes, with a child's exception or abnormal exit raised in
the parent and the other processes stopped."""
import os
import socket
import sys
import time

import pytest

import dl
import spawn_worker

mp = dl.multiprocessing


def test_spawn_runs_every_rank_and_shares_tensors(tmp_path):
    shared = dl.zeros(3)
    assert mp.spawn(spawn_worker.record, args=(str(tmp_path), shared), nprocs=3) is None
    pids = set()
    for i in range(3):
        rank, pid = map(int, (tmp_path / ('rank%d' % i)).read_text().split())
        assert rank == i
        pids.add(pid)
    assert len(pids) == 3 and os.getpid() not in pids
    # the children wrote into the parent's tensor: it crossed as shared memory
    assert shared.tolist() == [10.0, 11.0, 12.0]


def test_exception_in_a_child_is_raised_and_the_others_stop():
    start = time.monotonic()
    with pytest.raises(mp.ProcessRaisedException) as info:
        mp.spawn(spawn_worker.fail_on, args=(1,), nprocs=3)
    assert time.monotonic() - start < 40  # the others (sleeping 60 s) were stopped
    e = info.value
    assert e.error_index == 1 and e.pid > 0
    assert '-- Process 1 terminated with the following error:' in str(e)
    assert 'ValueError: rank 1 failed on purpose' in str(e)
    assert 'Traceback' in str(e)


def test_exit_code_and_signal():
    with pytest.raises(mp.ProcessExitedException, match='process 1 terminated with exit code 3') \
            as info:
        mp.spawn(spawn_worker.exit_with, args=(3,), nprocs=2)
    assert info.value.exit_code == 3 and info.value.signal_name is None
    with pytest.raises(mp.ProcessExitedException,
                       match='process 0 terminated with signal SIGKILL') as info:
        mp.spawn(spawn_worker.killed, nprocs=2)
    assert info.value.exit_code == -9 and info.value.signal_name == 'SIGKILL'
    assert info.value.error_index == 0


def test_context_without_join(tmp_path):
    ctx = mp.spawn(spawn_worker.record, args=(str(tmp_path), dl.zeros(2)), nprocs=2, join=False)
    assert isinstance(ctx, mp.ProcessContext) and len(ctx.pids()) == 2
    deadline = time.monotonic() + 60
    while not ctx.join(timeout=0.5):
        assert time.monotonic() < deadline
    assert ctx.join() is True  # joining again is done at once
    assert sorted(p.name for p in tmp_path.iterdir()) == ['rank0', 'rank1']


def test_other_start_methods(tmp_path):
    with pytest.warns(UserWarning, match='spawn start method'):
        mp.spawn(spawn_worker.record, args=(str(tmp_path), dl.zeros(1)), nprocs=1,
                 start_method='fork')
    # start_processes takes it; forked children get copies of the
    # parent's memory (nothing is pickled), so a tensor is shared only if
    # it was in shared memory before, as with torch
    shared = dl.zeros(2).share_memory_()
    mp.start_processes(spawn_worker.record, args=(str(tmp_path), shared), nprocs=2,
                       start_method='fork')
    assert shared.tolist() == [10.0, 11.0]


def test_no_descriptor_leak(tmp_path):
    before = len(os.listdir('/proc/self/fd'))
    for _ in range(2):
        mp.spawn(spawn_worker.record, args=(str(tmp_path), dl.zeros(2)), nprocs=2)
        with pytest.raises(mp.ProcessExitedException):
            mp.spawn(spawn_worker.exit_with, args=(4,), nprocs=2)
    assert len(os.listdir('/proc/self/fd')) <= before


def test_exceptions_pickle():
    import pickle
    e = mp.ProcessExitedException('process 2 terminated with exit code 1', 2, 123, 1)
    back = pickle.loads(pickle.dumps(e))
    assert (back.error_index, back.pid, back.exit_code, str(back)) == (2, 123, 1, str(e))


@pytest.mark.skipif(not dl.distributed.is_gloo_available(), reason='no Gloo engine')
def test_data_parallel_tutorial_start(tmp_path):
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        port = s.getsockname()[1]
    mp.spawn(spawn_worker.gloo_all_reduce, args=(port, str(tmp_path)), nprocs=2)
    for i in range(2):
        assert (tmp_path / ('sum%d' % i)).read_text() == '3 3 3 3'


if __name__ == '__main__':
    sys.exit(pytest.main([__file__, '-q']))
