"""Safe YAML loading that remembers where every key and value came from."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

DataPath = tuple[str | int, ...]


@dataclass(frozen=True)
class Position:
    line: int  # 1-based
    column: int  # 1-based


@dataclass
class YamlSource:
    """A parsed YAML document with the position of each value and each mapping key, by data path."""

    path: Path
    text: str
    data: Any = None
    values: dict[DataPath, Position] = field(default_factory=lambda: {})
    keys: dict[DataPath, Position] = field(default_factory=lambda: {})
    duplicate_keys: list[tuple[DataPath, Position]] = field(default_factory=lambda: [])

    def position(self, path: DataPath, *, key: bool = False) -> Position:
        """The closest known position of `path`: its key or value, else its nearest ancestor's."""
        for depth in range(len(path), -1, -1):
            prefix = path[:depth]
            table = self.keys if key and depth == len(path) else self.values
            if prefix in table:
                return table[prefix]
            if prefix in self.keys:
                return self.keys[prefix]
        return Position(1, 1)


class YamlSyntaxError(Exception):
    def __init__(self, message: str, position: Position) -> None:
        super().__init__(message)
        self.position = position


def load_yaml(path: Path, text: str) -> YamlSource:
    """Parse `text` with the safe loader; raises `YamlSyntaxError` with a position for malformed YAML."""
    source = YamlSource(path, text)
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is not None:
            source.data = _Constructor(loader, source).build(node, ())
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        where = Position(mark.line + 1, mark.column + 1) if mark else Position(1, 1)
        raise YamlSyntaxError(f"{error.problem or error.context or 'invalid YAML'}", where) from None
    except yaml.YAMLError as error:
        raise YamlSyntaxError(str(error), Position(1, 1)) from None
    finally:
        loader.dispose()  # pyright: ignore[reportUnknownMemberType]
    return source


def _mark(node: yaml.Node) -> Position:
    return Position(node.start_mark.line + 1, node.start_mark.column + 1)


# A scenario file holds a few hundred values; far more means aliases that expand without end ("billion laughs").
MAX_VALUES = 100_000


class _Constructor:
    """Builds plain data from the node graph, recording positions; aliases are expanded, but never into a cycle."""

    def __init__(self, loader: yaml.SafeLoader, source: YamlSource) -> None:
        self._loader = loader
        self._source = source
        self._open: set[int] = set()  # ids of the collection nodes being built, innermost last
        self._count = 0

    def _construct(self, node: yaml.Node) -> object:
        loader: Any = self._loader  # PyYAML ships no type information
        value: object = loader.construct_object(node, deep=True)
        return value

    def build(self, node: yaml.Node, path: DataPath) -> Any:
        source = self._source
        self._count += 1
        if self._count > MAX_VALUES:
            raise YamlSyntaxError(f"the document expands to more than {MAX_VALUES} values (aliases nested too "
                                  "deeply?)", _mark(node))
        source.values[path] = _mark(node)
        if not isinstance(node, yaml.MappingNode | yaml.SequenceNode):
            return self._construct(node)
        if id(node) in self._open:
            raise YamlSyntaxError("an alias refers to a collection that contains it (a recursive structure)",
                                  _mark(node))
        self._open.add(id(node))
        try:
            if isinstance(node, yaml.SequenceNode):
                return [self.build(item, (*path, index)) for index, item in enumerate(node.value)]
            result: dict[Any, Any] = {}
            for key_node, value_node in node.value:
                raw = self._construct(key_node)
                key: str | int = raw if isinstance(raw, str | int) else str(raw)
                child = (*path, key)
                if key in result:
                    source.duplicate_keys.append((child, _mark(key_node)))
                source.keys[child] = _mark(key_node)
                result[key] = self.build(value_node, child)
            return result
        finally:
            self._open.discard(id(node))
