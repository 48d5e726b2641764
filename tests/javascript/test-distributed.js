// test-distributed.js: a process group from GJS, under `mpirun -np 2`
// (the distributed suite): init, all_reduce (synchronous and through a
// Dl.Work), all_gather into a list, broadcast, a mismatch that fails on
// both ranks, and destroy. Each rank checks what it got against the
// values it knows every rank sent; exits non-zero on a failure.
//
// Copyright 2026 The libdl authors
// SPDX-License-Identifier: LGPL-2.1-or-later

import Dl from 'gi://Dl?version=1.0';
import {test, run, assert, assertArrayEqual, assertDlError} from './harness.js';

const F64 = Dl.DType.FLOAT64;

function values(t) {
    const bytes = t.to_dtype(F64).to_bytes();
    const u8 = Uint8Array.from(bytes.get_data());
    return Array.from(new Float64Array(u8.buffer));
}

function full(n, v) {
    return Dl.full([n], v, Dl.DType.FLOAT32, null);
}

if (!Dl.distributed_is_backend_available('mpi')) {
    print('1..0 # SKIP the MPI engine is not available');
} else {
    Dl.distributed_init_process_group('mpi', null, -1, -1, 30);
    const group = Dl.distributed_get_default_group();
    const rank = group.get_rank(), size = group.get_size();

    test('the default group', () => {
        assert(Dl.distributed_is_initialized(), 'is_initialized');
        assert(size >= 1 && rank >= 0 && rank < size, `rank ${rank} of ${size}`);
        assert(group.backend_name === 'mpi', `backend ${group.backend_name}`);
    });

    test('all_reduce, synchronous and asynchronous', () => {
        const t = full(3, rank + 1);
        const done = group.all_reduce(t, Dl.ReduceOpKind.SUM, false);
        assert(done.is_completed() && done.is_success(), 'completed');
        const sum = size * (size + 1) / 2;
        assertArrayEqual(values(t), [sum, sum, sum], 'sum');
        const work = group.all_reduce(t, Dl.ReduceOpKind.MAX, true);
        work.wait();
        assertArrayEqual(values(t), [sum, sum, sum], 'max');
    });

    test('all_gather and broadcast', () => {
        const outs = [];
        for (let r = 0; r < size; r++)
            outs.push(full(2, -1));
        group.all_gather(outs, full(2, 10 * rank), false);
        outs.forEach((o, r) => assertArrayEqual(values(o), [10 * r, 10 * r], `from ${r}`));
        const t = full(2, rank);
        group.broadcast(t, size - 1, false);
        assertArrayEqual(values(t), [size - 1, size - 1], 'broadcast');
    });

    test('a shape that differs across ranks fails on every rank', () => {
        if (size < 2)
            return;
        const e = assertDlError(() => group.all_reduce(full(2 + rank, 1), Dl.ReduceOpKind.SUM,
            false), Dl.Error.SHAPE, 'mismatch');
        assert(e.message.includes('[2]') && e.message.includes('[3]'), e.message);
    });

    test('destroy', () => {
        Dl.distributed_destroy_process_group();
        assert(!Dl.distributed_is_initialized(), 'still initialized');
    });
    run();
}
