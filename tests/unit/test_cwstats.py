"""CloudWatch statistic names: the standard five and the extended (percentile) ones."""

from __future__ import annotations

import pytest

from superbiz.cwstats import is_extended, normalise


@pytest.mark.parametrize(
    ("given", "canonical", "extended"),
    [
        ("Sum", "Sum", False),
        ("SUM", "Sum", False),
        ("average", "Average", False),
        ("p99", "p99", True),
        ("P99.9", "p99.9", True),
        ("p100", "p100", True),
        ("tm99", "tm99", True),
        ("tc90", "tc90", True),
        ("ts90", "ts90", True),
        ("wm99", "wm99", True),
        ("IQM", "IQM", True),
        ("TM(10%:90%)", "TM(10%:90%)", True),
        ("pr(:300)", "PR(:300)", True),
    ],
)
def test_statistics_cloudwatch_accepts_are_accepted_in_canonical_form(given, canonical, extended):
    assert normalise(given) == canonical
    assert is_extended(canonical) is extended


@pytest.mark.parametrize("bad", ["p1000", "p", "median", "p99.", "tm", "TM(10%)", ""])
def test_other_names_are_refused_naming_what_is_accepted(bad):
    with pytest.raises(ValueError, match="p99"):
        normalise(bad)
