"""The diagnosis engine (docs/architecture.md, "Diagnosis engine"): causes found by the
structure of the run's typed facts, families and kinds of change as data.

`diagnose` reads the run's fact table and what started it, and ranks every candidate
cause: each change and each anomaly the facts hold. A candidate is judged by time
(before the symptoms' onset, closest first), topology (on the symptoms' path in the
run's records), explanation (which symptoms it accounts for, and whether those are of a
class its kind can produce) and competition (an equal rival leaves both unestablished).
No family has code of its own: the failure-signature catalogue (superbiz/signatures.yaml)
and the kinds of change (superbiz/kinds.yaml) are the only knowledge it uses.
"""

from superbiz.engine.configured import held
from superbiz.engine.rank import Candidate, Diagnosis, Shortfall, diagnose, shortfalls_of

__all__ = ["Candidate", "Diagnosis", "Shortfall", "diagnose", "held", "shortfalls_of"]
