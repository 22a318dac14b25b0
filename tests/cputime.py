"""CPU time of a call, for the tests that compare growth across sizes (never a wall clock).

``least_cpu`` is the least CPU time this process spent on ``fn(*args)`` over a few tries, with the
cyclic garbage collector paused during each try. Both matter on a busy CI machine: the process's
CPU time does not count other processes' turns, and the collector's full passes cost time in
proportion to everything the process holds, so a linear function measured at 4,000 items beside
the heap of a whole test session read 8 times its 1,000-item time (issue 33, 5: a red run that
was not the code's fault). The collector is only paused (a ``gc.collect()`` a call would itself cost a
pass over that heap, and the pattern sweep times thousands of calls), and restored after the tries.
"""

from __future__ import annotations

import gc
import math
import time
from collections.abc import Callable


def least_cpu(fn: Callable[..., object], *args: object, tries: int = 3) -> float:
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        best = math.inf
        for _ in range(tries):
            start = time.process_time()
            fn(*args)
            best = min(best, time.process_time() - start)
        return best
    finally:
        if was_enabled:
            gc.enable()
