"""Scripted tools: each invocation plays the next scripted behaviour and is recorded with its arguments."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Callable, Mapping, Sequence

from harness.contents import JSON
from harness.script import ToolBehaviour, ToolExecution, ToolOutcome, ToolSpec, scripted_exception


class ScriptedTool:
    """Plays its behaviours in order (the last one repeats) and records every execution."""

    def __init__(self, spec: ToolSpec, box: ScriptedToolbox) -> None:
        self.spec = spec
        self._box = box
        self._invocations = 0

    @property
    def name(self) -> str:
        return self.spec.name

    async def run(self, arguments: Mapping[str, JSON], call_id: str | None = None) -> ToolOutcome:
        """Execute the tool body once, handing control back to the event loop `delay` times before it finishes.

        The execution is recorded when it starts; a delay only changes when it finishes, so parallel calls can
        finish in another order than they started.
        """
        behaviour = self.begin(arguments, call_id)
        for _ in range(behaviour.delay):
            await asyncio.sleep(0)
        return self.finish(behaviour)

    def invoke(self, arguments: Mapping[str, JSON], call_id: str | None = None) -> ToolOutcome:
        """Execute the tool body once, at once (any `delay` is ignored); raises when scripted to fail."""
        return self.finish(self.begin(arguments, call_id))

    def begin(self, arguments: Mapping[str, JSON], call_id: str | None) -> ToolBehaviour:
        """Record one execution and pick its behaviour (what `finish` then plays)."""
        # A deep copy: the record must not change if the loop later mutates the arguments it passed.
        execution = ToolExecution(self._box.turn, self.name, copy.deepcopy(dict(arguments)), call_id)
        self._box.executions.append(execution)
        if self._box.on_execution is not None:
            self._box.on_execution(execution)
        behaviour = self.spec.behaviours[min(self._invocations, len(self.spec.behaviours) - 1)]
        self._invocations += 1
        return behaviour

    @staticmethod
    def finish(behaviour: ToolBehaviour) -> ToolOutcome:
        """What one execution with `behaviour` returns; raises when it is scripted to fail."""
        if behaviour.kind == "raise":
            raise scripted_exception(behaviour)
        if behaviour.kind == "request_input":
            payloads = behaviour.value if isinstance(behaviour.value, list) else [behaviour.value]
            return ToolOutcome(input_requests=tuple(payloads), terminate=behaviour.terminate)
        if behaviour.kind == "return_parts":
            parts = behaviour.value if isinstance(behaviour.value, list) else [behaviour.value]
            return ToolOutcome(parts=tuple(str(p) for p in parts), terminate=behaviour.terminate,
                               add_tools=behaviour.add_tools)
        return ToolOutcome(behaviour.value, terminate=behaviour.terminate, add_tools=behaviour.add_tools)


class ScriptedToolbox:
    """All tools of a scenario, with the shared execution record."""

    def __init__(self, specs: Sequence[ToolSpec], on_execution: Callable[[ToolExecution], None] | None = None) -> None:
        self.turn = 0
        # Told of every execution as it starts, so a run killed mid-turn still shows what ran.
        self.on_execution = on_execution
        self.executions: list[ToolExecution] = []
        self.tools = {spec.name: ScriptedTool(spec, self) for spec in specs}

    def offered(self) -> list[ScriptedTool]:
        """Tools the caller offers at the start of every turn."""
        return [tool for tool in self.tools.values() if tool.spec.offered]

    def get(self, name: str) -> ScriptedTool | None:
        return self.tools.get(name)
