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
            source.data = _construct(loader, node, (), source)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        where = Position(mark.line + 1, mark.column + 1) if mark else Position(1, 1)
        raise YamlSyntaxError(f"{error.problem or error.context or 'invalid YAML'}", where) from None
    except yaml.YAMLError as error:
        raise YamlSyntaxError(str(error), Position(1, 1)) from None
    finally:
        loader.dispose()
    return source


def _mark(node: yaml.Node) -> Position:
    return Position(node.start_mark.line + 1, node.start_mark.column + 1)


def _construct(loader: yaml.SafeLoader, node: yaml.Node, path: DataPath, source: YamlSource) -> Any:
    source.values[path] = _mark(node)
    if isinstance(node, yaml.MappingNode):
        result: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = loader.construct_object(key_node, deep=True)  # pyright: ignore[reportUnknownMemberType]
            key = key if isinstance(key, str | int) else str(key)
            child = (*path, key)
            if key in result:
                source.duplicate_keys.append((child, _mark(key_node)))
            source.keys[child] = _mark(key_node)
            result[key] = _construct(loader, value_node, child, source)
        return result
    if isinstance(node, yaml.SequenceNode):
        return [_construct(loader, item, (*path, index), source) for index, item in enumerate(node.value)]
    return loader.construct_object(node, deep=True)  # pyright: ignore[reportUnknownMemberType]
