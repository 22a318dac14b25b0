"""The worker processes of a build: how the reader (load/export.py) and the renderer (render/site.py) start
them and hand them work, in one place.

Workers are forked from a small server process that has only imported podium
(multiprocessing's "forkserver"), never from the build: a worker forked from the build
shares its whole heap only until it touches it, and rendering a run page touches its
record's reference counts, which copied most of the heap into each worker (3.5 GB at
100k runs); a spawned one imports everything again (21 MB PSS each, against 10 MB for a
worker forked from the server, whose imported modules the workers share). The server
imports the renderer (and with it the reader), whichever stage starts it first.
"""

from __future__ import annotations

import multiprocessing
from collections import deque
from collections.abc import Callable, Generator, Iterable
from multiprocessing.pool import Pool

PRELOAD = ["podium.render.site"]  # what the server imports once, for every worker it forks


def pool(jobs: int, initializer: Callable | None = None, initargs: tuple = ()) -> Pool:
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(PRELOAD)
    return context.Pool(jobs, initializer, initargs)


def in_order(workers: Pool, function: Callable, tasks: Iterable[tuple], ahead: int) -> Generator:
    """``function(*task)`` for each task, computed by ``workers``, yielded in the order of ``tasks``.
    Tasks are taken from ``tasks`` by the calling thread, at most ``ahead`` of the result being yielded,
    so the results waiting stay bounded whatever the history holds. The pool is terminated when the
    iterator ends or is closed."""
    tasks = iter(tasks)
    window: deque = deque()

    def send() -> None:
        task = next(tasks, None)
        if task is not None:
            window.append(workers.apply_async(function, task))

    try:
        for _ in range(ahead):
            send()
        while window:
            done = window.popleft().get()
            send()
            yield done
    finally:
        workers.terminate()
