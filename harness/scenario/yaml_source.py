"""Safe YAML loading that remembers where every key and value came from, bounded in depth and in size.

Whatever the text, `load_yaml` returns data or raises `SourceError` located at the place to fix: PyYAML's own
errors, values its converters refuse, nesting that would exhaust Python's stack, and aliases that expand without
end all become one.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from yaml.reader import ReaderError

from harness.scenario.yaml_hints import syntax_hint

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


class SourceError(Exception):
    """A file that cannot become scenario data, with a stable code and the position to fix."""

    def __init__(self, code: str, message: str, position: Position, hint: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.position = position
        self.hint = hint


def position_of(text: str, index: int) -> Position:
    """The line and column of character `index`, counting lines as `str.splitlines` (and so the renderer) does."""
    lines = text[:index].splitlines(keepends=True)
    if not lines:
        return Position(1, 1)
    last = lines[-1]
    if len(last.splitlines()[0]) < len(last):  # the prefix ends with a line break
        return Position(len(lines) + 1, 1)
    return Position(len(lines), len(last) + 1)


def invalid_character(text: str, index: int) -> SourceError:
    """The error for a character YAML does not allow, at `index` of `text`."""
    code = ord(text[index])
    if unicodedata.category(text[index]) == "Cc":
        escape = f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"
        return SourceError("invalid-character", f"control character U+{code:04X} is not allowed in YAML",
                           position_of(text, index),
                           f"delete it; to put it in a string, write the escape \"{escape}\" inside double quotes")
    return SourceError("invalid-character", f"character U+{code:04X} is not allowed in YAML", position_of(text, index),
                       "delete it")


# Nesting deeper than this is no scenario. PyYAML's composer recurses once per level, and so do the builder below,
# pydantic and the matchers: refusing it early keeps every later step far from Python's recursion limit.
MAX_DEPTH = 100
# The largest bundled scenario holds under 300 values; far more means aliases that expand without end ("billion
# laughs"), and every value costs time in validation and checks.
MAX_VALUES = 20_000
# The same for text: an alias repeats a long string into every report and diff that shows the value.
MAX_EXPANDED_CHARS = 2_000_000
# No tool argument needs a longer number. PyYAML converts base-60 numbers in quadratic time, and Python cannot even
# print an integer of more than 4,300 digits, so a longer one would break every message that shows it.
MAX_NUMBER_CHARS = 100


@dataclass(frozen=True)
class YamlLimits:
    """How deep and how large a document may be once its aliases are expanded, and what to call it in messages."""

    depth: int = MAX_DEPTH
    values: int = MAX_VALUES
    chars: int = MAX_EXPANDED_CHARS
    noun: str = "a scenario"  # "a scenario may hold", "a baseline file may hold"
    usual_depth: str = "a dozen levels"  # how deep such a document really nests, for the hint


SCENARIO_LIMITS = YamlLimits()

_NUMBER_TAGS = {"tag:yaml.org,2002:int", "tag:yaml.org,2002:float"}
_COLLECTION_TAGS = {"tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"}
# PyYAML resolves a plain `<<` and `=` to tags its safe constructor does not know; in a scenario they are text.
_TEXT_TAGS = {"tag:yaml.org,2002:merge", "tag:yaml.org,2002:value"}
_QUOTE_HINT = "quote it (and drop any '!!' tag) to keep it as text"
_SURROGATE = re.compile("[\ud800-\udfff]")


def load_yaml(path: Path, text: str, limits: YamlLimits = SCENARIO_LIMITS) -> YamlSource:
    """Parse `text` with the safe loader; raises `SourceError` for anything that is not plain, bounded data."""
    source = YamlSource(path, text)
    loader: _BoundedLoader | None = None
    try:
        loader = _BoundedLoader(text, limits)
        node = loader.get_single_node()
        if node is not None:
            _Measure(loader).check(node)
            source.data = _Builder(loader, source).build(node, ())
    except yaml.MarkedYAMLError as error:
        raise _syntax_error(error) from None
    except ReaderError as error:  # `read_source` refuses these characters first; text may come from elsewhere
        raise invalid_character(text, int(error.position)) from None
    finally:
        if loader is not None:
            loader.dispose()  # pyright: ignore[reportUnknownMemberType]
    return source


def _syntax_error(error: yaml.MarkedYAMLError) -> SourceError:
    mark = error.problem_mark or error.context_mark
    where = _position(mark) if mark else Position(1, 1)
    problem = error.problem or error.context or "invalid YAML"
    if error.context and error.context.startswith("found duplicate anchor"):
        problem = error.context.split(";")[0]  # PyYAML's problem is only "second occurrence"
    if problem.startswith("could not determine a constructor for the tag"):
        return _unsupported_tag(problem.rsplit(" ", 1)[-1].strip("'"), where)
    if "quoted scalar" in (error.context or "") and error.context_mark and problem.startswith("found unexpected"):
        # PyYAML gives up at the end of the file; the mistake is where the quote opened.
        return SourceError("yaml-syntax", "this quoted text is never closed", _position(error.context_mark),
                           "add the closing quote where the text ends (inside single quotes, write a quote as '')")
    return SourceError("yaml-syntax", problem, where, syntax_hint(problem, error.context))


def _unsupported_tag(tag: str, where: Position) -> SourceError:
    short = tag.replace("tag:yaml.org,2002:", "!!")
    return SourceError("unsupported-tag", f"the tag '{short}' is not supported", where, "YAML is loaded "
                       "safely: only plain values, lists and mappings (and the standard tags !!str, !!int, !!float, "
                       "!!bool, !!null) are allowed, so remove the tag")


def _position(mark: yaml.Mark) -> Position:
    return Position(mark.line + 1, mark.column + 1)


def _mark(node: yaml.Node) -> Position:
    return _position(node.start_mark)


class _BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe loader that refuses deep nesting while composing, and remembers where each alias was written."""

    def __init__(self, text: str, limits: YamlLimits) -> None:
        super().__init__(text)
        self.limits = limits
        self.depth = 0
        # (id of the parent node, index or id of the key node) -> where the alias in that slot was written
        self.aliases: dict[tuple[int, int], Position] = {}

    def fetch_flow_collection_start(self, TokenClass: type[yaml.Token]) -> None:
        # Caught here already, not only while composing: PyYAML's scanner keeps a possible key per open bracket and
        # rescans them all at every token, so a long run of '[' would take quadratic time before composing began.
        scanner: Any = super()  # PyYAML's stubs leave the scanner untyped
        if self.flow_level >= self.limits.depth:
            raise _too_deep(_position(scanner.get_mark()), self.limits)
        scanner.fetch_flow_collection_start(TokenClass)

    def compose_node(self, parent: yaml.Node | None, index: object) -> yaml.Node | None:
        parser: Any = self  # PyYAML's stubs leave the parser's events untyped
        event: Any = parser.peek_event()
        if isinstance(event, yaml.AliasEvent) and index is not None:
            self.aliases[_slot(parent, index)] = _position(event.start_mark)
        self.depth += 1
        try:
            if self.depth > self.limits.depth:
                raise _too_deep(_position(event.start_mark), self.limits)
            return super().compose_node(parent, index)  # pyright: ignore[reportArgumentType]
        finally:
            self.depth -= 1


def _slot(parent: object, index: object) -> tuple[int, int]:
    return id(parent), index if isinstance(index, int) else id(index)


def _too_deep(position: Position, limits: YamlLimits) -> SourceError:
    return SourceError("too-deep", f"the document nests more than {limits.depth} levels deep", position,
                       f"{limits.noun} nests {limits.usual_depth} at most: flatten the value, or check for unclosed "
                       "brackets")


class _Measure:
    """Sizes the data a node graph expands into, without expanding it: each node is measured once, however many
    aliases repeat it, so an alias bomb is refused in time proportional to the file, not to its expansion."""

    def __init__(self, loader: _BoundedLoader) -> None:
        self._aliases = loader.aliases
        self._limits = loader.limits
        # id of a node -> (values, characters of text, levels of nesting) it expands into
        self._sizes: dict[int, tuple[int, int, int]] = {}
        self._open: set[int] = set()  # ids of the collections being measured
        self._expanding: list[Position] = []  # where the aliases being followed were written, outermost first

    def check(self, node: yaml.Node) -> None:
        """Raise `SourceError` if `node` expands into a cycle, or deeper or larger data than the limits allow."""
        self._size(node, 1)

    def _size(self, node: yaml.Node, depth: int) -> tuple[int, int, int]:
        known = self._sizes.get(id(node))
        if depth + (known[2] if known else 1) - 1 > self._limits.depth:
            raise _too_deep(self._expanding[0] if self._expanding else _mark(node), self._limits)
        if known is not None:
            return known
        if isinstance(node, yaml.ScalarNode):
            return self._remember(node, 1, len(str(node.value)), 1)
        if id(node) in self._open:
            raise SourceError("alias-expansion", "an alias refers to a collection that contains it, so it would "
                              "expand without end", self._expanding[-1] if self._expanding else _mark(node),
                              "replace the alias with the values it should repeat")
        self._open.add(id(node))
        values, chars, levels, biggest = 1, 0, 1, (0, _mark(node))
        if isinstance(node, yaml.SequenceNode):
            items: list[yaml.Node] = node.value
            slots: list[tuple[object, yaml.Node]] = list(enumerate(items))
        else:
            slots = []
            for key_node, value_node in node.value:
                chars += len(str(key_node.value)) if isinstance(key_node, yaml.ScalarNode) else 0
                slots.append((key_node, value_node))
        for index, child in slots:
            alias = self._aliases.get(_slot(node, index))
            if alias is not None:
                self._expanding.append(alias)
            child_values, child_chars, child_levels = self._size(child, depth + 1)
            if alias is not None:
                self._expanding.pop()
                biggest = max(biggest, (child_values + child_chars, alias), key=lambda pair: pair[0])
            values += child_values
            chars += child_chars
            levels = max(levels, child_levels + 1)
        self._open.discard(id(node))
        limits = self._limits
        if values > limits.values or chars > limits.chars:
            count, limit, unit = (values, limits.values, "values") if values > limits.values else (
                chars, limits.chars, "characters of text")
            if biggest[0] or self._expanding:
                raise SourceError("alias-expansion", f"aliases expand this value to {count} {unit}, more than the "
                                  f"{limit} {limits.noun} may hold",
                                  self._expanding[0] if self._expanding else biggest[1],
                                  "an alias (*name) repeats everything its anchor (&name) holds: write the values "
                                  "out, or anchor something smaller")
            raise SourceError("too-large", f"the document holds more than the {limit} {unit} {limits.noun} may hold",
                              _mark(node), "split it into smaller files")
        return self._remember(node, values, chars, levels)

    def _remember(self, node: yaml.Node, values: int, chars: int, levels: int) -> tuple[int, int, int]:
        self._sizes[id(node)] = (values, chars, levels)
        return values, chars, levels


class _Builder:
    """Builds plain data from a node graph `_Measure` accepted, recording positions; aliases are expanded."""

    def __init__(self, loader: _BoundedLoader, source: YamlSource) -> None:
        self._loader = loader
        self._source = source

    def build(self, node: yaml.Node, path: DataPath) -> Any:
        self._source.values[path] = _mark(node)
        if isinstance(node, yaml.ScalarNode):
            return self._scalar(node)
        if node.tag not in _COLLECTION_TAGS:
            raise _unsupported_tag(node.tag, _mark(node))
        if isinstance(node, yaml.SequenceNode):
            return [self.build(item, (*path, index)) for index, item in enumerate(node.value)]
        result: dict[Any, Any] = {}
        pairs: list[tuple[yaml.Node, yaml.Node]] = node.value
        for key_node, value_node in pairs:
            if not isinstance(key_node, yaml.ScalarNode):
                raise SourceError("invalid-key", "a mapping key must be a plain value, not a list or a mapping",
                                  _mark(key_node), "write the key as text; a '?' at the start of a line begins a "
                                  "complex key, so quote a key that starts with '?'")
            raw = self._scalar(key_node)
            key: str | int = raw if isinstance(raw, str | int) else str(raw)
            child = (*path, key)
            if key in result:
                self._source.duplicate_keys.append((child, _mark(key_node)))
            self._source.keys[child] = _mark(key_node)
            result[key] = self.build(value_node, child)
        return result

    def _scalar(self, node: yaml.ScalarNode) -> object:
        text = str(node.value)
        if node.tag in _NUMBER_TAGS and len(text) > MAX_NUMBER_CHARS:
            raise SourceError("invalid-scalar", f"a number of {len(text)} characters is too long (at most "
                              f"{MAX_NUMBER_CHARS})", _mark(node), _QUOTE_HINT)
        if node.tag in _TEXT_TAGS:
            return text
        loader: Any = self._loader  # PyYAML's stubs leave construct_object untyped
        try:
            value: object = loader.construct_object(node, deep=True)
        except yaml.MarkedYAMLError as error:
            if str(error.problem).startswith("could not determine a constructor"):
                raise _unsupported_tag(node.tag, _mark(node)) from None
            raise _invalid_scalar(node, str(error.problem)) from None
        except Exception as error:  # PyYAML's converters raise ValueError, KeyError, ... on values they refuse
            raise _invalid_scalar(node, str(error) if isinstance(error, ValueError) else "") from None
        if isinstance(value, str) and _SURROGATE.search(value):
            # A "\ud800" escape: text no UTF-8 file, report or terminal can hold, so every later write would fail.
            raise SourceError("lone-surrogate", "this text holds a surrogate escape (\\ud800-\\udfff), which no "
                              "UTF-8 text can hold", _mark(node), "write the character itself, or as one "
                              "\\U escape (\\U0001F600)")
        return value


def _invalid_scalar(node: yaml.ScalarNode, reason: str) -> SourceError:
    kind = str(node.tag).rsplit(":", 1)[-1]
    shown = str(node.value) if len(str(node.value)) <= 40 else str(node.value)[:37] + "..."
    reason = reason or "not a valid value of this type"
    return SourceError("invalid-scalar", f"'{shown}' is not a valid {kind}: {reason}", _mark(node),
                       f"fix the value, or {_QUOTE_HINT}")
