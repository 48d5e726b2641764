# sdpa.py: torch.nn.functional.scaled_dot_product_attention (PyTorch 2's
# signature) on libdl's fused kernel, dl_scaled_dot_product_attention().
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from .._lib import Dl, GLib, _translate

__all__ = ['scaled_dot_product_attention']


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None):
    """softmax(query @ key.transpose(-2, -1) * scale + attn_mask) @ value,
    with dropout_p applied to the attention weights; attn_mask bool (True:
    may attend) or float (added); scale None for 1 / sqrt(query.size(-1))."""
    if scale is not None and float(scale) == 0.0:
        # libdl's 0 means the default scale: scores all 0 are a uniform softmax
        scale = 5e-324
    try:
        return Dl.scaled_dot_product_attention(query, key, value, attn_mask, float(dropout_p),
                                               bool(is_causal),
                                               0.0 if scale is None else float(scale), None)
    except GLib.Error as e:
        raise _translate(e) from None
