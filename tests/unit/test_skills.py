"""The skills library: SKILL.md parsing, progressive disclosure, and the read_skill tool."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from superbiz import skills
from superbiz.aws import AwsClients
from superbiz.errors import ToolInputInvalid
from superbiz.settings import Settings
from superbiz.skills import SkillError, SkillLibrary, SkillMeta, parse_skill
from superbiz.tools.base import ToolContext
from superbiz.tools.registry import TOOLS
from superbiz.tools.skills import ReadSkillInput, ReadSkillTool

REQUIRED = {
    "general-rules",
    "5xx-spike",
    "latency-regression",
    "by-error-code",
    "by-stack-trace",
    "lambda-errors",
    "database-and-cache-dependencies",
    "deploy-regression",
    "quick-check",
}


def write_skill(root: Path, name: str, front_matter: str, body: str = "# Steps\n1. do") -> Path:
    path = root / name / "SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_text(f"---\n{front_matter}\n---\n{body}\n", encoding="utf-8")
    return path


def front(name: str, tier: str, categories: str = "[]", triggers: str = "[]") -> str:
    return (
        f"name: {name}\ndescription: A skill used by the tests here.\ntier: {tier}\n"
        f"fault_categories: {categories}\ntriggers: {triggers}"
    )


@pytest.fixture
def library(tmp_path: Path) -> SkillLibrary:
    write_skill(tmp_path, "rules", front("rules", "general"))
    write_skill(tmp_path, "five-xx", front("five-xx", "domain", "[http_5xx]"))
    write_skill(tmp_path, "slow", front("slow", "domain", "[latency, timeout]"))
    write_skill(
        tmp_path,
        "db",
        front("db", "expert", "[http_5xx]", "['^db_pool_exhaustion$', 'HikariPool']"),
    )
    write_skill(tmp_path, "lambda", front("lambda", "expert", "[]", "['Task timed out after']"))
    return SkillLibrary.load(tmp_path)


def names(metas: list[SkillMeta]) -> list[str]:
    return [m.name for m in metas]


# -- parsing and validation


def test_front_matter_and_body_are_parsed(tmp_path: Path) -> None:
    # Given a well-formed SKILL.md
    path = write_skill(
        tmp_path, "db", front("db", "expert", "[http_5xx]", "['^db_pool']"), "# DB\n1. step"
    )
    # When it is parsed
    skill = parse_skill(path)
    # Then metadata and body are separated
    assert (skill.name, skill.tier, skill.fault_categories, skill.triggers) == (
        "db",
        "expert",
        ["http_5xx"],
        ["^db_pool"],
    )
    assert skill.body == "# DB\n1. step"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("# no front matter at all\n", "no front matter"),
        ("---\nname: [unclosed\n---\nbody\n", "invalid YAML"),
        ("---\n- a list\n---\nbody\n", "must be a YAML mapping"),
        ("---\n" + front("bad", "wizard") + "\n---\nbody\n", "tier"),
        ("---\n" + front("bad", "domain") + "\n---\nbody\n", "needs fault_categories"),
        ("---\n" + front("bad", "expert", "[]", "['(']") + "\n---\nbody\n", "not a valid regular"),
        ("---\n" + front("bad", "general") + "\nextra: 1\n---\nbody\n", "extra"),
        ("---\n" + front("other", "general") + "\n---\nbody\n", "does not match its folder"),
        ("---\n" + front("bad", "general") + "\n---\n\n", "no body"),
    ],
)
def test_bad_skill_file_is_an_error_naming_the_file(tmp_path: Path, text: str, problem: str):
    # Given a SKILL.md with a defect
    path = tmp_path / "bad" / "SKILL.md"
    path.parent.mkdir()
    path.write_text(text, encoding="utf-8")
    # When the library loads, Then the error names the file and the problem
    with pytest.raises(SkillError) as caught:
        SkillLibrary.load(tmp_path)
    assert str(path) in str(caught.value)
    assert problem in str(caught.value)


# -- progressive disclosure


def test_general_skills_always_apply(library: SkillLibrary) -> None:
    assert names(library.select("something-new", [])) == ["rules"]


def test_domain_skills_join_by_fault_category(library: SkillLibrary) -> None:
    assert names(library.select("http_5xx", [])) == ["rules", "five-xx"]
    assert names(library.select("Timeout", [])) == ["rules", "slow"]


def test_expert_skills_join_only_when_a_signature_triggers_them(library: SkillLibrary) -> None:
    # Given the category whose domain skill exists, but no detected signature
    assert "db" not in names(library.select("http_5xx", ["http_5xx"]))
    # When the analyzers detect pool exhaustion, Then the expert skill is offered too
    assert names(library.select("http_5xx", ["db_pool_exhaustion"])) == ["rules", "five-xx", "db"]
    # And a trigger over log text works the same way
    assert "lambda" in names(library.select("general", ["Task timed out after 3.00 seconds"]))
    # And triggers anchor on the whole name, so a longer name does not match
    assert "db" not in names(library.select("general", ["db_pool_exhaustion_v2"]))


def test_metadata_carries_no_body(library: SkillLibrary) -> None:
    for meta in library.metadata() + library.select("http_5xx", ["db_pool_exhaustion"]):
        assert type(meta) is SkillMeta
        assert "body" not in meta.model_dump()
    assert library.read("db").body


# -- the bundled skills


def test_bundled_skills_load_and_cover_the_playbooks() -> None:
    bundled = {m.name: m for m in skills.list_skills()}
    assert set(bundled) >= REQUIRED
    assert bundled["general-rules"].tier == "general"
    # every first plan for a 5xx question sees the rules and the 5xx playbook
    first_plan = names(skills.select("http_5xx", []))
    assert first_plan[0] == "general-rules" and "5xx-spike" in first_plan
    assert "database-and-cache-dependencies" in names(
        skills.select("http_5xx", ["db_pool_exhaustion"])
    )
    assert "lambda-errors" in names(skills.select("timeout", ["Task timed out after 6.01 seconds"]))


def test_bundled_workflows_call_only_registered_tools() -> None:
    # A step names a tool and its params as `tool` {...}; a typo would send the
    # Executor to a tool that does not exist.
    for meta in skills.list_skills():
        body = skills.read(meta.name).body
        called = set(re.findall(r"`([a-z_]+)` \{", body))
        assert called <= set(TOOLS), (meta.name, called - set(TOOLS))
        if meta.name != "general-rules":
            assert called, f"{meta.name} names no tool call"


# -- read_skill


def tool_ctx() -> ToolContext:
    return ToolContext(
        run_id="r1",
        now=datetime(2026, 11, 20, 10, 20, tzinfo=UTC),
        clients=AwsClients(),
        settings=Settings(),
    )


def test_read_skill_returns_the_body_as_citable_evidence() -> None:
    result = ReadSkillTool().run(ReadSkillInput(name="deploy-regression"), tool_ctx())
    assert result.output["name"] == "deploy-regression"
    assert result.output["tier"] == "domain"
    assert "recent_changes" in result.output["body"]
    assert result.evidence_refs == ["$.body"]
    assert not result.empty


def test_read_skill_of_an_unknown_name_lists_the_known_skills() -> None:
    with pytest.raises(ToolInputInvalid) as caught:
        ReadSkillTool().run(ReadSkillInput(name="disk-full"), tool_ctx())
    assert "disk-full" in str(caught.value)
    assert "deploy-regression" in str(caught.value) and "general-rules" in str(caught.value)
