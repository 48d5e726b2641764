# return_types.py: torch.return_types, the named tuples that ops returning
# several tensors give (x.max(0) is a return_types.max with .values and
# .indices).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# torch's are structseq types made in C; these are tuple subclasses that
# behave as they do: built from one sequence of the right length, fields
# read-only, no other attributes, torch's multi-line repr
# (torch.return_types.max(\nvalues=tensor(...),\nindices=tensor(...))),
# and pickled by this module's path, so a pickle made here loads in a
# fresh process. bindings/python/dl-fast.c builds max and min itself
# (tp_alloc and the two items): a class here must stay a tuple subclass
# without instance fields of its own.

# torch 1.13's public return types and their fields; each but histogramdd
# also has a NAME_out type with the same fields.
_FIELDS = {
    'aminmax': ('min', 'max'),
    'cummax': ('values', 'indices'),
    'cummin': ('values', 'indices'),
    'frexp': ('mantissa', 'exponent'),
    'geqrf': ('a', 'tau'),
    'histogram': ('hist', 'bin_edges'),
    'histogramdd': ('hist', 'bin_edges'),
    'kthvalue': ('values', 'indices'),
    'linalg_cholesky_ex': ('L', 'info'),
    'linalg_eig': ('eigenvalues', 'eigenvectors'),
    'linalg_eigh': ('eigenvalues', 'eigenvectors'),
    'linalg_inv_ex': ('inverse', 'info'),
    'linalg_ldl_factor': ('LD', 'pivots'),
    'linalg_ldl_factor_ex': ('LD', 'pivots', 'info'),
    'linalg_lstsq': ('solution', 'residuals', 'rank', 'singular_values'),
    'linalg_lu': ('P', 'L', 'U'),
    'linalg_lu_factor': ('LU', 'pivots'),
    'linalg_lu_factor_ex': ('LU', 'pivots', 'info'),
    'linalg_qr': ('Q', 'R'),
    'linalg_slogdet': ('sign', 'logabsdet'),
    'linalg_solve_ex': ('result', 'info'),
    'linalg_svd': ('U', 'S', 'Vh'),
    'lu_unpack': ('P', 'L', 'U'),
    'max': ('values', 'indices'),
    'median': ('values', 'indices'),
    'min': ('values', 'indices'),
    'mode': ('values', 'indices'),
    'nanmedian': ('values', 'indices'),
    'qr': ('Q', 'R'),
    'slogdet': ('sign', 'logabsdet'),
    'sort': ('values', 'indices'),
    'svd': ('U', 'S', 'V'),
    'symeig': ('eigenvalues', 'eigenvectors'),
    'topk': ('values', 'indices'),
    'triangular_solve': ('solution', 'cloned_coefficient'),
}
_NO_OUT = ('histogramdd',)


class _Field:
    """A read-only field of a return type: item @index of the tuple."""

    __slots__ = ('index', 'name', 'owner')

    def __init__(self, index, name, owner):
        self.index, self.name, self.owner = index, name, owner

    def __get__(self, obj, cls=None):
        return self if obj is None else tuple.__getitem__(obj, self.index)

    def __set__(self, obj, value):
        raise AttributeError('readonly attribute')

    def __delete__(self, obj):
        raise AttributeError('readonly attribute')

    def __repr__(self):
        return "<member '%s' of 'torch.return_types.%s' objects>" % (self.name, self.owner)


class _ReturnType(tuple):
    """What the classes of this module share (torch's are structseqs)."""

    __slots__ = ()

    def __new__(cls, sequence, dict=None):
        if cls is _ReturnType:
            raise TypeError('_ReturnType is abstract')
        try:
            items = tuple(sequence)
        except TypeError:
            raise TypeError('constructor requires a sequence') from None
        if dict is not None and not isinstance(dict, type({})):
            raise TypeError('torch.return_types.%s() takes a dict as second arg, if any'
                            % cls.__name__)
        if len(items) != cls.n_fields:
            raise TypeError('torch.return_types.%s() takes a %d-sequence (%d-sequence given)'
                            % (cls.__name__, cls.n_fields, len(items)))
        return tuple.__new__(cls, items)

    def __repr__(self):
        body = ',\n'.join('%s=%r' % (name, value)
                          for name, value in zip(self.__match_args__, self))
        return 'torch.return_types.%s(\n%s)' % (type(self).__name__, body)

    def __reduce__(self):
        return (type(self), (tuple(self), {}))

    def __getattr__(self, name):
        raise AttributeError("'torch.return_types.%s' object has no attribute '%s'"
                             % (type(self).__name__, name))

    def __setattr__(self, name, value):
        if name in self.__match_args__:
            raise AttributeError('readonly attribute')
        raise AttributeError("'torch.return_types.%s' object has no attribute '%s'"
                             % (type(self).__name__, name))

    def __delattr__(self, name):
        self.__setattr__(name, None)


def _make(name, fields):
    namespace = {'__slots__': (), '__module__': __name__, '__qualname__': name,
                 '__match_args__': fields, 'n_fields': len(fields),
                 'n_sequence_fields': len(fields), 'n_unnamed_fields': 0}
    for i, field in enumerate(fields):
        namespace[field] = _Field(i, field, name)
    return type(name, (_ReturnType,), namespace)


__all__ = []
for _name, _fields in _FIELDS.items():
    for _n in (_name,) if _name in _NO_OUT else (_name, _name + '_out'):
        globals()[_n] = _make(_n, _fields)
        __all__.append(_n)
del _name, _fields, _n
