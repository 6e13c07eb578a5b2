"""Fuzzing the loader: whatever a scenario file holds, loading it gives a scenario or a located `ScenarioFileError`.

The files are the bundled scenarios mutated line by line and byte by byte, and hostile YAML: alias bombs, tags,
control characters, huge numbers, deep nesting, binary data, byte-order marks and invalid UTF-8. Time is bounded by
Hypothesis' deadline, memory by capping the process's address space around each load (a runaway allocation then
fails at once with `MemoryError` instead of exhausting the machine); an `internal-error` problem (the loader's own
safety net, which also catches that `MemoryError`) counts as a failure, since it means a bug of the harness.

Profiles: `lc-fuzz-ci`, the default, is deterministic and quick; `LC_FUZZ_PROFILE=long` selects `lc-fuzz-long`, ten
thousand random examples per test. To see how many examples ran:

    LC_FUZZ_PROFILE=long python -m pytest -q tests/test_fuzz_scenarios.py --hypothesis-show-statistics
"""

from __future__ import annotations

import contextlib
import os
import re
import resource
import tempfile
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.bundled import BUNDLED_SCENARIOS
from harness.errors import ScenarioFileError
from harness.scenario.loader import discover, load_many, load_scenario

_SLOW_OK = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large,
            HealthCheck.large_base_example]
# A load takes milliseconds; the deadline leaves room for a loaded CI machine yet fails anything that hangs or
# goes quadratic.
_DEADLINE = timedelta(seconds=5)
settings.register_profile("lc-fuzz-ci", max_examples=300, derandomize=True, database=None, deadline=_DEADLINE,
                          suppress_health_check=_SLOW_OK, print_blob=True)
settings.register_profile("lc-fuzz-long", max_examples=10_000, derandomize=False, database=None, deadline=_DEADLINE,
                          suppress_health_check=_SLOW_OK, print_blob=True)
FUZZ = settings.get_profile(f"lc-fuzz-{os.environ.get('LC_FUZZ_PROFILE', 'ci')}")

# No scenario file, however hostile, may make the loader take more memory than this.
MAX_EXTRA_BYTES = 512 * 1024 * 1024

BUNDLED = [path.read_bytes() for path in discover([BUNDLED_SCENARIOS])]

# --- hostile pieces of YAML -------------------------------------------------------------------------------------

_TAGS = ["int", "float", "timestamp", "binary", "bool", "null", "str", "set", "omap", "pairs", "map", "seq",
         "merge", "value", "python/object:os.system", "python/name:os.system", "python/object/apply:os.system",
         "python/tuple", "python/bytes"]
_TAGGED = ["x", "1", "-", "0x", "0b2", "1e9999", ".nan", "2024-02-30", "2023-13-01", "2024-01-01T25:61:00Z",
           "!!!", "AAA=", "yes", "maybe", "[a]", "{a: 1}", "''", "\"\\x00\"", "1:2:3", "~"]
_FIXED = [
    "2024-02-30", "2023-13-45", "2024-01-01 99:00:00", "1999-12-31t23:59:60.9999999999Z", ".inf", "-.nan", "0o8",
    "0b", "0x", "0xg", "1_000", "1:60", "190:20:30.15", "~", "null", "Null", "=", "<<", "*", "&", "&a", "*a", "!",
    "!foo", "!<tag:x>", "%YAML 1.1", "@x", "`x", "'unclosed", "\"unclosed", "\"\\q\"", "\"\\x4\"", "|", ">-9",
    "? x", ": x", "- - -", "[", "]", "{", "}", "[a, b", "{a: 1", "a: b: c", "\t", "x\ty", "#", "---", "...",
    "\ufeff", "\x85", "\u2028", "\u2029", "\ufffe", "\uffff", "\x00", "\x07", "\x1b[31m", "\x7f", "\x9f", "\r",
    "\v", "\f", "\x1c",
]


def _numbers() -> st.SearchStrategy[str]:
    count = st.integers(min_value=1, max_value=6_000)
    return st.one_of(
        count.map(lambda n: "9" * n),
        count.map(lambda n: "-" + "1" * n),
        count.map(lambda n: "0x" + "f" * n),
        count.map(lambda n: "0b" + "1" * n),
        count.map(lambda n: "0" + "7" * n),
        count.map(lambda n: "1:" * n + "0"),
        count.map(lambda n: "1e" + "9" * n),
        count.map(lambda n: "0." + "1" * n),
    )


def _nesting() -> st.SearchStrategy[str]:
    depth = st.integers(min_value=1, max_value=3_000)
    indents = st.integers(min_value=1, max_value=300)  # block nesting grows the file quadratically
    return st.one_of(
        depth.map(lambda n: "[" * n + "]" * n),
        depth.map(lambda n: "{a: " * n + "1" + "}" * n),
        depth.map(lambda n: "[" * n),
        depth.map(lambda n: "- " * n + "1"),
        indents.map(lambda n: "".join(f"\n{'  ' * (i + 1)}a:" for i in range(n)) + " 1"),
        indents.map(lambda n: "\n" + "".join(f"{'  ' * i}-\n" for i in range(n)) + "  " * n + "- 1"),
    )


_SCALARS = st.one_of(
    st.sampled_from(_FIXED),
    st.builds(lambda tag, value: f"!!{tag} {value}", st.sampled_from(_TAGS), st.sampled_from(_TAGGED)),
    _numbers(),
    _nesting(),
    st.builds(lambda char: f"a{char}b", st.characters(categories=["Cc", "Cs", "Zl", "Zp"])),
    st.text(max_size=20),
)


def _alias_bomb(depth: int, fanout: int, use: str) -> str:
    lines = [f"a0: &a0 [{', '.join(['lol'] * fanout)}]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * fanout)}]" for i in range(1, depth + 1)]
    return "\n".join(lines) + "\n" + use.replace("*TOP", f"*a{depth}")


def _alias_documents() -> st.SearchStrategy[str]:
    uses = st.sampled_from(["id: *TOP\n", "turns: *TOP\n", "x: [*TOP, *TOP]\n", "? *TOP\n: 1\n", "*TOP: 1\n"])
    return st.one_of(
        st.builds(_alias_bomb, st.integers(1, 12), st.integers(1, 12), uses),
        st.sampled_from([
            "a: &a [*a]\n", "a: &a {b: *a}\n", "&a [*a, *a]\n", "a: *undefined\n", "a: &x 1\nb: &x 2\n",
            "a: &a 1\nb: *a\nc: *a\n", "a: &a [1]\n<<: *a\n", "<<: {b: 1}\n", "a: &a {b: 1}\nc: {<<: *a}\n",
            "a: &big '" + "x" * 100_000 + "'\nb: [" + ", ".join(["*big"] * 40) + "]\n",
        ]),
    )


# --- mutations of the bundled scenarios -------------------------------------------------------------------------

_VALUE = re.compile(rb"(:\s+|-\s+)(\S.*)$")


@st.composite
def _mutated(draw: st.DrawFn) -> bytes:
    lines = draw(st.sampled_from(BUNDLED)).split(b"\n")
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(lines) - 1))
        action = draw(st.sampled_from(["delete", "duplicate", "swap", "indent", "tab", "scalar", "bytes",
                                       "truncate", "document"]))
        if action == "delete" and len(lines) > 1:
            del lines[i]
        elif action == "duplicate":
            lines.insert(i, lines[i])
        elif action == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif action == "indent":
            shift = draw(st.integers(-4, 4))
            lines[i] = b" " * shift + lines[i] if shift > 0 else lines[i][min(-shift, len(lines[i]) -
                                                                               len(lines[i].lstrip())):]
        elif action == "tab":
            lines[i] = b"\t" + lines[i].lstrip(b" ")
        elif action == "scalar":
            value = draw(_SCALARS).encode("utf-8", "surrogatepass")
            found = _VALUE.search(lines[i])
            lines[i] = lines[i][: found.start(2)] + value if found else lines[i] + b" " + value
        elif action == "bytes":
            where = draw(st.integers(0, len(lines[i])))
            lines[i] = lines[i][:where] + draw(st.binary(min_size=1, max_size=8)) + lines[i][where:]
        elif action == "truncate":
            lines = lines[: i + 1]
            lines[i] = lines[i][: draw(st.integers(0, len(lines[i])))]
        else:
            lines.insert(i, draw(_alias_documents()).encode("utf-8").rstrip(b"\n"))
    return b"\n".join(lines)


@st.composite
def _encoded(draw: st.DrawFn) -> bytes:
    """A bundled scenario in another encoding, with a byte-order mark, or with invalid UTF-8 inside."""
    text = draw(st.sampled_from(BUNDLED)).decode("utf-8")
    encoding = draw(st.sampled_from(["utf-8-sig", "utf-16", "utf-16-le", "utf-32", "latin-1", "cp1252"]))
    data = text.replace("a", "ä").encode(encoding, "replace")
    where = draw(st.integers(0, len(data)))
    junk = draw(st.sampled_from([b"", b"\xff", b"\xc0\x80", b"\xe2\x82", b"\xed\xa0\x80", b"\xef\xbb\xbf",
                                 b"\xf4\x90\x80\x80", b"\x80"]))
    return data[:where] + junk + data[where:]


_HOSTILE = st.one_of(
    _mutated(),
    _encoded(),
    _alias_documents().map(lambda text: text.encode("utf-8")),
    _SCALARS.map(lambda text: f"id: {text}\n".encode("utf-8", "surrogatepass")),
    _SCALARS.map(lambda text: text.encode("utf-8", "surrogatepass")),
    st.binary(max_size=512),
)


# --- what every outcome must look like --------------------------------------------------------------------------


def _assert_located(path: Path, error: ScenarioFileError) -> None:
    lines = len(path.read_bytes().decode("utf-8", "replace").splitlines()) + 1
    assert error.path == path
    assert error.problems
    for problem in error.problems:
        assert problem.path == path
        assert 1 <= problem.line <= lines, problem
        assert problem.column >= 1, problem
        assert re.fullmatch(r"[a-z][a-z0-9-]*", problem.code), problem
        assert problem.code != "internal-error", problem.render()
        assert problem.message.strip(), problem
    assert error.render()


@contextlib.contextmanager
def _memory_capped(extra: int) -> Iterator[None]:
    """Cap the address space at its current size plus `extra` bytes, where the platform tells the current size."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = pages * os.sysconf("SC_PAGE_SIZE") + extra
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _load_bounded(path: Path) -> None:
    try:
        with _memory_capped(MAX_EXTRA_BYTES):
            load_scenario(path)
    except ScenarioFileError as error:
        _assert_located(path, error)


@FUZZ
@given(data=_HOSTILE)
def test_a_hostile_file_loads_or_is_reported_located(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "hostile.yaml"
    path.write_bytes(data)
    _load_bounded(path)


@FUZZ
@given(files=st.lists(st.one_of(st.sampled_from(BUNDLED), _HOSTILE), min_size=1, max_size=4))
def test_load_many_reports_every_file_located(tmp_path: Path, files: list[bytes]) -> None:
    folder = Path(tempfile.mkdtemp(dir=tmp_path))  # tmp_path is shared by every example of the test
    paths: list[Path] = []
    for number, data in enumerate(files):
        path = folder / f"f{number}.yaml"
        path.write_bytes(data)
        paths.append(path)
    with _memory_capped(MAX_EXTRA_BYTES):
        scenarios, errors = load_many([folder])
    assert len(scenarios) + len(errors) == len(paths)
    assert {s.path for s in scenarios} | {e.path for e in errors} == set(paths)
    for error in errors:
        _assert_located(error.path, error)
    assert len({s.id for s in scenarios}) == len(scenarios)


@pytest.mark.parametrize("data", [b"", b"\xef\xbb\xbf", b"\x00", b"[" * 100_000, b"- " * 100_000])
def test_edge_files_are_reported_located(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "edge.yaml"
    path.write_bytes(data)
    _load_bounded(path)
