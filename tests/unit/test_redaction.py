"""Secrets and personal data are replaced by stable markers; ordinary log text is not."""

from __future__ import annotations

import random
import re

import pytest

from superbiz.redaction import CLASSES, marker, redact, redact_text

JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    ".eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIn0"
    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7Qx\nq8Z+/abc=\n-----END RSA PRIVATE KEY-----"
)
GITHUB_PAT = "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVW"

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
    (
        "GET /cart Cookie: session=9f8e7d6c5b4a; theme=dark 200",
        "cookie",
        "9f8e7d6c5b4a",
        "GET /cart Cookie: ",
    ),
    (
        "resp Set-Cookie: sid=s%3AabcDEF123456.xyz; Path=/; HttpOnly",
        "cookie",
        "s%3AabcDEF123456.xyz",
        "Set-Cookie: sid=",
    ),
    (
        f"loaded key {PEM} from env",
        "private_key",
        "MIIEpAIBAAKCAQEA7Qx",
        "from env",
    ),
    (
        "git clone failed with ghp_1234567890abcdefghijABCDEFGHIJ123456",
        "github_token",
        "ghp_1234567890abcdefghijABCDEFGHIJ123456",
        "git clone failed with ",
    ),
    (
        "GITHUB_TOKEN=gho_16C7e42F292c6912E7710c838347Ae178B4a ok",
        "github_token",
        "gho_16C7e42F292c6912E7710c838347Ae178B4a",
        "GITHUB_TOKEN=",
    ),
    (
        f"push with {GITHUB_PAT} rejected",
        "github_token",
        GITHUB_PAT,
        "rejected",
    ),
    (
        "slack post with xoxb-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx failed",
        "slack_token",
        "xoxb-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
        "failed",
    ),
    (
        "user token xoxp-2222222222-333333333333-444444444444-abcdef0123456789 revoked",
        "slack_token",
        "xoxp-2222222222-333333333333-444444444444-abcdef0123456789",
        "revoked",
    ),
    (
        "OPENAI_API_KEY=sk-proj-AbC123dEf456GhI789jKl012MnO345pQr678 set",
        "api_key",
        "sk-proj-AbC123dEf456GhI789jKl012MnO345pQr678",
        "OPENAI_API_KEY=",
    ),
    (
        "calling the model with sk-AbC123dEf456GhI789jKl012MnO345pQr678StU901 ok",
        "api_key",
        "sk-AbC123dEf456GhI789jKl012MnO345pQr678StU901",
        "calling the model with ",
    ),
    (
        "anthropic key sk-ant-api03-AbC123dEf456GhI789jKl012MnO345pQr678-xyzAA rejected",
        "api_key",
        "sk-ant-api03-AbC123dEf456GhI789jKl012MnO345pQr678-xyzAA",
        "rejected",
    ),
    (
        "stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc failed",
        "api_key",
        "4eC39HqLyjWDarjtT1zdp7dc",
        "failed",
    ),
    ("stripe rk_live_51H8xYzAbCdEf restricted", "api_key", "rk_live_51H8xYzAbCdEf", "restricted"),
    (
        "maps AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW over quota",
        "api_key",
        "AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW",
        "over quota",
    ),
    (
        'config {"client_secret": "s3cr3tValue", "client_id": "payments-web"}',
        "secret",
        "s3cr3tValue",
        '"client_id": "payments-web"',
    ),
    (
        "SESSION_SECRET=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZg== started",
        "secret",
        "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZg==",
        "started",
    ),
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
    "ts=1732096512000 epoch=1732096512 bytes=15000000000 count=13",
    "tz Asia/Shanghai +08:00 offset +0800 at 2026-11-20",
    "Bearer authentication failed: token expired",
    "ssh://git@github.com/acme/payments.git and icon@2x.png and pkg@1.2.3",
    "password reset requested; password_reset_count=3",
    "java.lang.Object@1b6d3586 at com.acme.Service.charge(Service.java:142)",
]

# what a diagnosis cites, from the logs it reads: none of it is a secret
REALISTIC_LOG_LINES = [
    "arn:aws:lambda:us-east-1:123456789012:function:payment-api-handler:42",
    "GetSecretValue arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-AbCdEf "
    "secret_arn=arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-AbCdEf",
    "X-Amzn-Trace-Id: Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1",
    "h2 2026-11-20T10:05:12.250000Z app/payment-alb/50dc6c495c0c9188 10.0.12.7:54122 "
    '10.0.3.4:8080 0.001 30.002 0.000 504 504 312 0 "POST https://api.example.com:443/v1/charge '
    'HTTP/2.0" "okhttp/4.9.3" ECDHE-RSA-AES128-GCM-SHA256 TLSv1.2 '
    "arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/pay/73e2d6bc24d8a067 "
    '"Root=1-58337262-36d228ad5d99923122bbe354" "-" "-" 0 2026-11-20T10:04:42.248000Z "forward"',
    '10.0.12.7 - - [20/Nov/2026:10:05:12 +0000] "GET /v1/orders?page=2 HTTP/1.1" 502 157 "-" '
    '"curl/8.4.0" rt=30.001 uct="0.000" urt="30.001"',
    "2026/11/20 10:05:12 [error] 31#31: *4521 upstream timed out (110: Connection timed out) "
    "while reading response header from upstream, client: 10.0.12.7, server: api.example.com, "
    'request: "GET /health HTTP/1.1", upstream: "http://10.0.3.4:8080/health"',
    "2026-11-20 10:05:12.123 UTC [4521] FATAL:  remaining connection slots are reserved for "
    "non-replication superuser connections",
    '2026-11-20 10:05:12.123 UTC [4521] FATAL:  password authentication failed for user "app"',
    "[ 8123.456789] Out of memory: Killed process 4521 (java) total-vm:8388608kB, "
    "anon-rss:4194304kB, UID:1000 pgtables:9000kB oom_score_adj:0",
    'Exception in thread "main" java.lang.IllegalStateException: token must not be null\n'
    "\tat com.acme.auth.TokenService.verify(TokenService.java:88)",
    'Traceback (most recent call last):\n  File "/var/task/app.py", line 42, in handler\n'
    "    secret = client.get_secret_value(SecretId=name)\n"
    "botocore.errorfactory.ResourceNotFoundException: Secrets Manager can't find the secret.",
    "KeyError: 'api_key'",
    "Error: connect ECONNREFUSED 127.0.0.1:6379\n    at TCPConnectWrapper.afterConnect "
    "[as oncomplete] (node:net:1555:16)",
    "TypeError: Cannot read properties of undefined (reading 'token')",
    "REPORT RequestId: 8f1c2d3e-4b5a-6978-8a9b-0c1d2e3f4a5b Duration: 30001.23 ms "
    "Billed Duration: 30002 ms Memory Size: 512 MB Max Memory Used: 498 MB",
    "commit 9fceb02d0ae598e95dc970b74767f19372d61af8 deployed by role/deployer",
    "sha256:3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a",
    "usage prompt_tokens=1200 completion_tokens=340 max_tokens=4096 token_type=Bearer",
    "ListObjectsV2 NextToken=AbCdEf0123456789XyZ continuation_token=1ueGcxLPRx1Tr",
    "flags bypass=true compass=north cache_key=user:42:cart dedup_key=payment-api-5xx",
    "CI: tests pass=128 fail=0 skip=3 duration=41.2s",
    "eks node group sk-node-pool-abc123def456ghi789 scaled to 6",
    "Cookie header missing; Set-Cookie header too large (8193 bytes); cookie: not set",
    "signature verification failed: sig=SIGTERM exit_code=143",
    "Authorization header missing; authorization: denied for role admin",
    "tls: private key file /etc/ssl/private/server.key not found; client_key=/etc/ssl/client.key",
    "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQsw\n"
    "-----END CERTIFICATE-----",
    "secret: missing; token: expired; password: <hidden>; api_key: ${API_KEY}",
    "pod/payment-api-7d9c8b6f5-x2x9q Back-off restarting failed container "
    "(3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f)",
    "i-0abc123def4567890 sg-0123456789abcdef0 eni-0a1b2c3d4e5f67890 ami-0abcdef1234567890",
    "2026-11-20T10:05:12.250Z 0 [System] [MY-010116] [Server] /usr/sbin/mysqld (mysqld 8.0.35) "
    "starting as process 1",
    "redis://cache.internal:6379/0 and postgres://db.internal:5432/orders reachable",
]


# secrets in shapes the per-class examples do not show, for the idempotence check
MORE_SECRETS = [
    f"Authorization: Bearer {JWT}",
    "Authorization: AWS AKIAIOSFODNN7EXAMPLE:frJIUN8DYpKDtOLCwo//yllqDzg=",
    "Authorization: Foobar abcDEF123456ghi x=1",
    f"creds AKIAIOSFODNN7EXAMPLE {AWS_SECRET} loaded",
    "Cookie: sid=" + JWT + "; theme=dark",
    "https://AbCdEf0123456789GhIjKl:x-oauth-basic@github.com/acme/x.git",
    '{"private_key": "' + PEM.replace("\n", "\\n") + '"}',
    "webhook https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
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


@pytest.mark.parametrize("text", NEGATIVES + REALISTIC_LOG_LINES)
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
    texts = [t for t, *_ in POSITIVES] + NEGATIVES + REALISTIC_LOG_LINES + MORE_SECRETS
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


@pytest.mark.parametrize(
    ("header", "kept"),
    [
        ("Authorization: Basic dXNlcjpodW50ZXIy", "Authorization: Basic "),
        ("Authorization: Bearer 8f14e45fceea167a5a36dedd4bea2543", "Authorization: Bearer "),
        ("Authorization: token 0123456789abcdef0123456789abcdef01234567", "Authorization: token "),
        (
            'Authorization: Digest username="bob", realm="api", '
            'nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", response="6629fae49393a05397450978507c4ef1"',
            "Authorization: Digest ",
        ),
        (
            "Authorization: AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20261120/us-east-1/s3/"
            "aws4_request, SignedHeaders=host;x-amz-date, "
            "Signature=fe5f80f77d5fa3beca038a248ff027d0445342fe2855ddc963176630326f1024",
            "Authorization: AWS4-HMAC-SHA256 ",
        ),
        (
            "Authorization: AWS AKIAIOSFODNN7EXAMPLE:frJIUN8DYpKDtOLCwo//yllqDzg=",
            "Authorization: AWS ",
        ),
        ("Authorization: SSWS 00QCjAl4MlV-WPXM0123456789 host=x", "host=x"),
        ("proxy-authorization: Negotiate YIIGhgYGKwYBBQUCoIIGejCCBnag", "Negotiate "),
    ],
)
def test_authorization_header_of_any_scheme_loses_its_credentials(header, kept):
    # Given an Authorization header with a scheme and credentials
    out, counts = redact_text(header)

    # Then the scheme stays readable and nothing of the credentials is left
    assert kept in out
    assert out.endswith(("[REDACTED:bearer_token]", "host=x"))
    for secret in ("dXNlcjpodW50ZXIy", "6629fae4", "fe5f80f7", "frJIUN8D", "QCjAl4", "YIIGhg"):
        assert secret not in out
    assert counts["bearer_token"] == 1


def test_aws_secret_key_beside_its_access_key_id_is_redacted_without_a_label():
    # Given a key pair pasted into a log line, in either order, with no label
    for text in (
        f"creds AKIAIOSFODNN7EXAMPLE {AWS_SECRET} loaded",
        f"creds {AWS_SECRET},AKIAIOSFODNN7EXAMPLE",
    ):
        out, counts = redact_text(text)

        # Then both halves are gone
        assert AWS_SECRET not in out and "AKIAIOSFODNN7EXAMPLE" not in out
        assert counts == {"aws_secret_key": 1, "aws_access_key": 1}


def test_a_commit_hash_beside_an_access_key_id_is_not_taken_for_its_secret():
    out, counts = redact_text(
        "key AKIAIOSFODNN7EXAMPLE rotated at commit 9fceb02d0ae598e95dc970b74767f19372d61af8"
    )
    assert out.endswith("commit 9fceb02d0ae598e95dc970b74767f19372d61af8")
    assert counts == {"aws_access_key": 1}


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("api_key=YWJjZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXo0NTY3ODk= rejected", "YWJjZGVmZ2hp"),
        ("client_secret: 'Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZg=='", "Zm9vYmFy"),
        (f"aws_secret_access_key={AWS_SECRET}=", AWS_SECRET),
        ("SESSION_TOKEN=IQoJb3JpZ2luX2VjEJr//////////wEaCXVzLWVhc3QtMQ== ok", "IQoJb3Jp"),
    ],
)
def test_key_value_secret_ending_in_base64_padding_is_redacted_whole(text, secret):
    out, _ = redact_text(text)
    assert secret not in out
    assert "==" not in out.replace("[REDACTED", "")


@pytest.mark.parametrize(
    ("text", "kind", "secret"),
    [
        ('yaml:\n  db_password: "hunter2"', "password", "hunter2"),
        ("export DB_PASS=hunter2", "password", "hunter2"),
        ("PGPASSWORD=Tr0ub4dor psql -h db", "password", "Tr0ub4dor"),
        ("app_secret = 7f3a9b2c1d0e", "secret", "7f3a9b2c1d0e"),
        ('{"apiKey": "k-9d8f7e6a5b4c"}', "api_key", "k-9d8f7e6a5b4c"),
        ("X-API-Key: 9d8f7e6a5b4c3d2e1f", "api_key", "9d8f7e6a5b4c3d2e1f"),
        ("csrf_token=Zx81kLmQ2pRt9vWb ok", "bearer_token", "Zx81kLmQ2pRt9vWb"),
        ("NPM_TOKEN=npm_AbCdEf0123456789GhIjKl0123", "bearer_token", "npm_AbCdEf0123456789"),
        ("signing_key: c2lnbmluZy1rZXktMTIz", "secret", "c2lnbmluZy1rZXktMTIz"),
        (
            "https://b.s3.amazonaws.com/k?X-Amz-Expires=60&X-Amz-Signature="
            "fe5f80f77d5fa3beca038a248ff027d0445342fe2855ddc963176630326f1024",
            "secret",
            "fe5f80f77d5fa3be",
        ),
    ],
)
def test_json_yaml_and_env_fields_named_for_a_secret_are_redacted(text, kind, secret):
    out, counts = redact_text(text)
    assert secret not in out
    assert counts.get(kind) == 1


@pytest.mark.parametrize(
    ("url", "secret", "kept"),
    [
        (
            "https://0123456789abcdef0123456789abcdef01234567@github.com/acme/x.git",
            "0123456789abcdef",
            "@github.com/acme/x.git",
        ),
        (
            "https://AbCdEf0123456789GhIjKl:x-oauth-basic@github.com/acme/x.git",
            "AbCdEf0123456789",
            "@github.com/acme/x.git",
        ),
        ("amqp://svc:Zq8%23kL2p@mq.internal:5672/vhost", "Zq8%23kL2p", "amqp://svc:"),
    ],
)
def test_credentials_in_a_url_are_redacted(url, secret, kept):
    out, _ = redact_text(url)
    assert secret not in out and kept in out


def test_a_private_key_cut_off_by_a_truncated_log_line_is_still_redacted():
    out, counts = redact_text(
        "key=-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU"
    )
    assert out == "key=[REDACTED:private_key]"
    assert counts == {"private_key": 1}


def test_a_jwe_and_a_jwt_ending_a_sentence_are_redacted_whole():
    jwe = (
        "eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0..9hH0vgRfYgPnAHOd"
        ".cSrd8Hn7yBo0nB6Xv2Q6bw.Wc6pW0wPgHbTYpY8"
    )
    assert redact_text(f"jwe {jwe} done")[0] == "jwe [REDACTED:jwt] done"
    assert redact_text(f"session {JWT}.")[0] == "session [REDACTED:jwt]."


def test_fields_named_for_secrets_are_redacted_whole_in_structured_output():
    # Given a tool output whose keys name secrets, some holding only states or names
    output = {
        "headers": {"Cookie": "sid=abc123", "Set-Cookie": "sid=abc123; Path=/"},
        "config": {
            "client_secret": "hunter2hunter2",
            "SecretString": '{"password":"x"}',
            "secret_arn": "arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-AbCdEf",
            "api_key": "k-1",
            "github_token": "deadbeef12345678",
            "token": "expired",
            "NextToken": "AbCdEf0123456789XyZ",
            "prompt_tokens": "1200",
            "DB_PASS": "hunter2",
            "pass": "true",
        },
    }

    # When it is redacted
    redacted, counts = redact(output)

    # Then secrets are markers and the rest, ARNs and pagination tokens included, is kept
    assert redacted == {
        "headers": {"Cookie": "[REDACTED:cookie]", "Set-Cookie": "[REDACTED:cookie]"},
        "config": {
            "client_secret": "[REDACTED:secret]",
            "SecretString": "[REDACTED:secret]",
            "secret_arn": output["config"]["secret_arn"],
            "api_key": "[REDACTED:api_key]",
            "github_token": "[REDACTED:bearer_token]",
            "token": "expired",
            "NextToken": "AbCdEf0123456789XyZ",
            "prompt_tokens": "1200",
            "DB_PASS": "[REDACTED:password]",
            "pass": "true",
        },
    }
    assert counts == {"api_key": 1, "bearer_token": 1, "cookie": 2, "password": 1, "secret": 2}


def test_markers_hold_no_digits_and_no_at_sign():
    # so that no digit-based rule and no e-mail rule can ever match a marker
    for kind in CLASSES:
        assert re.fullmatch(r"\[REDACTED:[a-z_]+\]", marker(kind))


def test_redacting_mixtures_of_examples_twice_changes_nothing():
    # Given log text made of pieces of every example, glued by the separators logs use
    pieces = [
        p
        for t in [t for t, *_ in POSITIVES] + NEGATIVES + REALISTIC_LOG_LINES + MORE_SECRETS
        for p in t.split(" ")
    ]
    separators = [" ", "", "=", ":", "; ", "\n", '"', "'", ",", "&", "@", "/", "://", "\\n"]
    rng = random.Random(4)
    for _ in range(3000):
        text = "".join(
            rng.choice(pieces) + rng.choice(separators) for _ in range(rng.randint(1, 6))
        )

        # When it is redacted once and then again
        once, _ = redact_text(text)

        # Then the second time changes nothing and counts nothing
        assert redact_text(once) == (once, {}), text
