import sys, numpy as np
from common import *
from sklearn.preprocessing import normalize
corpus, var = sys.argv[1], sys.argv[2]
docs, y = load(corpus, 4000 if corpus == "20news" else None)
assert (np.load(CACHE / f"{corpus}_y.npy") == y).all()
k = len(np.unique(y))
X, Z = lsa(docs)
F = normalize(np.load(CACHE / f"{corpus}_frozen_{var}.npy"))
np.save(CACHE / f"{corpus}_lsa.npy", Z)
for name, S in [("tfidf", X), ("lsa", Z), ("frozen", F)] + [
        (f"concat w={w}", np.hstack([F * np.sqrt(1 - w), Z * np.sqrt(w)])) for w in (0.3, 0.5, 0.7)]:
    a, sa, m, sm, _ = kmeans_scores(S, y, k)
    print(f"{corpus} {var} {name:14s} ACC {a:.4f}±{sa:.4f} AMI {m:.4f}±{sm:.4f}", flush=True)
