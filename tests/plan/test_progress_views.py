"""podium.plan.progress: what the pages show of an agent's progress, found without a search per lookup."""

from __future__ import annotations

from cputime import least_cpu
from progresskit import one_configuration_a_run, progress_of

from podium.plan.progress import panel, version_step


def test_every_mission_version_page_finds_its_cell_in_linear_time():
    """A mission version's page asks each agent for its newest step there: once a scan of the agent's cells per
    page (an agent on n versions: n² in all), now a lookup."""

    def cpu(n):
        progress = progress_of(one_configuration_a_run(n))
        keys = [(cell.mission, cell.version) for cell in progress.cells]
        steps = [version_step(progress, mission, version, None) for mission, version in keys]
        assert all(step is not None for step in steps)
        assert version_step(progress, "no such mission", "1.0.0", None) is None

        def views():
            for mission, version in keys:
                version_step(progress, mission, version, None)
            panel(progress, "kestrel")

        return least_cpu(views)

    small, large = cpu(1000), cpu(4000)
    assert large < 8 * max(small, 0.01), (small, large)  # quadratic: 16 times


def test_the_panel_says_when_its_file_keeps_only_the_newest_configurations():
    from podium.count.progress.series import FILE_KEPT
    from podium.render.templates import builtin_themes, make_environment, theme_chain

    macro = make_environment(theme_chain("default", [builtin_themes()])).get_template("partials/progress.html")
    for n, complete in ((FILE_KEPT, True), (FILE_KEPT + 1, False)):
        view = panel(progress_of(one_configuration_a_run(n)), "kestrel")
        assert (view.file_complete, view.file_kept) == (complete, FILE_KEPT)
        html = str(macro.module.progress_panel(view, lambda url: url))
        assert ("Every step on every mission version is in" in html) == complete
        assert (f"The steps of the newest {FILE_KEPT} configurations on every mission version" in html) != complete
