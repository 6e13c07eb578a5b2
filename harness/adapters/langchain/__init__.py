"""Adapter for LangChain 1.x agents (`langchain.agents.create_agent`, run by LangGraph), driven as its callers do.

Install with ``pip install 'loop-conformance[langchain]'``. LangChain is imported only when this adapter is asked
for, so a missing extra costs nothing until then. Like every adapter, it reaches the harness only through the
value model.

Modules: `convert` (LangChain messages <-> neutral contents), `chunks` (streamed chunks <-> neutral updates),
`model` (the scripted `BaseChatModel`), `tools` (the scenario's tools and the caller's tool-error handling),
`approvals` (human-in-the-loop interrupts <-> approval requests and decisions), `settings` (loop settings as
LangChain middleware, and the scenarios whose settings have no counterpart), `conversation` (driving the agent in
both modes), `registration` (what the harness registers).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from harness.adapters.langchain.registration import LangChainAdapter


def adapter() -> LangChainAdapter:
    """Entry point: the LangChain adapter (raises ImportError when langchain is not installed)."""
    from harness.adapters.langchain.registration import LangChainAdapter

    return LangChainAdapter()
