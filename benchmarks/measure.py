"""Run one command and measure it: wall time, CPU time, peak memory of its whole process tree.

Peak memory: every POLL_S seconds (20 ms) the harness sums, over the command and all its
descendants, the proportional set size (PSS, /proc/<pid>/smaps_rollup: each page shared by
n processes counts 1/n in each) and the resident set size (RSS, /proc/<pid>/statm).
The descendants are found from the parent pid of every process in /proc/*/stat (this
kernel has no /proc/<pid>/task/*/children); that scan costs a few milliseconds, so it
is redone at every poll for the first half second and then every TREE_EVERY polls (200 ms).
The peak PSS sum is the memory the build takes from the machine, a process pool's workers
together with their parent, each shared page once: the figure the tables report. The RSS
sum counts a page shared by forked workers once per process, so for a pool it errs high;
it is kept in the JSON (peak_rss_bytes) with the kernel's ru_maxrss of the largest single
process (which catches a peak shorter than one poll).

CPU time is user + system time of the whole tree: the larger of the command's wait4 rusage
(itself and the descendants it reaped) and the sum, over every process seen in the tree, of
its own user + system time as last sampled (/proc/<pid>/stat, each poll). The second is
needed for podium's workers: they are children of multiprocessing's fork server, which the
build never reaps, so their time never reaches the rusage (before 2026-12-01, second
session, the CPU columns of builds with workers counted the build process alone). Wall time
is from spawn to exit, woken by a pidfd, so it is not rounded to a poll.
"""

from __future__ import annotations

import os
import select
import subprocess
import time
from dataclasses import asdict, dataclass
from pathlib import Path

POLL_S = 0.02
TREE_EVERY = 10
PAGE = os.sysconf("SC_PAGE_SIZE")
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


@dataclass
class Measurement:
    wall_s: float
    cpu_s: float
    peak_rss_bytes: int  # max over polls of the summed RSS of the process tree (or ru_maxrss)
    peak_pss_bytes: int  # max over polls of the summed PSS of the process tree
    max_single_rss_bytes: int  # kernel's ru_maxrss of the largest single process
    out_bytes: int = 0
    out_files: int = 0
    site: dict | None = None  # site_stats.SiteStats.measure of the output, for podium builds

    def to_dict(self) -> dict:
        return asdict(self)


class CommandFailed(RuntimeError):
    pass


def parent_map() -> dict[int, int]:
    """pid -> parent pid for every process visible in /proc."""
    parents = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue  # exited between listing and reading
        # the command name (field 2) may hold spaces and ')': split after the last ')'
        fields = stat[stat.rindex(b")") + 2 :].split()
        parents[int(entry.name)] = int(fields[1])
    return parents


def process_tree(root: int) -> list[int]:
    """root and all its descendants."""
    children: dict[int, list[int]] = {}
    for pid, ppid in parent_map().items():
        children.setdefault(ppid, []).append(pid)
    tree, todo = [], [root]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo.extend(children.get(pid, ()))
    return tree


def cpu_ticks(pid: int) -> tuple[tuple[int, int], int] | None:
    """((pid, start time), user + system clock ticks) of one process, itself only; None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
        fields = stat[stat.rindex(b")") + 2 :].split()  # fields 3 on: utime is 14, stime 15, starttime 22
        return (pid, int(fields[19])), int(fields[11]) + int(fields[12])
    except (OSError, IndexError, ValueError):
        return None


def rss_bytes(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm", "rb") as fh:
            return int(fh.read().split()[1]) * PAGE
    except (OSError, IndexError, ValueError):
        return 0


def output_size(path: Path) -> tuple[int, int]:
    """(bytes, files) of every regular file under path."""
    total = files = 0
    for dirpath, _, names in os.walk(path):
        for name in names:
            st = os.lstat(os.path.join(dirpath, name))
            total, files = total + st.st_size, files + 1
    return total, files


def run_measured(
    cmd: list[str],
    *,
    cwd: Path | None = None,
    env: dict | None = None,
    log: Path | None = None,
    out: Path | None = None,
) -> Measurement:
    """Run cmd to completion (stdout/stderr to log), measuring it; raise CommandFailed on a
    non-zero exit. When out is given, record the size and file count of that directory."""
    log_fh = open(log or os.devnull, "wb")
    try:
        start = time.perf_counter()
        proc = subprocess.Popen(
            cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=log_fh, stderr=subprocess.STDOUT
        )
        try:
            peak, peak_pss, status, usage, sampled_cpu = wait_sampling(proc.pid)
        except BaseException:  # interrupted: leave no build running
            proc.kill()
            proc.wait()
            raise
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
    finally:
        log_fh.close()
    if proc.returncode != 0:
        tail = log.read_text(errors="replace")[-2000:] if log else ""
        raise CommandFailed(f"{' '.join(map(str, cmd))} exited {proc.returncode}\n{tail}")
    max_single = usage.ru_maxrss * 1024
    result = Measurement(
        wall_s=wall,
        cpu_s=max(usage.ru_utime + usage.ru_stime, sampled_cpu),
        peak_rss_bytes=max(peak, max_single),
        peak_pss_bytes=peak_pss,
        max_single_rss_bytes=max_single,
    )
    if out is not None:
        result.out_bytes, result.out_files = output_size(out)
    return result


def pss_bytes(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as fh:
            for line in fh:
                if line.startswith(b"Pss:"):
                    return int(line.split()[1]) * 1024
    except (OSError, IndexError, ValueError):
        pass
    return 0


def wait_sampling(pid: int):
    """Sample the tree's RSS, PSS and CPU until pid exits; (peak RSS, peak PSS, wait status, rusage,
    CPU seconds summed over every process seen, each as last sampled)."""
    pidfd = os.pidfd_open(pid)
    poller = select.poll()
    poller.register(pidfd, select.POLLIN)
    peak, peak_pss, tick, tree = 0, 0, 0, [pid]
    cpu: dict[tuple[int, int], int] = {}  # (pid, start time) -> its clock ticks, last sampled
    try:
        while True:
            done, status, usage = os.wait4(pid, os.WNOHANG)
            if done:
                return peak, peak_pss, status, usage, sum(cpu.values()) / CLOCK_TICKS
            if tick < 25 or tick % TREE_EVERY == 0:
                tree = process_tree(pid)
            for process, ticks in filter(None, map(cpu_ticks, tree)):
                cpu[process] = max(cpu.get(process, 0), ticks)
            peak = max(peak, sum(rss_bytes(p) for p in tree))
            peak_pss, tick = max(peak_pss, sum(pss_bytes(p) for p in tree)), tick + 1
            poller.poll(POLL_S * 1000)  # returns at once when the process exits
    finally:
        os.close(pidfd)
