// test-ddp.js: Dl.DistributedDataParallel from GJS, under `mpirun -np 2`
// (the distributed suite): rank 0's weights on every rank, gradients
// averaged across the ranks, and no_sync accumulation
// (set_require_sync). The loss is the sum of a Linear layer's output on
// an input that differs per rank, so the gradients are known exactly:
// d/dweight is the input in every row, d/dbias is 1.
//
// Copyright 2026 The libdl authors
// SPDX-License-Identifier: LGPL-2.1-or-later

import Dl from 'gi://Dl?version=1.0';
import {test, run, assert, assertArrayEqual} from './harness.js';

function values(t) {
    const u8 = Uint8Array.from(t.to_dtype(Dl.DType.FLOAT64).to_bytes().get_data());
    return Array.from(new Float64Array(u8.buffer));
}

if (!Dl.distributed_is_backend_available('mpi')) {
    print('1..0 # SKIP the MPI engine is not available');
} else {
    Dl.distributed_init_process_group('mpi', null, -1, -1, 30);
    const group = Dl.distributed_get_default_group();
    const rank = group.get_rank(), size = group.get_size();
    const input = r => [r + 1, 2 * r + 2, r - 3];
    // the mean over the ranks of each rank's input
    const mean = [0, 1, 2].map(i =>
        Array.from({length: size}, (_, r) => input(r)[i]).reduce((a, b) => a + b) / size);

    Dl.manual_seed(10 + rank);
    const linear = Dl.Linear.new(3, 2, true);
    const ddp = Dl.DistributedDataParallel.new(linear, group);
    const weight = linear.get_parameter('weight');
    const bias = linear.get_parameter('bias');

    function step() {
        const inp = Dl.full([1, 3], 0, Dl.DType.FLOAT32, null);
        input(rank).forEach((v, i) => inp.narrow(1, i, 1).fill_(v));
        ddp.forward(inp).sum().backward(null, false, false);
    }

    test('rank 0 weights everywhere', () => {
        const outs = [];
        for (let r = 0; r < size; r++)
            outs.push(Dl.zeros([2, 3], Dl.DType.FLOAT32, null));
        group.all_gather(outs, weight.detach().contiguous(), false);
        outs.forEach((o, r) => assertArrayEqual(values(o), values(outs[0]), `rank ${r}`));
        assert(ddp.get_module() === linear, 'module');
    });

    test('gradients are the mean over the ranks', () => {
        step();
        assertArrayEqual(values(weight.get_grad()), [...mean, ...mean], 'weight grad');
        assertArrayEqual(values(bias.get_grad()), [1, 1], 'bias grad');
    });

    test('no_sync accumulates locally, the next synchronizing pass averages', () => {
        weight.set_grad(null);
        bias.set_grad(null);
        ddp.set_require_sync(false);
        step();
        assertArrayEqual(values(weight.get_grad()), [...input(rank), ...input(rank)], 'local');
        ddp.set_require_sync(true);
        step();
        const twice = mean.map(v => 2 * v);
        assertArrayEqual(values(weight.get_grad()), [...twice, ...twice], 'accumulated mean');
        assertArrayEqual(values(bias.get_grad()), [2, 2], 'bias');
    });

    test('destroy', () => {
        Dl.distributed_destroy_process_group();
    });
    run();
}
