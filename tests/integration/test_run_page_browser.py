"""The run page in a real browser: Debian's Chromium driven through its chromium-driver
(Selenium), on a diagnosis the local runtime ran of the demo incident with one hostile log
line added. `make browser` installs the browser; without it these tests skip saying so,
unless SUPERBIZ_REQUIRE_BROWSER is set (CI), where a missing browser fails them."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from superbiz.jsonpath import resolve
from superbiz.models.offline import OfflineModel
from superbiz_workbench.cli import main
from superbiz_workbench.local.report import DEMO_WORLD
from superbiz_workbench.local.runtime import LocalRuntime
from superbiz_workbench.local.server import ApiServer
from superbiz_workbench.page import RunArchive, write_run_page
from superbiz_workbench.page.charts import recorded_facts
from superbiz_workbench.page.served import RunPages
from superbiz_workbench.replay import RunFile, export_run
from superbiz_workbench.world import load_scenario

pytestmark = pytest.mark.integration

HOSTILE = (
    "2026-11-20T10:12:00.500Z ERROR [http-nio-8080-exec-9] c.s.payment.web.Render - "
    "</script><script>window.pwned=1</script><img src=x onerror=window.pwned=2> status=500"
)
HIGHLIGHT = "rgba(255, 243, 176, 1)"  # .ln.hit in page.css (--hit)
# each matching element's text and data-path, in one round trip (an output has thousands)
_TEXTS = (
    "return Array.from(document.querySelectorAll(arguments[0]), "
    "e => [e.textContent, e.getAttribute('data-path')])"
)


def _chromium() -> tuple[str, str]:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if browser and driver:
        return browser, driver
    reason = (
        "Chromium and chromium-driver are not installed: `make browser` installs them "
        "from Debian (apt-get)"
    )
    if os.environ.get("SUPERBIZ_REQUIRE_BROWSER"):
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser() -> Any:
    chromium, chromedriver = _chromium()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
        options.add_argument(arg)
    options.add_argument("--window-size=1280,1000")
    options.binary_location = chromium
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(chromedriver), options=options)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def hostile_world(tmp_path_factory) -> Path:
    """The demo world with one error line that holds a script, an image with a handler
    and a closing script tag, as a log may hold anything."""
    folder = tmp_path_factory.mktemp("world")
    shutil.copy(DEMO_WORLD, folder / DEMO_WORLD.name)
    log = DEMO_WORLD.parent / "payment-api.log"
    lines = [*log.read_text(encoding="utf-8").splitlines(), HOSTILE]
    (folder / log.name).write_text("\n".join(sorted(lines)) + "\n", encoding="utf-8")
    return folder / DEMO_WORLD.name


@pytest.fixture(scope="module")
def runtime(hostile_world):
    with LocalRuntime(load_scenario(hostile_world), model=OfflineModel()) as rt:
        yield rt


@pytest.fixture(scope="module")
def run_file(runtime) -> RunFile:
    outcome = runtime.run_scenario()
    found = export_run(runtime.store, outcome.run_id, now=runtime.scenario.now)
    found.source["principal"] = "local"
    return found


@pytest.fixture(scope="module")
def page_file(run_file, tmp_path_factory) -> Path:
    return write_run_page(run_file, tmp_path_factory.mktemp("page") / "run.html")


@pytest.fixture(scope="module")
def server(runtime, tmp_path_factory):
    saved = runtime.settings.api_base_url
    api = ApiServer(runtime, port=0, runs_dir=tmp_path_factory.mktemp("runs")).start()
    try:
        yield api
    finally:
        api.stop()
        runtime.settings.api_base_url = saved


@pytest.fixture(scope="module")
def opened(browser, page_file) -> list[dict[str, Any]]:
    """The page opened once, as a file (no server, no network), for the tests that read
    it; the citation click, which changes what is highlighted, comes after them. What
    the console reported while it loaded."""
    _open(browser, page_file.as_uri())
    return _errors(browser)


def _open(browser: Any, url: str) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get_log("browser")  # what an earlier page said
    browser.get(url)
    WebDriverWait(browser, 30).until(
        lambda d: d.execute_script("return document.readyState") == "complete"
    )


def _errors(browser: Any) -> list[dict[str, Any]]:
    return [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]


def test_the_page_opens_from_its_file_with_no_console_error(browser, opened, run_file):
    # When the page is opened as a file (fixture `opened`)
    # Then its script ran, nothing was blocked or failed, and every metric is drawn
    assert browser.execute_script("return document.body.dataset.ready") == "1"
    assert opened == []
    metrics = [i for i in run_file.invocations if i.tool_name == "query_metrics"]
    assert metrics and len(browser.find_elements("css selector", ".plot canvas")) == len(metrics)


def test_each_chart_has_one_point_per_recorded_datapoint(browser, opened, run_file):
    for inv in run_file.invocations:
        if inv.tool_name != "query_metrics":
            continue
        plot = browser.find_element("id", f"chart-{inv.invocation_id}")
        assert plot.get_attribute("data-drawn-points") == str(len(inv.output["points"]))


def test_a_log_line_holding_a_script_stays_text(browser, opened):
    # the hostile line is on the page as the text it was
    text = "</script><script>window.pwned=1</script><img src=x onerror=window.pwned=2>"
    lines = browser.execute_script(_TEXTS, ".ln")
    assert any(text in line for line, _ in lines)
    # and nothing of it ran or became an element
    assert browser.execute_script("return typeof window.pwned") == "undefined"
    assert browser.execute_script("return document.scripts.length") == 3
    assert browser.find_elements("css selector", "img") == []
    assert opened == []


def test_a_citation_click_shows_the_cited_rows_highlighted(browser, opened, run_file):
    from selenium.webdriver.support.ui import WebDriverWait

    # Given the page and a report citation of a log signature
    link = next(
        a
        for a in browser.find_elements("css selector", "article.report a.cite")
        if re.search(r":sig\d+$", a.get_attribute("data-cite"))
    )
    invocation_id, fact_id = link.get_attribute("data-cite").split(":")
    inv = next(i for i in run_file.invocations if i.invocation_id == invocation_id)
    fact = next(f for f in recorded_facts(inv) if f.id == fact_id)
    cited = resolve(inv.output, fact.paths[0])["message"]
    # When the engineer clicks it
    link.click()
    WebDriverWait(browser, 10).until(lambda d: d.find_elements("css selector", ".ln.hit"))
    # Then the output it points at is open and the fact's first row is highlighted, in view
    output = browser.find_element("id", f"out-{invocation_id}")
    assert output.get_attribute("open") is not None
    hits = browser.execute_script(_TEXTS, f"#out-{invocation_id} .ln.hit")
    assert any(cited[:60] in text for text, _ in hits)
    first = output.find_element("css selector", ".ln.hit")
    assert first.value_of_css_property("background-color") == HIGHLIGHT
    top = browser.execute_script("return arguments[0].getBoundingClientRect().top", first)
    assert 0 <= top <= browser.execute_script("return window.innerHeight")
    # and only rows of that fact are highlighted: one block of lines per cited row
    rows = {path.split("]")[0] + "]" for _, path in hits}
    assert rows <= set(fact.paths)
    assert _errors(browser) == []


def test_serve_lists_the_callers_runs_and_serves_each_page(browser, server, run_file):
    from selenium.webdriver.support.ui import WebDriverWait

    # When the engineer opens the runs list of `superbiz serve`
    _open(browser, f"{server.base_url}/runs")
    row = browser.find_element("css selector", f'a[href="/runs/{run_file.run.run_id}"]')
    assert "L0 application answered" in browser.find_element("css selector", "table.runs").text
    # and follows the run
    row.click()
    WebDriverWait(browser, 30).until(lambda d: d.find_elements("id", "run-status"))
    # Then the same page, under the server's policy, with no console error
    assert browser.find_element("id", "run-status").text == run_file.run.status
    assert browser.execute_script("return document.body.dataset.ready") == "1"
    assert _errors(browser) == []
    # and the run is kept for when the server is gone
    assert (server.pages.archive.folder / f"{run_file.run.run_id}.json").exists()


def test_serve_keeps_every_finished_run_as_it_stops(runtime, run_file, tmp_path):
    # Given the server's table holding a finished run no one opened a page of
    pages = RunPages(runtime.store, RunArchive(tmp_path))
    # When the server keeps its finished runs (as `superbiz serve` does when it stops)
    kept = pages.keep_finished()
    # Then the run is in the archive, once, and `superbiz runs` reads it from there
    assert kept == [run_file.run.run_id] and pages.keep_finished() == []
    (row,) = RunArchive(tmp_path).rows()
    assert row.run_id == run_file.run.run_id and row.status == run_file.run.status


def test_trace_export_writes_the_page_from_the_table(runtime, run_file, tmp_path, capsys):
    # Given a run in the (local) DynamoDB table, read as from the deployed one
    page = tmp_path / "run.html"
    argv = ["trace", "export", "--run-id", run_file.run.run_id, "--html", str(page)]
    argv += ["--table", runtime.settings.table_name, "--bucket", runtime.settings.bucket_name]
    # When it is exported as a page only
    assert main(argv) == 0, capsys.readouterr().err
    # Then the file is the run's page; without --out or --html the command refuses
    html = page.read_text(encoding="utf-8")
    assert run_file.run.run_id in html and 'http-equiv="Content-Security-Policy"' in html
    assert main(["trace", "export", "--run-id", run_file.run.run_id]) == 2
