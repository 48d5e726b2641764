# dl.multiprocessing.spawn (torch.multiprocessing.spawn): runs a function in
# N new processes, fn(i, *args) in process i, as PyTorch's data-parallel
# tutorials start their ranks, and reports a child's exception or abnormal
# exit in the parent.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import multiprocessing
import multiprocessing.connection
import signal
import sys
import traceback
import warnings

__all__ = ['spawn', 'start_processes', 'ProcessContext', 'ProcessException',
           'ProcessRaisedException', 'ProcessExitedException']


class ProcessException(Exception):
    """A process started by spawn() failed; error_index is its index, pid
    its process id."""

    def __init__(self, msg, error_index, pid):
        super().__init__(msg)
        self.msg = msg
        self.error_index = error_index
        self.pid = pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid)


class ProcessRaisedException(ProcessException):
    """The function raised in process error_index; the message holds the
    child's traceback."""


class ProcessExitedException(ProcessException):
    """Process error_index ended with a non-zero exit code (exit_code) or
    was killed by a signal (exit_code negative, signal_name its name)."""

    def __init__(self, msg, error_index, error_pid, exit_code, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code = exit_code
        self.signal_name = signal_name

    def __reduce__(self):
        return (type(self),
                (self.msg, self.error_index, self.pid, self.exit_code, self.signal_name))


def _run(fn, i, args, errors):
    """The body of process i: fn(i, *args); an exception goes to the
    parent as its formatted traceback, and the process exits with 1."""
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass  # the parent is stopping us
    except Exception:
        errors.send(traceback.format_exc())
        sys.exit(1)


class ProcessContext:
    """The processes started by start_processes(), and join() to wait for
    them."""

    def __init__(self, processes, error_pipes):
        self.processes = processes
        self.error_pipes = error_pipes
        self._sentinels = {p.sentinel: i for i, p in enumerate(processes)}

    def pids(self):
        return [p.pid for p in self.processes]

    def join(self, timeout=None):
        """Waits up to timeout seconds (None: until one process ends) for
        the processes. Returns True once all have ended well, False if some
        still run. When one fails, terminates the others and raises
        ProcessRaisedException (its exception, with the traceback) or
        ProcessExitedException (its exit code or signal)."""
        if not self._sentinels:
            return True
        ready = multiprocessing.connection.wait(list(self._sentinels), timeout=timeout)
        failed = None
        for sentinel in ready:
            i = self._sentinels.pop(sentinel)
            p = self.processes[i]
            p.join()
            if p.exitcode != 0:
                failed = i
                break
            self.error_pipes[i].close()
        if failed is None:
            return not self._sentinels
        # the others stop: a failed rank leaves its peers waiting forever
        for p in self.processes:
            if p.is_alive():
                p.terminate()
            p.join()
        self._sentinels = {}
        p = self.processes[failed]
        trace = None
        if self.error_pipes[failed].poll():
            try:
                trace = self.error_pipes[failed].recv()
            except EOFError:  # it ended without sending: closed, not raised
                pass
        for pipe in self.error_pipes:
            pipe.close()
        if trace is not None:
            raise ProcessRaisedException(
                '\n\n-- Process %d terminated with the following error:\n%s' % (failed, trace),
                failed, p.pid)
        if p.exitcode < 0:
            try:
                name = signal.Signals(-p.exitcode).name
            except ValueError:
                name = '<unknown signal %d>' % -p.exitcode
            raise ProcessExitedException(
                'process %d terminated with signal %s' % (failed, name), failed, p.pid,
                p.exitcode, name)
        raise ProcessExitedException(
            'process %d terminated with exit code %d' % (failed, p.exitcode), failed, p.pid,
            p.exitcode)


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method='spawn'):
    """Starts nprocs processes with the multiprocessing start method
    start_method, process i running fn(i, *args) (fn and args must pickle
    for 'spawn' and 'forkserver'). With join, waits for all of them and
    returns None (raising as ProcessContext.join() does); without, returns
    the ProcessContext."""
    ctx = multiprocessing.get_context(start_method)
    processes, pipes = [], []
    for i in range(nprocs):
        receiver, sender = ctx.Pipe(duplex=False)
        p = ctx.Process(target=_run, args=(fn, i, args, sender), daemon=daemon)
        p.start()
        sender.close()
        processes.append(p)
        pipes.append(receiver)
    context = ProcessContext(processes, pipes)
    if not join:
        return context
    while not context.join():
        pass


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method='spawn'):
    """torch.multiprocessing.spawn: start_processes() with the 'spawn'
    start method always (a fresh interpreter per process, what a process
    using threads or a GPU needs); another start_method only warns, as in
    torch."""
    if start_method != 'spawn':
        warnings.warn('spawn() always uses the spawn start method (got %r); '
                      'start_processes() takes others' % (start_method,))
    return start_processes(fn, args, nprocs, join, daemon, start_method='spawn')
