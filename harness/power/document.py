"""A report as headings, paragraphs, tables and code blocks, rendered to Markdown or to a standalone HTML page."""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Heading:
    text: str
    level: int = 2


@dataclass(frozen=True)
class Paragraph:
    text: str


@dataclass(frozen=True)
class Table:
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class Code:
    text: str
    language: str = ""


Part = Heading | Paragraph | Table | Code


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def to_markdown(parts: Sequence[Part]) -> str:
    out: list[str] = []
    for part in parts:
        if isinstance(part, Heading):
            out.append(f"{'#' * part.level} {part.text}\n")
        elif isinstance(part, Paragraph):
            out.append(part.text + "\n")
        elif isinstance(part, Table):
            out.append("| " + " | ".join(_cell(h) for h in part.headers) + " |")
            out.append("|" + "---|" * len(part.headers))
            out.extend("| " + " | ".join(_cell(c) for c in row) + " |" for row in part.rows)
            out.append("")
        else:
            out.append(f"```{part.language}\n{part.text.rstrip()}\n```\n")
    return "\n".join(out).rstrip() + "\n"


def to_html(title: str, parts: Sequence[Part]) -> str:
    body: list[str] = [f"<h1>{html.escape(title)}</h1>"]
    for part in parts:
        if isinstance(part, Heading):
            level = min(6, part.level)
            body.append(f"<h{level}>{html.escape(part.text)}</h{level}>")
        elif isinstance(part, Paragraph):
            body.append(f"<p>{html.escape(part.text)}</p>")
        elif isinstance(part, Table):
            head = "".join(f"<th>{html.escape(h)}</th>" for h in part.headers)
            rows = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in part.rows)
            body.append(f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>")
        else:
            body.append(f"<pre><code>{html.escape(part.text)}</code></pre>")
    style = ("body{font-family:sans-serif;margin:2em;max-width:80em}table{border-collapse:collapse;margin:1em 0}"
             "td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left;vertical-align:top}"
             "pre{background:#f6f6f6;padding:.5em;overflow:auto}")
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            f"<style>{style}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")
