// test-memory.js: a GJS training loop stays within bounded memory with no
// System.gc() in it. The JS collector does not see the bytes tensors hold;
// the companion module (bindings/gjs/overrides/Dl.js) runs it when memory
// has grown past its budget. The loop: a 512x512 Linear, MSE loss,
// backward and an SGD step, batch 16.
//
// DL_TEST_GJS_STEPS steps (2000 by default; the figure is 10000)
// under a budget of DL_TEST_GJS_BUDGET_MIB (8 by default, so that a short
// run sees several collections; the module's default is 32): the process's
// RSS, sampled every 50 steps, may not grow more than 10% past its peak
// during the warm-up (the first fifth of the steps and at least three
// collections: the resident size settles as the cycles between
// collections even out; 10000 steps under the default budget measured
// 94.7 MiB after two collections and at most 103.3 MiB from there on).
// A control, run first, trains 600 steps with the budget off and checks
// that the same measure sees the loop grow.
//
// Run: GJS_PATH=bindings/gjs GI_TYPELIB_PATH=build/introspection \
//      LD_LIBRARY_PATH=build/libdl gjs -m tests/javascript/test-memory.js
//
// Copyright 2026 The libdl authors
// SPDX-License-Identifier: LGPL-2.1-or-later

import GLib from 'gi://GLib';
import Gio from 'gi://Gio';
import Dl from 'gi://Dl?version=1.0';
import {test, run, assert} from './harness.js';

const steps = Number(GLib.getenv('DL_TEST_GJS_STEPS') ?? 2000);
const budgetMiB = Number(GLib.getenv('DL_TEST_GJS_BUDGET_MIB') ?? 8);
const batch = 16;

function rssMiB() {
    const [, statm] = GLib.file_get_contents('/proc/self/statm');
    return Number(new TextDecoder().decode(statm).split(' ')[1]) * 4096 / 2 ** 20;
}

// Trains for n steps; calls sample(step) every 50 steps.
function train(n, sample) {
    const fc = new Dl.Linear({in_features: 512, out_features: 512});
    const params = new Gio.ListStore({item_type: Dl.Tensor});
    params.splice(0, 0, fc.parameters());
    const opt = new Dl.Sgd({params, lr: 0.01});
    const x = Dl.randn([batch, 512]);
    const y = Dl.randn([batch, 512]);
    for (let i = 1; i <= n; i++) {
        opt.zero_grad();
        const loss = Dl.mse_loss(fc.forward(x), y, Dl.Reduction.MEAN);
        loss.backward();
        opt.step();
        if (i % 50 === 0)
            sample(i);
    }
}

test('without the budget the same measure sees the loop grow', () => {
    const saved = [Dl.memory.minBytes, Dl.memory.watchRss];
    Dl.memory.minBytes = Infinity;
    Dl.memory.watchRss = false;
    const n = 600;
    let atWarmup = 0, last = 0;
    try {
        train(n, i => {
            last = rssMiB();
            if (i === 100)
                atWarmup = last;
        });
    } finally {
        [Dl.memory.minBytes, Dl.memory.watchRss] = saved;
    }
    print(`# no budget: RSS ${atWarmup.toFixed(1)} MiB at step 100, ` +
          `${last.toFixed(1)} MiB at step ${n}`);
    assert(atWarmup > 0 && last > 1.1 * atWarmup, 'the loop grows without collections');
});

test(`${steps} steps of a 512x512 Linear in flat memory`, () => {
    const saved = Dl.memory.minBytes;
    Dl.memory.minBytes = budgetMiB * 2 ** 20;
    const warmup = Math.floor(steps / 5);
    const start = Dl.memory.stats.collections;
    let peakWarm = 0, peakAfter = 0, warmEnd = -1;
    const t0 = GLib.get_monotonic_time();
    try {
        train(steps, i => {
            const rss = rssMiB();
            if (warmEnd < 0) {
                peakWarm = Math.max(peakWarm, rss);
                if (i >= warmup && Dl.memory.stats.collections - start >= 3)
                    warmEnd = i;
            } else {
                peakAfter = Math.max(peakAfter, rss);
            }
            if (i % 500 === 0)
                print(`# step ${i}: RSS ${rss.toFixed(1)} MiB, ` +
                      `${Dl.memory.stats.collections - start} collections`);
        });
    } finally {
        Dl.memory.minBytes = saved;
    }
    const ms = (GLib.get_monotonic_time() - t0) / 1000 / steps;
    print(`# ${ms.toFixed(2)} ms a step; warm-up ended at step ${warmEnd} with a peak RSS of ` +
          `${peakWarm.toFixed(1)} MiB, peak after: ${peakAfter.toFixed(1)} MiB`);
    assert(warmEnd > 0 && warmEnd < steps, `the warm-up ended (step ${warmEnd} of ${steps})`);
    assert(peakAfter <= 1.1 * peakWarm,
        `RSS grew from ${peakWarm.toFixed(1)} to ${peakAfter.toFixed(1)} MiB`);
});

run();
