"""Expected-versus-actual comparison: exact by default, loose only where a matcher says so."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.scenario import matchers
from harness.scenario.matchers import (
    MATCHERS,
    InvalidPatternError,
    Mismatch,
    compile_pattern,
    is_matcher,
    match,
    matcher_problems,
    pattern_shape,
)


def _reasons(expected: Any, actual: Any) -> list[tuple[str, str]]:
    return [(m.path, m.reason) for m in match(expected, actual)]


# --- exact comparison -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [None, True, 0, 1.5, "x", [], {}, [1, "a", None], {"a": {"b": [1, 2]}}])
def test_equal_values_match(value: Any) -> None:
    assert match(value, value) == []


def test_a_different_scalar_is_reported_with_both_values() -> None:
    assert match("sunny", "rainy") == [Mismatch("", "sunny", "rainy", "differs")]


@pytest.mark.parametrize(("expected", "actual"), [(1, True), (True, 1), (0, False), (False, 0)])
def test_booleans_are_not_numbers(expected: Any, actual: Any) -> None:
    assert _reasons(expected, actual) == [("", "differs")]


def test_integers_equal_their_float_values() -> None:
    assert match(1, 1.0) == []


def test_paths_name_the_place_of_each_mismatch() -> None:
    expected = [{"role": "tool", "contents": [{"function_result": {"call_id": "c1", "result": "sunny"}}]}]
    actual = [{"role": "tool", "contents": [{"function_result": {"call_id": "c1", "result": "rainy"}}]}]
    assert _reasons(expected, actual) == [("[0].contents[0].function_result.result", "differs")]


def test_mappings_are_exact_both_ways() -> None:
    assert _reasons({"a": 1, "b": 2}, {"a": 1, "c": 3}) == [("b", "missing"), ("c", "unexpected")]


def test_a_missing_nested_mapping_or_list_is_missing_not_mistyped() -> None:
    assert _reasons({"a": {"b": 1}, "l": [1]}, {}) == [("a", "missing"), ("l", "missing")]
    assert _reasons({"a": {"b": 1}}, {"a": None}) == [("a", "expected a mapping")]
    assert _reasons({"l": [1]}, {"l": "1"}) == [("l", "expected a list")]


def test_lists_compare_items_and_length() -> None:
    assert _reasons([1, 2, 3], [1, 5]) == [("[1]", "differs"), ("", "length differs")]
    assert match([1], [1, 2])[-1] == Mismatch("", "1 items", "2 items", "length differs")


# --- matchers -------------------------------------------------------------------------------------------------


def test_any_accepts_everything_including_absence() -> None:
    assert match({"$any": True}, None) == []
    assert match({"id": {"$any": True}}, {}) == []
    assert match({"id": {"$any": True}}, {"id": [1, {"x": 2}]}) == []


@pytest.mark.parametrize(("pattern", "actual", "ok"), [
    ("^Sun", "Sunny", True),
    ("sunny", "It is sunny.", True),  # search, not fullmatch
    ("^rain", "Sunny", False),
    ("1", 1, False),  # only strings match a regex
])
def test_regex(pattern: str, actual: Any, ok: bool) -> None:
    assert (match({"$regex": pattern}, actual) == []) is ok


def test_a_regex_that_backtracks_without_end_fails_its_match_instead_of_hanging(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(matchers, "REGEX_TIMEOUT", 0.01)
    # `(a|a)*$` tries 2**40 ways to split the a's before giving up on the b: no time limit outlasts that.
    assert _reasons({"$regex": "(a|a)*$"}, "a" * 40 + "b") == [
        ("", "$regex gave up after 0.01 s: the pattern backtracks too much on this value")]


@pytest.mark.parametrize(("pattern", "reason"), [
    ("(", "$regex pattern does not compile: missing ) at position 1"),
    ("a{100}" * 101, "$regex pattern is too large: its counted repeats ({n}, {n,m}) would compile into more than "
     "10000 items"),
    (["a"], "$regex takes a string pattern"),
])
def test_an_unusable_regex_is_a_mismatch_not_an_exception(pattern: Any, reason: str) -> None:
    assert _reasons({"$regex": pattern}, "a") == [("", reason)]


def test_patterns_are_compiled_once() -> None:
    assert compile_pattern("^Sun") is compile_pattern("^Sun")


@pytest.mark.parametrize(("pattern", "shape"), [
    ("abc", (3, 0)),
    ("a{100}", (100, 0)),
    ("a{2,50}", (50, 0)),
    ("(ab){10}", (20, 1)),
    ("((a){10}){10}", (100, 2)),
    ("[{}()]{5}", (5, 0)),  # brackets inside a class are characters
    ("\\(a{9}", (10, 0)),  # so is an escaped parenthesis
    ("\\p{L}{3}", (6, 0)),  # the braces of a property are no count (the bound only over-estimates it)
])
def test_pattern_shape_bounds_what_regex_expands(pattern: str, shape: tuple[int, int]) -> None:
    assert pattern_shape(pattern) == shape


def test_a_pattern_that_would_expand_into_gigabytes_is_refused_before_compiling() -> None:
    with pytest.raises(InvalidPatternError, match="too large"):
        compile_pattern("(?:(?:(?:a{100}){100}){100}){100}")
    with pytest.raises(InvalidPatternError, match="nests groups more than 100 deep"):
        compile_pattern("(" * 101 + ")" * 101)


def test_a_matcher_on_a_missing_value_is_reported_missing() -> None:
    assert _reasons({"text": {"$regex": "x"}}, {}) == [("text", "missing")]


@pytest.mark.parametrize(("argument", "actual", "contained"), [
    ("Paris", "Weather in Paris", True),
    ("Oslo", "Weather in Paris", False),
    (1, "1", False),  # a non-string is never a substring
    ("b", ["a", "b"], True),
    ({"$regex": "^b"}, ["a", "bc"], True),  # elements may match
    (1, [True], False),
    (1, 1, False),  # neither a string nor a list
])
def test_contains_and_not_contains(argument: Any, actual: Any, contained: bool) -> None:
    assert (match({"$contains": argument}, actual) == []) is contained
    assert (match({"$not_contains": argument}, actual) == []) is not contained


def test_prefix_and_suffix() -> None:
    items = [1, 2, 3, 4]
    assert match({"$prefix": [1, 2]}, items) == []
    assert match({"$suffix": [3, {"$any": True}]}, items) == []
    assert match({"$prefix": []}, items) == []
    assert _reasons({"$suffix": [2, 4]}, items) == [("[2]", "differs")]  # indices point into the actual list
    assert _reasons({"$prefix": [9]}, items) == [("[0]", "differs")]
    assert _reasons({"$prefix": [1, 2, 3, 4, 5]}, items) == [("", "too few items")]
    assert _reasons({"$suffix": [1]}, "1") == [("", "expected a list")]


def test_not_inverts_a_match_and_accepts_absence() -> None:
    assert match({"$not": "rainy"}, "sunny") == []
    assert match({"r": {"$not": {"$any": True}}}, {}) == []
    assert _reasons({"$not": {"$regex": "^s"}}, "sunny") == [("", "matches what $not excludes")]


def test_matchers_nest_in_structures() -> None:
    expected = {"calls": {"$suffix": [{"id": {"$regex": "^c"}, "args": {"$any": True}}]}}
    assert match(expected, {"calls": [{"id": "x", "args": 1}, {"id": "c2", "args": {}}]}) == []
    assert _reasons(expected, {"calls": [{"id": "x", "args": 1}]}) == [("calls[0].id", "does not satisfy $regex")]


def test_is_matcher_needs_exactly_one_known_key() -> None:
    assert all(is_matcher({name: None}) for name in MATCHERS)
    assert not is_matcher({"$regx": "a"})
    assert not is_matcher({"$any": True, "other": 1})
    assert not is_matcher({})
    assert not is_matcher([("$any", True)])


def test_a_mapping_that_is_not_a_matcher_compares_literally() -> None:
    assert match({"$any": True, "x": 1}, {"$any": True, "x": 1}) == []
    assert _reasons({"$any": True, "x": 1}, {"x": 1}) == [("$any", "missing")]


def test_matcher_problems_flag_unknown_dollar_keys_anywhere() -> None:
    value = {"a": [{"b": {"$regx": "x"}}], "c": {"$any": True}}
    assert matcher_problems(value) == [".a[0].b: unknown matcher '$regx' (known: " + ", ".join(MATCHERS) + ")"]
    assert matcher_problems({"$suffix": [{"$not": 1}]}) == []


# --- properties -----------------------------------------------------------------------------------------------

_KEYS = st.sampled_from(["a", "b", "call_id", "result"])
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-2, 2) | st.sampled_from([0.5, 2.0]) | st.sampled_from(["", "a", "b"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=3),
    max_leaves=10,
)


def _json_equal(a: Any, b: Any) -> bool:
    """Equality as JSON sees it: booleans are not numbers; 1 and 1.0 are the same number."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_json_equal(a[k], b[k]) for k in a)  # pyright: ignore[reportUnknownArgumentType,reportUnknownMemberType,reportUnknownVariableType]
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_json_equal(x, y) for x, y in zip(a, b, strict=True))  # pyright: ignore[reportUnknownArgumentType,reportUnknownVariableType]
    if isinstance(a, dict | list) or isinstance(b, dict | list):
        return False
    return (type(a) is bool) == (type(b) is bool) and a == b


@settings(derandomize=True, max_examples=300)
@given(expected=_JSON, actual=_JSON)
def test_without_matchers_match_is_json_equality(expected: Any, actual: Any) -> None:
    assert (match(expected, actual) == []) is _json_equal(expected, actual)


@settings(derandomize=True, max_examples=200)
@given(value=_JSON)
def test_any_value_matches_itself_and_any(value: Any) -> None:
    assert match(value, value) == []
    assert match({"$any": True}, value) == []
    assert match({"$not": {"$any": True}}, value) != []


@settings(derandomize=True, max_examples=200)
@given(items=st.lists(_JSON, max_size=5), cut=st.integers(0, 5))
def test_every_prefix_and_suffix_of_a_list_matches_it(items: list[Any], cut: int) -> None:
    cut = min(cut, len(items))
    assert match({"$prefix": items[:cut]}, items) == []
    assert match({"$suffix": items[len(items) - cut:]}, items) == []


def test_all_holds_when_every_expectation_holds() -> None:
    both = {"$all": [{"$contains": "one"}, {"$contains": "two"}]}
    assert match(both, "part one\npart two") == []
    assert match(both, ["one", "two", "x"]) == []  # in a list, $contains looks for an equal element
    assert [m.reason for m in match(both, "part one")] == ["does not satisfy $contains"]
    assert match({"$all": "x"}, "x")[0].reason == "$all takes a list of expectations"
