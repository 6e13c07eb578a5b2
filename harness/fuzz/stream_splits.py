"""Stream-split fuzzing: a bundled scenario with its model responses delivered in updates Hypothesis chooses.

Each step of one assistant message gets a `stream:` (the format's scripted streamed updates): texts and reasoning cut
anywhere, empty fragments, a call's argument text cut anywhere, including inside the `\\uXXXX` escape of a multi-byte
character, its id and name only on its first fragment (or the id repeated), and metadata-only updates (no contents)
in between. The updates always add up to the step's contents (the loader checks it), so a correct loop's streamed
response, final response and non-streaming response must still agree, and every invariant must still hold.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

from harness.scenario.model import stream_problem
from harness.scenario.schema import ContentSpec, ModelStepSpec, ScenarioSpec

Fragment = dict[str, Any]


@st.composite
def split_streams(draw: st.DrawFn, spec: ScenarioSpec) -> ScenarioSpec:
    """`spec` with every splittable step streamed in drawn updates (steps that already script theirs keep them)."""
    data: dict[str, Any] = spec.model_dump(mode="json", by_alias=True, exclude_unset=True)
    for turn_data, turn in zip(data.get("turns", []), spec.turns, strict=True):
        for step_data, step in zip(turn_data.get("model", []), turn.model, strict=True):
            if _splittable(step):
                stream = draw(_updates(step.contents or []))
                candidate = ModelStepSpec.model_validate(step_data | {"stream": stream})
                if stream_problem(candidate) is None:
                    step_data["stream"] = stream
    return ScenarioSpec.model_validate(data)


def _splittable(step: ModelStepSpec) -> bool:
    if step.contents is None or step.stream is not None or not step.contents:
        return False
    return all(c.kind() in ("text", "reasoning", "function_call") and
               (c.function_call is None or c.function_call.stream_chunks is None) for c in step.contents)


@st.composite
def _updates(draw: st.DrawFn, contents: list[ContentSpec]) -> list[list[Fragment]]:
    fragments: list[Fragment] = []
    for content in contents:
        fragments.extend(draw(_fragments(content)))
    updates: list[list[Fragment]] = []
    for fragment in fragments:
        if updates and draw(st.integers(0, 3)) == 0:
            updates[-1].append(fragment)  # two fragments in one update, as a provider's delta may carry
        else:
            updates.append([fragment])
        if draw(st.integers(0, 4)) == 0:
            updates.append([])  # an update with no contents: metadata only
    return updates


def _pieces(draw: st.DrawFn, text: str) -> list[str]:
    """`text` cut at drawn places; repeated places give empty pieces."""
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=4)))
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]


@st.composite
def _fragments(draw: st.DrawFn, content: ContentSpec) -> list[Fragment]:
    if content.text is not None:
        return [{"text": piece} for piece in _pieces(draw, str(content.text))]
    if content.reasoning is not None:
        whole: dict[str, Any] = ({"text": content.reasoning} if isinstance(content.reasoning, str)
                                 else content.reasoning.model_dump(mode="json", exclude_unset=True))
        fixed = {k: v for k, v in whole.items() if k in ("id", "kind")}
        pieces = _pieces(draw, str(whole.get("text", "")))
        parts = [fixed | {"text": piece} for piece in pieces]
        # The signature and opaque payload come once, on the last fragment, as providers send them.
        parts[-1] |= {k: v for k, v in whole.items() if k in ("signature", "data")}
        return [{"reasoning": part} for part in parts]
    call = content.function_call
    assert call is not None
    if call.informational_only or call.server_label is not None or isinstance(call.arguments, str):
        dumped: Fragment = call.model_dump(mode="json", exclude_unset=True)
        if isinstance(dumped.get("arguments"), dict):
            # As JSON text, the way every provider the splits imitate streams them: a mapping in a fragment says
            # the client delivered one (capability streamed-mapping-arguments), which the scenario does not ask.
            dumped["arguments"] = json.dumps(dumped["arguments"]) if dumped["arguments"] else ""
        return [{"function_call": dumped}]
    text = json.dumps(call.arguments, ensure_ascii=draw(st.booleans())) if call.arguments else ""
    pieces = _pieces(draw, text)
    repeat_id = draw(st.booleans())
    first: Fragment = {"call_id": call.call_id, "name": call.name, "arguments": pieces[0]}
    rest: list[Fragment] = [({"call_id": call.call_id} if repeat_id else {}) | {"arguments": piece}
                            for piece in pieces[1:]]
    return [{"function_call": fragment} for fragment in (first, *rest)]
