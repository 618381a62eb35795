"""Alarm trigger: EventBridge "CloudWatch Alarm State Change" to ALARM -> an AIOps run."""

from superbiz.init_phase import init_phase

with init_phase():
    from superbiz.handlers import alarm_trigger

    lambda_handler = alarm_trigger()
