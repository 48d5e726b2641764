# exp_family.py: torch.distributions.ExponentialFamily, the base of the
# exponential-family distributions (a marker class here: each subclass
# gives its entropy in closed form).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from .distribution import Distribution

__all__ = ['ExponentialFamily']


class ExponentialFamily(Distribution):
    """Distributions of the form exp(<t(x), theta> - F(theta) + k(x))."""

    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError
