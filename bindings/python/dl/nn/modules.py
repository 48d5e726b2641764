# modules.py: Module, Linear, and the layers, activations, containers and
# losses written in Python.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from .._dtype import _dl_device, device
from .._lib import OVERRIDE_MODULE, Dl, _is_tensor, typelib_override
from . import functional as F

__all__ = ['Module', 'Linear', 'ReLU', 'Sigmoid', 'Tanh', 'GELU', 'SiLU', 'Identity', 'Flatten',
           'LogSoftmax', 'Softmax', 'Sequential', 'CrossEntropyLoss', 'NLLLoss']


def _forward_vfunc(self, input):
    """Module.forward called from C (dl_module_forward): the Python forward."""
    return self.forward(input)


@typelib_override(__name__)
class Module(Dl.Module):
    """torch.nn.Module: subclass it, assign layers and Parameters as
    attributes in __init__, define forward, call the module."""
    __module__ = OVERRIDE_MODULE

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # PyGObject hooks vfuncs from each class's own namespace, so every
        # Python subclass gets the bridge from C's forward to its forward.
        if 'forward' in cls.__dict__ and 'do_forward' not in cls.__dict__:
            cls.do_forward = _forward_vfunc

    def __setattr__(self, name, value):
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
        raise AttributeError("'%s' object has no attribute '%s'" % (type(self).__name__, name))

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    def forward(self, *args, **kwargs):
        if type(self).do_forward is _forward_vfunc:
            raise NotImplementedError('Module [%s] is missing the required "forward" function'
                                      % type(self).__name__)
        return Dl.Module.forward(self, *args, **kwargs)

    def parameters(self, recurse=True):
        return iter(Dl.Module.parameters(self))

    def named_parameters(self, prefix='', recurse=True):
        names = self.parameter_names()
        params = Dl.Module.parameters(self)
        return iter([(prefix + ('.' if prefix else '') + n, p) for n, p in zip(names, params)])

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

    def __new__(cls, in_features, out_features, bias=True, device=None, dtype=None):
        return Dl.Linear.new(int(in_features), int(out_features), bool(bias))

    def __init__(self, *args, **kwargs):
        pass

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
        return (_rebuild_linear, (type(self), self.get_in_features(), self.get_out_features())
                + _module_state(self) + (self.__dict__,))


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


def _rebuild_linear(cls, in_features, out_features, params, children, training, attributes):
    """A Linear from what Linear.__reduce_ex__ saved: made by libdl, then
    given the saved parameters (the objects themselves, so that what else
    was pickled with them still shares them)."""
    m = cls(in_features, out_features, bias=any(name == 'bias' for name, _ in params))
    return _restore(m, params, children, training, attributes)


class ReLU(Module):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return input.relu_() if self.inplace else input.relu()


class Sigmoid(Module):
    def forward(self, input):
        return input.sigmoid()


class Tanh(Module):
    def forward(self, input):
        return input.tanh()


class Identity(Module):
    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Flatten(Module):
    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)


class LogSoftmax(Module):
    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return input.log_softmax(self.dim)


class Softmax(Module):
    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return input.softmax(self.dim)


class Sequential(Module):
    def __init__(self, *modules):
        super().__init__()
        for i, m in enumerate(modules):
            self.add_module(str(i), m)

    def forward(self, input):
        for m in self.children():
            input = m(input)
        return input

    def __getitem__(self, i):
        return list(self.children())[i]

    def __len__(self):
        return len(list(self.children()))


class CrossEntropyLoss(Module):
    def __init__(self, weight=None, ignore_index=-100, reduction='mean',
                 label_smoothing=0.0):
        super().__init__()
        self._args = dict(weight=weight, ignore_index=ignore_index, reduction=reduction,
                          label_smoothing=label_smoothing)

    def forward(self, input, target):
        return F.cross_entropy(input, target, **self._args)


class NLLLoss(Module):
    def __init__(self, weight=None, ignore_index=-100, reduction='mean'):
        super().__init__()
        self._args = dict(weight=weight, ignore_index=ignore_index, reduction=reduction)

    def forward(self, input, target):
        return F.nll_loss(input, target, **self._args)


class GELU(Module):
    def __init__(self, approximate='none'):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, self.approximate)


class SiLU(Module):
    def __init__(self, inplace=False):
        super().__init__()

    def forward(self, input):
        return Dl.Tensor.silu(input)
