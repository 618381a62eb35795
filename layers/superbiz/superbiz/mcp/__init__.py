"""Tools from external MCP servers, offered to the Executor beside the built-in ones.

A server's tools are listed once at run start (`toolset.offer_tools`), filtered by
the allowlist (`config.allowed`), recorded in the run's trace, and offered under a
namespaced name (`mcp__<server>__<tool>`). A call then runs the same path as every
tool (`tools.runner.execute`): recorded before any model sees it, redacted,
budgeted, timed out, and citable only at its declared observation paths, the
result's content (docs/architecture.md, "Evidence tools").
"""
