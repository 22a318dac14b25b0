#!/usr/bin/env python3
"""How long the progress computation takes (podium.count.progress.agent_progress) on one agent.

    python benchmarks/progress.py [--runs 1000000] [--missions 40] [--configurations 6]
                                  [--scores grid|continuous] [--no-tokens] [--seed 1] [--reps 1] [--profile]

Synthetic runs of one agent, in memory (no export is read): every mission gets runs from
every configuration, the configurations follow one another in time (the last one also
rolls back to the first for a while), the kinds are mixed as in scripts/make_export.py
(8% partial judge with an upper bound, 8% timed out, 6% no judge, left-out kinds), and each
configuration moves some missions up or down. ``--scores grid`` draws scores as XORCISE
forms them (checks: passed weight of 10 checks; judge: four criteria on a 0.1 grid, weights
1-2-1-1; overall their mean), so a segment has a few hundred distinct values;
``--scores continuous`` draws every score from a continuous distribution (all distinct,
the worst case for the selection). Every run reports the tokens it spent (a log-normal count, each
configuration spending its own amount; 10% report none), for the tokens series (cost.md §4), unless
``--no-tokens`` (no harness reports tokens: the tokens series has no runs). Prints the time to build
the runs and the time of ``agent_progress`` + ``progress_bytes`` (wall and CPU; the best CPU time of
--reps, which a machine shared with other work inflates less than the wall time).
"""

from __future__ import annotations

import argparse
import cProfile
import math
import os
import pstats
import random
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "generator"))

from podium.count.progress import agent_progress  # noqa: E402
from podium.model import Configuration  # noqa: E402
from podium.model.progress import ProgressRun  # noqa: E402
from podium.render.progress_data import progress_bytes  # noqa: E402

KINDS = [
    ("partial_judge", 0.08),
    ("timed_out", 0.08),
    ("no_judge", 0.06),
    ("stopped", 0.05),
    ("infra_failed", 0.05),
    ("grading_failed", 0.005),
    ("unknown", 0.005),
    ("grading", 0.005),
]
BASE = datetime(2026, 9, 1, tzinfo=UTC)


def clamp(v: float) -> float:
    return min(1.0, max(0.0, v))


def make_runs(
    runs: int, missions: int, configurations: int, scores: str, seed: int, tokens: bool = True
) -> list[ProgressRun]:
    rng = random.Random(seed)
    confs = [
        Configuration(f"v{i + 1}", "model-a" if i < configurations // 2 else "model-b", "judge-1", 1800.0)
        for i in range(configurations)
    ]
    # each configuration moves each mission by one of -0.15, 0, +0.1, +0.2 (most: no move)
    effect = [[rng.choice((0, 0, 0, 0.1, -0.15, 0.2)) for _ in range(missions)] for _ in confs]
    level = [rng.uniform(0.2, 0.7) for _ in range(missions)]
    spend = [rng.uniform(10.5, 12.5) for _ in confs]  # ln of a configuration's typical tokens a run
    out = []
    span = 84 * 86400
    for i in range(runs):
        when = BASE + timedelta(seconds=span * i / runs, microseconds=rng.randrange(10**6))
        slot = int(i * configurations / runs)
        # the newest stretch rolls back to the first configuration for a tenth of its time
        c = 0 if slot == configurations - 1 and (i * configurations / runs) % 1 > 0.9 else slot
        mission = rng.randrange(missions)
        r = rng.random()
        kind = "graded"
        for name, share in KINDS:
            if r < share:
                kind = name
                break
            r -= share
        mu = clamp(level[mission] + sum(effect[j][mission] for j in range(c + 1)))
        if scores == "grid":
            checks = sum(rng.random() < mu for _ in range(10)) / 10
            crit = [round(clamp(rng.gauss(mu, 0.2)) * 10) / 10 for _ in range(4)]
            judge = round((crit[0] + 2 * crit[1] + crit[2] + crit[3]) / 5, 4)
        else:
            checks, judge = clamp(rng.gauss(mu, 0.15)), clamp(rng.gauss(mu, 0.15))
        judge_status = "partial" if kind == "partial_judge" else "unavailable" if kind == "no_judge" else "ok"
        judge_upper = round(clamp(judge + 0.1), 4) if judge_status == "partial" else None
        overall = 0.5 * checks + 0.5 * judge if kind != "no_judge" else 0.5 * checks
        upper = 0.5 * checks + 0.5 * judge_upper if judge_upper is not None else overall
        scored = kind in ("graded", "partial_judge", "timed_out", "no_judge", "stopped")
        out.append(
            ProgressRun(
                run_id=f"{rng.getrandbits(128):032x}",
                mission=f"mission-{mission:02d}",
                version="1.0.0",
                current=True,
                started=when,
                kind=kind,
                overall=overall if scored else None,
                overall_upper=upper if scored else None,
                deterministic=checks if scored else None,
                judge=judge if scored and kind != "no_judge" else None,
                judge_upper=judge_upper,
                judge_status=judge_status if scored else None,
                configuration=confs[c],
                total_tokens=(
                    max(1, round(math.exp(rng.gauss(spend[c], 0.6)))) if tokens and rng.random() > 0.1 else None
                ),
            )
        )
    rng.shuffle(out)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=1_000_000)
    ap.add_argument("--missions", type=int, default=40)
    ap.add_argument("--configurations", type=int, default=6)
    ap.add_argument("--scores", choices=("grid", "continuous"), default="grid")
    ap.add_argument("--no-tokens", action="store_true", help="no run reports its tokens")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()
    t0 = time.perf_counter()
    runs = make_runs(args.runs, args.missions, args.configurations, args.scores, args.seed, not args.no_tokens)
    print(f"made {len(runs):,} runs in {time.perf_counter() - t0:.2f} s")
    best = None
    for _ in range(args.reps):
        t0, c0 = time.perf_counter(), time.process_time()
        if args.profile:
            with cProfile.Profile() as prof:
                progress = agent_progress("a1", "bench", "bench", runs)
            pstats.Stats(prof).sort_stats("cumulative").print_stats(25)
        else:
            progress = agent_progress("a1", "bench", "bench", runs)
        t1, c1 = time.perf_counter(), time.process_time()
        progress_bytes(progress)
        t2, c2 = time.perf_counter(), time.process_time()
        print(
            f"agent_progress {t1 - t0:.2f} s ({c1 - c0:.2f} s CPU), progress_bytes {t2 - t1:.2f} s "
            f"({c2 - c1:.2f} s CPU); load average {os.getloadavg()[0]:.1f}"
        )
        best = c2 - c0 if best is None else min(best, c2 - c0)
    step = progress.newest_step
    verdicts = [c.newest_step.overall.verdict for c in progress.cells if c.newest_step]
    print(
        f"best {best:.2f} s CPU; {len(progress.segments)} agent segments, headline "
        f"{step.overall.verdict if step else None} {dict(step.overall.tally) if step else {}}, tokens "
        f"{step.tokens.verdict if step else None} {dict(step.tokens.tally) if step else {}}; "
        f"cells' newest verdicts {sorted(set(verdicts))}; "
        f"shifts {sum(len(c.shifts) for c in progress.cells)}"
    )


if __name__ == "__main__":
    main()
