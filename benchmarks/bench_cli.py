"""The whole command line on a folder of BBC articles: ``--inference-dtype float32``
(before) against the default (after), wall time and peak memory, interleaved.

A stratified sample of ``--n-docs`` BBC News articles (from the scikit-learn data home,
``SCIKIT_LEARN_DATA`` or ``--data-home``; nothing is downloaded) is written to a folder, one
``.txt`` file per article; ``python -m sklearn_shufdiv cluster FOLDER -k 5`` runs on it
with the device's defaults and ``--method`` (default: ``frozen``), once with
``--inference-dtype float32`` and once without the option, alternating which goes first,
``--runs`` times each. Each run is a fresh process: its wall time, its peak RSS
(``ru_maxrss`` of that child, from ``os.wait4``), the precision its report says it used,
its ACC and AMI against the folders, and the load average before it. The medians'
ratios (before / after) are printed and written to ``--out``. Usage::

    python benchmarks/bench_cli.py --n-docs 700 --runs 2
    python benchmarks/bench_cli.py --method shuffle-divide --extra="--max-length 64"
"""

import argparse
import json
import os
import platform
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from lab.corpora import write_folder

REPO_ROOT = Path(__file__).resolve().parents[1]
SETTINGS = {"before": ["--inference-dtype", "float32"], "after": []}


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n-docs", type=int, default=700, help="articles (default: 700)")
    parser.add_argument("--runs", type=int, default=2,
                        help="runs of each setting, interleaved (default: 2)")
    parser.add_argument("--method", default="frozen",
                        choices=("frozen", "shuffle-divide", "tfidf"),
                        help="the command line's --method (default: frozen)")
    parser.add_argument("--extra", default="",
                        help="further options for both settings, e.g. '--max-length 64'")
    parser.add_argument("--data-home", help="scikit-learn data home (default: its own)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the sample (default: 0)")
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "benchmarks" / "results"
                        / "cli.json", help="JSON results (default: results/cli.json)")
    return parser.parse_args(argv)


def run_once(folder, work, name, args):
    """One command-line run in a fresh process: seconds, peak RSS and its report."""
    report = work / f"{name}.json"
    command = [sys.executable, "-m", "sklearn_shufdiv", "cluster", str(folder), "-k", "5",
               "-o", str(work / f"{name}.csv"), "--report", str(report), "--overwrite",
               "--label-from-folder", "--method", args.method, *SETTINGS[name],
               *shlex.split(args.extra)]
    load = os.getloadavg()
    with open(work / f"{name}.log", "w") as log:
        start = time.perf_counter()
        child = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        sys.exit(f"{name}: the command line failed ({child.returncode}); see "
                 f"{work / (name + '.log')}:\n{(work / (name + '.log')).read_text()[-2000:]}")
    result = json.loads(report.read_text())
    return {"seconds": seconds, "peak_rss_mib": usage.ru_maxrss / 1024,
            "inference_dtype_used": result["settings"]["inference_dtype_used"],
            "acc": result["acc"], "ami": result["ami"], "load_before": list(load),
            "load_after": list(os.getloadavg())}


def main(argv=None):
    args = parse_args(argv)
    runs = {name: [] for name in SETTINGS}
    with tempfile.TemporaryDirectory(prefix="bench-cli-") as tmp:
        folder, work = Path(tmp) / "bbc", Path(tmp)
        n_docs = write_folder(folder, args.n_docs, args.seed, args.data_home)
        print(f"{n_docs} BBC articles in {folder}; --method {args.method} {args.extra}",
              flush=True)
        for round_ in range(args.runs):
            order = list(SETTINGS) if round_ % 2 == 0 else list(SETTINGS)[::-1]
            for name in order:
                outcome = run_once(folder, work, name, args)
                runs[name].append(outcome)
                print(f"  round {round_ + 1} {name:6} ({outcome['inference_dtype_used']}): "
                      f"{outcome['seconds']:.1f} s, peak RSS {outcome['peak_rss_mib']:.0f} "
                      f"MiB, ACC {outcome['acc']:.4f} AMI {outcome['ami']:.4f}, load "
                      f"{outcome['load_before'][0]:.1f} -> {outcome['load_after'][0]:.1f}",
                      flush=True)
    median = {name: {key: float(np.median([r[key] for r in rows]))
                     for key in ("seconds", "peak_rss_mib")} for name, rows in runs.items()}
    ratios = {"wall_time_before_over_after": median["before"]["seconds"]
              / median["after"]["seconds"],
              "peak_rss_after_over_before": median["after"]["peak_rss_mib"]
              / median["before"]["peak_rss_mib"]}
    print(f"median wall time: before {median['before']['seconds']:.1f} s, after "
          f"{median['after']['seconds']:.1f} s: {ratios['wall_time_before_over_after']:.2f}x "
          "faster")
    print(f"median peak RSS: before {median['before']['peak_rss_mib']:.0f} MiB, after "
          f"{median['after']['peak_rss_mib']:.0f} MiB: "
          f"{ratios['peak_rss_after_over_before']:.2f}x")
    result = {"n_docs": n_docs, "method": args.method, "extra": args.extra,
              "runs": runs, "median": median, "ratios": ratios,
              "environment": {"python": platform.python_version(), "cpus": os.cpu_count(),
                              "machine": platform.processor() or platform.machine()}}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"written to {args.out}")


if __name__ == "__main__":
    main()
