"""The workbench: everything that runs, tests and measures the runtime package
`superbiz` on a laptop and ships in no Lambda layer — the `superbiz` CLI, the
embedded local runtime (moto), world loading and seeding, the evaluation,
replay, fault and adversarial suites, the benchmarks, the scripted model and
the demo worlds. It imports the runtime; the runtime never imports it
(docs/architecture.md, "Layout")."""
