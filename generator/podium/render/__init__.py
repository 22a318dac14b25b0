"""Pure rendering: the Leaderboard in, bytes out (JSON/CSV, SVG, HTML)."""
