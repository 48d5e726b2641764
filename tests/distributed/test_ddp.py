# test_ddp.py: DistributedDataParallel on two ranks under mpirun (each
# scenario is ddp_worker.py on every rank; see there for what it checks).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import os
import shutil
import socket
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
MPIRUN = os.environ.get('DL_TEST_MPIRUN') or shutil.which('mpirun')

pytestmark = pytest.mark.skipif(
    not MPIRUN, reason=os.environ.get('DL_TEST_MPI_SKIP') or 'mpirun was not found')


def free_port():
    # two free ports in a row: libdl's Gloo store, and torch's
    while True:
        with socket.socket() as s, socket.socket() as t:
            s.bind(('127.0.0.1', 0))
            port = s.getsockname()[1]
            try:
                t.bind(('127.0.0.1', port + 1))
            except OSError:
                continue
            return port


def gloo_available():
    from gi.repository import Dl
    return Dl.distributed_is_backend_available('gloo')


def run(scenario, backend='mpi', timeout=50):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT='1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM='1',
               MASTER_ADDR='127.0.0.1', MASTER_PORT=str(free_port()))
    env.setdefault('OMPI_MCA_btl_tcp_if_include', 'lo')
    env.setdefault('OMPI_MCA_oob_tcp_if_include', 'lo')
    p = subprocess.run([MPIRUN, '-np', '2', '--oversubscribe',
                        '-x', 'MASTER_ADDR', '-x', 'MASTER_PORT',
                        sys.executable, os.path.join(HERE, 'ddp_worker.py'), scenario, backend],
                       env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=timeout, text=True)
    assert p.returncode == 0, p.stdout
    for r in range(2):
        assert 'rank %d: %s ok' % (r, scenario) in p.stdout, p.stdout


def test_equivalence_with_one_process():
    # two ranks on half batches == one process on whole batches, with and
    # without no_sync() accumulation; rank 0's weights and buffers at start
    run('equivalence')


@pytest.mark.skipif(not gloo_available(), reason='the Gloo engine was not built')
def test_equivalence_over_gloo():
    run('equivalence', 'gloo')


def test_unused_parameter():
    # an error naming the parameters, or zeros with find_unused_parameters
    run('unused')


def test_mismatched_shapes():
    run('mismatch')


def test_against_torch_gloo():
    torch = pytest.importorskip('torch')
    import torch.distributed
    if not torch.distributed.is_available() or not torch.distributed.is_gloo_available():
        pytest.skip("python3-torch's Gloo is not available")
    run('torch-gloo')


def test_device_ids_name_the_modules_gpu():
    """device_ids and output_device name a module's one GPU (as torch's
    single-device modules); a CPU module takes neither, with torch's
    message. Checked before the process group is used: no ranks needed."""
    from gi.repository import Dl
    module = Dl.nn.Linear(2, 2)
    for kw, shown in ((dict(device_ids=[0]), 'device_ids [0], output_device None'),
                      (dict(output_device=1), 'device_ids None, output_device 1'),
                      (dict(device_ids=['cuda:0'], output_device='cuda:0'),
                       "device_ids ['cuda:0'], output_device cuda:0")):
        with pytest.raises(ValueError, match='only work with single-device/multiple-device GPU '
                           'modules or CPU modules, but got ' + shown.replace('[', r'\[')
                           .replace(']', r'\]') + r", and module parameters \{device\(type='cpu'\)\}"):
            Dl.nn.parallel.DistributedDataParallel(module, **kw)
    # an empty list is no device: the module goes on to need a group
    with pytest.raises(RuntimeError, match='Default process group has not been initialized'):
        Dl.nn.parallel.DistributedDataParallel(module, device_ids=[])


def test_group_of_one():
    """A world of one (MPI without mpirun): collectives, asynchronous ones
    too (the caller runs them: there is no peer to wait for), leave the
    values as they are, and DDP's step is the local step."""
    script = r'''
from gi.repository import Dl as torch
nn, dist = torch.nn, torch.distributed
dist.init_process_group('mpi')
assert dist.get_world_size() == 1
t = torch.arange(6, dtype=torch.float32)
works = [dist.all_reduce(t, op=op, async_op=True)
         for op in (dist.ReduceOp.SUM, dist.ReduceOp.AVG, dist.ReduceOp.MAX)]
for w in works:
    w.wait()
    assert w.is_completed()
assert t.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0], t.tolist()
torch.manual_seed(0)
local = nn.Linear(5, 3)
torch.manual_seed(0)
model = nn.Linear(5, 3)
ddp = nn.parallel.DistributedDataParallel(model, bucket_cap_mb=0.00001)
x = torch.randn(4, 5)
for _ in range(3):
    local(x).pow(2).sum().backward()
    ddp(x).pow(2).sum().backward()
    assert local.weight.grad.equal(model.weight.grad)
    assert local.bias.grad.equal(model.bias.grad)
dist.destroy_process_group()
print('ok')
'''
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT='1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM='1')
    env.setdefault('OMPI_MCA_btl_tcp_if_include', 'lo')
    env.setdefault('OMPI_MCA_oob_tcp_if_include', 'lo')
    p = subprocess.run([sys.executable, '-c', script], env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=50, text=True)
    assert p.returncode == 0 and p.stdout.strip().endswith('ok'), p.stdout
