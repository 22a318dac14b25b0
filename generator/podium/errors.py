"""The exceptions podium raises on purpose, and the exit codes they carry.

Exit codes (documented in README.md and, in full, docs/usage.md "Exit codes"):
  0  success
  1  problems were found: ``check`` found any, or ``build --strict`` did
  2  bad command line, config, input location or output directory (nothing was built)
  3  the build failed while writing (the previous site is untouched)
"""

import click

EXIT_PROBLEMS = 1
EXIT_USAGE = 2
EXIT_BUILD = 3


class PodiumError(click.ClickException):
    """An expected failure: one clear message, no traceback."""

    exit_code = EXIT_USAGE


class ConfigError(PodiumError):
    """podium.yaml (or a flag) is invalid; the message lists every error."""


class BuildError(PodiumError):
    """Writing the site failed; the previous output was left as it was."""

    exit_code = EXIT_BUILD


class UnsafeOutput(BuildError):
    """The output directory was refused before anything was written (a usage error)."""

    exit_code = EXIT_USAGE
