"""loop-conformance: a conformance harness for LLM function-calling loops.

The public surface: the neutral transcript vocabulary (`harness.contents`), the adapter contract
(`harness.contract`), loading and running scenarios, and the result types.

The engine is imported on first use, so that importing the value model (`harness.contents`, `harness.script`,
`harness.contract`) — as the fakes and every adapter do — never pulls in the scenario loader, the runner or the
checks, and importing either package first works.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from harness import contents as contents
from harness.contract import (
    DIALECTS,
    ENTRY_POINT_GROUP,
    MODES,
    CallerView,
    Capability,
    Conversation,
    ConversationSetup,
    Dialect,
    LoopAdapter,
    LoopConfig,
    Mode,
    ModelProvider,
    RaisedError,
    Tool,
    Toolbox,
    TransportEvent,
    TransportExchange,
    TurnInput,
    WireEndpoint,
    adapter_approval_controls,
    adapter_dialects,
    adapter_modes,
    adapter_response_shape,
    adapter_unexpressible,
)
from harness.errors import HarnessError, ScenarioFileError, ScenarioProblem, UnknownImplementationError
from harness.results import CheckResult, ScenarioResult, Verdict

if TYPE_CHECKING:
    from harness.run.runner import run_scenario
    from harness.run.suite import BUNDLED_SCENARIOS, SuiteRun, run_suite
    from harness.scenario.loader import discover, load_scenario
    from harness.scenario.model import Scenario

_ENGINE = {
    "run_scenario": "harness.run.runner",
    "BUNDLED_SCENARIOS": "harness.run.suite",
    "SuiteRun": "harness.run.suite",
    "run_suite": "harness.run.suite",
    "discover": "harness.scenario.loader",
    "load_scenario": "harness.scenario.loader",
    "Scenario": "harness.scenario.model",
}


def __getattr__(name: str) -> Any:
    module = _ENGINE.get(name)
    if module is None:
        raise AttributeError(f"module 'harness' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


__all__ = [
    "BUNDLED_SCENARIOS",
    "DIALECTS",
    "ENTRY_POINT_GROUP",
    "MODES",
    "CallerView",
    "Capability",
    "CheckResult",
    "Conversation",
    "ConversationSetup",
    "Dialect",
    "HarnessError",
    "LoopAdapter",
    "LoopConfig",
    "Mode",
    "ModelProvider",
    "RaisedError",
    "Scenario",
    "ScenarioFileError",
    "ScenarioProblem",
    "ScenarioResult",
    "SuiteRun",
    "Tool",
    "Toolbox",
    "TransportEvent",
    "TransportExchange",
    "TurnInput",
    "UnknownImplementationError",
    "Verdict",
    "WireEndpoint",
    "adapter_approval_controls",
    "adapter_dialects",
    "adapter_modes",
    "adapter_response_shape",
    "adapter_unexpressible",
    "contents",
    "discover",
    "load_scenario",
    "run_scenario",
    "run_suite",
]
