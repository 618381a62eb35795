"""Run honest Composer answers through the real graph once and print which ones the
answer check kept.

    .venv/bin/python tests/unseen/composer_honest/run.py [results.json]

Not part of `make test`: each `<scenario>.json` here is the reply an honest, capable
model would give to the Composer prompt of that pack scenario's run
(`<scenario>.context.json`), written without reading the answer check. This runs the
scenario on the local runtime with the offline model for every other node and that reply
for the Composer (its invocation ids moved to this run's), and reports the answer
check's verdict: `kept` (the answer stands) or `replaced` (a sentence was refused and the
answer became the deterministic rendering), with the refused sentences and why. Every
refusal here is a false refusal: the measure of how often the check costs an honest
model its answer."""

import json
import re
import sys
from pathlib import Path

from superbiz.models.offline import OfflineModel
from superbiz_workbench.evaluation import scenario_files
from superbiz_workbench.local.report import run_result
from superbiz_workbench.local.runtime import LocalRuntime
from superbiz_workbench.scripted_model import ScriptedModel
from superbiz_workbench.world import load_scenario

HERE = Path(__file__).resolve().parent
PACK = HERE.parents[1] / "scenarios"
_SUFFIX = re.compile(r"inv_(\d{4})_([0-9a-f]{6})")


def reply_for(answer: dict):
    """The Composer's reply, its invocation ids moved to the run it is given in."""

    def reply(request, fallback):
        text = json.dumps(request.messages)
        found = _SUFFIX.search(text)
        body = json.dumps(answer)
        if found:
            body = _SUFFIX.sub(lambda m: f"inv_{m.group(1)}_{found.group(2)}", body)
        return {"content": json.loads(body)}

    return reply


def main() -> None:
    worlds = {load_scenario(f).id: f for f in scenario_files(PACK)}
    rows = []
    for path in sorted(HERE.glob("*.json")):
        if path.name.endswith(".context.json"):
            continue
        answer = json.loads(path.read_text(encoding="utf-8"))
        scenario = load_scenario(worlds[path.stem])
        model = ScriptedModel({"composer": [reply_for(answer)]}, fallback=OfflineModel())
        with LocalRuntime(scenario, model=model) as runtime:
            result = run_result(runtime, runtime.run_scenario())
        check = result["answer_check"] or {}
        rows.append(
            {
                "scenario": path.stem,
                "kept": check.get("rendered_by") == "composer",
                "refused": check.get("unsupported", []),
            }
        )
        print(f"{'kept    ' if rows[-1]['kept'] else 'REPLACED'} {path.stem}", flush=True)
        for refused in rows[-1]["refused"]:
            print(f"    - {refused['sentence'][:160]!r}\n      {refused['why'][:200]}", flush=True)
    kept = sum(r["kept"] for r in rows)
    print(f"kept {kept}/{len(rows)} honest answers as written")
    if len(sys.argv) > 1:
        Path(sys.argv[1]).write_text(json.dumps(rows, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
