"""Wire fakes: the scenario's script served in a real provider's HTTP format, to that provider's own client."""

from __future__ import annotations

from fakes.provider import ScriptedProvider
from fakes.wire.service import WireDialect, WireService
from harness.contract import Dialect
from harness.script import Exchange, Rejection

__all__ = ["Exchange", "Rejection", "WireService", "make_wire_endpoint", "wire_dialect"]


def wire_dialect(dialect: Dialect) -> WireDialect:
    """The codec of a dialect; raises `ImportError` when the dialect's HTTP library is not installed."""
    import importlib

    if dialect == "gemini":
        importlib.import_module("httpx")  # google-genai takes an httpx client
        from fakes.wire.gemini import Gemini

        return Gemini()
    from fakes.wire.common import openai_http_library

    # Every OpenAI dialect is served through the SDK's own HTTP library, which changed with its 3.0.
    importlib.import_module(openai_http_library())
    if dialect == "openai-responses":
        from fakes.wire.openai_responses import OpenAIResponses

        return OpenAIResponses()
    if dialect == "openai-chat":
        from fakes.wire.openai_chat import OpenAIChat

        return OpenAIChat()
    raise ImportError(f"no wire fake for the {dialect} dialect yet")


def make_wire_endpoint(dialect: Dialect, provider: ScriptedProvider) -> WireService:
    """The in-process endpoint serving `provider`'s script in `dialect`'s format."""
    return WireService(wire_dialect(dialect), provider)
