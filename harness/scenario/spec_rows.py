"""The spec's scenario-to-test matrix rows, by section, each with a stable id.

The built-in catalogue names the rows of spec 004 (Python function-calling loop) as the harness knows them;
`parse_spec_rows` reads the same table straight from a spec Markdown file, so reports can follow the spec as it
changes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class SpecRow:
    section: str
    name: str

    @property
    def id(self) -> str:
        return f"{_slug(self.section)}/{_slug(self.name)}"


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


GAPS_SECTION = "Required coverage gaps"

_CATALOGUE: dict[str, tuple[str, ...]] = {
    'Normal function invocation': (
        'Single non-streaming call',
        'String input',
        'Multiple sequential rounds',
        'Streaming call',
        'Reasoning-bound call',
        'Calls across response messages',
        'Parallel calls',
        'Informational-only call',
        'Declaration-only call',
        'Function invocation disabled',
        'Runtime tool changes',
    ),
    'Approval pause and resume': (
        'Initial approval request',
        'Approved non-streaming resume',
        'Rejected non-streaming resume',
        'Approved streaming resume',
        'Rejected streaming resume',
        'Mixed approved/rejected batch',
        'Persisted approval replay',
        'Hosted approval pass-through',
        'Approval-time user input',
        'Mixed terminal result and follow-up input',
        'Approval-time middleware termination',
        'Approval re-entry after iteration budget',
        'Approval resume with reasoning',
    ),
    'Approval correlation and replay': (
        'Result matching without placeholders',
        'Reused id after completion',
        'Replayed approval wrapper',
        'Historical resolved response plus new round',
        'Multiple reused-id rounds',
        'Multi-content result with reused id',
        'Follow-up request closes one occurrence',
        'Reused-id placeholders',
        'Rejected placeholder',
        'Results reordered with placeholders',
        'Missing result call id',
        'Empty approval message cleanup',
        'Later stateless turn',
        'Pending history turn',
        'Duplicate function-call prevention',
        'Rejection call id',
    ),
    'Mixed batches and approval middleware': (
        'Safe and approval-required calls in one batch',
        'Restored approval state',
        'Unrelated turn before approval',
        'Multiple abandoned batches',
        'Queued approvals',
        'Middleware state plus hidden core state',
        'Auto-approval callback',
        'Shared call budget',
        'Standing tool rule',
        'Hosted server boundary',
        'Argument-scoped rule',
        'Provider-injected approval tool',
        'AG-UI provider boundary',
    ),
    'Errors, control flow, and limits': (
        'Rejected execution',
        'Approved tool exception',
        'Approved validation error',
        'Approved success',
        'Consecutive error cap',
        'Unknown call handling',
        'Middleware termination',
        'Maximum iterations',
        'Maximum function calls',
        'Provider tool content after an active limit',
        'Conversation continuation',
    ),
    'History and provider serialization': (
        'Append-only history replay',
        'Pending placeholder history',
        'Pending hosted history replay',
        'Non-history provider plus session',
        'Hosted per-service-call persistence',
        'Service-side approval decision',
        'OpenAI approval serialization',
        'OpenAI end-to-end hosted approval',
        'Stored function call/result',
        'Stateless reasoning replay',
        'Opaque reasoning signature replay',
        'Chat Completions approval wrappers',
        'AG-UI approval result event',
        'AG-UI rejection/mixed decision',
        'AG-UI approval-time follow-up',
        'AG-UI approval execution failure',
        'AG-UI no-approval path',
        'AG-UI `confirm_changes` snapshot',
        'AG-UI malformed `confirm_changes` metadata',
        'Compaction pair integrity',
    ),
    # The spec's "Required coverage gaps" table: required scenarios without a merged regression upstream.
    GAPS_SECTION: (
        'Service-owned `previous_response_id` continuation cannot execute a terminal approval again on a later turn.',
    ),
}

# Not from the spec: the invariants of the framework pull request "Python: preserve mixed-pause recovery
# invariants" (seed 003), which recovers a mixed approval/host batch after the provider invalidates the request
# that delivers its results. Reported like spec rows, in a section whose name says where they come from.
RECOVERY_SECTION = "Invalidation recovery (PR invariants, not in the spec matrix)"
EXTRA_CATALOGUE: dict[str, tuple[str, ...]] = {
    RECOVERY_SECTION: (
        'Approved result replayed without re-execution',
        'Recovered results delivered once',
        'Recovery after session restore',
        'Spent budgets survive invalidation',
        'Occurrence-identified host result first',
        'Conflicting extra host result rejected',
        'Malformed restored error counter fails closed',
    ),
}

# Rows no scenario can cover yet, and why: they stay "not covered" in every report, with this reason beside them.
# (None at present: the AG-UI rows that waited here have scenarios.)
AWAITING: dict[str, str] = {}


def awaiting(row: SpecRow) -> str | None:
    """Why no scenario covers `row` yet, when that is known and planned."""
    return AWAITING.get(row.name)


def uncovered_text(row: SpecRow) -> str:
    """An uncovered row as the reports list it: section › name, and its reason if one is known."""
    reason = awaiting(row)
    return f"{row.section} › {row.name}" + (f" ({reason})" if reason else "")


EXTRA_ROWS: tuple[SpecRow, ...] = tuple(
    SpecRow(section, name) for section, names in EXTRA_CATALOGUE.items() for name in names
)
SPEC_ROWS: tuple[SpecRow, ...] = tuple(
    SpecRow(section, name) for section, names in _CATALOGUE.items() for name in names
) + EXTRA_ROWS

_HEADING = re.compile(r"^###\s+(?P<title>.+?)\s*$")
_ROW = re.compile(r"^\|\s*(?P<name>[^|]+?)\s*\|")


def parse_spec_rows(markdown: str) -> tuple[SpecRow, ...]:
    """Rows of the "Scenario-to-test matrix" section of a spec Markdown file, in document order, then the rows
    of its "Required coverage gaps" table (required scenarios that are rows too)."""
    rows: list[SpecRow] = []
    in_matrix = False
    section = ""
    for line in markdown.splitlines():
        if line.startswith("## "):
            title = line[3:].strip()
            in_matrix = title.lower() in ("scenario-to-test matrix", GAPS_SECTION.lower())
            section = GAPS_SECTION if title.lower() == GAPS_SECTION.lower() else ""
            continue
        heading = _HEADING.match(line)
        if in_matrix and heading:
            section = heading.group("title")
            continue
        row = _ROW.match(line)
        if in_matrix and section and row and not _is_header_or_rule(row.group("name")):
            rows.append(SpecRow(section, row.group("name")))
    return tuple(rows)


def _is_header_or_rule(cell: str) -> bool:
    return cell in ("Scenario", "Gap") or set(cell) <= set("-: ")


def rows_by_name(rows: tuple[SpecRow, ...] = SPEC_ROWS) -> dict[str, SpecRow]:
    return {row.name: row for row in rows}
