"""The frozen encoder's whole-document space concatenated with LSA (issue 11 screening).

Reads the frozen MiniLM-L6 embeddings that ``benchmarks/bench_windows.py quality`` kept
(``benchmarks/results/windows_<corpus>_<space>.npy``, the same documents in the same order)
and rebuilds LSA as that script does; the fused space is
``[sqrt(1 - w) * frozen, sqrt(w) * lsa]`` (both L2-normalised rows, so each row has norm 1
and the cosine is the weighted mean of the two cosines). Spherical k-means, best of 10
runs, 5 seeds. Labels only score.

    python benchmarks/research/fusion.py --corpora bbc,reuters,20news --space windows-128
"""

import argparse
import importlib.util
import json
from pathlib import Path

import numpy as np
from sklearn.preprocessing import normalize

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("bench_windows",
                                              ROOT / "benchmarks" / "bench_windows.py")
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpora", default="bbc,reuters,20news")
    parser.add_argument("--space", default="windows-128")
    parser.add_argument("--weights", default="0.3,0.5,0.7")
    parser.add_argument("--20news-docs", dest="news_docs", type=int, default=4000)
    parser.add_argument("--data-home", default=str(bench.DEFAULT_DATA_HOME))
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    args = parser.parse_args(argv)
    rows = []
    for name in args.corpora.split(","):
        docs, y = bench.load(name, args)
        frozen = normalize(np.load(args.out / f"windows_{name}_{args.space}.npy"))
        lsa = bench.bag_of_words(docs)["lsa"]
        spaces = {"lsa": lsa, f"frozen {args.space}": frozen}
        for w in map(float, args.weights.split(",")):
            spaces[f"fused w={w}"] = np.hstack([frozen * np.sqrt(1 - w), lsa * np.sqrt(w)])
        for method, space in spaces.items():
            r = bench.score(space, y, 5)
            rows.append({"corpus": name, "n_docs": len(docs), "space": method, **r})
            print(f"| {name} ({len(docs)}) | {method} | {r['acc_mean']:.4f} ± {r['acc_std']:.4f}"
                  f" | {r['ami_mean']:.4f} ± {r['ami_std']:.4f} |", flush=True)
    (args.out / "fusion_screening.json").write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
