"""The AIOps report notification: one SNS message per finished AIOps run, with
links to the run's trace and its Step Functions execution."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from superbiz import runs
from superbiz.deps import Deps
from superbiz.observability import logger
from superbiz.records import ReviewRecord, RunTrace, SelfEvaluation

SUBJECT_LIMIT = 100  # SNS rejects longer subjects
MESSAGE_LIMIT = 200_000  # SNS allows 256 KB


def subject_for(trace: RunTrace, status: str) -> str:
    alarm = (trace.run.alarm or {}).get("name")
    what = f"alarm {alarm}" if alarm else "alarms in ALARM"
    text = f"[SuperBizAgent] {status.lower()}: diagnosis of {what}"
    # SNS subjects: ASCII, no newlines, at most 100 characters
    text = text.encode("ascii", "replace").decode().replace("\n", " ")
    return text[: SUBJECT_LIMIT - 3] + "..." if len(text) > SUBJECT_LIMIT else text


def message_for(
    deps: Deps, trace: RunTrace, answer: str, status: str, evaluation: SelfEvaluation
) -> str:
    run = trace.run
    link = runs.links(deps.settings, run.session_id, run.run_id, run.execution_arn)
    rules = evaluation.aiops_rule_evaluation
    gate = evaluation.gatekeeper
    lines = [
        f"Run {run.run_id} ({run.mode}) finished {status}.",
        f"Alarm: {(run.alarm or {}).get('name', '(auto-discovery)')}",
    ]
    joined = [a for a in trace.alarms if a.get("role") == "joined"]
    if joined:
        more = f" and {len(joined) - 20} more" if len(joined) > 20 else ""
        names = ", ".join(str(a.get("name")) for a in joined[:20])
        lines.append(f"Also investigated: {names}{more}")
    follow = evaluation.follow_up
    if follow:
        state = "started" if follow.started else f"NOT started ({follow.error})"
        lines.append(
            f"Joined after the last plan, so diagnosed in follow-up run {follow.run_id} "
            f"({state}): {', '.join(follow.alarms[:20])}. Status: {follow.status_url}"
        )
    if gate:
        lines.append(f"Gatekeeper: {gate.claims_passed}/{gate.claims_proposed} claims verified")
    review = evaluation.review
    if review and review.status in ("approved", "amended", "rejected", "not_reviewed"):
        who = f" by {review.principal}" if review.principal else ""
        lines.append(f"Review: {review.status.replace('_', ' ')}{who}")
    if rules:
        lines.append(
            "Rule evaluation: "
            + ", ".join(f"{r.rule}={'pass' if r.passed else 'FAIL'}" for r in rules.rules)
        )
    lines += [
        "",
        answer.strip(),
        "",
    ]
    return _with_links(lines, link)


def _with_links(lines: list[str], link: dict[str, str]) -> str:
    """A message's lines, then the run's links, cut to what SNS accepts."""
    lines = [*lines, f"Trace: {link['trace_url']}", f"Status: {link['status_url']}"]
    if "execution_console_url" in link:
        lines.append(f"Execution: {link['execution_console_url']}")
    text = "\n".join(lines)
    return text if len(text) <= MESSAGE_LIMIT else text[: MESSAGE_LIMIT - 20] + "\n[truncated]"


def publish_report(
    deps: Deps, trace: RunTrace, answer: str, status: str, evaluation: SelfEvaluation
) -> dict[str, Any]:
    """Publish the report; what happened is returned for self_evaluation.notification."""
    topic = deps.settings.notify_topic_arn
    if not topic:
        return {"sent": False, "reason": "no topic configured (SUPERBIZ_NOTIFY_TOPIC_ARN)"}
    run = trace.run
    try:
        sent = deps.clients.client("sns").publish(
            TopicArn=topic,
            Subject=subject_for(trace, status),
            Message=message_for(deps, trace, answer, status, evaluation),
            MessageAttributes={
                "run_id": {"DataType": "String", "StringValue": run.run_id},
                "status": {"DataType": "String", "StringValue": status},
                "mode": {"DataType": "String", "StringValue": run.mode},
                "alarm": {
                    "DataType": "String",
                    "StringValue": str((run.alarm or {}).get("name") or "auto-discovery"),
                },
            },
        )
    except (ClientError, BotoCoreError) as exc:
        logger.warning(
            "report notification failed", extra={"run_id": run.run_id, "error": str(exc)}
        )
        return {"sent": False, "topic_arn": topic, "error": f"{type(exc).__name__}: {exc}"[:500]}
    return {"sent": True, "topic_arn": topic, "message_id": sent.get("MessageId")}


def review_message(deps: Deps, trace: RunTrace, review: ReviewRecord, question: str) -> str:
    """What a reviewer reads: why the report waits, until when, how to decide, the draft."""
    run = trace.run
    link = runs.links(deps.settings, run.session_id, run.run_id, run.execution_arn)
    base = (deps.settings.api_base_url or "").rstrip("/")
    lines = [
        f"Run {run.run_id} ({run.mode}) waits for your review until {review.deadline}.",
        question,
    ]
    if review.actions:
        lines += ["", "Recommended actions (strike by number with amend):"]
        lines += [f"  {i}. {action}" for i, action in enumerate(review.actions, 1)]
    lines += [
        "",
        "Decide (only principals allowed to review can):",
        f"  POST {base}/api/runs/{run.run_id}/review",
        '  {"decision": "approve" | "reject" | "amend", "comment": "...", "remove_actions": [1]}',
        f"  locally: superbiz review {run.run_id} --approve | --reject --comment ... | --amend 1",
        "Without a decision by the deadline the report is published marked 'not reviewed'.",
        "",
        "--- the report as drafted ---",
        review.draft.strip(),
        "",
    ]
    return _with_links(lines, link)


def publish_review_request(
    deps: Deps, trace: RunTrace, review: ReviewRecord, question: str
) -> dict[str, Any]:
    """Tell reviewers a report waits for them; what happened is returned for the run's
    self_evaluation.review.notification. A failed notification never fails the run."""
    topic = deps.settings.notify_topic_arn
    if not topic:
        return {"sent": False, "reason": "no topic configured (SUPERBIZ_NOTIFY_TOPIC_ARN)"}
    run = trace.run
    alarm = (run.alarm or {}).get("name")
    what = f"alarm {alarm}" if alarm else run.query
    subject = f"[SuperBizAgent] review needed: {what}".encode("ascii", "replace").decode()
    subject = " ".join(subject.split())
    subject = subject[: SUBJECT_LIMIT - 3] + "..." if len(subject) > SUBJECT_LIMIT else subject
    try:
        sent = deps.clients.client("sns").publish(
            TopicArn=topic,
            Subject=subject,
            Message=review_message(deps, trace, review, question),
            MessageAttributes={
                "run_id": {"DataType": "String", "StringValue": run.run_id},
                "status": {"DataType": "String", "StringValue": "AWAITING_REVIEW"},
                "mode": {"DataType": "String", "StringValue": run.mode},
                "kind": {"DataType": "String", "StringValue": "review_request"},
            },
        )
    except (ClientError, BotoCoreError) as exc:
        logger.warning(
            "review notification failed", extra={"run_id": run.run_id, "error": str(exc)}
        )
        return {"sent": False, "topic_arn": topic, "error": f"{type(exc).__name__}: {exc}"[:500]}
    return {"sent": True, "topic_arn": topic, "message_id": sent.get("MessageId")}
