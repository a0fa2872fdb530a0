"""The command line's time estimate against the real time, and its longest silence.

A stratified sample of ``--n-docs`` BBC News articles (from the scikit-learn data home,
``SCIKIT_LEARN_DATA`` or ``--data-home``; nothing is downloaded) is written to a folder,
one ``.txt`` file per article. Two runs, each a fresh process, as a user starts them:

- ``cluster``: ``python -m sklearn_shufdiv cluster FOLDER`` with the device's defaults
  (training, epoch selection, the automatic number of clusters) and ``--extra``;
- ``demo``: ``python -m sklearn_shufdiv demo --n-docs N`` on the same articles (the same
  stratified draw) with ``--extra``.

Every write to stderr and stdout is timestamped (a progress bar's updates included). For
each run the script prints the estimate the run printed (training, embedding, total)
against the real time from that line to the run's last output, the real time of the
training bar (its first update to its last), their ratios, and the longest stretch
without any output between the two (the child's output is unbuffered). Usage::

    python benchmarks/bench_cli_estimate.py --n-docs 40
    python benchmarks/bench_cli_estimate.py --n-docs 40 --extra="--max-length 64"
"""

import argparse
import json
import os
import re
import selectors
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from lab.corpora import write_folder

REPO_ROOT = Path(__file__).resolve().parents[1]
ESTIMATE = re.compile(r"estimated time: about (?P<total>[^(]+?) on \S+ \((?:training "
                      r"(?P<training>[^,]+), embedding (?P<embedding>[^)]+?)|embedding)"
                      r"(?: in \d+ passes of the encoder)?\)")
TRAINING_BAR = re.compile(r"epoch 1/\d+:.*\|\s*(?P<n>\d+)/(?P<total>\d+) views")


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n-docs", type=int, default=40, help="articles (default: 40)")
    parser.add_argument("--extra", default="",
                        help="further options for both runs, e.g. '--max-length 64'")
    parser.add_argument("--runs", nargs="+", default=["cluster", "demo"],
                        choices=("cluster", "demo"), help="which runs (default: both)")
    parser.add_argument("--data-home", help="scikit-learn data home (default: its own)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the sample (default: 0)")
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "benchmarks" / "results"
                        / "cli_estimate.json",
                        help="JSON results (default: results/cli_estimate.json)")
    return parser.parse_args(argv)


def timed_output(command):
    """Run ``command``; return its output as ``(seconds since start, segment)`` pairs (a
    segment ends at a newline or a carriage return, as a progress bar's update does) and
    the seconds until it exited."""
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env={**os.environ, "PYTHONUNBUFFERED": "1"})
    selector = selectors.DefaultSelector()
    for stream in (child.stdout, child.stderr):
        selector.register(stream, selectors.EVENT_READ)
    segments, open_streams = [], 2
    while open_streams:
        for key, _ in selector.select():
            chunk = os.read(key.fileobj.fileno(), 65536)
            now = time.perf_counter() - start
            if not chunk:
                selector.unregister(key.fileobj)
                open_streams -= 1
                continue
            for part in re.split(r"[\r\n]+", chunk.decode("utf-8", "replace")):
                if part.strip():
                    segments.append((now, part))
    child.wait()
    if child.returncode != 0:
        sys.exit(f"{command}: failed ({child.returncode}):\n"
                 + "\n".join(text for _, text in segments[-20:]))
    return segments, time.perf_counter() - start


def seconds_of(text):
    """"40 s", "12 min", "1 h 20 min" in seconds (None: no text)."""
    if text is None:
        return None
    hours = re.search(r"(\d+) h", text)
    minutes = re.search(r"(\d+) min", text)
    seconds = re.search(r"(\d+) s\b", text)
    return sum(int(m.group(1)) * unit for m, unit in
               ((hours, 3600), (minutes, 60), (seconds, 1)) if m)


def measure(segments, end):
    """Estimated and real seconds, and the longest silence, from a run's output."""
    estimated = next(((t, ESTIMATE.search(text)) for t, text in segments
                      if ESTIMATE.search(text)), None)
    if estimated is None:
        sys.exit("the run printed no estimate")
    t0, match = estimated
    bar = [(t, m) for t, text in segments for m in [TRAINING_BAR.search(text)] if m]
    training = None
    if bar:
        done = next(t for t, m in bar if m.group("n") == m.group("total"))
        training = done - bar[0][0]
    times = [t for t, _ in segments if t >= t0]
    gaps = np.diff(times)
    longest = int(np.argmax(gaps)) if len(gaps) else 0
    after = [text for t, text in segments if t >= t0]
    return {
        "estimated": {"total": seconds_of(match.group("total")),
                      "training": seconds_of(match.group("training")),
                      "embedding": seconds_of(match.group("embedding"))},
        "real": {"total": times[-1] - t0, "training": training},
        "exit_after_last_output": end - times[-1],
        "longest_silence": float(gaps[longest]) if len(gaps) else 0.0,
        "silence_after": after[longest][:100] if after else "",
    }


def ratio(real, estimated):
    return None if not real or not estimated else real / estimated


def main(argv=None):
    args = parse_args(argv)
    results = {}
    env_data = [] if args.data_home is None else ["--data-home", args.data_home]
    with tempfile.TemporaryDirectory(prefix="bench-cli-estimate-") as tmp:
        folder = Path(tmp) / "bbc"
        n_docs = write_folder(folder, args.n_docs, args.seed, args.data_home)
        commands = {
            "cluster": [sys.executable, "-m", "sklearn_shufdiv", "cluster", str(folder),
                        "-o", str(Path(tmp) / "clusters.csv"), "--seed", str(args.seed)],
            "demo": [sys.executable, "-m", "sklearn_shufdiv", "demo", "--corpus", "bbc",
                     "--n-docs", str(n_docs), "--no-download", "--seed", str(args.seed),
                     *env_data],
        }
        print(f"{n_docs} BBC articles; extra options: {args.extra or 'none'}", flush=True)
        for name in args.runs:
            segments, end = timed_output(commands[name] + shlex.split(args.extra))
            result = measure(segments, end)
            results[name] = result
            est, real = result["estimated"], result["real"]
            print(f"{name}: estimated {est['total']} s (training {est['training']} s), "
                  f"real {real['total']:.1f} s from the estimate to the last output: ratio "
                  f"{ratio(real['total'], est['total']) or float('nan'):.2f}", flush=True)
            if real["training"] is not None:
                print(f"  training bar {real['training']:.1f} s against {est['training']} s "
                      f"estimated: ratio {ratio(real['training'], est['training']) or 0:.2f}")
            print(f"  longest stretch without output: {result['longest_silence']:.1f} s, "
                  f"after {result['silence_after']!r}", flush=True)
    out = {"n_docs": n_docs, "extra": args.extra, "cpus": os.cpu_count(),
           "load_average": list(os.getloadavg()), "runs": results}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=2) + "\n")
    print(f"written to {args.out}")


if __name__ == "__main__":
    main()
