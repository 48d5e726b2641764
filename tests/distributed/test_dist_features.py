# test_dist_features.py: SyncBatchNorm, all_to_all with parts of any size,
# receives from any source, DistributedDataParallel's
# gradient_as_bucket_view and the worker threads' references, on both
# engines: feat_worker.py's scenarios under mpirun (MPI) and under the
# launcher dl.distributed.run (Gloo), 2 ranks (3 for any source).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Run by meson (suite distributed), which sets DL_TEST_MPIRUN to mpirun's
# path when the MPI engine was built (else DL_TEST_MPI_SKIP says why).

import os
import subprocess
import sys

import pytest
from gi.repository import Dl

dist = Dl.distributed

HERE = os.path.dirname(os.path.abspath(__file__))
WORKER = os.path.join(HERE, 'feat_worker.py')
MPIRUN = os.environ.get('DL_TEST_MPIRUN', '')
PYTHON = sys.executable

SCENARIOS = [('alltoall', 2), ('alltoall', 3), ('anysource', 3), ('syncbn', 2), ('syncbn', 3),
             ('bucketview', 2), ('refs', 2)]


def check(proc, scenario, n):
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    for r in range(n):
        assert 'rank %d: %s ok' % (r, scenario) in out, out


@pytest.mark.skipif(not MPIRUN or not dist.is_mpi_available(),
                    reason='MPI tests skipped: %s' % (os.environ.get('DL_TEST_MPI_SKIP') or
                                                      'DL_TEST_MPIRUN is not set or the MPI '
                                                      'engine is missing'))
@pytest.mark.parametrize('scenario,n', SCENARIOS)
def test_mpi(scenario, n):
    proc = subprocess.run([MPIRUN, '-np', str(n), PYTHON, WORKER, scenario, 'mpi'],
                          capture_output=True, text=True, timeout=50)
    check(proc, scenario, n)


@pytest.mark.skipif(not dist.is_gloo_available(),
                    reason='the Gloo engine (libdl-gloo-1.0.so) was not built')
@pytest.mark.parametrize('scenario,n', SCENARIOS)
def test_gloo(scenario, n):
    proc = subprocess.run([PYTHON, '-m', 'dl.distributed.run', '--nproc-per-node', str(n),
                           WORKER, scenario, 'gloo'], capture_output=True, text=True,
                          timeout=50)
    check(proc, scenario, n)


def test_sync_batch_norm_one_process():
    # no process group: eval mode is BatchNorm; training needs a group
    bn = Dl.nn.BatchNorm2d(3)
    sync = Dl.nn.SyncBatchNorm.convert_sync_batchnorm(bn)
    assert type(sync).__name__ == 'SyncBatchNorm'
    assert sync.weight is bn.weight or sync.weight.data_ptr() == bn.weight.data_ptr()
    assert sync.running_mean.data_ptr() == bn.running_mean.data_ptr()
    x = Dl.randn(4, 3, 2, 2)
    sync.eval()
    bn.eval()
    assert Dl.allclose(sync(x), bn(x))
    sync.train()
    if not dist.is_initialized():
        with pytest.raises(RuntimeError, match='needs a process group'):
            sync(x)
    with pytest.raises(ValueError, match='expected at least 2D input'):
        sync(Dl.ones(3))
