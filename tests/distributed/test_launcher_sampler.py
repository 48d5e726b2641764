# test_launcher_sampler.py: the parts of torch.distributed that need no
# engine: the launcher dl.distributed.run (environment, failures, flags),
# DistributedSampler against python3-torch's, and the errors before
# init_process_group.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Run by meson (suite distributed).

import os
import subprocess
import sys
import textwrap
import time

import pytest
from torch.utils.data.distributed import DistributedSampler as TorchSampler

from gi.repository import Dl

dist = Dl.distributed

PYTHON = sys.executable


def launch(args, timeout=50):
    return subprocess.run([PYTHON, '-m', 'dl.distributed.run'] + args, capture_output=True,
                          text=True, timeout=timeout)


# ---- the launcher ----------------------------------------------------------

ENV_SCRIPT = textwrap.dedent('''
    import os, sys
    keys = ['RANK', 'LOCAL_RANK', 'WORLD_SIZE', 'LOCAL_WORLD_SIZE', 'MASTER_ADDR',
            'MASTER_PORT', 'GROUP_RANK']
    line = ' '.join('%s=%s' % (k, os.environ[k]) for k in keys) + ' %s' % sys.argv[1:]
    os.write(1, (line + '\\n').encode())  # one write: the two ranks share the pipe
''')


def test_launcher_sets_the_environment(tmp_path):
    script = tmp_path / 'env.py'
    script.write_text(ENV_SCRIPT)
    proc = launch(['--nproc-per-node', '2', '--nnodes', '2', '--node-rank', '1',
                   '--master-addr', '10.1.2.3', '--master-port', '4242', str(script), 'a',
                   '--b'])
    assert proc.returncode == 0, proc.stderr
    lines = sorted(proc.stdout.splitlines())
    assert lines == [
        "RANK=2 LOCAL_RANK=0 WORLD_SIZE=4 LOCAL_WORLD_SIZE=2 MASTER_ADDR=10.1.2.3 "
        "MASTER_PORT=4242 GROUP_RANK=1 ['a', '--b']",
        "RANK=3 LOCAL_RANK=1 WORLD_SIZE=4 LOCAL_WORLD_SIZE=2 MASTER_ADDR=10.1.2.3 "
        "MASTER_PORT=4242 GROUP_RANK=1 ['a', '--b']"]
    # torchrun's underscore spellings
    proc = launch(['--nproc_per_node=2', '--master_port=4343', str(script)])
    assert proc.returncode == 0, proc.stderr
    assert sorted(proc.stdout.splitlines())[1].startswith(
        'RANK=1 LOCAL_RANK=1 WORLD_SIZE=2 LOCAL_WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 '
        'MASTER_PORT=4343')


def test_launcher_stops_the_others_when_one_fails(tmp_path):
    script = tmp_path / 'fail.py'
    script.write_text(textwrap.dedent('''
        import os, sys, time
        if os.environ['RANK'] == '1':
            sys.exit(7)
        time.sleep(60)
        print('rank 0 was not stopped', flush=True)
    '''))
    start = time.monotonic()
    proc = launch(['--nproc-per-node', '2', str(script)])
    assert time.monotonic() - start < 20
    assert proc.returncode == 7, proc.stderr
    assert 'rank 1 (local rank 1' in proc.stderr and 'exit code 7' in proc.stderr
    assert 'not stopped' not in proc.stdout


def test_launcher_argument_errors(tmp_path):
    proc = launch(['--nproc-per-node', '0', 'x.py'])
    assert proc.returncode == 2 and 'at least 1' in proc.stderr
    proc = launch(['--nnodes', '1:3', 'x.py'])
    assert proc.returncode == 2 and 'elastic' in proc.stderr


# ---- in this process -------------------------------------------------------

def test_before_init_is_an_error():
    assert not dist.is_initialized()
    for call in (lambda: dist.all_reduce(Dl.ones(2)), lambda: dist.get_rank(),
                 lambda: dist.barrier(), lambda: dist.destroy_process_group(),
                 lambda: dist.new_group([0])):
        with pytest.raises(RuntimeError, match='has not been initialized'):
            call()
    with pytest.raises(ValueError, match='Invalid backend'):
        dist.init_process_group('carrier-pigeon')
    assert dist.is_available()
    assert dist.ReduceOp.SUM == Dl.ReduceOpKind.SUM


def test_nccl_without_a_gpu_is_a_clear_error(tmp_path):
    """NCCL needs a GPU per process: without the module or without a GPU,
    init_process_group('nccl') is a RuntimeError that says which (the GPU
    tests are tests/distributed/test-nccl.c)"""
    if dist.is_nccl_available() and Dl.cuda.is_available():
        pytest.skip('a GPU is here: tests/distributed/test-nccl.c runs the NCCL engine')
    match = 'no CUDA device' if dist.is_nccl_available() else 'nccl engine module'
    with pytest.raises(RuntimeError, match=match):
        dist.init_process_group('nccl', init_method='file://' + str(tmp_path), rank=0,
                                world_size=1)
    assert not dist.is_initialized()


@pytest.mark.parametrize('n', [0, 1, 7, 10, 101])
@pytest.mark.parametrize('replicas', [1, 2, 3, 4])
@pytest.mark.parametrize('shuffle', [True, False])
@pytest.mark.parametrize('drop_last', [True, False])
def test_distributed_sampler_matches_torch(n, replicas, shuffle, drop_last):
    if n == 0 and not drop_last:
        pytest.skip('torch divides by zero padding an empty data set')
    for rank in range(replicas):
        for seed in (0, 17):
            ours = Dl.utils.data.distributed.DistributedSampler(
                range(n), num_replicas=replicas, rank=rank, shuffle=shuffle, seed=seed,
                drop_last=drop_last)
            theirs = TorchSampler(range(n), num_replicas=replicas, rank=rank, shuffle=shuffle,
                                  seed=seed, drop_last=drop_last)
            for epoch in (0, 1, 9):
                ours.set_epoch(epoch)
                theirs.set_epoch(epoch)
                assert list(ours) == list(theirs)
                assert len(ours) == len(theirs)


def test_distributed_sampler_errors_and_data_loader():
    with pytest.raises(ValueError, match='Invalid rank 2'):
        Dl.utils.data.distributed.DistributedSampler(range(4), num_replicas=2, rank=2)
    with pytest.raises(RuntimeError, match='has not been initialized'):
        Dl.utils.data.distributed.DistributedSampler(range(4))
    data = Dl.utils.data.TensorDataset(Dl.arange(10.0))
    sampler = Dl.utils.data.distributed.DistributedSampler(data, num_replicas=2, rank=1,
                                                          seed=3)
    loader = Dl.utils.data.DataLoader(data, batch_size=2, sampler=sampler)
    got = [x.tolist() for (x,) in loader]
    order = list(TorchSampler(range(10), num_replicas=2, rank=1, seed=3))
    assert sum(got, []) == [float(i) for i in order]
