"""One turn and one close of a conversation under their soft limits, the view checked as it leaves the adapter.

Shared by the judge's process (`harness.run.runner`) and the loop's (`harness.run.child`), which imports this and
not the runner, so that a template process holds only what a run needs, not the judge and its checks.
"""

from __future__ import annotations

import asyncio
import traceback
from typing import cast

from harness.content_check import view_breach
from harness.contents import Response, Update
from harness.contract import CallerView, Conversation, RaisedError, TransportExchange, TurnInput

# Marks a crash that is the adapter's breach of the contract (a wrong return type, an escaped cancellation): the
# run is an `error`, not a verdict on the loop.
CONTRACT_BROKEN = "adapter contract broken: "


async def run_one_turn(conversation: Conversation, turn: TurnInput, timeout: float,
                       adapter_name: str = "the adapter") -> tuple[CallerView, str | None]:
    try:
        view = cast(object, await asyncio.wait_for(conversation.run_turn(turn), timeout))
    except TimeoutError:
        return CallerView(), f"the turn did not finish within {timeout:g}s (hang or runaway loop)"
    except asyncio.CancelledError as error:
        return CallerView(), f"{CONTRACT_BROKEN}run_turn raised {one_line(error)}"
    except Exception as error:  # noqa: BLE001 - a crashing loop is a verdict
        return CallerView(), f"run_turn raised {one_line(error)}"
    if not isinstance(view, CallerView):
        return CallerView(), f"{CONTRACT_BROKEN}run_turn returned {type(view).__name__}, not a CallerView"
    problem = malformed_view(view, adapter_name)
    return (CallerView(), CONTRACT_BROKEN + problem) if problem is not None else (view, None)


def one_line(error: BaseException) -> str:
    return "".join(traceback.format_exception_only(type(error), error)).strip()


def malformed_view(view: CallerView, adapter_name: str) -> str | None:
    """A view whose fields are not what the contract says would crash the checks; it is the adapter's fault.
    Checked here, as it crosses from the adapter into the judge: its fields, then every content in them."""
    # Typed as `object`: an adapter in Python can put anything in a dataclass field.
    response, updates = cast(object, view.response), cast(object, view.updates)
    error, log = cast(object, view.error), cast(object, view.log)
    if response is not None and not isinstance(response, Response):
        return f"run_turn returned a CallerView whose response is a {type(response).__name__}"
    if not _tuple_of(updates, Update):
        return "run_turn returned a CallerView whose updates are not a tuple of Update"
    if error is not None and not isinstance(error, RaisedError):
        return f"run_turn returned a CallerView whose error is a {type(error).__name__}"
    if not _tuple_of(log, str):
        return "run_turn returned a CallerView whose log is not a tuple of str"
    transport = cast(object, view.transport)
    if transport is not None and not isinstance(transport, TransportExchange):
        return f"run_turn returned a CallerView whose transport is a {type(transport).__name__}"
    counted = cast(object, view.function_calls_counted)
    if counted is not None and (not isinstance(counted, int) or isinstance(counted, bool)):
        return f"run_turn returned a CallerView whose function_calls_counted is a {type(counted).__name__}"
    breach = view_breach(view)
    if breach is not None:
        return f"run_turn of {adapter_name} returned a CallerView whose {breach}"
    return None


def _tuple_of(value: object, kind: type) -> bool:
    return isinstance(value, tuple) and all(isinstance(item, kind) for item in cast(tuple[object, ...], value))


async def close_conversation(conversation: Conversation, timeout: float) -> str | None:
    try:
        await asyncio.wait_for(conversation.close(), timeout)
    except TimeoutError:
        return f"close() did not finish within {timeout:g}s"
    except asyncio.CancelledError as error:
        return f"{CONTRACT_BROKEN}close() raised {one_line(error)}"
    except Exception as error:  # noqa: BLE001 - a crashing close is a verdict
        return f"close() raised {one_line(error)}"
    return None
