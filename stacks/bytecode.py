"""Bytecode for the Lambda runtime's Python, compiled into the layers when they are built.

Lambda's /opt is read-only: a layer that ships only source is compiled at every cold
start, and compiling pydantic, Powertools, the X-Ray SDK and the superbiz package costs
about as much again as importing them (`make bench` prints the figures). Bytecode is
specific to a Python version, so it is compiled by a CPython of the runtime's version:
`$SUPERBIZ_LAMBDA_PYTHON`, else `python3.12` on PATH, else a pyenv-installed 3.12.
Where none is found the layer ships source only, and the build says so.

The files are hash-based and unchecked (PEP 552): Python loads them without comparing
the source's modification time, which the asset zip does not keep, and the same source
gives the same bytes, so a layer's asset hash changes only when its source does.

    python -m stacks.bytecode DIR    # compile DIR's modules for the runtime's Python
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
from pathlib import Path

RUNTIME_VERSION = (3, 12)  # the Lambda runtime's Python (stacks.constructs.functions.RUNTIME)
ENV_VAR = "SUPERBIZ_LAMBDA_PYTHON"


def _version_of(executable: str) -> tuple[int, int] | None:
    try:
        done = subprocess.run(
            [executable, "-c", "import sys; print(*sys.version_info[:2])"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except OSError:
        return None
    if done.returncode != 0:
        return None  # e.g. a pyenv shim for a version that is installed but not selected
    major, minor = done.stdout.split()
    return int(major), int(minor)


def runtime_python() -> str | None:
    """A CPython of the runtime's version, or None."""
    name = "python{}.{}".format(*RUNTIME_VERSION)
    pyenv_root = os.environ.get("PYENV_ROOT", str(Path.home() / ".pyenv"))
    candidates = [
        os.environ.get(ENV_VAR),
        shutil.which(name),
        *sorted(glob.glob(f"{pyenv_root}/versions/{name[6:]}*/bin/{name}"), reverse=True),
    ]
    for candidate in candidates:
        if candidate and _version_of(candidate) == RUNTIME_VERSION:
            return candidate
    return None


def compile_tree(directory: Path) -> bool:
    """Compile every module under `directory` for the runtime's Python, after removing any
    other bytecode there; False (and a note on stderr) where no such interpreter exists."""
    for cache in sorted(directory.rglob("__pycache__"), reverse=True):
        shutil.rmtree(cache)
    python = runtime_python()
    version = "{}.{}".format(*RUNTIME_VERSION)
    if python is None:
        print(
            f"bytecode: no CPython {version} found (set {ENV_VAR}); {directory} ships source "
            "only, which Lambda compiles at every cold start",
            file=sys.stderr,
        )
        return False
    done = subprocess.run(
        [python, "-m", "compileall", "-q", "-j", "0", "--invalidation-mode", "unchecked-hash"]
        + [str(directory)],
    )
    if done.returncode != 0:  # a file that does not compile fails its import as source too
        print(
            f"bytecode: some files under {directory} did not compile (listed above)",
            file=sys.stderr,
        )
    return True


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or not Path(args[0]).is_dir():
        print("usage: python -m stacks.bytecode DIR (an existing directory)", file=sys.stderr)
        return 2
    compiled = compile_tree(Path(args[0]))
    if compiled:
        count = sum(1 for _ in Path(args[0]).rglob("*.pyc"))
        version = "{}.{}".format(*RUNTIME_VERSION)
        print(f"bytecode: {count} modules under {args[0]} compiled for Python {version}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
