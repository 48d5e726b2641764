#!/usr/bin/python3
# gen-pointwise.py: writes the public functions of the pointwise op table.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Usage: gen-pointwise.py dl-ops-pointwise.def OUT.h OUT.c
#
# Reads the rows of dl-ops-pointwise.def and writes, for every op and each
# variant its row asks for, the prototype with its doc comment (OUT.h, a
# public header that g-ir-scanner reads) and the function, a call of the
# op's pipeline (OUT.c). Nothing here knows about a particular op: what
# differs between ops is in the table.

import re
import sys

ROW = re.compile(r'^DL_(UNARY|BINARY)_OP\s*\((.*)\)\s*$')
COLUMNS = ('name', 'kernel', 'rule', 'node', 'grad', 'saves', 'domain', 'variants', 'what')

RULE_NOTES = {
    'FLOAT': 'Integer and bool tensors give the default floating-point dtype.',
    'STRICT': 'Only floating-point tensors (binary ops: a floating-point result type) are '
              'supported.',
    'KEEP': 'The result keeps the dtype of @self; bool tensors are refused.',
    'ROUNDING': 'An integer tensor gives a copy; bool tensors are refused.',
    'SIGN': 'The result keeps the dtype of @self.',
    'PREDICATE': 'The result is a bool tensor; integers are always finite.',
    'SIGNBIT': 'The result is a bool tensor, for every dtype.',
    'SQUARE': 'The result keeps the dtype of @self; bool tensors give int64, as pow does.',
    'BITWISE': 'Only integer and bool tensors are supported.',
    'ARITH': 'The operands are promoted to a common dtype as PyTorch does.',
    'DIV': 'Integer operands give the default floating-point dtype.',
    'COMPARE': 'The result is a bool tensor.',
    'POWER': 'Bool tensors are refused, and so are negative integer powers of integers.',
    'INT_DIVISION': 'Bool tensors are refused; integer division by zero is an error.',
    'INTEGER': 'Only integer tensors are supported (not bool).',
    'SAME': 'Both operands must have the same dtype.',
}

INPLACE_NOTE = ('The result must be castable to the dtype of @self (a floating-point result '
                'cannot be written into an integer tensor, nor a number into a bool one).')

SCALAR_NOTE = ('The number does not widen the tensor\'s dtype, except that a fractional '
               'number (or -0.0) next to an integer tensor gives the default float dtype.')


def split_args(text):
    """The comma-separated arguments of a row, quotes respected."""
    args, cur, quoted = [], '', False
    for ch in text:
        if ch == '"':
            quoted = not quoted
        if ch == ',' and not quoted:
            args.append(cur.strip())
            cur = ''
        else:
            cur += ch
    args.append(cur.strip())
    return args


def read_rows(path):
    rows = []
    with open(path, encoding='utf-8') as f:
        for line in f:
            m = ROW.match(line.strip())
            if not m:
                continue
            args = split_args(m.group(2))
            if len(args) != len(COLUMNS):
                sys.exit('%s: %d columns, expected %d: %s' % (path, len(args), len(COLUMNS), line))
            row = dict(zip(COLUMNS, args))
            row['binary'] = m.group(1) == 'BINARY'
            row['variants'] = set(v.strip() for v in row['variants'].split('|')) - {'0'}
            row['what'] = row['what'].strip('"')
            rows.append(row)
    return rows


def wrap(text, indent=' * ', width=79):
    """Doc comment lines of at most width characters."""
    lines, cur = [], ''
    for word in text.split():
        if cur and len(indent) + len(cur) + 1 + len(word) > width:
            lines.append(indent + cur)
            cur = word
        else:
            cur = cur + ' ' + word if cur else word
    if cur:
        lines.append(indent + cur)
    return '\n'.join(lines)


def swap(what):
    """The formula with self and other exchanged (reflected variants)."""
    return re.sub(r'\b(self|other)\b', lambda m: 'other' if m.group(1) == 'self' else 'self', what)


class Function:
    def __init__(self, name, params, summary, returns, call):
        self.name, self.params, self.summary, self.returns, self.call = name, params, summary, returns, call

    def prototype(self):
        args = ', '.join('%s%s' % (ctype, pname) for ctype, pname, _ in self.params)
        return 'DlTensor *\n%s (%s, GError **error)' % (self.name, args)

    def doc(self):
        out = ['/**', ' * %s:' % self.name]
        for ctype, pname, pdoc in self.params:
            out.append(wrap('@%s: %s' % (pname, pdoc), indent=' * ')
                       .replace('\n * ', '\n *   '))
        out.append(' * @error: return location for a #GError')
        out.append(' *')
        out.append(wrap(self.summary))
        out.append(' *')
        out.append(wrap('Returns: %s' % self.returns).replace('\n * ', '\n *   '))
        out.append(' *')
        out.append(' * Since: 0.1')
        out.append(' */')
        return '\n'.join(out)


SELF = ('DlTensor *', 'self', 'a #DlTensor')
SELF_INPLACE = ('DlTensor *', 'self', 'a #DlTensor, written in place')
OTHER = ('DlTensor *', 'other', 'a #DlTensor broadcastable with @self')
OTHER_INPLACE = ('DlTensor *', 'other', 'a #DlTensor that broadcasts to the shape of @self')
NUMBER = ('gdouble ', 'other', 'a number')
ALPHA = ('gdouble ', 'alpha', 'the factor for @other')
NEW = '(transfer full): the result, or %NULL with @error set'
SAME = ('(transfer none): @self itself, as in-place ops return it (not a new '
        'reference), or %NULL with @error set')


def functions(row):
    name, what, rule = row['name'], row['what'], row['rule']
    op = 'DL_OP_' + name
    note = RULE_NOTES[rule]
    grad = '' if row['node'] != 'NULL' else ' Not differentiable.'
    if row['node'] == '"NotImplemented"' or (row['node'] != 'NULL' and row['grad'] == 'NULL'):
        grad = ' Not differentiable: as in PyTorch, a backward pass through the result fails.'
    v = row['variants']
    if not row['binary']:
        yield Function('dl_tensor_' + name, [SELF],
                       'Computes %s elementwise. %s%s' % (what, note, grad), NEW,
                       'dl_pointwise_unary (%s, self, error)' % op)
        if 'INPLACE' in v:
            yield Function('dl_tensor_%s_' % name, [SELF_INPLACE],
                           'Computes %s elementwise and writes it into @self, as '
                           'torch.Tensor.%s_. %s' % (what, name, INPLACE_NOTE), SAME,
                           'dl_pointwise_unary_ (%s, self, error)' % op)
        return
    yield Function('dl_tensor_' + name, [SELF, OTHER],
                   'Computes %s elementwise, broadcasting both operands. %s%s'
                   % (what, note, grad), NEW,
                   'dl_pointwise_binary (%s, self, other, 1.0, error)' % op)
    if 'SCALAR' in v:
        yield Function('dl_tensor_%s_scalar' % name, [SELF, NUMBER],
                       'Computes %s elementwise with a number as @other. %s %s'
                       % (what, SCALAR_NOTE, note), NEW,
                       'dl_pointwise_binary_scalar (%s, self, other, FALSE, error)' % op)
    if 'REFLECTED' in v:
        yield Function('dl_tensor_r%s_scalar' % name, [SELF, NUMBER],
                       'Computes %s elementwise with a number as @other, for a number on the '
                       'left of the operator. %s' % (swap(what), SCALAR_NOTE), NEW,
                       'dl_pointwise_binary_scalar (%s, self, other, TRUE, error)' % op)
    if 'ALPHA' in v:
        scaled = what.replace('other', 'alpha * other')
        yield Function('dl_tensor_%s_scaled' % name, [SELF, OTHER, ALPHA],
                       'Computes %s elementwise, as torch.%s (self, other, alpha=alpha). %s'
                       % (scaled, name, note), NEW,
                       'dl_pointwise_binary (%s, self, other, alpha, error)' % op)
    if 'INPLACE' in v:
        yield Function('dl_tensor_%s_' % name, [SELF_INPLACE, OTHER_INPLACE],
                       'Computes %s elementwise and writes it into @self, as '
                       'torch.Tensor.%s_. %s' % (what, name, INPLACE_NOTE), SAME,
                       'dl_pointwise_binary_ (%s, self, other, 1.0, error)' % op)
        if 'SCALAR' in v:
            yield Function('dl_tensor_%s_scalar_' % name, [SELF_INPLACE, NUMBER],
                           'Computes %s elementwise with a number as @other and writes it '
                           'into @self.' % what, SAME,
                           'dl_pointwise_binary_scalar_ (%s, self, other, error)' % op)
        if 'ALPHA' in v:
            scaled = what.replace('other', 'alpha * other')
            yield Function('dl_tensor_%s_scaled_' % name, [SELF_INPLACE, OTHER_INPLACE, ALPHA],
                           'Computes %s elementwise and writes it into @self (the optimizers\' '
                           'axpy).' % scaled, SAME,
                           'dl_pointwise_binary_ (%s, self, other, alpha, error)' % op)


HEADER = '''/* %s: the public functions of the pointwise op table.
 *
 * Generated by gen-pointwise.py from dl-ops-pointwise.def: edit the table,
 * not this file.
 */
#pragma once

#if !defined(DL_INSIDE) && !defined(DL_COMPILATION)
#error "Only <dl.h> can be included directly."
#endif

#include "dl-tensor.h"

G_BEGIN_DECLS

%s
G_END_DECLS
'''

SOURCE = '''/* %s: the public functions of the pointwise op table.
 *
 * Generated by gen-pointwise.py from dl-ops-pointwise.def: edit the table,
 * not this file. Each function runs its op's pipeline
 * (dl-ops-pointwise.c).
 */
#include "config.h"

#include "dl-ops-pointwise-private.h"

%s'''


def main():
    if len(sys.argv) != 4:
        sys.exit('usage: gen-pointwise.py TABLE.def OUT.h OUT.c')
    table, out_h, out_c = sys.argv[1:]
    fns = [f for row in read_rows(table) for f in functions(row)]
    decls = ''.join('%s\nDL_EXPORT %s;\n\n' % (f.doc(), f.prototype().replace('\n', ''))
                    for f in fns)
    defs = ''.join('%s\n{\n  return %s;\n}\n\n' % (f.prototype(), f.call) for f in fns)
    with open(out_h, 'w', encoding='utf-8') as f:
        f.write(HEADER % (out_h.split('/')[-1], decls))
    with open(out_c, 'w', encoding='utf-8') as f:
        f.write(SOURCE % (out_c.split('/')[-1], defs.rstrip('\n') + '\n'))


if __name__ == '__main__':
    main()
