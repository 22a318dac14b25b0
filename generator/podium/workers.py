"""The worker processes of a build: how the reader (load/export/) and the renderer (render/site.py) start
them and hand them work, in one place.

Workers are forked from a small server process that has only imported podium
(multiprocessing's "forkserver"), never from the build: a worker forked from the build
shares its whole heap only until it touches it, and rendering a run page touches its
record's reference counts, which copied most of the heap into each worker (3.5 GB at
100k runs); a spawned one imports everything again (21 MB PSS each, against 10 MB for a
worker forked from the server, whose imported modules the workers share). The server
imports the renderer (and with it the reader), whichever stage starts it first.

The pool is a ``ProcessPoolExecutor``: a worker that dies (killed, out of memory) breaks it,
and the build stops with an error naming that, where ``multiprocessing.Pool`` would replace
the worker and wait for the lost task's result forever.
"""

from __future__ import annotations

import gc
import multiprocessing
from collections import deque
from collections.abc import Callable, Generator, Iterable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import NamedTuple

from podium.errors import BuildError

PRELOAD = ["podium.render.site"]  # what the server imports once, for every worker it forks


def pool(jobs: int, initializer: Callable | None = None, initargs: tuple = ()) -> ProcessPoolExecutor:
    """``jobs`` workers, each running ``initializer(*initargs)`` first."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(PRELOAD)
    return ProcessPoolExecutor(jobs, mp_context=context, initializer=_start, initargs=(initializer, initargs))


def _start(initializer: Callable | None, initargs: tuple) -> None:
    """A worker's first step: what it inherited from the server is moved out of the cycle collector's reach
    (gc.freeze), so a full collection in the worker never writes to those objects and copies their pages
    (2–3 MB PSS less per worker, measured at 10k runs)."""
    gc.freeze()
    if initializer is not None:
        initializer(*initargs)


class Weighed(NamedTuple):
    """A task with its weight (the bytes it will read), for :func:`in_order` with a ``budget``."""

    args: tuple
    weight: int


def in_order(
    workers: ProcessPoolExecutor, function: Callable, tasks: Iterable[tuple], ahead: int, *, budget: int | None = None
) -> Generator:
    """``function(*task)`` for each task, computed by ``workers``, yielded in the order of ``tasks``.
    Tasks are taken from ``tasks`` by the calling thread, at most ``ahead`` of the result being yielded,
    so the results waiting stay bounded whatever the history holds. With a ``budget``, each task is
    :class:`Weighed`, and the tasks sent but not yet yielded weigh at most ``budget`` together (a task
    heavier alone is sent when no other is out): the bytes in flight stay bounded whatever each task
    holds. The pool is stopped when the iterator ends or is closed; a worker that died is a BuildError."""
    tasks = iter(tasks)
    window: deque = deque()  # (future, weight), in the order of tasks
    held = 0  # the weight in window
    waiting: list = []  # a task taken from tasks but over the budget for now

    def send() -> None:
        nonlocal held
        while len(window) < ahead:
            task = waiting.pop() if waiting else next(tasks, None)
            if task is None:
                return
            args, weight = (task, 0) if budget is None else task  # a Weighed: (args, weight)
            if budget is not None and window and held + weight > budget:
                waiting.append(task)
                return
            window.append((workers.submit(function, *args), weight))
            held += weight

    try:
        send()
        while window:
            future, weight = window.popleft()
            try:
                done = future.result()
            except BrokenProcessPool:
                raise BuildError(
                    "a worker process of the build died (killed, or out of memory?); "
                    "the previous site is untouched (try --jobs 1)"
                ) from None
            held -= weight
            send()
            yield done
    finally:
        stop(workers)


def stop(workers: ProcessPoolExecutor) -> None:
    """End the pool now: queued tasks are dropped and running ones killed (a failed build does not wait for
    the pages it will not write)."""
    for process in list((getattr(workers, "_processes", None) or {}).values()):
        process.terminate()  # ProcessPoolExecutor has no public way to stop a running task before 3.14
    workers.shutdown(wait=True, cancel_futures=True)
