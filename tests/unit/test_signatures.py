"""The signature catalogue is data: every entry names its own examples (and
none of its not-examples), and a malformed entry is refused with its name."""

from __future__ import annotations

import pytest

from superbiz import signatures

ENTRIES = signatures.examples()


@pytest.mark.parametrize(("name", "examples", "not_examples"), ENTRIES, ids=[e[0] for e in ENTRIES])
def test_every_entry_names_its_examples(name, examples, not_examples):
    # Given a catalogue entry's example lines
    for line in examples:
        # When a line is named
        found = signatures.detect(line)
        # Then the entry itself names it (an earlier entry taking it would hide it)
        assert found is not None and found.name == name, f"{line!r} named {found and found.name}"
    for line in not_examples:
        found = signatures.detect(line)
        assert found is None or found.name != name, f"{line!r} wrongly named {name}"


def test_every_effect_names_an_upstream_signature():
    by_name = signatures.by_name()
    for sig in by_name.values():
        for cause in sig.effect_of:
            assert by_name[cause].upstream, f"{sig.name} is an effect of {cause}, not upstream"


def test_malformed_entry_is_refused_with_its_name():
    with pytest.raises(signatures.CatalogueError, match="broken"):
        signatures.parse(
            [
                {
                    "name": "broken",
                    "family": "dependency",
                    "label": "x",
                    "pattern": "(",
                    "cause": "c",
                    "actions": ["a"],
                    "examples": ["x"],
                }
            ]
        )
    with pytest.raises(signatures.CatalogueError, match="unknown signatures"):
        signatures.parse(
            [
                {
                    "name": "a",
                    "family": "dependency",
                    "label": "x",
                    "pattern": "x",
                    "cause": "c",
                    "actions": ["a"],
                    "examples": ["x"],
                    "effect_of": ["nope"],
                }
            ]
        )


def test_a_change_can_trigger_only_what_its_type_can_produce():
    by_name = signatures.by_name()
    assert by_name["aws_access_denied"].can_be_triggered_by("PutRolePolicy")
    assert not by_name["aws_access_denied"].can_be_triggered_by("UpdateService")
    assert by_name["db_pool_exhaustion"].can_be_triggered_by("UpdateService")  # a deploy
    assert not by_name["upstream_http_error"].can_be_triggered_by("UpdateService")
