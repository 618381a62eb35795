"""superbiz.patterns: regular expressions compiled on first use, not at import."""

import re

import pytest

from superbiz import patterns
from superbiz.patterns import LazyPattern, compile_all, lazy


def test_a_lazy_pattern_is_not_compiled_until_used() -> None:
    # Given a pattern created as a module would create it at import
    pattern = lazy(r"(?P<code>5\d\d) from (?P<host>\S+)", re.IGNORECASE)
    # Then nothing was compiled yet, but its source and flags read as on a compiled one
    assert isinstance(pattern, LazyPattern) and pattern._compiled is None
    assert pattern.pattern == r"(?P<code>5\d\d) from (?P<host>\S+)"
    assert pattern.flags == re.IGNORECASE
    assert pattern._compiled is None


@pytest.mark.parametrize(
    ("method", "args", "expected"),
    [
        ("search", ("got 503 FROM web-1",), ("503", "web-1")),
        ("match", ("502 from db-2 at 09:00",), ("502", "db-2")),
        ("findall", ("500 from a, 504 from b",), [("500", "a,"), ("504", "b")]),
        ("sub", (r"\g<host>:\g<code>", "x 500 from a"), "x a:500"),
    ],
)
def test_a_lazy_pattern_answers_as_the_compiled_pattern(method, args, expected) -> None:
    # Given the same source compiled eagerly and lazily
    source = r"(?P<code>5\d\d) from (?P<host>\S+)"
    eager, deferred = re.compile(source, re.IGNORECASE), lazy(source, re.IGNORECASE)
    # When either is used the same way, the answers are the same
    got = getattr(deferred, method)(*args)
    want = getattr(eager, method)(*args)
    if isinstance(want, re.Match):
        assert got.groups() == want.groups() == expected
    else:
        assert got == want == expected
    assert deferred.groupindex == eager.groupindex and deferred.groups == 2


def test_a_bad_pattern_fails_on_first_use_naming_the_error() -> None:
    broken = lazy(r"(unclosed")
    with pytest.raises(re.error, match="missing \\)"):
        broken.search("text")


def test_compile_all_compiles_every_pending_pattern_once() -> None:
    # Given patterns some of which were already used
    first, second = lazy(r"alpha\d+"), lazy(r"beta\d+")
    first.search("alpha1")
    # When everything pending is compiled (what the SnapStart hook does before a snapshot)
    compiled = compile_all()
    # Then the unused one is compiled too, and a second call has nothing left to do
    assert compiled >= 1 and second._compiled is not None
    assert compile_all() == 0
    assert all(p._compiled is not None for p in patterns._CREATED)
