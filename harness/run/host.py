"""The judge's side of a run in another process: the adapter as the runner sees it, and the fakes it serves.

`RemoteAdapter` stands in for the adapter in the judge's process: `run_scenario` runs here unchanged, with the
scripted provider, tools and approval rules it builds, and the records it keeps. Only the loop runs in the forked
process (`harness.run.child`), which reaches those fakes over its socket; each answer is served here and each
request read strictly (`harness.run.codec`). Whatever the loop patches, forges or deletes in its own process, the
records and the verdict are here.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from fakes.approval_rules import ScriptedApprovalRule
from fakes.provider import ScriptedProvider
from fakes.tools import ScriptedToolbox
from harness.contents import JSON, Content, FunctionCall, Message
from harness.contract import (
    DIALECTS,
    CallerView,
    Capability,
    ConversationSetup,
    Dialect,
    ScriptedProviderError,
    ScriptedResponseInvalidated,
    TurnInput,
)
from harness.run import codec
from harness.run.channel import Channel, ChannelClosedError, ChannelProtocolError, ChannelTimeoutError
from harness.run.child import SetupForm, WireForm
from harness.run.runner import OutOfProcessConversation
from harness.run.turns import CONTRACT_BROKEN

TEXT_LIMIT = 20_000
T = TypeVar("T")

REQUEST_FIELDS: dict[str, object] = {"messages": tuple[Message, ...], "tool_choice": str | None,
                                     "tools": tuple[str, ...], "kwargs": Mapping[str, JSON] | None,
                                     "conversation_id": str | None}


class RunInterruptedError(BaseException):
    """The run cannot go on: a `BaseException`, so that no handler meant for the loop's errors swallows it."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class RunStoppedError(RunInterruptedError):
    """The run's hard deadline passed."""


class RunDiedError(RunInterruptedError):
    """The loop's process exited or died."""


class RunEscapedError(RunInterruptedError):
    """Something escaped the loop's own handling there (`sys.exit`): its one-line text and traceback."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(reason)
        self.detail = detail


@dataclass(frozen=True)
class AdapterInfo:
    """What the judge knows of an adapter built in its template process, every field validated."""

    name: str
    version: str
    capabilities: frozenset[str]
    dialects: tuple[Dialect, ...]
    modes: frozenset[str]
    modes_reason: str
    unexpressible: Mapping[str, str]
    provider_packages: Mapping[str, str]
    profiles: frozenset[str]
    loop_modules: tuple[str, ...]
    response_shape: str = "messages"
    approval_controls: str = "caller-history"

    @staticmethod
    def read(data: object) -> AdapterInfo:
        """From the template's JSON; raises `codec.CodecError` naming what is wrong."""
        if not isinstance(data, dict):
            raise codec.CodecError("the adapter description is not an object")
        given = cast(dict[str, object], data)
        text, texts = str, tuple[str, ...]
        dialects = cast(tuple[str, ...], codec.decode(given.get("dialects"), texts, "dialects"))
        if any(d not in DIALECTS for d in dialects):
            raise codec.CodecError("dialects: an unknown dialect")
        return AdapterInfo(
            codec.decode(given.get("name"), text, "name"), codec.decode(given.get("version"), text, "version"),
            frozenset(codec.decode(given.get("capabilities"), texts, "capabilities")),
            cast(tuple[Dialect, ...], dialects), frozenset(codec.decode(given.get("modes"), texts, "modes")),
            codec.decode(given.get("modes_reason"), text, "modes_reason"),
            codec.decode(given.get("unexpressible"), Mapping[str, str], "unexpressible"),
            codec.decode(given.get("provider_packages"), Mapping[str, str], "provider_packages"),
            frozenset(codec.decode(given.get("profiles"), texts, "profiles")),
            codec.decode(given.get("loop_modules"), texts, "loop_modules"),
            codec.decode(given.get("response_shape", "messages"), text, "response_shape"),
            codec.decode(given.get("approval_controls", "caller-history"), text, "approval_controls"))


@dataclass
class RunProcess:
    """One forked loop process as the judge holds it: its id, its socket and output, and the run's deadline."""

    pid: int
    channel: Channel
    deadline: float
    timeout_reason: str
    interrupted: BaseException | None = None  # what ended the run early, if anything did


class RemoteAdapter:
    """The adapter as `run_scenario` sees it in the judge's process: its declarations from the template, and an
    `open` that opens the conversation in the run's own process (forked on first use, kept for the shadow run)."""

    def __init__(self, info: AdapterInfo, start: Callable[[], RunProcess]) -> None:
        self.name = info.name
        self.version = info.version
        self.capabilities = cast(frozenset[Capability], info.capabilities)
        self.dialects = frozenset(info.dialects)
        self.modes = info.modes
        self.modes_reason = info.modes_reason
        self.unexpressible = info.unexpressible
        self.provider_packages = info.provider_packages
        self.profiles = info.profiles
        self.loop_modules = info.loop_modules
        self.response_shape = info.response_shape
        self.approval_controls = info.approval_controls
        self._start = start
        self.process: RunProcess | None = None

    def open(self, setup: ConversationSetup) -> HostedConversation:
        if self.process is None:
            self.process = self._start()
        host = RunHost(self.process, setup)
        opened = host.exchange(("open", setup_form(setup)), ("opened", "open-raised"))
        if opened["kind"] == "open-raised":
            raise _rebuilt(opened)
        return HostedConversation(host)


class HostedConversation(OutOfProcessConversation):
    def __init__(self, host: RunHost) -> None:
        self._host = host

    async def run_turn_outcome(self, turn: TurnInput, timeout: float) -> tuple[CallerView, str | None]:
        message = self._host.exchange(("turn", turn, timeout), ("turned",))
        try:
            crash = cast(str | None, codec.decode(message.get("crash"), str | None, "crash"))
            view = cast(CallerView, codec.decode(message.get("view"), CallerView, "view"))
        except codec.CodecError as problem:
            return CallerView(), f"{CONTRACT_BROKEN}run_turn returned what the harness cannot read: {problem}"
        return view, crash

    async def close_outcome(self, timeout: float) -> str | None:
        message = self._host.exchange(("close", timeout), ("closed",))
        try:
            return cast(str | None, codec.decode(message.get("problem"), str | None, "problem"))
        except codec.CodecError as problem:
            return f"{CONTRACT_BROKEN}close() reported what the harness cannot read: {problem}"


def finish(process: RunProcess) -> tuple[tuple[str, ...], str | None]:
    """End a run that went well: the modules its process imported (for its template to have ready), and what the
    run changed in the process that the next run must not meet (None: the process may serve the next run)."""
    message = RunHost(process, None).exchange(("finish",), ("finished",))
    try:
        modules = cast(tuple[str, ...], codec.decode(message.get("modules"), tuple[str, ...], "modules"))
        return modules, cast(str | None, codec.decode(message.get("changed"), str | None, "changed"))
    except codec.CodecError as problem:
        return (), str(problem)


class RunHost:
    """Serves the loop process's calls on the fakes of one conversation until the answer to a command comes."""

    def __init__(self, process: RunProcess, setup: ConversationSetup | None) -> None:
        self._process = process
        self._setup = setup

    def exchange(self, command: tuple[object, ...], answers: tuple[str, ...]) -> dict[str, object]:
        process = self._process
        if process.interrupted is not None:  # the run is over: `close` after a stopped turn gets the same news
            raise process.interrupted
        try:
            return self._exchange(command, answers)
        except BaseException as interrupted:
            process.interrupted = interrupted
            raise

    def _exchange(self, command: tuple[object, ...], answers: tuple[str, ...]) -> dict[str, object]:
        process = self._process
        try:
            process.channel.send(command, process.deadline)
            while True:
                message = process.channel.receive(process.deadline)
                kind = message["kind"]
                if kind in answers:
                    return message
                process.channel.send(self._serve(str(kind), message), process.deadline)
        except ChannelTimeoutError:
            raise RunStoppedError(process.timeout_reason) from None
        except ChannelClosedError:
            raise RunDiedError("the loop's process closed the run") from None
        except (ChannelProtocolError, codec.CodecError) as problem:
            raise RunInterruptedError(f"{CONTRACT_BROKEN}the loop's process sent {problem}") from None
        except Exception as bug:  # noqa: BLE001 - never the loop's fault: said so, and the run ends
            raise RunInterruptedError(f"the harness failed serving the run (a harness bug): "
                                      f"{type(bug).__name__}: {bug}") from bug

    def _serve(self, kind: str, message: dict[str, object]) -> tuple[str, object]:
        if kind == "escaped":
            raise RunEscapedError(str(message.get("message", ""))[:TEXT_LIMIT],
                                  str(message.get("detail", ""))[-TEXT_LIMIT:])
        setup = self._setup
        if setup is None:
            raise codec.CodecError(f"a '{kind[:40]}' message outside a conversation")
        if kind in ("complete", "stream"):
            return _model_call(cast(ScriptedProvider, setup.provider), kind == "stream", message)
        if kind == "tool":
            return _tool(cast(ScriptedToolbox, setup.toolbox), message)
        if kind == "rule":
            return _rule(setup, message)
        if kind in ("http", "as-scripted") and setup.wire is not None:
            return _wire(setup, kind, message)
        raise codec.CodecError(f"a message of unknown kind '{kind[:40]}'")


def _model_call(provider: ScriptedProvider, streaming: bool, message: dict[str, object]) -> tuple[str, object]:
    arguments = {key: codec.decode(message.get(key), hint, key) for key, hint in REQUEST_FIELDS.items()}
    try:
        if streaming:
            _, updates = _settled(provider.answer_stream(**arguments))
            return "ok", updates
        return "ok", _settled(provider.complete(**arguments))
    except ScriptedResponseInvalidated as fault:
        return "invalidated", str(fault)
    except ScriptedProviderError as fault:
        return "provider-error", str(fault)


def _tool(toolbox: ScriptedToolbox, message: dict[str, object]) -> tuple[str, object]:
    name = cast(str, codec.decode(message.get("name"), str, "name"))
    tool = toolbox.get(name)
    if tool is None:
        raise codec.CodecError(f"a call of tool '{name[:80]}', which the scenario does not have")
    arguments = cast(Mapping[str, JSON], codec.decode(message.get("arguments"), Mapping[str, JSON], "arguments"))
    call_id = cast(str | None, codec.decode(message.get("call_id"), str | None, "call_id"))
    return "ok", tool.begin(arguments, call_id)


def _rule(setup: ConversationSetup, message: dict[str, object]) -> tuple[str, object]:
    name = cast(str, codec.decode(message.get("name"), str, "name"))
    rules = cast(tuple[ScriptedApprovalRule, ...], setup.approval_policy.rules if setup.approval_policy else ())
    rule = next((r for r in rules if r.name == name), None)
    if rule is None:
        raise codec.CodecError(f"a question to approval rule '{name[:80]}', which the conversation does not have")
    return "ok", rule.approves(cast(FunctionCall, codec.decode(message.get("call"), FunctionCall, "call")))


def _wire(setup: ConversationSetup, kind: str, message: dict[str, object]) -> tuple[str, object]:
    from fakes.wire.service import WireService

    wire = cast(WireService, setup.wire)
    if kind == "as-scripted":
        content = cast(Content, codec.decode(message.get("content"), Content, "content"))
        return "ok", wire.as_scripted(content)
    method = cast(str, codec.decode(message.get("method"), str, "method"))
    path = cast(str, codec.decode(message.get("path"), str, "path"))
    body = cast(str, codec.decode(message.get("body"), str, "body"))
    try:
        raw = body.encode("latin-1")
    except UnicodeEncodeError:
        raise codec.CodecError("an HTTP body that is not bytes") from None
    return "ok", _settled(wire.handle(method, path, raw))


def _settled(coroutine: Coroutine[Any, Any, T]) -> T:
    """The result of a fake's coroutine, which never suspends: the judge serves one run per thread, without an
    event loop of its own."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return cast(T, done.value)
    coroutine.close()
    raise RuntimeError("a scripted fake suspended")  # a harness bug: the fakes never wait on anything


def setup_form(setup: ConversationSetup) -> SetupForm:
    toolbox = cast(ScriptedToolbox, setup.toolbox)
    policy = setup.approval_policy
    wire = None
    if setup.wire is not None:
        # Any `WireEndpoint` (a test's stand-in too); only the wire fakes' own one names its HTTP library.
        from fakes.wire.service import WireService

        library = cast(object, getattr(setup.wire, "http_library", ""))
        wire = WireForm(setup.wire.dialect, setup.wire.base_url, library if isinstance(library, str) else "",
                        type(setup.wire) is WireService)
    return SetupForm(
        setup.scenario_id, setup.mode, setup.config, tuple(tool.spec for tool in toolbox.tools.values()),
        setup.use_session, setup.tool_choice, setup.service_stores_history,
        None if policy is None else tuple(rule.name for rule in policy.rules), setup.context, setup.history_store,
        setup.dialect, wire, setup.compaction, setup.host)


def _rebuilt(message: dict[str, object]) -> BaseException:
    """The exception the adapter's `open` raised, under its own name, with its own message and traceback."""
    name = str(message.get("type", "Exception"))[:100]
    name = name if name.isidentifier() else "Exception"
    base: type[BaseException] = Exception
    if message.get("import") is True:
        base = ImportError
    elif message.get("cancelled") is True:
        base = asyncio.CancelledError
    kind = cast(type[BaseException], type(name, (base,), {}))
    error = kind(str(message.get("message", ""))[:TEXT_LIMIT])
    error.remote_traceback = str(message.get("detail", ""))[-TEXT_LIMIT:]  # type: ignore[attr-defined]
    return error
