"""The gate's rule ids (docs/architecture.md, "Gate rules"). Ids kept from the prose
rule set where the meaning survived: R1-R3 the pointer, R6 untrusted text (never a
reason), R8 what a claim kind may point at, R10 telemetry-only causes."""

RULE_SET_VERSION = "gate-rules/3.3"

SHAPE = "R0_CLAIM_SHAPE"  # a field the claim's kind does not take, or one it needs missing
INVOCATION_NOT_IN_RUN = "R1_INVOCATION_NOT_IN_RUN"
INVOCATION_FAILED = "R2_INVOCATION_FAILED"
FACT_NOT_FOUND = "R3_FACT_NOT_FOUND"
ROW_NOT_IN_FACT = "R3_ROW_NOT_IN_FACT"
UNTRUSTED_INSTRUCTION = "R6_UNTRUSTED_INSTRUCTION"
NOT_AN_OBSERVATION = "R8_NOT_AN_OBSERVATION"
NO_TELEMETRY = "R10_NO_TELEMETRY"
LINK_INVALID = "L1_LINK_INVALID"
CAUSE_AFTER_EFFECT = "L2_CAUSE_AFTER_EFFECT"
CAUSE_TOO_EARLY = "L2_CAUSE_TOO_EARLY"  # a root cause more than a day before its effects
OUTSIDE_WINDOW = "L2_OUTSIDE_WINDOW"  # an effect of another episode than this run's
OFF_TOPOLOGY = "L3_OFF_TOPOLOGY"
TRIGGER_NOT_EXPLAINED = "L4_TRIGGER_NOT_EXPLAINED"
FAMILY_NOT_SHOWN = "L5_FAMILY_NOT_SHOWN"
SECOND_ROOT_CAUSE = "L6_SECOND_ROOT_CAUSE"
TARGET_INVALID = "A1_TARGET_INVALID"
TARGET_NOT_IDENTIFIER = "A1_TARGET_NOT_IDENTIFIER"  # names words or a command, not a resource
SUPPORT_INVALID = "A1_SUPPORT_INVALID"
GAP_INVALID = "G1_GAP_INVALID"
GAP_WHY_WRONG = "G2_GAP_WHY_WRONG"
