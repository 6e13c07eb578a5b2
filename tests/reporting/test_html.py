"""The HTML coverage page: self-contained, and — in a real headless Chromium — a rendered, filterable grid.

The browser tests need a Chromium binary (Debian: `apt-get install chromium`) and skip without one, or fail with
`LC_REQUIRE_ALL=1` as in CI (`requirements_helper`). The page's script reads its filters from the URL hash, so the
tests drive it by loading `coverage.html#verdict=fail&…` and read the DOM Chromium dumps after the script ran.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

from requirements_helper import require

from harness.reporting.coverage import build_coverage
from harness.reporting.documents import parse_results_document
from harness.reporting.html_page import render_html
from harness.scenario.spec_rows import SPEC_ROWS

from .helpers import both_modes, check, document, run

CHROMIUM = next((found for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
                 if (found := shutil.which(name))), None)
CHROMIUM_MISSING = ("no chromium binary on PATH (chromium, chromium-browser, google-chrome): apt-get install chromium, "
                    "as .ci/run does; without it the page is only checked statically")

DOC = document(
    both_modes("normal.single-call", ["Single non-streaming call"]),
    both_modes("normal.single-call", ["Single non-streaming call"], impl="agent_framework", version="1.23.0"),
    both_modes("normal.streaming-call", ["Streaming call"]),
    run("normal.streaming-call", ["Streaming call"], impl="agent_framework", version="1.23.0", mode="streaming",
        verdict="fail", checks=[check("completes"),
                                check("stream-agreement", "fail", "folded updates differ from the final response",
                                      turn=1, diff=["-text", "+function_call c1"])]),
    run("approval.initial", ["Initial approval request"], impl="agent_framework", version="1.23.0",
        verdict="fail", checks=[check("expect.response", "fail", "approval request missing <b>here</b>", turn=1)]),
    run("approval.initial", ["Initial approval request"], impl="agent_framework", version="1.23.0",
        mode="streaming", verdict="xfail", reason="known failure: documented",
        checks=[check("expect.response", "xfail", "approval request missing")]),
    run("normal.informational", ["Informational-only call"], impl="agent_framework", version="1.23.0",
        verdict="n/a", reason="agent_framework lacks capability: informational-only"),
    filtered=True,
)
COLUMNS = 4  # reference and agent_framework, each in two modes


def _page(tmp_path: Path) -> Path:
    path = tmp_path / "coverage.html"
    path.write_text(render_html(build_coverage(parse_results_document(DOC), SPEC_ROWS)), encoding="utf-8")
    return path


class _Dom(HTMLParser):
    """The few facts the tests read from a DOM dump: cells, rows, the status line, open panels."""

    def __init__(self) -> None:
        super().__init__()
        self.cells: list[dict[str, str | None]] = []
        self.rows: list[dict[str, str | None]] = []
        self.shown: dict[str, str | None] = {}
        self.body: dict[str, str | None] = {}
        self.open_panels: list[str] = []  # data-key of every cell whose <details> is open
        self.banner = False
        self._cell: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if tag == "td" and "cell" in classes:
            self.cells.append(a)
            self._cell = a.get("data-key")
        elif tag == "tr" and "row" in classes:
            self.rows.append(a)
        elif tag == "output" and a.get("id") == "shown":
            self.shown = a
        elif tag == "body":
            self.body = a
        elif tag == "details" and "open" in a and self._cell is not None:
            self.open_panels.append(self._cell)
        elif a.get("id") == "filtered-banner":
            self.banner = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "td":
            self._cell = None

    def visible_rows(self) -> list[str]:
        return [r.get("id") or "" for r in self.rows if "hidden" not in r]


def _dump_dom(tmp_path: Path, page: Path, fragment: str = "") -> _Dom:
    assert CHROMIUM is not None
    url = page.as_uri() + (f"#{fragment}" if fragment else "")
    done = subprocess.run([*_browser_args(tmp_path), "--dump-dom", url], capture_output=True, text=True,
                          timeout=120, check=True)
    dom = _Dom()
    dom.feed(done.stdout)
    assert dom.body.get("data-ready") == "1", "the page's script did not run"
    return dom


def _browser_args(tmp_path: Path) -> list[str]:
    assert CHROMIUM is not None
    return [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-extensions",
            f"--user-data-dir={tmp_path / 'profile'}"]


def test_the_page_is_self_contained_and_escapes_its_content(tmp_path: Path) -> None:
    html = _page(tmp_path).read_text(encoding="utf-8")
    assert "<script src" not in html
    assert "<link" not in html
    assert "@import" not in html
    assert "http://" not in html
    assert "https://" not in html
    assert "<b>here</b>" not in html  # the message sits in the page's data, its markup escaped
    data = json.loads(html.split('<script type="application/json" id="data">')[1].split("</script>")[0])
    assert "approval request missing <b>here</b>" in data["texts"]
    assert html.count('<td class="cell') == len(SPEC_ROWS) * COLUMNS
    # A cell with runs is a <details> whose panel the script draws from the data when it is opened.
    assert len(re.findall(r'<td class="cell [^"]+"><details><summary>', html)) == 10  # every cell with runs
    assert len(data["cells"]) == 10
    assert len(data["runs"]) == len(DOC["results"])  # each run once, however many cells it sits in


def test_the_grid_renders_in_a_real_browser(tmp_path: Path) -> None:
    require(CHROMIUM is not None, CHROMIUM_MISSING)
    dom = _dump_dom(tmp_path, _page(tmp_path))
    assert len(dom.cells) == len(SPEC_ROWS) * COLUMNS
    assert len(dom.visible_rows()) == len(SPEC_ROWS)
    assert (dom.shown.get("data-rows"), dom.shown.get("data-columns"), dom.shown.get("data-cells")) == (
        str(len(SPEC_ROWS)), str(COLUMNS), str(len(SPEC_ROWS) * COLUMNS))
    assert dom.banner
    statuses = [c.get("data-status") for c in dom.cells]
    assert (statuses.count("fail"), statuses.count("xfail"), statuses.count("n/a")) == (2, 1, 1)


def test_filters_from_the_url_hash_are_applied_by_the_script(tmp_path: Path) -> None:
    require(CHROMIUM is not None, CHROMIUM_MISSING)
    dom = _dump_dom(tmp_path, _page(tmp_path), "verdict=fail&impl=agent_framework")
    assert dom.visible_rows() == [
        "row-normal-function-invocation/streaming-call", "row-approval-pause-and-resume/initial-approval-request"]
    visible = [c for c in dom.cells if "hidden" not in c]
    assert {c.get("data-impl") for c in visible} == {"agent_framework"}
    assert dom.shown.get("data-columns") == "2"
    assert dom.shown.get("data-cells") == "4"
    assert "dim" not in (next(c for c in visible if c.get("data-status") == "fail").get("class") or "")

    by_section = _dump_dom(tmp_path, _page(tmp_path), "section=Approval%20pause%20and%20resume&mode=streaming")
    assert len(by_section.visible_rows()) == 13
    assert by_section.shown.get("data-columns") == "2"


def test_a_cell_panel_opens_from_the_hash_and_a_screenshot_renders(tmp_path: Path) -> None:
    require(CHROMIUM is not None, CHROMIUM_MISSING)
    page = _page(tmp_path)
    key = "normal-function-invocation/streaming-call@agent_framework/1.23.0/streaming"
    dom = _dump_dom(tmp_path, page, f"open={key}")
    assert dom.open_panels == [key]
    shot = tmp_path / "coverage.png"
    subprocess.run([*_browser_args(tmp_path), "--window-size=1400,900", f"--screenshot={shot}",
                    page.as_uri() + f"#open={key}"], capture_output=True, timeout=120, check=True)
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(data) > 20_000


def test_the_provider_filter_narrows_the_columns_in_a_real_browser(tmp_path: Path) -> None:
    require(CHROMIUM is not None, CHROMIUM_MISSING)
    wire = [run("normal.single-call", ["Single non-streaming call"], impl="agent_framework", version="1.23.0",
                mode=mode, provider="openai-chat") for mode in ("non-streaming", "streaming")]
    page = tmp_path / "coverage.html"
    page.write_text(render_html(build_coverage(parse_results_document(document(*DOC["results"], wire)),
                                               SPEC_ROWS)), encoding="utf-8")
    everything = _dump_dom(tmp_path, page)
    assert everything.shown.get("data-columns") == str(COLUMNS + 2)
    dom = _dump_dom(tmp_path, page, "provider=openai-chat")
    visible = [c for c in dom.cells if "hidden" not in c]
    assert {c.get("data-provider") for c in visible} == {"openai-chat"}
    assert dom.shown.get("data-columns") == "2"
    neutral = _dump_dom(tmp_path, page, "provider=neutral&impl=agent_framework")
    assert neutral.shown.get("data-columns") == "2"
