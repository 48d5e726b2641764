// test-trainer.js: Dl.Trainer from GJS, as a GNOME application uses it:
// train_async awaited through Gio._promisify on a main loop, progress
// signals in JavaScript, evaluate and predict, cancelling, and the error
// for a model written in JavaScript (which cannot run on the worker).
//
// Run: GJS_PATH=bindings/gjs GI_TYPELIB_PATH=build/introspection \
//      LD_LIBRARY_PATH=build/libdl gjs -m tests/javascript/test-trainer.js
//
// Copyright 2026 The libdl authors
// SPDX-License-Identifier: LGPL-2.1-or-later

import GLib from 'gi://GLib';
import GObject from 'gi://GObject';
import Gio from 'gi://Gio';
import Dl from 'gi://Dl?version=1.0';
import {test, run, assert} from './harness.js';

Gio._promisify(Dl.Trainer.prototype, 'train_async', 'train_finish');
Gio._promisify(Dl.Trainer.prototype, 'evaluate_async', 'evaluate_finish');
Gio._promisify(Dl.Trainer.prototype, 'predict_async', 'predict_finish');

// runs a main loop until the promise settles; its value, or throws
function wait(promise) {
    const loop = new GLib.MainLoop(null, false);
    let value, error, settled = false;
    promise.then(v => {
        value = v;
    }, e => {
        error = e;
    }).finally(() => {
        settled = true;
        loop.quit();
    });
    if (!settled)
        loop.run();
    if (error)
        throw error;
    return value;
}

// the error a promise rejects with (run on a main loop), or null
function waitForError (promise)
{
  try
    {
      wait (promise);
    }
  catch (e)
    {
      return e;
    }
  return null;
}

// 64 points of 4 features; the class is the largest of the first three
function makeLoader(batchSize) {
    const x = Dl.randn([64, 4]);
    const y = x.narrow(1, 0, 3).argmax(1);
    const dataset = Dl.TensorDataset.new([x, y]);
    return [x, y, Dl.DataLoader.new(dataset, batchSize, false)];
}

function makeModel() {
    return Dl.Sequential.new([
        Dl.Linear.new(4, 16, true), Dl.Relu.new(false), Dl.Linear.new(16, 3, true),
    ]);
}

function makeTrainer(model, loader) {
    const params = new Gio.ListStore({item_type: Dl.Tensor});
    params.splice(0, 0, model.parameters());
    const sgd = new Dl.Sgd({params, lr: 0.3, momentum: 0.5});
    sgd.init(null);
    return Dl.Trainer.new(model, new Dl.CrossEntropyLoss(), sgd, loader);
}

test('train_async awaited on a main loop: progress, epochs, a falling loss', () => {
    Dl.manual_seed(1);
    const [x, , loader] = makeLoader(16);
    const model = makeModel();
    const trainer = makeTrainer(model, loader);
    trainer.epochs = 8;
    const losses = [], epochs = [];
    trainer.connect('progress', (t, point) => {
        assert(t.running, 'running during progress');
        assert(point.step === losses.length + 1, `step ${point.step}`);
        assert(point.accuracy >= 0 && point.accuracy <= 1, `accuracy ${point.accuracy}`);
        losses.push(point.loss);
    });
    trainer.connect('epoch-finished', (t, epoch, meanLoss) => epochs.push(meanLoss));
    const ok = wait(trainer.train_async(null));
    assert(ok === true, 'train_finish gave true');
    assert(!trainer.running, 'not running after');
    assert(losses.length === 8 * 4, `${losses.length} points`);
    assert(trainer.history.get_n_items() === losses.length, 'history');
    assert(epochs.length === 8, `${epochs.length} epochs`);
    assert(epochs[7] < 0.8 * epochs[0], `epoch loss ${epochs[0]} -> ${epochs[7]}`);

    // predict equals the model in eval mode under no_grad, run here
    const out = wait(trainer.predict_async(x.narrow(0, 0, 5), null));
    const wasEnabled = Dl.set_grad_enabled(false);
    const want = model.forward(x.narrow(0, 0, 5));
    Dl.set_grad_enabled(wasEnabled);
    assert(out.equal(want), 'predict equals a synchronous forward');

    // (GJS leaves out the boolean of a finish that throws)
    const [loss, accuracy] = wait(trainer.evaluate_async(loader, null));
    assert(Math.abs(loss - epochs[7]) < 0.5 && accuracy > 0.5,
        `evaluate: loss ${loss}, accuracy ${accuracy}`);
});

test('cancelling from a progress handler stops training', () => {
    Dl.manual_seed(2);
    const [, , loader] = makeLoader(8);
    const trainer = makeTrainer(makeModel(), loader);
    trainer.epochs = 1000000;
    const cancellable = new Gio.Cancellable();
    trainer.connect('progress', (t, point) => {
        if (point.step === 2)
            cancellable.cancel();
    });
    const error = waitForError (trainer.train_async(cancellable));
    assert(error && error.matches(Gio.IOErrorEnum, Gio.IOErrorEnum.CANCELLED), `error ${error}`);
    assert(trainer.history.get_n_items() >= 2, 'at least the steps before the cancel');
    assert(!trainer.running, 'not running after');
});

test('a module written in JavaScript is refused with a clear error', () => {
    const Twice = GObject.registerClass(class Twice extends Dl.Module {
        vfunc_forward(input) {
            return input.mul(2);
        }
    });
    const [, , loader] = makeLoader(8);
    const model = Dl.Sequential.new([Dl.Linear.new(4, 3, true), new Twice()]);
    const trainer = makeTrainer(model, loader);
    const error = waitForError (trainer.train_async(null));
    assert(error && error.matches(Dl.Error, Dl.Error.NOT_SUPPORTED), `error ${error}`);
    assert(error.message.includes("'model.1'") && error.message.includes('language binding'),
        error.message);
});

run();
