"""Adapter for Google's Agent Development Kit (`google-adk`): an `LlmAgent` over a scripted `BaseLlm`, run by ADK's
`Runner` with an `InMemorySessionService`.

Install with ``pip install 'loop-conformance[google-adk]'``. ADK is imported only when this adapter is asked for, so
a missing extra costs nothing until then. No API key is needed and nothing leaves the process: the model is the
harness's scripted provider behind a `BaseLlm`, and no telemetry exporter is configured.

Modules: `convert` (genai `Content` and `Part` <-> neutral contents), `model` (the scripted `BaseLlm`), `tools` (the
scenario's tools as `FunctionTool`s), `history` (a caller's messages as session events and the new message),
`events` (the runner's events as what the caller saw), `limits` (settings without an ADK counterpart),
`conversation` (driving the `Runner` in both modes).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from harness.adapters.google_adk.conversation import GoogleAdkAdapter


def adapter() -> GoogleAdkAdapter:
    """Entry point: the Google ADK adapter (raises ImportError when google-adk is not installed)."""
    from harness.adapters.google_adk.conversation import GoogleAdkAdapter

    return GoogleAdkAdapter()
