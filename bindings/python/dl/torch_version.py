# torch_version.py: torch.torch_version.TorchVersion, the string class of
# torch.__version__, which compares as a version with strings
# (dl.__version__ >= '0.1'), tuples of numbers ((0, 1) is 0.1) and
# packaging's Version; a side that is not a version ('parrot') makes it
# compare as a plain string. != and hashing stay str's, as torch's do.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from collections.abc import Iterable

from .version import __version__ as internal_version

__all__ = ['TorchVersion']


def _version_class():
    """packaging's Version and InvalidVersion, imported on first use (as
    torch does: importing torch does not import packaging)."""
    from packaging import version
    return version.Version, version.InvalidVersion


def _as_version(value, version_class):
    if isinstance(value, version_class):
        return value
    if not isinstance(value, str) and isinstance(value, Iterable):
        value = '.'.join(map(str, value))
    elif not isinstance(value, str):
        raise TypeError
    return version_class(value)


def _comparison(name):
    as_str = getattr(str, name)

    def compare(self, other):
        version_class, invalid = _version_class()
        try:
            mine, theirs = version_class(self), _as_version(other, version_class)
        except (invalid, TypeError):
            return as_str(self, other)
        return getattr(mine, name)(theirs)
    compare.__name__ = name
    return compare


class TorchVersion(str):
    """A str that compares as a version (see the module's comment)."""

    __hash__ = str.__hash__
    __eq__ = _comparison('__eq__')
    __lt__ = _comparison('__lt__')
    __le__ = _comparison('__le__')
    __gt__ = _comparison('__gt__')
    __ge__ = _comparison('__ge__')


__version__ = TorchVersion(internal_version)
