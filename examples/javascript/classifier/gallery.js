// gallery.js: the Gallery page: a Gtk.GridView over a GListModel of the
// first Fashion-MNIST test images, each with the model's prediction and
// its confidence; misclassified images are marked, and a toggle shows only
// those.
//
// Copyright 2026 The libdl authors
// SPDX-License-Identifier: LGPL-2.1-or-later

import Adw from 'gi://Adw?version=1';
import Gio from 'gi://Gio';
import GObject from 'gi://GObject';
import Gtk from 'gi://Gtk?version=4.0';

import * as Model from './model.js';
import {imageTexture} from './draw.js';

export const GalleryItem = GObject.registerClass({
    Properties: {
        'index': GObject.ParamSpec.int('index', 'Index', 'Index in the test set',
            GObject.ParamFlags.READWRITE | GObject.ParamFlags.CONSTRUCT_ONLY, 0, 1 << 30, 0),
        'label': GObject.ParamSpec.int('label', 'Label', 'The true class',
            GObject.ParamFlags.READWRITE | GObject.ParamFlags.CONSTRUCT_ONLY, 0, 9, 0),
        'predicted': GObject.ParamSpec.int('predicted', 'Predicted', 'The predicted class, -1 if none yet',
            GObject.ParamFlags.READWRITE, -1, 9, -1),
        'confidence': GObject.ParamSpec.double('confidence', 'Confidence',
            'The probability of the predicted class', GObject.ParamFlags.READWRITE, 0, 1, 0),
    },
}, class GalleryItem extends GObject.Object {
    get misclassified() {
        return this.predicted >= 0 && this.predicted !== this.label;
    }

    setPrediction(predicted, confidence) {
        this.freeze_notify();
        this.confidence = confidence;
        this.predicted = predicted;
        this.thaw_notify();
    }
});

// One cell: the image, the prediction and the true class when it differs
const GalleryCell = GObject.registerClass(
class GalleryCell extends Gtk.Box {
    _init() {
        super._init({orientation: Gtk.Orientation.VERTICAL, spacing: 4,
            css_classes: ['gallery-cell', 'card']});
        this.picture = new Gtk.Picture({width_request: 84, height_request: 84, can_shrink: false,
            halign: Gtk.Align.CENTER});
        this.prediction = new Gtk.Label({css_classes: ['caption-heading'], ellipsize: 3});
        this.truth = new Gtk.Label({css_classes: ['caption', 'dim-label'], ellipsize: 3});
        this.append(this.picture);
        this.append(this.prediction);
        this.append(this.truth);
        this._item = null;
        this._handler = 0;
    }

    bind(item, pixels) {
        this._item = item;
        this.picture.set_paintable(imageTexture(pixels, item.index * 784, 1, 3));
        this._handler = item.connect('notify::predicted', () => this._update());
        this._update();
    }

    unbind() {
        if (this._item && this._handler)
            this._item.disconnect(this._handler);
        this._item = null;
        this._handler = 0;
    }

    _update() {
        const item = this._item;
        const truth = Model.CLASSES[item.label];
        if (item.predicted < 0) {
            this.prediction.label = '…';
            this.truth.label = truth;
        } else {
            this.prediction.label = `${Model.CLASSES[item.predicted]} ${(100 * item.confidence).toFixed(0)} %`;
            this.truth.label = item.misclassified ? `is ${truth}` : '✓';
        }
        if (item.misclassified)
            this.add_css_class('misclassified');
        else
            this.remove_css_class('misclassified');
        this.update_property([Gtk.AccessibleProperty.LABEL],
            [`${truth}: ${this.prediction.label}${item.misclassified ? ', misclassified' : ''}`]);
    }
});

export const GalleryPage = GObject.registerClass({
    Signals: {
        'error': {param_types: [GObject.TYPE_STRING]},
        'predicted': {},
    },
}, class GalleryPage extends Gtk.Stack {
    _init(session) {
        super._init();
        this._session = session;
        this._generation = 0;
        this.store = new Gio.ListStore({item_type: GalleryItem});
        this._filter = new Gtk.CustomFilter();
        this._onlyMistakes = false;
        this._filter.set_filter_func(item => !this._onlyMistakes || item.misclassified);
        const filtered = new Gtk.FilterListModel({model: this.store, filter: this._filter});
        this.selection = new Gtk.SingleSelection({model: filtered, autoselect: false});

        const factory = new Gtk.SignalListItemFactory();
        factory.connect('setup', (f, listItem) => listItem.set_child(new GalleryCell()));
        factory.connect('bind', (f, listItem) => {
            listItem.get_child().bind(listItem.get_item(), this._pixels);
        });
        factory.connect('unbind', (f, listItem) => listItem.get_child().unbind());
        this.grid = new Gtk.GridView({model: this.selection, factory, max_columns: 12,
            min_columns: 2, css_classes: ['gallery']});
        this.grid.update_property([Gtk.AccessibleProperty.LABEL], ['Test images and predictions']);

        const page = new Gtk.Box({orientation: Gtk.Orientation.VERTICAL});
        const bar = new Gtk.Box({spacing: 12, margin_top: 12, margin_bottom: 6,
            margin_start: 18, margin_end: 18});
        this.summary = new Gtk.Label({xalign: 0, hexpand: true, css_classes: ['heading']});
        this.mistakes = new Gtk.ToggleButton({label: 'Only _Mistakes', use_underline: true});
        this.mistakes.connect('toggled', () => {
            this._onlyMistakes = this.mistakes.active;
            this._filter.changed(Gtk.FilterChange.DIFFERENT);
        });
        bar.append(this.summary);
        bar.append(this.mistakes);
        page.append(bar);
        page.append(new Gtk.ScrolledWindow({child: this.grid, vexpand: true,
            hscrollbar_policy: Gtk.PolicyType.NEVER}));
        this.add_named(page, 'gallery');

        this.status = new Adw.StatusPage({icon_name: 'dialog-warning-symbolic',
            title: 'No Test Images'});
        this.add_named(this.status, 'missing');

        session.connect('model-changed', () => this.refresh());
    }

    // Loads the test images (once) and predicts them all with the current
    // model; a missing data set turns the page into a status page.
    async refresh() {
        const generation = ++this._generation;
        let set;
        try {
            set = await this._session.testSet();
        } catch (e) {
            this.status.description = `${e.message}\n\nInstall Debian's dataset-fashion-mnist ` +
                'package or set DL_FASHION_MNIST_ROOT to the folder of its IDX files.';
            this.visible_child_name = 'missing';
            this.emit('error', `Fashion-MNIST is missing: ${e.message}`);
            return false;
        }
        if (generation !== this._generation)
            return false; // a newer refresh is on its way
        this._pixels = set.pixels;
        this.visible_child_name = 'gallery';
        if (this.store.get_n_items() !== set.count) {
            this.store.splice(0, this.store.get_n_items(),
                set.labels.map((label, index) => new GalleryItem({index, label})));
        }
        for (let i = 0; i < set.count; i++)
            this.store.get_item(i).setPrediction(-1, 0);
        this.summary.label = `Classifying ${set.count} test images…`;
        return this._session.predict(set.input).then(logits => {
            if (generation !== this._generation)
                return false; // a newer model's predictions are on their way
            const probs = Model.probabilities(logits);
            let correct = 0;
            probs.forEach((p, i) => {
                const best = Model.argmax(p);
                this.store.get_item(i).setPrediction(best, p[best]);
                correct += best === set.labels[i];
            });
            this.accuracy = correct / set.count;
            this.summary.label = `${(100 * this.accuracy).toFixed(1)} % of ${set.count} test images ` +
                `right, ${set.count - correct} mistakes`;
            this._filter.changed(Gtk.FilterChange.DIFFERENT);
            this.emit('predicted');
            return true;
        }).catch(e => {
            this.summary.label = 'No predictions';
            this.emit('error', `Could not classify the test images: ${e.message}`);
            return false;
        });
    }
});
