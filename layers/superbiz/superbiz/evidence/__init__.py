"""What a run's records say beyond single facts: its topology (superbiz.evidence.topology)."""
