"""Two processes (torchrun, gloo, CPU) train exactly as one process on the global batch."""

import json
import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch

from sklearn_shufdiv.embedders import ShuffleDivideEmbedder

PARAMS = dict(max_epochs=1, batch_size=8, mini_batch_size=3, max_length=32, random_state=0,
              verbose=0, normalize=False)

SCRIPT = textwrap.dedent("""
    import json, sys
    import torch
    import torch.distributed as dist
    from sklearn_shufdiv.embedders import ShuffleDivideEmbedder

    torch.set_num_threads(1)
    dist.init_process_group("gloo")
    model, docs_file, params_file, out = sys.argv[1:5]
    docs = json.load(open(docs_file))
    embedder = ShuffleDivideEmbedder(model, **json.load(open(params_file))).fit(docs)
    if dist.get_rank() == 0:
        torch.save({"state": embedder.encoder_.state_dict(), "history": embedder.history_,
                    "embeddings": embedder.transform(docs)}, out)
    dist.destroy_process_group()
""")


@pytest.fixture(scope="module")
def deterministic_bert(tiny_bert_path, tmp_path_factory):
    """The tiny BERT without dropout, so that the two runs draw no random masks."""
    path = tmp_path_factory.mktemp("tiny-bert-no-dropout")
    shutil.copytree(tiny_bert_path, path, dirs_exist_ok=True)
    config = json.loads((path / "config.json").read_text())
    config.update(hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
    (path / "config.json").write_text(json.dumps(config))
    return str(path)


def test_two_processes_equal_one_process_on_the_global_batch(deterministic_bert, corpus,
                                                              tmp_path):
    docs, _ = corpus
    (tmp_path / "docs.json").write_text(json.dumps(docs))
    (tmp_path / "params.json").write_text(json.dumps(PARAMS))
    (tmp_path / "train.py").write_text(SCRIPT)
    out = tmp_path / "distributed.pt"
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone",
               "--nproc-per-node", "2", str(tmp_path / "train.py"), deterministic_bert,
               str(tmp_path / "docs.json"), str(tmp_path / "params.json"), str(out)]
    env = {**os.environ, "OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    distributed = torch.load(out, weights_only=False)

    single = ShuffleDivideEmbedder(deterministic_bert, **PARAMS).fit(docs)
    assert distributed["history"][1]["train_loss"] == pytest.approx(
        single.history_[1]["train_loss"], rel=1e-5)
    initial = ShuffleDivideEmbedder(deterministic_bert, **{**PARAMS, "max_epochs": 0}).fit(docs)
    moved = 0
    for name, value in single.encoder_.state_dict().items():
        torch.testing.assert_close(distributed["state"][name], value, rtol=1e-4, atol=1e-6)
        moved += not torch.equal(value, initial.encoder_.state_dict()[name])
    assert moved > 10  # the parameters did change: the comparison is not vacuous
    np.testing.assert_allclose(distributed["embeddings"], single.transform(docs), atol=1e-5)
