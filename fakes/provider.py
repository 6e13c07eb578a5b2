"""A model provider that replays a scenario's script first-in-first-out and records every request."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping, Sequence

from harness.contents import JSON, FunctionCall, Message, Response, Update
from harness.script import (
    ModelRequest,
    ModelStep,
    ScriptedProviderError,
    ScriptedResponseInvalidated,
    ScriptViolation,
)


class ScriptedProvider:
    """Serves each turn's scripted responses in order, in either response mode, and records every request."""

    def __init__(self, turns: Sequence[Sequence[ModelStep]],
                 on_request: Callable[[ModelRequest], None] | None = None) -> None:
        self._turns = [list(steps) for steps in turns]
        # Told of every request as it is made, so a run killed mid-turn still shows how far it got.
        self._on_request = on_request
        self._turn = 0
        self._served = 0
        self.requests: list[ModelRequest] = []
        # The scripted provider acts as a service that stores conversations: each id it issued, with what it holds.
        self._stored: dict[str, tuple[Message, ...]] = {}
        self.violations: list[ScriptViolation] = []

    @property
    def current_turn(self) -> int:
        return self._turn

    def begin_turn(self, turn: int) -> None:
        self._turn = turn
        self._served = 0

    def unused_steps(self) -> list[ModelStep]:
        """Required steps of the current turn that no model call consumed."""
        return [step for step in self._turns[self._turn][self._served :] if not step.optional]

    def served_steps(self) -> list[ModelStep]:
        """Steps of the current turn that model calls consumed, in order."""
        return self._turns[self._turn][: self._served]

    def requests_in_turn(self, turn: int) -> list[ModelRequest]:
        return [request for request in self.requests if request.turn == turn]

    async def complete(
        self,
        messages: Sequence[Message],
        *,
        tool_choice: str | None = None,
        tools: Sequence[str] = (),
        kwargs: Mapping[str, JSON] | None = None,
        conversation_id: str | None = None,
        stored: Sequence[Message] | None = None,
    ) -> Response:
        """Answer one non-streaming model call with the next scripted response.

        `stored` is given by a wire endpoint that keeps conversations itself (and has validated the continuation):
        what it holds for `conversation_id`."""
        step = self._next_step(messages, tool_choice, tools, kwargs, conversation_id, stored, streaming=False)
        return step.response

    async def stream(
        self,
        messages: Sequence[Message],
        *,
        tool_choice: str | None = None,
        tools: Sequence[str] = (),
        kwargs: Mapping[str, JSON] | None = None,
        conversation_id: str | None = None,
    ) -> AsyncIterator[Update]:
        """Answer one streaming model call with the next scripted response, chunk by chunk."""
        step = self._next_step(messages, tool_choice, tools, kwargs, conversation_id, None, streaming=True)
        for update in step.updates:
            yield update

    async def answer_stream(
        self,
        messages: Sequence[Message],
        *,
        tool_choice: str | None = None,
        tools: Sequence[str] = (),
        kwargs: Mapping[str, JSON] | None = None,
        conversation_id: str | None = None,
        stored: Sequence[Message] | None = None,
    ) -> tuple[ModelStep, tuple[Update, ...]]:
        """A streaming model call answered at once, for a wire endpoint that renders the whole event stream."""
        step = self._next_step(messages, tool_choice, tools, kwargs, conversation_id, stored, streaming=True)
        return step, tuple(step.updates)

    def _next_step(
        self,
        messages: Sequence[Message],
        tool_choice: str | None,
        tools: Sequence[str],
        kwargs: Mapping[str, JSON] | None,
        conversation_id: str | None,
        stored: Sequence[Message] | None,
        *,
        streaming: bool,
    ) -> ModelStep:
        number = len(self.requests_in_turn(self._turn)) + 1
        held = tuple(stored) if stored is not None else (
            self._stored.get(conversation_id, ()) if conversation_id is not None else ())
        request = ModelRequest(
            self._turn, number, tuple(messages), tool_choice, tuple(tools), dict(kwargs or {}), streaming,
            conversation_id, held,
        )
        self.requests.append(request)
        if self._on_request is not None:
            self._on_request(request)
        script = self._turns[self._turn]
        if self._served >= len(script):
            message = f"unexpected model call #{number} in turn {self._turn + 1}: the script has {len(script)}"
            self.violations.append(ScriptViolation(self._turn, number, message, request, unforeseen=True))
            raise ScriptedProviderError(message)
        step = script[self._served]
        self._served += 1
        if conversation_id is not None and stored is None and conversation_id not in self._stored:
            # A service rejects a continuation it never issued; the script records it instead of guessing.
            self.violations.append(ScriptViolation(
                self._turn, number, f"model call #{number} continues conversation '{conversation_id}', which no "
                "earlier scripted response issued", request))
        if step.raises is not None:
            if step.fault == "invalidated":
                raise ScriptedResponseInvalidated(step.raises)
            raise ScriptedProviderError(step.raises)
        if step.response.conversation_id is not None:
            # The service stores the conversation up to this response under the id it issues.
            self._stored[step.response.conversation_id] = request.seen + step.response.messages
        if tool_choice == "none" and _has_calls(step.response) and not step.ignores_tool_choice:
            self.violations.append(
                ScriptViolation(
                    self._turn,
                    number,
                    f"model call #{number} was made with tool_choice='none' but its scripted response contains "
                    "function calls; a real provider would not answer so unless marked `ignores_tool_choice: true`",
                    request,
                )
            )
        if tool_choice == "required" and not _has_calls(step.response) and not step.ignores_tool_choice:
            self.violations.append(
                ScriptViolation(
                    self._turn,
                    number,
                    f"model call #{number} was made with tool_choice='required' but its scripted response contains "
                    "no function call; a real provider would not answer so unless marked `ignores_tool_choice: true`",
                    request,
                )
            )
        return step


def _has_calls(response: Response) -> bool:
    return any(isinstance(c, FunctionCall) for m in response.messages for c in m.contents)
