// gjs-memory.js: the resident memory of a GJS training loop (a 512x512
// Linear, MSE loss, backward, an SGD step) with no System.gc() in it,
// under the companion module's memory budget (bindings/gjs/overrides/Dl.js).
// Prints the RSS every `every` steps, the collections and the time a step.
//
// Run: GJS_PATH=bindings/gjs GI_TYPELIB_PATH=build/introspection \
//      LD_LIBRARY_PATH=build/libdl gjs -m bench/gjs-memory.js \
//      [steps [batch [minMiB|off [factor [rss|norss [every]]]]]]
//
// Copyright 2026 The libdl authors
// SPDX-License-Identifier: LGPL-2.1-or-later

import GLib from 'gi://GLib';
import Gio from 'gi://Gio';
import Dl from 'gi://Dl?version=1.0';
import System from 'system';

const [steps = 2000, batch = 16, minMiB = '64', factor = 1, rss = 'rss', every = 250] =
    ARGV.map(a => Number.isNaN(Number(a)) ? a : Number(a));
Dl.memory.minBytes = minMiB === 'off' ? Infinity : Number(minMiB) * 2 ** 20;
Dl.memory.factor = factor;
Dl.memory.watchRss = rss === 'rss';

function rssMiB() {
    const [, statm] = GLib.file_get_contents('/proc/self/statm');
    return Number(new TextDecoder().decode(statm).split(' ')[1]) * 4096 / 2 ** 20;
}

const fc = new Dl.Linear({in_features: 512, out_features: 512});
const params = new Gio.ListStore({item_type: Dl.Tensor});
params.splice(0, 0, fc.parameters());
const opt = new Dl.Sgd({params, lr: 0.01});
const x = Dl.randn([batch, 512]);
const y = Dl.randn([batch, 512]);
const cpu = Dl.Device.get('cpu');
let t0 = GLib.get_monotonic_time();
print(`# steps ${steps}, batch ${batch}, budget ${minMiB} MiB, factor ${factor}, ${rss}`);
print('step\trss_mib\tallocated_mib\tcollections\tms_per_step');
for (let i = 1; i <= steps; i++) {
    opt.zero_grad();
    const loss = Dl.mse_loss(fc.forward(x), y, Dl.Reduction.MEAN);
    loss.backward();
    opt.step();
    if (i % every === 0) {
        const t1 = GLib.get_monotonic_time();
        print(`${i}\t${rssMiB().toFixed(1)}\t${(cpu.get_memory_allocated() / 2 ** 20).toFixed(1)}\t` +
              `${Dl.memory.stats.collections}\t${((t1 - t0) / 1000 / every).toFixed(2)}`);
        t0 = t1;
    }
}
const {collections, checks, gcMicroseconds} = Dl.memory.stats;
print(`# ${collections} collections, ${(gcMicroseconds / 1000 / Math.max(collections, 1)).toFixed(1)} ms each; ` +
      `${checks} checks`);
System.exit(0);
