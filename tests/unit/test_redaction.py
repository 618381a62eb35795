"""Secrets and personal data are replaced by stable markers; ordinary log text is not."""

from __future__ import annotations

import pytest

from superbiz.redaction import CLASSES, marker, redact, redact_text

JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    ".eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIn0"
    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"

# (log text, class, the secret that must disappear, context that must stay)
POSITIVES = [
    (
        "ERROR sts call failed for AKIAIOSFODNN7EXAMPLE in us-east-1",
        "aws_access_key",
        "AKIAIOSFODNN7EXAMPLE",
        "ERROR sts call failed for ",
    ),
    (
        "temporary creds ASIAY34FZKBOKMUTVV7A expired",
        "aws_access_key",
        "ASIAY34FZKBOKMUTVV7A",
        "temporary creds ",
    ),
    (
        f"loaded profile aws_secret_access_key = {AWS_SECRET}",
        "aws_secret_key",
        AWS_SECRET,
        "aws_secret_access_key = ",
    ),
    (
        f'credentials {{"SecretAccessKey": "{AWS_SECRET}", "Expiration": "2026-11-20T11:00:00Z"}}',
        "aws_secret_key",
        AWS_SECRET,
        '"Expiration": "2026-11-20T11:00:00Z"',
    ),
    (
        "upstream call with Bearer 8f14e45fceea167a5a36dedd4bea2543 rejected",
        "bearer_token",
        "8f14e45fceea167a5a36dedd4bea2543",
        "upstream call with Bearer ",
    ),
    (
        "headers: Authorization: Basic dXNlcjpodW50ZXIy host=api.internal",
        "bearer_token",
        "dXNlcjpodW50ZXIy",
        "Authorization: Basic ",
    ),
    (
        "GET /v1/orders?access_token=ya29a0AfH6SMB&page=2",
        "bearer_token",
        "ya29a0AfH6SMB",
        "&page=2",
    ),
    (f"session restored from {JWT} ok", "jwt", JWT, "session restored from "),
    (
        "cannot connect to postgres://app:s3cr3t-Pa55@db.internal:5432/orders",
        "password",
        "s3cr3t-Pa55",
        "postgres://app:",
    ),
    (
        "login attempt user=bob password=hunter2 from 10.0.12.7",
        "password",
        "hunter2",
        "user=bob password=",
    ),
    (
        'config {"db_password": "correct horse battery", "pool": 10}',
        "password",
        "correct horse battery",
        '"pool": 10',
    ),
    (
        "Server=db.internal;Database=orders;User Id=sa;Password=P@ss w0rd!;Encrypt=true",
        "password",
        "P@ss w0rd!",
        "User Id=sa;Password=",
    ),
    (
        "jdbc:sqlserver://db:1433;databaseName=orders;user=sa;pwd=Tr0ub4dor",
        "password",
        "Tr0ub4dor",
        "user=sa;pwd=",
    ),
    (
        "refund sent to alice.smith+billing@example.co.uk today",
        "email",
        "alice.smith+billing@example.co.uk",
        "refund sent to ",
    ),
    ("GET /users/bob@example.org/profile 404", "email", "bob@example.org", "GET /users/"),
    ("customer phone +1 (415) 555-0132 verified", "phone", "+1 (415) 555-0132", "verified"),
    ("callback +44 20 7946 0958 missed", "phone", "+44 20 7946 0958", "callback "),
    ("sms to +8613812345678 failed", "phone", "+8613812345678", "sms to "),
    ("call (555) 123-4567 after 5pm", "phone", "(555) 123-4567", "after 5pm"),
    ("call 555-123-4567 now", "phone", "555-123-4567", "call "),
    ("mobile=13812345678 status=ok", "phone", "13812345678", "status=ok"),
    ("kyc ssn 123-45-6789 checked", "national_id", "123-45-6789", "kyc ssn "),
    ("kyc id=11010519491231002X checked", "national_id", "11010519491231002X", "kyc id="),
    ("kyc id=110101199003074477 checked", "national_id", "110101199003074477", "checked"),
    (
        "charge declined card=4111 1111 1111 1111 amount=12.50",
        "card_number",
        "4111 1111 1111 1111",
        "amount=12.50",
    ),
    ("card 5500-0000-0000-0004 expired", "card_number", "5500-0000-0000-0004", "expired"),
    ("amex 378282246310005 ok", "card_number", "378282246310005", "amex "),
]

# ordinary operational text that must come back byte for byte
NEGATIVES = [
    "2026-11-20T10:05:12.250Z ERROR HikariPool-1 - Connection is not available, "
    "request timed out after 30000ms.",
    "2026-11-20 10:06:40,120 INFO request ok status=200 latency_ms=541",
    "upstream 10.0.12.7:8080 and 192.168.100.200 port 5432 unreachable",
    "reqId=123e4567-e89b-12d3-a456-426614174000 traceId=1-5759e988-bd862e3fe1be46a994272793",
    "START RequestId: 8f1c2d3e-4b5a-6978-8a9b-0c1d2e3f4a5b Version: $LATEST",
    "card check 4111111111111112 failed Luhn",  # 16 digits, Luhn-invalid
    "batch 110105194912310021 done",  # 18 digits, PRC checksum invalid
    "order 110105199913450021 done",  # 18 digits, no such birth date
    "deployed v2.14.1 (build 1.22.3-rc.1) on node v18.17.0",
    "commit 9fceb02d0ae598e95dc970b74767f19372d61af8 deployed",
    f"cache key {AWS_SECRET} evicted",  # 40 base64 characters, but no secret label
    "ts=1732096512000 epoch=1732096512 bytes=15000000000 count=13",
    "tz Asia/Shanghai +08:00 offset +0800 at 2026-11-20",
    "Bearer authentication failed: token expired",
    "ssh://git@github.com/acme/payments.git and icon@2x.png and pkg@1.2.3",
    "password reset requested; password_reset_count=3",
    "java.lang.Object@1b6d3586 at com.acme.Service.charge(Service.java:142)",
]


@pytest.mark.parametrize(("text", "kind", "secret", "kept"), POSITIVES)
def test_each_class_is_replaced_by_its_marker_and_the_rest_is_kept(text, kind, secret, kept):
    # Given a log line carrying one secret or personal datum
    # When it is redacted
    out, counts = redact_text(text)

    # Then the value is gone, its class marker stands in its place, the context survives
    assert secret not in out
    assert marker(kind) in out
    assert kept in out
    assert counts == {kind: 1}


def test_every_class_has_a_positive_example():
    assert {kind for _, kind, _, _ in POSITIVES} == set(CLASSES)


@pytest.mark.parametrize("text", NEGATIVES)
def test_ordinary_operational_text_is_untouched(text):
    # Given timestamps, IPs, ports, ids, versions, hashes and durations
    # When redacted, Then the text comes back unchanged and nothing is counted
    assert redact_text(text) == (text, {})


def test_marker_is_stable_and_readable():
    assert marker("password") == "[REDACTED:password]"
    out, _ = redact_text("cannot connect to postgres://app:s3cr3t@db.internal:5432/orders")
    assert out == "cannot connect to postgres://app:[REDACTED:password]@db.internal:5432/orders"


def test_jwt_inside_a_bearer_header_is_reported_as_jwt():
    # Given an Authorization header carrying a JWT
    out, counts = redact_text(f"Authorization: Bearer {JWT}")

    # Then the more specific class wins, and the header is not redacted twice
    assert out == "Authorization: Bearer [REDACTED:jwt]"
    assert counts == {"jwt": 1}


def test_password_in_url_keeps_scheme_user_and_host_and_is_not_an_email():
    # Given a URL whose password holds an unencoded '@'
    out, counts = redact_text("jdbc:mysql://root:p@ss@db.internal:3306/app")

    # Then only the password is redacted; no e-mail address is read into user@host
    assert out == "jdbc:mysql://root:[REDACTED:password]@db.internal:3306/app"
    assert counts == {"password": 1}


def test_escaped_json_inside_a_log_message_is_redacted():
    out, counts = redact_text('payload="{\\"password\\":\\"hunter2\\",\\"user\\":\\"bob\\"}"')
    assert out == 'payload="{\\"password\\":\\"[REDACTED:password]\\",\\"user\\":\\"bob\\"}"'
    assert counts == {"password": 1}


def test_card_number_next_to_another_number_is_still_found():
    # Given a card preceded by an unrelated group of digits
    out, _ = redact_text("2026 4111 1111 1111 1111 declined")

    # Then the Luhn-valid run is redacted and the year kept
    assert out == "2026 [REDACTED:card_number] declined"


def test_international_phone_does_not_swallow_a_following_number():
    out, _ = redact_text("called +86 138 1234 5678 500 times")
    assert out == "called [REDACTED:phone] 500 times"


def test_counts_add_up_per_class():
    # Given one line with two e-mail addresses and a phone number
    text = "from ops@example.com to dba@example.com, pager +1 415 555 0132"

    # When redacted, Then each class is counted per occurrence
    out, counts = redact_text(text)
    assert out == "from [REDACTED:email] to [REDACTED:email], pager [REDACTED:phone]"
    assert counts == {"email": 2, "phone": 1}


def test_nested_json_is_redacted_with_keys_and_non_strings_unchanged():
    # Given a tool output with secrets at several depths
    output = {
        "query": "fields @message | filter @message like /ERROR/",
        "total_matched": 2,
        "truncated": False,
        "results": [
            {
                "message": "ERROR key AKIAIOSFODNN7EXAMPLE denied",
                "timestamp": "2026-11-20T10:05:12Z",
            },
            {"message": "WARN mail to bob@example.org bounced", "latency_ms": 541},
        ],
        "request": {"headers": {"Authorization": f"Bearer {JWT}"}, "password": "hunter2"},
        "none": None,
    }

    # When the output is redacted
    redacted, counts = redact(output)

    # Then the structure is the same, strings are redacted, and the counts cover every class
    assert redacted == {
        "query": "fields @message | filter @message like /ERROR/",
        "total_matched": 2,
        "truncated": False,
        "results": [
            {
                "message": "ERROR key [REDACTED:aws_access_key] denied",
                "timestamp": "2026-11-20T10:05:12Z",
            },
            {"message": "WARN mail to [REDACTED:email] bounced", "latency_ms": 541},
        ],
        # a value under a key that names a secret is redacted whole
        "request": {
            "headers": {"Authorization": "[REDACTED:bearer_token]"},
            "password": "[REDACTED:password]",
        },
        "none": None,
    }
    assert counts == {"aws_access_key": 1, "bearer_token": 1, "email": 1, "password": 1}
    # and the input is not modified
    assert output["request"]["password"] == "hunter2"


def test_redacting_twice_changes_nothing():
    # Given every example, positive and negative, already redacted once
    texts = [t for t, *_ in POSITIVES] + NEGATIVES
    once = [redact_text(t)[0] for t in texts]

    # When redacted again, Then nothing changes and nothing more is counted
    for text in once:
        assert redact_text(text) == (text, {})
    data, _ = redact({"lines": texts, "password": "x"})
    assert redact(data) == (data, {})


def test_markers_are_never_matched_by_label_rules():
    # Given text that already holds markers right where a value would be
    text = (
        "password=[REDACTED:password] Authorization: [REDACTED:bearer_token] "
        'aws_secret_access_key="[REDACTED:aws_secret_key]" redis://:[REDACTED:password]@cache'
    )

    # Then it is left alone
    assert redact_text(text) == (text, {})
