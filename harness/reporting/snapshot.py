"""The full observable transcript of a run, normalised so that it is stable from run to run.

Snapshots of it make any change in observable behaviour — even one no expectation names — show up as a reviewable
diff. Generated ids (approval and user-input ids, streamed message ids) are renamed by order of appearance.
"""

from __future__ import annotations

import re
from typing import Any, cast

from harness.records import RunRecord, TurnRecord
from harness.transcript import content_form, messages_form

_GENERATED_ID_KEYS = frozenset({"id", "message_id"})
# A call id the loop made up (a control call an endpoint adds for its UI): random on every run. Scenario call ids are
# written by hand and never take this form, so they stay as they are.
_GENERATED_CALL_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def transcript(record: RunRecord) -> dict[str, Any]:
    """Everything the caller and the model saw, turn by turn."""
    turns = [_turn(turn) for turn in record.turns]
    document: dict[str, Any] = {"scenario": record.scenario.scenario_id, "mode": record.mode, "turns": turns}
    if record.input_problem:
        document["input_problem"] = record.input_problem
    return _rename_ids(document)


def _turn(turn: TurnRecord) -> dict[str, Any]:
    view = turn.view
    entry: dict[str, Any] = {
        "input": turn.caller_input if isinstance(turn.caller_input, str) else messages_form(turn.caller_input),
        "model_requests": [
            {"tool_choice": r.tool_choice, "tools": sorted(r.tools), "messages": messages_form(r.messages),
             **({"kwargs": dict(r.kwargs)} if r.kwargs else {}),
             **({"conversation_id": r.conversation_id} if r.conversation_id is not None else {})}
            for r in turn.requests
        ],
        "executions": [{"tool": e.tool, "arguments": dict(e.arguments)} for e in turn.executions],
    }
    if view.updates:
        entry["updates"] = [
            {"role": u.role, "message_id": u.message_id, "contents": [content_form(c) for c in u.contents]}
            for u in view.updates
        ]
    if view.response is not None:
        entry["response"] = messages_form(view.response.messages)
        if view.response.conversation_id is not None:
            entry["conversation_id"] = view.response.conversation_id
    if view.error is not None:
        entry["error"] = {"kind": view.error.kind, "type": view.error.type_name}
    if turn.crash is not None:
        entry["crash"] = re.sub(r"0x[0-9a-f]+", "0x…", turn.crash)
    if turn.violations:
        entry["script_violations"] = [v.message for v in turn.violations]
    return entry


def _rename_ids(document: dict[str, Any]) -> dict[str, Any]:
    names: dict[str, str] = {}

    def visit(value: Any, key: str | None = None) -> Any:
        if isinstance(value, dict):
            return {str(k): visit(v, str(k)) for k, v in cast(dict[Any, Any], value).items()}
        if isinstance(value, list):
            return [visit(item) for item in cast(list[Any], value)]
        if key == "call_id" and isinstance(value, str) and _GENERATED_CALL_ID.fullmatch(value):
            return names.setdefault(f"{key}:{value}", f"<{key} {sum(k.startswith(key) for k in names) + 1}>")
        if key in _GENERATED_ID_KEYS and isinstance(value, str):
            return names.setdefault(f"{key}:{value}", f"<{key} {sum(k.startswith(key) for k in names) + 1}>")
        return value

    renamed: dict[str, Any] = visit(document)
    return renamed
