"""The graph's nodes, one module per node, named as its handler in `functions/`, so each
node's Lambda loads only its own code (docs/architecture.md, "Packages"). Each node takes
the small execution state, reads what it needs from the store by run_id, records what it
did, and returns the state with its routing decision for the state machine's Choice
states. What several nodes share is in superbiz.graph (`common`, `turns`,
`fallback_route`, `degraded`, `route_report`, `case_capture`); no node imports an
entrance's module (`superbiz.trigger`, `superbiz.api`) or another node's.
"""
