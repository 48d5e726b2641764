// train.js: the Train page: the architecture, epochs, learning rate and
// number of training images, a Train / Cancel button, a progress bar and
// the live loss and accuracy chart fed by the trainer's progress signal.
// Training runs on the trainer's worker thread; the handlers here run on
// the main loop and only update widgets.
//
// Copyright 2026 The libdl authors
// SPDX-License-Identifier: LGPL-2.1-or-later

import Adw from 'gi://Adw?version=1';
import Gio from 'gi://Gio';
import GObject from 'gi://GObject';
import Gtk from 'gi://Gtk?version=4.0';

import * as Model from './model.js';
import {TrainingChart} from './chart.js';

const BATCH_SIZE = 64;

function spinRow(title, subtitle, adjustment, digits) {
    const spin = new Gtk.SpinButton({adjustment, digits, valign: Gtk.Align.CENTER, numeric: true});
    const row = new Adw.ActionRow({title, subtitle, activatable_widget: spin});
    row.add_suffix(spin);
    return [row, spin];
}

export const TrainPage = GObject.registerClass({
    Signals: {
        'error': {param_types: [GObject.TYPE_STRING]},
        'finished': {param_types: [GObject.TYPE_BOOLEAN]},
    },
}, class TrainPage extends Gtk.ScrolledWindow {
    _init(session) {
        super._init({hscrollbar_policy: Gtk.PolicyType.NEVER});
        this._session = session;
        this._cancellable = null;
        // 0: no limit; the test sets a few dozen steps
        this.maxSteps = 0;

        const clamp = new Adw.Clamp({maximum_size: 720, margin_top: 24, margin_bottom: 24,
            margin_start: 12, margin_end: 12});
        const box = new Gtk.Box({orientation: Gtk.Orientation.VERTICAL, spacing: 24});
        clamp.set_child(box);
        this.set_child(clamp);

        const settings = new Adw.PreferencesGroup({title: 'Training',
            description: 'Adam on the Fashion-MNIST training images, cross-entropy loss'});
        const keys = Object.keys(Model.ARCHITECTURES);
        this.architecture = Gtk.DropDown.new_from_strings(keys.map(k => Model.ARCHITECTURES[k].title));
        this.architecture.valign = Gtk.Align.CENTER;
        const archRow = new Adw.ActionRow({title: 'Architecture',
            subtitle: 'Changing it starts from a new, untrained model',
            activatable_widget: this.architecture});
        archRow.add_suffix(this.architecture);
        this._syncing = false;
        this.architecture.connect('notify::selected', () => {
            if (this._syncing)
                return;
            try {
                session.reset(keys[this.architecture.selected]);
            } catch (e) {
                this.emit('error', e.message);
            }
        });
        session.connect('notify::architecture', () => {
            this._syncing = true;
            this.architecture.selected = keys.indexOf(session.architecture);
            this._syncing = false;
        });
        let row;
        [row, this.epochs] = spinRow('Epochs', 'Passes over the training images',
            new Gtk.Adjustment({lower: 1, upper: 100, value: 2, step_increment: 1, page_increment: 5}), 0);
        [this._lrRow, this.lr] = spinRow('Learning Rate', null,
            new Gtk.Adjustment({lower: 0.0001, upper: 0.1, value: 0.002, step_increment: 0.0005,
                page_increment: 0.005}), 4);
        [this._limitRow, this.limit] = spinRow('Training Images', 'The first images of the 60 000',
            new Gtk.Adjustment({lower: 256, upper: 60000, value: 60000, step_increment: 1000,
                page_increment: 10000}), 0);
        for (const r of [archRow, row, this._lrRow, this._limitRow])
            settings.add(r);
        box.append(settings);

        const controls = new Gtk.Box({spacing: 12});
        this.button = new Gtk.Button({label: '_Train', use_underline: true,
            css_classes: ['pill', 'suggested-action'], valign: Gtk.Align.CENTER});
        this.button.connect('clicked', () => (this._cancellable ? this.cancel() : this.start()));
        const progressBox = new Gtk.Box({orientation: Gtk.Orientation.VERTICAL, spacing: 6,
            hexpand: true, valign: Gtk.Align.CENTER});
        this.progress = new Gtk.ProgressBar({show_text: true, text: 'Not trained yet'});
        this.stats = new Gtk.Label({xalign: 0, css_classes: ['dim-label', 'numeric'],
            label: ' '});
        progressBox.append(this.progress);
        progressBox.append(this.stats);
        controls.append(this.button);
        controls.append(progressBox);
        box.append(controls);

        const chartFrame = new Gtk.Frame({css_classes: ['view']});
        this.chart = new TrainingChart({margin_top: 6, margin_bottom: 6, margin_start: 6,
            margin_end: 6});
        chartFrame.set_child(this.chart);
        box.append(chartFrame);

        session.connect('notify::training', () => this._sync());
    }

    _sync() {
        const training = this._session.training;
        this.button.label = training ? '_Cancel' : '_Train';
        this.button.css_classes = ['pill', training ? 'destructive-action' : 'suggested-action'];
        for (const w of [this.architecture, this.epochs, this.lr, this.limit])
            w.sensitive = !training;
    }

    get running() {
        return this._cancellable !== null;
    }

    // Starts a run with the page's settings; resolves when it ends (true
    // when it finished, false when cancelled or failed).
    async start() {
        if (this._cancellable)
            return false;
        const epochs = this.epochs.get_value_as_int();
        const cancellable = new Gio.Cancellable();
        this._cancellable = cancellable;
        this.chart.clear(0);
        this.button.sensitive = false;
        this.progress.text = 'Reading the training images…';
        let run;
        try {
            const dataset = await this._session.trainSet();
            run = this._session.train(dataset, {epochs, lr: this.lr.get_value(),
                limit: this.limit.get_value_as_int(), batchSize: BATCH_SIZE,
                maxSteps: this.maxSteps}, cancellable);
        } catch (e) {
            this._cancellable = null;
            this.progress.text = 'Not started';
            this.emit('error', `Could not start training: ${e.message}`);
            return false;
        } finally {
            this.button.sensitive = true;
        }
        const {trainer, done, stepsPerEpoch} = run;
        let total = epochs * stepsPerEpoch;
        if (this.maxSteps > 0)
            total = Math.min(total, this.maxSteps);
        this.chart.clear(total);
        this.progress.fraction = 0;
        this.progress.text = 'Starting…';
        this.stats.label = ' ';
        trainer.connect('progress', (t, point) => {
            this.chart.add({step: point.step, loss: point.loss, accuracy: point.accuracy});
            this.progress.fraction = Math.min(point.step / total, 1);
            this.progress.text = `Epoch ${point.epoch + 1} of ${epochs} · step ${point.step} of ${total}`;
            this.stats.label = `loss ${point.loss.toFixed(3)} · batch accuracy ` +
                `${(100 * point.accuracy).toFixed(0)} % · ` +
                `${point.samples_per_second.toFixed(0)} images/s · ${point.elapsed.toFixed(0)} s`;
        });
        return done.then(finished => {
            this.progress.text = finished ? 'Finished' : 'Cancelled';
            if (finished)
                this.progress.fraction = 1;
            return finished;
        }).catch(e => {
            this.progress.text = 'Failed';
            this.emit('error', `Training failed: ${e.message}`);
            return false;
        }).then(finished => {
            this._cancellable = null;
            this.emit('finished', finished);
            return finished;
        });
    }

    cancel() {
        this._cancellable?.cancel();
    }
});
