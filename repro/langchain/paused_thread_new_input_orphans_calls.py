"""A new message on a thread paused by HumanInTheLoopMiddleware sends the model the paused calls without results.

What it shows
    An agent from `langchain.agents.create_agent` with `HumanInTheLoopMiddleware(interrupt_on={"restart_service":
    True})` and an `InMemorySaver` checkpointer. Turn 1 ("Check the api service, then restart it."): the model calls
    read_status (s1, not gated) and restart_service (a1, gated) in one response; the run pauses with the
    middleware's interrupt, nothing has run. Turn 2, on the same thread, the caller asks something else before
    deciding ("Before that, what time is it?"), the way LangGraph takes new input: `agent.invoke({"messages":
    [...]}, config)`. LangGraph starts a new run from that input; the pending interrupt is dropped, and the model
    call receives the paused `AIMessage` with both tool calls and no `ToolMessage` for either: calls without
    results (a provider such as OpenAI refuses that request). A later `Command(resume=...)` finds no interrupt to
    resume, so the approved call never runs. A caller that keeps the history itself (turn 1's messages, then the
    new question, on a new thread) gets the same: the model receives both calls without results.

    Control: the same turn 1, then turn 2 resumes with `Command(resume={"decisions": [{"type": "approve"}]})`; the
    model's next call holds both calls, each with its result.

    Shown with `invoke` and with `stream(stream_mode="messages")`: the same model input both ways.

Spec rows violated (spec 004)
    "Unrelated turn before approval" / "Pending history turn": an unresolved approval batch is omitted atomically
    from unrelated model input (no call without its result reaches the model) while a later decision can still
    resume it once.

Run
    <venv with langchain>/bin/python repro/langchain/paused_thread_new_input_orphans_calls.py
    Exit status 1: the defect is present (the unrelated turn's model input holds calls without results).
    Exit status 0: it holds none, and the control resumes cleanly.
"""

from __future__ import annotations

import importlib.metadata
import sys
from typing import Any

from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

CALLS = [{"id": "s1", "name": "read_status", "args": {"service": "api"}, "type": "tool_call"},
         {"id": "a1", "name": "restart_service", "args": {"service": "api"}, "type": "tool_call"}]


class ScriptedModel(BaseChatModel):
    """Answers from a fixed script and records the messages of every call."""

    script: list[AIMessage]
    received: list[list[BaseMessage]] = []

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Any, *, tool_choice: Any = None, **kwargs: Any) -> Any:
        return self

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        self.received.append(list(messages))
        return ChatResult(generations=[ChatGeneration(message=self.script.pop(0))])


@tool
def read_status(service: str) -> str:
    """Read a service's status."""
    return "healthy"


@tool
def restart_service(service: str) -> str:
    """Restart a service."""
    return "restarted"


def orphans(messages: list[BaseMessage]) -> list[str]:
    """Ids of the tool calls in `messages` that no ToolMessage answers."""
    answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
    return [str(c["id"]) for m in messages if isinstance(m, AIMessage) for c in m.tool_calls
            if c["id"] not in answered]


def run(second_turn: Any, streaming: bool, kept_by_caller: bool = False) -> list[BaseMessage]:
    """Turn 1 pauses; `second_turn` goes to the same thread (or, `kept_by_caller`, the caller replays turn 1's
    messages before it on a new thread). Returns what the model received next."""
    model = ScriptedModel(script=[AIMessage("", tool_calls=CALLS), AIMessage("Done.")])
    agent = create_agent(model, tools=[read_status, restart_service], checkpointer=InMemorySaver(),
                         middleware=[HumanInTheLoopMiddleware(interrupt_on={"restart_service": True})])
    config: Any = {"configurable": {"thread_id": "t"}}
    first = agent.invoke({"messages": [HumanMessage("Check the api service, then restart it.")]}, config)
    assert "__interrupt__" in first, "turn 1 did not pause for approval"
    if kept_by_caller:
        config = {"configurable": {"thread_id": "t2"}}
        second_turn = {"messages": [*first["messages"], *second_turn["messages"]]}
    if streaming:
        for _ in agent.stream(second_turn, config, stream_mode="messages"):
            pass
    else:
        agent.invoke(second_turn, config)
    return model.received[-1]


def main() -> int:
    print(f"langchain {importlib.metadata.version('langchain')}, langgraph {importlib.metadata.version('langgraph')}")
    defect = False
    for streaming in (False, True):
        mode = "stream" if streaming else "invoke"
        control = run(Command(resume={"decisions": [{"type": "approve"}]}), streaming)
        print(f"[{mode}] control (resume with approval): calls without results sent to the model: "
              f"{orphans(control) or 'none'}")
        if orphans(control):
            print("  the control case failed: this script cannot judge this release")
            return 2
        unrelated = run({"messages": [HumanMessage("Before that, what time is it?")]}, streaming)
        found = orphans(unrelated)
        print(f"[{mode}] new message on the paused thread: calls without results sent to the model: "
              f"{found or 'none'}")
        replayed = run({"messages": [HumanMessage("Before that, what time is it?")]}, streaming, kept_by_caller=True)
        kept = orphans(replayed)
        print(f"[{mode}] the caller's own history of the pause, then a new message: calls without results sent to "
              f"the model: {kept or 'none'}")
        defect = defect or bool(found) or bool(kept)
    print("DEFECT PRESENT" if defect else "defect absent")
    return 1 if defect else 0


if __name__ == "__main__":
    sys.exit(main())
