# modules.py: Module, Linear, and the layers, activations, containers and
# losses written in Python.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from collections import OrderedDict, namedtuple

from gi.repository import GLib

from .._dtype import _dl_device, device
from .._lib import OVERRIDE_MODULE, Dl, _is_tensor, _translate, typelib_override
from . import functional as F

__all__ = ['Module', 'Linear', 'ReLU', 'LeakyReLU', 'Sigmoid', 'Tanh', 'GELU', 'SiLU', 'Identity',
           'Flatten', 'LogSoftmax', 'Softmax', 'Sequential', 'CrossEntropyLoss', 'NLLLoss',
           'MSELoss', 'L1Loss', 'SmoothL1Loss', 'HuberLoss', 'BCELoss', 'BCEWithLogitsLoss',
           'KLDivLoss']


def _forward_vfunc(self, input):
    """Module.forward called from C (dl_module_forward): the Python forward."""
    return self.forward(input)


def _forward_many_vfunc(self, inputs):
    """Module.forward_many called from C (a container or a loss handing a
    Python module several inputs): the Python forward, its outputs as a
    list."""
    out = self.forward(*inputs)
    return list(out) if isinstance(out, (tuple, list)) else [out]


def _construct(obj, typelib_class, **properties):
    """Makes the GObject of @obj (of its own GType, so a Python subclass's)
    from construct properties, then runs GInitable's check, which turns a
    bad value into the error PyTorch raises."""
    typelib_class.__init__(obj, **properties)
    try:
        obj.init(None)
    except GLib.Error as e:
        raise _translate_construct(e) from None


def _translate_construct(e):
    if e.domain == 'dl-error-quark' and e.code == int(Dl.Error.NOT_SUPPORTED):
        return NotImplementedError(e.message)
    if e.domain == 'dl-error-quark' and e.code == int(Dl.Error.ARGUMENT):
        return ValueError(e.message)
    return _translate(e)


class _IncompatibleKeys(namedtuple('IncompatibleKeys', ['missing_keys', 'unexpected_keys'])):
    """What load_state_dict returns, as PyTorch's."""

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return '<All keys matched successfully>'
        return super().__repr__()

    __str__ = __repr__


@typelib_override(__name__)
class Module(Dl.Module):
    """torch.nn.Module: subclass it, assign layers and Parameters as
    attributes in __init__, define forward, call the module."""
    __module__ = OVERRIDE_MODULE

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # PyGObject hooks vfuncs from each class's own namespace, so every
        # Python subclass gets the bridge from C's forward to its forward.
        # (Not for the classes that override a typelib class, whose C
        # forward stays theirs: their Python forward adds checks only.)
        if ('forward' in cls.__dict__ and 'do_forward' not in cls.__dict__
                and cls.__dict__.get('__module__') != OVERRIDE_MODULE):
            cls.do_forward = _forward_vfunc
            cls.do_forward_many = _forward_many_vfunc

    def __setattr__(self, name, value):
        try:
            is_buffer = Dl.Module.has_buffer(self, name)
        except RuntimeError:  # the GObject does not exist yet (before _construct)
            is_buffer = False
        if is_buffer:
            if value is not None and not _is_tensor(value):
                raise TypeError("cannot assign '%s' as buffer '%s' (torch.Tensor or None "
                                "expected)" % (type(value).__name__, name))
            self.register_buffer(name, value, self._buffer_persistent(name))
            return
        if isinstance(value, Dl.Module):
            self.register_module(name, value)
        elif _is_tensor(value) and value.get_requires_grad() and Dl.Tensor.is_leaf(value):
            self.register_parameter(name, value)
        elif value is None and self.get_parameter(name) is not None:
            self.register_parameter(name, None)
        super().__setattr__(name, value)

    def __getattr__(self, name):
        if name.startswith('__'):
            raise AttributeError(name)
        p = Dl.Module.get_parameter(self, name)
        if p is not None:
            return p
        m = Dl.Module.get_module(self, name)
        if m is not None:
            return m
        if Dl.Module.has_buffer(self, name):
            return Dl.Module.get_buffer(self, name)
        raise AttributeError("'%s' object has no attribute '%s'" % (type(self).__name__, name))

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    def forward(self, *args, **kwargs):
        """The C forward of the module: of its class when libdl implements
        it (Linear, ReLU, ...), or of the libdl class a Python subclass
        derives from, for its super().forward(); one input goes to
        forward, several (a loss's) to forward_many."""
        if kwargs:
            raise TypeError('%s.forward() takes no keyword arguments' % type(self).__name__)
        try:
            if type(self).do_forward is not _forward_vfunc:
                if len(args) == 1:
                    return Dl.Module.forward(self, args[0])
                out = Dl.Module.forward_many(self, list(args))
            else:
                # a Python subclass: chain up to the C class below it
                impl = next((c for c in type(self).__mro__
                             if c.__module__ == 'gi.repository.Dl'), Dl.Module)
                if impl is Dl.Module:
                    raise NotImplementedError('Module [%s] is missing the required "forward" '
                                              'function' % type(self).__name__)
                if len(args) == 1:
                    return impl.do_forward(self, args[0])
                out = impl.do_forward_many(self, list(args))
        except GLib.Error as e:
            raise _translate(e) from None
        return out[0] if len(out) == 1 else tuple(out)

    def parameters(self, recurse=True):
        return iter(Dl.Module.parameters(self))

    def named_parameters(self, prefix='', recurse=True):
        names = self.parameter_names()
        params = Dl.Module.parameters(self)
        return iter([(prefix + ('.' if prefix else '') + n, p) for n, p in zip(names, params)])

    def state_dict(self, *args, destination=None, prefix='', keep_vars=False):
        """The parameters by dotted name, detached (keep_vars=False), in an
        OrderedDict, as PyTorch's."""
        if args:  # PyTorch's deprecated positional form
            destination = args[0]
            prefix = args[1] if len(args) > 1 else prefix
            keep_vars = args[2] if len(args) > 2 else keep_vars
        if destination is None:
            destination = OrderedDict()
        if keep_vars:
            for name, p in zip(self.parameter_names(), Dl.Module.parameters(self)):
                destination[prefix + name] = p
        else:
            state = Dl.Module.state_dict(self)
            for name in state.get_names():
                destination[prefix + name] = state.lookup(name)
        return destination

    def load_state_dict(self, state_dict, strict=True):
        """Copies @state_dict's tensors into the parameters; with @strict
        the names must match. Returns (missing_keys, unexpected_keys)."""
        from ..serialization import _tensor_dict
        try:
            _, missing, unexpected = Dl.Module.load_state_dict(self, _tensor_dict(state_dict),
                                                               bool(strict))
        except GLib.Error as e:
            message = e.message
            if message.startswith('Error(s) in loading state_dict for '):
                message = ('Error(s) in loading state_dict for %s:%s'
                           % (type(self).__name__, message.split(':', 1)[1]))
            raise RuntimeError(message) from None
        return _IncompatibleKeys(list(missing), list(unexpected))

    def register_buffer(self, name, tensor, persistent=True):
        """torch.nn.Module.register_buffer: module state that is not a
        parameter (persistent buffers are in the state dict)."""
        if not isinstance(name, str):
            raise TypeError('buffer name should be a string. Got %s' % type(name).__name__)
        if '.' in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == '':
            raise KeyError('buffer name can\'t be empty string ""')
        if tensor is not None and not _is_tensor(tensor):
            raise TypeError("cannot assign '%s' object to buffer '%s' (torch Tensor or None "
                            "required)" % (type(tensor).__name__, name))
        if not persistent:
            self.__dict__.setdefault('_non_persistent_buffers', set()).add(name)
        else:
            self.__dict__.get('_non_persistent_buffers', set()).discard(name)
        Dl.Module.register_buffer(self, name, tensor, bool(persistent))

    def _buffer_persistent(self, name):
        return name not in self.__dict__.get('_non_persistent_buffers', set())

    def buffers(self, recurse=True):
        return iter(Dl.Module.buffers(self))

    def named_buffers(self, prefix='', recurse=True):
        names = Dl.Module.buffer_names(self)
        bufs = Dl.Module.buffers(self)
        return iter([(prefix + ('.' if prefix else '') + n, b) for n, b in zip(names, bufs)])

    def children(self):
        return iter(Dl.Module.children(self))

    def named_children(self):
        return iter(list(zip(self.children_names(), Dl.Module.children(self))))

    def modules(self):
        yield self
        for c in self.children():
            yield from c.modules()

    def add_module(self, name, module):
        self.register_module(name, module)
        super().__setattr__(name, module)

    def train(self, mode=True):
        self.set_training(bool(mode))
        return self

    def eval(self):
        return self.train(False)

    @property
    def training(self):
        return self.get_training()


    def zero_grad(self, set_to_none=True):
        for p in self.parameters():
            if set_to_none:
                p.grad = None
            elif p.grad is not None:
                p.grad.zero_()

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def apply(self, fn):
        for c in self.children():
            c.apply(fn)
        fn(self)
        return self

    def to(self, *args, **kwargs):
        for a in list(args) + list(kwargs.values()):
            if isinstance(a, (str, device)):
                _dl_device(a)
        return self

    def __repr__(self):
        lines = [type(self).__name__ + '(']
        for name, child in self.named_children():
            body = repr(child).replace('\n', '\n  ')
            lines.append('  (%s): %s' % (name, body))
        if len(lines) == 1:
            return type(self).__name__ + '(' + self.extra_repr() + ')'
        return '\n'.join(lines) + '\n)'

    def extra_repr(self):
        return ''

    def __reduce_ex__(self, protocol):
        # A module pickles as its class (by reference), what libdl holds for
        # it and its Python attributes; unpickling makes the object without
        # calling __init__, as PyTorch's does.
        return (_rebuild_module, (type(self),) + _module_state(self) + (self.__dict__,))


# Dl.Linear is the typelib's class, made before Module overrides DlModule,
# so its base is the typelib's Module: Module is named as a base here too,
# which puts the Python methods of Module after DlLinear's own, as they are
# for every class made after the override.
@typelib_override(__name__)
class Linear(Dl.Linear, Module):
    """torch.nn.Linear(in_features, out_features, bias=True)."""
    __module__ = OVERRIDE_MODULE

    _properties = ('in_features', 'out_features', 'bias')

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        _construct(self, Dl.Linear, in_features=int(in_features),
                   out_features=int(out_features), bias=bool(bias))

    @property
    def weight(self):
        return self.get_parameter('weight')

    @property
    def bias(self):
        return self.get_parameter('bias')

    @property
    def in_features(self):
        return self.get_in_features()

    @property
    def out_features(self):
        return self.get_out_features()



    def extra_repr(self):
        return 'in_features=%d, out_features=%d, bias=%s' % (
            self.get_in_features(), self.get_out_features(), self.get_parameter('bias') is not None)

    def __reduce_ex__(self, protocol):
        return _reduce_layer(self)


# ---- pickling --------------------------------------------------------------

def _module_state(m):
    """What libdl holds for a module: its own parameters and its children,
    in the order they were registered, and the training flag."""
    params = [(name, Dl.Module.get_parameter(m, name)) for name in m.parameter_names()
              if '.' not in name]
    children = list(zip(m.children_names(), Dl.Module.children(m)))
    return params, children, m.get_training()


def _restore(m, params, children, training, attributes):
    for name, p in params:
        m.register_parameter(name, p)
    for name, child in children:
        m.register_module(name, child)
    m.set_training(training)
    m.__dict__.update(attributes)
    return m


def _rebuild_module(cls, params, children, training, attributes):
    """A module from what Module.__reduce_ex__ saved."""
    m = cls.__new__(cls)
    Dl.Module.__init__(m)  # the GObject (of cls's GType), without cls.__init__
    return _restore(m, params, children, training, attributes)


def _reduce_layer(m):
    """A module libdl implements pickles as its class, its construct
    properties (what libdl rebuilds it from), its parameters and children
    (the objects themselves, so that what else was pickled with them still
    shares them) and its Python attributes."""
    typelib_class = next(c for c in type(m).__mro__ if c.__module__ == 'gi.repository.Dl')
    properties = {name: m.get_property(name) for name in m._properties}
    return (_rebuild_layer, (type(m), typelib_class.__name__, properties) + _module_state(m)
            + (m.__dict__,))


def _rebuild_layer(cls, typelib_name, properties, params, children, training, attributes):
    m = cls.__new__(cls)
    _construct(m, getattr(Dl, typelib_name), **properties)
    return _restore(m, params, children, training, attributes)


# ---- the layers libdl implements -------------------------------------------
# Each is the C class (usable from C, GJS and Vala alike) with PyTorch's
# constructor, attributes and printed form added; _properties names its
# construct properties, which its pickle keeps.

class _Layer:
    _properties = ()

    def __getattr__(self, name):
        # PyTorch's attribute for each construct property (m.inplace, m.dim)
        if name in type(self)._properties:
            return self.get_property(name)
        return super().__getattr__(name)

    def __reduce_ex__(self, protocol):
        return _reduce_layer(self)


@typelib_override(__name__)
class ReLU(_Layer, Dl.Relu, Module):
    """torch.nn.ReLU(inplace=False)."""
    __module__ = OVERRIDE_MODULE
    _properties = ('inplace',)

    def __init__(self, inplace=False):
        _construct(self, Dl.Relu, inplace=bool(inplace))


    def extra_repr(self):
        return 'inplace=True' if self.inplace else ''


@typelib_override(__name__)
class LeakyReLU(_Layer, Dl.LeakyRelu, Module):
    """torch.nn.LeakyReLU(negative_slope=0.01, inplace=False)."""
    __module__ = OVERRIDE_MODULE
    _properties = ('negative_slope', 'inplace')

    def __init__(self, negative_slope=0.01, inplace=False):
        _construct(self, Dl.LeakyRelu, negative_slope=float(negative_slope),
                   inplace=bool(inplace))

    def extra_repr(self):
        return 'negative_slope={}{}'.format(self.negative_slope,
                                            ', inplace=True' if self.inplace else '')


@typelib_override(__name__)
class GELU(_Layer, Dl.Gelu, Module):
    """torch.nn.GELU(approximate='none')."""
    __module__ = OVERRIDE_MODULE
    _properties = ('approximate',)

    def __init__(self, approximate='none'):
        if approximate not in ('none', 'tanh'):
            raise RuntimeError("approximate argument must be either none or tanh.")
        _construct(self, Dl.Gelu, approximate=approximate)


    def extra_repr(self):
        return 'approximate=%r' % self.approximate


@typelib_override(__name__)
class SiLU(_Layer, Dl.Silu, Module):
    """torch.nn.SiLU(inplace=False)."""
    __module__ = OVERRIDE_MODULE
    _properties = ('inplace',)

    def __init__(self, inplace=False):
        _construct(self, Dl.Silu, inplace=bool(inplace))


    def extra_repr(self):
        return 'inplace=True' if self.inplace else ''


@typelib_override(__name__)
class Sigmoid(_Layer, Dl.Sigmoid, Module):
    """torch.nn.Sigmoid()."""
    __module__ = OVERRIDE_MODULE

    def __init__(self):
        _construct(self, Dl.Sigmoid)


@typelib_override(__name__)
class Tanh(_Layer, Dl.Tanh, Module):
    """torch.nn.Tanh()."""
    __module__ = OVERRIDE_MODULE

    def __init__(self):
        _construct(self, Dl.Tanh)


@typelib_override(__name__)
class Identity(_Layer, Dl.Identity, Module):
    """torch.nn.Identity(*args, **kwargs): its arguments are ignored."""
    __module__ = OVERRIDE_MODULE

    def __init__(self, *args, **kwargs):
        _construct(self, Dl.Identity)


@typelib_override(__name__)
class Flatten(_Layer, Dl.Flatten, Module):
    """torch.nn.Flatten(start_dim=1, end_dim=-1)."""
    __module__ = OVERRIDE_MODULE
    _properties = ('start_dim', 'end_dim')

    def __init__(self, start_dim=1, end_dim=-1):
        _construct(self, Dl.Flatten, start_dim=int(start_dim), end_dim=int(end_dim))



    def extra_repr(self):
        return 'start_dim=%d, end_dim=%d' % (self.start_dim, self.end_dim)


def _softmax_dim(cls, dim):
    if dim is None:
        raise TypeError('%s: give dim explicitly (PyTorch\'s implicit choice of dim is '
                        'deprecated, and libdl does not make it)' % cls)
    return int(dim)


@typelib_override(__name__)
class Softmax(_Layer, Dl.Softmax, Module):
    """torch.nn.Softmax(dim)."""
    __module__ = OVERRIDE_MODULE
    _properties = ('dim',)

    def __init__(self, dim=None):
        _construct(self, Dl.Softmax, dim=_softmax_dim('Softmax', dim))


    def extra_repr(self):
        return 'dim=%d' % self.dim


@typelib_override(__name__)
class LogSoftmax(_Layer, Dl.LogSoftmax, Module):
    """torch.nn.LogSoftmax(dim)."""
    __module__ = OVERRIDE_MODULE
    _properties = ('dim',)

    def __init__(self, dim=None):
        _construct(self, Dl.LogSoftmax, dim=_softmax_dim('LogSoftmax', dim))


    def extra_repr(self):
        return 'dim=%d' % self.dim


@typelib_override(__name__)
class Sequential(_Layer, Dl.Sequential, Module):
    """torch.nn.Sequential(*modules) or Sequential(OrderedDict): runs its
    children in order (in C: the chain is DlSequential's forward)."""
    __module__ = OVERRIDE_MODULE

    def __init__(self, *args):
        _construct(self, Dl.Sequential)
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, module in args[0].items():
                self.add_module(name, module)
        else:
            for module in args:
                self.append(module)

    def append(self, module):
        Dl.Sequential.append(self, module)
        super(Module, self).__setattr__(str(len(self) - 1), module)
        return self

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(OrderedDict(list(self.named_children())[idx]))
        try:
            return self.get(idx)
        except GLib.Error as e:
            raise _translate(e) from None

    def __len__(self):
        return self.get_length()

    def __iter__(self):
        return self.children()


_REDUCTION_NAMES = {int(Dl.Reduction.NONE): 'none', int(Dl.Reduction.MEAN): 'mean',
                    int(Dl.Reduction.SUM): 'sum', int(Dl.Reduction.BATCHMEAN): 'batchmean'}


class _Loss(_Layer):
    """What the losses share: their reduction as PyTorch's string, their
    options as attributes, forward(input, target) through the C class's
    forward_many after the checks PyTorch makes in Python, and an empty
    extra_repr (PyTorch prints none)."""
    _check = None

    def __getattr__(self, name):
        if name == 'reduction':
            return _REDUCTION_NAMES[int(self.get_property('reduction'))]
        return super().__getattr__(name)

    def _build(self, typelib_class, size_average, reduce, reduction, batchmean=False,
               **options):
        r = F._reduction_enum(size_average, reduce, reduction, batchmean)
        _construct(self, typelib_class, reduction=r,
                   **{k: v for k, v in options.items() if v is not None})

    def forward(self, input, target):
        type(self)._check(input, target)
        return Module.forward(self, input, target)

    def extra_repr(self):
        return ''


@typelib_override(__name__)
class CrossEntropyLoss(_Loss, Dl.CrossEntropyLoss, Module):
    """torch.nn.CrossEntropyLoss(weight=None, size_average=None,
    ignore_index=-100, reduce=None, reduction='mean', label_smoothing=0.0)."""
    __module__ = OVERRIDE_MODULE
    _properties = ('reduction', 'weight', 'ignore_index', 'label_smoothing')
    _check = staticmethod(F._check_batch)

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction='mean', label_smoothing=0.0):
        self._build(Dl.CrossEntropyLoss, size_average, reduce, reduction, weight=weight,
                    ignore_index=int(ignore_index), label_smoothing=float(label_smoothing))


@typelib_override(__name__)
class NLLLoss(_Loss, Dl.NllLoss, Module):
    """torch.nn.NLLLoss(weight=None, size_average=None, ignore_index=-100,
    reduce=None, reduction='mean')."""
    __module__ = OVERRIDE_MODULE
    _properties = ('reduction', 'weight', 'ignore_index')
    _check = staticmethod(F._check_batch)

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction='mean'):
        self._build(Dl.NllLoss, size_average, reduce, reduction, weight=weight,
                    ignore_index=int(ignore_index))


@typelib_override(__name__)
class MSELoss(_Loss, Dl.MseLoss, Module):
    """torch.nn.MSELoss(size_average=None, reduce=None, reduction='mean')."""
    __module__ = OVERRIDE_MODULE
    _properties = ('reduction',)
    _check = staticmethod(F._warn_size)

    def __init__(self, size_average=None, reduce=None, reduction='mean'):
        self._build(Dl.MseLoss, size_average, reduce, reduction)


@typelib_override(__name__)
class L1Loss(_Loss, Dl.L1Loss, Module):
    """torch.nn.L1Loss(size_average=None, reduce=None, reduction='mean')."""
    __module__ = OVERRIDE_MODULE
    _properties = ('reduction',)
    _check = staticmethod(F._warn_size)

    def __init__(self, size_average=None, reduce=None, reduction='mean'):
        self._build(Dl.L1Loss, size_average, reduce, reduction)


@typelib_override(__name__)
class SmoothL1Loss(_Loss, Dl.SmoothL1Loss, Module):
    """torch.nn.SmoothL1Loss(size_average=None, reduce=None,
    reduction='mean', beta=1.0)."""
    __module__ = OVERRIDE_MODULE
    _properties = ('reduction', 'beta')
    _check = staticmethod(F._warn_size)

    def __init__(self, size_average=None, reduce=None, reduction='mean', beta=1.0):
        self._build(Dl.SmoothL1Loss, size_average, reduce, reduction, beta=float(beta))


@typelib_override(__name__)
class HuberLoss(_Loss, Dl.HuberLoss, Module):
    """torch.nn.HuberLoss(reduction='mean', delta=1.0)."""
    __module__ = OVERRIDE_MODULE
    _properties = ('reduction', 'delta')
    _check = staticmethod(F._warn_size)

    def __init__(self, reduction='mean', delta=1.0):
        self._build(Dl.HuberLoss, None, None, reduction, delta=float(delta))


@typelib_override(__name__)
class BCELoss(_Loss, Dl.BceLoss, Module):
    """torch.nn.BCELoss(weight=None, size_average=None, reduce=None,
    reduction='mean')."""
    __module__ = OVERRIDE_MODULE
    _properties = ('reduction', 'weight')
    _check = staticmethod(F._bce_check)

    def __init__(self, weight=None, size_average=None, reduce=None, reduction='mean'):
        self._build(Dl.BceLoss, size_average, reduce, reduction, weight=weight)


@typelib_override(__name__)
class BCEWithLogitsLoss(_Loss, Dl.BceWithLogitsLoss, Module):
    """torch.nn.BCEWithLogitsLoss(weight=None, size_average=None,
    reduce=None, reduction='mean', pos_weight=None)."""
    __module__ = OVERRIDE_MODULE
    _properties = ('reduction', 'weight', 'pos_weight')
    _check = staticmethod(F._bce_logits_check)

    def __init__(self, weight=None, size_average=None, reduce=None, reduction='mean',
                 pos_weight=None):
        self._build(Dl.BceWithLogitsLoss, size_average, reduce, reduction, weight=weight,
                    pos_weight=pos_weight)


@typelib_override(__name__)
class KLDivLoss(_Loss, Dl.KlDivLoss, Module):
    """torch.nn.KLDivLoss(size_average=None, reduce=None, reduction='mean',
    log_target=False)."""
    __module__ = OVERRIDE_MODULE
    _properties = ('reduction', 'log_target')

    def __init__(self, size_average=None, reduce=None, reduction='mean', log_target=False):
        self._build(Dl.KlDivLoss, size_average, reduce, reduction, batchmean=True,
                    log_target=bool(log_target))

    def forward(self, input, target):
        if self.reduction == 'mean':
            F._kl_div_mean_warning()
        return Module.forward(self, input, target)
