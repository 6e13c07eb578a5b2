"""loop-conformance: a conformance harness for LLM function-calling loops.

The public surface: the neutral transcript vocabulary (`harness.contents`), the adapter contract
(`harness.contract`), loading and running scenarios, and the result types.
"""

# The vocabulary first: `fakes` imports it while this package is still initialising.
from harness import contents as contents  # isort: skip
from harness._loader import discover, load_scenario
from harness._runner import run_scenario
from harness._scenario import Scenario
from harness._suite import BUNDLED_SCENARIOS, SuiteRun, run_suite
from harness.contract import (
    ENTRY_POINT_GROUP,
    MODES,
    CallerView,
    Capability,
    Conversation,
    ConversationSetup,
    LoopAdapter,
    LoopConfig,
    Mode,
    RaisedError,
    TurnInput,
)
from harness.errors import HarnessError, ScenarioFileError, ScenarioProblem, UnknownImplementationError
from harness.results import CheckResult, ScenarioResult, Verdict

__all__ = [
    "BUNDLED_SCENARIOS",
    "ENTRY_POINT_GROUP",
    "MODES",
    "CallerView",
    "Capability",
    "CheckResult",
    "Conversation",
    "ConversationSetup",
    "HarnessError",
    "LoopAdapter",
    "LoopConfig",
    "Mode",
    "RaisedError",
    "Scenario",
    "ScenarioFileError",
    "ScenarioProblem",
    "ScenarioResult",
    "SuiteRun",
    "TurnInput",
    "UnknownImplementationError",
    "Verdict",
    "contents",
    "discover",
    "load_scenario",
    "run_scenario",
    "run_suite",
]
