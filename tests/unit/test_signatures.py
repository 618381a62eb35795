"""The signature catalogue is data: every entry names its own examples (and
none of its not-examples), and a malformed entry is refused with its name."""

from __future__ import annotations

import random
import string

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


def test_no_entry_names_a_line_by_letters_inside_a_request_id():
    # Given lines whose only match could be inside an identifier: AWS request ids (52
    # upper-case letters and digits), hex trace ids, base64 tokens
    rng = random.Random(7)
    alphabets = (string.ascii_uppercase + string.digits, "0123456789abcdef", string.ascii_letters)
    for alphabet in alphabets:
        for _ in range(3000):
            token = "".join(rng.choices(alphabet, k=52))
            line = f"INFO GET /v2/items 200 (Request ID: {token})"
            # Then no entry names it
            found = signatures.detect(line)
            assert found is None, f"{found and found.name} named {line!r}"


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


def test_a_line_that_states_its_cause_is_named_by_the_cause():
    # Given a pool error whose nested exception says the connection attempt timed out
    line = (
        "DataSource health check failed: org.springframework.jdbc.CannotGetJdbcConnectionException: "
        "Failed to obtain JDBC Connection; nested exception is org.postgresql.util.PSQLException: "
        "The connection attempt failed. Caused by: java.net.SocketTimeoutException: Connect timed out"
    )
    # When the line is named
    found = signatures.detect(line)
    # Then it is the connection timeout (the cause it states), not pool exhaustion (its effect)
    assert found is not None and found.name == "network_timeout"
    # and a pool error alone is still pool exhaustion
    alone = signatures.detect("HikariPool-1 - Connection is not available, request timed out")
    assert alone is not None and alone.name == "db_pool_exhaustion"


def test_versioned_cloudtrail_event_names_are_their_operation():
    # Given CloudTrail event names carrying the API version
    throttle = signatures.by_name()["function_concurrency_throttle"]
    # Then the operation decides whether the change can produce the failure
    assert signatures.operation("UpdateFunctionCode20150331v2") == "UpdateFunctionCode"
    assert throttle.can_be_triggered_by("CreateEventSourceMapping20150331")
    assert not throttle.can_be_triggered_by("UpdateFunctionCode20150331v2")


def test_dead_letter_lines_are_the_effect_of_what_failed_the_messages():
    by_name = signatures.by_name()
    assert "malformed_payload" in by_name["queue_dead_letter"].effect_of
    assert "sqs_visibility_expired" in by_name["queue_dead_letter"].effect_of


def test_a_pool_wait_that_times_out_is_pool_exhaustion_not_a_network_timeout():
    # Given a pool error whose own wait timed out, with no cause stated
    line = (
        "sqlalchemy.exc.TimeoutError: QueuePool limit of size 5 overflow 10 reached, "
        "connection timed out, timeout 30.00"
    )
    # Then it is pool exhaustion
    found = signatures.detect(line)
    assert found is not None and found.name == "db_pool_exhaustion"


@pytest.mark.parametrize(
    "line",
    [
        "config loaded: TARGET=rates, CALL_TIMEOUT_MS=2500, MAX_ATTEMPTS=3",
        '{"msg": "settings", "connect_timeout": 5, "read_timeout_s": 30}',
        "using statement_timeout = 15000",
        "retry policy: requestTimeoutMillis=800ms",
    ],
)
def test_a_setting_echoed_in_a_line_is_not_an_occurrence_of_the_failure(line):
    # Given a line that only echoes configuration whose name holds a failure word
    # When the line is named
    found = signatures.detect(line)
    # Then no signature names it: a setting's name is not an event
    assert found is None, f"{line!r} named {found and found.name}"


@pytest.mark.parametrize(
    ("line", "name"),
    [
        ("ERROR call to rates failed: timeout after 2500ms (CALL_TIMEOUT_MS=2500)", "timeout"),
        ('{"level": "error", "error": "timeout", "elapsed_ms": 2500}', "timeout"),
        ("WARN gateway timeout=true status=504", "timeout"),
    ],
)
def test_a_failure_beside_a_setting_is_still_named(line, name):
    # Given a line that reports the failure and also echoes a setting
    found = signatures.detect(line)
    # Then the failure is named
    assert found is not None and found.name == name
