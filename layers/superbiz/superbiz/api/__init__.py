"""The REST API (API Gateway + Powertools)."""
