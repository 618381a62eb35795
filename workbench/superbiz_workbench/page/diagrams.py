"""Geometry of the two drawings the page makes in SVG (presentation attributes only, so
the page's style policy needs no inline styles): the run's path through the graph, one
box per node it passed in order, and the timeline of its tool calls."""

from __future__ import annotations

import re
from collections import defaultdict

from pydantic import BaseModel

from superbiz.facts.base import instant
from superbiz.records import ToolInvocation

BOX_W, BOX_H, GAP_X, ROW_H, PER_ROW, PAD = 118, 34, 30, 104, 7, 10
MAX_TOOLS_SHOWN = 4
# node -> the CSS class that colours it (what kind of work the node does)
_KINDS = {
    "Planner": "model",
    "Executor": "model",
    "Verifier": "model",
    "Composer": "model",
    "RunTools": "tools",
    "Gatekeeper": "gate",
    "VerifiedInput": "gate",
    "ReviewGate": "review",
    "Fallback": "fallback",
    "Reroute": "fallback",
}
_ROUND = re.compile(r"^r(\d+)c\d+$")


class PathNode(BaseModel):
    n: int
    name: str
    kind: str
    x: int
    y: int
    tools: list[str]
    more_tools: int = 0


class PathEdge(BaseModel):
    d: str


class PathDiagram(BaseModel):
    width: int
    height: int
    box_w: int = BOX_W
    box_h: int = BOX_H
    nodes: list[PathNode]
    edges: list[PathEdge]


def _tools_by_round(invocations: list[ToolInvocation]) -> dict[int, list[str]]:
    rounds: dict[int, list[str]] = defaultdict(list)
    for inv in sorted(invocations, key=lambda i: i.seq):
        match = _ROUND.match(inv.call_id)
        rounds[int(match.group(1)) if match else inv.seq // 100].append(inv.tool_name)
    return rounds


def path_diagram(flow: list[str], invocations: list[ToolInvocation]) -> PathDiagram:
    rounds = _tools_by_round(invocations)
    nodes: list[PathNode] = []
    tool_round = 0
    for n, name in enumerate(flow):
        tools: list[str] = []
        if name == "RunTools":
            tools = rounds.get(tool_round, [])
            tool_round += 1
        col, row = n % PER_ROW, n // PER_ROW
        nodes.append(
            PathNode(
                n=n + 1,
                name=name,
                kind=_KINDS.get(name, "code"),
                x=PAD + col * (BOX_W + GAP_X),
                y=PAD + row * ROW_H,
                tools=tools[:MAX_TOOLS_SHOWN],
                more_tools=max(0, len(tools) - MAX_TOOLS_SHOWN),
            )
        )
    edges: list[PathEdge] = []
    for a, b in zip(nodes, nodes[1:], strict=False):
        mid = a.y + BOX_H // 2
        if b.y == a.y:
            edges.append(PathEdge(d=f"M{a.x + BOX_W},{mid} L{b.x - 2},{mid}"))
        else:  # down the right edge of the row, back along the gap, into the next row
            turn = a.y + ROW_H - 14
            edges.append(
                PathEdge(
                    d=f"M{a.x + BOX_W},{mid} L{a.x + BOX_W + GAP_X // 2},{mid} "
                    f"L{a.x + BOX_W + GAP_X // 2},{turn} L{b.x - GAP_X // 2},{turn} "
                    f"L{b.x - GAP_X // 2},{b.y + BOX_H // 2} L{b.x - 2},{b.y + BOX_H // 2}"
                )
            )
    rows = (len(flow) + PER_ROW - 1) // PER_ROW or 1
    width = PAD * 2 + min(len(flow), PER_ROW) * (BOX_W + GAP_X)
    return PathDiagram(width=max(width, 200), height=PAD + rows * ROW_H, nodes=nodes, edges=edges)


class Bar(BaseModel):
    invocation_id: str
    tool: str
    ok: bool
    start_ms: int
    duration_ms: int
    x: float
    w: float
    y: int


class Timeline(BaseModel):
    width: int
    height: int
    label_w: int
    span_ms: int
    bars: list[Bar]
    ticks: list[tuple[float, str, str]]  # x, label, text-anchor


TIMELINE_W, LABEL_W, BAR_H = 900, 230, 18


def timeline(invocations: list[ToolInvocation]) -> Timeline:
    if not invocations:
        return Timeline(width=TIMELINE_W, height=0, label_w=LABEL_W, span_ms=0, bars=[], ticks=[])
    starts = {i.invocation_id: instant(i.started_at).timestamp() * 1000 for i in invocations}
    t0 = min(starts.values())
    span = max(starts[i.invocation_id] - t0 + i.duration_ms for i in invocations) or 1.0
    scale = (TIMELINE_W - LABEL_W - 20) / span
    bars = []
    for row, inv in enumerate(sorted(invocations, key=lambda i: (starts[i.invocation_id], i.seq))):
        start = starts[inv.invocation_id] - t0
        bars.append(
            Bar(
                invocation_id=inv.invocation_id,
                tool=inv.tool_name,
                ok=inv.success,
                start_ms=round(start),
                duration_ms=inv.duration_ms,
                x=round(LABEL_W + start * scale, 1),
                w=round(max(inv.duration_ms * scale, 2.0), 1),
                y=row * (BAR_H + 6) + 4,
            )
        )
    ticks = [
        (round(LABEL_W + span * f * scale, 1), f"{span * f / 1000:.2f} s", anchor)
        for f, anchor in ((0, "start"), (0.5, "middle"), (1, "end"))
    ]
    return Timeline(
        width=TIMELINE_W,
        height=len(bars) * (BAR_H + 6) + 28,
        label_w=LABEL_W,
        span_ms=round(span),
        bars=bars,
        ticks=ticks,
    )
