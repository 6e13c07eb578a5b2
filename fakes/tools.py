"""Scripted tools: each invocation plays the next scripted behaviour and is recorded with its arguments."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence

from harness.contents import JSON
from harness.script import ScriptedToolError, ToolExecution, ToolOutcome, ToolSpec


class ScriptedTool:
    """Plays its behaviours in order (the last one repeats) and records every execution."""

    def __init__(self, spec: ToolSpec, box: ScriptedToolbox) -> None:
        self.spec = spec
        self._box = box
        self._invocations = 0

    @property
    def name(self) -> str:
        return self.spec.name

    def invoke(self, arguments: Mapping[str, JSON], call_id: str | None = None) -> ToolOutcome:
        """Execute the tool body once; raises `ScriptedToolError` when scripted to fail."""
        # A deep copy: the record must not change if the loop later mutates the arguments it passed.
        self._box.executions.append(ToolExecution(self._box.turn, self.name, copy.deepcopy(dict(arguments)), call_id))
        behaviour = self.spec.behaviours[min(self._invocations, len(self.spec.behaviours) - 1)]
        self._invocations += 1
        if behaviour.kind == "raise":
            raise ScriptedToolError(str(behaviour.value))
        if behaviour.kind == "request_input":
            payloads = behaviour.value if isinstance(behaviour.value, list) else [behaviour.value]
            return ToolOutcome(input_requests=tuple(payloads), terminate=behaviour.terminate)
        return ToolOutcome(behaviour.value, terminate=behaviour.terminate, add_tools=behaviour.add_tools)


class ScriptedToolbox:
    """All tools of a scenario, with the shared execution record."""

    def __init__(self, specs: Sequence[ToolSpec]) -> None:
        self.turn = 0
        self.executions: list[ToolExecution] = []
        self.tools = {spec.name: ScriptedTool(spec, self) for spec in specs}

    def offered(self) -> list[ScriptedTool]:
        """Tools the caller offers at the start of every turn."""
        return [tool for tool in self.tools.values() if tool.spec.offered]

    def get(self, name: str) -> ScriptedTool | None:
        return self.tools.get(name)
