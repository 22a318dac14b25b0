"""What must never reach a reader: the one redactor of a build's secrets (redact.py), the parts of a report
that are withheld (withhold.py), the text as a reader sees it (visible.py), and the public board made from the
counted one (safe.py). Every layer that writes reader-facing text goes through here (docs/rules/export.md)."""
