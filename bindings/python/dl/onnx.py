# dl.onnx (torch.onnx): importable, so that scripts which import it run;
# export is not supported by libdl and says so.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

__all__ = ['export', 'is_in_onnx_export']


def export(model, args, f, *rest, **kwargs):
    """torch.onnx.export(model, args, f, ...): not supported, raises
    NotImplementedError. libdl does not trace modules into graphs, which
    ONNX export needs; save the weights with dl.save (PyTorch's format) and
    export from PyTorch."""
    raise NotImplementedError('torch.onnx.export: ONNX export is not supported by libdl; save '
                              'the state dict with save() and export it from PyTorch')


def is_in_onnx_export():
    """torch.onnx.is_in_onnx_export(): False, there is no export running."""
    return False
