"""What the loop-conformance command's exit status means: one table, read by the CLI, its tests and the docs.

The numbers follow pytest where the meaning is the same (1: something failed, 2: usage error, 5: nothing ran), so
a CI script that already branches on pytest's codes reads ours the same way; 130 and 141 are what a shell reports
for a process ended by Ctrl-C (SIGINT) and by writing into a closed pipe (SIGPIPE).
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    FAILED = 1
    USAGE_ERROR = 2
    NOTHING_RAN = 5
    INTERRUPTED = 130
    BROKEN_PIPE = 141


@dataclass(frozen=True)
class ExitCodeDoc:
    code: ExitCode
    meaning: str  # one sentence, Markdown-free: printed by --help and copied into the reference docs
    examples: str  # when a user meets it


EXIT_CODES: tuple[ExitCodeDoc, ...] = (
    ExitCodeDoc(ExitCode.OK, "Every run passed; xfail (a known failure), differs (a difference the implementation "
                "does not claim to avoid) and n/a (not applicable) count as passing.",
                "run, gate and check with nothing wrong; schema, list, report, diff"),
    ExitCodeDoc(ExitCode.FAILED, "At least one run failed or errored (or the gate failed, or a checked scenario "
                "file is broken).", "a regression; a stale baseline entry; check on a malformed file"),
    ExitCodeDoc(ExitCode.USAGE_ERROR, "The command line or an input file could not be used: an unknown option or "
                "implementation, an unreadable baseline, spec or results file, a missing optional extra.",
                "run --impl no_such_loop; gate --baseline missing.yaml r.json; fuzz without Hypothesis"),
    ExitCodeDoc(ExitCode.NOTHING_RAN, "Nothing ran: no scenario file was found, or an implementation named with "
                "--impl is not installed (its runs would silently be missing).",
                "run --impl pydantic_ai without pydantic-ai installed; run --scenarios EMPTY_FOLDER"),
    ExitCodeDoc(ExitCode.INTERRUPTED, "Interrupted with Ctrl-C (SIGINT); nothing was written after the interrupt.",
                "Ctrl-C during a run"),
    ExitCodeDoc(ExitCode.BROKEN_PIPE, "The reader of the output went away (SIGPIPE), e.g. head after enough lines; "
                "the command stops quietly.", "loop-conformance schema | head"),
)


def exit_code_table(columns: int = 100) -> str:
    """The table as plain text for `--help` epilogs: each code, then its meaning wrapped to `columns`."""
    width = max(len(str(int(doc.code))) for doc in EXIT_CODES)
    indent = " " * (width + 4)
    return "\n".join(textwrap.fill(doc.meaning, columns, initial_indent=f"  {int(doc.code):>{width}}  ",
                                    subsequent_indent=indent) for doc in EXIT_CODES)


def exit_code_markdown() -> str:
    """The table as Markdown, for the reference docs."""
    rows = [f"| {int(doc.code)} | `{doc.code.name}` | {doc.meaning} | {doc.examples} |" for doc in EXIT_CODES]
    return "\n".join(["| Code | Name | Meaning | For example |", "|---:|---|---|---|", *rows]) + "\n"
