"""Hypothesis strategies for whole conversations: tools, model scripts, caller turns and loop settings.

Each example is a `ScenarioSpec`, the very structure the loader validates a scenario file into, so any example can be
written out as YAML and loaded back (`harness.fuzz.yaml_form`). A generated scenario states no expectations: the
oracles judge it (`harness.fuzz.oracle`). Its script must still be the one a correct loop consumes exactly, or the
`script` check would fail every loop; the strategy therefore plays each turn forward under the spec's limits
(`_TurnBudget`) and scripts a tool-disabled final answer exactly where a limit forces one.

Hosted approval requests (capabilities `hosted-tools` and `approval`): the service asks the caller to approve a call
of its own tool (an MCP server it runs), alone in a response or beside local calls. The request is the service's
protocol data, so a correct loop consumes no model response for it and runs nothing: it only carries it to the
caller, and the caller's decision (an `approval_response` naming the request's id, written as a caller who holds
the service's request writes it) to the service on the next model call. After a decision that a caller replaying its
own history would have to leave out of every later request (spec: "Callers that manually own and replay message
history ... must likewise omit a previously submitted approval response"), which `history: previous` cannot, a
caller-history conversation ends.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from harness.limits import DEFAULT_MAX_CONSECUTIVE_ERRORS, DEFAULT_MAX_ITERATIONS
from harness.scenario.schema import ScenarioSpec

# Argument and text characters: ASCII, multi-byte (two, three and four UTF-8 bytes) and JSON-special ones.
_CHARACTERS = st.sampled_from(list("ab z") + ["é", "中", "😀", '"', "\\", "\n"])
_SHORT_TEXT = st.text(_CHARACTERS, min_size=1, max_size=6)
_EXCEPTIONS = ("RuntimeError", "ValueError", "KeyError", "TimeoutError")
_PARAMETERS: dict[str, Any] = {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}
MAX_ROUNDS = 4  # tool-calling model responses a turn may script


@dataclass(frozen=True)
class FuzzTool:
    name: str
    raises: str | None  # the exception type it raises, or None: it returns
    approval: bool
    delay: int
    declaration_only: bool = False  # the caller implements it: a call pauses the turn for the caller's result
    requests_input: int = 0  # when approved and run, it asks the caller for this many inputs instead of returning

    def data(self, number: int) -> dict[str, Any]:
        data: dict[str, Any] = {"name": self.name, "parameters": _PARAMETERS}
        if self.declaration_only:
            return data | {"declaration_only": True}
        behaviour: dict[str, Any]
        if self.requests_input:
            behaviour = {"request_input": [{"question": f"input {number}.{n + 1}"} for n in range(self.requests_input)]}
        elif self.raises:
            behaviour = {"raise": f"failure {number}", "exception": self.raises}
        else:
            behaviour = {"return": f"result {number}"}
        if self.delay:
            behaviour["delay"] = self.delay
        data["behaviour"] = [behaviour]
        if self.approval:
            data["approval"] = "required"
        return data

    @property
    def pauses(self) -> bool:
        """A call of this tool ends the turn before the loop's next model call (approval or the caller's result)."""
        return self.approval or self.declaration_only


@dataclass
class _TurnBudget:
    """What a correct loop has spent in one turn, and whether its next model call must go without tools.

    The counters restart with every caller turn, as the spec's limits are per invocation of the loop.
    """

    max_iterations: int | None
    max_function_calls: int | None
    max_consecutive_errors: int | None
    iterations: int = 0
    function_calls: int = 0
    errors_in_row: int = 0

    def exhausted(self) -> bool:
        cap = DEFAULT_MAX_CONSECUTIVE_ERRORS if self.max_consecutive_errors is None else self.max_consecutive_errors
        return (self.iterations >= (self.max_iterations or DEFAULT_MAX_ITERATIONS)
                or (self.max_function_calls is not None and self.function_calls >= self.max_function_calls)
                or (cap > 0 and self.errors_in_row >= cap))

    def spend(self, calls: int, failed: bool) -> None:
        self.iterations += 1
        self.function_calls += calls
        self.errors_in_row = self.errors_in_row + 1 if failed else 0


@dataclass
class _Script:
    """A conversation being drawn: its tools, settings, turns, and the call ids already used."""

    tools: list[FuzzTool]
    config: dict[str, Any]
    session: bool
    reasoning: bool
    hosted: bool = False  # the model may return calls a hosted service ran, with their results
    hosted_approvals: bool = False  # the model may return a hosted service's approval requests
    turns: list[dict[str, Any]] = field(default_factory=lambda: [])
    calls_made: int = 0
    awaiting_input: bool = False  # an approved tool asked the caller for input: the conversation ends there
    # Hosted approval requests the model returned that the caller has not answered yet, in order.
    hosted_pending: list[dict[str, Any]] = field(default_factory=lambda: [])
    # The caller answered a hosted request; with caller-kept history, nothing may follow (module docstring).
    hosted_decided: bool = False
    # Approved hosted calls the service runs on the next model call and returns with their results.
    hosted_running: list[dict[str, Any]] = field(default_factory=lambda: [])

    def budget(self) -> _TurnBudget:
        return _TurnBudget(self.config.get("max_iterations"), self.config.get("max_function_calls"),
                           self.config.get("max_consecutive_errors"))


@st.composite
def conversations(draw: st.DrawFn, capabilities: Collection[str] = ()) -> ScenarioSpec:
    """A valid scenario within `capabilities` (approvals, sessions, reasoning, declaration-only tools, input
    requests and hosted calls only where the loop has them)."""
    approvals = "approval" in capabilities and draw(st.booleans())
    tools = draw(_tools(approvals, declarations="declaration-only" in capabilities,
                        input_requests=approvals and "user-input" in capabilities))
    config: dict[str, Any] = {} if approvals else draw(_limits())
    session = "sessions" in capabilities and draw(st.booleans())
    hosted = {"hosted-tools", "informational-only"} <= set(capabilities) and draw(st.booleans())
    hosted_approvals = {"hosted-tools", "approval"} <= set(capabilities) and draw(st.booleans())
    script = _Script(tools, config, session, "reasoning" in capabilities and draw(st.booleans()), hosted,
                     hosted_approvals)
    for number in range(draw(st.integers(1, 3))):
        if script.awaiting_input or (script.hosted_decided and not session):
            break  # the caller has no way to answer an input request in a scenario: nothing may follow it
        replay = [] if session or number == 0 else [{"history": "previous"}]
        if script.hosted_pending and draw(st.booleans()):
            # The caller's next turn answers the service's pending approval requests (and nothing else).
            pending = _play_turn(draw, script, [*replay, _hosted_decisions(draw, script)])
        else:
            text = draw(_SHORT_TEXT)
            pending = _play_turn(draw, script, [*replay, {"user": f"request {number + 1}: {text}"}])
        while pending:
            if script.hosted_decided and not session:
                break  # a resume would replay the submitted hosted decision: the pause stays unanswered
            replay = [] if session else [{"history": "previous"}]
            if any(tool.declaration_only for _, tool in pending):
                # The caller runs its own tool and answers with the result, as a host implementing it would.
                results = [{"function_result": {"call_id": call_id, "result": f"caller result {call_id}"}}
                           for call_id, _ in pending]
                pending = _play_turn(draw, script, [*replay, {"message": {"role": "tool", "contents": results}}])
                continue
            decisions = {call_id: draw(st.sampled_from(["approve", "reject"])) for call_id, tool in pending
                         if tool.approval}
            hosted_answer: list[dict[str, Any]] = []
            asks_input = any(tool.requests_input and decisions.get(call_id) == "approve" for call_id, tool in pending)
            if script.hosted_pending and not asks_input and draw(st.booleans()):
                # With the local decisions, the caller answers the service's requests too (a resume that ends at
                # an approved tool's input request makes no model call, so no hosted decision travels with it).
                hosted_answer = [_hosted_decisions(draw, script)]
            pending = _play_turn(draw, script, [*replay, *hosted_answer, {"approvals": decisions}],
                                 held=(pending, decisions))
    requires = ["approval"] if approvals else []
    if session:
        requires.append("sessions")
    if any("reasoning" in c for turn in script.turns for step in turn.get("model", []) for c in _step_contents(step)):
        requires.append("reasoning")
    if any(tool.declaration_only for tool in tools):
        requires.append("declaration-only")
    if any(tool.requests_input for tool in tools):
        requires.append("user-input")
    if any(_is_hosted(c) for turn in script.turns for step in turn.get("model", []) for c in _step_contents(step)):
        requires.extend(["hosted-tools", "informational-only"])
    if any(_is_hosted_request(c) for turn in script.turns for step in turn.get("model", [])
           for c in _step_contents(step)):
        requires.extend(["approval", "hosted-tools"])
    requires = sorted(set(requires))
    data: dict[str, Any] = {
        "id": "fuzz.generated",
        "title": "A generated conversation",
        "spec": ["Multiple sequential rounds"],
        "tools": [tool.data(n + 1) for n, tool in enumerate(tools)],
        "turns": script.turns,
    }
    if requires:
        data["requires"] = requires
    if session:
        data["session"] = True
    if config:
        data["config"] = config
    return ScenarioSpec.model_validate(data)


def _tools(approvals: bool, *, declarations: bool, input_requests: bool) -> st.SearchStrategy[list[FuzzTool]]:
    one = st.builds(FuzzTool, name=st.just(""), raises=st.none() | st.sampled_from(_EXCEPTIONS),
                    approval=st.booleans() if approvals else st.just(False), delay=st.integers(0, 3),
                    declaration_only=st.booleans() if declarations else st.just(False),
                    requests_input=st.integers(0, 2) if input_requests else st.just(0))

    def named(tools: list[FuzzTool]) -> list[FuzzTool]:
        # An approval-required tool only returns (or asks for input): an error cap reached across a pause would
        # make the script depend on how a loop carries its error count into the resumed turn, which the spec
        # leaves open. Input requests are the spec's for approved tools only (row "Approval-time user input").
        # A declaration-only tool has no behaviour, and needs no approval: the caller runs it.
        return [FuzzTool(f"tool_{n + 1}", None if t.approval or t.declaration_only else t.raises,
                         t.approval and not t.declaration_only, 0 if t.declaration_only else t.delay,
                         t.declaration_only, t.requests_input if t.approval and not t.declaration_only else 0)
                for n, t in enumerate(tools)]

    return st.lists(one, min_size=1, max_size=3).map(named)


def _limits() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({}, optional={
        "max_iterations": st.integers(1, 3),
        "max_function_calls": st.integers(1, 4),
        "max_consecutive_errors": st.integers(1, 3),
    })


Batch = list[tuple[str, FuzzTool]]


def _play_turn(draw: st.DrawFn, script: _Script, inputs: list[dict[str, Any]],
               held: tuple[Batch, dict[str, str]] | None = None) -> Batch:
    """Script one caller turn: tool-calling rounds until the model answers, a limit forces it, or a call pauses
    the turn (it needs approval, or the caller implements it). Returns the batch that waits for the caller
    (empty when the turn ended otherwise)."""
    budget = script.budget()
    if held is not None:
        # The held batch runs before the first model call of this turn: its safe calls, and the approved ones
        # (which only return or ask for input); rejected calls get a rejection, which spends nothing.
        batch, decisions = held
        ran = [tool for call_id, tool in batch if not tool.approval or decisions.get(call_id) == "approve"]
        budget.function_calls += len(ran)
        budget.errors_in_row = 1 if any(tool.raises for tool in ran) else 0
        if any(tool.requests_input for tool in ran):
            # The turn returns the input requests without calling the model (row "Approval-time user input").
            script.awaiting_input = True
            script.turns.append({"input": inputs})
            return []
    steps: list[dict[str, Any]] = []
    pending: Batch = []
    for _ in range(draw(st.integers(0, MAX_ROUNDS))):
        if budget.exhausted():
            break
        step, calls = _calls_step(draw, script)
        steps.append(step)
        if any(tool.pauses for _, tool in calls):
            pending = calls
            break
        budget.spend(len(calls), any(tool.raises for _, tool in calls))
    if not pending:
        steps.append(_final_step(draw, script, limited=budget.exhausted()))
    if script.hosted_running:
        # The service ran the calls the caller approved in this turn's input: the first response returns each with
        # its result, ahead of the rest.
        ran = [c for call in script.hosted_running
               for c in ({"function_call": call | {"informational_only": True}},
                         {"function_result": {"call_id": call["call_id"],
                                              "result": f"hosted result {call['call_id']}"}})]
        first = steps[0]["messages"][0] if "messages" in steps[0] else steps[0]
        first["contents"] = [*ran, *first["contents"]]
        script.hosted_running = []
    script.turns.append({"input": inputs, "model": steps})
    return pending


def _calls_step(draw: st.DrawFn, script: _Script) -> tuple[dict[str, Any], list[tuple[str, FuzzTool]]]:
    """One response with one or more calls, maybe after reasoning, maybe across two assistant messages."""
    chosen = draw(st.lists(st.sampled_from(script.tools), min_size=1, max_size=3))
    if any(tool.declaration_only for tool in chosen):
        # A caller answers a declaration-only call with its result; what a loop does with the other calls of
        # such a batch (run them now, or hold them) the spec leaves open, so the batch holds only such calls.
        chosen = [tool for tool in chosen if tool.declaration_only]
    calls: list[tuple[str, FuzzTool]] = []
    contents: list[dict[str, Any]] = []
    used: set[str] = set()
    for tool in chosen:
        call_id = _call_id(draw, script, tool, used)
        used.add(call_id)
        calls.append((call_id, tool))
        contents.append({"function_call": {"call_id": call_id, "name": tool.name,
                                           "arguments": {"x": draw(_SHORT_TEXT)}}})
    if script.reasoning and draw(st.booleans()):
        contents.insert(0, {"reasoning": {"text": draw(_SHORT_TEXT), "signature": f"sig-{script.calls_made}"}})
    if script.hosted_approvals and not script.hosted_decided and draw(st.booleans()):
        # The service asks for approval of its own tool's call in the same response as the local calls: the loop
        # handles the local calls as ever and carries the service's request to the caller. (Not after a decision:
        # a caller keeping its history could answer it only by replaying the earlier decision; see above.)
        # Anywhere but between a reasoning item and the call it explains.
        after_reasoning = 1 if "reasoning" in contents[0] else 0
        place = draw(st.sampled_from([0, *range(after_reasoning + 1, len(contents) + 1)]))
        contents.insert(place, _hosted_request(draw, script))
    if len(calls) > 1 and draw(st.booleans()):
        return {"messages": [{"role": "assistant", "contents": contents[:-1]},
                             {"role": "assistant", "contents": contents[-1:]}]}, calls
    return {"contents": contents}, calls


def _call_id(draw: st.DrawFn, script: _Script, tool: FuzzTool, used: set[str]) -> str:
    """A fresh call id, or (for a tool needing no approval) one an earlier round already used and completed."""
    script.calls_made += 1
    fresh = f"c{script.calls_made}"
    if tool.pauses:
        return fresh  # decisions and caller results name their call by id: it must stay unambiguous
    # Calls a provider returned despite tool_choice none never ran: reusing their ids is another story.
    # Nor do a hosted service's calls share ids with local ones: they are the service's.
    earlier = sorted({c["function_call"]["call_id"] for turn in script.turns for step in turn.get("model", [])
                      if not step.get("ignores_tool_choice")
                      for c in _step_contents(step) if "function_call" in c and not _is_hosted(c)} - used)
    gated = {t.name for t in script.tools if t.pauses}
    earlier = [call_id for call_id in earlier if not _names_gated(script, call_id, gated)]
    if earlier and draw(st.booleans()):
        return draw(st.sampled_from(earlier))
    return fresh


def _names_gated(script: _Script, call_id: str, gated: set[str]) -> bool:
    return any(c["function_call"]["call_id"] == call_id and c["function_call"]["name"] in gated
               for turn in script.turns for step in turn.get("model", []) for c in _step_contents(step)
               if "function_call" in c)


def _hosted_request(draw: st.DrawFn, script: _Script) -> dict[str, Any]:
    """A hosted service's approval request for a call of its own tool: named like no local tool, or like one (a
    local namesake the loop must not run for it). The service issued it, so its id is the service's."""
    script.calls_made += 1
    number = script.calls_made
    name = draw(st.sampled_from(["search_docs", *(tool.name for tool in script.tools)]))
    request = {"id": f"mcpr-{number}",
               "function_call": {"call_id": f"h{number}", "name": name, "arguments": {"x": draw(_SHORT_TEXT)},
                                 "server_label": "docs"}}
    script.hosted_pending.append(request)
    return {"approval_request": request}


def _hosted_decisions(draw: st.DrawFn, script: _Script) -> dict[str, Any]:
    """The caller's answer to every pending hosted request, by the service's request id, in one user message; an
    approved call is run by the service, which returns it with its result on the next model call (when the loop
    can carry such informational calls)."""
    contents: list[dict[str, Any]] = []
    for request in script.hosted_pending:
        approved = draw(st.booleans())
        contents.append({"approval_response": {"id": request["id"], "approved": approved,
                                               "function_call": dict(request["function_call"])}})
        if approved and script.hosted:
            script.hosted_running.append(request["function_call"])
    script.hosted_pending = []
    script.hosted_decided = True
    return {"message": {"role": "user", "contents": contents}}


def _step_contents(step: dict[str, Any]) -> list[dict[str, Any]]:
    if "messages" in step:
        return [c for message in step["messages"] for c in message["contents"]]
    return list(step.get("contents", []))


def _is_hosted(content: dict[str, Any]) -> bool:
    return "function_call" in content and bool(content["function_call"].get("informational_only"))


def _is_hosted_request(content: dict[str, Any]) -> bool:
    request = content.get("approval_request")
    return request is not None and request["function_call"].get("server_label") is not None


def _final_step(draw: st.DrawFn, script: _Script, *, limited: bool) -> dict[str, Any]:
    """The model's answer: text (possibly blank), maybe after a call a hosted service ran and its result; or, when
    a limit disabled tools, maybe local calls anyway (a provider fault the loop must survive: it neither runs nor
    shows them)."""
    local = [tool for tool in script.tools if not tool.declaration_only]
    if limited and local and draw(st.booleans()):
        tool = draw(st.sampled_from(local))
        script.calls_made += 1
        call = {"call_id": f"c{script.calls_made}", "name": tool.name, "arguments": {"x": draw(_SHORT_TEXT)}}
        return {"ignores_tool_choice": True, "contents": [{"function_call": call}]}
    contents: list[dict[str, Any]] = []
    if script.hosted and draw(st.booleans()):
        # A provider-executed call and its result stay visible, and never run locally (row "Provider tool content
        # after an active limit" keeps them after a limit too); its name is no local tool's.
        script.calls_made += 1
        call_id = f"h{script.calls_made}"
        contents += [{"function_call": {"call_id": call_id, "name": "web_search", "arguments": {"x": draw(_SHORT_TEXT)},
                                        "server_label": "web", "informational_only": True}},
                     {"function_result": {"call_id": call_id, "result": f"hosted result {call_id}"}}]
    if script.hosted_approvals and not script.hosted_decided and draw(st.booleans()):
        # The service asks the caller to approve a call of its own tool; the answer is the caller's next turn.
        contents.append(_hosted_request(draw, script))
    contents.append({"text": draw(st.just("") | _SHORT_TEXT)})
    step: dict[str, Any] = {"contents": contents}
    if limited and len(contents) > 1:
        step["ignores_tool_choice"] = True  # the service ran its own tool although tools were disabled
    return step
