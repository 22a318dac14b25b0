"""The worker processes of a build: how the reader (load/export/) and the renderer (render/site.py) hand them
work, in one place.

A build has one set of workers (:class:`Workers`), forked from the build itself the first time a stage needs
them and kept to its end. A cold build needs them first to read the run directories ahead, before it has read
anything: they are then forked when the build holds little more than its imported modules, which they share
with it copy-on-write (a page shared by n processes counts 1/n in each one's PSS), and they do not touch the
history the build reads later. A build that needs them only to render (a rebuild with 1,000 run pages to
render) forks them then, from the whole build; they still touch only what their tasks bring (records and
cached reports, sent with each task), and :func:`_start` moves what they inherit out of the cycle collector's
reach (gc.freeze), so a collection never writes to those pages and copies them.

(Until 2026-12 the workers were forked from multiprocessing's fork server, which imported podium a second
time, with the server and its resource tracker each a process of their own: at 10k runs a cold build peaked
at 126 MB of PSS, 105 MB with workers forked late from the build, 8X MB with them forked before it reads.)

A stage's own setup (the renderer's theme and reports) is run in each worker once (:meth:`Workers.everywhere`),
then what it freed is handed back to the system (heap.py: making the reports' automaton takes twice what it
keeps); every other task carries what it needs. The pool is a
``ProcessPoolExecutor``: a worker that dies (killed, out of memory) breaks it, and the build stops with an
error naming that, where ``multiprocessing.Pool`` would replace the worker and wait for the lost task's result
forever.
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
from podium.heap import release

SETUP_WAIT = 600  # seconds a worker waits for the others to take their setup too (a dead one: an error)


class Workers:
    """The worker processes of one build: ``jobs`` of them (one job: none, the build does everything itself),
    forked the first time :meth:`pool` is asked for, and stopped by :meth:`close` (the build's end)."""

    def __init__(self, jobs: int = 1):
        self.jobs = jobs
        self.executor: ProcessPoolExecutor | None = None

    @property
    def many(self) -> bool:
        return self.jobs > 1

    def pool(self) -> ProcessPoolExecutor:
        """The workers, forked now if they are not yet (a ``fork`` pool forks every worker at its first task)."""
        if self.executor is None:
            context = multiprocessing.get_context("fork")
            barrier = context.Barrier(self.jobs, timeout=SETUP_WAIT)  # inherited, as it must be: forked with it
            self.executor = ProcessPoolExecutor(self.jobs, mp_context=context, initializer=_start, initargs=(barrier,))
            self.executor.submit(gc.isenabled).result()
        return self.executor

    def everywhere(self, function: Callable, *args) -> None:
        """Run ``function(*args)`` once in each worker, before the tasks sent after it (each worker takes one of
        ``jobs`` setup tasks: it waits for the others to take theirs)."""
        pool = self.pool()
        done = [pool.submit(_setup, function, args) for _ in range(self.jobs)]
        for future in done:
            _result(future)

    def in_order(self, function: Callable, tasks: Iterable[tuple], ahead: int, *, budget: int | None = None):
        """:func:`in_order` on these workers."""
        return in_order(self.pool(), function, tasks, ahead, budget=budget)

    def close(self) -> None:
        if self.executor is not None:
            stop(self.executor)
            self.executor = None


NO_WORKERS = Workers(1)


_BARRIER = None  # a worker's: where each waits for the others to take a setup too (Workers.everywhere)


def _start(barrier=None) -> None:
    """A worker's first step: what it inherited from the build is moved out of the cycle collector's reach
    (gc.freeze), so a full collection in the worker never writes to those objects and copies their pages."""
    global _BARRIER
    gc.freeze()
    _BARRIER = barrier


def _setup(function: Callable, args: tuple) -> None:
    function(*args)
    release()  # what the setup freed (the report renderer's automaton, made again here through a larger one)
    if _BARRIER is not None:
        _BARRIER.wait()


def pool(jobs: int) -> ProcessPoolExecutor:
    """``jobs`` workers of their own (tests; a build's stages share its :class:`Workers`)."""
    return ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork"), initializer=_start)


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
    holds. A worker that died is a BuildError; the tasks not yet taken when the iterator is closed are cancelled
    (the pool is its owner's to stop)."""
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
            done = _result(future)
            held -= weight
            send()
            yield done
    finally:
        for future, _ in window:  # ended early (an error, or the stage stopped reading): not wanted any more
            future.cancel()


def _result(future):
    try:
        return future.result()
    except BrokenProcessPool:
        raise BuildError(
            "a worker process of the build died (killed, or out of memory?); the previous site is untouched "
            "(try --jobs 1)"
        ) from None


def stop(workers: ProcessPoolExecutor) -> None:
    """End the pool now: queued tasks are dropped and running ones killed (a failed build does not wait for
    the pages it will not write)."""
    for process in list((getattr(workers, "_processes", None) or {}).values()):
        process.terminate()  # ProcessPoolExecutor has no public way to stop a running task before 3.14
    workers.shutdown(wait=True, cancel_futures=True)
