"""moto's Step Functions interpreter parses the state machine definition with ANTLR's
pure-Python runtime twice per run and once more per execution: when the state machine
is created (to validate it) and when each execution starts. On the diagnosis's
definition that is 1-2.5 s each time on a busy two-core machine, half of it inside the
graph's own run time. The syntax tree of a definition never changes, so it is parsed once
per process and kept; each caller still gets its own evaluation program from it (the
Preprocessor builds new components every call), so executions share no state."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

# definitions whose syntax trees are kept (the local runtime has one, tests a few)
KEEP = 8
_MARK = "__superbiz_cached__"
_TREES: OrderedDict[str, Any] = OrderedDict()
_LOCK = threading.Lock()


def install() -> None:
    """Parse each definition's syntax once; safe to call repeatedly."""
    from moto.stepfunctions.parser.asl.parse import asl_parser

    parser_class = asl_parser.AmazonStateLanguageParser
    if getattr(parser_class.parse, _MARK, False):
        return
    original = parser_class.parse

    def parse(definition: str) -> tuple[Any, Any]:
        with _LOCK:
            tree = _TREES.get(definition)
            if tree is not None:
                _TREES.move_to_end(definition)
        if tree is None:
            program, tree = original(definition)  # raises on a syntax error: nothing kept
            with _LOCK:
                _TREES[definition] = tree
                while len(_TREES) > KEEP:
                    _TREES.popitem(last=False)
            return program, tree
        return asl_parser.Preprocessor().visit(tree), tree

    setattr(parse, _MARK, True)
    parser_class.parse = staticmethod(parse)  # type: ignore[method-assign,assignment]
