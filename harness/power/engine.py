"""The mutation engine: cosmic-ray's operators, used as a library to list and apply mutations to source text.

cosmic-ray is used rather than mutmut because it mutates any file path as plain source (parso), reports each
mutation's exact position and lets the caller run its own tests: the loop under test may be a module inside an
installed package, which mutmut 3 (it rewrites the project's own source tree into trampolines and drives pytest)
cannot target. Nothing here writes a file; applying a mutation returns new source text.
"""

from __future__ import annotations

import copy
import difflib
import functools
import importlib
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, cast

from harness.errors import HarnessError

# The operators that change what a loop decides: negated and swapped conditions, boundary shifts, flipped
# constants, skipped loops and jumps. cosmic-ray's binary-operator swaps are left out: in loop code they hit mostly
# `X | None` annotations (inert under postponed evaluation) and would be most of the mutants yet almost all
# equivalent.
DEFAULT_OPERATORS: tuple[str, ...] = (
    "core/AddNot",
    "core/ReplaceUnaryOperator_Delete_Not",
    "core/ReplaceAndWithOr",
    "core/ReplaceOrWithAnd",
    "core/ReplaceTrueWithFalse",
    "core/ReplaceFalseWithTrue",
    "core/ReplaceComparisonOperator_Eq_NotEq",
    "core/ReplaceComparisonOperator_NotEq_Eq",
    "core/ReplaceComparisonOperator_Is_IsNot",
    "core/ReplaceComparisonOperator_IsNot_Is",
    "core/ReplaceComparisonOperator_Lt_LtE",
    "core/ReplaceComparisonOperator_LtE_Lt",
    "core/ReplaceComparisonOperator_Gt_GtE",
    "core/ReplaceComparisonOperator_GtE_Gt",
    "core/ReplaceBinaryOperator_Add_Sub",
    "core/ReplaceBinaryOperator_Sub_Add",
    "core/NumberReplacer",
    "core/ZeroIterationForLoop",
    "core/ReplaceBreakWithContinue",
    "core/ReplaceContinueWithBreak",
)


class MutationEngineError(HarnessError):
    """The engine is not installed, or an operator name is unknown to it."""


@dataclass(frozen=True)
class Mutant:
    """One mutation of one module: the `occurrence`-th place `operator` applies to, on lines `start_line` to
    `end_line` (1-based, inclusive) of the module's source."""

    module: str
    operator: str
    occurrence: int
    start_line: int
    end_line: int
    function: str | None

    @property
    def id(self) -> str:
        return f"{self.module}:{self.operator.removeprefix('core/')}:{self.occurrence}"

    @property
    def lines(self) -> range:
        return range(self.start_line, self.end_line + 1)


class _Operator(Protocol):
    def mutation_positions(self, node: Any) -> Iterator[tuple[tuple[int, int], tuple[int, int]]]: ...

    def mutate(self, node: Any, index: int) -> Any: ...


def _engine(module: str) -> Any:
    """A cosmic-ray module (untyped: it ships no type information)."""
    try:
        return cast(Any, importlib.import_module(module))
    except ImportError as error:
        raise MutationEngineError(
            f"the mutation engine is not installed ({error}): pip install 'loop-conformance[power]'") from None


def _cosmic_ray() -> tuple[Any, Any, Any]:
    plugins, ast = _engine("cosmic_ray.plugins"), _engine("cosmic_ray.ast")
    return plugins, ast.ast_nodes, ast.get_ast


@functools.cache
def _operator(name: str) -> _Operator:
    plugins, _, _ = _cosmic_ray()
    try:
        operator_class = plugins.get_operator(name)
    except (KeyError, ValueError):
        raise MutationEngineError(f"unknown mutation operator {name!r}") from None
    return cast(_Operator, operator_class())


class ParsedModule:
    """One module's source parsed once, with every place each operator applies to.

    cosmic-ray's own `mutate_code` parses the whole module again for every mutant (seconds for a 6,500-line module);
    here the tree is parsed once and a mutant is made by mutating a copy of the one node it changes and splicing that
    node's new text into the source, which gives the same text as `mutate_code` (a test compares the two).
    """

    def __init__(self, module: str, source: str, operators: Sequence[str] = DEFAULT_OPERATORS) -> None:
        _, ast_nodes, get_ast = _cosmic_ray()
        self.module = module
        self.source = source
        self.operators = tuple(operators)
        nodes = list(ast_nodes(get_ast(source)))
        starts = [0]
        for line in _split_lines(source):
            starts.append(starts[-1] + len(line))
        self._line_starts = starts
        # (operator, occurrence) -> the node and the index of the position within it that the operator mutates
        self._places: dict[tuple[str, int], tuple[Any, int]] = {}
        self.mutants: list[Mutant] = []
        for name in self.operators:
            operator = _operator(name)
            occurrence = 0
            for node in nodes:
                for index, (start, end) in enumerate(operator.mutation_positions(node)):
                    self._places[(name, occurrence)] = (node, index)
                    self.mutants.append(Mutant(module, name, occurrence, start[0], end[0], _definition(node)))
                    occurrence += 1

    def _offset(self, position: tuple[int, int]) -> int:
        line, column = position
        return self._line_starts[line - 1] + column

    def mutated(self, mutant: Mutant) -> str | None:
        """The source with `mutant` applied, or None when it is not one of this module's mutants."""
        place = self._places.get((mutant.operator, mutant.occurrence))
        if place is None or mutant.module != self.module:
            return None
        node, index = place
        # The copy keeps the original parent (operators may look at it) but owns its children, so the in-place
        # edits cosmic-ray's operators make never reach the shared tree.
        parent = node.parent
        copied = copy.deepcopy(node, {id(parent): parent})
        replacement = _operator(mutant.operator).mutate(copied, index)
        new_text = "" if replacement is None else cast(str, replacement.get_code())
        start = self._offset(cast(tuple[int, int], node.get_start_pos_of_prefix()))
        end = self._offset(cast(tuple[int, int], node.end_pos))
        return self.source[:start] + new_text + self.source[end:]


def _split_lines(source: str) -> list[str]:
    """The source's lines as parso counts them (only \\n, \\r\\n and \\r end a line), ends kept."""
    utils = _engine("parso.utils")
    return cast(list[str], utils.split_lines(source, keepends=True))


def list_mutants(module: str, source: str, operators: Sequence[str] = DEFAULT_OPERATORS) -> list[Mutant]:
    """Every mutation the operators make of `source` (the text of `module`), in operator order, then position."""
    return ParsedModule(module, source, operators).mutants


def _definition(node: Any) -> str | None:
    """The name of the function or class the node sits in (shown with survivors)."""
    current = node
    while current is not None:
        if getattr(current, "type", None) in ("funcdef", "classdef"):
            return cast(str, current.name.value)
        current = getattr(current, "parent", None)
    return None


def reparsed_source(mutant: Mutant, source: str) -> str | None:
    """`source` with `mutant` applied by cosmic-ray itself (a fresh parse): the slow reference `ParsedModule` is
    checked against."""
    mutating = _engine("cosmic_ray.mutating")
    return cast(str | None, mutating.mutate_code(source, _operator(mutant.operator), mutant.occurrence))


_HUNK_HEADER = re.compile(r"^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@")


def mutant_diff(mutant: Mutant, source: str, mutated: str) -> str:
    """The mutation as a unified diff of the module's source (one line of context).

    Only the lines between the common head and tail are compared: difflib over a whole 6,500-line module takes a
    fifth of a second, which for thousands of mutants would cost minutes before the first one runs."""
    name = mutant.module.replace(".", "/") + ".py"
    old, new = source.splitlines(keepends=True), mutated.splitlines(keepends=True)
    head = 0
    while head < min(len(old), len(new)) and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < min(len(old), len(new)) - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    low = max(0, head - 1)
    old_part, new_part = old[low:len(old) - max(0, tail - 1)], new[low:len(new) - max(0, tail - 1)]
    lines = difflib.unified_diff(old_part, new_part, f"a/{name}", f"b/{name}", n=1)
    return "".join(_HUNK_HEADER.sub(lambda found: _shifted(found, low), line) for line in lines)


def _shifted(found: re.Match[str], by: int) -> str:
    old_start, old_count, new_start, new_count = found.groups()
    return f"@@ -{int(old_start) + by}{old_count or ''} +{int(new_start) + by}{new_count or ''} @@"
