# test_view_base.py: which results are views and of what (Tensor._base,
# _is_view()), the alias forms (t[...], torch.Tensor(t)), reshape's copy and
# matmul's fold as torch's _unsafe_view (not views), and Tensor.real/imag of
# real dtypes, against python3-torch.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import numpy as np
import pytest
import torch

import dl

from conftest import assert_same


def test_alias_forms_record_alias_backward():
    """t[...], t[()], torch.Tensor(t), torch.FloatTensor(t) and t.new(t)
    are new tensors over t's elements, recorded as AliasBackward0; t[:]
    stays a slice."""
    forms = [lambda m, x: x[...], lambda m, x: x[()], lambda m, x: x[..., ],
             lambda m, x: m.Tensor(x), lambda m, x: m.FloatTensor(x), lambda m, x: x.new(x),
             lambda m, x: x[:], lambda m, x: x[None], lambda m, x: x[:, ...]]
    for f in forms:
        d = dl.arange(6.).reshape(2, 3).t().requires_grad_()
        t = torch.arange(6.).reshape(2, 3).t().requires_grad_()
        rd, rt = f(dl, d), f(torch, t)
        assert rd is not d and rt is not t
        assert rd.grad_fn.name() == rt.grad_fn.name()
        # d is a view (of arange's result): a view of it has d's base
        assert rd._base is d._base and rt._base is t._base
        assert rd.stride() == rt.stride() and rd.is_contiguous() == rt.is_contiguous()
        w = torch.arange(1., 1 + rt.numel()).reshape(rt.shape)
        (rd * dl.from_numpy(w.numpy())).sum().backward()
        (rt * w).sum().backward()
        assert_same(d.grad, t.grad)
    # without grad: still a new tensor sharing the elements
    d, t = dl.zeros(3), torch.zeros(3)
    ad, at = d[...], t[...]
    assert ad is not d and at is not t and ad.grad_fn is None and at.grad_fn is None
    ad.fill_(2)
    at.fill_(2)
    assert_same(d, t)



# (result, the tensor it is a view of: 'x', 'a' or None, torch's node name)
VIEWS = {
    'reshape-copy': lambda m, x, a, b: x.t().reshape(12),
    'flatten-copy': lambda m, x, a, b: x.t().flatten(),
    'reshape-view': lambda m, x, a, b: x.reshape(2, 6),
    'matmul-fold': lambda m, x, a, b: a @ b,
    'contiguous-copy': lambda m, x, a, b: x.t().contiguous(),
    'contiguous-self': lambda m, x, a, b: x.contiguous(),
    'expand': lambda m, x, a, b: x[:1].expand(3, 3),
    'detach': lambda m, x, a, b: x.detach(),
    'data': lambda m, x, a, b: x.data,
    'clone': lambda m, x, a, b: x.clone(),
    'view-of-view': lambda m, x, a, b: x.view(12)[2:].view(2, 5),
    'diagonal': lambda m, x, a, b: x.diagonal(),
    'transpose': lambda m, x, a, b: x.T,
    'narrow': lambda m, x, a, b: x.narrow(0, 1, 2),
    'select-a': lambda m, x, a, b: a[1],
    'real': lambda m, x, a, b: x.real,
    'add': lambda m, x, a, b: x + 1,
}


@pytest.mark.parametrize('name', sorted(VIEWS))
def test_base_as_torch(name):
    f = VIEWS[name]
    outs = []
    for m in (dl, torch):
        m.manual_seed(0)
        x = m.arange(12.).reshape(4, 3).requires_grad_()
        a, b = m.ones(2, 3, 4), m.ones(4, 5)
        r = f(m, x, a, b)
        base = r._base
        who = None if base is None else 'x' if base is x else 'a' if base is a else 'other'
        outs.append((who, r._is_view(), r is x,
                     None if r.grad_fn is None else r.grad_fn.name()))
    got, want = outs
    assert got == want


def test_reshape_copy_graph_and_gradient():
    xd = dl.arange(12.).reshape(4, 3).requires_grad_()
    xt = torch.arange(12.).reshape(4, 3).requires_grad_()
    rd, rt = xd.t().reshape(12), xt.t().reshape(12)
    assert [f.name() for f, _ in rd.grad_fn.next_functions] == \
        [f.name() for f, _ in rt.grad_fn.next_functions] == ['CloneBackward0']
    # writing into the copy leaves x alone and records the write on the copy
    rd.mul_(2)
    rt.mul_(2)
    assert rd.grad_fn.name() == rt.grad_fn.name() == 'MulBackward0'
    w = np.arange(1., 13.)
    (rd * dl.from_numpy(w.astype(np.float32))).sum().backward()
    (rt * torch.from_numpy(w.astype(np.float32))).sum().backward()
    assert_same(xd.grad, xt.grad)
    assert_same(xd, xt)


def test_real_and_imag_of_real_tensors():
    for m in (dl, torch):
        x = m.zeros(3)
        assert x.real is x and m.real(x) is x
        with pytest.raises(RuntimeError, match='imag is not implemented for tensors with '
                           'non-complex dtypes'):
            x.imag
        with pytest.raises(RuntimeError, match='non-complex'):
            m.imag(x)
        with pytest.raises(TypeError, match=r"real\(\): argument 'input'"):
            m.real(3)


PIECES = {
    'split': lambda m, x: x.split(2, 1), 'split-sizes': lambda m, x: x.split([1, 5], 1),
    'chunk': lambda m, x: x.chunk(3, 1), 'chunk-uneven': lambda m, x: x.chunk(4, 1),
    'unbind': lambda m, x: x.unbind(1), 'torch.split': lambda m, x: m.split(x, [2, 4], 1),
    'torch.chunk': lambda m, x: m.chunk(x, 2), 'torch.unbind': lambda m, x: m.unbind(x),
    'one-piece': lambda m, x: x.split(6, 1), 'tensor_split': lambda m, x: x.tensor_split(3, 1),
    'hsplit': lambda m, x: x.hsplit(2),
}


@pytest.mark.parametrize('name', sorted(PIECES))
def test_pieces_share_one_node_as_torch(name):
    """split, chunk and unbind: one node (SplitBackward0,
    SplitWithSizesBackward0, UnbindBackward0) with each piece as an output;
    tensor_split and hsplit slices; the gradient of some of the pieces."""
    f = PIECES[name]
    got = []
    for m in (dl, torch):
        x = m.arange(24.).reshape(4, 6).requires_grad_()
        ps = f(m, x)
        fns = [p.grad_fn for p in ps]
        got.append(([f.name() for f in fns], [p.output_nr for p in ps],
                    [p._base is x._base for p in ps], [f is fns[0] for f in fns]))
        # the first and last pieces only; the others get zeros
        (ps[0].sum() * 2 + (ps[-1] ** 2).sum()).backward()
        got.append(x.grad.numpy().tolist())
    assert got[:2] == got[2:]


def test_pieces_without_grad_and_of_empty_dims():
    x = dl.arange(6.).reshape(2, 3)
    assert all(p.grad_fn is None for p in x.split(1, 1))
    for m in (dl, torch):
        e = m.zeros(0, 3, requires_grad=True)
        assert [p.grad_fn.name() for p in e.chunk(3)] == ['SplitWithSizesBackward0'] * 3
        assert e.unbind(0) == ()
    with dl.no_grad():
        assert all(p.grad_fn is None for p in dl.ones(4, requires_grad=True).split(2))


def test_inplace_into_pieces_refused_as_torch():
    """torch refuses in-place writes into split/chunk/unbind pieces (and
    views of them) that require grad; without grad they are plain views."""
    forms = [lambda y: y.split(2)[1].mul_(2), lambda y: y.split(2)[1][0:1].mul_(2),
             lambda y: y.unbind()[2].add_(1), lambda y: y.chunk(2)[1].t().add_(1),
             lambda y: y.split([3, 1])[0].copy_(y[:3].detach())]
    for f in forms:
        msgs = []
        for m in (dl, torch):
            y = m.ones(4, requires_grad=True) * 1
            with pytest.raises(RuntimeError) as e:
                f(y)
            msgs.append(str(e.value))
        assert msgs[0].split(': ', 1)[1] == msgs[1]
        assert 'returns multiple views' in msgs[1]
    for m in (dl, torch):
        z = m.ones(4)
        z.split(2)[0].mul_(2)
        with m.no_grad():
            y = m.ones(4, requires_grad=True) * 1
            y.split(2)[0].mul_(3)
        assert z.tolist() == [2, 2, 1, 1] and y.tolist() == [3, 3, 1, 1]


UNSAFE = {
    'unsafe_split': lambda m, y: m.unsafe_split(y, 4),
    'unsafe_split method': lambda m, y: y.unsafe_split(2, 0),
    'unsafe_split_with_sizes': lambda m, y: m.unsafe_split_with_sizes(y, [1, 5]),
    'unsafe_chunk': lambda m, y: y.unsafe_chunk(4),
    'unsafe_chunk function': lambda m, y: m.unsafe_chunk(y, 2, 0),
    'unsafe_chunk of an empty dim': lambda m, y: y[:0].unsafe_chunk(3),
}


@pytest.mark.parametrize('name', sorted(UNSAFE))
def test_unsafe_pieces_are_not_views_as_torch(name):
    """torch's unsafe_split/unsafe_chunk: one UnsafeSplit(WithSizes)Backward0
    node whose outputs share the input's elements but are no views (no
    _base, _is_view() False); writing one in place is allowed and reaches
    the input's elements; gradients flow as split's"""
    got = []
    for m in (torch, dl):
        x = m.arange(6.).requires_grad_()
        y = x * 1
        ps = UNSAFE[name](m, y)
        got.append(([p.grad_fn.name() for p in ps], [p.output_nr for p in ps],
                    [p._is_view() for p in ps], [p._base is None for p in ps],
                    [tuple(p.shape) for p in ps]))
        if ps[0].numel():
            assert ps[0].data_ptr() == y.data_ptr()
            sum(p.sum() * (i + 1) for i, p in enumerate(ps)).backward()
            got.append(x.grad.tolist())
            with m.no_grad():
                pass
            q = UNSAFE[name](m, x.detach() * 1)
            q[0].mul_(3)
            got.append((q[0].grad_fn, q[0].tolist()))
    n = len(got) // 2
    assert got[:n] == got[n:]


def test_unsafe_pieces_write_in_place_with_grad():
    for m in (torch, dl):
        x = m.arange(6.).requires_grad_()
        y = x * 1
        a, b = m.unsafe_split(y, 3)
        a.mul_(2)  # split's pieces refuse this; unsafe ones take it
        assert a.grad_fn.name() == 'MulBackward0'
        assert y.tolist() == [0.0, 2.0, 4.0, 3.0, 4.0, 5.0]
    with pytest.raises(TypeError):
        dl.unsafe_split(dl.ones(4), [1, 3])
