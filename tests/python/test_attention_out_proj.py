# test_attention_out_proj.py: MultiheadAttention's out_proj is a
# torch.nn.modules.linear.NonDynamicallyQuantizableLinear, as
# word_language_model's main.py expects when it lists the classes of its
# saved TransformerModel for torch.load, against python3-torch.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import io

import torch

import dl

from conftest import assert_same


def _name(m):
    return type(m).__name__


def test_out_proj_class_everywhere():
    for lib in (torch, dl):
        q = lib.nn.modules.linear.NonDynamicallyQuantizableLinear
        assert issubclass(q, lib.nn.Linear)
        mha = lib.nn.MultiheadAttention(8, 2)
        assert isinstance(mha.out_proj, q)
        layer = lib.nn.TransformerEncoderLayer(8, 2, 16)
        enc = lib.nn.TransformerEncoder(layer, 2)
        assert [_name(l.self_attn.out_proj) for l in enc.layers] == \
            ['NonDynamicallyQuantizableLinear'] * 2
        t = lib.nn.Transformer(8, 2, 1, 1, 16)
        assert _name(t.decoder.layers[0].multihead_attn.out_proj) == \
            'NonDynamicallyQuantizableLinear'
    assert repr(dl.nn.MultiheadAttention(4, 2)) == repr(torch.nn.MultiheadAttention(4, 2))
    assert repr(dl.nn.modules.linear.NonDynamicallyQuantizableLinear(3, 2)) == \
        repr(torch.nn.modules.linear.NonDynamicallyQuantizableLinear(3, 2))


def test_out_proj_class_survives_save_and_load():
    mha = dl.nn.MultiheadAttention(4, 2)
    buf = io.BytesIO()
    dl.save(mha, buf)
    buf.seek(0)
    tmha = torch.load(io.BytesIO(buf.getvalue()))
    assert _name(tmha.out_proj) == 'NonDynamicallyQuantizableLinear'
    q = dl.nn.modules.linear.NonDynamicallyQuantizableLinear
    with dl.serialization.safe_globals([dl.nn.MultiheadAttention, q]):
        back = dl.load(buf)
    assert isinstance(back.out_proj, q)
    x = dl.ones(3, 1, 4)
    assert_same(back(x, x, x)[0], tmha(torch.ones(3, 1, 4), torch.ones(3, 1, 4),
                                       torch.ones(3, 1, 4))[0].detach(), rtol=1e-5, atol=1e-6)
