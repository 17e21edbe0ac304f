"""A worker process's main: set the process up, then serve the campaign's messages until told to stop.

Compiled code runs here, not in the campaign: when it segfaults, aborts, hangs or eats all
memory, only this process is lost and the campaign records a finding. Started by
`numfuzz.workers.pool`; the messages (`numfuzz.workers.messages`) go over a multiprocessing Connection.

Nothing heavy is imported at module level: torch comes in only after the worker has chosen
its compile settings, and the settings arrive as plain, torch-free data for the same reason.
"""

from __future__ import annotations

import faulthandler
import os
import sys
import threading
import time
import traceback
from typing import Any

from numfuzz.workers.compile_env import set_compile_environment
from numfuzz.workers.messages import BatchRequest, Cancel, CaseRequest, EvaluateRequest, Failed, MinimizeRequest, Ready, Stop
from numfuzz.workers.process_metrics import rss_bytes
from numfuzz.workers.settings import WorkerSettings
from numfuzz.workers.worker_tasks import WorkerTasks

PARENT_POLL_S = 1.0


def _redirect_output(log_path: str) -> None:
    # Library chatter and faulthandler's dying words go to a per-worker log, not the progress bar.
    fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)


def _die_with_parent() -> None:
    """A worker must not outlive its campaign, even one killed with SIGKILL mid-case."""
    parent = os.getppid()
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            import signal

            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL_S)
        os._exit(3)

    threading.Thread(target=watch, name="numfuzz-parent-watch", daemon=True).start()


class _Cancel:
    """Did the campaign ask the task in hand to stop? Only `cancel` comes while a task runs."""

    def __init__(self, conn: Any):
        self.conn = conn
        self.asked = False

    def __call__(self) -> bool:
        try:
            while not self.asked and self.conn.poll():
                self.asked = isinstance(self.conn.recv(), Cancel)
        except (EOFError, OSError):
            self.asked = True  # the campaign is gone: stop too
        return self.asked


def serve(conn: Any, settings: WorkerSettings, inside: Any = None) -> None:
    """Entry point of a worker process; `inside`: the shared memory its pool reads to tell a death in the target from one
    outside, and eager's seconds on the task (`boundary`)."""
    from numfuzz.targets.boundary import share, task_begins

    share(inside)
    os.setsid()  # its own process group: a kill reaches compiler subprocesses, Ctrl-C does not
    _redirect_output(settings.log_path)
    faulthandler.enable()  # a segfault leaves a Python traceback in the worker log
    _die_with_parent()
    linker = set_compile_environment()
    if linker:
        sys.stderr.write(f"numfuzz worker: C++ builds link with {linker}\n")  # into the worker log
    # torch.fx's progress bars would give tqdm a multiprocessing lock, a named semaphore that a
    # worker leaving by os._exit (or by a crash) could not unlink; a thread lock does here.
    from tqdm import tqdm

    tqdm.set_lock(threading.RLock())
    started = time.perf_counter()
    try:
        if settings.bound_files:
            from numfuzz.judge.bounds import use_bound_files

            use_bound_files(settings.bound_files)
        worker = WorkerTasks(settings, serve)
        targets = worker.target_info()  # a user's target may fail here too: a failed start, told why
    except BaseException:
        error = traceback.format_exc(limit=20)
        sys.stderr.write(f"numfuzz worker cannot start:\n{error}")  # into the log the campaign's error points to
        sys.stderr.flush()
        conn.send(Failed(error))
        os._exit(1)
    conn.send(Ready(os.getpid(), time.perf_counter() - started, rss_bytes(), targets))
    cancel = _Cancel(conn)
    worker.notify, worker.cancelled = conn.send, cancel
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            break
        if isinstance(msg, Stop):
            break
        if isinstance(msg, Cancel):  # came after the task it meant had ended
            continue
        cancel.asked = False
        task_begins()
        handlers = {CaseRequest: worker.run_case, BatchRequest: worker.run_batch, EvaluateRequest: worker.evaluate, MinimizeRequest: worker.minimize}
        reply = handlers[type(msg)](msg)
        conn.send(reply)
        if reply.recycle:
            break
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # skip interpreter teardown: compiler atexit hooks can take seconds
