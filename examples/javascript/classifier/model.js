// model.js: the classifier's model, data and checkpoints.
//
// The two models of examples/python/fashion_mnist.py (its default CNN and
// its MLP), built from libdl's own layers in a Dl.Sequential whose children
// carry the Python module's attribute names, so the state dicts have the
// same keys (conv1.weight, bn1.running_mean, fc2.bias, ...) and a
// checkpoint the Python example saves loads here, and the other way round.
// No layer is written in JavaScript: the trainer runs the model on a worker
// thread, and GJS code must stay on the main thread.
//
// Copyright 2026 The libdl authors
// SPDX-License-Identifier: LGPL-2.1-or-later

import Dl from 'gi://Dl?version=1.0';
import Gio from 'gi://Gio';
import GLib from 'gi://GLib';

// the normalisation of the training images (fashion_mnist.py's MEAN, STD)
export const MEAN = 0.2860, STD = 0.3530;
export const SIZE = 28;
export const CLASSES = [...Array(10).keys()].map(i => Dl.fashion_mnist_class_name(i));

const K3 = {kernel_height: 3, kernel_width: 3, padding_height: 1, padding_width: 1};

function sequential(layers) {
    const model = new Dl.Sequential();
    for (const [name, layer] of layers) {
        layer.init(null); // a bad construct property is reported here
        model.register_module(name, layer);
    }
    return model;
}

// fashion_mnist.py's CNN: conv, batch norm, ReLU and max-pool twice,
// dropout, two linear layers
function cnn() {
    return sequential([
        ['conv1', new Dl.Conv2d({in_channels: 1, out_channels: 32, ...K3, bias: false})],
        ['bn1', new Dl.BatchNorm2d({num_features: 32})],
        ['relu1', new Dl.Relu()],
        ['pool1', new Dl.MaxPool2d({kernel_height: 2, kernel_width: 2})],
        ['conv2', new Dl.Conv2d({in_channels: 32, out_channels: 64, ...K3, bias: false})],
        ['bn2', new Dl.BatchNorm2d({num_features: 64})],
        ['relu2', new Dl.Relu()],
        ['pool2', new Dl.MaxPool2d({kernel_height: 2, kernel_width: 2})],
        ['flatten', new Dl.Flatten({start_dim: 1, end_dim: -1})],
        ['drop1', new Dl.Dropout({p: 0.25})],
        ['fc1', new Dl.Linear({in_features: 64 * 7 * 7, out_features: 128})],
        ['relu3', new Dl.Relu()],
        ['drop2', new Dl.Dropout({p: 0.25})],
        ['fc2', new Dl.Linear({in_features: 128, out_features: 10})],
    ]);
}

// fashion_mnist.py's MLP: 784 -> 256 -> 10
function mlp() {
    return sequential([
        ['flatten', new Dl.Flatten({start_dim: 1, end_dim: -1})],
        ['fc1', new Dl.Linear({in_features: SIZE * SIZE, out_features: 256})],
        ['relu', new Dl.Relu()],
        ['fc2', new Dl.Linear({in_features: 256, out_features: 10})],
    ]);
}

export const ARCHITECTURES = {
    cnn: {title: 'Convolutional network', build: cnn},
    mlp: {title: 'Multilayer perceptron', build: mlp},
};

export function buildModel(architecture) {
    const arch = ARCHITECTURES[architecture];
    if (!arch)
        throw new Error(`unknown architecture “${architecture}”`);
    return arch.build();
}

// ---- checkpoints --------------------------------------------------------

// The model's state from a safetensors file: a bare state dict (what the C,
// GJS and Vala examples and this app save) or the Python example's
// checkpoint, which holds the model's state under "model." beside the
// optimizer's and the scheduler's. Returns {architecture, state}.
export function readCheckpoint(file) {
    const dict = Dl.safetensors_load(file, null);
    let names = dict.get_names();
    let state = dict;
    if (names.some(n => n.startsWith('model.'))) {
        state = new Dl.TensorDict();
        for (const name of names.filter(n => n.startsWith('model.')))
            state.insert(name.slice('model.'.length), dict.lookup(name));
        names = state.get_names();
    }
    let architecture = null;
    if (names.includes('conv1.weight'))
        architecture = 'cnn';
    else if (names.includes('fc1.weight'))
        architecture = 'mlp';
    if (!architecture) {
        throw new Error(`${file.get_basename()} holds no Fashion-MNIST model ` +
            '(neither conv1.weight nor fc1.weight)');
    }
    return {architecture, state};
}

// A model of the checkpoint's architecture with its weights; any mismatch
// (a missing or extra tensor, a shape) is an exception naming it.
export function loadCheckpoint(file) {
    const {architecture, state} = readCheckpoint(file);
    const model = buildModel(architecture);
    model.load_state_dict(state, true);
    model.set_training(false);
    return {architecture, model};
}

export function saveCheckpoint(model, file) {
    model.save_state(file, null);
}

// ---- data ---------------------------------------------------------------

// Where the data set is: $DL_FASHION_MNIST_ROOT, or Debian's
// dataset-fashion-mnist package (Dl.FashionMnistDataset's default).
export function dataRoot() {
    return GLib.getenv('DL_FASHION_MNIST_ROOT') ?? null;
}

// Fashion-MNIST's training or test set, normalised as in training: a
// Promise of the data set. Reading the files takes about a second, so it
// happens on a worker thread (GAsyncInitable); a missing file rejects with
// a GLib.Error naming it.
export function loadDataset(train) {
    const dataset = new Dl.FashionMnistDataset({root: dataRoot(), train, mean: MEAN, std: STD});
    return new Promise((resolve, reject) => {
        dataset.init_async(GLib.PRIORITY_DEFAULT, null, (obj, res) => {
            try {
                obj.init_finish(res);
                resolve(obj);
            } catch (e) {
                reject(e);
            }
        });
    });
}

// The first `limit` images of a data set as one batch:
// {input: a tensor [n, 1, 28, 28], pixels: a Float32Array of n * 784
// grey values in 0..255, labels: an Array of n classes, count: n}
export function firstImages(dataset, limit) {
    const count = Math.min(limit, dataset.get_length());
    const subset = Dl.Subset.new(dataset, [...Array(count).keys()]);
    const loader = new Dl.DataLoader({dataset: subset, batch_size: count});
    const [, [input, labels]] = loader.iterate().next();
    const pixels = input.toArray().map(v => (v * STD + MEAN) * 255);
    return {input, pixels, labels: Array.from(labels.toArray(), Number), count};
}

// Normalises 28x28 images of 0..255 (or 0..1 with scale 1) as training does
export function normalise(values, count, scale = 255) {
    const out = new Float32Array(count * SIZE * SIZE);
    for (let i = 0; i < out.length; i++)
        out[i] = (values[i] / scale - MEAN) / STD;
    return Dl.tensor(out, {shape: [count, 1, SIZE, SIZE]});
}

// The training loader over the first `limit` images of the training set
// (all of them when limit is 0)
export function trainLoader(dataset, limit, batchSize) {
    let subset = dataset;
    if (limit > 0 && limit < dataset.get_length())
        subset = Dl.Subset.new(dataset, [...Array(limit).keys()]);
    return new Dl.DataLoader({dataset: subset, batch_size: batchSize, shuffle: true,
        drop_last: true});
}

export function newOptimizer(model, lr) {
    const params = new Gio.ListStore({item_type: Dl.Tensor});
    params.splice(0, 0, model.parameters());
    const adam = new Dl.Adam({params, lr});
    adam.init(null);
    return adam;
}

// Class probabilities of logits [n, 10] as an Array of n Float32Arrays
export function probabilities(logits) {
    const n = logits.get_size(0);
    const flat = logits.softmax(1).toArray();
    return [...Array(n).keys()].map(i => flat.subarray(i * 10, i * 10 + 10));
}

export function argmax(values) {
    let best = 0;
    for (let i = 1; i < values.length; i++) {
        if (values[i] > values[best])
            best = i;
    }
    return best;
}
