"""The run page's HTML, read as a browser would parse it (html.parser), without a browser:
escaping, one chart per recorded series with its marks, citations that reach the rows
their facts were drawn from, the policy that lets only the page's own scripts run."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from run_page_support import FIVE_XX, HOSTILE, LATENCY, run_file

from superbiz_workbench.page import (
    RunArchive,
    RunNotArchived,
    build,
    run_page,
    runs_page,
)
from superbiz_workbench.page.report import report_html


class Parsed(HTMLParser):
    """Every element with its attributes, the raw text of each <script>, the text of the
    page and of each `.ln` line."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str]]] = []
        self.scripts: list[tuple[dict[str, str], str]] = []
        self.lines: list[tuple[str, str]] = []
        self._script: dict[str, str] | None = None
        self._line: str | None = None
        self._text: list[str] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = {k: v or "" for k, v in attrs}
        self.elements.append((tag, attributes))
        if tag == "script":
            self._script = attributes
        if tag == "div" and attributes.get("class") == "ln":
            self._line = attributes["data-path"]
            self._text = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "div" and self._line is not None:
            self.lines.append((self._line, "".join(self._text)))
            self._line = None

    def handle_data(self, data: str) -> None:
        if self._script is not None:
            self.scripts.append((self._script, data))
            self._script = None
        elif self._line is not None:
            self._text.append(data)

    def find(self, tag: str, **attrs: str) -> list[dict[str, str]]:
        return [
            a
            for t, a in self.elements
            if t == tag and all(a.get(k.replace("_", "-")) == v for k, v in attrs.items())
        ]


@pytest.fixture(scope="module")
def page() -> Parsed:
    return Parsed(run_page(run_file()))


@pytest.fixture(scope="module")
def data(page: Parsed) -> dict:
    (text,) = [t for a, t in page.scripts if a.get("type") == "application/json"]
    return json.loads(text)


def test_a_hostile_log_line_is_text_in_the_output_the_claim_and_the_report():
    # Given a run whose log line holds a script, an image with a handler and a </script>
    html = run_page(run_file())
    parsed = Parsed(html)
    # When the page is parsed as a browser parses it
    scripts = [(a, t) for a, t in parsed.scripts]
    # Then the only script elements are the page's own (uPlot, page.js) and its JSON data
    assert [a.get("type", "") for a, _ in scripts] == ["application/json", "", ""]
    assert not parsed.find("img")
    # and the line is shown as the text it was
    assert ("$.results[1].message", f'      "message": {json.dumps(HOSTILE)}') in parsed.lines
    assert "&lt;script&gt;window.pwned=1&lt;/script&gt;" in html


def test_the_json_data_cannot_close_its_script_element(data, page):
    (raw,) = [t for a, t in page.scripts if a.get("type") == "application/json"]
    assert "<" not in raw and ">" not in raw and "&" not in raw
    # and it still reads back to the run's values
    c1 = data["citations"]["inv_0002_abc123:sig1"]
    assert c1["paths"] == ["$.results[1]"] and c1["fact_path"] == "$.facts[0]"


def test_one_chart_per_recorded_series_with_one_point_per_datapoint(page, data):
    plots = page.find("div", **{"class": "plot"})
    assert [p["data-points"] for p in plots] == [str(len(FIVE_XX)), str(len(LATENCY))]
    charts = {c["invocation_id"]: c for c in data["charts"]}
    assert charts["inv_0101_abc123"]["y"] == [float(v) for v in FIVE_XX]
    assert len(charts["inv_0102_abc123"]["x"]) == len(LATENCY)


def test_a_chart_marks_its_own_alarm_threshold_the_onset_and_the_changes(data):
    five_xx, latency = data["charts"]
    kinds = [(m["kind"], m["label"]) for m in five_xx["marks"]]
    # the 5xx alarm's threshold, not the checkout alarm's on another load balancer
    assert ("threshold", "threshold 10 (payment-api-5xx)") in kinds
    assert not any("checkout" in label for _, label in kinds)
    assert ("onset", "onset 10:05:00 UTC") in kinds
    assert ("change", "change 10:02:00 UTC UpdateService payment-api by deploy-bot") in kinds
    # no alarm watches latency: no threshold drawn on it
    assert [m["kind"] for m in latency["marks"]] == ["onset", "change"]


def test_each_citation_links_to_its_output_and_its_rows_exist(page, data):
    links = page.find("a", **{"class": "cite"})
    keys = {a["data-cite"] for a in links}
    assert {"inv_0002_abc123:sig1", "inv_0101_abc123:met1", "inv_0003_abc123:chg1"} <= keys
    outputs = {a["id"] for a in page.find("details", **{"class": "output"})}
    paths = {path for path, _ in page.lines}
    for link in links:
        assert link["href"] == "#out-" + link["data-cite"].split(":")[0]
        assert link["href"][1:] in outputs
    for cite in data["citations"].values():
        for path in cite["paths"]:
            assert path in paths  # the row a click highlights is on the page
    # a citation only the report makes (no claim cites the change) finds its row too
    assert data["citations"]["inv_0003_abc123:chg1"]["paths"] == ["$.changes[0]"]


def test_a_citation_of_a_fact_the_output_lacks_points_at_nothing(data):
    missing = data["citations"]["inv_0101_abc123:met9"]
    assert missing["paths"] == [] and missing["fact_path"] is None


def test_gatekeeper_verifier_steps_and_review_are_shown(page):
    html = run_page(run_file())
    assert re.search(r'id="claim-c3" class="reject".*?R4_FACT_MISSING', html, re.S)
    assert 'id="verifier-verdict">PASS' in html and "(score 90/100)" in html
    # model steps only (the gatekeeper is code), with the run's total cost
    assert html.count("<td>gpt-x</td>") == 2 and "$0.0123" in html
    assert 'id="review-status">approved' in html and "&lt;i&gt;fine&lt;/i&gt;" in html
    assert 'id="review-outcome">approved by alice' in html and "<dd>local</dd>" in html


def test_the_path_is_drawn_in_order_with_each_round_tools():
    view = build(run_file())
    assert [n.name for n in view.path.nodes][:4] == ["StartRun", "Planner", "Executor", "RunTools"]
    tools = [n.tools for n in view.path.nodes if n.name == "RunTools"]
    assert tools == [["query_alarms", "query_logs", "recent_changes"], ["query_metrics"] * 2]
    assert len(view.path.edges) == len(view.path.nodes) - 1


def test_the_timeline_has_a_bar_per_tool_call_in_start_order():
    bars = build(run_file()).timeline.bars
    assert [b.tool for b in bars][:2] == ["query_alarms", "query_logs"]
    assert bars[0].start_ms == 0 and bars[-1].start_ms == 910


def test_only_the_inlined_scripts_and_style_may_run(page):
    (meta,) = page.find("meta", http_equiv="Content-Security-Policy")
    policy = meta["content"]
    assert policy.startswith("default-src 'none'; ")
    for attrs, text in page.scripts:
        if attrs.get("type") == "application/json":
            continue
        digest = base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()
        assert f"'sha256-{digest}'" in policy
    assert "unsafe-inline" not in policy and "http" not in policy


def test_the_report_keeps_only_the_markup_the_renderer_writes():
    html = str(report_html("## Cause\n\n- **x** <b>y</b> `z` [`inv_1` `sig1`]\n- [`a b` `c`]"))
    assert "<h3>Cause</h3>" in html and "<strong>x</strong>" in html
    assert "&lt;b&gt;y&lt;/b&gt;" in html and "<code>z</code>" in html
    assert 'data-cite="inv_1:sig1"' in html
    assert "data-cite" not in html.split("</li>")[1]  # not an id pair: left as text


def test_the_archive_lists_runs_newest_first_that_the_caller_may_read(tmp_path):
    # Given a chat of the local caller, an alarm run (no principal) and another's chat
    archive = RunArchive(tmp_path)
    mine = run_file(session_principal="local")
    alarm = run_file(mode="aiops_targeted").model_copy(deep=True)
    alarm.run.run_id, alarm.run.started_at = "run0002", "2026-12-07T08:00:00Z"
    alarm.run.alarm = {"name": "payment-api-5xx"}
    theirs = run_file(session_principal="bob").model_copy(deep=True)
    theirs.run.run_id = "run0003"
    for one in (mine, alarm, theirs):
        archive.save(one)
    # When the local caller lists them
    rows = RunArchive(tmp_path).rows("local")
    # Then its own and the alarm's, newest first, each with verdicts and route
    assert [r.run_id for r in rows] == ["run0002", "run0001"]
    assert rows[1].gate_verdict == "PASS" and rows[1].route == "L0 application answered"
    assert [r.question for r in rows] == [
        "alarm payment-api-5xx",
        "Why is payment-api returning 500s?",
    ]
    html = runs_page(rows, caller="local", where="here")
    assert html.index("run0002") < html.index("run0001") and "run0003" not in html
    with pytest.raises(RunNotArchived):
        archive.load("../etc/passwd")


KEEP_WITHOUT_PAGE = """
import json, sys
from pathlib import Path
sys.path.insert(0, sys.argv[2])
from run_page_support import run_file
from superbiz_workbench.page import RunArchive
import superbiz_workbench.page.commands
archive = RunArchive(Path(sys.argv[1]))
archive.save(run_file())
print(json.dumps({"rows": [r.run_id for r in archive.rows()],
                  "loaded": sorted(m for m in ("jinja2", "superbiz_workbench.page.view",
                                                "superbiz_workbench.page.render")
                                   if m in sys.modules)}))
"""


def test_keeping_a_run_without_a_page_loads_neither_the_view_nor_the_templates(tmp_path):
    # When a process keeps a run in the archive, as `superbiz chat` without --html does
    done = subprocess.run(
        [sys.executable, "-c", KEEP_WITHOUT_PAGE, str(tmp_path), str(Path(__file__).parent)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    got = json.loads(done.stdout.strip().splitlines()[-1])
    # Then the run is listed, and the page's view and jinja2 were never imported
    assert got == {"rows": [run_file().run.run_id], "loaded": []}
