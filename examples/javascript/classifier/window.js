// window.js: the main window: a header bar with the view switcher, the
// Gallery, Draw and Train pages in an Adw.ViewStack inside an
// Adw.ToastOverlay (every error is a toast), and the checkpoint actions.
//
// Copyright 2026 The libdl authors
// SPDX-License-Identifier: LGPL-2.1-or-later

import Adw from 'gi://Adw?version=1';
import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import GObject from 'gi://GObject';
import Gtk from 'gi://Gtk?version=4.0';

import {DrawPage} from './draw.js';
import {GalleryPage} from './gallery.js';
import {Session} from './session.js';
import {TrainPage} from './train.js';

export const PAGES = ['gallery', 'draw', 'train'];

export const ClassifierWindow = GObject.registerClass(
class ClassifierWindow extends Adw.ApplicationWindow {
    _init(application) {
        super._init({application, title: 'Garment Classifier', default_width: 1000,
            default_height: 720});
        this.session = new Session();

        this.gallery = new GalleryPage(this.session);
        this.draw = new DrawPage(this.session);
        this.train = new TrainPage(this.session);
        this.stack = new Adw.ViewStack({vexpand: true});
        this.stack.add_titled(this.gallery, 'gallery', 'Gallery').icon_name = 'view-grid-symbolic';
        this.stack.add_titled(this.draw, 'draw', 'Draw').icon_name = 'document-edit-symbolic';
        this.stack.add_titled(this.train, 'train', 'Train').icon_name = 'media-playback-start-symbolic';
        for (const page of [this.gallery, this.draw, this.train])
            page.connect('error', (p, message) => this.toast(message));
        this.train.connect('finished', (p, finished) => {
            if (finished)
                this.toast('Training finished');
        });

        const title = new Adw.ViewSwitcherTitle({stack: this.stack, title: 'Garment Classifier'});
        const header = new Adw.HeaderBar({title_widget: title});
        const open = new Gtk.Button({icon_name: 'document-open-symbolic',
            tooltip_text: 'Open Checkpoint', action_name: 'win.open'});
        header.pack_start(open);
        const menu = new Gio.Menu();
        const section = new Gio.Menu();
        section.append('_Open Checkpoint…', 'win.open');
        section.append('_Save Checkpoint…', 'win.save');
        section.append('_New Model', 'win.new-model');
        menu.append_section(null, section);
        const appSection = new Gio.Menu();
        appSection.append('_Dark Style', 'app.dark-style');
        appSection.append('_Keyboard Shortcuts', 'win.show-help-overlay');
        appSection.append('_About Garment Classifier', 'app.about');
        menu.append_section(null, appSection);
        header.pack_end(new Gtk.MenuButton({icon_name: 'open-menu-symbolic', menu_model: menu,
            tooltip_text: 'Main Menu', primary: true}));

        const switcherBar = new Adw.ViewSwitcherBar({stack: this.stack});
        title.bind_property('title-visible', switcherBar, 'reveal', GObject.BindingFlags.SYNC_CREATE);
        this.toasts = new Adw.ToastOverlay({child: this.stack});
        const content = new Gtk.Box({orientation: Gtk.Orientation.VERTICAL});
        content.append(header);
        content.append(this.toasts);
        content.append(switcherBar);
        this.set_content(content);

        this._addActions();
        this._addShortcutsWindow();
        this.session.connect('notify::training', () => this._syncActions());
        // the first predictions (or the missing data set) once the window shows
        GLib.idle_add(GLib.PRIORITY_DEFAULT_IDLE, () => {
            this.gallery.refresh();
            this.draw.classify();
            return GLib.SOURCE_REMOVE;
        });
    }

    _addActions() {
        const actions = {
            'open': () => this._chooseFile(Gtk.FileChooserAction.OPEN),
            'save': () => this._chooseFile(Gtk.FileChooserAction.SAVE),
            'new-model': () => this._guard(() => this.session.reset(this.session.architecture)),
            'undo-stroke': () => this.draw.undo(),
            'clear-canvas': () => this.draw.clear(),
            'train': () => (this.train.running ? this.train.cancel() : this.train.start()),
        };
        for (const [name, activate] of Object.entries(actions)) {
            const action = new Gio.SimpleAction({name});
            action.connect('activate', activate);
            this.add_action(action);
        }
        const page = new Gio.SimpleAction({name: 'page', parameter_type: new GLib.VariantType('s')});
        page.connect('activate', (a, name) => {
            this.stack.visible_child_name = name.unpack();
        });
        this.add_action(page);
    }

    _syncActions() {
        const idle = !this.session.training;
        for (const name of ['open', 'new-model'])
            this.lookup_action(name).enabled = idle;
    }

    // Gtk.ShortcutsWindow takes its sections only from a builder in GTK 4.8
    _addShortcutsWindow() {
        const groups = {
            'General': [['<Control>o', 'Open a checkpoint'], ['<Control>s', 'Save the model'],
                ['<Control>n', 'Start from a new model'], ['<Control>question', 'Keyboard shortcuts'],
                ['<Control>q', 'Quit']],
            'Pages': [['<Alt>1', 'Gallery'], ['<Alt>2', 'Draw'], ['<Alt>3', 'Train']],
            'Drawing and Training': [['<Control>z', 'Undo the last stroke'],
                ['<Control>l', 'Clear the canvas'], ['<Control>Return', 'Start or cancel training']],
        };
        const esc = text => GLib.markup_escape_text(text, -1);
        const property = (name, value) => `<property name="${name}">${esc(value)}</property>`;
        const xml = `<interface><object class="GtkShortcutsWindow" id="help">
            ${property('modal', 'true')}<child><object class="GtkShortcutsSection">
            ${property('section-name', 'shortcuts')}
            ${Object.entries(groups).map(([title, shortcuts]) => `<child>
                <object class="GtkShortcutsGroup">${property('title', title)}
                ${shortcuts.map(([accelerator, label]) => `<child>
                    <object class="GtkShortcutsShortcut">${property('accelerator', accelerator)}
                    ${property('title', label)}</object></child>`).join('')}
                </object></child>`).join('')}
            </object></child></object></interface>`;
        const help = Gtk.Builder.new_from_string(xml, -1).get_object('help');
        help.transient_for = this;
        this.set_help_overlay(help);
    }

    toast(message) {
        const toast = new Adw.Toast({title: GLib.markup_escape_text(message, -1), timeout: 5});
        this.toasts.add_toast(toast);
        this.lastToast = message;
    }

    _guard(fn) {
        try {
            fn();
            return true;
        } catch (e) {
            this.toast(e.message);
            return false;
        }
    }

    openCheckpoint(file) {
        if (this._guard(() => this.session.loadCheckpoint(file)))
            this.toast(`Opened ${file.get_basename()}`);
    }

    saveCheckpoint(file) {
        if (this._guard(() => this.session.saveCheckpoint(file)))
            this.toast(`Saved ${file.get_basename()}`);
    }

    _chooseFile(action) {
        const saving = action === Gtk.FileChooserAction.SAVE;
        const chooser = new Gtk.FileChooserNative({transient_for: this, modal: true, action,
            title: saving ? 'Save Checkpoint' : 'Open Checkpoint',
            accept_label: saving ? '_Save' : '_Open'});
        const filter = new Gtk.FileFilter({name: 'Safetensors checkpoints'});
        filter.add_pattern('*.safetensors');
        chooser.add_filter(filter);
        const all = new Gtk.FileFilter({name: 'All files'});
        all.add_pattern('*');
        chooser.add_filter(all);
        if (saving)
            chooser.set_current_name('fashion_mnist.safetensors');
        chooser.connect('response', (c, response) => {
            if (response === Gtk.ResponseType.ACCEPT) {
                const file = c.get_file();
                if (saving)
                    this.saveCheckpoint(file);
                else
                    this.openCheckpoint(file);
            }
            c.destroy();
        });
        chooser.show();
        this._chooser = chooser; // a native dialog is not kept alive by GTK
    }
});
