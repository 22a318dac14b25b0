"""What GitHub's runner makes of a step's output, for the tests of the action and the CI recipes."""

from __future__ import annotations

import re


def runner_commands(output: str) -> list[tuple[str, str]]:
    """The workflow commands GitHub's runner acts on in a step's output, as (name, data), the way
    its ActionCommandManager reads them (actions/runner, src/Runner.Common/ActionCommand.cs): a line
    ends at CR or LF; `::name props::data` at a line's start after white space, else `##[name props]data`
    anywhere in it; after `::stop-commands::TOKEN` nothing but `::TOKEN::` until that resumes. Any name
    counts here (the runner acts only on the ones it knows: stricter than it, never laxer)."""
    seen: list[tuple[str, str]] = []
    stopped = None
    for line in re.split(r"\r\n|\r|\n", output):
        found = None
        start = line.lstrip()
        end = start.find("::", 2) if start.startswith("::") else -1
        if end >= 0:
            found = (start[2:end].split(" ")[0], start[end + 2 :])
        elif (i := line.find("##[")) >= 0 and (j := line.find("]", i)) >= 0:
            found = (line[i + 3 : j].split(" ")[0], line[j + 1 :])
        if found is None:
            continue
        if stopped is not None:
            if found[0] == stopped:
                stopped = None
            continue
        if found[0] == "stop-commands":
            stopped = found[1]
        seen.append(found)
    return seen
