"""moto's Step Functions interpreter parses the state machine definition with ANTLR's
pure-Python runtime when the state machine is created (to validate it) and again when
each execution starts: on the diagnosis's definition 0.6-2.5 s each time on a busy
two-core machine, the largest single part of a local command's start-up.

What a parse yields, the evaluation program (moto's components, before any execution has
touched them), is kept pickled: in the process, so every later caller unpickles its own
copy (executions share no state, as when each parsed anew), and, given a folder, on disk,
named by a hash of the definition and of the moto and Python that made it, so the next
process parses nothing. A definition that fails to parse is never kept (the parser runs
and raises for it every time). The folder is the local runtime's own cache, written only
by it (a pickle runs code when loaded: the folder is trusted as the code beside it is).
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
import tempfile
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

# definitions whose programs are kept in the process (the local runtime has one, tests a few)
KEEP = 8
# programs kept on disk; the least recently used go first
KEEP_ON_DISK = 16
SUFFIX = ".program"
_MARK = "__superbiz_cached__"
_PROGRAMS: OrderedDict[str, bytes] = OrderedDict()
_LOCK = threading.Lock()
_folder: Path | None = None


def install(folder: Path | None = None) -> None:
    """Parse each definition once per process and, with `folder`, once per definition
    and moto version: later processes read its program from there. Safe to call
    repeatedly; the last call's folder is the one used."""
    global _folder
    from moto.stepfunctions.parser.asl.parse import asl_parser

    _folder = folder
    parser_class = asl_parser.AmazonStateLanguageParser
    if getattr(parser_class.parse, _MARK, False):
        return
    original = parser_class.parse

    def parse(definition: str) -> tuple[Any, Any]:
        with _LOCK:
            kept = _PROGRAMS.get(definition)
            if kept is not None:
                _PROGRAMS.move_to_end(definition)
        if kept is None:
            kept = _read(definition)
            if kept is not None:
                _remember(definition, kept)
        if kept is not None:
            # no syntax tree: moto's callers use the program only
            return pickle.loads(kept), None
        program, tree = original(definition)  # raises on a syntax error: nothing kept
        try:
            kept = pickle.dumps(program, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # a component that does not pickle: this one is parsed each time
            return program, tree
        _remember(definition, kept)
        _write(definition, kept)
        return program, tree

    setattr(parse, _MARK, True)
    parser_class.parse = staticmethod(parse)  # type: ignore[method-assign,assignment]


def _remember(definition: str, kept: bytes) -> None:
    with _LOCK:
        _PROGRAMS[definition] = kept
        while len(_PROGRAMS) > KEEP:
            _PROGRAMS.popitem(last=False)


def key(definition: str) -> str:
    """The file name of a definition's program: what made it, and the definition."""
    import moto

    digest = hashlib.sha256()
    made_by = f"{moto.__version__}|{sys.version_info[0]}.{sys.version_info[1]}|"
    digest.update(f"{made_by}{pickle.HIGHEST_PROTOCOL}|".encode())
    digest.update(definition.encode("utf-8"))
    return digest.hexdigest()[:32] + SUFFIX


def _read(definition: str) -> bytes | None:
    """The kept program's bytes, when one is on disk and loads as a program."""
    folder = _folder
    if folder is None:
        return None
    path = folder / key(definition)
    try:
        kept = path.read_bytes()
        from moto.stepfunctions.parser.asl.component.program.program import Program

        if not isinstance(pickle.loads(kept), Program):
            return None
        os.utime(path)  # recently used: kept longest
    except Exception:  # missing, unreadable, or from a moto whose classes moved: parse
        return None
    return kept


def _write(definition: str, kept: bytes) -> None:
    """Publish a program whole or not at all (written beside its place, then renamed)."""
    folder = _folder
    if folder is None:
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle, staging = tempfile.mkstemp(prefix=".", suffix=SUFFIX, dir=folder)
        with os.fdopen(handle, "wb") as out:
            out.write(kept)
        os.replace(staging, folder / key(definition))
    except OSError:  # a read-only cache: the next process parses again
        return
    _prune(folder)


def _prune(folder: Path) -> None:
    try:
        kept = [p for p in folder.iterdir() if p.suffix == SUFFIX and not p.name.startswith(".")]
        kept.sort(key=lambda p: p.stat().st_mtime, reverse=True)
        for stale in kept[KEEP_ON_DISK:]:
            stale.unlink(missing_ok=True)
    except OSError:
        return
