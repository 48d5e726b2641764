// test-distributed.js: a process group from GJS, under `mpirun -np 2`
// (the distributed suite): init, all_reduce (synchronous and through a
// Dl.Work), all_gather into a list, broadcast, a mismatch that fails on
// both ranks, SyncBatchNorm, all_to_all_single with unequal splits, and
// destroy. Each rank checks what it got against the
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

    test('SyncBatchNorm: constructed, converted, and a forward across the ranks', () => {
        const seq = Dl.Sequential.new([Dl.BatchNorm1d.new(2), Dl.Relu.new(false)]);
        const converted = Dl.SyncBatchNorm.convert_sync_batchnorm(seq, null);
        assert(converted === seq, 'the container itself comes back');
        const bn = seq.get_module('0');
        assert(bn instanceof Dl.SyncBatchNorm, `child is ${bn}`);
        assert(bn.get_process_group() === null, 'default group');
        const direct = Dl.SyncBatchNorm.new(2, group);
        assert(direct.get_process_group() === group, 'explicit group');
        // rank r's values are r + 1: the mean across the ranks is (size + 1) / 2
        const y = direct.forward(Dl.full([3, 2], rank + 1, Dl.DType.FLOAT32, null));
        const mean = (size + 1) / 2;
        let v = 0;
        for (let r = 0; r < size; r++)
            v += (r + 1 - mean) ** 2 / size;
        const expected = (rank + 1 - mean) / Math.sqrt(v + 1e-5);
        values(y).forEach(x => assert(Math.abs(x - expected) < 1e-4, `${x} vs ${expected}`));
        const rm = values(direct.get_buffer('running_mean'));
        rm.forEach(x => assert(Math.abs(x - 0.1 * mean) < 1e-6, `running_mean ${x}`));
    });

    test('all_to_all_single with unequal splits', () => {
        // rank s sends r + 1 values of 10 s + r to rank r
        const send = [], sizes = [], recv = [];
        for (let r = 0; r < size; r++) {
            sizes.push(r + 1);
            for (let i = 0; i <= r; i++)
                send.push(10 * rank + r);
        }
        for (let s = 0; s < size; s++)
            recv.push(rank + 1);
        const input = Dl.Tensor.new_from_data(new Uint8Array(new Float32Array(send).buffer),
            [send.length], Dl.DType.FLOAT32);
        const output = full(size * (rank + 1), -1);
        group.all_to_all_single_split(output, input, recv, sizes, false);
        const expected = [];
        for (let s = 0; s < size; s++)
            for (let i = 0; i <= rank; i++)
                expected.push(10 * s + rank);
        assertArrayEqual(values(output), expected, 'received');
    });

    test('destroy', () => {
        Dl.distributed_destroy_process_group();
        assert(!Dl.distributed_is_initialized(), 'still initialized');
    });
    run();
}
