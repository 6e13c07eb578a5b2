"""ToolCallLimitMiddleware(exit_behavior="end") leaves the batch's other calls without results.

What it shows
    An agent from `langchain.agents.create_agent` with `ToolCallLimitMiddleware(run_limit=2, exit_behavior="end")`.
    The model asks for three calls of `search` in one response (c1, c2, c3): one more than the budget. The
    middleware runs none of them and ends the run, but only c3, the call over the limit, gets a `ToolMessage`
    ("Tool call limit exceeded..."); c1 and c2 stay in the thread's messages with no result. The transcript the
    caller gets back, and that the thread keeps for its next model call, holds calls without results (a provider
    such as OpenAI refuses such a request).

    Control: the same response with `run_limit=3` (within budget): all three run and each has its result.

Spec rows violated (spec 004)
    "Maximum function calls" with every call getting exactly one terminal result: a loop that stops at a budget
    closes every call of the batch it did not run (no call without its result in the transcript).

Affected releases
    langchain 1.0 - 1.2 (checked 1.0.8, 1.1.3, 1.2.18); from 1.3 the middleware adds a ToolMessage for each other
    pending call ("Execution stopped before this tool call could run because another tool call in the same batch
    exceeded the limit.").

Run
    <venv with langchain>/bin/python repro/langchain/tool_limit_end_leaves_calls_without_results.py
    Exit status 1: the defect is present (calls without results after the limit ended the run).
    Exit status 0: every call of the batch has its result.
"""

from __future__ import annotations

import importlib.metadata
import sys
from typing import Any

from langchain.agents import create_agent
from langchain.agents.middleware import ToolCallLimitMiddleware
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool

CALLS = [{"id": f"c{i}", "name": "search", "args": {"query": q}, "type": "tool_call"}
         for i, q in ((1, "a"), (2, "b"), (3, "c"))]


class ScriptedModel(BaseChatModel):
    """Answers from a fixed script."""

    script: list[AIMessage]

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Any, *, tool_choice: Any = None, **kwargs: Any) -> Any:
        return self

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self.script.pop(0))])


@tool
def search(query: str) -> str:
    """Search."""
    return "a result"


def without_results(run_limit: int) -> list[str]:
    model = ScriptedModel(script=[AIMessage("", tool_calls=CALLS), AIMessage("Here are three results.")])
    agent = create_agent(model, tools=[search],
                         middleware=[ToolCallLimitMiddleware(run_limit=run_limit, exit_behavior="end")])
    messages: list[BaseMessage] = agent.invoke({"messages": [HumanMessage("Search a, b and c.")]})["messages"]
    answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
    return [str(c["id"]) for m in messages if isinstance(m, AIMessage) for c in m.tool_calls
            if c["id"] not in answered]


def main() -> int:
    print(f"langchain {importlib.metadata.version('langchain')}, langgraph {importlib.metadata.version('langgraph')}")
    control = without_results(3)
    print(f"control (run_limit=3, within budget): calls without results: {control or 'none'}")
    if control:
        print("  the control case failed: this script cannot judge this release")
        return 2
    found = without_results(2)
    print(f"run_limit=2, three calls in one response: calls without results: {found or 'none'}")
    print("DEFECT PRESENT" if found else "defect absent")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
