"""Changes: who did what to which resource, when, with the values before and after.

`extract` reads a recent_changes output, one fact a change (`$.changes[i]`, written by
`Change.as_output`). A change's `detail` is the request's parameters as `key=value, ...`
(CloudTrail's requestParameters, see `tools.changes._summary`), or a world's own words; a
value that reads `X -> Y` or `Y (was X)` gives the values before and after.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from superbiz.facts.base import FactBase, bounded, clock, quote, readable, short_name
from superbiz.patterns import lazy

NAMES = 8  # most ARNs and hosts a change's request keeps beyond its resources


def request_names(request: str, resources: Sequence[str]) -> tuple[str, ...]:
    """The ARNs and hosts a request's text names that are not the change's own resources
    (nor who made it)."""
    from superbiz.facts.logs import names_in  # reason: facts.logs loads the line reader

    own = {r.rstrip(".") for r in resources}
    found = [
        n
        for n in names_in(request)
        if (n.startswith("arn:") or "." in n) and n not in own and not n.startswith("arn:aws:sts:")
    ]
    return tuple(found[:NAMES])


PARAMETERS = 20  # most request parameters kept a change
PARAMETER_CHARS = 120
VALUE_CHARS = 200
NAMED = 8  # most ARNs and hosts kept a change


class ChangeFact(FactBase):
    type: Literal["change"] = "change"
    action: str
    event_source: str
    resource: str
    resources: list[str] = []
    actor: str | None = None
    before: str | None = None
    after: str | None = None
    # the call failed (CloudTrail errorCode): it changed nothing
    failed: bool = False
    error_code: str | None = None
    # what before and after are values of: a request parameter (taskDefinition,
    # desiredCount) or the words the detail names it with ("task definition")
    attribute: str | None = None
    # the request's parameters as the change records them (key -> value, bounded)
    parameters: dict[str, str] = {}
    # the ARNs and hosts its request names besides its own resources, as the tool read them
    # before the detail was cut (a record set's alias target, a listener's certificate):
    # what the change points the resource at
    named: list[str] = []


# ------------------------------------------------------------------ reading the detail

_FAILED = lazy(r"^FAILED [\w.:-]+(?:; |$)")
_KEY = lazy(r"^([A-Za-z_][\w.\[\]-]*)=(.*)$", 16)  # re.DOTALL
_WAS = lazy(r"^(?P<after>.+?)\s+\(was (?P<before>.+)\)$", 16)
# a value before the arrow (one token), and after it up to a comma, a semicolon or a bracket
_ARROW = lazy(
    r"(?P<before>[^\s,;]+)\s*(?:->|→)\s*"
    r"(?P<after>[^\s,;(){}\[\]][^,;(){}\[\]]*?)(?=\s*(?:[,;(){}\[\]]|$))"
)
# key=value or "key":"value" (a value of base64 padding, codeSha256=...=, is no key)
_INNER = lazy(r'^[{\[(]*(?:"(?P<qkey>[\w.-]+)":"?|(?P<key>[\w.-]+)=)(?P<value>[^=]+)$')
_OPEN, _CLOSE = "{[(", "}])"


def split_top(text: str) -> list[str]:
    """`a=1, b={c=2, d=3}, e=[4, 5]` -> its top-level parts (commas inside brackets stay)."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        if char in _OPEN:
            depth += 1
        elif char in _CLOSE:
            depth = max(0, depth - 1)
        elif char == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return [p for p in parts if p]


# keys whose value is only the request's other parameters
_WRAPPERS = frozenset({"requestParameters", "request_parameters"})


def _object(value: str) -> str | None:
    """The inside of a value that opens with `{` (up to its matching `}`), else None."""
    value = value.strip()
    if not value.startswith("{"):
        return None
    depth = 0
    for i, char in enumerate(value):
        if char in _OPEN:
            depth += 1
        elif char in _CLOSE:
            depth -= 1
            if depth == 0:
                return value[1:i]
    return None


def read_detail(detail: str) -> tuple[dict[str, str], str | None, str | None, str | None]:
    """(parameters, attribute, before, after) of a change's detail; the first value it
    shows changing gives before and after."""
    text = _FAILED.sub("", detail.strip())
    parameters: dict[str, str] = {}
    change: tuple[str | None, str, str] | None = None
    for part in split_top(text):
        # a group's label before its first parameter: "environment: RETURNS_TABLE=x"
        keyed = _KEY.match(part) or _KEY.match(part.split(": ", 1)[-1])
        inner = _object(keyed[2]) if keyed and keyed[1] in _WRAPPERS else None
        if inner is not None:
            # a parameter that holds the others (CloudTrail's requestParameters={...}):
            # its own parameters are what the change set
            for key, value in read_detail(inner)[0].items():
                if len(parameters) < PARAMETERS:
                    parameters.setdefault(key, value)
        if keyed and len(parameters) < PARAMETERS and keyed[1] not in _WRAPPERS:
            parameters[keyed[1]] = bounded(keyed[2].strip(), PARAMETER_CHARS)
        if change is None:
            change = _changed(keyed[1] if keyed else None, keyed[2] if keyed else part)
    attribute, before, after = change if change else (None, None, None)
    return parameters, attribute, before, after


def _changed(key: str | None, value: str) -> tuple[str | None, str, str] | None:
    was = _WAS.match(value.strip())
    if was and key:
        return key, was["before"].strip(), was["after"].strip()
    arrow = _ARROW.search(value)
    if arrow is None:
        return None
    before, after = arrow["before"], arrow["after"].strip().strip('"')
    # a value inside the parameter's own object: loggingConfig={applicationLogLevel=INFO ->
    # DEBUG}, or as CloudTrail's JSON writes it: {"applicationLogLevel":"INFO -> DEBUG"}
    inner = _INNER.match(before)
    attribute = None
    if inner:
        attribute, before = inner["qkey"] or inner["key"], inner["value"]
    if attribute is None:
        # the words before it: "task definition payment-api:42 -> ...", "image a:1 -> :2"
        words = value[: arrow.start()].split(";")[-1].split(": ")[-1].strip()
        attribute = words or key
    elif key and attribute != key:
        attribute = f"{key}.{attribute}"
    if after.startswith(":") and ":" in before:  # image repo:4.18.0 -> :4.18.1
        after = before.rsplit(":", 1)[0] + after
    return attribute or key, before, after


# ------------------------------------------------------------------ facts


def _one(index: int, change: dict[str, Any]) -> ChangeFact:
    resource = str(change["resource"] or "")
    resources = [str(r) for r in change.get("resources") or [] if r]
    detail = str(change.get("detail") or "")
    parameters, attribute, before, after = read_detail(detail)
    error = change.get("error_code") or None
    # what the tool read from the whole request, else what the detail still shows
    names = change.get("names")
    named = (
        [str(n) for n in names if n][:NAMED]
        if isinstance(names, list)
        else list(request_names(detail, [resource, *resources]))
    )
    return ChangeFact(
        id=f"chg{index + 1}",
        subject=short_name(resource) if resource else str(change.get("event") or "change"),
        at=str(change["t"]),
        paths=[f"$.changes[{index}]"],
        action=str(change.get("event") or ""),
        event_source=str(change.get("source") or ""),
        resource=resource,
        resources=resources or ([resource] if resource else []),
        actor=str(change["user"]) if change.get("user") else None,
        before=bounded(before, VALUE_CHARS) if before is not None else None,
        after=bounded(after, VALUE_CHARS) if after is not None else None,
        failed=error is not None,
        error_code=str(error) if error else None,
        attribute=attribute,
        parameters=parameters,
        named=named,
    )


def extract(params: dict[str, Any], output: dict[str, Any]) -> list[ChangeFact]:
    return readable(output.get("changes"), _one, "recent_changes")


def sentence(fact: ChangeFact, today: str | None = None) -> str:
    day = today or fact.at
    by = f"{fact.actor} called " if fact.actor else ""
    source = f" ({fact.event_source})" if fact.event_source else ""
    resource = fact.resource or "an unnamed resource"
    text = f"At {clock(fact.at, day)} {by}{fact.action}{source} on {resource}"
    others = [r for r in fact.resources if r != fact.resource]
    if others:
        text += f" (also {', '.join(others[:3])}{' and more' if len(others) > 3 else ''})"
    if fact.before is not None and fact.after is not None:
        what = f"{fact.attribute} " if fact.attribute else ""
        text += f": {what}{quote(fact.before, 80)} → {quote(fact.after, 80)}"
    elif fact.parameters:
        shown = ", ".join(f"{k}={v}" for k, v in list(fact.parameters.items())[:6])
        text += f" with {quote(shown)}"
    if fact.failed:
        text += f"; the call failed with {fact.error_code} and changed nothing"
    return text + "."
