"""The LangChain adapter as the harness registers it: what it claims, and the scenarios it cannot express."""

from __future__ import annotations

import importlib.metadata
from typing import cast

from harness.adapters.langchain.conversation import LangChainConversation
from harness.adapters.langchain.settings import UNEXPRESSIBLE
from harness.contract import Capability, ClaimedProfile, ConversationSetup

# LangGraph runs the agent loop that `create_agent` builds; the middleware modules hold its approval and limits.
LOOP_MODULES = (
    "langchain.agents.factory",
    "langchain.agents.middleware.human_in_the_loop",
    "langchain.agents.middleware.model_call_limit",
    "langchain.agents.middleware.tool_call_limit",
    "langgraph.prebuilt.tool_node",
)


class LangChainAdapter:
    """LangChain's `create_agent` loop of the installed langchain, on LangGraph."""

    name = "langchain"
    # LangChain does not claim spec 004's mechanisms (its error cap, its final tool-less call, its message shapes);
    # it owes its callers safety, and only that gates.
    profiles: frozenset[ClaimedProfile] = frozenset({"safety"})
    unexpressible = UNEXPRESSIBLE
    # One `AIMessage` per model call: a response of several assistant messages arrives joined.
    response_shape = "one-message-per-model-call"
    # LangGraph resumes only the interrupt its checkpointed thread holds: decisions on hand-written requests have no
    # form.
    approval_controls = "own-pauses"
    loop_modules = LOOP_MODULES

    def __init__(self) -> None:
        self.version = importlib.metadata.version("langchain")
        # The loop settings it has a counterpart for (`settings`), named as the setting capabilities of the profiles
        # work name them; max_consecutive_errors and terminate_on_unknown_calls have none.
        settings = cast(set[Capability], {"iteration-budget", "function-call-budget", "detailed-errors",
                                          "invocation-toggle"})
        self.capabilities: frozenset[Capability] = frozenset({
            "approval", "invocation-kwargs", "reasoning", "sessions", "signature-tools", *settings,
        })

    def open(self, setup: ConversationSetup) -> LangChainConversation:
        return LangChainConversation(setup)
