# dl.nn.modules.rnn (torch.nn.modules.rnn): the recurrent layers and cells.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from ..rnn import GRU, GRUCell, LSTM, LSTMCell, RNN, RNNBase, RNNCell
from . import _home

__all__ = ['RNNBase', 'RNN', 'LSTM', 'GRU', 'RNNCell', 'LSTMCell', 'GRUCell']

_home(__name__)
