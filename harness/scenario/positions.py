"""Where a turn's expectation sits in a scenario file: read back with the loader's own position table.

Reports show failures long after loading (and from results files), so they ask here by path: a file that moved or
no longer parses has no positions, and the caller falls back to what the result itself recorded.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from harness.scenario.source_text import read_source
from harness.scenario.yaml_source import Position, SourceError, YamlSource, load_yaml


def expectation_position(path: str, turn: int, key: str | None) -> Position | None:
    """The position of `expect.<key>` on `turn` (0-based) of the file at `path`: the key itself, else the turn's
    `expect:`, else the turn; with `key` None, the turn. None when the file cannot be read back."""
    source = _source(path)
    if source is None:
        return None
    if key is not None:
        for data_path in (("turns", turn, "expect", key), ("turns", turn, "expect")):
            if data_path in source.keys:
                return source.keys[data_path]
    return source.position(("turns", turn))


@lru_cache(maxsize=256)
def _source(path: str) -> YamlSource | None:
    if not path:
        return None
    try:
        return load_yaml(Path(path), read_source(Path(path)))
    except (SourceError, OSError):
        return None
