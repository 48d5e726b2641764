#!/usr/bin/env gjs
// train.js: train a small neural network with libdl, from GJS.
//
// The task: points drawn uniformly from the square [-1, 1]^2 belong to
// class 1 when both coordinates have the same sign, to class 0 otherwise
// (XOR of the signs). Net, a Dl.Module subclass, is two Dl.Linear layers
// with a ReLU between them; it learns with Dl.CrossEntropyLoss and Dl.Sgd.
// Layers, loss and optimizer are built from their construct properties.
// (The constructors do not call init(); a missing or bad value shows up
// as an error from init(null) or from the first forward or step.)
//
// It uses the companion module Dl.js (bindings/gjs/overrides/, installed
// with the typelib; GJS loads it with the namespace): optional arguments
// left out, Dl.tensor and toArray, and a memory budget.
//
// Run from a build tree:
//   GJS_PATH=bindings/gjs GI_TYPELIB_PATH=build/introspection \
//       LD_LIBRARY_PATH=build/libdl gjs examples/javascript/train.js
//
// A note on memory. GJS frees a tensor when its garbage collector gets to
// the wrapper, and the collector does not know how big the C buffer behind
// a wrapper is; the companion module watches the bytes the library has
// allocated and runs the collector when they grow past a budget, so the
// loop needs no System.gc(). tensor.release() frees a big tensor at once.
//
// Exits with status 0 when the loss fell, 1 otherwise.
//
// Copyright 2026 The libdl authors
// SPDX-License-Identifier: LGPL-2.1-or-later

imports.gi.versions.Dl = '1.0';
const {Dl, Gio, GLib, GObject} = imports.gi;
const System = imports.system;

const Net = GObject.registerClass(
class Net extends Dl.Module {
    _init(nIn, nHidden, nOut) {
        super._init();
        this._fc1 = new Dl.Linear({in_features: nIn, out_features: nHidden});
        this._fc2 = new Dl.Linear({in_features: nHidden, out_features: nOut});
        // children contribute their parameters ("fc1.weight", ...)
        this.register_module('fc1', this._fc1);
        this.register_module('fc2', this._fc2);
    }

    // Called by forward(), from JS or from C. A GLib.Error thrown by an op
    // (a shape that does not fit, say) reaches the caller.
    vfunc_forward(input) {
        return this._fc2.forward(this._fc1.forward(input).relu());
    }
});

// n points in [-1, 1)^2 and their labels; the labels are computed from the
// points' values (a Float32Array) and made into an int64 tensor.
function makeData(n) {
    const points = Dl.rand([n, 2]).mul(2).sub(1);
    const xs = points.toArray();
    const ys = new BigInt64Array(n);
    for (let i = 0; i < n; i++)
        ys[i] = (xs[2 * i] > 0) === (xs[2 * i + 1] > 0) ? 1n : 0n;
    return [points, Dl.tensor(ys)];
}

// The fraction of points classified right, without recording a graph.
function accuracy(net, points, labels) {
    const wasEnabled = Dl.set_grad_enabled(false);
    try {
        const predicted = net.forward(points).argmax(1);
        return predicted.eq(labels).to_dtype(Dl.DType.FLOAT32).mean().item();
    } finally {
        Dl.set_grad_enabled(wasEnabled);
    }
}

function main() {
    Dl.manual_seed(2026);
    const [points, labels] = makeData(256);
    const net = new Net(2, 16, 2);
    print(`parameters: ${net.parameter_names().join(', ')}`);

    // the parameters go to the optimizer as a list model (the C
    // convenience Dl.Sgd.new takes the array itself)
    const params = new Gio.ListStore({item_type: Dl.Tensor});
    params.splice(0, 0, net.parameters());
    const sgd = new Dl.Sgd({params, lr: 0.2, momentum: 0.9});
    sgd.init(null);
    // a loss takes (input, target) through the general form of forward
    const lossFn = new Dl.CrossEntropyLoss();
    let firstLoss = 0, lastLoss = 0;
    for (let step = 0; step <= 400; step++) {
        const [loss] = lossFn.forward_many([net.forward(points), labels]);
        sgd.zero_grad(true); // backward accumulates: clear first
        loss.backward();
        sgd.step();

        lastLoss = loss.item();
        if (step === 0)
            firstLoss = lastLoss;
        if (step % 50 === 0)
            print(`step ${String(step).padStart(3)}  loss ${lastLoss.toFixed(4)}`);
    }

    const acc = accuracy(net, points, labels);
    print(`loss ${firstLoss.toFixed(4)} -> ${lastLoss.toFixed(4)}, ` +
          `training accuracy ${(100 * acc).toFixed(1)}%`);
    return lastLoss < 0.5 * firstLoss;
}

try {
    if (!main()) {
        printerr('train: the loss did not fall enough');
        System.exit(1);
    }
} catch (e) {
    if (e instanceof GLib.Error && e.matches(Dl.Error, e.code))
        printerr(`train: libdl: ${e.message}`);
    else
        printerr(`train: ${e}`);
    System.exit(1);
}
