"""The differential oracle's accepted differences: every way a correct loop may differ from the reference loop on a
generated conversation, named and explained here, in one place.

The oracle compares, turn by turn, what the caller sees and what the tools executed. Before comparing it rewrites
both sides with every difference below; whatever still differs is reported as a disagreement. A difference belongs
here only when the spec leaves the matter to the loop; anything the spec fixes (which calls run, with what
arguments, which results and calls the caller sees, in which order) stays compared.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, cast

from harness.script import ToolExecution

Item = tuple[str, dict[str, Any]]  # (role, content form) of one caller-visible content


@dataclass(frozen=True)
class Known:
    """What the scenario itself tells about a turn's contents."""

    scripted: set[str]  # texts the script put in the model's mouth, and the tools' return values (as JSON)
    rejected: frozenset[str] = frozenset()  # call ids the caller rejected
    optional: frozenset[str] = frozenset()  # texts only an optional model response of the script holds


@dataclass(frozen=True)
class Difference:
    name: str
    why: str
    rewrite: Callable[[list[Item], Known], list[Item]]


def _loop_wording(items: list[Item], known: Known) -> list[Item]:
    scripted = known.scripted
    rewritten: list[Item] = []
    for role, content in items:
        result = content.get("function_result")
        if result is not None and json.dumps(result.get("result")) not in scripted:
            result = result | {"result": "<written by the loop>"}
            rewritten.append((role, {"function_result": result}))
        elif isinstance(content.get("text"), str) and content["text"] not in scripted:
            rewritten.append((role, {"text": "<written by the loop>"}))
        else:
            rewritten.append((role, content))
    return rewritten


def _request_ids(items: list[Item], known: Known) -> list[Item]:
    del known
    return [(role, {kind: {k: v for k, v in body.items() if k != "id"}})
            if kind in ("approval_request", "user_input_request") and not service_issued(body)
            else (role, {kind: body}) for role, content in items for kind, body in content.items()]


def service_issued(body: dict[str, Any]) -> bool:
    """A hosted service's approval request: its id is the service's, which the loop passes on untouched."""
    call: object = body.get("function_call")
    return isinstance(call, dict) and cast(dict[str, Any], call).get("server_label") is not None


def _input_request_call(items: list[Item], known: Known) -> list[Item]:
    del known
    rewritten: list[Item] = []
    for role, content in items:
        request: object = content.get("user_input_request")
        if isinstance(request, dict) and isinstance(call := cast(dict[str, Any], request).get("function_call"), dict):
            named: dict[str, Any] = {"call_id": cast(dict[str, Any], call).get("call_id")}
            rewritten.append((role, {"user_input_request": cast(dict[str, Any], request) | {"function_call": named}}))
        else:
            rewritten.append((role, content))
    return rewritten


def _usage(items: list[Item], known: Known) -> list[Item]:
    del known
    return [(role, content) for role, content in items if "usage" not in content]


def _blank(content: dict[str, Any]) -> bool:
    return isinstance(content.get("text"), str) and not content["text"].strip()


def _blank_text(items: list[Item], known: Known) -> list[Item]:
    del known
    return [(role, content) for role, content in items if not _blank(content)]


def _rejection_flag(items: list[Item], known: Known) -> list[Item]:
    rewritten: list[Item] = []
    for role, content in items:
        result = content.get("function_result")
        if result is not None and result.get("call_id") in known.rejected:
            rewritten.append((role, {"function_result": {k: v for k, v in result.items() if k != "error"}}))
        else:
            rewritten.append((role, content))
    return rewritten


def _requests_after_results(items: list[Item], known: Known) -> list[Item]:
    del known
    # Within a run of results and input requests (a resumed batch's output), requests go after the results.
    rewritten: list[Item] = []
    held: list[Item] = []
    for role, content in items:
        if "user_input_request" in content:
            held.append((role, content))
        elif "function_result" in content:
            rewritten.append((role, content))
        else:
            rewritten += held + [(role, content)]
            held = []
    return rewritten + held


def _optional_response_text(items: list[Item], known: Known) -> list[Item]:
    return [(role, content) for role, content in items if content.get("text") not in known.optional]


def _fallback_after_service_content(items: list[Item], known: Known) -> list[Item]:
    del known
    # Runs after loop-wording, so a text the loop wrote itself reads "<written by the loop>".
    hosted = {str(c["function_call"].get("call_id")) for _, c in items
              if "function_call" in c and c["function_call"].get("server_label") is not None}

    def from_service(content: dict[str, Any]) -> bool:
        if "function_call" in content:
            return content["function_call"].get("server_label") is not None
        if "function_result" in content:
            return str(content["function_result"].get("call_id")) in hosted
        request: dict[str, Any] = content.get("approval_request") or {}
        call: dict[str, Any] = request.get("function_call") or {}
        return call.get("server_label") is not None

    # A blank text of the model's between that content and the loop's text leaves the answer's content the
    # service's (blank texts are compared by blank-text, after this).
    before = [content for _, content in items[:-1] if not _blank(content)]
    if items and items[-1][1].get("text") == "<written by the loop>" and before and from_service(before[-1]):
        return items[:-1]
    return items


DIFFERENCES: tuple[Difference, ...] = (
    Difference("message-grouping",
               "Results of one batch may come in one tool message or one each, and a response's contents in one "
               "assistant message or several: the spec fixes the order of contents, not how messages group them. "
               "(Applied by comparing contents in order, without message boundaries.)",
               lambda items, known: items),
    Difference("loop-wording",
               "Text the loop writes itself (the result of a failed or rejected call, the fallback answer after a "
               "limit) is the loop's own wording; only its presence, place, call id and error flag are compared.",
               _loop_wording),
    Difference("fallback-after-service-content",
               "After a limit, a final answer holding only the service's own tool content (a hosted call, its "
               "result, a hosted approval request) and no text is not blank, so the spec's fallback content is not "
               "owed; a loop may still add a text after that content (the bundled scenario "
               "limits.post-limit-tool-content.mixed-local-and-hosted leaves it to the loop). A trailing text the "
               "loop wrote right after such content (a blank text of the model's in between too) is not compared.",
               _fallback_after_service_content),
    Difference("optional-model-response",
               "A model response the script marks optional (the model call a loop may make or leave out, such as "
               "after a partial decision while another call of the batch still awaits its own) may be used or not: "
               "the text only such a response holds may be absent. The tools' results and executions stay "
               "compared.",
               _optional_response_text),
    Difference("generated-ids",
               "Approval and input requests carry ids the loop generates; they are compared by the call they name. "
               "A hosted service's approval request keeps its id, which the service issued and the loop passes on "
               "(row \"Hosted approval pass-through\").",
               _request_ids),
    Difference("input-request-call",
               "An input request names its call by call id; repeating the call's name and arguments inside it is "
               "required only of a declaration-only call's finalised request (row \"Declaration-only call\"), "
               "which the bundled scenario normal.declaration-only checks; an approved tool's requests on a "
               "resumed stream may carry the call id alone. The call itself, with its name and arguments, stays "
               "compared where the caller sees it.",
               _input_request_call),
    Difference("usage", "Token usage contents are the loop's bookkeeping, not conversation.", _usage),
    Difference("rejection-error-flag",
               "A rejected call gets one synthetic result under its call id (rows \"Rejection call id\", \"Mixed "
               "approved/rejected batch\"); whether the loop flags that result as an error the spec leaves open.",
               _rejection_flag),
    Difference("input-requests-among-results",
               "When a resumed batch both finishes calls (results, rejections) and has an approved tool ask for "
               "input, the spec fixes the roles (row \"Mixed terminal result and follow-up input\": results stay "
               "tool-role, requests are the assistant's) and the results' model order, not where the requests sit "
               "among the results: requests are compared after them.",
               _requests_after_results),
    Difference("blank-text",
               "A blank answer (the model's empty or whitespace-only text) may be shown as it came or not at all: "
               "the spec asks for fallback content beside it after a limit, which loop-wording already compares.",
               _blank_text),
    Difference("parallel-start-order",
               "Calls of one batch run concurrently: the order in which their executions start is the loop's "
               "scheduling (results keep the model's order, which parallel-order checks). Executions are compared "
               "per turn as a multiset. (Applied in `execution_summary`.)",
               lambda items, known: items),
)


def normalised_items(transcript: Sequence[dict[str, Any]], known: Known) -> list[list[Item]]:
    """Per turn, the caller-visible contents in order, rewritten by every accepted difference."""
    turns: list[list[Item]] = []
    for turn in transcript:
        items: list[Item] = [(message["role"], content) for message in turn["response"]
                             for content in message["contents"]]
        for difference in DIFFERENCES:
            items = difference.rewrite(items, known)
        turns.append(items)
    return turns


def execution_summary(executions: Sequence[ToolExecution]) -> list[tuple[int, str, str]]:
    """The executions as a sorted list of (turn, tool, arguments) (see parallel-start-order)."""
    return sorted((e.turn, e.tool, json.dumps(dict(e.arguments), sort_keys=True)) for e in executions)
