"""Every criterion of ``view_criteria.py`` over every corpus it ran on: the ACC / AMI of the
weights it picks (5 seeds), against the better single view of the two (the encoder at
weight 0, LSA at weight 1, same partitions), and whether it is within 0.3 points of it.

    python benchmarks/research/view_criteria_summary.py bbc classic3 ... >> view_criteria.log
"""

import json
import sys
from pathlib import Path

import numpy as np

WORK = Path("/tmp/quality/partitions")


def main(names):
    data = {n: json.loads((WORK / f"{n}_criteria.json").read_text()) for n in names}
    criteria = [k for k in data[names[0]] if k not in ("acc", "ami")]
    print("\n| criterion | " + " | ".join(names) + " | mean ACC gain | fails |")
    print("|---|" + "---|" * (len(names) + 2))
    for crit in criteria:
        cells, gains, fails = [], [], 0
        for n in names:
            d = data[n]
            best_acc, best_ami = max(d["acc"][0], d["acc"][-1]), max(d["ami"][0], d["ami"][-1])
            acc, ami = d[crit][-2:]
            ok = acc >= best_acc - 0.003 and ami >= best_ami - 0.003
            fails += not ok
            gains.append(acc - best_acc)
            picks = d[crit][:-2]
            cells.append(f"{acc:.3f} / {ami:.3f} ({min(picks):.1f}-{max(picks):.1f})"
                         + ("" if ok else " x"))
        print(f"| {crit} | " + " | ".join(cells) + f" | {100 * np.mean(gains):+.1f} | {fails} |")


if __name__ == "__main__":
    main(sys.argv[1:])
