"""Skills: investigation playbooks in `prompts/skills/<name>/SKILL.md` (docs/architecture.md, "Models and prompts").

Each file is YAML front matter (what the Planner sees) and a Markdown body (the workflow
the Executor reads with `read_skill`). Disclosure is progressive: `general` skills always
apply, `domain` skills join when the fault category is theirs, and `expert` skills only
once a detected signature (analyzer name or log text) matches one of their triggers.
"""

import re
from functools import lru_cache
from pathlib import Path
from typing import Literal, Self

from pydantic import ConfigDict, Field, ValidationError, field_validator, model_validator

from superbiz.errors import SuperBizError
from superbiz.prompts import prompts_dir
from superbiz.schema import Schema

SKILL_FILE = "SKILL.md"
_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)(.*)\Z", re.DOTALL)
_NAME = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"

Tier = Literal["general", "domain", "expert"]


class SkillError(SuperBizError):
    """A SKILL.md file is missing or invalid; the message names the file."""


class SkillMeta(Schema):
    """Front matter only: what the Planner is shown."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=_NAME, max_length=64)
    description: str = Field(min_length=10, max_length=500)
    tier: Tier
    fault_categories: list[str] = Field(default_factory=list)
    triggers: list[str] = Field(default_factory=list)

    @field_validator("triggers")
    @classmethod
    def _regexes(cls, triggers: list[str]) -> list[str]:
        for trigger in triggers:
            try:
                re.compile(trigger)
            except re.error as exc:
                raise ValueError(
                    f"trigger {trigger!r} is not a valid regular expression: {exc}"
                ) from None
        return triggers

    @model_validator(mode="after")
    def _selectable(self) -> Self:
        if self.tier == "domain" and not self.fault_categories:
            raise ValueError("a domain skill needs fault_categories: it is selected by them")
        if self.tier == "expert" and not self.triggers:
            raise ValueError("an expert skill needs triggers: it is selected by them")
        return self

    def triggered_by(self, signatures: list[str]) -> bool:
        """Case-sensitive search (a trigger opts out with `(?i)`); `^`/`$` anchor each line,
        so one trigger serves both analyzer signature names and log text."""
        return any(
            re.search(trigger, signature, re.MULTILINE)
            for trigger in self.triggers
            for signature in signatures
        )


class UnknownSkill(SuperBizError):
    """No skill by that name; the message lists the known ones."""


class Skill(SkillMeta):
    body: str


class SkillLibrary:
    """The skills of one folder, loaded and validated up front."""

    def __init__(self, skills: list[Skill]) -> None:
        self._skills = {s.name: s for s in sorted(skills, key=lambda s: s.name)}

    @classmethod
    def load(cls, directory: Path) -> Self:
        if not directory.is_dir():
            raise SkillError(f"{directory}: skills folder not found")
        return cls([parse_skill(path) for path in sorted(directory.glob(f"*/{SKILL_FILE}"))])

    def names(self) -> list[str]:
        return list(self._skills)

    def metadata(self) -> list[SkillMeta]:
        return [_meta(s) for s in self._skills.values()]

    def select(self, fault_category: str, signatures: list[str]) -> list[SkillMeta]:
        category = fault_category.strip().lower()
        chosen = [
            s
            for s in self._skills.values()
            if s.tier == "general"
            or (s.tier == "domain" and category in (c.lower() for c in s.fault_categories))
            or (s.tier == "expert" and s.triggered_by(signatures))
        ]
        order = {"general": 0, "domain": 1, "expert": 2}
        return [_meta(s) for s in sorted(chosen, key=lambda s: (order[s.tier], s.name))]

    def read(self, name: str) -> Skill:
        try:
            return self._skills[name]
        except KeyError:
            raise UnknownSkill(
                f"unknown skill {name!r}; known skills: {', '.join(self._skills)}"
            ) from None


def parse_skill(path: Path) -> Skill:
    """One SKILL.md; every problem is a `SkillError` naming the file."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SkillError(f"{path}: cannot read skill file: {exc}") from exc
    match = _FRONT_MATTER.match(text)
    if match is None:
        raise SkillError(
            f"{path}: no front matter; a skill starts with '---', YAML (name, description, "
            "tier, fault_categories, triggers), then '---' and the Markdown body"
        )
    import yaml  # reason: PyYAML loads where a skill is read, not in every Lambda

    try:
        data = yaml.safe_load(match.group(1))
    except yaml.YAMLError as exc:
        raise SkillError(f"{path}: invalid YAML front matter: {exc}") from exc
    if not isinstance(data, dict):
        raise SkillError(f"{path}: front matter must be a YAML mapping")
    try:
        meta = SkillMeta.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or '<root>'}: {e['msg']}"
            for e in exc.errors(include_url=False)
        )
        raise SkillError(f"{path}: invalid front matter: {problems}") from None
    if meta.name != path.parent.name:
        raise SkillError(
            f"{path}: name {meta.name!r} does not match its folder {path.parent.name!r}"
        )
    body = match.group(2).strip()
    if not body:
        raise SkillError(f"{path}: the skill has front matter but no body")
    return Skill(**meta.model_dump(), body=body)


def _meta(skill: Skill) -> SkillMeta:
    return SkillMeta.model_validate(skill.model_dump(exclude={"body"}))


def skills_dir() -> Path:
    try:
        return prompts_dir() / "skills"
    except FileNotFoundError as exc:
        raise SkillError(str(exc)) from exc


@lru_cache(maxsize=1)
def library() -> SkillLibrary:
    """The bundled skills, loaded once per process."""
    return SkillLibrary.load(skills_dir())


_accepted: list[Skill] = []


def use_accepted(accepted: list[Skill]) -> None:
    """Skills people accepted from mined proposals (`superbiz.evolution`), disclosed like
    bundled ones from now on in this process; a bundled skill of the same name wins."""
    _accepted[:] = accepted


def _current() -> SkillLibrary:
    bundled = library()
    if not _accepted:
        return bundled
    names = set(bundled.names())
    return SkillLibrary(
        [*(bundled.read(n) for n in names), *(s for s in _accepted if s.name not in names)]
    )


def list_skills() -> list[SkillMeta]:
    return _current().metadata()


def select(fault_category: str, signatures: list[str]) -> list[SkillMeta]:
    """The skills that apply: general always, domain by category, expert by signature.

    `signatures` are the analyzers' detected signature names (e.g. `db_pool_exhaustion`),
    optionally with exemplar log lines; an expert skill joins when a trigger matches one.
    """
    return _current().select(fault_category, signatures)


def read(name: str) -> Skill:
    return _current().read(name)
