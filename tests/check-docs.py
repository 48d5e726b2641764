#!/usr/bin/python3
# check-docs.py: fails when a public symbol of the GIR has no description,
# and prints the list.
#
# A symbol is a class, interface, record, union, enumeration or bitfield
# (and their members), a function, method, constructor, virtual method,
# property, signal, constant, callback or alias. Its description is the
# <doc> element g-ir-scanner copies from the symbol's gtk-doc block; a block
# holding only parameters and "Returns:" gives none.
#
# The function pointers of a class struct are the one exception:
# g-ir-scanner writes no <doc> for a field that is a callback (girwriter's
# _write_field drops it), and documents it as the class's virtual method
# instead (`DlModuleClass::forward:`). Such a field passes when its class has
# a described virtual method of the same name, and fails otherwise.
#
# Usage: check-docs.py Dl-1.0.gir
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import argparse
import sys
import xml.etree.ElementTree as ET

CORE = '{http://www.gtk.org/introspection/core/1.0}'
GLIB = '{http://www.gtk.org/introspection/glib/1.0}'
C_IDENT = '{http://www.gtk.org/introspection/c/1.0}identifier'
C_TYPE = '{http://www.gtk.org/introspection/c/1.0}type'

SYMBOLS = {
    CORE + 'class': 'class',
    CORE + 'interface': 'interface',
    CORE + 'record': 'record',
    CORE + 'union': 'union',
    CORE + 'enumeration': 'enumeration',
    CORE + 'bitfield': 'bitfield',
    CORE + 'member': 'member',
    CORE + 'function': 'function',
    CORE + 'function-macro': 'function macro',
    CORE + 'method': 'method',
    CORE + 'constructor': 'constructor',
    CORE + 'virtual-method': 'virtual method',
    CORE + 'property': 'property',
    GLIB + 'signal': 'signal',
    CORE + 'constant': 'constant',
    CORE + 'callback': 'callback',
    CORE + 'alias': 'alias',
}


def described(elem):
    doc = elem.find(CORE + 'doc')
    return doc is not None and (doc.text or '').strip() != ''


def label(elem, path):
    c_name = elem.get(C_IDENT) or elem.get(C_TYPE)
    name = '.'.join(path)
    return '%s (%s)' % (name, c_name) if c_name and c_name != name else name


def main(path):
    ns = ET.parse(path).getroot().find(CORE + 'namespace')
    # described virtual methods by the class struct that holds them
    vfuncs = {}
    for holder in ns:
        struct = holder.get(GLIB + 'type-struct')
        if struct:
            vfuncs[struct] = {v.get('name') for v in holder.findall(CORE + 'virtual-method')
                              if described(v)}

    missing = []
    counts = {}

    def visit(elem, path):
        for child in elem:
            if child.tag == CORE + 'field':
                callback = child.find(CORE + 'callback')
                if callback is None or child.get('private') == '1':
                    continue
                counts['class struct function pointer'] = \
                    counts.get('class struct function pointer', 0) + 1
                name = child.get('name')
                if not (described(callback) or described(child)
                        or name in vfuncs.get(path[-1], ())):
                    missing.append(('class struct function pointer',
                                    '.'.join(path + [name])))
                continue
            kind = SYMBOLS.get(child.tag)
            if kind is None:
                continue
            if child.get('introspectable') == '0':
                continue
            counts[kind] = counts.get(kind, 0) + 1
            child_path = path + [child.get('name')]
            if not described(child):
                missing.append((kind, label(child, child_path)))
            visit(child, child_path)

    visit(ns, [ns.get('name')])

    summary = ', '.join('%d %s' % (n, k) for k, n in sorted(counts.items()))
    print('check-docs: %s: %d symbols (%s)' % (path, sum(counts.values()), summary))
    print('\n'.join('FAIL: %s %s has no description' % m for m in missing)
          or 'check-docs: OK, every symbol has a description')
    if missing:
        print('check-docs: %d symbol(s) without a description' % len(missing))
    return 1 if missing else 0


if __name__ == '__main__':
    parser = argparse.ArgumentParser(
        description='Fail when a symbol of a GIR file has no description.')
    parser.add_argument('gir', help='the .gir file, such as Dl-1.0.gir')
    sys.exit(main(parser.parse_args().gir))
