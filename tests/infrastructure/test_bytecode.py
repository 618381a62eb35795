"""Layer bytecode: compiled for the Lambda runtime's Python, or none at all."""

from __future__ import annotations

from pathlib import Path

import pytest

from stacks import bytecode


def _package(root: Path) -> Path:
    package = root / "pkg"
    (package / "__pycache__").mkdir(parents=True)
    (package / "__init__.py").write_text("VALUE = 1\n")
    # bytecode the build machine's own Python left behind
    (package / "__pycache__" / "__init__.cpython-311.pyc").write_bytes(b"stale")
    return package


def test_without_the_runtime_python_the_tree_ships_source_only(tmp_path, monkeypatch, capsys):
    # Given a tree with the build machine's bytecode, and no CPython of the runtime's version
    package = _package(tmp_path)
    monkeypatch.setattr(bytecode, "runtime_python", lambda: None)
    # When it is compiled for the layer
    compiled = bytecode.compile_tree(tmp_path)
    # Then no bytecode is left (the machine's would be useless in Lambda), and the build says so
    assert compiled is False
    assert not list(package.rglob("*.pyc"))
    assert "ships source only" in capsys.readouterr().err


def test_with_the_runtime_python_every_module_gets_its_bytecode_and_the_same_bytes(tmp_path):
    if bytecode.runtime_python() is None:
        pytest.skip("no CPython {}.{} on this machine".format(*bytecode.RUNTIME_VERSION))
    # Given a tree with the build machine's bytecode
    package = _package(tmp_path)
    tag = "cpython-{}{}".format(*bytecode.RUNTIME_VERSION)
    # When it is compiled twice
    assert bytecode.compile_tree(tmp_path) is True
    first = (package / "__pycache__" / f"__init__.{tag}.pyc").read_bytes()
    assert bytecode.compile_tree(tmp_path) is True
    # Then it holds the runtime's bytecode only, the same bytes each time (a stable asset hash)
    assert sorted(p.name for p in package.rglob("*.pyc")) == [f"__init__.{tag}.pyc"]
    assert (package / "__pycache__" / f"__init__.{tag}.pyc").read_bytes() == first


def test_the_command_names_what_it_needs(capsys):
    assert bytecode.main(["/nonexistent/dir"]) == 2
    assert "existing directory" in capsys.readouterr().err
