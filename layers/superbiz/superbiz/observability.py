"""The one place Logger, Tracer and Metrics are created (house style)."""

from __future__ import annotations

from aws_lambda_powertools import Logger, Metrics, Tracer

SERVICE = "superbiz"

logger = Logger(service=SERVICE)
tracer = Tracer(service=SERVICE)
metrics = Metrics(namespace="SuperBizAgent", service=SERVICE)
