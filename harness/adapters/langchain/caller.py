"""What a LangChain caller holds: the messages it sends (its own objects, which the agent may touch) and the
responses it got, each re-readable after later turns so the harness can see whether the loop changed them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from langchain_core.messages import BaseMessage, HumanMessage

from harness.adapters.langchain.approvals import decisions_in
from harness.adapters.langchain.convert import neutral_messages, to_langchain
from harness.contents import ApprovalResponse, Message, Response


@dataclass
class Sent:
    """One neutral message of the caller's input, the LangChain objects it became, and their form when sent."""

    original: Message
    objects: list[BaseMessage]
    form: tuple[Message, ...]

    def reread(self) -> Message:
        now = neutral_messages(self.objects)
        if now == self.form:
            return self.original
        contents = tuple(c for m in now for c in m.contents)
        return Message(self.original.role, contents)


@dataclass
class CallerInput:
    """One turn's input as LangChain messages, and the approval decisions it carries."""

    text: str | None
    sent: list[Sent] = field(default_factory=lambda: list[Sent]())
    decisions: list[ApprovalResponse] = field(default_factory=lambda: list[ApprovalResponse]())

    @property
    def messages(self) -> list[BaseMessage]:
        if self.text is not None:
            return [HumanMessage(self.text)]
        return [o for s in self.sent for o in s.objects]

    def reread(self) -> str | tuple[Message, ...]:
        return self.text if self.text is not None else tuple(s.reread() for s in self.sent)


def caller_input(messages: str | Sequence[Message]) -> CallerInput:
    if isinstance(messages, str):
        return CallerInput(messages)
    sent: list[Sent] = []
    for index, message in enumerate(messages):
        # Placeholders are judged over the whole input; convert it whole and take this message's share.
        objects = to_langchain(messages[:index + 1])[len(to_langchain(messages[:index])):]
        sent.append(Sent(message, objects, neutral_messages(objects)))
    return CallerInput(None, sent, decisions_in(messages))


@dataclass
class Returned:
    """One response the caller got: the LangChain messages it holds, their form then, and what it reported."""

    objects: list[BaseMessage]
    form: tuple[Message, ...]
    response: Response

    def reread(self) -> Response:
        if neutral_messages(self.objects) == self.form:
            return self.response
        return Response(neutral_messages(self.objects), self.response.finish_reason)

