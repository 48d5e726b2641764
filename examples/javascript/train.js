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
// Run from a build tree:
//   GI_TYPELIB_PATH=build/introspection LD_LIBRARY_PATH=build/libdl \
//       gjs examples/javascript/train.js
//
// A note on memory. GJS frees a tensor when its garbage collector gets to
// the wrapper, not when the last variable lets go of it, and the collector
// does not know how big the C buffer behind a wrapper is: a loop that makes
// new tensors every step piles them up (a step of a 1024x1024 layer on a
// batch of 256 held 600 MiB after 300 steps here, against 25 MiB when it
// collected every 10 steps). Two tools: tensor.release() lets go of a
// tensor's memory (and its autograd graph) at once, for the big ones you
// hold; System.gc() every few steps frees the rest, the tensors made
// inside vfunc_forward included.
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
// points' bytes and turned back into a tensor through GLib.Bytes.
function makeData(n) {
    const points = Dl.rand([n, 2], Dl.DType.FLOAT32, null).mul_scalar(2).sub_scalar(1);
    const xs = new Float32Array(Uint8Array.from(points.to_bytes().get_data()).buffer);
    const ys = new BigInt64Array(n);
    for (let i = 0; i < n; i++)
        ys[i] = (xs[2 * i] > 0) === (xs[2 * i + 1] > 0) ? 1n : 0n;
    const labels = Dl.Tensor.new_from_bytes(new GLib.Bytes(new Uint8Array(ys.buffer)),
        Dl.DType.INT64, [n]);
    return [points, labels];
}

// The fraction of points classified right, without recording a graph.
function accuracy(net, points, labels) {
    const wasEnabled = Dl.set_grad_enabled(false);
    try {
        const predicted = net.forward(points).argmax(1, false);
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
        loss.backward(null, false, false);
        sgd.step();

        lastLoss = loss.item();
        loss.release(); // done with this step's graph: free it now
        if (step === 0)
            firstLoss = lastLoss;
        if (step % 50 === 0)
            print(`step ${String(step).padStart(3)}  loss ${lastLoss.toFixed(4)}`);

        // free the tensors of the last few steps (see the note on memory)
        if (step % 10 === 9)
            System.gc();
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
