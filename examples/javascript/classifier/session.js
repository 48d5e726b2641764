// session.js: what the pages share: the model, its trainer, the test
// images, and the one way to run the model (predict), which never blocks
// the main loop for long: through the trainer's predict_async (a worker
// thread, between two training steps while training runs) when there is a
// trainer, or a direct forward of one small batch on the main thread.
//
// Copyright 2026 The libdl authors
// SPDX-License-Identifier: LGPL-2.1-or-later

import Dl from 'gi://Dl?version=1.0';
import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import GObject from 'gi://GObject';

import * as Model from './model.js';

// Images per main-loop iteration when the model runs on the main thread
const CHUNK = 16;
// How many test images the gallery shows (the first ones of the test set)
const GALLERY_SIZE = Number(GLib.getenv('DL_CLASSIFIER_GALLERY_SIZE') || 1000);

export const Session = GObject.registerClass({
    Properties: {
        'architecture': GObject.ParamSpec.string('architecture', 'Architecture',
            'The model architecture, cnn or mlp', GObject.ParamFlags.READABLE, 'cnn'),
        'training': GObject.ParamSpec.boolean('training', 'Training',
            'Whether a training run is going on', GObject.ParamFlags.READABLE, false),
    },
    Signals: {
        // a new model (built, loaded or trained): predictions are stale
        'model-changed': {},
    },
}, class Session extends GObject.Object {
    _init() {
        super._init();
        this._architecture = 'cnn';
        this._model = Model.buildModel('cnn');
        this._trainer = null;
        this._training = false;
        this._testSet = null;
        this._trainSet = null;
        // jobs on worker threads (reading data, training, predicting)
        this._jobs = 0;
        this._cancellable = null;
    }

    get architecture() {
        return this._architecture;
    }

    get training() {
        return this._training;
    }

    get model() {
        return this._model;
    }

    get trainer() {
        return this._trainer;
    }

    _setModel(architecture, model) {
        this._architecture = architecture;
        this._model = model;
        this._trainer = null;
        this.notify('architecture');
        this.emit('model-changed');
    }

    // A fresh, untrained model of this architecture
    reset(architecture) {
        if (this._training)
            throw new Error('A model cannot be replaced while it trains');
        this._setModel(architecture, Model.buildModel(architecture));
    }

    loadCheckpoint(file) {
        if (this._training)
            throw new Error('A checkpoint cannot be opened while the model trains');
        const {architecture, model} = Model.loadCheckpoint(file);
        this._setModel(architecture, model);
    }

    saveCheckpoint(file) {
        Model.saveCheckpoint(this._model, file);
    }

    // The first gallery images of the test set, as Model.firstImages
    // gives them: a Promise, read once (a rejected one is retried).
    testSet() {
        if (!this._testSet) {
            this._testSet = this._job(Model.loadDataset(false)).then(ds => Model.firstImages(ds, GALLERY_SIZE));
            this._testSet.catch(() => {
                this._testSet = null;
            });
        }
        return this._testSet;
    }

    // The training set: a Promise, read once
    trainSet() {
        if (!this._trainSet) {
            this._trainSet = this._job(Model.loadDataset(true));
            this._trainSet.catch(() => {
                this._trainSet = null;
            });
        }
        return this._trainSet;
    }

    // The model's logits for `input` [n, 1, 28, 28]: a Promise of a tensor
    // [n, 10], computed in eval mode without gradients.
    predict(input) {
        const trainer = this._trainer;
        if (trainer) {
            return this._job(new Promise((resolve, reject) => {
                trainer.predict_async(input, null, (obj, res) => {
                    try {
                        resolve(obj.predict_finish(res));
                    } catch (e) {
                        reject(e);
                    }
                });
            }));
        }
        return this._forwardInChunks(input);
    }

    // Without a trainer: the forward runs here, on the main thread, one
    // chunk of images per idle callback, so a large batch (the gallery)
    // does not hold the main loop for more than one chunk.
    _forwardInChunks(input) {
        const n = input.get_size(0);
        const chunks = [];
        return new Promise((resolve, reject) => {
            let start = 0;
            GLib.idle_add(GLib.PRIORITY_DEFAULT_IDLE, () => {
                try {
                    const len = Math.min(CHUNK, n - start);
                    chunks.push(this._forwardHere(input.narrow(0, start, len)));
                    start += len;
                    if (start < n)
                        return GLib.SOURCE_CONTINUE;
                    resolve(chunks.length === 1 ? chunks[0] : Dl.cat(chunks, 0));
                } catch (e) {
                    reject(e);
                }
                return GLib.SOURCE_REMOVE;
            });
        });
    }

    _forwardHere(input) {
        const model = this._model;
        const wasTraining = model.get_training();
        const wasEnabled = Dl.set_grad_enabled(false);
        model.set_training(false);
        try {
            return model.forward(input);
        } finally {
            model.set_training(wasTraining);
            Dl.set_grad_enabled(wasEnabled);
        }
    }

    // Counts a job of a worker thread until its promise settles
    _job(promise) {
        this._jobs++;
        const done = () => {
            this._jobs--;
        };
        promise.then(done, done);
        return promise;
    }

    // Cancels training and runs the main loop until the worker threads'
    // jobs have ended (at most `seconds`): the application calls it as it
    // shuts down, so no worker still uses the model when the process exits.
    finishJobs(seconds = 10) {
        this._cancellable?.cancel();
        const context = GLib.MainContext.default();
        const deadline = GLib.get_monotonic_time() + seconds * 1e6;
        while (this._jobs > 0 && GLib.get_monotonic_time() < deadline)
            context.iteration(true);
    }

    // Starts training the current model on the training set (a data set
    // from trainSet()); options: epochs, lr, limit (training images, 0 for
    // all), batchSize, maxSteps (0: no limit), progressInterval. Returns the
    // trainer (connect to its progress and epoch-finished signals) and a
    // Promise that settles when it ends.
    train(dataset, options, cancellable) {
        if (this._training)
            throw new Error('The model is already training');
        const loader = Model.trainLoader(dataset, options.limit ?? 0, options.batchSize ?? 64);
        const trainer = new Dl.Trainer({
            model: this._model,
            loss: new Dl.CrossEntropyLoss(),
            optimizer: Model.newOptimizer(this._model, options.lr),
            train_loader: loader,
            epochs: options.epochs,
            max_steps: options.maxSteps ?? 0,
            progress_interval: options.progressInterval ?? 1,
        });
        this._trainer = trainer;
        this._training = true;
        this.notify('training');
        const stepsPerEpoch = loader.get_length();
        this._cancellable = cancellable;
        const done = this._job(new Promise((resolve, reject) => {
            trainer.train_async(cancellable, (obj, res) => {
                this._training = false;
                this.notify('training');
                this.emit('model-changed');
                try {
                    obj.train_finish(res);
                    resolve(true);
                } catch (e) {
                    if (e instanceof GLib.Error && e.matches(Gio.IOErrorEnum, Gio.IOErrorEnum.CANCELLED))
                        resolve(false);
                    else
                        reject(e);
                }
            });
        }));
        return {trainer, done, stepsPerEpoch};
    }
});
