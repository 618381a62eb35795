"""read_skill: the body of a bundled investigation playbook (prompts/skills/<name>/SKILL.md).

The Planner only sees skill names and descriptions; the Executor reads the workflow of
the one it follows with this tool, so the playbook it acted on is recorded in the trace.
"""

from __future__ import annotations

import contextlib
from typing import ClassVar

from botocore.exceptions import BotoCoreError, ClientError
from pydantic import Field

from superbiz import skills
from superbiz.errors import SuperBizError, ToolInputInvalid, ToolUnavailable
from superbiz.evolution import accepted_skills
from superbiz.observations import EvidenceSource, Observations
from superbiz.tools.base import ToolContext, ToolInput, ToolResult
from superbiz.tools.cases import case_store


class ReadSkillInput(ToolInput):
    name: str = Field(min_length=1, max_length=64, description="skill name, e.g. 5xx-spike")


class ReadSkillTool:
    name: ClassVar[str] = "read_skill"
    description: ClassVar[str] = (
        "Read a diagnosis skill: a step-by-step investigation workflow naming the tools, "
        "parameters and what to do when a step fails. Use the skill chosen in the plan."
    )
    input_model: ClassVar[type[ToolInput]] = ReadSkillInput
    observations: ClassVar[Observations] = Observations(
        EvidenceSource.SKILL,
        (
            "$.body",
            "$.description",
        ),
    )

    def run(self, params: ReadSkillInput, ctx: ToolContext) -> ToolResult:
        _disclose_accepted(ctx)
        try:
            skill = skills.read(params.name.strip())
        except skills.UnknownSkill as exc:
            raise ToolInputInvalid(f"read_skill: {exc}") from exc
        except skills.SkillError as exc:  # a broken bundle is the source failing, not the caller
            raise ToolUnavailable(
                f"read_skill: the skills library cannot be loaded: {exc}"
            ) from exc
        output = {
            "name": skill.name,
            "description": skill.description,
            "tier": skill.tier,
            "body": skill.body,
        }
        return ToolResult(
            output=output,
            evidence_refs=["$.body"],
            preview=f"skill {skill.name} ({skill.tier}): {skill.description}",
        )


def _disclose_accepted(ctx: ToolContext) -> None:
    """Skills people accepted from mined proposals are readable like bundled ones."""
    with contextlib.suppress(SuperBizError, ClientError, BotoCoreError, ValueError):
        skills.use_accepted(accepted_skills(case_store(ctx)))
