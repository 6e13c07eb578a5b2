"""Adapter for pydantic-ai (`pydantic-ai-slim`), driven through its agent loop with a scripted `FunctionModel`.

Install with ``pip install 'loop-conformance[pydantic-ai]'``. pydantic-ai is imported only when this adapter is
asked for, so a missing extra costs nothing until then. Like every adapter, it reaches the harness only through
the value model.

Modules: `convert` (parts <-> neutral contents), `stream` (stream items and run events), `model` (the scripted
`FunctionModel`), `tools` (the scenario's tools), `caller` (a caller's run input and the responses it holds),
`conversation` (driving `Agent` in both modes).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from harness.adapters.pydantic_ai.conversation import PydanticAIAdapter


def adapter() -> PydanticAIAdapter:
    """Entry point: the pydantic-ai adapter (raises ImportError when pydantic-ai is not installed)."""
    from harness.adapters.pydantic_ai.conversation import PydanticAIAdapter

    return PydanticAIAdapter()
