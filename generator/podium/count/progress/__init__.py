"""Progress verdicts: which way an agent is moving, and on which missions (docs/rules/progress.md).

One computation, once per build, from the runs the summary step classified; every page, JSON file and
command reads its result (model/progress.py). Pure: no I/O, no clock. Split by job:

- ``series``: the series declared (runs, value, thresholds, words, which rules apply) and the constants
  (§1.2, §2.3); ``method()`` lists them
- ``columns``: a cell's runs read as columns, checked and put in run order (§1.1)
- ``cells``: one cell: segments, left-out and undated runs, its steps, its shifts (§1)
- ``verdict``: one series at one step: shift, intervals, verdict, guards; attribution (§2)
- ``strata``: agent segments and steps across missions: strata, van Elteren, the agent verdict (§3)
- ``shifts``: shifts with no named cause inside a segment (§4)
- ``ranktests``: the rank statistics (Mann–Whitney null counts, Moses, Hodges–Lehmann, van Elteren)
- ``agent``: the whole agent, and its headline (§3.3)

Readings (where the rules are silent; each is tested in tests/count/progress/):

- A segment's ``median`` is the plain median of its ``overall`` series (the headline figure
  everywhere else); ``null`` when the segment has no run in the median population.
- Kinds and verdicts with a count of 0 are omitted from ``left_out``, ``left_out_unplaced``
  and ``tally`` (§6 allows either; omitting is what the JSON shows everywhere).
- The headline with no step has ``verdict`` and ``shift`` ``null``, ``changed`` ``[]`` and
  ``tally`` ``{}``, and ``reason`` says why (``one_configuration`` or ``no_counted_runs``).
- A stratum's step is the step between the two cell segments holding the two agent
  segments' configurations on that mission version (they are the same runs), so a stratum
  and a cell step between adjacent segments are one computation.
- The agent's ``steady`` reads "every such stratum is steady" on the strata's published
  verdicts, like ``mixed`` and "no stratum regressed".
- The agent step has only the ``partial_judge`` guard (§3 names no other); its reasons
  list is empty otherwise.
- An exact tie in the shift search's |z_k| keeps the smallest k; shifts are listed in the
  time order of the run they start at (across segments).
- A cell's newest step is the step into its last segment (the newest configuration to
  appear); after a rollback the newest run is in an earlier segment, which
  ``Cell.newest_segment`` (and ``AgentProgress.newest_segment``) gives the pages.
- A stratum is a current mission version where both agent segments have at least one run
  in that series; its ``just_crossed`` removes the newest run of that cell segment in
  that series.
- A shift's ``start_run_id`` is the first run of the later part, in the segment's overall
  series.
- The ``partial_judge`` guard passes without a recomputation when no run of either side has
  an upper value other than its value (the recomputation would be the same step).
- Cell order is mission, then version oldest first by the project's version order
  (``podium.count.versions.version_key``, counting.md §4); strata likewise.
- Bad input (a kind that is not a run's, a counted run without its score, a score outside
  [0, 1], an upper bound below its value, a naive start time, a run id that is not text,
  one mission version both current and not) raises ``ValueError`` naming the run and the
  field: the summary step has already refused such runs, so this is a bug upstream, never a
  verdict.
"""

from podium.count.progress.agent import agent_headline, agent_progress
from podium.count.progress.series import method

__all__ = ["agent_headline", "agent_progress", "method"]
