"""Domain errors. Their class names are the error names that the state
machine's `Retry` and `Catch` match (a Lambda's errorType is the class name)."""

from __future__ import annotations


class SuperBizError(Exception):
    """Base of every error the library raises on purpose."""


class ModelError(SuperBizError):
    """A chat model failed."""


class ModelRateLimited(ModelError):
    """The model endpoint rate-limited the call; transient, retried once."""


class ModelTimeout(ModelError):
    """The model endpoint did not answer in time; transient, retried once."""


class ModelOutputInvalid(ModelError):
    """The model's output did not validate against its contract; retried once."""


class ModelRefused(ModelError):
    """The model refused to answer; not retried."""


class StoreError(SuperBizError):
    """The run store failed."""


class StoreThrottled(StoreError):
    """DynamoDB throttled a request; transient, retried by the state machine."""


class RunNotFound(StoreError):
    """No run with that id."""


class ToolError(SuperBizError):
    """A tool could not produce a result."""


class ToolInputInvalid(ToolError):
    """The parameters a model passed to a tool did not validate."""


class ToolUnavailable(ToolError):
    """The AWS source behind a tool failed. Where known, `code` is the error code the
    service answered with (`AccessDeniedException`) and `action` the IAM action of the
    call that failed (`logs:StartQuery`), so nobody reads them back out of the message."""

    def __init__(self, message: str, *, code: str | None = None, action: str | None = None):
        super().__init__(message)
        self.code = code
        self.action = action


class UnknownTool(ToolError):
    """The model asked for a tool that does not exist."""


class InvestigationStarting(SuperBizError):
    """An alarm joined an investigation whose opening delivery has not started it yet; the
    alarm's delivery fails so that it is delivered again."""


class FollowUpNotStarted(SuperBizError):
    """Finalize answered the run, but the follow-up run for alarms that joined it after
    its last plan could not start; Finalize fails so that the state machine retries it
    (the retry only starts the follow-up)."""


class ScenarioError(SuperBizError):
    """A scenario (world) file is invalid; the message names the file and the key."""


class GraphError(SuperBizError):
    """A node was reached in a state it cannot handle."""
