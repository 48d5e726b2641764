# dl.distributed.run (torchrun): starts N copies of a training script on
# this node, with the environment an env:// process group reads.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
#   python3 -m dl.distributed.run --nproc-per-node 2 train.py --epochs 3
#
# Each child gets RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE,
# GROUP_RANK, MASTER_ADDR, MASTER_PORT and TORCHELASTIC_RUN_ID, as torchrun
# sets them. The launcher waits for its children; when one fails, it stops
# the others (SIGTERM, then SIGKILL after a grace period), says which rank
# failed and how, and exits with that child's status (128 + the signal for
# a child killed by one). Several nodes: run it on each with the same
# --nnodes, --master-addr and --master-port and its own --node-rank.
#
# The MPI engine takes its ranks from MPI, not from this environment:
# launch MPI programs with `mpirun -np N`, not with this launcher.

import argparse
import os
import signal
import subprocess
import sys
import time
import uuid

GRACE_SECONDS = 5.0


def _parser():
    p = argparse.ArgumentParser(
        prog='python3 -m dl.distributed.run',
        description='Starts --nproc-per-node copies of a script with RANK, LOCAL_RANK, '
                    'WORLD_SIZE, MASTER_ADDR and MASTER_PORT set (torchrun\'s flags).')
    p.add_argument('--nnodes', default='1',
                   help='number of nodes, or MIN:MAX (both must be equal here)')
    p.add_argument('--nproc-per-node', '--nproc_per_node', dest='nproc_per_node', default='1',
                   help='processes per node: a number, or "cpu" (one per core)')
    p.add_argument('--node-rank', '--node_rank', dest='node_rank', type=int, default=0,
                   help='this node\'s rank among the nodes')
    p.add_argument('--master-addr', '--master_addr', dest='master_addr', default='127.0.0.1',
                   help='address of the node of rank 0')
    p.add_argument('--master-port', '--master_port', dest='master_port', type=int,
                   default=29500, help='a free port on the node of rank 0')
    p.add_argument('--standalone', action='store_true',
                   help='one node: the master is this host, on a free port')
    p.add_argument('--max-restarts', '--max_restarts', dest='max_restarts', type=int, default=0,
                   help='restarts are not supported: must be 0')
    p.add_argument('--run-path', '-m', '--module', dest='module', action='store_true',
                   help='run the script as a module (python3 -m)')
    p.add_argument('--no-python', '--no_python', dest='no_python', action='store_true',
                   help='run the script as an executable, not through python3')
    p.add_argument('training_script', help='the script (or module, or program) to start')
    p.add_argument('training_script_args', nargs=argparse.REMAINDER)
    return p


def _nnodes(text, parser):
    parts = text.split(':')
    try:
        values = [int(v) for v in parts]
    except ValueError:
        parser.error('--nnodes: %r is not a number or MIN:MAX' % text)
    if len(values) not in (1, 2) or values[0] < 1 or values[-1] != values[0]:
        parser.error('--nnodes: %r: elastic ranges are not supported (use N or N:N)' % text)
    return values[0]


def _nproc(text, parser):
    if text in ('cpu', 'auto'):
        return os.cpu_count() or 1
    try:
        n = int(text)
    except ValueError:
        parser.error('--nproc-per-node: %r is not a number' % text)
    if n < 1:
        parser.error('--nproc-per-node must be at least 1, got %d' % n)
    return n


def _free_port():
    import socket
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def _describe(code):
    if code < 0:
        try:
            return 'killed by %s' % signal.Signals(-code).name
        except ValueError:
            return 'killed by signal %d' % -code
    return 'exit code %d' % code


def main(argv=None):
    parser = _parser()
    args = parser.parse_args(argv)
    nnodes = _nnodes(args.nnodes, parser)
    nproc = _nproc(args.nproc_per_node, parser)
    if not 0 <= args.node_rank < nnodes:
        parser.error('--node-rank %d is not in [0, %d)' % (args.node_rank, nnodes))
    if args.max_restarts:
        parser.error('--max-restarts: restarting failed workers is not supported')
    if args.standalone:
        if nnodes != 1:
            parser.error('--standalone runs one node; --nnodes is %d' % nnodes)
        args.master_addr, args.master_port = '127.0.0.1', _free_port()
    world = nnodes * nproc
    run_id = os.environ.get('TORCHELASTIC_RUN_ID') or uuid.uuid4().hex

    if args.no_python:
        command = [args.training_script]
    elif args.module:
        command = [sys.executable, '-u', '-m', args.training_script]
    else:
        command = [sys.executable, '-u', args.training_script]
    command += args.training_script_args

    children = []
    for local_rank in range(nproc):
        env = dict(os.environ)
        env.update(RANK=str(args.node_rank * nproc + local_rank), LOCAL_RANK=str(local_rank),
                   WORLD_SIZE=str(world), LOCAL_WORLD_SIZE=str(nproc),
                   GROUP_RANK=str(args.node_rank), ROLE_RANK=str(args.node_rank * nproc +
                                                                 local_rank),
                   ROLE_WORLD_SIZE=str(world), MASTER_ADDR=args.master_addr,
                   MASTER_PORT=str(args.master_port), TORCHELASTIC_RUN_ID=run_id,
                   OMP_NUM_THREADS=env.get('OMP_NUM_THREADS', '1' if nproc > 1 else ''))
        if not env['OMP_NUM_THREADS']:
            del env['OMP_NUM_THREADS']
        children.append(subprocess.Popen(command, env=env))

    def forward(signum, frame):
        for child in children:
            if child.poll() is None:
                child.send_signal(signum)

    signal.signal(signal.SIGINT, forward)
    signal.signal(signal.SIGTERM, forward)

    failed = None
    while True:
        running = 0
        for local_rank, child in enumerate(children):
            code = child.poll()
            if code is None:
                running += 1
            elif code != 0 and failed is None:
                failed = (local_rank, code)
        if failed is not None or running == 0:
            break
        time.sleep(0.05)

    if failed is not None:
        local_rank, code = failed
        rank = args.node_rank * nproc + local_rank
        print('dl.distributed.run: rank %d (local rank %d, pid %d) failed with %s; stopping the '
              'other ranks' % (rank, local_rank, children[local_rank].pid, _describe(code)),
              file=sys.stderr, flush=True)
        for child in children:
            if child.poll() is None:
                child.terminate()
        deadline = time.monotonic() + GRACE_SECONDS
        for child in children:
            try:
                child.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
        return 128 - code if code < 0 else code
    return 0


if __name__ == '__main__':
    sys.exit(main())
