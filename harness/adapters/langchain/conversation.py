"""Driving a LangChain agent as its callers do, in both response modes.

- The agent is `create_agent(model, tools, middleware=..., checkpointer=InMemorySaver())`; every run names a
  thread in its config. Non-streaming is `agent.ainvoke`; streaming is `agent.astream` with the ``messages`` and
  ``updates`` stream modes (message chunks as the model streams them, each node's state update, and the
  interrupts).
- History kept by the caller: each turn runs on a fresh thread with the whole history as input. History kept by
  the implementation (``session: true``): every turn continues one thread with only the new input.
- A turn's response is the messages the run added to the thread (its new state messages), read from the thread
  after the run in both modes; a stream's "finalised" response is the same read, after the stream ended.
- A pause for approval is `HumanInTheLoopMiddleware`'s interrupt (`approvals`); the turn that decides resumes the
  paused thread with `Command(resume=...)`, whatever history the caller replays with it. A thread keeps its
  interrupt until it is resumed or given new input (which makes LangGraph start a fresh run), so every pause is
  kept until then.
- `enabled: false` is a model call made without the agent: the chat model with the tools bound, invoked or
  streamed as a caller does when it wants no loop.
"""

from __future__ import annotations

import itertools
import logging
from typing import Any, cast

from langchain_core.messages import AIMessageChunk, BaseMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from harness.adapters.langchain.approvals import Pause, interrupt_on, pause_of, with_requests
from harness.adapters.langchain.caller import CallerInput, Returned, caller_input
from harness.adapters.langchain.chunks import CallerUpdates
from harness.adapters.langchain.convert import neutral_messages
from harness.adapters.langchain.model import ScriptedChatModel
from harness.adapters.langchain.settings import CallerOptions, limit_middleware, settings_handled
from harness.adapters.langchain.tools import ToolErrors, build_tools
from harness.adapters.langchain.tracing import bookkeeping_inline
from harness.contents import Response, Update
from harness.contract import CallerView, ConversationSetup, RaisedError, ScriptedProviderError, TurnInput
from harness.log_capture import captured_logs
from langchain.agents import create_agent  # pyright: ignore[reportUnknownVariableType]
from langchain.agents.middleware import AgentMiddleware, HumanInTheLoopMiddleware


def _caused_by_provider(error: BaseException) -> bool:
    seen: set[int] = set()
    pending: list[BaseException] = [error]
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, ScriptedProviderError):
            return True
        pending.extend(e for e in (current.__cause__, current.__context__) if e is not None)
    return False


def raised(error: Exception) -> RaisedError:
    return RaisedError(type(error).__name__, str(error), "provider" if _caused_by_provider(error) else "loop")


class LangChainConversation:
    def __init__(self, setup: ConversationSetup) -> None:
        self.setup = setup
        self.model = ScriptedChatModel(provider=setup.provider)
        self.tools = build_tools(setup.toolbox.tools)
        self.gated = {name for name, tool in setup.toolbox.tools.items() if tool.spec.approval_required}
        self.options = CallerOptions(setup.tool_choice)
        middleware: list[AgentMiddleware[Any, Any]] = [self.options]
        if self.gated:
            middleware.append(HumanInTheLoopMiddleware(interrupt_on=interrupt_on(sorted(self.gated))))
        middleware += limit_middleware(setup.config)
        middleware.append(ToolErrors(setup.config.include_detailed_errors))
        self.agent: Any = create_agent(self.model, tools=self.tools, middleware=middleware,
                                       checkpointer=InMemorySaver())
        self._threads = itertools.count(1)
        self._session = self._thread()
        # Every pause a run ended with, newest last: a thread keeps its interrupt until it is resumed or given new
        # input, so a caller may still decide on an older one (kept history runs each turn on a thread of its own).
        self.pauses: list[Pause] = []
        self._returned: list[Returned] = []

    def _thread(self) -> dict[str, Any]:
        return {"configurable": {"thread_id": f"thread-{next(self._threads)}"}}

    async def run_turn(self, turn: TurnInput) -> CallerView:
        caller = caller_input(turn.messages)
        self.options.kwargs = dict(turn.kwargs)
        updates = CallerUpdates()
        error: RaisedError | None = None
        done: Returned | None = None
        notes = settings_handled(self.setup.config)
        # LangSmith's bookkeeping inline: the thread pool must not decide which parallel call finishes first.
        with captured_logs("langchain", "langgraph", "langchain_core", level=logging.INFO) as logs, \
                bookkeeping_inline():
            try:
                if self.setup.config.enabled:
                    done = await self._agent_turn(caller, updates, notes)
                else:
                    done = await self._direct_turn(caller, updates)
            except Exception as failure:  # noqa: BLE001 - whatever the caller gets is an observation
                error = raised(failure)
        earlier = tuple(r.reread() for r in self._returned)
        if done is not None:
            self._returned.append(done)
        streamed = tuple(updates.updates) if self.setup.mode == "streaming" else ()
        return CallerView(streamed, done.response if done else None, error, caller.reread(), earlier,
                          tuple(notes + logs.lines))

    # --- the agent ---------------------------------------------------------------------------------------------

    def _run_input(self, caller: CallerInput, notes: list[str]) -> tuple[Any, dict[str, Any], int]:
        """What to run the agent with, on which thread, and how many input messages it adds before the run's own
        (the caller's, not part of the response). Decisions on a pause the adapter still holds resume its thread."""
        for pause in reversed(self.pauses):
            resume = pause.resume(caller.decisions)
            if resume is not None:
                self.pauses.remove(pause)
                return Command(resume=resume), pause.config, 0
        if caller.decisions:
            notes.append("decisions that answer no pending interrupt of this thread are not sent")
        config = self._session if self.setup.use_session else self._thread()
        return {"messages": caller.messages}, config, len(caller.messages)

    async def _agent_turn(self, caller: CallerInput, updates: CallerUpdates, notes: list[str]) -> Returned:
        payload, config, added = self._run_input(caller, notes)
        before = len((await self.agent.aget_state(config)).values.get("messages", []))
        start = before + added
        # The interrupts the run ended with, as its caller reads them: the ``__interrupt__`` of the result or of
        # the stream's updates.
        interrupts: list[Any] = []
        if self.setup.mode == "streaming":
            await self._stream(payload, config, updates, {id(m) for m in caller.messages}, interrupts)
        else:
            result: Any = await self.agent.ainvoke(payload, config)
            if isinstance(result, dict) and "__interrupt__" in result:
                interrupts.extend(cast(list[Any], result["__interrupt__"]))
        state: Any = await self.agent.aget_state(config)
        messages: list[BaseMessage] = list(state.values.get("messages", []))
        # New input on a thread drops the interrupt it held (LangGraph starts a fresh run).
        self.pauses = [p for p in self.pauses if p.config != config]
        pause = pause_of(config, interrupts, messages, self.gated)
        new = messages[start:]
        form = neutral_messages(new)
        contents = form
        if pause is not None:
            self.pauses.append(pause)
            contents = with_requests(form, pause)
            if self.setup.mode == "streaming":
                updates.updates.append(Update("assistant", pause.requests, pause.message_id))
        finish = new[-1].response_metadata.get("finish_reason") if new else None
        return Returned(new, form, Response(contents, finish if isinstance(finish, str) else None))

    async def _stream(self, payload: Any, config: dict[str, Any], updates: CallerUpdates, sent: set[int],
                      interrupts: list[Any]) -> None:
        """The agent's stream: message chunks become the caller's updates, interrupts are collected."""
        async for mode, data in self.agent.astream(payload, config, stream_mode=["messages", "updates"]):
            if mode == "messages":
                message = data[0]
                if id(message) not in sent and (isinstance(message, AIMessageChunk) or message.id is not None):
                    updates.add(message)
            elif mode == "updates" and isinstance(data, dict) and "__interrupt__" in data:
                interrupts.extend(cast(list[Any], data["__interrupt__"]))

    # --- without the loop --------------------------------------------------------------------------------------

    async def _direct_turn(self, caller: CallerInput, updates: CallerUpdates) -> Returned:
        """Function invocation off: one call of the chat model with the tools bound, no agent around it."""
        offered = [t for t in self.tools if t.name in {o.name for o in self.setup.toolbox.offered()}]
        bound = self.model.bind_tools(offered, tool_choice=self.options.tool_choice, **self.options.kwargs)
        if self.setup.mode == "streaming":
            total: AIMessageChunk | None = None
            async for chunk in bound.astream(caller.messages):
                assert isinstance(chunk, AIMessageChunk)
                updates.add(chunk)
                total = chunk if total is None else total + chunk
            message: BaseMessage | None = total
        else:
            message = await bound.ainvoke(caller.messages)
        new: list[BaseMessage] = [message] if message is not None else []
        form = neutral_messages(new)
        return Returned(new, form, Response(form))

    async def close(self) -> None:
        return None
