"""Alarm trigger: EventBridge "CloudWatch Alarm State Change" to ALARM -> an AIOps run."""

from superbiz.handlers import alarm_trigger

lambda_handler = alarm_trigger()
