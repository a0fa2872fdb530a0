"""Write ``shuffle_divide.svg``, the method figure of the user guide.

The SVG is committed; this script only exists to edit it. Run it from anywhere with
``python doc/images/make_shuffle_divide_svg.py``. No dependency beyond Python.
"""

import math
import random
from pathlib import Path

W, H = 1080, 610
COLORS = ["#8dd3c7", "#ffed6f", "#bebada", "#fb8072", "#80b1d3", "#fdb462"]


def build():
    out = []
    add = out.append
    add(f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
        f'viewBox="0 0 {W} {H}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" '
        'font-size="13">')
    add("<title>Shuffle &amp; Divide: from documents to clusters</title>")
    add('<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
        'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
        'fill="#444"/></marker></defs>')
    add(f'<rect x="0" y="0" width="{W}" height="{H}" fill="#ffffff"/>')

    def frame(x, y, w, h, title):
        add(f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="8" fill="#fafafa" '
            'stroke="#cccccc"/>')
        add(f'<text x="{x + 12}" y="{y + 22}" font-weight="bold" font-size="14">{title}</text>')

    def text(x, y, body, size=12.5, anchor="start", fill="#222", extra=""):
        add(f'<text x="{x}" y="{y}" font-size="{size}" text-anchor="{anchor}" '
            f'fill="{fill}"{extra}>{body}</text>')

    def arrow(x1, y1, x2, y2, color="#444", width=1.5):
        add(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{color}" '
            f'stroke-width="{width}" marker-end="url(#arrow)"/>')

    def sub(base, index):
        return f'{base}<tspan font-size="9" dy="3">{index}</tspan><tspan dy="-3"></tspan>'

    frame(5, 5, 325, 330, "1. Shuffle &amp; Divide")
    frame(338, 5, 270, 330, "2. One encoder, mean pooling")
    frame(616, 5, 459, 330, "3. NT-Xent with in-batch negatives")
    frame(5, 345, 515, 260, "4. Spherical k-means")
    frame(528, 345, 547, 260, "5. ACC: Hungarian matching")

    # 1. A document's sentences, shuffled, divided into two views.
    text(25, 52, "a document (&#8805; 4 sentences)", 13, fill="#333")
    bar_w, bar_h, gap, y0 = 92, 22, 6, 62
    for i in range(6):
        y = y0 + i * (bar_h + gap)
        add(f'<rect x="25" y="{y}" width="{bar_w}" height="{bar_h}" rx="3" '
            f'fill="{COLORS[i]}" stroke="#666"/>')
        text(25 + bar_w / 2, y + 15, f"sentence {i + 1}", 13, "middle")
    arrow(125, 140, 170, 140)
    text(147, 130, "shuffle", 13, "middle", "#333", ' font-style="italic"')
    for k, i in enumerate([3, 0, 5, 1, 4, 2]):
        y = y0 + k * (bar_h + gap) + (8 if k >= 3 else 0)
        add(f'<rect x="178" y="{y}" width="{bar_w}" height="{bar_h}" rx="3" '
            f'fill="{COLORS[i]}" stroke="#666"/>')
        text(178 + bar_w / 2, y + 15, f"sentence {i + 1}", 13, "middle")
    cut = y0 + 3 * (bar_h + gap) + 1
    add(f'<line x1="172" y1="{cut}" x2="276" y2="{cut}" stroke="#d62728" stroke-width="2" '
        'stroke-dasharray="5 3"/>')
    for label, top, bottom in (("a", y0, y0 + 3 * (bar_h + gap) - gap),
                               ("b", cut + 7, y0 + 6 * (bar_h + gap) - gap + 8)):
        half = (bottom - top) / 2 - 12
        add(f'<path d="M274,{top} q6,0 6,6 v{half} q0,6 6,6 q-6,0 -6,6 v{half} q0,6 -6,6" '
            'fill="none" stroke="#444" stroke-width="1.3"/>')
        text(291, (top + bottom) / 2 + 5, label, 14, extra=' font-weight="bold"')
    text(25, 262, "Shuffle the sentences, cut the list in two:", 13, fill="#333")
    text(25, 280, "halves a and b are two views of one meaning,", 13, fill="#333")
    text(25, 298, "a positive pair. Redrawn every epoch.", 13, fill="#333")
    text(25, 322, "(TF-IDF positives: b = the most similar other doc)", 12, fill="#777")

    # 2. One encoder (shared weights) and mean pooling per view.
    for label, y in (("a", 75), ("b", 185)):
        add(f'<rect x="358" y="{y}" width="130" height="62" rx="6" fill="#e8f0fb" '
            'stroke="#4a78b5"/>')
        text(423, y + 26, "transformer", 13, "middle")
        text(423, y + 44, "BERT, RoBERTa, ...", 11, "middle", "#555")
        arrow(488, y + 31, 528, y + 31)
        text(562, y + 26, "mean", 12, "middle")
        text(562, y + 40, "pool", 12, "middle")
        text(562, y + 62, sub("z", label), 14, "middle", extra=' font-weight="bold"')
    add('<line x1="423" y1="140" x2="423" y2="182" stroke="#4a78b5" stroke-width="1.5" '
        'stroke-dasharray="3 3"/>')
    text(431, 166, "shared weights", 11, fill="#4a78b5")
    text(352, 272, "Each view becomes one vector: the mean", 12, fill="#333")
    text(352, 288, "of the last hidden states over its tokens", 12, fill="#333")
    text(352, 304, "(at most max_length of them).", 12, fill="#333")
    text(352, 324, "Big batches: GradCache, mini_batch_size.", 11.5, fill="#777")

    # 3. The similarity matrix of the 2N views of a batch (N = 3 documents).
    labels = ["a1", "a2", "a3", "b1", "b2", "b3"]
    cell, mx, my = 30, 680, 70
    for r, name in enumerate(labels):
        text(mx - 8, my + r * cell + 20, sub(name[0], name[1]), 13, "end")
        text(mx + r * cell + 15, my - 8, sub(name[0], name[1]), 13, "middle")
        for c in range(6):
            fill = "#d9d9d9" if r == c else "#6cc06c" if (r + 3) % 6 == c else "#f6c6c0"
            add(f'<rect x="{mx + c * cell}" y="{my + r * cell}" width="{cell}" '
                f'height="{cell}" fill="{fill}" stroke="#ffffff" stroke-width="2"/>')
    lx = mx + 6 * cell + 22
    legend = (("#6cc06c", "positive: the other half", "of the same document"),
              ("#f6c6c0", "negative: every other", "view of the batch"),
              ("#d9d9d9", "itself (left out)", ""))
    for k, (fill, first, second) in enumerate(legend):
        y = my + 8 + k * 52
        add(f'<rect x="{lx}" y="{y}" width="16" height="16" fill="{fill}"/>')
        text(lx + 22, y + 12, first, 12.5)
        if second:
            text(lx + 22, y + 28, second, 12.5)
    y = my + 6 * cell + 30
    cosine = "cos(" + sub("z", "i") + ", " + sub("z", "j") + ") / &#964;"
    text(632, y, f"Each cell: {cosine}. Each row is a softmax over 2N &#8722; 1", 12.5)
    text(632, y + 18, "candidates whose target is the positive: a batch of batch_size", 12.5)
    text(632, y + 36, "documents gives each view 2 &#183; batch_size &#8722; 2 negatives.", 12.5)

    # 4. Spherical k-means: points and centroids on the unit circle.
    cx, cy, radius = 135, 478, 92
    add(f'<circle cx="{cx}" cy="{cy}" r="{radius}" fill="none" stroke="#999" '
        'stroke-dasharray="4 3"/>')
    add(f'<circle cx="{cx}" cy="{cy}" r="2.5" fill="#444"/>')
    rng = random.Random(3)
    for angle, color in ((20, "#1f77b4"), (140, "#d62728"), (250, "#2ca02c")):
        for _ in range(7):
            t = math.radians(angle + rng.uniform(-22, 22))
            add(f'<circle cx="{cx + radius * math.cos(t):.1f}" '
                f'cy="{cy - radius * math.sin(t):.1f}" r="4.5" fill="{color}" '
                'fill-opacity="0.8"/>')
        t = math.radians(angle)
        arrow(cx, cy, cx + (radius - 8) * math.cos(t), cy - (radius - 8) * math.sin(t),
              color, 2.5)
    lines = ["Embed every document, then cluster the",
             "embeddings by direction (cosine):",
             "&#8226; assign to the most similar centroid;",
             "&#8226; centroid = mean of its unit rows,",
             "  renormalised to the sphere.",
             "Keep the epoch of best cosine silhouette",
             "of its clusters: no labels needed."]
    for k, line in enumerate(lines):
        text(258, 392 + k * 20 + (12 if k >= 5 else 0), line, 12.5)

    # 5. Contingency table of clusters and classes, with the best matching.
    classes = ["sport", "space", "cooking"]
    table = [[1, 9, 0], [8, 0, 1], [1, 1, 9]]
    matched = {(0, 1), (1, 0), (2, 2)}
    tx, ty, cw, ch = 610, 425, 64, 32
    text(tx + 1.5 * cw, ty - 30, "classes (labels)", 12, "middle", "#555")
    for c, name in enumerate(classes):
        text(tx + c * cw + cw / 2, ty - 10, name, 13, "middle")
    text(tx - 46, ty + 1.5 * ch + 4, "clusters", 12, "middle", "#555",
         f' transform="rotate(-90 {tx - 46} {ty + 1.5 * ch})"')
    for r in range(3):
        text(tx - 10, ty + r * ch + 21, f"k{r}", 13, "end")
        for c in range(3):
            hit = (r, c) in matched
            add(f'<rect x="{tx + c * cw}" y="{ty + r * ch}" width="{cw}" height="{ch}" '
                f'fill="{"#ffd966" if hit else "#ffffff"}" stroke="#999"/>')
            text(tx + c * cw + cw / 2, ty + r * ch + 21, str(table[r][c]), 13, "middle",
                 extra=' font-weight="bold"' if hit else "")
    bx = tx + 3 * cw + 22
    for k, line in enumerate(["Count the documents of each",
                              "(cluster, class); the Hungarian",
                              "algorithm finds the one-to-one",
                              "matching of largest total",
                              "(highlighted): k0 = space,",
                              "k1 = sport, k2 = cooking."]):
        text(bx, ty - 4 + k * 19, line, 12.5)
    text(tx - 60, ty + 3 * ch + 36, "ACC = (9 + 8 + 9) / 30 = 0.87", 14)
    text(tx - 60, ty + 3 * ch + 58, "Labels only evaluate: they never train, nor choose epochs.",
         12, fill="#555")
    add("</svg>")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    target = Path(__file__).with_name("shuffle_divide.svg")
    target.write_text(build(), encoding="utf-8")
    print(f"wrote {target}")
