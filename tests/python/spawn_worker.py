# spawn_worker.py: the functions test_spawn.py runs in processes started by
# dl.multiprocessing.spawn (a module of its own, so that each spawned
# interpreter imports only this and dl).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import os
import signal
import time

import dl


def record(i, out_dir, shared):
    """Process i writes i + 10 into shared[i] (memory shared with the
    parent) and leaves a file naming its rank and pid."""
    assert type(shared) is dl.Tensor
    shared[i] = i + 10
    with open(os.path.join(out_dir, 'rank%d' % i), 'w') as f:
        f.write('%d %d' % (i, os.getpid()))


def fail_on(i, bad):
    """Process bad raises; the others would wait a minute."""
    if i == bad:
        raise ValueError('rank %d failed on purpose' % i)
    time.sleep(60)


def exit_with(i, code):
    """Process 1 exits with @code without a Python exception."""
    if i == 1:
        os._exit(code)
    time.sleep(60)


def killed(i):
    """Process 0 is killed by SIGKILL."""
    if i == 0:
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(60)


def gloo_all_reduce(i, port, out_dir):
    """The data-parallel tutorial's start: each process joins a Gloo group
    on a TCP address and sums a tensor."""
    dist = dl.distributed
    dist.init_process_group('gloo', init_method='tcp://127.0.0.1:%d' % port, rank=i,
                            world_size=2)
    t = dl.ones(4) * (i + 1)
    dist.all_reduce(t)
    with open(os.path.join(out_dir, 'sum%d' % i), 'w') as f:
        f.write(' '.join('%g' % v for v in t.tolist()))
    dist.destroy_process_group()
