"""podium: static leaderboard sites from XORCISE run exports.

The pipeline, one module a stage: ``load`` (read the export) -> ``summarize``
(count every run once, spec/counting.md) -> ``plan`` (list every output file)
-> ``render`` (bytes in memory) -> ``write`` (the only writer). ``build.py``
runs it top to bottom.
"""

__version__ = "0.1.0"
