"""Developer and CI sessions. `nox -s tests lint typing conformance` is what CI runs."""

from __future__ import annotations

import nox

nox.options.sessions = ["tests", "lint", "typing", "conformance"]
nox.options.reuse_existing_virtualenvs = True

PYTHON = "3.11"
# Every Python the package claims (requires-python >= 3.11, the classifiers): the floor and each newer release.
# `nox -s tests_python` runs all three where the interpreters are installed (nox finds python3.X on PATH, e.g. from
# pyenv or the deadsnakes packages). CI (.ci/run) tests the oldest and the newest, 3.11 and 3.13, with these extras.
PYTHONS = ["3.11", "3.12", "3.13"]
# Every optional dependency the suite runs over (the wire providers, the hosting server, the other frameworks).
EXTRAS = ".[agent-framework,providers,foundry-hosting,ag-ui,pydantic-ai,openai-agents,langchain,google-adk]"
EXTRAS_TEST = (".[test,power,docs,agent-framework,providers,foundry-hosting,ag-ui,pydantic-ai,openai-agents,langchain,"
               "google-adk]")


@nox.session(python=PYTHON)
def tests(session: nox.Session) -> None:
    """The harness's own tests plus every bundled scenario on every installed implementation."""
    session.install("-e", EXTRAS_TEST, "-c", "constraints/latest.txt")
    session.run("python", "-m", "pytest", "-n", "auto", *session.posargs)


@nox.session(python=PYTHONS)
def tests_python(session: nox.Session) -> None:
    """The same tests on each supported Python, in a fresh environment per version; arguments go to pytest
    (`nox -s tests_python-3.13 -- tests/test_cli.py`)."""
    session.install("-e", EXTRAS_TEST, "-c", "constraints/latest.txt")
    session.run("python", "-m", "pytest", "-n", "auto", *session.posargs)


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    session.install("ruff>=0.6")
    session.run("ruff", "check", ".")


@nox.session(python=PYTHON)
def typing(session: nox.Session) -> None:
    # Every adapter is type-checked, so every framework it imports is installed here.
    session.install("-e", EXTRAS_TEST, "pyright>=1.1.380", "nox",
                    "-c", "constraints/latest.txt")
    session.run("pyright")


@nox.session(python=PYTHON)
def docs(session: nox.Session) -> None:
    """The documentation site, built strictly: a broken link, a missing page or a failing generator fails it.
    The reference pages are generated from the code (docs/hooks/), so the harness is installed too."""
    session.install("-e", ".[docs]", "-c", "constraints/latest.txt")
    session.run("mkdocs", "build", "--strict", "--site-dir", "site", *session.posargs,
                env={"NO_MKDOCS_2_WARNING": "1"})  # mkdocs-material's end-of-life banner, not a build warning


@nox.session(python=PYTHON)
def conformance(session: nox.Session) -> None:
    """The main job: every scenario against every installed implementation, both modes, results as JSON. Writes
    to reports/, which is never committed."""
    session.install("-e", EXTRAS, "-c", "constraints/latest.txt")
    session.run("loop-conformance", "run", "--json", "reports/results.json", *session.posargs)


@nox.session(python=PYTHON)
def snapshot(session: nox.Session) -> None:
    """Regenerate the committed report snapshot (results/snapshot/: coverage, spec matrix, invariant table) from a
    full run at the pinned releases; tests/test_committed_reports.py fails while it is stale."""
    session.install("-e", EXTRAS, "-c", "constraints/latest.txt")
    session.run("python", "tools/snapshot_reports.py", *session.posargs)


@nox.session(python=PYTHON)
def version_matrix(session: nox.Session) -> None:
    """Rebuild results/version-matrix.md and .json (and the index) from the committed compact release files under
    results/versions/, judged against today's baseline: after a baseline change, without sweeping anything."""
    session.install("-e", ".")
    session.run("python", "tools/sweep_versions.py", "--matrix-only")


@nox.session(python=PYTHON)
def versions(session: nox.Session) -> None:
    """Recent releases of each framework, each in its own environment; writes the compact release files under
    results/versions/ (committed), the full ones under reports/versions-full/ (never committed), and the matrix.

    agent-framework-core: every release from 1.10.0; pydantic-ai-slim: every release from 2.60.0; openai-agents: the
    newest patch of each minor from 0.20. Long and needs the package registry: not part of CI. Arguments go to
    tools/sweep_versions.py: `-- --framework pydantic-ai-slim` sweeps one framework, releases after it only those.
    """
    session.install("-e", ".", "packaging")  # tools/companion_releases.py reads requirements
    session.run("python", "tools/sweep_versions.py", *session.posargs)


@nox.session(python=PYTHON)
def fuzz_releases(session: nox.Session) -> None:
    """The long fuzz run once over every implementation and every release environment the `versions` session made
    (reference included). Arguments go to tools/fuzz_releases.py (`-- --examples 30 --jobs 1`). On demand only."""
    session.install("-e", ".[fuzz]", "-c", "constraints/latest.txt")
    session.run("python", "tools/fuzz_releases.py", *session.posargs)
