// chart.js: the live training chart, drawn with cairo in a
// Gtk.DrawingArea: each step's loss (faint) and its moving average on the
// left axis, the moving average of the batch accuracy on the right axis
// (0 to 100 %), steps along the bottom.
//
// Copyright 2026 The libdl authors
// SPDX-License-Identifier: LGPL-2.1-or-later

import GObject from 'gi://GObject';
import Gtk from 'gi://Gtk?version=4.0';
import PangoCairo from 'gi://PangoCairo';

// weight of the newest point in the moving averages
const SMOOTHING = 0.1;
const MARGIN = {left: 48, right: 52, top: 28, bottom: 30};

function color(widget, name, fallback) {
    const [found, rgba] = widget.get_style_context().lookup_color(name);
    return found ? rgba : fallback;
}

export const TrainingChart = GObject.registerClass(
class TrainingChart extends Gtk.DrawingArea {
    _init(params = {}) {
        super._init({content_height: 220, hexpand: true, vexpand: true, ...params});
        this.update_property([Gtk.AccessibleProperty.LABEL], ['Training loss and accuracy']);
        this._points = [];
        this._maxSteps = 0;
        this.set_draw_func((area, cr, width, height) => {
            this._draw(cr, width, height);
            cr.$dispose();
        });
    }

    clear(maxSteps) {
        this._points = [];
        this._maxSteps = maxSteps;
        this.queue_draw();
    }

    // point: {step, loss, accuracy}
    add(point) {
        const last = this._points[this._points.length - 1];
        const smooth = (key, value) => {
            if (!last || !Number.isFinite(last[key]))
                return value;
            return Number.isFinite(value) ? last[key] + SMOOTHING * (value - last[key]) : last[key];
        };
        this._points.push({...point, meanLoss: smooth('meanLoss', point.loss),
            meanAccuracy: smooth('meanAccuracy', point.accuracy)});
        this.queue_draw();
    }

    get points() {
        return this._points;
    }

    _text(cr, text, x, y, align, rgba) {
        const layout = this.create_pango_layout(text);
        const [, logical] = layout.get_pixel_extents();
        cr.setSourceRGBA(rgba.red, rgba.green, rgba.blue, rgba.alpha);
        const dx = align === 'right' ? -logical.width : align === 'center' ? -logical.width / 2 : 0;
        cr.moveTo(x + dx, y - logical.height / 2);
        PangoCairo.show_layout(cr, layout);
    }

    _draw(cr, width, height) {
        const fg = this.get_style_context().get_color();
        const lossColor = color(this, 'accent_color', fg);
        const accColor = color(this, 'success_color', fg);
        const dim = fg.copy();
        dim.alpha = 0.15;
        const left = MARGIN.left, right = width - MARGIN.right;
        const top = MARGIN.top, bottom = height - MARGIN.bottom;
        if (right <= left || bottom <= top)
            return;

        const points = this._points;
        const lastStep = points.length ? points[points.length - 1].step : 0;
        const xMax = Math.max(this._maxSteps, lastStep, 1);
        const lossMax = Math.max(0.5, ...points.map(p => p.loss).filter(Number.isFinite)) * 1.05;
        const x = step => left + (right - left) * step / xMax;
        const yLoss = loss => bottom - (bottom - top) * Math.min(loss / lossMax, 1);
        const yAcc = acc => bottom - (bottom - top) * acc;

        // grid and axes
        cr.setLineWidth(1);
        cr.setSourceRGBA(dim.red, dim.green, dim.blue, dim.alpha);
        for (let i = 0; i <= 4; i++) {
            const y = Math.round(top + (bottom - top) * i / 4) + 0.5;
            cr.moveTo(left, y);
            cr.lineTo(right, y);
        }
        cr.stroke();
        const label = fg.copy();
        label.alpha = 0.7;
        for (let i = 0; i <= 4; i++) {
            const y = top + (bottom - top) * i / 4;
            this._text(cr, (lossMax * (4 - i) / 4).toFixed(2), left - 6, y, 'right', lossColor);
            this._text(cr, `${100 - 25 * i} %`, right + 6, y, 'left', accColor);
        }
        this._text(cr, '0', left, bottom + 14, 'center', label);
        this._text(cr, `${xMax} steps`, right, bottom + 14, 'right', label);
        this._text(cr, 'Loss', left, top - 16, 'left', lossColor);
        this._text(cr, 'Accuracy', right, top - 16, 'right', accColor);
        if (!points.length) {
            this._text(cr, 'Start training to see the loss and accuracy', (left + right) / 2,
                (top + bottom) / 2, 'center', label);
            return;
        }

        const line = (key, yOf, rgba, alpha, lineWidth) => {
            cr.setSourceRGBA(rgba.red, rgba.green, rgba.blue, alpha);
            cr.setLineWidth(lineWidth);
            let started = false;
            for (const p of points) {
                if (!Number.isFinite(p[key]))
                    continue;
                if (started)
                    cr.lineTo(x(p.step), yOf(p[key]));
                else
                    cr.moveTo(x(p.step), yOf(p[key]));
                started = true;
            }
            cr.stroke();
        };
        line('loss', yLoss, lossColor, 0.3, 1);
        line('meanAccuracy', yAcc, accColor, 1, 2);
        line('meanLoss', yLoss, lossColor, 1, 2);
    }
});
