"""Changes: who did what to which resource, when, with the values before and after.

`extract` reads a recent_changes output, one fact a change (`$.changes[i]`, written by
`Change.as_output`). A change's `detail` is the request's parameters as `key=value, ...`
(CloudTrail's requestParameters, see `tools.changes._summary`), or a world's own words; a
value that reads `X -> Y` or `Y (was X)` gives the values before and after.

A parameter whose value is a structure (CloudTrail's nested JSON, `{variables={A=1}}` as a
world writes it, a list of objects, a JSON document held in a string) is kept as its
leaves, each by its key path: `environment.variables.DB_POOL_MAX=5`,
`attributes.MessageRetentionPeriod=345600`, `parameters[0].parameterName=max_connections`.
A change recorded before parameters were kept by path (one value holding the whole
structure) reads the same way when it is loaded (`ChangeFact.parameters`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import field_validator

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


PARAMETERS = 40  # most request parameters (leaves of a structure each one) kept a change
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
    # the request's parameters as the change records them, a structure's leaves each by its
    # key path (`environment.variables.DB_POOL_MAX` -> "5"; bounded)
    parameters: dict[str, str] = {}
    # the ARNs and hosts its request names besides its own resources, as the tool read them
    # before the detail was cut (a record set's alias target, a listener's certificate):
    # what the change points the resource at
    named: list[str] = []

    @field_validator("parameters")
    @classmethod
    def _by_path(cls, value: dict[str, str]) -> dict[str, str]:
        """A change recorded with a structure in one value is read as its leaves."""
        return by_path(value)


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
    change: tuple[str | None, str, str | None] | None = None
    for part in split_top(text):
        # a group's label before its first parameter: "environment: RETURNS_TABLE=x"
        keyed = _KEY.match(part) or _KEY.match(part.split(": ", 1)[-1])
        inner = _object(keyed[2]) if keyed and keyed[1] in _WRAPPERS else None
        if inner is not None:
            # a parameter that holds the others (CloudTrail's requestParameters={...}):
            # its own parameters are what the change set
            for key, value in read_detail(inner)[0].items():
                parameters.setdefault(key, value)
        if keyed and keyed[1] not in _WRAPPERS:
            parameters[keyed[1]] = keyed[2].strip()
        if change is None:
            change = _changed(keyed[1] if keyed else None, keyed[2] if keyed else part)
    attribute, before, after = change if change else (None, None, None)
    return by_path(parameters), attribute, before, after


# ------------------------------------------------------------------ a value's structure

_BARE_KEY = lazy(r"[A-Za-z_$@][\w.$@:-]*")
_CUT = ("...", "…")


class _Unreadable(ValueError):
    """A value that is no structure after all."""


class _Reader:
    """A structure as a request's value writes it: JSON, or the `{key=value, ...}` and
    `[a, b]` a world or a Java map writes; a text cut short ends where it was cut."""

    def __init__(self, text: str) -> None:
        self.text, self.at = text, 0

    def _space(self) -> None:
        while self.at < len(self.text) and self.text[self.at].isspace():
            self.at += 1

    def _peek(self) -> str:
        self._space()
        return self.text[self.at] if self.at < len(self.text) else ""

    def value(self) -> Any:
        char = self._peek()
        if char == "{":
            return self._object()
        if char == "[":
            return self._list()
        if char == '"':
            return self._quoted()
        start = self.at
        while self.at < len(self.text) and self.text[self.at] not in ",}]":
            self.at += 1
        return self.text[start : self.at].strip()

    def _quoted(self) -> str:
        out, self.at = [], self.at + 1
        while self.at < len(self.text) and self.text[self.at] != '"':
            if self.text[self.at] == "\\" and self.at + 1 < len(self.text):
                self.at += 1
            out.append(self.text[self.at])
            self.at += 1
        self.at += 1
        return "".join(out)

    def _key(self) -> str:
        if self._peek() == '"':
            name = self._quoted()
        else:
            match = _BARE_KEY.match(self.text, self.at)
            if match is None:
                raise _Unreadable(self.text[self.at : self.at + 20])
            name, self.at = match[0].rstrip(":"), self.at + len(match[0].rstrip(":"))
        if self._peek() not in ("=", ":"):
            raise _Unreadable(name)
        self.at += 1
        return name

    def _object(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        self.at += 1
        while self._peek() not in ("}", ""):
            name = self._key()
            out[name] = self.value()
            if self._peek() == ",":
                self.at += 1
            elif self._peek() not in ("}", ""):
                raise _Unreadable(name)
        self.at += 1
        return out

    def _list(self) -> list[Any]:
        out: list[Any] = []
        self.at += 1
        while self._peek() not in ("]", ""):
            out.append(self.value())
            if self._peek() == ",":
                self.at += 1
            elif self._peek() not in ("]", ""):
                raise _Unreadable(str(out[-1])[:20])
        self.at += 1
        return out


def structure(text: str) -> tuple[dict[str, Any] | list[Any] | None, bool]:
    """The object or list a value holds (None: it holds a scalar, or is no structure), and
    whether it was cut short (its last leaf then a fragment)."""
    text = text.strip()
    if not text.startswith(("{", "[")):
        return None, False
    try:
        found = json.loads(text)
        return (found, False) if isinstance(found, dict | list) else (None, False)
    except ValueError:
        pass
    cut = text.endswith(_CUT)
    text = text.removesuffix("...").removesuffix("…") if cut else text
    reader = _Reader(text)
    try:
        found = reader.value()
    except _Unreadable:
        return None, False
    if reader.at < len(text) and text[reader.at :].strip():
        return None, False  # more after it: a value in words, not a structure
    return (found, cut) if isinstance(found, dict | list) else (None, False)


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def leaves(path: str, value: Any) -> list[tuple[str, str]]:
    """(key path, value) of each scalar a parameter's value holds: a structure's leaves by
    their path, a JSON document held in a string read as its structure too."""
    if value is None or value == {} or value == []:
        return []
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in leaves(f"{path}.{k}" if path else k, v)]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in leaves(f"{path}[{i}]", v)]
    text = _scalar(value)
    found, cut = structure(text)
    if found is None:
        was = _WAS.match(text.strip())
        found, cut = structure(was["after"]) if was else (None, False)
    if found is None:
        return [(path, text)]
    inner = leaves(path, found)
    return inner[:-1] if cut else inner


def by_path(parameters: dict[str, str]) -> dict[str, str]:
    """A request's parameters with each structure's leaves by their key path, bounded."""
    out: dict[str, str] = {}
    for name, value in parameters.items():
        for path, leaf in leaves(name, value):
            if len(out) >= PARAMETERS:
                return out
            out.setdefault(path, bounded(leaf, PARAMETER_CHARS))
    return out


def _changed(key: str | None, value: str) -> tuple[str | None, str, str | None] | None:
    was = _WAS.match(value.strip())
    if was and key in _WRAPPERS:
        # "requestParameters={...} (was X)": a value before, of no one parameter the
        # request names; what it set is its parameters, not the whole request
        return None, was["before"].strip(), None
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
        was = f" (was {quote(fact.before, 80)})" if fact.before is not None else ""
        text += f" with {quote(shown)}{was}"
    if fact.failed:
        text += f"; the call failed with {fact.error_code} and changed nothing"
    return text + "."
