"""A faithful subset of CloudWatch Logs Insights for the local runtime.

moto's engine understands only `fields`, `sort` and `limit` and silently
ignores `filter`, so a local `query_logs` would return every line and the
diagnosis would look grounded on evidence that real AWS would never return.
This engine implements the subset our tools use and refuses anything else:

    fields @timestamp, @message, @logStream, @log
    filter @message like /regex/ | filter @message like "substring"
    filter @message not like /x/ | filter @message =~ /x/ | filter @log = "name"
      (conditions combine with and / or / not and parentheses; several
       filter commands are ANDed)
    sort <field> [asc|desc]
    limit N
    stats count(*) [as alias] [by field, ...]

`install()` swaps it in for moto's `execute_query`; a query it cannot run
fails at StartQuery with MalformedQueryException, as on AWS.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

MAX_ROWS = 10_000
FIELDS = ("@timestamp", "@message", "@logStream", "@log", "@ptr", "@ingestionTime")
DEFAULT_FIELDS = ("@timestamp", "@message", "@logStream", "@log")
_TIME_FIELDS = ("@timestamp", "@ingestionTime")


class InsightsQueryError(ValueError):
    """The query uses syntax this engine does not support, or is malformed."""


# ------------------------------------------------------------------ tokens


@dataclass(frozen=True)
class Token:
    kind: str  # FIELD WORD REGEX STRING NUMBER OP PIPE COMMA LPAREN RPAREN STAR
    value: str
    pos: int


_SCANNER = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<REGEX>/(?:\\.|[^/\\])*/)
  | (?P<STRING>"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*')
  | (?P<FIELD>@[A-Za-z_][A-Za-z0-9_]*)
  | (?P<NUMBER>\d+(?:\.\d+)?)
  | (?P<WORD>[A-Za-z_][A-Za-z0-9_.]*)
  | (?P<OP>=~|!=|=)
  | (?P<PIPE>\|)
  | (?P<COMMA>,)
  | (?P<LPAREN>\()
  | (?P<RPAREN>\))
  | (?P<STAR>\*)
    """,
    re.VERBOSE,
)


def tokenize(query: str) -> list[Token]:
    tokens: list[Token] = []
    pos = 0
    while pos < len(query):
        m = _SCANNER.match(query, pos)
        if not m:
            raise InsightsQueryError(f"unexpected character {query[pos]!r} at offset {pos}")
        kind = m.lastgroup or ""
        if kind != "ws":
            tokens.append(Token(kind, m.group(), pos))
        pos = m.end()
    return tokens


# ------------------------------------------------------------------ parsed query

Row = dict[str, Any]
Predicate = Callable[[Row], bool]


@dataclass
class Fields:
    names: list[str]


@dataclass
class Filter:
    predicate: Predicate


@dataclass
class Sort:
    name: str
    descending: bool


@dataclass
class Limit:
    n: int


@dataclass
class Stats:
    alias: str
    by: list[str]


Command = Fields | Filter | Sort | Limit | Stats


@dataclass
class Query:
    commands: list[Command] = field(default_factory=list)

    @property
    def projection(self) -> list[str]:
        stats = [c for c in self.commands if isinstance(c, Stats)]
        if stats:
            return [*stats[-1].by, stats[-1].alias]
        names: list[str] = []
        for command in self.commands:
            if isinstance(command, Fields):
                names.extend(n for n in command.names if n not in names)
        return names or list(DEFAULT_FIELDS)


class _Parser:
    def __init__(self, query: str) -> None:
        self.text = query
        self.tokens = tokenize(query)
        self.i = 0
        self.available = set(FIELDS)

    # -- helpers
    def peek(self, offset: int = 0) -> Token | None:
        j = self.i + offset
        return self.tokens[j] if j < len(self.tokens) else None

    def take(self, kind: str, value: str | None = None) -> Token:
        tok = self.peek()
        if tok is None or tok.kind != kind or (value is not None and tok.value.lower() != value):
            want = value or kind.lower()
            got = f"{tok.value!r} at offset {tok.pos}" if tok else "end of query"
            raise InsightsQueryError(f"expected {want}, got {got}")
        self.i += 1
        return tok

    def at_kind(self, kind: str) -> bool:
        tok = self.peek()
        return tok is not None and tok.kind == kind

    def at_word(self, *words: str) -> bool:
        tok = self.peek()
        return tok is not None and tok.kind == "WORD" and tok.value.lower() in words

    def field_name(self) -> str:
        tok = self.peek()
        if tok is None or tok.kind not in ("FIELD", "WORD"):
            got = f"{tok.value!r} at offset {tok.pos}" if tok else "end of query"
            raise InsightsQueryError(f"expected a field name, got {got}")
        self.i += 1
        if tok.value not in self.available:
            raise InsightsQueryError(
                f"unsupported field {tok.value!r} at offset {tok.pos}; "
                f"supported: {', '.join(sorted(self.available))}"
            )
        return tok.value

    # -- grammar
    def parse(self) -> Query:
        query = Query()
        if not self.tokens:
            raise InsightsQueryError("empty query")
        while True:
            query.commands.append(self.command())
            tok = self.peek()
            if tok is None:
                return query
            self.take("PIPE")

    def command(self) -> Command:
        if not self.at_kind("WORD"):
            nxt = self.peek()
            raise InsightsQueryError(
                f"expected a command, got {nxt.value!r} at offset {nxt.pos}"
                if nxt
                else "expected a command"
            )
        tok = self.take("WORD")
        name = tok.value.lower()
        if name == "fields":
            names = [self.field_name()]
            while self.at_kind("COMMA"):
                self.i += 1
                names.append(self.field_name())
            self._end_of_command("fields")
            return Fields(names)
        if name == "filter":
            predicate = self.or_expr()
            self._end_of_command("filter")
            return Filter(predicate)
        if name == "sort":
            sort_field = self.field_name()
            descending = True
            if self.at_word("asc", "desc"):
                descending = self.take("WORD").value.lower() == "desc"
            self._end_of_command("sort (one field only)")
            return Sort(sort_field, descending)
        if name == "limit":
            n = int(float(self.take("NUMBER").value))
            if not 1 <= n <= MAX_ROWS:
                raise InsightsQueryError(f"limit must be between 1 and {MAX_ROWS}, got {n}")
            self._end_of_command("limit")
            return Limit(n)
        if name == "stats":
            return self.stats()
        raise InsightsQueryError(
            f"unsupported command {tok.value!r} at offset {tok.pos}; "
            "supported: fields, filter, sort, limit, stats count(*)"
        )

    def stats(self) -> Stats:
        func = self.take("WORD")
        if func.value.lower() != "count":
            raise InsightsQueryError(
                f"unsupported stats function {func.value!r}; only count(*) is supported"
            )
        self.take("LPAREN")
        counted = "*"
        if self.at_kind("STAR"):
            self.i += 1
        elif not self.at_kind("RPAREN"):
            counted = self.field_name()
        self.take("RPAREN")
        alias = f"count({counted})" if counted != "*" else "count(*)"
        if self.at_word("as"):
            self.i += 1
            alias = self.take("WORD").value
        by: list[str] = []
        if self.at_word("by"):
            self.i += 1
            by.append(self.field_name())
            while self.at_kind("COMMA"):
                self.i += 1
                by.append(self.field_name())
        self._end_of_command("stats")
        # after stats only its output columns exist
        self.available = {*by, alias}
        return Stats(alias, by)

    def _end_of_command(self, what: str) -> None:
        tok = self.peek()
        if tok is not None and tok.kind != "PIPE":
            raise InsightsQueryError(
                f"unsupported syntax in {what} at offset {tok.pos}: {tok.value!r}"
            )

    # boolean expressions: or_expr := and_expr ('or' and_expr)*
    def or_expr(self) -> Predicate:
        parts = [self.and_expr()]
        while self.at_word("or"):
            self.i += 1
            parts.append(self.and_expr())
        return parts[0] if len(parts) == 1 else (lambda row: any(p(row) for p in parts))

    def and_expr(self) -> Predicate:
        parts = [self.unary()]
        while self.at_word("and"):
            self.i += 1
            parts.append(self.unary())
        return parts[0] if len(parts) == 1 else (lambda row: all(p(row) for p in parts))

    def unary(self) -> Predicate:
        if self.at_word("not"):
            self.i += 1
            inner = self.unary()
            return lambda row: not inner(row)
        if self.at_kind("LPAREN"):
            self.i += 1
            inner = self.or_expr()
            self.take("RPAREN")
            return inner
        return self.comparison()

    def comparison(self) -> Predicate:
        name = self.field_name()
        negate = False
        if self.at_word("not"):
            self.i += 1
            negate = True
            if not self.at_word("like"):
                raise InsightsQueryError("expected 'like' after 'not'")
        tok = self.peek()
        if tok is None:
            raise InsightsQueryError(f"expected an operator after {name}")
        if tok.kind == "WORD" and tok.value.lower() == "like":
            self.i += 1
            predicate = self._match(name, self._operand(regex_ok=True, string_ok=True))
        elif tok.kind == "OP" and tok.value == "=~":
            self.i += 1
            predicate = self._match(name, self._operand(regex_ok=True, string_ok=False))
        elif tok.kind == "OP" and tok.value in ("=", "!="):
            if negate:
                raise InsightsQueryError("'not' must be followed by 'like'")
            self.i += 1
            value = self._literal()
            equal = tok.value == "="
            return lambda row: (_text(row.get(name)) == value) is equal
        else:
            raise InsightsQueryError(
                f"unsupported operator {tok.value!r} at offset {tok.pos}; supported: like, not like, =~, =, !="
            )
        return (lambda row: not predicate(row)) if negate else predicate

    def _operand(self, *, regex_ok: bool, string_ok: bool) -> re.Pattern[str] | str:
        tok = self.peek()
        if tok is not None and tok.kind == "REGEX" and regex_ok:
            self.i += 1
            body = tok.value[1:-1]
            try:
                return re.compile(body)
            except re.error as exc:
                raise InsightsQueryError(f"invalid regular expression /{body}/: {exc}") from None
        if tok is not None and tok.kind == "STRING" and string_ok:
            self.i += 1
            return _unquote(tok.value)
        wanted = 'a /regex/ or a "string"' if string_ok else "a /regex/"
        got = f"{tok.value!r} at offset {tok.pos}" if tok else "end of query"
        raise InsightsQueryError(f"expected {wanted}, got {got}")

    def _literal(self) -> str:
        tok = self.peek()
        if tok is not None and tok.kind == "STRING":
            self.i += 1
            return _unquote(tok.value)
        if tok is not None and tok.kind == "NUMBER":
            self.i += 1
            return tok.value
        got = f"{tok.value!r} at offset {tok.pos}" if tok else "end of query"
        raise InsightsQueryError(f'expected a "string" or a number, got {got}')

    @staticmethod
    def _match(name: str, operand: re.Pattern[str] | str) -> Predicate:
        if isinstance(operand, str):
            return lambda row: operand in _text(row.get(name))
        return lambda row: operand.search(_text(row.get(name))) is not None


def _unquote(token: str) -> str:
    return re.sub(r"\\(.)", r"\1", token[1:-1])


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def parse_query(query: str) -> Query:
    return _Parser(query).parse()


# ------------------------------------------------------------------ execution


def execute_query(
    log_groups: list[Any], query: str, start_time: int, end_time: int
) -> list[dict[str, Any]]:
    """Same signature and return shape as `moto.logs.logs_query.execute_query`.

    `start_time`/`end_time` are epoch seconds (0 means unbounded), events are
    moto `LogEvent`s with epoch-millisecond timestamps. Each returned row maps
    field name -> value; `@timestamp` is formatted as Insights does
    ("2026-11-20 10:05:12.000", UTC).
    """
    parsed = parse_query(query)
    rows = list(_rows(log_groups, start_time, end_time))
    rows.sort(key=lambda r: (r["@timestamp"], r["_seq"]), reverse=True)
    for command in parsed.commands:
        if isinstance(command, Filter):
            rows = [r for r in rows if command.predicate(r)]
        elif isinstance(command, Sort):
            rows = _sorted(rows, command)
        elif isinstance(command, Limit):
            rows = rows[: command.n]
        elif isinstance(command, Stats):
            rows = _count(rows, command)
    projection = parsed.projection
    with_ptr = not any(isinstance(c, Stats) for c in parsed.commands)
    out = []
    for row in rows[:MAX_ROWS]:
        result = {
            name: _render(name, row.get(name)) for name in projection if row.get(name) is not None
        }
        if with_ptr and "@ptr" not in result:
            result["@ptr"] = row["@ptr"]
        out.append(result)
    return out


def _rows(log_groups: Iterable[Any], start_time: int, end_time: int) -> Iterable[Row]:
    seq = 0
    for group in log_groups:
        account = getattr(group, "account_id", None)
        log_name = f"{account}:{group.name}" if account else group.name
        for stream in group.streams.values():
            for event in stream.events:
                if start_time and event.timestamp < start_time * 1000:
                    continue
                if end_time and event.timestamp > end_time * 1000:
                    continue
                seq += 1
                yield {
                    "@timestamp": event.timestamp,
                    "@ingestionTime": getattr(event, "ingestion_time", None),
                    "@message": event.message,
                    "@logStream": stream.log_stream_name,
                    "@log": log_name,
                    "@ptr": str(event.event_id),
                    "_seq": seq,
                }


def _sorted(rows: list[Row], command: Sort) -> list[Row]:
    present = [r for r in rows if r.get(command.name) is not None]
    missing = [r for r in rows if r.get(command.name) is None]
    present.sort(key=lambda r: r[command.name], reverse=command.descending)
    return present + missing


def _count(rows: list[Row], command: Stats) -> list[Row]:
    groups: dict[tuple[Any, ...], int] = {}
    for row in rows:
        key = tuple(row.get(name) for name in command.by)
        groups[key] = groups.get(key, 0) + 1
    return [
        {**dict(zip(command.by, key, strict=True)), command.alias: n} for key, n in groups.items()
    ]


def _render(name: str, value: Any) -> Any:
    if name in _TIME_FIELDS and isinstance(value, int):
        stamp = datetime.fromtimestamp(value / 1000, tz=UTC)
        return stamp.strftime("%Y-%m-%d %H:%M:%S.") + f"{value % 1000:03d}"
    return value


# ------------------------------------------------------------------ install


def _moto_execute_query(
    log_groups: list[Any], query: str, start_time: int, end_time: int
) -> list[dict[str, Any]]:
    from moto.logs.exceptions import LogsClientError

    try:
        return execute_query(log_groups, query, start_time, end_time)
    except InsightsQueryError as exc:
        raise LogsClientError(
            "MalformedQueryException", f"{exc} (local Logs Insights engine)"
        ) from exc


def install() -> None:
    """Replace moto's Logs Insights engine with this one; safe to call repeatedly."""
    import moto.logs.models

    if moto.logs.models.execute_query is not _moto_execute_query:
        moto.logs.models.execute_query = _moto_execute_query


def uninstall() -> None:
    """Restore moto's own engine."""
    import moto.logs.logs_query
    import moto.logs.models

    moto.logs.models.execute_query = moto.logs.logs_query.execute_query


def installed() -> bool:
    import moto.logs.models

    return moto.logs.models.execute_query is _moto_execute_query
