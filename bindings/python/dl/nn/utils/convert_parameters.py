# convert_parameters.py: dl.nn.utils.convert_parameters
# (torch.nn.utils.convert_parameters), the module PyTorch's
# parameters_to_vector and vector_to_parameters live in; they are
# dl.nn.utils's.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from . import parameters_to_vector, vector_to_parameters

__all__ = ['parameters_to_vector', 'vector_to_parameters']
