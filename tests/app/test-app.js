// test-app.js: drives the garment classifier (examples/javascript/classifier)
// as a person would, under Xvfb (run-app-test.sh starts it): the gallery
// of an untrained model, a short training run from the Train page while a
// 10 ms timeout measures how late the main loop runs, a stroke drawn
// through the canvas's drag handlers, the gallery after training, a checkpoint
// saved and opened again, a bad checkpoint and a missing data set as
// toasts, and, when run-app-test.sh made one, a checkpoint of the Python
// example. Saves app-*.png screenshots into the folder given as the first
// argument.
//
//   gjs -m tests/app/test-app.js BUILD_DIR [PYTHON_CHECKPOINT PYTHON_ACCURACY]
//
// Copyright 2026 The libdl authors
// SPDX-License-Identifier: LGPL-2.1-or-later

import Adw from 'gi://Adw?version=1';
import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import Graphene from 'gi://Graphene';
import Gsk from 'gi://Gsk?version=4.0';
import Gtk from 'gi://Gtk?version=4.0';
import System from 'system';

import {ClassifierApplication} from '../../examples/javascript/classifier/app.js';
import {rasterise} from '../../examples/javascript/classifier/draw.js';
import {GalleryPage} from '../../examples/javascript/classifier/gallery.js';
import {Session} from '../../examples/javascript/classifier/session.js';

const [outDir, pythonCheckpoint, pythonAccuracy] = ARGV;
const TRAIN_STEPS = 40;
const LATENCY_LIMIT_MS = 50;
let failures = 0;

function check(ok, what) {
    print(`${ok ? 'ok' : 'FAIL'}: ${what}`);
    if (!ok)
        failures++;
}

// CPU seconds the main thread (this one) has used, from /proc
const readProc = path => new TextDecoder().decode(GLib.file_get_contents(path)[1]);

// utime + stime of a /proc stat file (fields 14 and 15, in clock ticks of
// 1/100 s), in seconds
function statCpu(path) {
    const fields = readProc(path).split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
}

function mainThreadCpu() {
    try {
        const pid = readProc('/proc/self/stat').split(' ')[0];
        return statCpu(`/proc/self/task/${pid}/stat`);
    } catch (e) {
        return NaN;
    }
}

// Samples how late the main loop runs a 10 ms timeout; stop() gives the
// lateness of every run in milliseconds.
function sampleLateness() {
    const lateness = [];
    let expected = GLib.get_monotonic_time() + 10000;
    const id = GLib.timeout_add(GLib.PRIORITY_DEFAULT, 10, () => {
        const now = GLib.get_monotonic_time();
        lateness.push(Math.max(0, now - expected) / 1000);
        expected = now + 10000;
        return GLib.SOURCE_CONTINUE;
    });
    return {stop: () => {
        GLib.source_remove(id);
        return lateness;
    }};
}

// CPU time, in seconds, that the whole machine and this process have used,
// and that the hypervisor took from this machine (steal), from /proc: over
// a window, busy - self is what other processes (and the host) took from
// the cores the app was running on.
function machineCpu() {
    try {
        // cpu  user nice system idle iowait irq softirq steal ...
        const cpu = readProc('/proc/stat').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
        const busy = cpu[0] + cpu[1] + cpu[2] + cpu[5] + cpu[6] + cpu[7];
        // every thread of this process
        return {busy: busy / 100, self: statCpu('/proc/self/stat'), steal: cpu[7] / 100};
    } catch (e) {
        return {busy: NaN, self: NaN, steal: NaN};
    }
}

// what other processes and the host took, in cores, between two readings
function othersLoad(before, after, seconds) {
    return ((after.busy - before.busy) - (after.self - before.self)) / seconds;
}

const mean = xs => xs.reduce((a, b) => a + b, 0) / xs.length;
const describe = xs => `max ${Math.max(...xs).toFixed(1)} ms, mean ${mean(xs).toFixed(2)} ms, ` +
    `${xs.filter(x => x > 20).length} over 20 ms, ${xs.length} samples`;

// resolves after the main loop has run for ms milliseconds
function wait(ms) {
    return new Promise(resolve => GLib.timeout_add(GLib.PRIORITY_DEFAULT, ms, () => {
        resolve();
        return GLib.SOURCE_REMOVE;
    }));
}

// resolves with the signal's arguments the next time obj emits it
function nextSignal(obj, signal) {
    return new Promise(resolve => {
        const id = obj.connect(signal, (...args) => {
            obj.disconnect(id);
            resolve(args.slice(1));
        });
    });
}

// resolves once the window has painted a frame
function painted(win) {
    return new Promise(resolve => {
        const clock = win.get_frame_clock();
        const id = clock.connect('after-paint', () => {
            clock.disconnect(id);
            resolve();
        });
        win.queue_draw();
    });
}

// The window as a PNG: its content over the window's background colour,
// rendered by the window's own GSK renderer. A Gtk.WidgetPaintable shows
// what the widget drew when it was made (nothing while the widget waits
// for a new layout), so it is made right after a frame.
async function screenshot(win, name) {
    const content = win.get_content();
    await painted(win);
    const paintable = new Gtk.WidgetPaintable({widget: content});
    const width = content.get_width(), height = content.get_height();
    const snapshot = new Gtk.Snapshot();
    const [, background] = win.get_style_context().lookup_color('window_bg_color');
    snapshot.append_color(background, new Graphene.Rect().init(0, 0, width, height));
    paintable.snapshot(snapshot, width, height);
    const node = snapshot.to_node();
    const texture = win.get_renderer().render_texture(node, null);
    const path = GLib.build_filenamev([outDir, `app-${name}.png`]);
    // a node of the background colour alone would be a blank picture
    check(node.get_node_type() === Gsk.RenderNodeType.CONTAINER_NODE && texture.save_to_png(path),
        `screenshot ${path} (${width}x${height})`);
}

async function showPage(win, name) {
    win.activate_action('page', new GLib.Variant('s', name));
    await wait(300);
    check(win.stack.visible_child_name === name, `page ${name} shown`);
}

async function testGallery(win) {
    await showPage(win, 'gallery');
    if (win.gallery.accuracy === undefined)
        await nextSignal(win.gallery, 'predicted');
    const items = win.gallery.store;
    check(items.get_n_items() > 0 && items.get_item(0).predicted >= 0,
        `gallery of ${items.get_n_items()} test images, predictions shown`);
    print(`# untrained model: gallery accuracy ${win.gallery.accuracy.toFixed(3)}`);
    return win.gallery.accuracy;
}

async function testDraw(win) {
    await showPage(win, 'draw');
    const draw = win.draw;
    // the rasteriser: a horizontal bar fills the middle rows, nothing else
    const bar = rasterise([[{x: 0, y: 0}, {x: 1, y: 0}]], 0.05);
    check(bar[14 * 28 + 14] === 1 && bar[0] === 0 && bar[27 * 28 + 14] === 0,
        'a horizontal stroke rasterises to the middle rows');
    // a trouser-like shape through the drag gesture's handlers
    const strokes = [[[110, 40], [210, 40]], [[110, 40], [100, 280]], [[210, 40], [220, 280]],
        [[160, 60], [160, 280]]];
    for (const stroke of strokes) {
        draw.beginStroke(...stroke[0]);
        for (let t = 0.1; t <= 1; t += 0.1) {
            draw.extendStroke(stroke[0][0] + t * (stroke[1][0] - stroke[0][0]),
                stroke[0][1] + t * (stroke[1][1] - stroke[0][1]));
        }
        draw.endStroke(...stroke[1]);
    }
    // the classification of the whole drawing (not of one begun before)
    let best, confidence;
    do
        [best, confidence] = await nextSignal(draw, 'classified');
    while (draw.stale);
    const probs = draw.probabilities;
    const sum = probs.reduce((a, b) => a + b, 0);
    check(Math.abs(sum - 1) < 1e-4 && best >= 0 && best < 10 && confidence === probs[best],
        `drawing classified as ${best} (${confidence.toFixed(3)}), probabilities sum to ${sum.toFixed(5)}`);
    const image = draw.image();
    check(image.some(v => v > 0.9) && image.some(v => v === 0), 'the 28x28 input has ink and background');
    await screenshot(win, 'draw');
}

// Trains TRAIN_STEPS steps from the Train page while a 10 ms timeout
// measures how late the main loop runs it.
async function testTrain(win) {
    await showPage(win, 'train');
    const page = win.train;
    page.epochs.value = 1;
    page.limit.value = 4096;
    page.lr.value = 0.002;
    page.maxSteps = TRAIN_STEPS;
    // the same sampling with the app idle, for comparison
    let sampler = sampleLateness();
    await wait(2000);
    const idle = sampler.stop();
    const cpuBefore = mainThreadCpu();
    const machineBefore = machineCpu();
    const started = GLib.get_monotonic_time();
    sampler = sampleLateness();
    // training changes the model: the gallery predicts again
    const refreshed = nextSignal(win.gallery, 'predicted');
    const finished = await page.start();
    const lateness = sampler.stop();
    const seconds = (GLib.get_monotonic_time() - started) / 1e6;
    check(finished === true, `training finished (${seconds.toFixed(1)} s)`);
    const points = page.chart.points;
    check(points.length === TRAIN_STEPS && points[points.length - 1].step === TRAIN_STEPS,
        `${points.length} progress points on the chart`);
    const first = mean(points.slice(0, 5).map(p => p.loss));
    const last = mean(points.slice(-5).map(p => p.loss));
    check(last < 0.7 * first, `loss fell from ${first.toFixed(3)} to ${last.toFixed(3)}`);
    const max = Math.max(...lateness);
    const cpu = mainThreadCpu() - cpuBefore;
    print(`# main-loop lateness during training: ${describe(lateness)}`);
    print(`# the same, idle for 2 s before: ${describe(idle)}`);
    print(`# the main thread used ${cpu.toFixed(2)} s of CPU in the ${seconds.toFixed(1)} s of training`);
    await wait(500); // the Train button's colour transition
    check(lateness.length > seconds * 20, `the 10 ms timeout ran ${lateness.length} times`);
    // training on the main thread would keep it busy (about a whole core);
    // what it does run, the 10 ms timeout above and drawing the chart's
    // points, took 0.26 s in a 2.1 s training here (training got 3 times
    // faster with OpenBLAS's AVX-512 kernels, the drawing did not)
    check(cpu < seconds / 3, 'the main thread stayed mostly idle (under a third of a core) while training');
    // Two training threads on two cores leave the main thread a share of
    // them; when other processes or the host take CPU in the same window
    // (a shared CI machine), the scheduler alone can keep the 10 ms timeout
    // waiting longer than the limit, and the limit is then not judged.
    const machine = machineCpu();
    const others = othersLoad(machineBefore, machine, seconds);
    const steal = (machine.steal - machineBefore.steal) / seconds;
    const cores = GLib.get_num_processors();
    print(`# other processes and the host took ${others.toFixed(2)} of ${cores} processors ` +
          `during training (steal ${steal.toFixed(2)})`);
    if (max >= LATENCY_LIMIT_MS && others > 0.25) {
        print(`# the ${LATENCY_LIMIT_MS} ms limit is not judged: other processes held the CPUs ` +
              '(the idle main thread above shows the app does not block it)');
    } else {
        check(max < LATENCY_LIMIT_MS, `main loop never more than ${LATENCY_LIMIT_MS} ms late ` +
              `(others ${others.toFixed(2)} of ${cores} processors)`);
    }
    await screenshot(win, 'train');
    return refreshed;
}

async function testCheckpoints(win, untrained, refreshed) {
    await refreshed;
    await showPage(win, 'gallery');
    const trained = win.gallery.accuracy;
    check(trained > 0.5 && trained > untrained, `gallery accuracy after training ${trained.toFixed(3)}`);
    await screenshot(win, 'gallery');

    const file = Gio.File.new_for_path(GLib.build_filenamev([outDir, 'app-test.safetensors']));
    win.saveCheckpoint(file);
    check(file.query_exists(null), 'checkpoint saved');
    win.activate_action('new-model', null);
    await nextSignal(win.gallery, 'predicted');
    check(win.gallery.accuracy !== trained, `a new model: accuracy ${win.gallery.accuracy.toFixed(3)}`);
    win.openCheckpoint(file);
    await nextSignal(win.gallery, 'predicted');
    check(win.gallery.accuracy === trained, `the saved checkpoint opened: accuracy ${win.gallery.accuracy}`);

    const bad = Gio.File.new_for_path(GLib.build_filenamev([outDir, 'app-bad.safetensors']));
    bad.replace_contents(new TextEncoder().encode('not a checkpoint'), null, false,
        Gio.FileCreateFlags.NONE, null);
    win.lastToast = null;
    win.openCheckpoint(bad);
    check(win.lastToast !== null && win.lastToast.includes('app-bad.safetensors'),
        `a bad checkpoint is a toast: ${win.lastToast}`);
    check(win.gallery.accuracy === trained, 'the model stayed');

    if (pythonCheckpoint) {
        win.openCheckpoint(Gio.File.new_for_path(pythonCheckpoint));
        await nextSignal(win.gallery, 'predicted');
        const n = win.gallery.store.get_n_items();
        check(Math.abs(win.gallery.accuracy - Number(pythonAccuracy)) <= 1 / n + 1e-9,
            `the Python example's checkpoint: accuracy ${win.gallery.accuracy} here, ` +
            `${pythonAccuracy} in Python`);
    }
}

// Cancel (Ctrl+Return's action) stops a run within a step
async function testCancel(win) {
    await showPage(win, 'train');
    const page = win.train;
    page.maxSteps = 0;
    const run = page.start();
    while (page.chart.points.length < 2)
        await wait(20);
    win.activate_action('train', null);
    const finished = await run;
    const steps = page.chart.points.length;
    check(finished === false && page.progress.text === 'Cancelled' && !win.session.training,
        `training cancelled after ${steps} steps`);
    check(steps < 10, 'it stopped within a few steps');
}

async function testMissingData() {
    GLib.setenv('DL_FASHION_MNIST_ROOT', GLib.build_filenamev([outDir, 'no-such-folder']), true);
    const page = new GalleryPage(new Session());
    let message = null;
    page.connect('error', (p, m) => {
        message = m;
    });
    await page.refresh();
    check(page.visible_child_name === 'missing' && message !== null && message.includes('no-such-folder'),
        `a missing data set: status page and the message ${message}`);
    GLib.unsetenv('DL_FASHION_MNIST_ROOT');
}

async function run(app) {
    const win = app.active_window;
    await wait(500);
    const untrained = await testGallery(win);
    const refreshed = await testTrain(win);
    await testDraw(win);
    await testCheckpoints(win, untrained, refreshed);
    await testMissingData();
    await testCancel(win);
    // the dark style, on the Train page's chart
    Adw.StyleManager.get_default().color_scheme = Adw.ColorScheme.FORCE_DARK;
    await showPage(win, 'train');
    await screenshot(win, 'train-dark');
}

const app = new ClassifierApplication();
app.connect_after('activate', () => {
    run(app).catch(e => {
        print(`FAIL: ${e}\n${e.stack}`);
        failures++;
    }).finally(() => app.quit());
});
app.run([System.programInvocationName]);
print(failures ? `${failures} checks failed` : 'all checks passed');
System.exit(failures ? 1 : 0);
