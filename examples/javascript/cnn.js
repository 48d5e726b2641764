#!/usr/bin/env gjs
// cnn.js: the main job from GJS: a CNN trained on Fashion-MNIST.
//
// CnnNet, a Dl.Module subclass, has the layers of
// examples/python/fashion_mnist.py under the same names, so the checkpoint
// it saves is one the Python example evaluates:
//   examples/python/fashion_mnist.py --evaluate --checkpoint cnn-js.safetensors
// The data set is read in C (Dl.FashionMnistDataset), so the DataLoader's
// worker threads load its batches; a data set written in JS would load on
// this thread instead.
//
// Run from a build tree:
//   GI_TYPELIB_PATH=build/introspection LD_LIBRARY_PATH=build/libdl \
//       gjs examples/javascript/cnn.js [epochs] [train-limit] [test-limit] [checkpoint]
//
// Exits with status 0 when the test accuracy reaches 0.7 (1 otherwise).
//
// Copyright 2026 The libdl authors
// SPDX-License-Identifier: LGPL-2.1-or-later

imports.gi.versions.Dl = '1.0';
const {Dl, Gio, GLib, GObject} = imports.gi;
const System = imports.system;

const MEAN = 0.2860, STD = 0.3530;
// a 3x3 kernel with one pixel of padding, as construct properties
const K3 = {kernel_height: 3, kernel_width: 3, padding_height: 1, padding_width: 1};

const CnnNet = GObject.registerClass(
class CnnNet extends Dl.Module {
    _init() {
        super._init();
        const layers = {
            conv1: new Dl.Conv2d({in_channels: 1, out_channels: 32, ...K3, bias: false}),
            bn1: new Dl.BatchNorm2d({num_features: 32}),
            conv2: new Dl.Conv2d({in_channels: 32, out_channels: 64, ...K3, bias: false}),
            bn2: new Dl.BatchNorm2d({num_features: 64}),
            pool: new Dl.MaxPool2d({kernel_height: 2, kernel_width: 2}),
            drop: new Dl.Dropout({p: 0.25}),
            fc1: new Dl.Linear({in_features: 64 * 7 * 7, out_features: 128}),
            fc2: new Dl.Linear({in_features: 128, out_features: 10}),
        };
        for (const [name, layer] of Object.entries(layers)) {
            layer.init(null); // reports a bad construct property at once
            this.register_module(name, layer);
            this[`_${name}`] = layer;
        }
    }

    _block(conv, bn, x) {
        return this._pool.forward(bn.forward(conv.forward(x)).relu());
    }

    vfunc_forward(input) {
        let x = this._block(this._conv1, this._bn1, input);
        x = this._block(this._conv2, this._bn2, x);
        x = this._drop.forward(x.flatten(1, -1));
        x = this._drop.forward(this._fc1.forward(x).relu());
        return this._fc2.forward(x);
    }
});

// the data set, or its first `limit` samples
function fashionMnist(train, limit) {
    const all = Dl.FashionMnistDataset.new(null, train, MEAN, STD);
    if (!limit || limit >= all.get_length())
        return all;
    return Dl.Subset.new(all, [...Array(limit).keys()]);
}

function evaluate(model, loader) {
    const wasEnabled = Dl.set_grad_enabled(false);
    model.set_training(false);
    let correct = 0, total = 0;
    const pass = loader.iterate();
    for (let [more, batch] = pass.next(); more; [more, batch] = pass.next()) {
        const [images, labels] = batch;
        correct += model.forward(images).argmax(1, false).eq(labels).sum().item();
        total += labels.get_size(0);
    }
    model.set_training(true);
    Dl.set_grad_enabled(wasEnabled);
    return correct / total;
}

function main(argv) {
    const epochs = Number(argv[0] ?? 2);
    const trainLimit = Number(argv[1] ?? 0), testLimit = Number(argv[2] ?? 0);
    const checkpoint = argv[3] ?? 'cnn-js.safetensors';
    Dl.manual_seed(0);

    const trainLoader = new Dl.DataLoader({dataset: fashionMnist(true, trainLimit),
        batch_size: 128, shuffle: true, num_workers: 2});
    const testLoader = new Dl.DataLoader({dataset: fashionMnist(false, testLimit),
        batch_size: 1000, num_workers: 2});
    const model = new CnnNet();
    const params = new Gio.ListStore({item_type: Dl.Tensor});
    params.splice(0, 0, model.parameters());
    const adam = new Dl.Adam({params, lr: 2e-3});
    adam.init(null);
    const criterion = new Dl.CrossEntropyLoss();

    let accuracy = 0;
    for (let epoch = 1; epoch <= epochs; epoch++) {
        const start = GLib.get_monotonic_time();
        let total = 0, seen = 0;
        const pass = trainLoader.iterate();
        for (let [more, batch] = pass.next(); more; [more, batch] = pass.next()) {
            const [images, labels] = batch;
            const [loss] = criterion.forward_many([model.forward(images), labels]);
            adam.zero_grad(true);
            loss.backward(null, false, false);
            adam.step();
            const n = labels.get_size(0);
            total += loss.item() * n;
            seen += n;
            loss.release(); // this step's graph, freed now
            if (pass.get_position() % 10 === 0)
                System.gc(); // the wrappers of the last steps' tensors
        }
        accuracy = evaluate(model, testLoader);
        const secs = (GLib.get_monotonic_time() - start) / 1e6;
        print(`epoch ${epoch}/${epochs}: loss ${(total / seen).toFixed(4)}, ` +
              `test accuracy ${accuracy.toFixed(4)}, ${secs.toFixed(1)} s ` +
              `(${(seen / secs).toFixed(0)} samples/s)`);
    }
    model.save_state(Gio.File.new_for_commandline_arg(checkpoint), null);
    print(`checkpoint: ${checkpoint}`);
    print(`final test accuracy: ${accuracy.toFixed(4)}`);
    return accuracy >= 0.7;
}

try {
    if (!main(ARGV))
        System.exit(1);
} catch (e) {
    printerr(`cnn: ${e instanceof GLib.Error ? e.message : e}`);
    System.exit(1);
}
