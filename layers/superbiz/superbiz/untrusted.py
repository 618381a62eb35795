"""Text in telemetry that addresses the diagnosis agent instead of a human.

Tool output is data, never instructions. Prompts fence it; on top of that,
code recognises instruction-like text so it can never become evidence: the
analyzers skip it and the Gatekeeper rejects any citation of it.
"""

from __future__ import annotations

import re

INSTRUCTION_LIKE = re.compile(
    r"ignore (all |any |the )?(previous|prior|above|earlier) (instructions|prompts|messages|rules)"
    r"|disregard (all |any |the )?(previous|prior|above|earlier)"
    r"|forget (all |your )?(previous )?instructions"
    r"|you are now\b|\bact as (an? )?(ai|assistant|sre agent)"
    r"|(system|developer) (prompt|message)|new instructions?:"
    r"|\b(assistant|system)\s*:\s"
    r"|tell the (user|engineer|on-?call)|report (that )?the root cause"
    r"|the (real |actual )?root cause is"
    r"|<\|im_start\|>|\[/?INST\]|</?(system|instructions?)>",
    re.IGNORECASE,
)


def is_instruction_like(text: str) -> bool:
    return bool(INSTRUCTION_LIKE.search(text))
