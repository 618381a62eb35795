"""Graph node CaseMemory (fallback route L3): see superbiz.graph.nodes.case_memory."""

from superbiz.init_phase import init_phase

with init_phase():
    from superbiz.graph.nodes.case_memory import case_memory
    from superbiz.handlers import graph_node

    lambda_handler = graph_node(case_memory)
