#!/usr/bin/python3
# check-gir.py: fails on the GObject Introspection mistakes that fail
# silently (see shared/GI-NOTES.md, "Annotations fail silently").
#
#   1. a callable or function macro marked introspectable="0": gone from
#      every binding (C-only macros are kept from the scanner instead);
#   2. a parameter or return value whose C type is a pointer but whose GIR
#      type is a scalar (`const gint64 *shape` read as one gint64), unless
#      it is an (out) or (inout) parameter;
#   3. an (array) without a length, next to an n_* parameter of the C
#      signature, or an n_* parameter no array names as its length;
#   4. a GPtrArray, GList, GSList or GHashTable without an element type.
#
# Usage: check-gir.py Dl-1.0.gir
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import sys
import xml.etree.ElementTree as ET

NS = {
    'core': 'http://www.gtk.org/introspection/core/1.0',
    'c': 'http://www.gtk.org/introspection/c/1.0',
    'glib': 'http://www.gtk.org/introspection/glib/1.0',
}
CORE = '{%s}' % NS['core']
C_TYPE = '{%s}type' % NS['c']
C_IDENT = '{%s}identifier' % NS['c']

CALLABLE_TAGS = ('function', 'function-macro', 'method', 'constructor', 'virtual-method',
                 'callback', '{%s}signal' % NS['glib'])

SCALARS = {
    'gboolean', 'gchar', 'guchar', 'gint8', 'guint8', 'gint16', 'guint16',
    'gint32', 'guint32', 'gint64', 'guint64', 'gshort', 'gushort', 'gint',
    'guint', 'glong', 'gulong', 'gsize', 'gssize', 'gintptr', 'guintptr',
    'gfloat', 'gdouble', 'gunichar', 'GType',
}

CONTAINERS = {'GLib.PtrArray', 'GLib.List', 'GLib.SList', 'GLib.HashTable',
              'GLib.Array'}


def local(tag):
    return tag.split('}', 1)[-1]


def callable_name(parents, elem):
    cid = elem.get(C_IDENT)
    if cid:
        return cid
    return '.'.join([p.get('name') for p in parents if p.get('name')] +
                    [elem.get('name') or '?']) + ' (%s)' % local(elem.tag)


def type_of(holder):
    """The <type> or <array> child of a parameter or return value."""
    for child in holder:
        if local(child.tag) in ('type', 'array', 'varargs'):
            return child
    return None


def main(path):
    tree = ET.parse(path)
    root = tree.getroot()
    ns = root.find('core:namespace', NS)
    enum_names = {e.get('name') for e in ns
                  if local(e.tag) in ('enumeration', 'bitfield')}
    scalars = SCALARS | enum_names

    problems = []
    checked = {'callables': 0, 'parameters': 0, 'arrays': 0}
    per_kind = {}

    def visit(elem, parents):
        for child in elem:
            tag = child.tag if not child.tag.startswith(CORE) else local(child.tag)
            if tag in CALLABLE_TAGS:
                check_callable(child, parents + [elem])
            visit(child, parents + [elem])

    def check_callable(fn, parents):
        name = callable_name(parents, fn)
        kind = local(fn.tag)
        checked['callables'] += 1
        per_kind[kind] = per_kind.get(kind, 0) + 1
        if fn.get('introspectable') == '0':
            problems.append('%s: introspectable="0" (check its annotations: '
                            'transfer, array, closure)' % name)
            return

        params_elem = fn.find('core:parameters', NS)
        params = [] if params_elem is None else \
            [p for p in params_elem if local(p.tag) == 'parameter']
        ret = fn.find('core:return-value', NS)

        lengths_named = set()
        holders = [(p.get('name'), p) for p in params]
        if ret is not None:
            holders.append(('return value', ret))

        for pname, holder in holders:
            t = type_of(holder)
            if t is None:
                continue
            checked['parameters'] += 1
            direction = holder.get('direction', 'in')
            ctype = (t.get(C_TYPE) or '').strip()
            tname = t.get('name')
            if local(t.tag) == 'array':
                checked['arrays'] += 1
                if t.get('length') is not None:
                    lengths_named.add(int(t.get('length')))
                elem_type = type_of(t)
                if tname in CONTAINERS:
                    if elem_type is None or elem_type.get('name') in (None, 'gpointer'):
                        problems.append('%s: %s: %s without an element type'
                                        % (name, pname, tname))
                elif (t.get('length') is None and t.get('fixed-size') is None
                      and t.get('zero-terminated') == '0'):
                    # (an array with no length and no size defaults to
                    # zero-terminated, as GStrv does)
                    problems.append('%s: %s: C array with neither a length nor '
                                    'zero-termination' % (name, pname))
                continue
            if tname in CONTAINERS:
                problems.append('%s: %s: %s without an element type'
                                % (name, pname, tname))
            if (ctype.endswith('*') and tname in scalars
                    and direction not in ('out', 'inout')):
                problems.append('%s: %s: C type "%s" is a pointer but the GIR '
                                'type is the scalar "%s" (missing (array) or '
                                '(out)?)' % (name, pname, ctype, tname))

        # an n_* parameter is the length of some array (the C signature's
        # pairing of a pointer with its count)
        for i, p in enumerate(params):
            pname = p.get('name') or ''
            t = type_of(p)
            if (pname.startswith('n_') and t is not None
                    and local(t.tag) == 'type' and i not in lengths_named):
                problems.append('%s: parameter %s looks like an array length '
                                'but no (array length=%s) names it'
                                % (name, pname, pname))

    visit(ns, [])

    print('check-gir: %s' % path)
    print('check-gir: namespace %s %s: %d callables (%s), %d parameters and '
          'return values, %d arrays'
          % (ns.get('name'), ns.get('version'), checked['callables'],
             ', '.join('%d %s' % (n, k) for k, n in sorted(per_kind.items())),
             checked['parameters'], checked['arrays']))
    print('check-gir: checks: introspectable="0"; pointer C type with a scalar '
          'GIR type; arrays without lengths; n_* parameters no array uses; '
          'containers without element types')
    if problems:
        for p in problems:
            print('FAIL: ' + p)
        print('check-gir: %d problem(s)' % len(problems))
        return 1
    print('check-gir: OK')
    return 0


if __name__ == '__main__':
    if len(sys.argv) != 2:
        print('usage: check-gir.py FILE.gir', file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
