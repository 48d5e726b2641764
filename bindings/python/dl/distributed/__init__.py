# dl.distributed (torch.distributed): process groups and their collectives
# over libdl's engines (MPI, Gloo), which live in C (DlProcessGroup); this
# module keeps torch's names, keyword arguments and return values, the
# default group, and the mapping between global and group ranks.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Launch: `mpirun -np N python3 train.py` with backend 'mpi' (ranks come
# from MPI), or `python3 -m dl.distributed.run --nproc-per-node N train.py`
# with an env:// engine such as 'gloo' (ranks from RANK and WORLD_SIZE);
# see docs/distributed.md.

import datetime

from .._lib import Dl

__all__ = ['Backend', 'GroupMember', 'ProcessGroup', 'ReduceOp', 'Work', 'all_gather',
           'all_gather_into_tensor', 'all_gather_object', 'all_reduce', 'all_to_all',
           'all_to_all_single', 'barrier', 'broadcast', 'broadcast_object_list',
           'default_pg_timeout', 'destroy_process_group', 'gather', 'get_backend',
           'get_global_rank', 'get_group_rank', 'get_process_group_ranks', 'get_rank',
           'get_world_size', 'group', 'init_process_group', 'irecv', 'is_available',
           'is_gloo_available', 'is_initialized', 'is_mpi_available', 'is_nccl_available',
           'is_torchelastic_launched', 'isend', 'new_group', 'recv', 'reduce', 'reduce_scatter',
           'reduce_scatter_tensor', 'scatter', 'send']

ProcessGroup = Dl.ProcessGroup
Work = Dl.Work

default_pg_timeout = datetime.timedelta(minutes=30)


class Backend(str):
    """torch.distributed.Backend: the engines' names, as lower-case
    strings ('mpi', 'gloo')."""

    UNDEFINED = 'undefined'
    GLOO = 'gloo'
    MPI = 'mpi'
    NCCL = 'nccl'

    def __new__(cls, name):
        if not isinstance(name, str):
            raise ValueError('Backend name must be a string, but got: {}'.format(name))
        value = name.lower()
        if value not in (cls.GLOO, cls.MPI, cls.NCCL):
            raise ValueError("Invalid backend: '{}'".format(name))
        return str.__new__(cls, value)


class ReduceOp:
    """torch.distributed.ReduceOp: how reducing collectives combine the
    ranks' values (Dl.ReduceOpKind)."""

    SUM = Dl.ReduceOpKind.SUM
    PRODUCT = Dl.ReduceOpKind.PRODUCT
    MIN = Dl.ReduceOpKind.MIN
    MAX = Dl.ReduceOpKind.MAX
    AVG = Dl.ReduceOpKind.AVG
    RedOpType = Dl.ReduceOpKind


class GroupMember:
    """torch.distributed.GroupMember: WORLD is the default group (None
    before init_process_group), NON_GROUP_MEMBER what new_group gives the
    ranks it leaves out."""

    WORLD = None
    NON_GROUP_MEMBER = object()


# torch.distributed.group: group.WORLD is the default group
group = GroupMember

# the global ranks of each group's members, in group-rank order
_RANKS = '_dl_global_ranks'


def is_available():
    """True: libdl always has torch.distributed's API (whether an engine
    can run is is_mpi_available(), is_gloo_available() and
    is_nccl_available())."""
    return True


def is_mpi_available():
    """Whether the MPI engine (libdl-mpi-1.0.so) was built and loads."""
    return Dl.distributed_is_backend_available('mpi')


def is_gloo_available():
    """Whether the Gloo engine (libdl-gloo-1.0.so) was built and loads."""
    return Dl.distributed_is_backend_available('gloo')


def is_nccl_available():
    """Whether the NCCL engine (libdl-nccl-1.0.so) was built and loads; it
    says nothing of the GPUs: without one, init_process_group('nccl')
    raises RuntimeError naming the reason."""
    return Dl.distributed_is_backend_available('nccl')


def is_torchelastic_launched():
    """Whether a launcher set TORCHELASTIC_RUN_ID (dl.distributed.run
    does, as torchrun does)."""
    import os
    return os.environ.get('TORCHELASTIC_RUN_ID') is not None


def is_initialized():
    """Whether the default process group exists."""
    return Dl.distributed_is_initialized()


def _seconds(timeout):
    if timeout is None:
        return default_pg_timeout.total_seconds()
    if isinstance(timeout, datetime.timedelta):
        return timeout.total_seconds()
    raise TypeError('Expected timeout argument to be of type datetime.timedelta')


def init_process_group(backend=None, init_method=None, timeout=default_pg_timeout,
                       world_size=-1, rank=-1, store=None, group_name='', pg_options=None):
    """torch.distributed.init_process_group: joins the other ranks through
    the engine @backend ('mpi', 'gloo' or 'nccl'; None: gloo when it is
    there, else mpi) and makes the default group. With 'mpi' the ranks are
    MPI's (launch with mpirun) and init_method is ignored; with 'nccl' each
    process takes one GPU (LOCAL_RANK's) and the collectives take tensors
    on it; without a GPU (or without the module) it raises RuntimeError
    naming the reason."""
    if store is not None:
        raise RuntimeError('init_process_group: store= is not supported by libdl; use '
                           'init_method')
    if is_initialized():
        raise RuntimeError('trying to initialize the default process group twice!')
    if backend is None:
        backend = Backend.GLOO if is_gloo_available() or not is_mpi_available() else Backend.MPI
    backend = Backend(backend)
    Dl.distributed_init_process_group(backend, init_method, rank, world_size, _seconds(timeout))
    group = Dl.distributed_get_default_group()
    setattr(group, _RANKS, list(range(group.get_size())))
    GroupMember.WORLD = group


def _default_group():
    group = Dl.distributed_get_default_group()
    if group is None:
        raise RuntimeError('Default process group has not been initialized, please make sure to '
                           'call init_process_group.')
    return group


def _group(group):
    if group is None:
        return _default_group()
    if group is GroupMember.NON_GROUP_MEMBER:
        raise RuntimeError('the calling rank is not part of this group')
    _default_group()
    return group


def _is_member(group):
    return group is not GroupMember.NON_GROUP_MEMBER


def destroy_process_group(group=None):
    """torch.distributed.destroy_process_group: drops the default group
    (and with it, once they go, its subgroups' engine state)."""
    if group is None or group is GroupMember.WORLD:
        _default_group()
        Dl.distributed_destroy_process_group()
        GroupMember.WORLD = None


def get_rank(group=None):
    """This process's rank in @group (the default group when None); -1
    when it is not a member."""
    if not _is_member(group):
        return -1
    return _group(group).get_rank()


def get_world_size(group=None):
    """The number of ranks of @group; -1 for a group this rank is not in."""
    if not _is_member(group):
        return -1
    return _group(group).get_size()


def get_backend(group=None):
    """The engine's name of @group: 'mpi' or 'gloo'."""
    return Backend(_group(group).get_backend_name())


def get_process_group_ranks(group):
    """The global ranks of @group's members, in group-rank order."""
    group = _group(group)
    return list(getattr(group, _RANKS, range(group.get_size())))


def get_global_rank(group, group_rank):
    """The global rank of @group's rank @group_rank."""
    ranks = get_process_group_ranks(group)
    if not 0 <= group_rank < len(ranks):
        raise ValueError('Group rank {} is not part of group'.format(group_rank))
    return ranks[group_rank]


def get_group_rank(group, global_rank):
    """The rank in @group of the process of global rank @global_rank."""
    ranks = get_process_group_ranks(group)
    if global_rank not in ranks:
        raise ValueError('Global rank {} is not part of group {}'.format(global_rank, group))
    return ranks.index(global_rank)


def _group_rank(group, global_rank, what):
    """@global_rank (torch's collectives take global ranks) as a rank of
    @group."""
    ranks = getattr(group, _RANKS, None)
    if ranks is None or group is GroupMember.WORLD:
        return global_rank
    try:
        return ranks.index(global_rank)
    except ValueError:
        raise ValueError('{} rank {} is not part of the group'.format(what, global_rank)) \
            from None


def _result(work, async_op):
    return work if async_op else None


def _tensor(t, name='tensor'):
    if not isinstance(t, Dl.Tensor):
        raise TypeError('Invalid function argument. Expected parameter `{}` to be of type '
                        'torch.Tensor.'.format(name))
    return t


def _tensors(ts, name):
    if not isinstance(ts, (list, tuple)) or not all(isinstance(t, Dl.Tensor) for t in ts):
        raise TypeError('Invalid function argument. Expected parameter `{}` to be of type '
                        'List[torch.Tensor].'.format(name))
    return list(ts)


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduces @tensor across the ranks in place (torch.distributed.all_reduce)."""
    if not _is_member(group):
        return None
    return _result(_group(group).all_reduce(_tensor(tensor), op, async_op), async_op)


def broadcast(tensor, src, group=None, async_op=False):
    """Copies @tensor of global rank @src into @tensor of every rank."""
    if not _is_member(group):
        return None
    g = _group(group)
    return _result(g.broadcast(_tensor(tensor), _group_rank(g, src, 'source'), async_op),
                   async_op)


def reduce(tensor, dst, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduces @tensor across the ranks into @tensor of global rank @dst."""
    if not _is_member(group):
        return None
    g = _group(group)
    return _result(g.reduce(_tensor(tensor), _group_rank(g, dst, 'destination'), op, async_op),
                   async_op)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Gathers every rank's @tensor into @tensor_list on every rank."""
    if not _is_member(group):
        return None
    return _result(_group(group).all_gather(_tensors(tensor_list, 'tensor_list'),
                                            _tensor(tensor), async_op), async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """Gathers every rank's @input_tensor into @output_tensor, in rank order."""
    if not _is_member(group):
        return None
    return _result(_group(group).all_gather_into_tensor(
        _tensor(output_tensor, 'output_tensor'), _tensor(input_tensor, 'input_tensor'),
        async_op), async_op)


def gather(tensor, gather_list=None, dst=0, group=None, async_op=False):
    """Gathers every rank's @tensor into @gather_list on global rank @dst."""
    if not _is_member(group):
        return None
    g = _group(group)
    dst = _group_rank(g, dst, 'destination')
    if g.get_rank() == dst:
        gather_list = _tensors(gather_list if gather_list is not None else [], 'gather_list')
    elif gather_list:
        raise ValueError('Argument ``gather_list`` must NOT be specified on non-destination '
                         'ranks.')
    return _result(g.gather(_tensor(tensor), gather_list or None, dst, async_op), async_op)


def scatter(tensor, scatter_list=None, src=0, group=None, async_op=False):
    """Sends element r of @scatter_list on global rank @src to @tensor of rank r."""
    if not _is_member(group):
        return None
    g = _group(group)
    src = _group_rank(g, src, 'source')
    if g.get_rank() == src:
        scatter_list = _tensors(scatter_list if scatter_list is not None else [],
                                'scatter_list')
    elif scatter_list:
        raise ValueError('Argument ``scatter_list`` must NOT be specified on non-source ranks.')
    return _result(g.scatter(_tensor(tensor), scatter_list or None, src, async_op), async_op)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduces the ranks' @input_list; rank r gets element r in @output."""
    if not _is_member(group):
        return None
    return _result(_group(group).reduce_scatter(_tensor(output, 'output'),
                                                _tensors(input_list, 'input_list'), op,
                                                async_op), async_op)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduces the ranks' @input; rank r gets the r-th block in @output."""
    if not _is_member(group):
        return None
    return _result(_group(group).reduce_scatter_tensor(_tensor(output, 'output'),
                                                       _tensor(input, 'input'), op, async_op),
                   async_op)


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    """Element r of every rank's @input_tensor_list goes to rank r, into
    element s (the sender) of its @output_tensor_list."""
    if not _is_member(group):
        return None
    return _result(_group(group).all_to_all(_tensors(output_tensor_list, 'output_tensor_list'),
                                            _tensors(input_tensor_list, 'input_tensor_list'),
                                            async_op), async_op)


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None,
                      group=None, async_op=False):
    """all_to_all of one tensor cut along dim 0: block r of @input (of
    input_split_sizes[r] rows; equal blocks when None) goes to rank r, and
    block s of @output (of output_split_sizes[s] rows) receives what rank
    s sent."""
    if not _is_member(group):
        return None
    g = _group(group)
    output = _tensor(output, 'output')
    input = _tensor(input, 'input')
    out_splits = [int(n) for n in output_split_sizes] if output_split_sizes else []
    in_splits = [int(n) for n in input_split_sizes] if input_split_sizes else []
    if not out_splits and not in_splits:
        work = g.all_to_all_single(output, input, async_op)
    else:
        work = g.all_to_all_single_split(output, input, out_splits, in_splits, async_op)
    return _result(work, async_op)


def barrier(group=None, async_op=False, device_ids=None):
    """Waits until every rank of @group reaches it."""
    if not _is_member(group):
        return None
    return _result(_group(group).barrier(async_op), async_op)


def isend(tensor, dst, group=None, tag=0):
    """Starts sending @tensor to global rank @dst; returns the Work."""
    if not _is_member(group):
        return None
    g = _group(group)
    return g.send(_tensor(tensor), _group_rank(g, dst, 'destination'), tag, True)


def irecv(tensor, src=None, group=None, tag=0):
    """Starts receiving into @tensor from global rank @src, or from any
    rank when @src is None; returns the Work (its get_source_rank() names
    the sender once it completes)."""
    if not _is_member(group):
        return None
    g = _group(group)
    if src is None:
        return g.recv_any_source(_tensor(tensor), tag, True)
    return g.recv(_tensor(tensor), _group_rank(g, src, 'source'), tag, True)


def send(tensor, dst, group=None, tag=0):
    """Sends @tensor to global rank @dst."""
    work = isend(tensor, dst, group, tag)
    if work is not None:
        work.wait()


def recv(tensor, src=None, group=None, tag=0):
    """Receives into @tensor from global rank @src (any rank when None);
    returns the sender's global rank."""
    work = irecv(tensor, src, group, tag)
    if work is None:
        return -1
    work.wait()
    if src is not None:
        return src
    return get_global_rank(_group(group), work.get_source_rank())


def new_group(ranks=None, timeout=None, backend=None, pg_options=None):
    """torch.distributed.new_group: every rank of the default group calls
    it; the ranks in @ranks (global ranks; None: all) get the new group,
    the others GroupMember.NON_GROUP_MEMBER."""
    world = _default_group()
    if ranks is None:
        ranks = list(range(world.get_size()))
    ranks = sorted(int(r) for r in ranks)
    if backend is not None and Backend(backend) != get_backend():
        raise RuntimeError('new_group: backend {} differs from the default group\'s {}; libdl '
                           'makes subgroups on the default group\'s engine'
                           .format(backend, get_backend()))
    group = world.new_group(ranks)
    if group is None:
        return GroupMember.NON_GROUP_MEMBER
    setattr(group, _RANKS, ranks)
    return group


# ---- objects: pickled into uint8 tensors ----------------------------------

def _to_bytes_tensor(obj):
    import pickle
    data = pickle.dumps(obj)
    return Dl.Tensor.new_from_data(data, [len(data)], Dl.DType.UINT8).clone(), len(data)


def all_gather_object(object_list, obj, group=None):
    """Gathers the picklable @obj of every rank into @object_list (one
    element per rank), as torch.distributed.all_gather_object does."""
    import pickle
    if not _is_member(group):
        return
    g = _group(group)
    t, n = _to_bytes_tensor(obj)
    sizes = [Dl.zeros([1], Dl.DType.INT64, None) for _ in range(g.get_size())]
    g.all_gather(sizes, Dl.full([1], float(n), Dl.DType.INT64, None), False)
    longest = max(int(s.item()) for s in sizes)
    padded = Dl.zeros([longest], Dl.DType.UINT8, None)
    padded.narrow(0, 0, n).copy_(t)
    outs = [Dl.zeros([longest], Dl.DType.UINT8, None) for _ in range(g.get_size())]
    g.all_gather(outs, padded, False)
    for r, (out, size) in enumerate(zip(outs, sizes)):
        object_list[r] = pickle.loads(bytes(out.to_bytes().get_data())[:int(size.item())])


def broadcast_object_list(object_list, src=0, group=None, device=None):
    """Replaces the elements of @object_list on every rank with those of
    global rank @src (picklable objects)."""
    import pickle
    if not _is_member(group):
        return
    g = _group(group)
    root = _group_rank(g, src, 'source')
    if g.get_rank() == root:
        t, n = _to_bytes_tensor(list(object_list))
    size = Dl.full([1], float(n) if g.get_rank() == root else 0.0, Dl.DType.INT64, None)
    g.broadcast(size, root, False)
    if g.get_rank() != root:
        t = Dl.zeros([int(size.item())], Dl.DType.UINT8, None)
    g.broadcast(t, root, False)
    object_list[:] = pickle.loads(bytes(t.to_bytes().get_data()))
