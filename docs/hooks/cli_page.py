"""The command-line reference, read off the argparse parser `loop-conformance` itself uses.

Every subcommand gets its help line, description, usage, a table of its arguments and its epilog (examples), so the
page says exactly what `--help` says and cannot drift from it.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator

from markdown_text import cell, code, fenced, table

import harness.cli

PROG = "loop-conformance"
_WIDTH = 100  # a fixed width, so the page does not depend on the terminal the docs are built in


def build_parser() -> argparse.ArgumentParser:
    """The CLI's own parser, whatever the module names its builder."""
    for name in ("build_parser", "make_parser", "_parser", "parser"):
        builder = getattr(harness.cli, name, None)
        if callable(builder):
            parser = builder()
            if isinstance(parser, argparse.ArgumentParser):
                return parser
    raise RuntimeError("harness.cli exposes no parser builder (build_parser or _parser)")


def subcommands(parser: argparse.ArgumentParser) -> Iterator[tuple[str, str, argparse.ArgumentParser]]:
    """(name, one-line help, parser) of each subcommand, in the order `--help` lists them, nested ones included."""
    for action in parser._actions:  # pyright: ignore[reportPrivateUsage]  # argparse has no public walk
        if isinstance(action, argparse._SubParsersAction):  # pyright: ignore[reportPrivateUsage]
            helps = {choice.dest: choice.help or "" for choice in action._choices_actions}  # pyright: ignore
            for name, sub in action.choices.items():
                yield name, helps.get(name, ""), sub
                for nested, nested_help, nested_parser in subcommands(sub):
                    yield f"{name} {nested}", nested_help, nested_parser


def _formatter(parser: argparse.ArgumentParser) -> argparse.HelpFormatter:
    return parser.formatter_class(prog=parser.prog, width=_WIDTH)  # pyright: ignore[reportCallIssue]


def usage(parser: argparse.ArgumentParser) -> str:
    formatter = _formatter(parser)
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups)  # pyright: ignore
    return formatter.format_help().strip()


def _argument_row(parser: argparse.ArgumentParser, action: argparse.Action) -> list[str]:
    formatter = _formatter(parser)
    if action.option_strings:
        names = ", ".join(code(option) for option in action.option_strings)
        value = "" if action.nargs == 0 else code(formatter._format_args(action, action.dest.upper()))  # pyright: ignore
    else:
        names = code(action.metavar or action.dest)
        value = code(formatter._format_args(action, action.dest))  # pyright: ignore[reportPrivateUsage]
    if action.choices is not None and not isinstance(action, argparse._SubParsersAction):  # pyright: ignore
        value = " \\| ".join(code(choice) for choice in action.choices)
    text = formatter._expand_help(action) if action.help else ""  # pyright: ignore[reportPrivateUsage]
    if action.required and action.option_strings:
        text = f"**required.** {text}"
    return [names, value, cell(text)]


def _arguments(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [action for action in parser._actions  # pyright: ignore[reportPrivateUsage]
            if not isinstance(action, argparse._HelpAction | argparse._SubParsersAction)  # pyright: ignore
            and action.help != argparse.SUPPRESS]


def _exclusive_note(parser: argparse.ArgumentParser) -> str:
    groups = [" / ".join(code(a.option_strings[0]) for a in group._group_actions)  # pyright: ignore
              for group in parser._mutually_exclusive_groups]  # pyright: ignore[reportPrivateUsage]
    return "".join(f"\nAt most one of {group}.\n" for group in groups if group)


def command_section(name: str, summary: str, parser: argparse.ArgumentParser) -> str:
    parts = [f"## `{PROG} {name}`\n", f"{summary}\n" if summary else ""]
    if parser.description and parser.description.strip() != summary.strip():
        parts.append(fenced(parser.description, "text"))
    parts.append(fenced(usage(parser), "text"))
    arguments = _arguments(parser)
    if arguments:
        parts.append(table(["argument", "value", "what it does"],
                           (_argument_row(parser, action) for action in arguments)))
        parts.append(_exclusive_note(parser))
    if parser.epilog:
        parts.append(fenced(parser.epilog, "text"))
    return "\n".join(part for part in parts if part)


def cli_reference() -> str:
    """The generated part of the CLI reference page."""
    parser = build_parser()
    commands = list(subcommands(parser))
    overview = table(["command", "what it does"],
                     ([f"[`{name}`](#{PROG}-{name.replace(' ', '-')})", cell(summary)]
                      for name, summary, _ in commands))
    top = [fenced(usage(parser), "text"), parser.description or "", "", overview]
    if _arguments(parser):
        top.append(table(["argument", "value", "what it does"],
                         (_argument_row(parser, action) for action in _arguments(parser))))
    if parser.epilog:
        top.append(fenced(parser.epilog, "text"))
    return "\n".join(top) + "\n" + "\n".join(command_section(*command) for command in commands)
