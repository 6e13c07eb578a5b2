"""Line numbers shown as compact ranges: 3-7, 12, 15-16."""

from __future__ import annotations

from collections.abc import Iterable


def line_ranges(lines: Iterable[int]) -> str:
    ordered = sorted(set(lines))
    spans: list[str] = []
    start = previous = None
    for line in ordered:
        if previous is not None and line == previous + 1:
            previous = line
            continue
        if start is not None:
            spans.append(str(start) if start == previous else f"{start}-{previous}")
        start = previous = line
    if start is not None:
        spans.append(str(start) if start == previous else f"{start}-{previous}")
    return ", ".join(spans)
