"""What a scenario file that fails to load reports: the first line of each located problem, for tests of the
loader's errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness import ScenarioFileError, load_scenario


def problem_lines(path: Path) -> list[str]:
    with pytest.raises(ScenarioFileError) as caught:
        load_scenario(path)
    return [problem.render().splitlines()[0] for problem in caught.value.problems]
