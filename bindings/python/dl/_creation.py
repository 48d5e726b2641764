# _creation.py: tensor creation (tensor, zeros, arange, from_numpy, ...),
# random generators and sampling, and the matrix products that are free
# functions in PyTorch (mm, dot, einsum, tensordot, ...).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import functools
import numbers
import warnings

import numpy as _np

from ._dtype import (_BOOL, _FROM_NP, _NP_OF, _default_dl_device, _dl_device, _dt,
                     _memory_format, _size_args, float64, get_default_dtype, int64, uint8,
                     device)
from ._lib import (OVERRIDE_MODULE, Dl, GLib, _checked, _int_arg, _is_tensor,
                   typelib_override)


def _finish(t, requires_grad):
    if requires_grad:
        t.set_requires_grad(True)
    return t


def _with_size_kwarg(fn):
    """Lets a factory taking *size also take size= as a keyword, as torch's do."""
    @functools.wraps(fn)
    def wrapper(*size, **kwargs):
        if 'size' in kwargs:
            if size:
                raise TypeError("%s() got multiple values for argument 'size'" % fn.__name__)
            size = (kwargs.pop('size'),)
        return fn(*size, **kwargs)
    return wrapper


def _factory_size(size, name):
    """The shape a factory was given; torch's TypeError when it was given
    none (torch.ones() is refused, torch.ones(()) is a 0-d tensor)."""
    if not size:
        raise TypeError('%s() received an invalid combination of arguments - got (), but '
                        'expected one of:\n * (tuple of ints size, ...)' % name)
    return _size_args(size, name)


def _creation(c_fn, name):
    def fn(*size, dtype=None, device=None, requires_grad=False, out=None, layout=None,
           pin_memory=False):
        return _finish(c_fn(_factory_size(size, name), _dt(dtype), _dl_device(device)),
                       requires_grad)
    fn.__name__ = name
    return fn


# The factories without the size= keyword, which the *_like functions call.
_zeros = _creation(Dl.zeros, 'zeros')
_ones = _creation(Dl.ones, 'ones')
_empty = _creation(Dl.empty, 'empty')
zeros = _with_size_kwarg(_zeros)
ones = _with_size_kwarg(_ones)
empty = _with_size_kwarg(_empty)


def full(size, fill_value, dtype=None, device=None, requires_grad=False):
    if dtype is None:
        if isinstance(fill_value, bool):
            dtype = _BOOL
        elif isinstance(fill_value, numbers.Integral):
            dtype = int64
    return _finish(Dl.full(_size_args((size,), 'full'), float(fill_value), _dt(dtype),
                           _dl_device(device)), requires_grad)


# ---- Tensor.new_zeros and its kin (Tensor methods, named as torch names
# them for its errors): the factories with self's dtype and
# device unless told otherwise
def _new_factory(c_fn, name):
    factory = _with_size_kwarg(_creation(c_fn, name))

    def new(self, *size, dtype=None, device=None, **kwargs):
        return factory(*size, dtype=self.dtype if dtype is None else dtype,
                       device=self.device if device is None else device, **kwargs)
    new.__name__ = name
    return new


_new_zeros = _new_factory(Dl.zeros, 'new_zeros')
_new_ones = _new_factory(Dl.ones, 'new_ones')
_new_empty = _new_factory(Dl.empty, 'new_empty')


def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False,
              layout=None, pin_memory=False):
    # a size, unlike new_zeros's: new_full(2, 7) is refused
    if not isinstance(size, (tuple, list)):
        raise TypeError("new_full(): argument 'size' (position 1) must be tuple of ints, not %s"
                        % type(size).__name__)
    return full(size, fill_value, dtype=self.dtype if dtype is None else dtype,
                device=self.device if device is None else device, requires_grad=requires_grad)


def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False, layout=None,
                pin_memory=False):
    """A tensor of a copy of @data (self's dtype and device unless told);
    from a tensor, torch's warning that clone().detach() says it better."""
    dtype = self.dtype if dtype is None else dtype
    device = self.device if device is None else device
    if _is_tensor(data):
        warnings.warn('To copy construct from a tensor, it is recommended to use '
                      'sourceTensor.clone().detach() or '
                      'sourceTensor.clone().detach().requires_grad_(True), rather than '
                      'tensor.new_tensor(sourceTensor).', UserWarning, stacklevel=2)
        return _finish(data.detach().to(device=device, dtype=dtype, copy=True), requires_grad)
    return tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)


def arange(start, end=None, step=1, dtype=None, device=None, requires_grad=False):
    if end is None:
        start, end = 0, start
    vals = (start, end, step)
    if dtype is None:
        integral = all(isinstance(v, numbers.Integral) or
                       (_is_tensor(v) and not v.is_floating_point()) for v in vals)
        dtype = int64 if integral else get_default_dtype()
    vals = [float(v) for v in vals]
    return _finish(Dl.arange(vals[0], vals[1], vals[2], _dt(dtype), _dl_device(device)),
                   requires_grad)


def _infer_dtype(arr, data):
    if isinstance(data, _np.ndarray) or isinstance(data, _np.generic):
        if arr.dtype in _FROM_NP:
            return _FROM_NP[arr.dtype]
        raise TypeError("can't convert np.ndarray of type %s" % arr.dtype)
    if arr.dtype == _np.bool_:
        return _BOOL
    if arr.dtype.kind in 'iu':
        return int64
    if arr.dtype.kind == 'f':
        return get_default_dtype()
    raise TypeError('Could not infer dtype of %s' % type(data).__name__)


def _tensor_from_data(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """tensor() for data that numpy can take as it is; see tensor below."""
    target = _dl_device(device) if device is not None else _default_dl_device()
    if _is_tensor(data):
        t = data.detach().clone()
        if dtype is not None:
            t = t.to(dtype)
        if target is not None:
            t = Dl.Tensor.to_device(t, target)
        return _finish(t, requires_grad)
    if isinstance(data, (list, tuple)) and _first_leaf_is_tensor(data):
        # one-element tensors are scalars to torch, others refused (numpy,
        # through __array__, would make them dimensions)
        data = _unwrap_data(data)
    try:
        arr = _np.asarray(data)
    except ValueError as e:
        raise ValueError('tensor(): %s' % e) from None
    if arr.dtype == object:
        raise TypeError('tensor(): could not convert %r to a tensor' % (data,))
    if dtype is None:
        dtype = _infer_dtype(arr, data)
    with _np.errstate(over='ignore', invalid='ignore'):
        if dtype.name == 'bfloat16':
            src = _np.array(arr, dtype=_np.float32, order='C')
            t = Dl.Tensor.new_from_bytes(GLib.Bytes.new(src.tobytes()), list(src.shape),
                                         Dl.DType.FLOAT32).to_dtype(Dl.DType.BFLOAT16)
        else:
            src = _np.array(arr, dtype=_NP_OF[dtype.name], order='C')
            t = Dl.Tensor.new_from_bytes(GLib.Bytes.new(src.tobytes()), list(src.shape),
                                         dtype._value)
    if target is not None:
        t = Dl.Tensor.to_device(t, target)
    return _finish(t, requires_grad)


def _first_leaf_is_tensor(data):
    while isinstance(data, (list, tuple)) and data:
        data = data[0]
    return _is_tensor(data)


def _unwrap_data(data):
    """Python data with one-element tensors replaced by their values, and
    what PyTorch refuses refused with PyTorch's exception."""
    if data is None:
        raise RuntimeError('Could not infer dtype of NoneType')
    if _is_tensor(data):
        if data.numel() != 1:
            raise TypeError('only integer tensors of a single element can be converted to an '
                            'index')
        return data.item()
    if isinstance(data, (list, tuple)):
        return [_unwrap_data(d) for d in data]
    if isinstance(data, numbers.Integral) and not isinstance(data, bool) and \
            not -2 ** 63 <= int(data) < 2 ** 63:
        raise RuntimeError('Overflow when unpacking long')
    return data


def tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    if data is None or (isinstance(data, numbers.Integral) and not _is_tensor(data)):
        data = _unwrap_data(data)
    try:
        return _tensor_from_data(data, dtype=dtype, device=device, requires_grad=requires_grad)
    except TypeError:
        if not isinstance(data, (list, tuple, numbers.Integral)) or isinstance(data, bool):
            raise
    return _tensor_from_data(_unwrap_data(data), dtype=dtype, device=device,
                             requires_grad=requires_grad)


def as_tensor(data, dtype=None, device=None):
    if _is_tensor(data):
        return data if dtype is None else data.to(dtype)
    if isinstance(data, _np.ndarray) and dtype is None and data.dtype in _FROM_NP:
        return from_numpy(data)
    return tensor(data, dtype=dtype, device=device)


def _release(owner):
    """Called when a tensor made by from_numpy lets go of the array (without
    the C extension _dl_fast)."""


# _dl_fast's borrow() drops the array in C: a Python release callback can
# have a signal's KeyboardInterrupt raised inside it, which then surfaces
# as "SystemError: error return without exception set"
try:
    from gi.overrides._dl_fast import borrow as _borrow
except ImportError:
    _borrow = None


def _wrap_address(address, d, shape, strides, owner):
    """A tensor of dtype @d over the memory at @address (strides in
    elements), holding @owner until libdl lets go of the storage."""
    if _borrow is not None:
        return _borrow(address, int(d._value), tuple(shape), list(strides), owner)
    return Dl.Tensor.new_from_address(address, list(shape), list(strides), d._value, _release,
                                      owner)


def from_numpy(ndarray):
    if not isinstance(ndarray, _np.ndarray):
        raise TypeError('expected np.ndarray (got %s)' % type(ndarray).__name__)
    if ndarray.dtype not in _FROM_NP:
        raise TypeError("can't convert np.ndarray of type numpy.%s. The only supported types "
                        "are: float64, float32, float16, int64, int32, uint8, and bool."
                        % ndarray.dtype)
    if any(s < 0 for s in ndarray.strides):
        raise ValueError('At least one stride in the given numpy array is negative, and tensors '
                         'with negative strides are not currently supported.')
    d = _FROM_NP[ndarray.dtype]
    size = ndarray.itemsize
    if any(s % size for s in ndarray.strides):
        raise ValueError('given numpy array strides not a multiple of the element byte size')
    strides = [s // size for s in ndarray.strides]
    t = _wrap_address(ndarray.ctypes.data, d, ndarray.shape, strides, ndarray)
    if not ndarray.flags.writeable:
        # torch warns here and lets writes through (a crash on read-only
        # mappings); libdl refuses the writes with an error instead
        t.mark_read_only()
    return t


# ---- random generators ----------------------------------------------------

_SEED_MASK = 0xFFFFFFFFFFFFFFFF


def _check_generator(generator):
    if generator is not None and not isinstance(generator, Dl.Generator):
        raise TypeError('generator must be a Dl.Generator, got %s' % type(generator).__name__)
    return generator


@typelib_override(__name__)
class Generator(Dl.Generator):
    """torch.Generator(device='cpu'): a seedable random stream."""
    __module__ = OVERRIDE_MODULE

    def __new__(cls, device='cpu'):
        return Dl.Generator.new(_dl_device(device))

    def __init__(self, *args, **kwargs):
        pass

    def manual_seed(self, seed):
        Dl.Generator.manual_seed(self, int(seed) & _SEED_MASK)
        return self

    def seed(self):
        return Dl.Generator.seed(self)

    def initial_seed(self):
        return Dl.Generator.initial_seed(self)

    def get_state(self):
        data = Dl.Generator.get_state(self).get_data()
        return tensor(list(data), dtype=uint8)

    def set_state(self, new_state):
        if not _is_tensor(new_state) or new_state.dtype != uint8:
            raise TypeError('set_state: expected a torch.ByteTensor from get_state, got %s'
                            % type(new_state).__name__)
        raw = bytes(new_state.contiguous().numpy().tobytes())
        Dl.Generator.set_state(self, GLib.Bytes.new(raw))
        return self

    @property
    def device(self):
        return device(self.get_device().get_name())

    def __repr__(self):
        return '<torch._C.Generator object at %#x>' % id(self)


def manual_seed(seed):
    return Dl.manual_seed(int(seed) & _SEED_MASK)


def seed():
    return Dl.default_generator().seed()


def initial_seed():
    return Dl.default_generator().initial_seed()


def get_rng_state():
    return Dl.default_generator().get_state()


def set_rng_state(new_state):
    Dl.default_generator().set_state(new_state)


def _random_creation(c_fn, name):
    def fn(*size, generator=None, dtype=None, device=None, requires_grad=False, out=None,
           layout=None, pin_memory=False):
        return _finish(c_fn(_factory_size(size, name), _dt(dtype), _dl_device(device),
                            _check_generator(generator)), requires_grad)
    fn.__name__ = name
    return fn


_rand = _random_creation(Dl.rand_gen, 'rand')
_randn = _random_creation(Dl.randn_gen, 'randn')
rand = _with_size_kwarg(_rand)
randn = _with_size_kwarg(_randn)


def randint(low, high=None, size=None, *, generator=None, dtype=None, device=None,
            requires_grad=False):
    if size is None:
        low, high, size = 0, low, high
    if size is None:
        raise TypeError("randint() missing required argument 'size'")
    return _finish(Dl.randint_gen(_int_arg(low, 'randint', 'low'),
                                  _int_arg(high, 'randint', 'high'),
                                  _size_args((size,), 'randint'),
                                  _dt(dtype or int64), _dl_device(device),
                                  _check_generator(generator)), requires_grad)


def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False,
             pin_memory=False):
    if _is_tensor(n):
        n = n.item()
    if not isinstance(n, numbers.Integral) or isinstance(n, bool):
        raise TypeError("randperm(): argument 'n' must be int, not %s" % type(n).__name__)
    return _finish(Dl.randperm(_int_arg(n, 'randperm', 'n'), _dt(dtype or int64),
                               _dl_device(device),
                               _check_generator(generator)), requires_grad)


def _uniform_(self, from_=0.0, to=1.0, *, generator=None, **kwargs):
    if 'from' in kwargs:
        from_ = kwargs.pop('from')
    if kwargs:
        raise TypeError('uniform_() got an unexpected keyword argument %r' % next(iter(kwargs)))
    Dl.Tensor.uniform_gen_(self, float(from_), float(to), _check_generator(generator))
    return self


def _normal_(self, mean=0.0, std=1.0, *, generator=None):
    Dl.Tensor.normal_gen_(self, float(mean), float(std), _check_generator(generator))
    return self


def _bernoulli_(self, p=0.5, *, generator=None):
    if _is_tensor(p):
        u = rand(tuple(self.shape), dtype=p.dtype if p.is_floating_point() else float64,
                 generator=generator)
        self.copy_(u < p)
        return self
    Dl.Tensor.bernoulli_(self, float(p), _check_generator(generator))
    return self


def bernoulli(input, p=None, *, generator=None):
    if not input.is_floating_point():
        raise RuntimeError('bernoulli: expected a floating-point tensor of probabilities, '
                           'got %s' % input.dtype)
    out = empty(tuple(input.shape), dtype=input.dtype)
    if p is not None:
        return _bernoulli_(out, p, generator=generator)
    return _bernoulli_(out, input.detach(), generator=generator)


def _t_bernoulli(self, p=None, *, generator=None):
    return bernoulli(self, p, generator=generator)


def normal(mean, std, size=None, *, generator=None, dtype=None, device=None,
           requires_grad=False):
    if _is_tensor(mean) or _is_tensor(std):
        ref = mean if _is_tensor(mean) else std
        z = randn(tuple(ref.shape), dtype=ref.dtype, generator=generator)
        return z * std + mean
    if size is None:
        raise TypeError("normal() missing required argument 'size'")
    t = empty(_size_args((size,), 'normal'), dtype=dtype, device=device)
    return _finish(_normal_(t, mean, std, generator=generator), requires_grad)


def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False, out=None,
             layout=None):
    vals = []
    for v in (start, end):
        if _is_tensor(v):
            v = v.item()
        vals.append(float(v))
    if _is_tensor(steps):
        steps = steps.item()
    if not isinstance(steps, numbers.Integral) or isinstance(steps, bool):
        raise TypeError("linspace(): argument 'steps' must be int, not %s"
                        % type(steps).__name__)
    return _finish(Dl.linspace(vals[0], vals[1], _int_arg(steps, 'linspace', 'steps'), _dt(dtype),
                               _dl_device(device)),
                   requires_grad)


def eye(n, m=None, *, dtype=None, device=None, requires_grad=False, out=None, layout=None,
        pin_memory=False):
    if m is None:
        m = n
    for name, v in (('n', n), ('m', m)):
        if not isinstance(v, numbers.Integral) or isinstance(v, bool):
            raise TypeError("eye(): argument '%s' must be int, not %s" % (name, type(v).__name__))
    return _finish(Dl.eye(_int_arg(n, 'eye', 'n'), _int_arg(m, 'eye', 'm'), _dt(dtype),
                          _dl_device(device)), requires_grad)


def _like(input, make, dtype, device, requires_grad, memory_format, name):
    """The result of a *_like factory: make(dtype, device) (a contiguous
    new tensor) laid out as memory_format says for input (preserve_format:
    input's own layout, as torch's)."""
    fmt = _memory_format(memory_format, name)
    dt = dtype or input.dtype
    # on input's device unless told otherwise, as torch's
    t = make(dt, input.device if device is None else device)
    if (fmt == Dl.MemoryFormat.PRESERVE and device is None
            and input.get_strides() != t.get_strides()):
        laid = Dl.empty_like(input, _dt(dt), fmt)
        if laid.get_strides() != t.get_strides():
            Dl.Tensor.copy_(laid, t)
            t = laid
    return _finish(t, requires_grad)


def _like_fn(fn, name):
    def like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
             memory_format=None):
        return _like(input, lambda dt, dev: fn(tuple(input.shape), dtype=dt, device=dev), dtype,
                     device, requires_grad, memory_format, name)
    like.__name__ = name
    return like


zeros_like = _like_fn(_zeros, 'zeros_like')
ones_like = _like_fn(_ones, 'ones_like')
empty_like = _like_fn(_empty, 'empty_like')
rand_like = _like_fn(_rand, 'rand_like')
randn_like = _like_fn(_randn, 'randn_like')


def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    return _like(input, lambda dt, dev: full(input.shape, fill_value, dtype=dt, device=dev),
                 dtype, device, requires_grad, memory_format, 'full_like')


def randint_like(input, low=0, high=None, *, dtype=None, layout=None, device=None,
                 requires_grad=False, memory_format=None):
    if high is None:
        low, high = 0, low
    return _like(input, lambda dt, dev: randint(low, high, tuple(input.shape), dtype=dt,
                                                device=dev),
                 dtype, device, requires_grad, memory_format, 'randint_like')


def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    if not isinstance(num_samples, numbers.Integral) or isinstance(num_samples, bool):
        raise TypeError("multinomial(): argument 'num_samples' must be int, not %s"
                        % type(num_samples).__name__)
    return Dl.multinomial(input, _int_arg(num_samples, 'multinomial', 'num_samples'),
                          bool(replacement),
                          _check_generator(generator))


def _t_multinomial(self, num_samples, replacement=False, *, generator=None):
    return multinomial(self, num_samples, replacement, generator=generator)


_RANDOM_TOP = {'float32': 2 ** 24, 'float64': 2 ** 53, 'float16': 2 ** 11, 'bfloat16': 2 ** 8,
               'int32': 2 ** 31 - 1, 'int64': 2 ** 63 - 1, 'uint8': 2 ** 8 - 1, 'bool': 1}


def _random_(self, from_=None, to=None, *, generator=None, **kwargs):
    """Tensor.random_([from,] to): integers uniform in [from, to); with no
    bounds, [0, 2^mantissa] for floats and [0, max] for integers; with
    `from` and to=None, [from, that top]. A CPU generator draws torch's
    numbers."""
    from_keyword = 'from' in kwargs
    if from_keyword:
        from_ = kwargs.pop('from')
    if kwargs:
        raise TypeError('random_() got an unexpected keyword argument %r' % next(iter(kwargs)))
    gen = _check_generator(generator)
    if from_ is None and to is None:
        Dl.Tensor.random_(self, gen)
        return self
    if to is None and not from_keyword:
        low, high = 0, from_  # random_(to): [0, to)
    else:
        low, high = from_, to
    if high is None:
        high = _RANDOM_TOP[self.dtype.name] + 1
        if high > 2 ** 63 - 1:
            raise RuntimeError('random_: from=%d to the top of int64 is not supported' % low)
    Dl.Tensor.random_range_(self, int(low), int(high), gen)
    return self


# ---- matrix products ------------------------------------------------------

def _matrix_op(c_fn, name):
    def op(input, other):
        if not _is_tensor(other):
            raise TypeError('%s(): argument \'%s\' must be Tensor, not %s'
                            % (name, 'mat2' if name in ('mm', 'bmm') else 'tensor',
                               type(other).__name__))
        return c_fn(input, other)
    op.__name__ = name
    return op


mm = _matrix_op(Dl.Tensor.mm, 'mm')
bmm = _matrix_op(Dl.Tensor.bmm, 'bmm')
dot = _matrix_op(Dl.Tensor.dot, 'dot')
outer = _matrix_op(Dl.Tensor.outer, 'outer')
ger = outer
vdot = dot


def einsum(equation, *operands):
    if not isinstance(equation, str):
        raise TypeError('einsum(): argument \'equation\' must be str, not %s'
                        % type(equation).__name__)
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = operands[0]
    for t in operands:
        if not _is_tensor(t):
            raise TypeError('einsum(): operands must be tensors, got %s' % type(t).__name__)
    return Dl.einsum(equation, list(operands))


def mv(input, vec):
    return Dl.Tensor.mv(input, vec)


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    return Dl.Tensor.addmm(input, mat1, mat2, float(beta), float(alpha))


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    return Dl.Tensor.baddbmm(input, batch1, batch2, float(beta), float(alpha))


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    return Dl.Tensor.addbmm(input, batch1, batch2, float(beta), float(alpha))


def addmv(input, mat, vec, *, beta=1, alpha=1):
    return Dl.Tensor.addmv(input, mat, vec, float(beta), float(alpha))


def addr(input, vec1, vec2, *, beta=1, alpha=1):
    return Dl.Tensor.addr(input, vec1, vec2, float(beta), float(alpha))


def tensordot(a, b, dims=2, out=None):
    if _is_tensor(dims):
        dims = dims.tolist()
    if isinstance(dims, numbers.Integral):
        if dims < 0:
            raise RuntimeError('tensordot expects dims >= 0, but got dims=%d' % dims)
        if dims > a.dim() or dims > b.dim():
            raise RuntimeError('tensordot expects dims < ndim_a or ndim_b, but got dims=%d'
                               % dims)
        da = list(range(a.dim() - dims, a.dim()))
        db = list(range(dims))
    else:
        if len(dims) != 2:
            raise RuntimeError('tensordot expects dims to be a pair of lists')
        da, db = dims
        da = [da] if isinstance(da, numbers.Integral) else list(da)
        db = [db] if isinstance(db, numbers.Integral) else list(db)
    return _checked(Dl.Tensor.tensordot)(a, b, [int(d) for d in da], [int(d) for d in db])


def inner(input, other):
    if input.dim() == 0 or other.dim() == 0:
        return input * other
    return tensordot(input, other, ([-1], [-1]))
