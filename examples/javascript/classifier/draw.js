// draw.js: the Draw page. The user sketches a garment on a canvas
// (Gtk.DrawingArea with a Gtk.GestureDrag); each change is rasterised to
// 28x28 as Fashion-MNIST's images are (a light garment on black, centred,
// its longer side filling the frame), normalised as in training and
// classified; the ten class probabilities show as bars.
//
// Copyright 2026 The libdl authors
// SPDX-License-Identifier: LGPL-2.1-or-later

import Gdk from 'gi://Gdk?version=4.0';
import GLib from 'gi://GLib';
import GObject from 'gi://GObject';
import Gtk from 'gi://Gtk?version=4.0';
import PangoCairo from 'gi://PangoCairo';

import * as Model from './model.js';

const SIZE = Model.SIZE;
// the garment's longer side in the 28x28 image
const FIT = 26;
// samples per pixel side when rasterising
const SUPER = 3;

// Rasterises strokes (arrays of {x, y}, any unit) drawn with a round brush
// of radius `radius` (the same unit) into 28x28 intensities in [0, 1],
// row-major: the strokes' bounding box is scaled so its longer side is
// FIT pixels and centred, each pixel is the fraction of its SUPER x SUPER
// samples the brush covers.
export function rasterise(strokes, radius) {
    const out = new Float32Array(SIZE * SIZE);
    const points = strokes.flat();
    if (!points.length)
        return out;
    const x0 = Math.min(...points.map(p => p.x)) - radius;
    const x1 = Math.max(...points.map(p => p.x)) + radius;
    const y0 = Math.min(...points.map(p => p.y)) - radius;
    const y1 = Math.max(...points.map(p => p.y)) + radius;
    const scale = FIT / Math.max(x1 - x0, y1 - y0);
    const offX = (SIZE - (x1 - x0) * scale) / 2, offY = (SIZE - (y1 - y0) * scale) / 2;
    // in the supersampled grid
    const n = SIZE * SUPER;
    const k = scale * SUPER;
    const r = radius * k;
    const covered = new Uint8Array(n * n);
    const toGrid = p => ({x: (offX + (p.x - x0) * scale) * SUPER, y: (offY + (p.y - y0) * scale) * SUPER});
    for (const stroke of strokes) {
        const grid = stroke.map(toGrid);
        for (let i = 0; i < grid.length; i++) {
            const a = grid[i], b = grid[Math.min(i + 1, grid.length - 1)];
            const gx0 = Math.max(0, Math.floor(Math.min(a.x, b.x) - r));
            const gx1 = Math.min(n - 1, Math.ceil(Math.max(a.x, b.x) + r));
            const gy0 = Math.max(0, Math.floor(Math.min(a.y, b.y) - r));
            const gy1 = Math.min(n - 1, Math.ceil(Math.max(a.y, b.y) + r));
            const dx = b.x - a.x, dy = b.y - a.y;
            const len2 = dx * dx + dy * dy;
            for (let gy = gy0; gy <= gy1; gy++) {
                for (let gx = gx0; gx <= gx1; gx++) {
                    // distance from the sample's centre to the segment
                    const px = gx + 0.5 - a.x, py = gy + 0.5 - a.y;
                    const t = len2 > 0 ? Math.max(0, Math.min(1, (px * dx + py * dy) / len2)) : 0;
                    const ex = px - t * dx, ey = py - t * dy;
                    if (ex * ex + ey * ey <= r * r)
                        covered[gy * n + gx] = 1;
                }
            }
        }
    }
    for (let y = 0; y < n; y++) {
        for (let x = 0; x < n; x++)
            out[Math.floor(y / SUPER) * SIZE + Math.floor(x / SUPER)] += covered[y * n + x];
    }
    return out.map(v => v / (SUPER * SUPER));
}

// A texture of 28x28 values (0..1 or 0..255) shown `zoom` times larger
// with square pixels; Gdk 4.8 has no 8-bit grey format, so RGB.
export function imageTexture(values, offset = 0, scale = 1, zoom = 1) {
    const side = SIZE * zoom;
    const rgb = new Uint8Array(side * side * 3);
    for (let y = 0; y < side; y++) {
        for (let x = 0; x < side; x++) {
            const v = Math.round(values[offset + Math.floor(y / zoom) * SIZE + Math.floor(x / zoom)] * scale);
            rgb.fill(v, (y * side + x) * 3, (y * side + x) * 3 + 3);
        }
    }
    return Gdk.MemoryTexture.new(side, side, Gdk.MemoryFormat.R8G8B8, new GLib.Bytes(rgb), side * 3);
}

export const DrawPage = GObject.registerClass({
    Signals: {
        // the probabilities of the last drawing were shown
        'classified': {param_types: [GObject.TYPE_INT, GObject.TYPE_DOUBLE]},
        'error': {param_types: [GObject.TYPE_STRING]},
    },
}, class DrawPage extends Gtk.Box {
    _init(session) {
        super._init({orientation: Gtk.Orientation.HORIZONTAL, spacing: 24,
            margin_top: 24, margin_bottom: 24, margin_start: 24, margin_end: 24,
            halign: Gtk.Align.CENTER});
        this._session = session;
        this._strokes = [];
        this._current = null;
        this._busy = false;
        this._dirty = false;
        this.probabilities = null;

        // the canvas, and under it its tools
        const left = new Gtk.Box({orientation: Gtk.Orientation.VERTICAL, spacing: 12});
        this.canvas = new Gtk.DrawingArea({content_width: 320, content_height: 320,
            focusable: true, css_classes: ['canvas', 'card']});
        this.canvas.update_property([Gtk.AccessibleProperty.LABEL],
            ['Drawing canvas: drag to sketch a garment']);
        this.canvas.set_draw_func((area, cr, width, height) => {
            this._drawCanvas(cr, width, height);
            cr.$dispose();
        });
        const drag = new Gtk.GestureDrag();
        drag.connect('drag-begin', (g, x, y) => this.beginStroke(x, y));
        drag.connect('drag-update', (g, dx, dy) => {
            const [, sx, sy] = g.get_start_point();
            this.extendStroke(sx + dx, sy + dy);
        });
        drag.connect('drag-end', (g, dx, dy) => {
            const [, sx, sy] = g.get_start_point();
            this.endStroke(sx + dx, sy + dy);
        });
        this.canvas.add_controller(drag);
        left.append(this.canvas);

        const tools = new Gtk.Box({spacing: 6});
        this.brush = new Gtk.Scale({orientation: Gtk.Orientation.HORIZONTAL, hexpand: true,
            adjustment: new Gtk.Adjustment({lower: 4, upper: 40, value: 16, step_increment: 1,
                page_increment: 4}), tooltip_text: 'Brush size'});
        this.brush.update_property([Gtk.AccessibleProperty.LABEL], ['Brush size']);
        this.brush.connect('value-changed', () => {
            this.canvas.queue_draw();
        });
        tools.append(new Gtk.Image({icon_name: 'document-edit-symbolic', tooltip_text: 'Brush size'}));
        tools.append(this.brush);
        const undo = new Gtk.Button({icon_name: 'edit-undo-symbolic', tooltip_text: 'Undo Stroke',
            action_name: 'win.undo-stroke'});
        const clear = new Gtk.Button({icon_name: 'edit-clear-all-symbolic', tooltip_text: 'Clear',
            action_name: 'win.clear-canvas'});
        tools.append(undo);
        tools.append(clear);
        left.append(tools);
        this.append(left);

        // what the model sees, and what it thinks
        const right = new Gtk.Box({orientation: Gtk.Orientation.VERTICAL, spacing: 12,
            valign: Gtk.Align.START, width_request: 300});
        const seenRow = new Gtk.Box({spacing: 12});
        this.preview = new Gtk.Picture({width_request: 56, height_request: 56,
            can_shrink: false, css_classes: ['card']});
        this.preview.set_paintable(imageTexture(new Float32Array(SIZE * SIZE), 0, 255, 2));
        seenRow.append(this.preview);
        const seenText = new Gtk.Box({orientation: Gtk.Orientation.VERTICAL, valign: Gtk.Align.CENTER});
        this.verdict = new Gtk.Label({label: 'Draw a garment', xalign: 0, css_classes: ['title-2']});
        this.detail = new Gtk.Label({label: 'The model sees the 28×28 image on the left',
            xalign: 0, css_classes: ['dim-label'], wrap: true});
        seenText.append(this.verdict);
        seenText.append(this.detail);
        seenRow.append(seenText);
        right.append(seenRow);

        const grid = new Gtk.Grid({column_spacing: 12, row_spacing: 6});
        this._bars = Model.CLASSES.map((name, i) => {
            const label = new Gtk.Label({label: name, xalign: 1});
            const bar = new Gtk.LevelBar({min_value: 0, max_value: 1, value: 0, hexpand: true,
                valign: Gtk.Align.CENTER, mode: Gtk.LevelBarMode.CONTINUOUS});
            // one colour whatever the value (no low/high offsets)
            for (const name of ['low', 'high', 'full'])
                bar.remove_offset_value(name);
            bar.update_property([Gtk.AccessibleProperty.LABEL], [`Probability of ${name}`]);
            const value = new Gtk.Label({label: '–', xalign: 1, width_chars: 6,
                css_classes: ['numeric', 'dim-label']});
            grid.attach(label, 0, i, 1, 1);
            grid.attach(bar, 1, i, 1, 1);
            grid.attach(value, 2, i, 1, 1);
            return {label, bar, value};
        });
        right.append(grid);
        this.append(right);

        session.connect('model-changed', () => this.classify());
    }

    get radius() {
        // in canvas pixels, for a canvas of 320
        return this.brush.get_value() / 2;
    }

    // whether the drawing changed since the classification going on began
    get stale() {
        return this._dirty;
    }

    get strokes() {
        return this._strokes;
    }

    // The drag gesture's handlers; the test calls them as the gesture does.
    beginStroke(x, y) {
        this._current = [this._normalised(x, y)];
        this._strokes.push(this._current);
        this.canvas.queue_draw();
        this.classify();
    }

    extendStroke(x, y) {
        if (!this._current)
            return;
        this._current.push(this._normalised(x, y));
        this.canvas.queue_draw();
        this.classify();
    }

    endStroke(x, y) {
        this.extendStroke(x, y);
        this._current = null;
    }

    undo() {
        this._strokes.pop();
        this._current = null;
        this.canvas.queue_draw();
        this.classify();
    }

    clear() {
        this._strokes = [];
        this._current = null;
        this.canvas.queue_draw();
        this.classify();
    }

    // points are kept in units of the canvas's shorter side, so the
    // drawing survives a resize
    _normalised(x, y) {
        const side = Math.min(this.canvas.get_width(), this.canvas.get_height()) || 320;
        return {x: x / side, y: y / side};
    }

    _drawCanvas(cr, width, height) {
        const side = Math.min(width, height);
        cr.setSourceRGB(0, 0, 0);
        cr.paint();
        cr.setSourceRGB(1, 1, 1);
        cr.setLineWidth(this.radius * 2 * side / 320);
        cr.setLineCap(1); // round
        cr.setLineJoin(1); // round
        for (const stroke of this._strokes) {
            cr.moveTo(stroke[0].x * side, stroke[0].y * side);
            // a single point still shows as a dot
            cr.lineTo(stroke[0].x * side + 0.01, stroke[0].y * side);
            for (const p of stroke.slice(1))
                cr.lineTo(p.x * side, p.y * side);
            cr.stroke();
        }
        if (!this._strokes.length) {
            const layout = this.canvas.create_pango_layout('Sketch a garment here');
            const [, logical] = layout.get_pixel_extents();
            cr.setSourceRGBA(1, 1, 1, 0.5);
            cr.moveTo((width - logical.width) / 2, (height - logical.height) / 2);
            PangoCairo.show_layout(cr, layout);
        }
    }

    // The drawing as the model's input: 28x28, normalised as in training
    image() {
        return rasterise(this._strokes, this.radius / 320);
    }

    // Classifies the drawing; while one classification is running, the
    // next waits for it (so a fast drag does not queue dozens).
    classify() {
        if (this._busy) {
            this._dirty = true;
            return;
        }
        const pixels = this.image();
        this.preview.set_paintable(imageTexture(pixels, 0, 255, 2));
        if (!this._strokes.length) {
            this._show(null);
            return;
        }
        this._busy = true;
        this._session.predict(Model.normalise(pixels, 1, 1)).then(logits => {
            this._show(Model.probabilities(logits)[0]);
        }).catch(e => {
            this.emit('error', `Could not classify the drawing: ${e.message}`);
        }).finally(() => {
            this._busy = false;
            if (this._dirty) {
                this._dirty = false;
                this.classify();
            }
        });
    }

    _show(probs) {
        this.probabilities = probs;
        if (!probs) {
            this.verdict.label = 'Draw a garment';
            this.detail.label = 'The model sees the 28×28 image on the left';
        }
        const best = probs ? Model.argmax(probs) : -1;
        this._bars.forEach(({label, bar, value}, i) => {
            bar.value = probs ? probs[i] : 0;
            value.label = probs ? `${(100 * probs[i]).toFixed(1)} %` : '–';
            for (const w of [label, value]) {
                if (i === best)
                    w.add_css_class('heading');
                else
                    w.remove_css_class('heading');
            }
        });
        if (probs) {
            this.verdict.label = Model.CLASSES[best];
            this.detail.label = `${(100 * probs[best]).toFixed(0)} % sure`;
            this.emit('classified', best, probs[best]);
        }
    }
});
