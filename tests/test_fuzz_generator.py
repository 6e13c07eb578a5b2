"""The fuzzer's generator and stream splits produce valid scenarios: a round trip through YAML and the loader gives
back the same scenario, and the reference loop passes every oracle on them (a false alarm there would be the
generator's bug or the reference's)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import get_args

import pytest
from hypothesis import Phase, find, given, settings
from hypothesis import strategies as st

from harness.adapters.reference import adapter as reference_adapter
from harness.contents import FunctionCall, Text, Update
from harness.contract import Capability
from harness.fuzz.conversations import conversations
from harness.fuzz.features import features
from harness.fuzz.oracle import Judge
from harness.fuzz.session import SLOW_EXAMPLES
from harness.fuzz.stream_splits import split_streams
from harness.fuzz.yaml_form import load_generated, scenario_yaml
from harness.scenario.loader import load_many, load_scenario
from harness.scenario.schema import ScenarioSpec
from harness.transcript import stream_tokens

BUNDLED = Path(__file__).resolve().parent.parent / "scenarios"
CAPABILITIES_ALL: frozenset[str] = frozenset(get_args(Capability))
FAST = settings(max_examples=25, deadline=None, suppress_health_check=SLOW_EXAMPLES, database=None)
# The first conversation with a feature, unshrunk: shrinking a whole conversation costs minutes and proves nothing here.
FIND = settings(max_examples=500, deadline=None, database=None, derandomize=True, phases=(Phase.generate,),
                suppress_health_check=SLOW_EXAMPLES)


@FAST
@given(conversations(CAPABILITIES_ALL))
def test_generated_conversation_round_trips_through_yaml(spec: ScenarioSpec) -> None:
    text = scenario_yaml(spec)
    loaded = load_generated(spec, Path("generated.yaml"))
    assert loaded.spec == spec
    assert scenario_yaml(loaded.spec) == text


def test_round_trip_through_a_file(tmp_path: Path) -> None:
    @settings(max_examples=5, deadline=None, database=None)
    @given(conversations(CAPABILITIES_ALL))
    def written(spec: ScenarioSpec) -> None:
        path = tmp_path / "generated.yaml"
        path.write_text(scenario_yaml(spec), encoding="utf-8")
        assert load_scenario(path).spec == spec

    written()


@settings(max_examples=30, deadline=None, suppress_health_check=SLOW_EXAMPLES, database=None)
@given(conversations(reference_adapter().capabilities))
def test_reference_loop_passes_every_oracle_on_generated_conversations(spec: ScenarioSpec) -> None:
    scenario = load_generated(spec, Path("generated.yaml"))
    assert asyncio.run(Judge().findings(scenario, reference_adapter())) == []


_SPLITTABLE = [s.spec for s in load_many([BUNDLED])[0]
               if s.spec.not_observable is None and "streaming" in s.modes()
               and not set(s.spec.requires) - set(reference_adapter().capabilities)]


@settings(max_examples=30, deadline=None, suppress_health_check=SLOW_EXAMPLES, database=None)
@given(st.sampled_from(_SPLITTABLE).flatmap(split_streams))
def test_stream_splits_load_and_keep_the_reference_loop_passing(spec: ScenarioSpec) -> None:
    scenario = load_generated(spec, Path("split.yaml"))
    assert scenario.spec == spec
    assert asyncio.run(Judge().findings(scenario, reference_adapter(), ("streaming",))) == []


def test_stream_splits_do_split() -> None:
    spec = next(s for s in _SPLITTABLE if s.id == "normal.single-call")

    @settings(max_examples=20, deadline=None, database=None)
    @given(split_streams(spec))
    def split(variant: ScenarioSpec) -> None:
        streams = [step.stream for turn in variant.turns for step in turn.model if step.stream is not None]
        assert streams, "every step of normal.single-call can be split"

    split()


def test_a_whole_informational_call_splits_with_its_arguments_as_json_text() -> None:
    # A mapping in a fragment would say the client delivered one (capability streamed-mapping-arguments).
    spec = next(s for s in _SPLITTABLE if s.id == "normal.informational-only.not-executed")

    @settings(max_examples=10, deadline=None, database=None)
    @given(split_streams(spec))
    def split(variant: ScenarioSpec) -> None:
        calls = [c.function_call for turn in variant.turns for step in turn.model for update in step.stream or []
                 for c in update if c.function_call is not None and c.function_call.informational_only]
        assert calls
        assert all(isinstance(call.arguments, str) for call in calls)

    split()


def test_stream_order_reads_an_id_less_fragment_as_the_call_before_it() -> None:
    updates = [Update("assistant", (FunctionCall("c1", "f", '{"a"'),), "m"),
               Update("assistant", (FunctionCall("", "", ': 1}'),), "m"),
               Update("assistant", (Text("done"),), "m")]
    assert stream_tokens(updates) == ["function_call c1", "text"]


def test_features_name_what_a_scenario_exercises() -> None:
    scenario = load_scenario(BUNDLED / "approval" / "calls-across-messages-session.yaml")
    assert {"approval", "approved", "calls-across-messages", "session", "parallel", "multi-turn"} <= features(
        scenario)
    assert "caller-history" not in features(scenario)


@pytest.mark.parametrize("feature", ["declaration-only", "input-request", "hosted-call", "hosted-approval",
                                     "hosted-approval-beside-calls", "hosted-decision"])
def test_generator_makes_caller_run_tools_input_requests_and_hosted_calls(feature: str) -> None:
    # Each kind is generated, round-trips through YAML, and the reference loop passes every oracle on it.
    spec = find(conversations(reference_adapter().capabilities),
                lambda s: feature in features(load_generated(s, Path("generated.yaml"))),
                settings=FIND)
    loaded = load_generated(spec, Path("generated.yaml"))
    assert loaded.spec == spec
    assert asyncio.run(Judge().findings(loaded, reference_adapter())) == []


def test_features_tell_several_decisions_in_one_turn_apart_from_several_approvals() -> None:
    mixed = features(load_scenario(BUNDLED / "agui" / "rejection-mixed-decision.yaml"))
    assert {"decided-together", "mixed-decision"} <= mixed
    assert "approved-together" not in mixed
    assert "decided-together" not in features(load_scenario(BUNDLED / "agui" / "rejection-single.yaml"))


def test_features_name_arguments_a_tool_must_refuse() -> None:
    assert "invalid-arguments" in features(load_scenario(BUNDLED / "errors" / "validation-error-unapproved.yaml"))
    assert "invalid-arguments" not in features(load_scenario(BUNDLED / "normal" / "single-call.yaml"))


def test_features_name_a_run_that_calls_tools_in_several_model_rounds() -> None:
    assert "sequential-rounds" in features(load_scenario(BUNDLED / "normal" / "sequential-rounds.yaml"))
    assert "sequential-rounds" not in features(load_scenario(BUNDLED / "normal" / "parallel-calls.yaml"))
    across = load_scenario(BUNDLED / "approval" / "calls-across-messages-session.yaml")
    assert "sequential-rounds" not in features(across)  # one round's calls in two messages


def _resumed_error_rounds(held: str) -> ScenarioSpec:
    """A pause on `held` beside a gated call; the resume then fails in two more rounds in a row."""
    call = {"name": "", "arguments": {"x": "a"}}
    fails = {"name": "fails", "parameters": {"type": "object"}, "behaviour": [{"raise": "no"}]}
    gated = {"name": "gated", "parameters": {"type": "object"}, "returns": "ok", "approval": "required"}
    works = {"name": "works", "parameters": {"type": "object"}, "returns": "ok"}
    rounds = [{"contents": [{"function_call": call | {"call_id": f"c{n}", "name": "fails"}}]} for n in (3, 4)]
    return ScenarioSpec.model_validate({"id": "fuzz.generated", "title": "t", "spec": ["Multiple sequential rounds"],
        "requires": ["approval"], "tools": [fails, gated, works], "turns": [
            {"input": "go", "model": [{"contents": [{"function_call": call | {"call_id": "c1", "name": held}},
                                                    {"function_call": call | {"call_id": "c2", "name": "gated"}}]}]},
            {"input": [{"history": "previous"}, {"approvals": {"c2": "approve"}}],
             "model": [*rounds, {"contents": [{"text": "done"}]}]}]})


def test_the_error_cap_counts_a_failing_call_of_the_resumed_batch_as_the_turns_first_round() -> None:
    # As the generator counts it: seed 102's conversation reached the default cap (3) through the held batch, which
    # the feature missed, so no allowance naming max-consecutive-errors applied to it.
    assert "max-consecutive-errors" in features(load_generated(_resumed_error_rounds("fails"), Path("g.yaml")))
    assert "max-consecutive-errors" not in features(load_generated(_resumed_error_rounds("works"), Path("g.yaml")))


def test_features_name_caller_run_tools_input_requests_and_hosted_calls() -> None:
    assert "declaration-only" in features(load_scenario(BUNDLED / "normal" / "declaration-only.yaml"))
    assert "input-request" in features(load_scenario(BUNDLED / "approval" / "user-input.yaml"))
    hosted = load_scenario(BUNDLED / "limits" / "post-limit-hosted-pair.yaml")
    assert "hosted-call" in features(hosted)
    assert "parallel" not in features(hosted)  # the hosted call is the service's, not a local batch's


def test_a_parsed_argument_fragment_after_a_blank_start_continues_the_call() -> None:
    # A fragment's complete JSON text may reach the caller already parsed; after a fragment with the id, the name
    # and no argument text, it is the call's whole arguments (a stream split the fuzzer found).
    from harness.contents import fold_updates

    split = [Update("assistant", (FunctionCall("c1", "book", {}),), "m"),
             Update("assistant", (FunctionCall("c1", "", {"room": "4"}),), "m")]
    assert fold_updates(split).messages[0].contents == (FunctionCall("c1", "book", {"room": "4"}),)
    two = [Update("assistant", (FunctionCall("c1", "book", {"room": "4"}),), "m"),
           Update("assistant", (FunctionCall("c1", "", {"room": "5"}),), "m")]
    assert len(fold_updates(two).messages[0].contents) == 2  # two complete argument sets are never merged


def _with_hosted_decision(feature: str) -> ScenarioSpec:
    return find(conversations(reference_adapter().capabilities),
                lambda s: {"hosted-decision", feature} <= features(load_generated(s, Path("generated.yaml"))),
                settings=FIND)


@pytest.mark.parametrize("feature", ["hosted-approved", "hosted-rejected", "session"])
def test_a_hosted_approval_and_its_decision_round_trip_through_a_file(feature: str, tmp_path: Path) -> None:
    spec = _with_hosted_decision(feature)
    text = scenario_yaml(spec)
    request = next(c.approval_request for t in spec.turns for step in t.model
                   for c in (step.contents or [c for m in step.messages or [] for c in m.contents])
                   if c.approval_request is not None)
    assert request.function_call is not None
    assert request.function_call.server_label is not None
    assert f"id: {request.id}" in text  # the service's own request id, which the caller's decision names
    assert "approval_response:" in text
    path = tmp_path / "generated.yaml"
    path.write_text(text, encoding="utf-8")
    loaded = load_scenario(path)
    assert loaded.spec == spec
    assert {"approval", "hosted-tools"} <= set(loaded.spec.requires)
    assert asyncio.run(Judge().findings(loaded, reference_adapter())) == []


def test_no_hosted_approvals_without_the_capability() -> None:
    # Gated like hosted calls: a loop without hosted-tools (or without approvals) never gets them.
    for capabilities in (CAPABILITIES_ALL - {"hosted-tools"}, CAPABILITIES_ALL - {"approval"}):
        @settings(max_examples=40, deadline=None, database=None, suppress_health_check=SLOW_EXAMPLES)
        @given(conversations(capabilities))
        def none(spec: ScenarioSpec) -> None:
            found = features(load_generated(spec, Path("generated.yaml")))
            assert not {"hosted-approval", "hosted-decision"} & found

        none()


def test_hosted_oracle_catches_a_dropped_decision_and_the_exported_file_reproduces_it(tmp_path: Path) -> None:
    from fuzz_controls import drops_hosted_decisions

    from harness.fuzz.export import counterexample, write_counterexample
    from harness.fuzz.hosted import HOSTED_PASSTHROUGH
    from harness.fuzz.oracle import observe
    from harness.run.runner import run_scenario

    spec = _with_hosted_decision("caller-history")
    scenario = load_generated(spec, Path("generated.yaml"))
    control = drops_hosted_decisions()
    found = asyncio.run(Judge(reference=reference_adapter()).findings(scenario, control, ("non-streaming",)))
    assert [f.checks for f in found] == [(HOSTED_PASSTHROUGH,)]
    assert "reaches the first model call 0 time(s)" in found[0].message
    reference_run = asyncio.run(observe(scenario, reference_adapter(), "non-streaming"))
    exported = counterexample(spec, found[0], reference_run)
    assert "Hosted approval pass-through" in exported.spec
    path = write_counterexample(exported, found[0], tmp_path)
    replay = load_scenario(path)
    broken = asyncio.run(run_scenario(replay, control, "non-streaming"))
    assert "expect.requests" in {c.id for c in broken.checks if c.verdict == "fail"}
    assert asyncio.run(run_scenario(replay, reference_adapter(), "non-streaming")).verdict == "pass"


def test_one_conversation_failing_in_both_modes_is_written_to_two_files(tmp_path: Path) -> None:
    from harness.fuzz.export import counterexample, write_counterexample
    from harness.fuzz.oracle import Finding

    spec = _with_hosted_decision("caller-history")
    paths = {write_counterexample(counterexample(spec, finding), finding, tmp_path)
             for finding in (Finding("loop", mode, ("no-orphans",), "a call has no result")
                             for mode in ("non-streaming", "streaming"))}
    assert len(paths) == 2
    assert all(path.is_file() for path in paths)


def test_features_name_hosted_approvals_and_decisions() -> None:
    alone = features(load_scenario(BUNDLED / "approval" / "hosted-pass-through.yaml"))
    assert {"hosted-approval", "hosted-decision", "hosted-approved"} <= alone
    assert not {"hosted-approval-beside-calls", "decided", "hosted-rejected"} & alone  # no local decision
    assert "hosted-rejected" in features(load_scenario(BUNDLED / "approval" / "hosted-pass-through-session.yaml"))
    mixed = features(load_scenario(BUNDLED / "approval" / "hosted-mixed-local.yaml"))
    assert {"hosted-approval-beside-calls", "decided", "hosted-decision"} <= mixed


def test_reference_session_replays_a_pending_hosted_request_but_no_settled_one() -> None:
    # Spec: a hosted decision goes to the service once, on the resume request; then both controls are inert, while
    # a request still waiting for its decision stays replayable (row "Pending hosted history replay").
    from harness.adapters.reference.approvals import without_settled_hosted_controls
    from harness.contents import ApprovalRequest, ApprovalResponse, Message

    def call(call_id: str) -> FunctionCall:
        return FunctionCall(call_id, "search_docs", {"x": "a"}, False, "docs")

    settled, pending = ApprovalRequest("mcpr-1", call("h1")), ApprovalRequest("mcpr-2", call("h2"))
    history = [Message("user", (Text("go"),)), Message("assistant", (settled, pending, Text("asked"))),
               Message("user", (ApprovalResponse("mcpr-1", True, call("h1")),)), Message("assistant", (Text("ok"),))]
    assert without_settled_hosted_controls(history) == [
        Message("user", (Text("go"),)), Message("assistant", (pending, Text("asked"))),
        Message("assistant", (Text("ok"),))]
