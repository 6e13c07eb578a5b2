"""Developer and CI sessions. `nox -s tests lint typing conformance` is what CI runs."""

from __future__ import annotations

import nox

nox.options.sessions = ["tests", "lint", "typing", "conformance"]
nox.options.reuse_existing_virtualenvs = True

PYTHON = "3.11"


@nox.session(python=PYTHON)
def tests(session: nox.Session) -> None:
    """The harness's own tests plus every bundled scenario on every installed implementation."""
    session.install("-e", ".[test]")
    session.run("python", "-m", "pytest", "-n", "auto", *session.posargs)


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    session.install("ruff>=0.6")
    session.run("ruff", "check", ".")


@nox.session(python=PYTHON)
def typing(session: nox.Session) -> None:
    session.install("-e", ".[test]", "pyright>=1.1.380", "nox")
    session.run("pyright")


@nox.session(python=PYTHON)
def conformance(session: nox.Session) -> None:
    """The main job: every scenario against every installed implementation, both modes, results as JSON."""
    session.install("-e", ".")
    session.run("loop-conformance", "run", "--json", "reports/results.json", *session.posargs)
