"""Suite-wide collection rules.

`make test` runs the suite on every core with pytest-xdist (`--dist loadgroup`). A module
whose tests share an expensive module-scoped fixture (a diagnosis run, the adversarial
suite, a synthesised stack) must run on one worker, or each worker would build the fixture
again: each such module is one group. Tests of a module without shared fixtures (the
scenario pack, most unit tests) are spread over the workers one by one.
"""

from __future__ import annotations

import pytest

SHARED_SCOPES = {"module", "package", "session"}


def _uses_shared_fixture(item: pytest.Item) -> bool:
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return False
    return any(
        definition.scope in SHARED_SCOPES
        for definitions in info.name2fixturedefs.values()
        for definition in definitions
    )


# before xdist's own hook, which reads the groups into the test ids it schedules by
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    shared = {item.module.__name__ for item in items if item.module and _uses_shared_fixture(item)}
    for item in items:
        if item.module and item.module.__name__ in shared:
            item.add_marker(pytest.mark.xdist_group(item.module.__name__))


def pytest_collection_finish(session: pytest.Session) -> None:
    """In a worker, each grouped test's id must carry its group (xdist schedules by it);
    if a pytest/xdist upgrade breaks that, every worker would rebuild the shared fixtures
    (the fault matrix twice over): stop instead of running the suite at twice the cost."""
    if not session.config.getoption("loadgroup", default=False):
        return
    for item in session.items:
        if any(True for _ in item.iter_markers("xdist_group")) and "@" not in item.nodeid:
            raise pytest.UsageError(
                f"pytest-xdist did not apply the group of {item.nodeid}: "
                "check the pytest and pytest-xdist pins in pyproject.toml"
            )
