"""The import measurement of `make bench`: its figures are read in calibration units, so a
ratio does not follow the speed a small VM happens to run one process at."""

from __future__ import annotations

import subprocess
import sys

import pytest

from superbiz_workbench.bench import _PROBE, Samples


def test_a_ratio_cancels_the_speed_each_process_ran_at() -> None:
    # Given a bare import of 100 ms at full speed, sampled in processes that ran at two
    # thirds and at half of it, and a handler 1.6x as costly, sampled mostly at full speed
    # (the calibration unit, 10 ms at full speed, slows alike)
    bare = Samples([150.0, 200.0, 200.0], [15.0, 20.0, 20.0])
    handler = Samples([160.0, 160.0, 240.0], [10.0, 10.0, 15.0])
    # Then the ratio is the handler's cost, whatever speed each sample ran at
    assert handler.over(bare) == pytest.approx(1.6)
    # while the raw medians (160 ms against 200 ms) would have called it 0.8x
    assert handler.median_ms / bare.median_ms == pytest.approx(0.8)


def test_the_probe_reports_the_import_and_its_calibration_unit() -> None:
    # When the probe imports a module in a fresh interpreter
    done = subprocess.run(
        [sys.executable, "-c", _PROBE.format(load="import json", heavy=("json",), plumbing=())],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    import_ms, unit_ms, heavy, tools, has_yaml = done.stdout.split()
    # Then it gives the import's CPU time, the unit's, and what the import loaded
    assert float(import_ms) >= 0 and float(unit_ms) > 0
    assert (heavy, tools, has_yaml) == ("json", "-", "False")
