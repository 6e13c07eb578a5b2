"""Turn full results files (`loop-conformance run --json`, a version sweep's release files) into the compact form the
repository keeps (harness.reporting.compact): what the gate and the version matrix read, without messages, diffs,
logs or paths.

    python tools/compact_results.py reports/versions-full --out results/versions     # a sweep's tree, kept in shape
    python tools/compact_results.py reports/versions-full/1.23.0.json --out results/versions

A folder is converted file by file, keeping its sub-folders (one per framework); a file that is not a release file
(the index) is left alone. The conversion is deterministic: converting the same results again rewrites the same
bytes, and a refreshed release changes only the lines of the scenarios whose runs changed.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

from harness.reporting.compact import write_compact  # noqa: E402
from harness.reporting.documents import ResultsFileError  # noqa: E402


def release_files(source: Path) -> Iterator[tuple[Path, Path]]:
    """Each release file under `source` (or `source` itself) with its path relative to where it is written."""
    if source.is_file():
        yield source, Path(source.name)
        return
    for path in sorted(source.rglob("*.json")):
        if path.stem[:1].isdigit():  # a release's file is named after the release; the index is not one
            yield path, path.relative_to(source)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sources", nargs="+", type=Path, metavar="FULL",
                        help="a full results file, or a folder of them (a version sweep's tree)")
    parser.add_argument("--out", type=Path, required=True, metavar="DIR", help="where the compact files go")
    args = parser.parse_args(argv)
    changed = unchanged = 0
    for source in args.sources:
        for path, relative in release_files(source):
            try:
                if write_compact(path, args.out / relative):
                    changed += 1
                else:
                    unchanged += 1
            except ResultsFileError as error:
                print(f"error: {error}", file=sys.stderr)
                return 2
    print(f"{changed} compact file(s) written, {unchanged} unchanged, under {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
