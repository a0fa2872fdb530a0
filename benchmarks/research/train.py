"""Research trainer (scratch): S&D fine-tuning with cluster-aware objectives.

Saves, per epoch (0 = untuned), the whole-document (windowed) embeddings of the sample, the
10 k-means runs' labels and objectives, the train loss. Labels of the corpus are NOT used
anywhere here except stored for scoring by other scripts.

python train.py --corpus bbc --n-docs 1000 --seed 0 --epochs 2 --name plain
"""
import argparse
import json
import time

import numpy as np
import torch
import torch.nn.functional as F
from scipy.optimize import linear_sum_assignment
from sklearn.preprocessing import normalize

from common import CACHE, embed_windows, load, lsa, model_path
from sklearn_shufdiv import SphericalKMeans
from sklearn_shufdiv.embedders._batching import graph_prefix, padded_groups, tokenize
from sklearn_shufdiv.embedders._encoder import load_encoder
from sklearn_shufdiv.embedders._gradcache import cached_backward
from sklearn_shufdiv.embedders._positives import ShuffleDivide, content_keys

OUT = CACHE.parent / "runs"
OUT.mkdir(exist_ok=True)


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--corpus", default="bbc")
    p.add_argument("--n-docs", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--name", required=True)
    p.add_argument("--lr", type=float, default=3e-5)
    p.add_argument("--tau", type=float, default=0.2)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--view-len", type=int, default=128)
    p.add_argument("--eval-len", type=int, default=128)
    p.add_argument("--mini", type=int, default=16)
    # pseudo-labels
    p.add_argument("--pseudo", default="none",
                   help="none | neural | fused | agree | lsa")
    p.add_argument("--k-mult", type=float, default=1.0, help="pseudo clusters = k * this")
    p.add_argument("--fuse-w", type=float, default=0.5, help="LSA weight in the fused space")
    p.add_argument("--mask", default="none", help="none | hard | supcon")
    p.add_argument("--proto", type=float, default=0.0, help="weight of the prototype term")
    p.add_argument("--proto-tau", type=float, default=0.1)
    p.add_argument("--freeze-layers", type=int, default=0)
    p.add_argument("--warmup", type=float, default=0.0, help="fraction of steps, then linear decay")
    p.add_argument("--fixed-pseudo", action="store_true", help="pseudo-labels from epoch 0 only")
    p.add_argument("--threads", type=int, default=1)
    return p.parse_args()


def kmeans_runs(X, k, seed, n_init=10):
    """Labels and objectives of n_init single k-means runs; best first is chosen by caller."""
    rs = np.random.RandomState(seed)
    runs, inertias = [], []
    for _ in range(n_init):
        km = SphericalKMeans(k, n_init=1, random_state=rs.randint(2**31 - 1)).fit(X)
        runs.append(km.labels_.astype(np.int16))
        inertias.append(km.inertia_)
    return np.array(runs), np.array(inertias)


def match(ref, other, k):
    """Relabel ``other`` to agree most with ``ref`` (Hungarian)."""
    C = np.zeros((k, k))
    np.add.at(C, (ref, other), 1)
    r, c = linear_sum_assignment(-C)
    m = np.empty(k, dtype=int)
    m[c] = r
    return m[other]


def pseudo_labels(args, E, Z, k, seed):
    """Pseudo-labels (-1 = none) and centroids in the neural space from embeddings E."""
    if args.pseudo == "none":
        return None, None
    kp = max(2, int(round(k * args.k_mult)))
    U = normalize(E)
    if args.pseudo == "neural":
        space = U
    elif args.pseudo == "lsa":
        space = Z
    elif args.pseudo in ("fused", "agree"):
        w = args.fuse_w
        space = np.hstack([U * np.sqrt(1 - w), Z * np.sqrt(w)]) if args.pseudo == "fused" else U
    lab = SphericalKMeans(kp, n_init=10, random_state=seed).fit_predict(space)
    if args.pseudo == "agree":
        lab_l = SphericalKMeans(kp, n_init=10, random_state=seed).fit_predict(Z)
        lab_l = match(lab, lab_l, kp)
        lab = np.where(lab == lab_l, lab, -1)
    cent = np.zeros((kp, U.shape[1]))
    for c in range(kp):
        if (lab == c).any():
            cent[c] = U[lab == c].mean(0)
    return lab, normalize(cent)


def objective(views, doc, keys, args, pl, cent):
    n = views.shape[0]
    z = F.normalize(views.float(), dim=1)
    logits = z @ z.T / args.tau
    idx = torch.arange(n)
    partner = (idx + n // 2) % n
    excluded = idx[:, None] == idx[None, :]
    same_key = (keys[None, :] == keys[:, None]) | (keys[None, :] == keys[partner][:, None])
    excluded |= same_key & (idx[None, :] != partner[:, None])
    pos = torch.zeros_like(excluded)
    pos[idx, partner] = True
    if pl is not None:
        p = torch.as_tensor(pl, dtype=torch.long)[doc]
        same = (p[:, None] == p[None, :]) & (p[:, None] >= 0) & ~excluded & ~pos
        if args.mask == "hard":
            excluded = excluded | same
        elif args.mask == "supcon":
            pos = pos | same
    logits = logits.masked_fill(excluded, float("-inf"))
    logp = logits.log_softmax(dim=1)
    loss = -(logp.masked_fill(~pos, 0).sum(1) / pos.sum(1)).mean()
    if args.proto and pl is not None:
        p = torch.as_tensor(pl, dtype=torch.long)[doc]
        lab = p >= 0
        if lab.any():
            C = torch.as_tensor(cent, dtype=z.dtype)
            lp = (z[lab] @ C.T) / args.proto_tau
            loss = loss + args.proto * F.cross_entropy(lp, p[lab])
    return loss


def main():
    args = parse()
    torch.set_num_threads(args.threads)
    tag = f"{args.corpus}{args.n_docs}_{args.name}_s{args.seed}"
    docs, y = load(args.corpus, args.n_docs)
    k = len(np.unique(y))
    tok, enc = load_encoder(model_path())
    torch.manual_seed(args.seed)
    if args.freeze_layers:
        tr = enc.transformer
        for p_ in tr.embeddings.parameters():
            p_.requires_grad_(False)
        for layer in tr.encoder.layer[: args.freeze_layers]:
            for p_ in layer.parameters():
                p_.requires_grad_(False)
    params = [p_ for p_ in enc.parameters() if p_.requires_grad]
    opt = torch.optim.AdamW(params, lr=args.lr, weight_decay=0.01)
    _, Z = lsa(docs)
    sd = ShuffleDivide(sentence_splitter="punkt-corpus").fit(docs, args.seed)
    keys = torch.as_tensor(content_keys(docs))
    n_pairs = sd.n_pairs
    n_batches = -(-n_pairs // args.batch)
    total_steps = n_batches * args.epochs
    step = 0
    record = {"args": vars(args), "n_pairs": int(n_pairs), "epochs": []}

    def evaluate(epoch, loss, secs):
        t = time.perf_counter()
        frozen = CACHE / f"frozen_{args.corpus}{args.n_docs}_w{args.eval_len}.npy"
        if epoch == 0 and frozen.exists():
            E = np.load(frozen)
        else:
            E = embed_windows(enc, tok, docs, args.eval_len)
            if epoch == 0:
                np.save(frozen, E)
        runs, inert = kmeans_runs(normalize(E), k, args.seed)
        np.savez_compressed(OUT / f"{tag}_e{epoch}.npz", E=E.astype(np.float16), runs=runs,
                            inertias=inert)
        record["epochs"].append({"epoch": epoch, "loss": loss, "train_s": secs,
                                 "eval_s": time.perf_counter() - t})
        (OUT / f"{tag}.json").write_text(json.dumps(record, indent=1))
        return E

    E = evaluate(0, None, 0)
    for epoch in range(1, args.epochs + 1):
        if args.fixed_pseudo and epoch > 1:
            pass
        else:
            pl, cent = pseudo_labels(args, E, Z, k, args.seed + epoch)
        t = time.perf_counter()
        rng = np.random.default_rng([args.seed, epoch])
        pairs = sd.sample(rng)
        chunks = np.array_split(rng.permutation(len(pairs)), n_batches)
        enc.train()
        losses = []
        for chunk in chunks:
            texts = [pairs.texts_a[i] for i in chunk] + [pairs.texts_b[i] for i in chunk]
            doc = torch.as_tensor(np.concatenate([pairs.keys_a[chunk], pairs.keys_b[chunk]]))
            vk = keys[doc]
            ids = tokenize(tok, texts, args.view_len)
            batches, order = padded_groups(ids, args.mini, tok.pad_token_id, "cpu")
            budget = min(len(ids), args.mini) * max(map(len, ids))
            if args.warmup:
                w = max(1, int(args.warmup * total_steps))
                f = (step + 1) / w if step < w else max(0.0, (total_steps - step) / max(1, total_steps - w))
                for g in opt.param_groups:
                    g["lr"] = args.lr * f
            opt.zero_grad()
            loss = cached_backward(enc, batches, order,
                                   lambda v: objective(v, doc, vk, args, pl, cent),
                                   None, keep=graph_prefix(batches, budget))
            opt.step()
            step += 1
            losses.append(float(loss))
        secs = time.perf_counter() - t
        print(f"{tag} epoch {epoch} loss {np.mean(losses):.4f} {secs:.0f}s", flush=True)
        E = evaluate(epoch, float(np.mean(losses)), secs)


if __name__ == "__main__":
    main()
