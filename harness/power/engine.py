"""The mutation engine: cosmic-ray's operators, used as a library to list and apply mutations to source text.

cosmic-ray is used rather than mutmut because it mutates any file path as plain source (parso), reports each
mutation's exact position and lets the caller run its own tests: the loop under test may be a module inside an
installed package, which mutmut 3 (it rewrites the project's own source tree into trampolines and drives pytest)
cannot target. Nothing here writes a file; applying a mutation returns new source text.
"""

from __future__ import annotations

import difflib
import importlib
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


def _operator(name: str) -> _Operator:
    plugins, _, _ = _cosmic_ray()
    try:
        operator_class = plugins.get_operator(name)
    except (KeyError, ValueError):
        raise MutationEngineError(f"unknown mutation operator {name!r}") from None
    return cast(_Operator, operator_class())


def list_mutants(module: str, source: str, operators: Sequence[str] = DEFAULT_OPERATORS) -> list[Mutant]:
    """Every mutation the operators make of `source` (the text of `module`), in operator order, then position."""
    _, ast_nodes, get_ast = _cosmic_ray()
    tree = get_ast(source)
    nodes = list(ast_nodes(tree))
    mutants: list[Mutant] = []
    for name in operators:
        operator = _operator(name)
        occurrence = 0
        for node in nodes:
            for start, end in operator.mutation_positions(node):
                mutants.append(Mutant(module, name, occurrence, start[0], end[0], _definition(node)))
                occurrence += 1
    return mutants


def _definition(node: Any) -> str | None:
    """The name of the function or class the node sits in (shown with survivors)."""
    current = node
    while current is not None:
        if getattr(current, "type", None) in ("funcdef", "classdef"):
            return cast(str, current.name.value)
        current = getattr(current, "parent", None)
    return None


def mutated_source(mutant: Mutant, source: str) -> str | None:
    """`source` with `mutant` applied, or None when the operator no longer applies there (the source changed)."""
    mutating = _engine("cosmic_ray.mutating")
    return cast(str | None, mutating.mutate_code(source, _operator(mutant.operator), mutant.occurrence))


def mutant_diff(mutant: Mutant, source: str, mutated: str) -> str:
    """The mutation as a unified diff of the module's source."""
    name = mutant.module.replace(".", "/") + ".py"
    return "".join(difflib.unified_diff(source.splitlines(keepends=True), mutated.splitlines(keepends=True),
                                        f"a/{name}", f"b/{name}", n=1))
