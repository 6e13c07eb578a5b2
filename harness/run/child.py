"""The process a loop runs in: forked for one run, holding the adapter and nothing the judge reads.

The scripted provider, tools and approval rules live in the judge's process; here the adapter gets stand-ins
that speak the same protocols (`ModelProvider`, `Toolbox`, `AutoApprovalRule`, `WireEndpoint`) and forward every
call over the run's socket, so what the model received and which tools ran are recorded where the loop cannot
reach. What goes back is plain JSON (`harness.run.codec`); what comes from the judge is trusted and pickled.
The turn and close limits are the same soft ones as in process (`harness.run.runner`); the hard limit is the judge's.
"""

from __future__ import annotations

import asyncio
import os
import pickle
import socket
import struct
import sys
import threading
import traceback
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import AbstractContextManager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from fakes.tools import ScriptedTool
from harness.contents import JSON, Content, FunctionCall, Message, Response, Update
from harness.contract import (
    ApprovalPolicy,
    ContextSource,
    Conversation,
    ConversationSetup,
    Dialect,
    HostedServer,
    LoopAdapter,
    LoopConfig,
    Mode,
    ScriptedProviderError,
    ScriptedResponseInvalidated,
    TurnInput,
)
from harness.run import codec
from harness.run.turns import close_conversation, one_line, run_one_turn
from harness.script import ToolBehaviour, ToolOutcome, ToolSpec

HEADER = struct.Struct("!I")


@dataclass(frozen=True)
class WireForm:
    """What the loop's process needs to build a stand-in for the judge's wire endpoint."""

    dialect: Dialect
    base_url: str
    http_library: str
    # The judge's endpoint is the wire fakes' own (`fakes.wire.WireService`), whose `as_scripted` is its dialect's:
    # only then does the dialect's `may_restate` say which contents need asking about.
    dialect_restates: bool = False


@dataclass(frozen=True)
class SetupForm:
    """A `ConversationSetup` without its live parts, sent to the loop's process for every `open`; each run gets
    its own copy, so a loop that changes a tool's schema in place changes nothing another run sees."""

    scenario_id: str
    mode: Mode
    config: LoopConfig
    tools: tuple[ToolSpec, ...]
    use_session: bool
    tool_choice: str | None
    service_stores_history: bool
    rules: tuple[str, ...] | None  # the auto-approval rules' names, or None: no approval layer
    context: tuple[ContextSource, ...]
    history_store: str | None
    dialect: Dialect
    wire: WireForm | None
    compaction: int | None
    host: HostedServer | None


class Link:
    """The loop process's end of the run's socket: length-prefixed frames, JSON out, pickle in."""

    def __init__(self, connection: socket.socket) -> None:
        self._socket = connection

    def send(self, message: Mapping[str, object]) -> None:
        data = codec.dumps(message)
        self._socket.sendall(HEADER.pack(len(data)) + data)

    def receive(self) -> Any:
        (size,) = HEADER.unpack(self._read(HEADER.size))
        return pickle.loads(self._read(size))

    def call(self, kind: str, **payload: object) -> Any:
        """Ask the judge's fakes; raises what the fake raised (a scripted provider fault)."""
        self.send({"kind": kind, **payload})
        reply = cast(tuple[str, Any], self.receive())
        if reply[0] == "invalidated":
            raise ScriptedResponseInvalidated(reply[1])
        if reply[0] == "provider-error":
            raise ScriptedProviderError(reply[1])
        return reply[1]

    def _read(self, size: int) -> bytes:
        chunks = bytearray()
        while len(chunks) < size:
            chunk = self._socket.recv(size - len(chunks))
            if not chunk:
                raise EOFError("the judge closed the run")
            chunks += chunk
        return bytes(chunks)


class RemoteProvider:
    """The scripted provider, reached over the run's socket; records nothing here."""

    def __init__(self, link: Link) -> None:
        self._link = link

    async def complete(self, messages: Sequence[Message], *, tool_choice: str | None = None,
                       tools: Sequence[str] = (), kwargs: Mapping[str, JSON] | None = None,
                       conversation_id: str | None = None) -> Response:
        return cast(Response, self._link.call("complete", **_request(messages, tool_choice, tools, kwargs,
                                                                     conversation_id)))

    async def stream(self, messages: Sequence[Message], *, tool_choice: str | None = None,
                     tools: Sequence[str] = (), kwargs: Mapping[str, JSON] | None = None,
                     conversation_id: str | None = None) -> AsyncIterator[Update]:
        updates = cast(tuple[Update, ...], self._link.call("stream", **_request(messages, tool_choice, tools, kwargs,
                                                                                conversation_id)))
        for update in updates:
            yield update


def _request(messages: Sequence[Message], tool_choice: str | None, tools: Sequence[str],
             kwargs: Mapping[str, JSON] | None, conversation_id: str | None) -> dict[str, object]:
    return {"messages": list(messages), "tool_choice": tool_choice, "tools": list(tools),
            "kwargs": None if kwargs is None else dict(kwargs), "conversation_id": conversation_id}


class RemoteTool:
    """One scripted tool: the judge records the execution and picks the behaviour; it is played here."""

    def __init__(self, spec: ToolSpec, link: Link) -> None:
        self.spec = spec
        self._link = link

    @property
    def name(self) -> str:
        return self.spec.name

    async def run(self, arguments: Mapping[str, JSON], call_id: str | None = None) -> ToolOutcome:
        behaviour = self._begin(arguments, call_id)
        for _ in range(behaviour.delay):
            await asyncio.sleep(0)
        return ScriptedTool.finish(behaviour)

    def invoke(self, arguments: Mapping[str, JSON], call_id: str | None = None) -> ToolOutcome:
        return ScriptedTool.finish(self._begin(arguments, call_id))

    def _begin(self, arguments: Mapping[str, JSON], call_id: str | None) -> ToolBehaviour:
        return cast(ToolBehaviour, self._link.call("tool", name=self.name, arguments=dict(arguments),
                                                   call_id=call_id))


class RemoteToolbox:
    def __init__(self, specs: Sequence[ToolSpec], link: Link) -> None:
        self.tools = {spec.name: RemoteTool(spec, link) for spec in specs}

    def offered(self) -> list[RemoteTool]:
        return [tool for tool in self.tools.values() if tool.spec.offered]

    def get(self, name: str) -> RemoteTool | None:
        return self.tools.get(name)


class RemoteRule:
    """An auto-approval rule of the conversation; the judge answers and records the question."""

    def __init__(self, name: str, link: Link) -> None:
        self.name = name
        self._link = link

    def approves(self, call: FunctionCall) -> bool:
        return bool(self._link.call("rule", name=self.name, call=call))


class RemoteWireEndpoint:
    """The judge's wire endpoint: the provider SDK's own HTTP client here, every request answered there."""

    def __init__(self, form: WireForm, link: Link) -> None:
        self.dialect: Dialect = form.dialect
        self.base_url = form.base_url
        self.http_library = form.http_library
        self._link = link
        self._may_restate = _restating(form.dialect) if form.dialect_restates else _always

    def http_client(self) -> object:
        from fakes.wire.http import async_http_client

        return async_http_client(cast(Any, self), self.http_library)

    def shared_http_client(self) -> object:
        from fakes.wire.http import shared_async_http_client

        return shared_async_http_client(self.http_library)

    def serving(self) -> AbstractContextManager[None]:
        from fakes.wire.http import serving

        return serving(cast(Any, self))

    def as_scripted(self, content: Content) -> Content:
        """The judge's answer, asked only for a content its dialect may restate: an adapter reports every content
        through this, and a round trip each was most of what a streamed wire run cost."""
        if not self._may_restate(content):
            return content
        return cast(Content, self._link.call("as-scripted", content=content))

    async def handle(self, method: str, path: str, raw: bytes) -> object:
        return self._link.call("http", method=method, path=path, body=raw.decode("latin-1"))


def _restating(dialect: Dialect) -> Callable[[Content], bool]:
    """Which contents the dialect's `as_scripted` may change (all of them, if its codec cannot be built here)."""
    try:
        from fakes.wire import wire_dialect

        return wire_dialect(dialect).may_restate
    except Exception:  # noqa: BLE001 - then the judge is asked every time, as it can answer
        return _always


def _always(_: Content) -> bool:
    return True


def build_setup(form: SetupForm, link: Link) -> ConversationSetup:
    policy = None if form.rules is None else ApprovalPolicy(tuple(RemoteRule(name, link) for name in form.rules))
    return ConversationSetup(
        form.scenario_id, form.mode, form.config, RemoteProvider(link), RemoteToolbox(form.tools, link),
        form.use_session, form.tool_choice, form.service_stores_history, policy, form.context, form.history_store,
        dialect=form.dialect, wire=None if form.wire is None else RemoteWireEndpoint(form.wire, link),
        compaction=form.compaction, host=form.host)


def serve_run(connection: socket.socket, adapter: LoopAdapter) -> None:
    """The loop process's life: one run after another, each in its own event loop as in process, for as long as
    none leaves the process unlike it started (`Baseline.changed`); the judge then ends it and forks a fresh one."""
    link = Link(connection)
    baseline = Baseline.taken()
    before = set(sys.modules)
    while True:
        try:
            asyncio.run(_serve(link, adapter))
        except EOFError:
            return
        except BaseException as error:  # noqa: BLE001 - sys.exit in the loop escapes asyncio: that is its verdict
            detail = "".join(traceback.format_exception(type(error), error, error.__traceback__))
            with suppress(OSError):
                link.send({"kind": "escaped", "message": one_line(error)[:2000], "detail": detail[-20000:]})
            return
        imported = set(sys.modules) - before
        before |= imported
        # Which modules the run imported, so the template can have them ready for the next fork.
        link.send({"kind": "finished", "modules": sorted(imported), "changed": baseline.changed()})


async def _serve(link: Link, adapter: LoopAdapter) -> None:
    """One run: open, turns and close (twice with a shadow run), until the judge says `finish`."""
    conversation: Conversation | None = None
    while True:
        command = cast(tuple[Any, ...], link.receive())
        kind = command[0]
        if kind == "open":
            conversation = _open(link, adapter, cast(SetupForm, command[1]))
        elif kind == "turn" and conversation is not None:
            view, crash = await run_one_turn(conversation, cast(TurnInput, command[1]), float(command[2]))
            link.send({"kind": "turned", "view": view, "crash": crash})
        elif kind == "close" and conversation is not None:
            problem = await close_conversation(conversation, float(command[1]))
            conversation = None
            link.send({"kind": "closed", "problem": problem})
        else:
            return


@dataclass(frozen=True)
class Baseline:
    """What a run may not leave changed for the next run in the same process: where output goes, the environment,
    the working directory, the threads and child processes, and the module attributes the harness and the stdlib
    it relies on hold. (A change inside a module-level object, or to a framework's own module, is not seen: those
    reach only later runs of the same implementation, never another's, whose runs fork from their own template.)"""

    output: tuple[tuple[int, int], ...]
    streams: tuple[object, ...]
    environment: dict[str, str]
    directory: str
    threads: frozenset[int]
    attributes: dict[str, tuple[list[str], list[int]]]  # per watched module: its names, and their values' ids
    # The values themselves, held so that none is freed and its id given to a replacement.
    held: tuple[object, ...] = ()

    @staticmethod
    def taken() -> Baseline:
        attributes = _attributes()
        held = tuple(value for name in attributes for value in list(vars(sys.modules[name]).values()))
        return Baseline(_output_files(), (sys.stdout, sys.stderr), dict(os.environ), os.getcwd(),
                        frozenset(t.ident or 0 for t in threading.enumerate()), attributes, held)

    def changed(self) -> str | None:
        """What the last run changed, or None."""
        stdout, stderr = self.streams
        if (_output_files() != self.output or sys.stdout is not stdout or sys.stderr is not stderr
                or getattr(stdout, "closed", True) is not False or getattr(stderr, "closed", True) is not False):
            return "its stdout or stderr"
        if dict(os.environ) != self.environment:
            return "the environment"
        if _directory() != self.directory:
            return "the working directory"
        if frozenset(t.ident or 0 for t in threading.enumerate()) != self.threads:
            return "the threads"
        if _children():
            return "child processes"
        for name, (names, identities) in self.attributes.items():
            module = sys.modules.get(name)
            now = vars(module) if module is not None else {}
            # Names a run adds (a warnings registry) are not compared; one it rebinds or deletes is a change.
            if list(now)[:len(names)] != names or list(map(id, now.values()))[:len(identities)] != identities:
                return f"the module {name}"
        return None


_WATCHED = ("builtins", "os", "io", "json", "socket", "pickle", "struct", "time", "threading", "asyncio")


def _attributes() -> dict[str, tuple[list[str], list[int]]]:
    """The names and values' identities of the harness's modules (adapters aside: those are the implementation's
    own) and of the stdlib modules the protocol relies on."""
    found: dict[str, tuple[list[str], list[int]]] = {}
    for name, module in list(sys.modules.items()):
        if (name.startswith(("harness.", "fakes.", "asyncio.")) and not name.startswith("harness.adapters.")
                or name in _WATCHED):
            found[name] = (list(vars(module)), list(map(id, vars(module).values())))
    return found


def _output_files() -> tuple[tuple[int, int], ...]:
    try:
        return tuple((s.st_dev, s.st_ino) for s in (os.fstat(1), os.fstat(2)))
    except OSError:
        return ()


def _directory() -> str:
    try:
        return os.getcwd()
    except OSError:
        return ""


def _children() -> list[str]:
    try:
        return [pid for task in Path("/proc/self/task").iterdir() for pid in (task / "children").read_text().split()]
    except OSError:
        return []


def _open(link: Link, adapter: LoopAdapter, form: SetupForm) -> Conversation | None:
    try:
        conversation = adapter.open(build_setup(form, link))
    except (Exception, asyncio.CancelledError) as error:  # noqa: BLE001 - the judge decides what a raise means
        detail = "".join(traceback.format_exception(type(error), error, error.__traceback__))
        link.send({"kind": "open-raised", "type": type(error).__name__, "message": str(error)[:20000],
                   "import": isinstance(error, ImportError),
                   "cancelled": isinstance(error, asyncio.CancelledError), "detail": detail[-20000:]})
        return None
    link.send({"kind": "opened"})
    return conversation



def own_output(pipe: int) -> None:
    """Point fd 1 and 2, and fresh `sys.stdout`/`sys.stderr`, at the run's output pipe, line-buffered."""
    os.dup2(pipe, 1)
    os.dup2(pipe, 2)
    os.close(pipe)
    sys.stdout = open(1, "w", encoding="utf-8", errors="replace", buffering=1, closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", encoding="utf-8", errors="replace", buffering=1, closefd=False)  # noqa: SIM115
