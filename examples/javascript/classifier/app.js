// app.js: the Adw.Application of the garment classifier: its actions,
// keyboard shortcuts, style sheet and dark style.
//
// Copyright 2026 The libdl authors
// SPDX-License-Identifier: LGPL-2.1-or-later

import Adw from 'gi://Adw?version=1';
import Gdk from 'gi://Gdk?version=4.0';
import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import GObject from 'gi://GObject';
import Gtk from 'gi://Gtk?version=4.0';

import {ClassifierWindow} from './window.js';

export const APP_ID = 'org.libdl.Classifier';
export const VERSION = '0.1';

const CSS = `
.gallery-cell { padding: 8px; min-width: 116px; }
.gallery-cell.misclassified { box-shadow: inset 0 0 0 2px @error_color; }
.gallery-cell.misclassified label.caption-heading { color: @error_color; }
.canvas { border-radius: 12px; }
`;

const ACCELS = {
    'win.open': ['<Control>o'],
    'win.save': ['<Control>s'],
    'win.new-model': ['<Control>n'],
    'win.undo-stroke': ['<Control>z'],
    'win.clear-canvas': ['<Control>l'],
    'win.train': ['<Control>Return'],
    'win.page::gallery': ['<Alt>1'],
    'win.page::draw': ['<Alt>2'],
    'win.page::train': ['<Alt>3'],
    'win.show-help-overlay': ['<Control>question'],
    'app.quit': ['<Control>q'],
};

export const ClassifierApplication = GObject.registerClass(
class ClassifierApplication extends Adw.Application {
    _init(params = {}) {
        super._init({application_id: APP_ID, flags: Gio.ApplicationFlags.NON_UNIQUE, ...params});
        GLib.set_application_name('Garment Classifier');
    }

    vfunc_startup() {
        super.vfunc_startup();
        const provider = new Gtk.CssProvider();
        provider.load_from_data(new TextEncoder().encode(CSS));
        Gtk.StyleContext.add_provider_for_display(Gdk.Display.get_default(), provider,
            Gtk.STYLE_PROVIDER_PRIORITY_APPLICATION);

        const styles = Adw.StyleManager.get_default();
        const dark = Gio.SimpleAction.new_stateful('dark-style', null,
            GLib.Variant.new_boolean(styles.dark));
        dark.connect('change-state', (action, state) => {
            action.set_state(state);
            styles.color_scheme = state.unpack() ? Adw.ColorScheme.FORCE_DARK : Adw.ColorScheme.FORCE_LIGHT;
        });
        this.add_action(dark);
        const actions = {
            'quit': () => this.quit(),
            'about': () => this._about(),
        };
        for (const [name, activate] of Object.entries(actions)) {
            const action = new Gio.SimpleAction({name});
            action.connect('activate', activate);
            this.add_action(action);
        }
        for (const [action, accels] of Object.entries(ACCELS))
            this.set_accels_for_action(action, accels);
    }

    vfunc_shutdown() {
        for (const window of this.get_windows())
            window.session?.finishJobs();
        super.vfunc_shutdown();
    }

    vfunc_activate() {
        let window = this.active_window;
        if (!window)
            window = new ClassifierWindow(this);
        window.present();
    }

    _about() {
        const about = new Adw.AboutWindow({transient_for: this.active_window, modal: true,
            application_name: 'Garment Classifier', application_icon: APP_ID, version: VERSION,
            developer_name: 'The libdl authors', license_type: Gtk.License.LGPL_2_1,
            comments: 'Trains a small network on Fashion-MNIST and classifies your drawings, ' +
                'with libdl running the model'});
        about.present();
    }
});
