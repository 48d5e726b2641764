# safetensors_ref.py: a reader and a writer of the safetensors format
# written from its published description alone, with struct and json, for
# the interoperability tests: libdl must read what this writes and write
# what this reads. Tensors are (dtype name, shape, raw little-endian bytes).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import json
import struct

SIZES = {'BOOL': 1, 'U8': 1, 'I8': 1, 'I16': 2, 'U16': 2, 'F16': 2, 'BF16': 2,
         'I32': 4, 'U32': 4, 'F32': 4, 'F64': 8, 'I64': 8, 'U64': 8}


def write(path, tensors, metadata=None):
    """Tensors in the dict's own order, unsorted; header padded to 8."""
    header, offset = {}, 0
    if metadata is not None:
        header['__metadata__'] = metadata
    for name, (dtype, shape, data) in tensors.items():
        header[name] = {'dtype': dtype, 'shape': list(shape),
                        'data_offsets': [offset, offset + len(data)]}
        offset += len(data)
    text = json.dumps(header).encode('utf-8')
    text += b' ' * (-len(text) % 8)
    with open(path, 'wb') as f:
        f.write(struct.pack('<Q', len(text)) + text)
        for _dtype, _shape, data in tensors.values():
            f.write(data)


def read(path):
    with open(path, 'rb') as f:
        blob = f.read()
    (n,) = struct.unpack('<Q', blob[:8])
    header = json.loads(blob[8:8 + n].decode('utf-8'))
    data = blob[8 + n:]
    metadata = header.pop('__metadata__', None)
    out, covered = {}, 0
    for name, info in header.items():
        begin, end = info['data_offsets']
        count = 1
        for s in info['shape']:
            count *= s
        assert end - begin == count * SIZES[info['dtype']], name
        covered += end - begin
        out[name] = (info['dtype'], tuple(info['shape']), data[begin:end])
    assert covered == len(data)
    return out, metadata
