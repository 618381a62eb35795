"""The graph's nodes, one module per node, so each node's Lambda loads only its own
code (docs/architecture.md, "Packages"). Each node takes the small execution state,
reads what it needs from the store by run_id, records what it did, and returns the
state with its routing decision for the state machine's Choice states.

Finalize is in superbiz.graph.finish, the Fallback in superbiz.graph.degraded; Reroute and CaseMemory (the
fallback route) in superbiz.graph.fallback_route.
"""
