"""The base of every pydantic model in the runtime.

A model's validator and serializer are built when the model is first used, not
when its module is imported (pydantic's `defer_build`): a Lambda builds those of
the models its invocation touches, not the hundred-odd models of the modules it
imports. Before a SnapStart snapshot, `superbiz.snapstart.prime` builds every
loaded model's validator, so a restored environment pays for none of them.
"""

from pydantic import BaseModel, ConfigDict


class Schema(BaseModel):
    model_config = ConfigDict(defer_build=True)
