"""Two processes (torchrun, gloo, CPU) train exactly as one process on the global batch:
two epochs with the epoch selection on and checkpoints written, as a user runs it."""

import json
import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch
from conftest import SMALL
from safetensors.torch import load_file

from sklearn_shufdiv.embedders import ShuffleDivideEmbedder, load_encoder

# Scored by the untuned silhouette: the default (stability) may skip training where the
# tiny model's clusters are unstable, and these tests compare what training does.
# Embedding in float32: the two fits' weights differ by float32 rounding, which bfloat16
# arithmetic would magnify past the comparison's tolerance.
PARAMS = {**SMALL, "mini_batch_size": 3, "normalize": False, "n_clusters": 4,
          "selection": "untuned-silhouette", "inference_dtype": "float32"}

SCRIPT = textwrap.dedent("""
    import json, sys
    import torch
    import torch.distributed as dist
    from sklearn_shufdiv.embedders import ShuffleDivideEmbedder, load_encoder

    torch.set_num_threads(1)
    dist.init_process_group("gloo")
    model, docs_file, params_file, out, checkpoints = sys.argv[1:6]
    docs = json.load(open(docs_file))
    embedder = ShuffleDivideEmbedder(model, checkpoint_dir=checkpoints,
                                     **json.load(open(params_file))).fit(docs)
    if dist.get_rank() == 0:
        torch.save({"state": embedder.encoder_.state_dict(), "history": embedder.history_,
                    "best_epoch": embedder.best_epoch_,
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


@pytest.mark.parametrize("extra", [{}, {"objective": "prototype"}])
def test_two_processes_equal_one_process_on_the_global_batch(deterministic_bert, corpus,
                                                              tmp_path, extra):
    # With a cluster-aware objective, the pseudo-labels of the views are gathered across
    # processes with them (the prototypes are the same everywhere).
    params = {**PARAMS, **extra}
    docs = corpus[0][:24]  # 3 batches an epoch, 4 pairs each for each process
    (tmp_path / "docs.json").write_text(json.dumps(docs))
    (tmp_path / "params.json").write_text(json.dumps(params))
    (tmp_path / "train.py").write_text(SCRIPT)
    out = tmp_path / "distributed.pt"
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone",
               "--nproc-per-node", "2", str(tmp_path / "train.py"), deterministic_bert,
               str(tmp_path / "docs.json"), str(tmp_path / "params.json"), str(out),
               str(tmp_path / "checkpoints")]
    env = {**os.environ, "OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    distributed = torch.load(out, weights_only=False)
    assert sorted(os.listdir(tmp_path / "checkpoints")) == ["epoch-1", "epoch-2"]

    single = ShuffleDivideEmbedder(deterministic_bert, checkpoint_dir=tmp_path / "single",
                                   **params).fit(docs)
    assert len(distributed["history"]) == len(single.history_) == 3
    for theirs, ours in zip(distributed["history"], single.history_):
        assert theirs["epoch"] == ours["epoch"]
        assert theirs["selection_score"] == pytest.approx(ours["selection_score"], rel=1e-5,
                                                          abs=1e-6)
        if ours["epoch"] > 0:  # epoch 0 is the untuned encoder: no loss
            assert theirs["train_loss"] == pytest.approx(ours["train_loss"], rel=1e-5)
    assert distributed["best_epoch"] == single.best_epoch_
    for name, value in single.encoder_.state_dict().items():  # the selected epoch's
        torch.testing.assert_close(distributed["state"][name], value, rtol=1e-4, atol=1e-6)
    # The last epoch's weights, whichever epoch the selection kept (it may keep the
    # untuned encoder): equal, and trained, so that the comparison is not vacuous.
    _, initial = load_encoder(deterministic_bert)
    theirs = load_file(tmp_path / "checkpoints" / "epoch-2" / "params.safetensors")
    ours = load_file(tmp_path / "single" / "epoch-2" / "params.safetensors")
    assert theirs.keys() == ours.keys() == initial.state_dict().keys()
    moved = 0
    for name, value in ours.items():
        torch.testing.assert_close(theirs[name], value, rtol=1e-4, atol=1e-6)
        moved += not torch.equal(value, initial.state_dict()[name])
    assert moved > 10
    np.testing.assert_allclose(distributed["embeddings"], single.transform(docs), atol=1e-5)
