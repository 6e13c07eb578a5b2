"""Fuzz the readers of results and baseline files: mutated files through `report`, `gate`, `diff` and
`version-matrix`, in process through the command line's own `main`, counting tracebacks and hangs.

Each mutated results file goes through all four commands (as the results of `report`, `gate` and
`version-matrix`, and as the new side of `diff`); each mutated baseline through `gate` and `version-matrix
--baseline`. A command may accept a file (exit 0 or 1) or refuse it (exit 2 with one `error:` line); anything that
escapes `main` is a traceback, a command that takes longer than the limit is a hang, and a refusal that is not one
line is counted too. The seed files are small slices of the committed release results and known failures, so
mutants stay close to real files.

Run: `python tools/fuzz_data_files.py [--results 500] [--baselines 500] [--seed 0]`; prints the figures and exits 1
when any traceback, hang or multi-line refusal was seen. tests/test_hostile_inputs_fuzz.py runs a seeded sample.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import json
import random
import resource
import signal
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
SEED_RELEASE = "1.23.0.json"  # a committed release file of the version sweep
SEED_BASELINE = ROOT / "baselines" / "known-failures.yaml"
HANG_SECONDS = 20.0


class Hang(BaseException):
    """Raised by the alarm in a command that ran too long; a BaseException, so no `except Exception` hides it."""


# ---------------------------------------------------------------------------------------------------------- seeds


@functools.cache
def seed_results(size: int = 24) -> dict[str, Any]:
    """A small results document sliced from a committed sweep: every verdict, implementation and provider it has.
    Cached: mutations copy it before they change anything."""
    from harness.reporting.documents import load_results_document

    document = load_results_document(committed_release(SEED_RELEASE))  # whatever form the file is stored in
    picked: list[dict[str, Any]] = []
    seen: set[tuple[str, str, str]] = set()
    for result in (run.to_json() for run in document.results):
        key = (result["verdict"], result["implementation"], result.get("provider", "neutral"))
        if key not in seen or len(picked) < size // 2:
            seen.add(key)
            picked.append(result)
        if len(picked) >= size:
            break
    return {"filtered": document.filtered, "release": document.release, "results": picked}


def committed_release(name: str) -> Path:
    """A committed release file of the sweep, under results/ (or reports/, where older checkouts keep them)."""
    for folder in ("results", "reports"):
        path = ROOT / folder / "versions" / name
        if path.exists():
            return path
    raise FileNotFoundError(f"no committed release file {name} under results/versions or reports/versions")


def seed_baseline(results: dict[str, Any]) -> dict[str, Any]:
    """Known failures of the seed's scenarios (so the gate matches some), and one per-check entry."""
    scenarios = {r["scenario"] for r in results["results"]}
    baseline = _committed_baseline()
    known = [e for e in baseline["known_failures"] if e["scenario"] in scenarios][:12]
    check = {"scenario": results["results"][0]["scenario"], "check": "no-orphans",
             "implementation": results["results"][0]["implementation"], "mode": "streaming",
             "versions_from": "1.10.0", "reason": "A seed entry of the data-file fuzzer, long enough to pass."}
    return {"known_failures": known, "check_failures": [check]}


@functools.cache
def _committed_baseline() -> dict[str, Any]:
    return yaml.load(SEED_BASELINE.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


# ------------------------------------------------------------------------------------------------------ mutations

_HOSTILE_VALUES: tuple[object, ...] = (
    None, True, False, 0, -1, 10**30, 1.5, "", "x" * 5000, [], {}, [[[[[]]]]], {"a": {"b": {}}},
    "1.²", "x<script>alert(1)</script>", "\ud800", "a\udfffb", "\x00\x1b[31m", "‮evil", "../../etc/passwd",
    float("nan"), float("inf"), "pass", "fail", "streaming", "nonsense",
)


def _places(data: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    yield path, data
    if isinstance(data, dict):
        for key, value in list(data.items()):
            yield from _places(value, (*path, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from _places(value, (*path, index))


def _container(data: Any, path: tuple[Any, ...]) -> Any:
    for part in path[:-1]:
        data = data[part]
    return data


def _structural(rng: random.Random, data: Any) -> Any:
    """The data with one to three places replaced by a hostile value, deleted or duplicated."""
    data = json.loads(json.dumps(data))
    for _ in range(rng.randint(1, 3)):
        places = [p for p, _ in _places(data) if p]
        if not places:
            return rng.choice(_HOSTILE_VALUES)
        path = rng.choice(places)
        parent = _container(data, path)
        action = rng.random()
        if action < 0.6:
            parent[path[-1]] = rng.choice(_HOSTILE_VALUES)
        elif action < 0.8:
            del parent[path[-1]]
        elif isinstance(parent, list):
            parent.extend(parent[: rng.randint(1, 4)])
        else:
            parent[rng.choice(["extra", "x" * 40, "verdict", "checks"])] = rng.choice(_HOSTILE_VALUES)
    return data


def _json_text(data: Any) -> str:
    return json.dumps(data, ensure_ascii=_has_surrogates(data))


def _has_surrogates(data: Any) -> bool:
    # Lone surrogates cannot be written as UTF-8, only as escapes.
    return "\\ud" in json.dumps(data)


def _deep(rng: random.Random, text: str, opener: str, closer: str) -> str:
    depth = rng.choice([70, 200, 1_000, 5_000, 100_000])
    cut = rng.randint(0, len(text))
    return text[:cut] + opener * depth + "1" + closer * depth + text[cut:]


def _replace_number(rng: random.Random, text: str) -> str:
    spots = [i for i, c in enumerate(text) if c.isdigit() and text[i - 1] in ": ["]
    if not spots:
        return text + "1e400"
    spot = rng.choice(spots)
    return text[:spot] + rng.choice(["1e400", "-1e400", "NaN", "Infinity", "-Infinity", "9" * 5000, "1" * 101]) + \
        text[spot + 1:]


def _in_string(rng: random.Random, text: str, insert: str) -> str:
    quotes = [i for i, c in enumerate(text) if c == '"']
    spot = rng.choice(quotes) + 1 if quotes else 0
    return text[:spot] + insert + text[spot:]


def _bytes_damage(rng: random.Random, data: bytes) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        spot = rng.randrange(len(out)) if out else 0
        choice = rng.random()
        if choice < 0.4:
            out[spot:spot + 1] = bytes([rng.choice([0xFF, 0xC0, 0xED, 0x80, 0xFE, 0x00])])
        elif choice < 0.7 and out:
            out[spot] = rng.randrange(256)
        else:
            del out[spot:spot + rng.randint(1, 50)]
    return bytes(out)


def mutate_results(rng: random.Random, seed: dict[str, Any]) -> bytes:
    """One mutated results file."""
    text = _json_text(seed)
    kind = rng.randrange(10)
    if kind <= 2:
        return _json_text(_structural(rng, seed)).encode("utf-8")
    if kind == 3:
        return _deep(rng, text, "[", "]").encode()
    if kind == 4:
        return _replace_number(rng, text).encode()
    if kind == 5:
        return _in_string(rng, text, rng.choice(["\\ud800", "\\udc00x", "\\u0000", "\\ud83d"])).encode()
    if kind == 6:
        return text[: rng.randint(0, len(text))].encode()
    if kind == 7:
        return _bytes_damage(rng, text.encode())
    if kind == 8:
        return rng.choice([b"", b"null", b"[]", b"{}", b'{"results": {}}', b'{"results": [1]}', b"\xef\xbb\xbf{",
                           b'{"results": [], "filtered": "yes"}', b'{"results": [], "release": "1.\xc2\xb2"}'])
    return _deep(rng, text, '{"a":', "}").encode()


_BOMB = """lol0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]
lol1: &a1 [*a0, *a0, *a0, *a0, *a0, *a0, *a0, *a0, *a0]
lol2: &a2 [*a1, *a1, *a1, *a1, *a1, *a1, *a1, *a1, *a1]
lol3: &a3 [*a2, *a2, *a2, *a2, *a2, *a2, *a2, *a2, *a2]
lol4: &a4 [*a3, *a3, *a3, *a3, *a3, *a3, *a3, *a3, *a3]
lol5: &a5 [*a4, *a4, *a4, *a4, *a4, *a4, *a4, *a4, *a4]
lol6: &a6 [*a5, *a5, *a5, *a5, *a5, *a5, *a5, *a5, *a5]
lol7: &a7 [*a6, *a6, *a6, *a6, *a6, *a6, *a6, *a6, *a6]
lol8: &a8 [*a7, *a7, *a7, *a7, *a7, *a7, *a7, *a7, *a7]
"""


def mutate_baseline(rng: random.Random, seed: dict[str, Any]) -> bytes:
    """One mutated baseline file."""
    text = yaml.safe_dump(seed, sort_keys=False, allow_unicode=True)
    kind = rng.randrange(10)
    if kind <= 2:
        mutated = _structural(rng, seed)
        try:
            return yaml.safe_dump(mutated, sort_keys=False, allow_unicode=True).encode("utf-8", "surrogatepass")
        except yaml.YAMLError:
            return text.encode()
    if kind == 3:
        lines = text.splitlines(keepends=True)
        spot = rng.randint(0, len(lines))
        bomb = _BOMB if rng.random() < 0.7 else "a: &a [*a]\n"
        return ("".join(lines[:spot]) + bomb + "".join(lines[spot:]) if rng.random() < 0.3 else bomb + text).encode()
    if kind == 4:
        depth = rng.choice([70, 500, 5_000, 50_000])
        return (text + "deep: " + "[" * depth + "]" * depth + "\n").encode()
    if kind == 5:
        return _bytes_damage(rng, text.encode())
    if kind == 6:
        return text[: rng.randint(0, len(text))].encode()
    if kind == 7:
        tag = rng.choice(['"\\ud800 lone"', '"\\udfff"', "!!python/object:os.system {}", "!!binary aGVsbG8=",
                          "!!timestamp 2001-12-14",
                          "!!set {a, b}", "!!omap [a: 1]", "*undefined", "&a 1", ".inf", ".nan", "0x1f", "1_000",
                          "'" + "9" * 5000 + "'", "9" * 200, "~", "{", "- - -"])
        lines = text.splitlines()
        spot = rng.randrange(len(lines)) if lines else 0
        if lines and ":" in lines[spot]:
            key = lines[spot].split(":")[0]
            lines[spot] = f"{key}: {tag}"
        return ("\n".join(lines) + "\n").encode()
    if kind == 8:
        lines = text.splitlines(keepends=True)
        if lines:
            spot = rng.randrange(len(lines))
            lines.insert(spot, lines[spot])  # a duplicate key, or a repeated list item
        return "".join(lines).replace("\t", "  ").encode() + (b"\t\x00" if rng.random() < 0.3 else b"")
    return rng.choice([b"", b"[]", b"known_failures: 5\n", b"known_failures:\n  - 1\n", b"\xff\xfe",
                       b"known_failures: []\ncheck_failures: [{}]\n", b"? [a]\n: 1\n", b"a: b: c\n"])


# ---------------------------------------------------------------------------------------------------------- runs


@dataclass
class Tally:
    """What the commands did with the mutants."""

    files: Counter[str] = field(default_factory=Counter[str])  # results | baseline
    outcomes: Counter[str] = field(default_factory=Counter[str])  # accepted | refused | traceback | hang | ...
    tracebacks: list[str] = field(default_factory=list[str])  # "command file: last line", the first few
    slowest: tuple[float, str] = (0.0, "")
    seconds: float = 0.0


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise Hang


def run_command(argv: Sequence[str], limit: float = HANG_SECONDS) -> tuple[str, str]:
    """(outcome, detail) of `loop-conformance ARGV` run in process, its output to strict UTF-8 streams."""
    from harness.cli import main

    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict")
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict")
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(argv))
    except Hang:
        return "hang", " ".join(argv)
    except SystemExit as error:  # argparse refusing an argument: a usage error, not a crash
        code = error.code if isinstance(error.code, int) else 2
    except BaseException as error:  # noqa: BLE001 - exactly what this counts
        return "traceback", "".join(traceback.format_exception_only(type(error), error)).strip()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    err.flush()
    stderr = err.buffer.getvalue().decode("utf-8")  # pyright: ignore[reportAttributeAccessIsUnknown]
    if code == 2:
        lines = [line for line in stderr.splitlines() if line.strip()]
        if len(lines) != 1 or not lines[0].startswith("error: "):
            return "unclear-refusal", stderr[:300]
        return "refused", lines[0]
    return ("accepted", "") if code in (0, 1) else ("odd-exit", str(code))


def results_commands(mutant: Path, seed: Path, baseline: Path, out: Path) -> list[list[str]]:
    return [
        ["report", str(mutant), "--out", str(out / "report")],
        ["gate", "--baseline", str(baseline), str(mutant)],
        ["diff", str(seed), str(mutant)],
        ["version-matrix", str(mutant), "--markdown", str(out / "m.md"), "--json", str(out / "m.json")],
    ]


def baseline_commands(mutant: Path, seed: Path, out: Path) -> list[list[str]]:
    return [
        ["gate", "--baseline", str(mutant), str(seed)],
        ["version-matrix", str(seed), "--baseline", str(mutant), "--markdown", str(out / "m.md"), "--json",
         str(out / "m.json")],
    ]


def fuzz(results: int, baselines: int, seed: int, limit: float = HANG_SECONDS,
         on_file: Callable[[str, int], None] | None = None) -> Tally:
    """Run `results` mutated results files and `baselines` mutated baselines; the tally of what happened."""
    rng = random.Random(seed)
    tally = Tally()
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        seed_doc = seed_results()
        seed_path = work / "seed.json"
        seed_path.write_text(json.dumps(seed_doc), encoding="utf-8")
        baseline_doc = seed_baseline(seed_doc)
        baseline_path = work / "seed.yaml"
        baseline_path.write_text(yaml.safe_dump(baseline_doc, sort_keys=False), encoding="utf-8")
        jobs = [("results", n) for n in range(results)] + [("baseline", n) for n in range(baselines)]
        for kind, number in jobs:
            mutant = work / (f"mutant-{number}.json" if kind == "results" else f"mutant-{number}.yaml")
            mutant.write_bytes(mutate_results(rng, seed_doc) if kind == "results" else
                               mutate_baseline(rng, baseline_doc))
            tally.files[kind] += 1
            commands = (results_commands(mutant, seed_path, baseline_path, work) if kind == "results" else
                        baseline_commands(mutant, seed_path, work))
            for argv in commands:
                began = time.monotonic()
                outcome, detail = run_command(argv, limit)
                took = time.monotonic() - began
                if took > limit:  # the alarm reaches Python code only: a stall inside C code is a hang all the same
                    outcome, detail = "hang", f"{' '.join(argv)} took {took:.1f}s"
                tally.slowest = max(tally.slowest, (took, f"{argv[0]} {mutant.name}"))
                tally.outcomes[outcome] += 1
                if outcome in ("traceback", "hang", "unclear-refusal", "odd-exit") and len(tally.tracebacks) < 20:
                    tally.tracebacks.append(f"{outcome}: {argv[0]} {mutant.name}: {detail.splitlines()[-1:]}")
            if on_file is not None:
                on_file(kind, number)
    tally.seconds = time.monotonic() - started
    return tally


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--results", type=int, default=500, help="mutated results files (default 500)")
    parser.add_argument("--baselines", type=int, default=500, help="mutated baseline files (default 500)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--limit", type=float, default=HANG_SECONDS, help="seconds before a command is a hang")
    args = parser.parse_args()
    tally = fuzz(args.results, args.baselines, args.seed, args.limit)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{tally.files['results']} results files and {tally.files['baseline']} baseline files, seed {args.seed}: "
          f"{sum(tally.outcomes.values())} command runs in {tally.seconds:.1f}s, peak {peak:.0f} MiB")
    for outcome in ("accepted", "refused", "traceback", "hang", "unclear-refusal", "odd-exit"):
        print(f"  {outcome:<16} {tally.outcomes[outcome]}")
    print(f"  slowest command  {tally.slowest[0]:.2f}s ({tally.slowest[1]})")
    for line in tally.tracebacks:
        print(f"  {line}")
    bad = sum(tally.outcomes[o] for o in ("traceback", "hang", "unclear-refusal", "odd-exit"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
