# torch.distributions over libdl's ops: parameters, samplers (libdl's
# generators and C samplers), log densities, entropies and KL divergences
# with torch 1.13's formulas, so that gradients come from libdl's autograd.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from . import constraints, transforms
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .chi2 import Chi2
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gamma import Gamma
from .geometric import Geometric
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .log_normal import LogNormal
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .poisson import Poisson
from .studentT import StudentT
from .transformed_distribution import TransformedDistribution
from .transforms import (AffineTransform, ComposeTransform, ExpTransform, IndependentTransform,
                         PowerTransform, SigmoidTransform, TanhTransform, Transform)
from .uniform import Uniform

__all__ = ['AffineTransform', 'Bernoulli', 'Beta', 'Binomial', 'Categorical', 'Cauchy', 'Chi2',
           'ComposeTransform', 'Dirichlet', 'Distribution', 'ExpTransform', 'Exponential',
           'ExponentialFamily', 'Gamma', 'Geometric', 'Independent', 'IndependentTransform',
           'Laplace', 'LogNormal', 'MultivariateNormal', 'Normal', 'OneHotCategorical',
           'Poisson', 'PowerTransform', 'SigmoidTransform', 'StudentT', 'TanhTransform',
           'Transform', 'TransformedDistribution', 'Uniform', 'constraints', 'kl_divergence',
           'register_kl', 'transforms']
