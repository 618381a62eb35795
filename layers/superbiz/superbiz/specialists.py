"""Specialists: Executor profiles kept as data in `prompts/specialists/<name>/`
(docs/architecture.md, "Specialists and the fallback route").

A profile is `profile.yaml` (fault categories served, signature families that point
to it, skills, few-shot examples, priority) and `system.md` (what the Executor is told
on top of its role prompt). Adding a specialist is adding a folder. Its tools are the
ones whose entry in the spec table (`superbiz.spec.TOOLS`) names it.
The Planner ranks them by fault category and detected signatures; the Executor runs
with the chosen one's tools and prompt and refuses any other tool. `route_only`
profiles (the generic investigator) are never chosen by rank: the fallback route
brings them in.
"""

import hashlib
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Self

from pydantic import ConfigDict, Field, ValidationError

from superbiz import skills, spec
from superbiz.errors import SuperBizError
from superbiz.prompts import Prompt, prompts_dir
from superbiz.schema import Schema

PROFILE_FILE = "profile.yaml"
SYSTEM_FILE = "system.md"
GENERIC = "generic"
_NAME = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"


class SpecialistError(SuperBizError):
    """A specialist profile is missing or invalid; the message names the file and field."""


class Example(Schema):
    model_config = ConfigDict(extra="forbid", frozen=True)

    situation: str = Field(min_length=10, max_length=500)
    approach: str = Field(min_length=10, max_length=2000)


class Profile(Schema):
    """`profile.yaml`, plus the system prompt read from `system.md`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=_NAME, max_length=64)
    description: str = Field(min_length=10, max_length=500)
    fault_categories: list[str] = Field(default_factory=list)
    signature_families: list[str] = Field(default_factory=list)
    priority: int = Field(50, ge=0, le=100)
    route_only: bool = False
    allowed_tools: list[str] = Field(default_factory=list)
    skills: list[str] = Field(default_factory=list)
    examples: list[Example] = Field(min_length=1)
    system: str = ""

    def serves(self, fault_category: str) -> bool:
        category = fault_category.strip().lower()
        return category in (c.lower() for c in self.fault_categories)

    def prompt(self, base: Prompt) -> Prompt:
        """The Executor's role prompt with this specialist's instructions and examples."""
        shots = "\n".join(
            f"- Situation: {e.situation}\n  Approach: {e.approach}" for e in self.examples
        )
        text = (
            f"{base.text.rstrip()}\n\n{self.system.strip()}\n\n"
            f"Examples of how this specialist works:\n{shots}\n\n"
            f"Your tools: {', '.join(self.allowed_tools) or 'none (answer from the evidence recorded)'}. "
            "A call to any other tool is refused.\n"
        )
        digest = hashlib.sha256(text.encode()).hexdigest()[:10]
        return Prompt(role=base.role, text=text, version=f"{base.role}+{self.name}@{digest}")


class Choice(Schema):
    """Which specialist, why, and who comes next if it fails."""

    model_config = ConfigDict(frozen=True)

    specialist: str
    reason: str
    alternates: list[str] = Field(default_factory=list)


class Roster:
    """The specialists of one folder, loaded and validated up front."""

    def __init__(self, profiles: list[Profile]) -> None:
        self._profiles = {p.name: p for p in sorted(profiles, key=lambda p: p.name)}

    @classmethod
    def load(
        cls, directory: Path, *, tools: Mapping[str, Sequence[str]], known_skills: set[str]
    ) -> Self:
        if not directory.is_dir():
            raise SpecialistError(f"{directory}: specialists folder not found")
        profiles = [
            parse_profile(path, tools=tools, known_skills=known_skills)
            for path in sorted(directory.glob(f"*/{PROFILE_FILE}"))
        ]
        if GENERIC not in {p.name for p in profiles}:
            raise SpecialistError(
                f"{directory}: no '{GENERIC}' profile; the fallback route's L2 needs it"
            )
        if not any(not p.route_only for p in profiles):
            raise SpecialistError(f"{directory}: no specialist the Planner can choose")
        return cls(profiles)

    def names(self) -> list[str]:
        return list(self._profiles)

    def get(self, name: str) -> Profile:
        try:
            return self._profiles[name]
        except KeyError:
            raise SpecialistError(
                f"unknown specialist {name!r}; known specialists: {', '.join(self._profiles)}"
            ) from None

    def choosable(self) -> list[Profile]:
        return [p for p in self._profiles.values() if not p.route_only]

    def rank(self, fault_category: str, families: list[str]) -> list[tuple[Profile, str]]:
        """Every choosable specialist, most likely first, with why: a detected
        signature of its family counts most, then the fault category, then priority."""
        scored = []
        for p in self.choosable():
            seen = [f for f in families if f in p.signature_families]
            why = []
            if seen:
                why.append(f"{len(seen)} detected signature(s) of family {seen[0]}")
            if p.serves(fault_category):
                why.append(f"serves fault category {fault_category}")
            score = 3 * len(seen) + (2 if p.serves(fault_category) else 0)
            scored.append((score, p.priority, p, "; ".join(why) or "no match: by priority"))
        scored.sort(key=lambda s: (-s[0], s[1], s[2].name))
        return [(p, why) for _, _, p, why in scored]

    def choose(
        self,
        fault_category: str,
        families: list[str],
        *,
        proposed: str | None = None,
        exclude: tuple[str, ...] = (),
    ) -> Choice:
        """The model's proposal when it names a choosable specialist not excluded, else
        the most likely by rank; the rest of the ranking are the alternates."""
        ranked = [
            (p, why) for p, why in self.rank(fault_category, families) if p.name not in exclude
        ]
        if not ranked:
            raise SpecialistError(f"no specialist left to choose; tried {', '.join(exclude)}")
        names = [p.name for p, _ in ranked]
        if proposed in names:
            reason = f"proposed by the Planner for fault category {fault_category}"
            chosen = proposed
        else:
            chosen, why = ranked[0][0].name, ranked[0][1]
            reason = why if proposed is None else f"{why} (proposed {proposed!r} is not available)"
        return Choice(
            specialist=chosen, reason=reason, alternates=[n for n in names if n != chosen]
        )


def parse_profile(
    path: Path, *, tools: Mapping[str, Sequence[str]], known_skills: set[str]
) -> Profile:
    """One profile folder; every problem is a `SpecialistError` naming the file and field.
    `tools`: each tool and the specialists that may call it (the spec table's)."""
    import yaml  # reason: PyYAML loads where a profile is read, not in every Lambda

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecialistError(f"{path}: cannot read profile: {exc}") from exc
    except yaml.YAMLError as exc:
        raise SpecialistError(f"{path}: invalid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise SpecialistError(f"{path}: a profile must be a YAML mapping")
    system_path = path.parent / SYSTEM_FILE
    try:
        system = system_path.read_text(encoding="utf-8").strip()
    except OSError:
        raise SpecialistError(
            f"{system_path}: missing; a specialist needs its system prompt beside {PROFILE_FILE}"
        ) from None
    if not system:
        raise SpecialistError(f"{system_path}: the system prompt is empty")
    if "allowed_tools" in data:
        raise SpecialistError(
            f"{path}: field allowed_tools: a specialist's tools are not listed in its profile; "
            "each tool's entry in superbiz/spec.py names the specialists that may call it"
        )
    name = data.get("name")
    allowed = [tool for tool, who in tools.items() if name in who]
    try:
        profile = Profile.model_validate({**data, "system": system, "allowed_tools": allowed})
    except ValidationError as exc:
        problems = "; ".join(
            f"field {'.'.join(str(p) for p in e['loc']) or '<root>'}: {e['msg']}"
            for e in exc.errors(include_url=False)
        )
        raise SpecialistError(f"{path}: {problems}") from None
    if profile.name != path.parent.name:
        raise SpecialistError(
            f"{path}: field name: {profile.name!r} does not match its folder {path.parent.name!r}"
        )
    unknown_skills = [s for s in profile.skills if s not in known_skills]
    if unknown_skills:
        raise SpecialistError(
            f"{path}: field skills: unknown skill(s) {', '.join(unknown_skills)}; "
            f"known skills: {', '.join(sorted(known_skills))}"
        )
    if not profile.route_only and not profile.fault_categories:
        raise SpecialistError(
            f"{path}: field fault_categories: empty; the Planner chooses a specialist by them "
            "(set route_only: true for a profile only the fallback route uses)"
        )
    return profile


def specialists_dir() -> Path:
    try:
        return prompts_dir() / "specialists"
    except FileNotFoundError as exc:
        raise SpecialistError(str(exc)) from exc


@lru_cache(maxsize=1)
def roster() -> Roster:
    """The bundled specialists, loaded once per process."""
    return Roster.load(
        specialists_dir(),
        tools={name: t.specialists for name, t in spec.builtin_tools().items()},
        known_skills=set(skills.library().names()),
    )
