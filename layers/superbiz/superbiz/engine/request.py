"""What a change's request says, read in two parts: the parameters that locate the change
(where it ran: the cluster of a service, the function a setting is for, the service's own
task definition at its new revision) and the values it set (a host, a queue, a timeout,
a certificate). Only what a change set can tie it to the lines that name it: a deploy
whose failing tasks name their cluster set nothing those lines name.

What locates is read from botocore's model of the operation (`identifiers`): a member of
its input in the request's URI path, or a required one named as an identifier (its name
or its shape's ends in Identifier, Name, Arn, Id or Url: `FunctionName`, `QueueUrl`,
`NetworkAclId`); what the model does not mark is data (`locates` of the change's kind in
kinds.yaml, by parameter name: an ECS call's `cluster`); and one generic rule: a parameter
whose value names the resource acted on, or that resource at a revision
(`payments-worker:77` of the service `payments-worker`).

Of the values a change set, some it only references: an ARN a member of the request's
structure points at (the secret a task definition's container reads, the role a function
runs as). What the request's structure is comes from botocore's model of the operation
(`references`): a member of a structure holding an ARN references that resource; a value
inside what the change wrote (a map's values such as a function's variables, a document
such as a policy) is content it set, whatever it names. A reference is the same whoever
restates it, so it does not tie the change to lines that name it.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Literal
from urllib.parse import urlsplit

from superbiz.evidence.topology import key, short
from superbiz.facts import ChangeFact
from superbiz.kinds import Kind, kind_of
from superbiz.signatures import operation

_VALUE_MIN = 4
_TOKEN = re.compile(r"[\w.:/@-]+")
# a resource at a revision: a task definition `family:42`, a function's version `fn:7`
_REVISION = re.compile(r"^(?P<name>.+?):\d+$")
_STEP = re.compile(r"^(?P<name>[^\[\]]*)(?P<index>(?:\[\d+\])*)$")
_WORD = re.compile(r"[^a-z0-9]")

# what a parameter's key path is in the operation's input: a member of its structure, the
# content of a value it wrote (a map's entries, a document in a string), or not modelled
Role = Literal["member", "content", "unknown"]


@lru_cache(maxsize=64)
def _input_shape(source: str, action: str) -> Any:
    """botocore's input shape of a CloudTrail event's operation (None: not modelled)."""
    # reason: botocore's models load with the first change read, not at import
    from botocore.exceptions import BotoCoreError
    from botocore.model import OperationNotFoundError, ServiceModel

    from superbiz.aws import CLIENT_OF_PREFIX, shared_loader

    prefix = source.split(".", 1)[0]
    try:
        model = shared_loader().load_service_model(
            CLIENT_OF_PREFIX.get(prefix, prefix), "service-2"
        )
        return ServiceModel(model).operation_model(operation(action)).input_shape
    except (BotoCoreError, OperationNotFoundError, KeyError, ValueError):
        return None


_IDENTIFIER = re.compile(r"(?:Identifier|Name|Arn|Id|Url)$")


@lru_cache(maxsize=256)
def identifiers(source: str, action: str) -> frozenset[str]:
    """The members of an operation's input that say which resource it acts on, by
    botocore's model (each as `_WORD` spells it): those in its URI path, and those it
    requires whose name or shape's name ends as an identifier's does."""
    shape = _input_shape(source, action)
    if shape is None:
        return frozenset()
    required = set(shape.required_members)
    return frozenset(
        _WORD.sub("", name.lower())
        for name, member in shape.members.items()
        if member.serialization.get("location") == "uri"
        or (name in required and (_IDENTIFIER.search(name) or _IDENTIFIER.search(member.name)))
    )


def _member(shape: Any, name: str) -> Any:
    wanted = _WORD.sub("", name.lower())
    return next((m for n, m in shape.members.items() if _WORD.sub("", n.lower()) == wanted), None)


def role(source: str, action: str, path: str) -> Role:
    """What a parameter's key path (`containerDefinitions[0].secrets[0].valueFrom`) is in
    the operation's input, by botocore's model."""
    shape = _input_shape(source, action)
    if shape is None:
        return "unknown"
    for step in path.split("."):
        parts = _STEP.match(step)
        if parts is None or shape.type_name != "structure":
            # inside a map (its keys are the change's own) or a string (a document)
            return "content" if shape.type_name in ("map", "string") else "unknown"
        shape = _member(shape, parts["name"])
        if shape is None:
            return "unknown"
        for _ in range(parts["index"].count("[")):
            if shape.type_name != "list":
                return "unknown"
            shape = shape.member
    return "member" if shape.type_name not in ("map", "structure", "list") else "unknown"


def telling(value: str) -> bool:
    """A value whose mention in a line can only mean it: a name with a separator or a
    digit (a host, a queue, `orders-v2`), or a long word; never a common word (`live`)."""
    if len(value) < _VALUE_MIN or value.isdigit():
        return False
    return len(value) >= 10 or any(not ch.isalpha() for ch in value)


class Request:
    """A change's request: which of its parameters locate it, and what it set."""

    def __init__(self, change: ChangeFact, kind: Kind | None = None) -> None:
        self.change = change
        self.kind = kind or kind_of(change)
        names = [n for n in (change.resource, *change.resources) if n]
        own = {key(n) for n in names} | {key(short(n)) for n in names}
        # a resource id by path (service/prod-payments/payments-worker) names its parts
        for name in names:
            if "/" in name and not name.startswith("arn:"):
                own |= {key(p) for p in name.split("/") if len(p) >= _VALUE_MIN}
        self.own = own

    def names_itself(self, value: str) -> bool:
        """The value names the resource acted on, or that resource at a revision."""
        for text in (value.strip(), short(value.strip())):
            revision = _REVISION.match(text)
            if key(text) in self.own or (revision and key(revision["name"]) in self.own):
                return True
        return False

    def locates(self, name: str, value: str) -> bool:
        """The parameter `name=value` says where the change ran, not what it set: a member
        botocore's model marks as the operation's identifier, one its kind's `locates`
        names, or one whose value names the resource acted on."""
        change = self.change
        return (
            _WORD.sub("", name.lower()) in identifiers(change.event_source, change.action)
            or any(rx.fullmatch(name) for rx in self.kind.locates)
            or self.names_itself(value)
        )

    def references(self) -> set[str]:
        """The ARNs the request's structure points at (`role` "member"): resources the
        change references, not values it set."""
        change = self.change
        return {
            key(value)
            for path, value in change.parameters.items()
            if value.startswith("arn:")
            and role(change.event_source, change.action, path) == "member"
        }

    @property
    def located(self) -> dict[str, str]:
        """The parameters that locate the change."""
        return {n: v for n, v in self.change.parameters.items() if self.locates(n, v)}

    def set_values(self) -> list[str]:
        """What the change set, as the lines would name it: its after value, the values of
        the parameters that do not locate it, and what its request points at (a host, an
        ARN) unless that is what it replaced or what locates it; never its own names."""
        change = self.change
        where = {key(v) for v in self.located.values()}
        before = (change.before or "").lower()
        named = [n for n in change.named if n.lower() not in before and key(n) not in where]
        set_parameters = [v for n, v in change.parameters.items() if not self.locates(n, v)]
        out: list[str] = []
        for value in [change.after or "", *set_parameters, *named]:
            tokens = _TOKEN.findall(value)
            if value.endswith("…"):
                tokens = tokens[:-1]  # a value cut short ends in a fragment
            for token in tokens:
                token = token.strip(".:/,")
                # a URL's host and a host:port's host are what lines name when they fail
                host = urlsplit(token).hostname if "://" in token else token.rsplit(":", 1)[0]
                for part in dict.fromkeys([token, host or ""]):
                    k = key(part)
                    if (
                        telling(k)
                        and k not in self.own
                        and k not in where
                        and not self.names_itself(k)
                        and k not in out
                    ):
                        out.append(k)
        return out
