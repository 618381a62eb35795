"""The packages' import graph has no cycle, function-local imports included."""

from __future__ import annotations

from scripts import import_graph


def test_no_module_imports_itself_back_through_others():
    # Given every import in the source, function-local ones too
    edges = import_graph.graph()
    # Then no group of modules imports each other in a circle
    assert import_graph.cycles(edges) == []


def test_nothing_in_the_library_imports_the_cli():
    # The CLI is the outermost layer: suites and commands take what they share from
    # superbiz_workbench.local.report, never from the CLI that calls them
    edges = import_graph.graph()
    assert [m for m, targets in edges.items() if "superbiz_workbench.cli" in targets] == []


def test_the_runtime_imports_nothing_of_the_workbench():
    # Given the runtime package and the Lambda handlers (what ships to Lambda)
    edges = import_graph.graph()
    assert any(m.startswith("superbiz.graph") for m in edges)  # the scan sees the runtime
    # Then none of them imports the workbench, not even inside a function
    assert import_graph.runtime_imports_of_the_workbench(edges) == {}
