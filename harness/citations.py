"""The normative sources an assertion may cite: the spec's matrix rows and the sentences of its normative contract.

A citation id is derived from the spec's own text, so it stays stable while the sentence does and changes when the
sentence changes: ``row:<row title>`` for a scenario-to-test matrix row, and ``sentence:<section>/<first words>``
for a sentence of the normative contract (the section's slug, then the slug of the sentence's first six words). The
quotes here are the cited sentences only, kept so reports can show the sentence beside a failure without the spec at
hand; tests/test_citations.py checks each against the spec whenever the spec is available.

Besides spec 004, a few checks enforce another normative document (a provider's API, the AG-UI protocol); those are
``external:<document>/<rule>`` and say so in their text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from harness.scenario.spec_rows import RECOVERY_SECTION, SPEC_ROWS


@dataclass(frozen=True)
class Citation:
    id: str
    source: str  # where it is written, for a reader: "spec 004, Normative contract › Approval request and resume"
    text: str  # the sentence (or the row's required invariant title) in the spec's words


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower().replace("`", "")).strip("-")


def sentence_id(section: str, sentence: str, words: int = 6) -> str:
    """The stable id of a normative sentence: its section's slug and the slug of its first `words` words."""
    first = " ".join(sentence.replace("`", "").split()[:words])
    return f"sentence:{slug(section)}/{slug(first)}"


_CONTRACT = "spec 004, Normative contract"

# Section -> the sentences of that section that assertions cite, in the spec's words.
_SENTENCES: Mapping[str, tuple[str, ...]] = {
    "Function calls and results": (
        "Every actionable local `function_call` produces exactly one terminal `function_result`, unless execution "
        "pauses for a new user-input request.",
        "Parallel calls retain model order in the returned transcript.",
        "Reused `call_id` values are correlated by logical occurrence, not one global value per id.",
        "A completed function call/result pair is inert on later turns.",
        "Informational-only and declaration-only calls are not executed as local tools.",
    ),
    "Reasoning-bound calls": (
        "Reasoning content or opaque reasoning metadata that a service binds to a function call is part of the same "
        "logical group as that call and its terminal result.",
        "Active function loops preserve the reasoning content, function call, function result, and final assistant "
        "output in caller-visible responses.",
        "Framework-managed/stateless replay includes the service-required reasoning representation before the paired "
        "call.",
        "Service-managed continuation may omit inline reasoning/call items only when the hosted service already owns "
        "them.",
        "Missing non-reconstructable reasoning fails explicitly before a provider request instead of silently "
        "dropping the content.",
        "Compaction preserves or excludes the complete reasoning/call/result group atomically.",
    ),
    "Approval request and resume": (
        "A tool that requires approval does not execute before an approved response.",
        "An approved tool executes exactly once.",
        "A rejected tool executes zero times and produces one synthetic rejection `function_result` using the "
        "original function `call_id`.",
        "The resumed response contains the newly resolved approved and rejected terminal results before any final "
        "assistant message.",
        "Streaming yields the same logical result content and ordering as non-streaming output and "
        "`ResponseStream.get_final_response()`.",
        "The function invocation layer normalizes a private copy of caller messages.",
        "It must not mutate the caller's approval `Message`, approval `Content`, or an earlier returned response.",
        "Approval-time `UserInputRequiredException` and `MiddlewareTermination` return immediately without another "
        "model call.",
    ),
    "Approval control content": (
        "`function_approval_request` and `function_approval_response` are control-plane contents, not durable model "
        "transcript items.",
        "A current hosted approval response must be sent once on the immediate resume request.",
        "AG-UI removes a local approval response from its request and snapshot replay when a terminal result belongs "
        "to an already-consumed occurrence, including result-before-response replay.",
        "A server-issued approval request must not be replayed inline during service-side continuation.",
        "History providers may retain approval control contents in their backing store for audit, but base history "
        "replay filters them before later model calls.",
        "Callers that manually own and replay message history without a loading `HistoryProvider` must likewise omit "
        "a previously submitted approval response from later continuation requests.",
    ),
    "History and continuation": (
        "Model-bound history contains one function call/result pair per completed logical occurrence.",
        "Append-only history must not replay stale approval request/response wrappers to the model.",
        "Framework-managed and service-managed continuation must preserve the same logical call/result transcript.",
        "A trusted terminal result consumes the corresponding approval authority in explicit stateless replay; a "
        "result in a server-registered pending occurrence cannot consume that authority before local execution.",
    ),
}

# Normative documents other than spec 004 that a check enforces: a provider's API and the AG-UI protocol.
_EXTERNAL: tuple[Citation, ...] = (
    Citation("external:provider-api/accepts-request", "the provider's published API",
             "A request the real service rejects (an orphan call or result, a malformed item) fails the user's "
             "conversation at that service."),
    Citation("external:ag-ui/event-lifecycle", "the AG-UI protocol's event lifecycle",
             "A run has one start and one terminal event; every text message and tool call that starts also ends, "
             "with its content or arguments between the two."),
)


def _sentence_citations() -> tuple[Citation, ...]:
    return tuple(Citation(sentence_id(section, text), f"{_CONTRACT} › {section}", text)
                 for section, texts in _SENTENCES.items() for text in texts)


def _row_citations() -> tuple[Citation, ...]:
    return tuple(Citation(f"row:{row.name}", f"spec 004, Scenario-to-test matrix › {row.section}", row.name)
                 for row in SPEC_ROWS if row.section != RECOVERY_SECTION)


def _recovery_citations() -> tuple[Citation, ...]:
    # The provider-invalidation recovery invariants come from a PR, not from the spec's matrix: the rows keep their
    # own names so a scenario may cite them, and the source says where they are written.
    return tuple(Citation(f"row:{row.name}", f"{RECOVERY_SECTION}", row.name)
                 for row in SPEC_ROWS if row.section == RECOVERY_SECTION)


CITATIONS: Mapping[str, Citation] = {
    c.id: c for c in (*_sentence_citations(), *_row_citations(), *_recovery_citations(), *_EXTERNAL)
}


def sentence(section: str, first_words: str) -> str:
    """The id of the sentence of `section` that starts with `first_words` (a helper for the requirements table,
    which fails at import when the sentence is not in the table)."""
    for text in _SENTENCES[section]:
        if " ".join(text.replace("`", "").split()).startswith(first_words):
            return sentence_id(section, text)
    raise KeyError(f"no sentence of {section!r} starts with {first_words!r}")


def unknown(ids: Iterable[str]) -> list[str]:
    """The ids among `ids` that cite nothing this harness knows."""
    return [i for i in ids if i not in CITATIONS]


def resolve(reference: str) -> str | None:
    """The citation id a scenario's reference names: an id as is, or a bare row title; None when it names none."""
    if reference in CITATIONS:
        return reference
    if f"row:{reference}" in CITATIONS:
        return f"row:{reference}"
    return None


def rows_cited(ids: Iterable[str]) -> tuple[str, ...]:
    """The matrix row titles among citation ids."""
    return tuple(i.removeprefix("row:") for i in ids if i.startswith("row:"))
