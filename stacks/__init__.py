"""CDK app for SuperBizAgent: one stack composed of constructs (see stacks/constructs/)."""
