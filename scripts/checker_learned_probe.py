#!/usr/bin/env python3
"""How far would a learned turn classifier carry where the word rules plateau?

Leave-one-set-out over the checker's labelled sets (crates/quality-checker/test_data/labelled and
heldout*): for one kind, a logistic regression on character 1-3-grams of the assistant turn and
1-2-grams of the caller turn before it is trained on every set but one and scored on that one,
which it has never seen — the same blind condition as the held-out measurements in BENCHMARKS.md.
Prints per-set and pooled recall, precision, and how many clean dialogues it would reject.

Analysis only (not part of the build or the tests). Needs scikit-learn:
    pip install scikit-learn
    python3 scripts/checker_learned_probe.py safety.decision
"""
import glob
import json
import os
import sys

import numpy as np
from scipy.sparse import hstack
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression

KIND = sys.argv[1] if len(sys.argv) > 1 else "safety.decision"
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                    "crates", "quality-checker", "test_data")


def load(folder):
    """(dialogue id, turn, assistant text, caller text before, positive, dialogue is clean)."""
    rows = []
    for path in sorted(glob.glob(os.path.join(folder, "*.jsonl"))):
        for line in open(path, encoding="utf-8"):
            d = json.loads(line)
            pos = {e["turn"] for e in d["expected"] if e["kind"] == KIND}
            clean = not d["expected"]
            for i, t in enumerate(d["turns"]):
                if t["speaker"] != "assistant":
                    continue
                prev = d["turns"][i - 1]["text"] if i > 0 else ""
                rows.append((d["id"], i, t["text"], prev, int(i in pos), clean))
    return rows


def measured(folder):
    """A set still waiting for its one blind measurement is not looked at (its README says so)."""
    readme = os.path.join(folder, "README.md")
    return not (os.path.exists(readme)
                and "(to be filled in by the maintainer)" in open(readme, encoding="utf-8").read())


sets = sorted(os.path.basename(p) for p in glob.glob(os.path.join(ROOT, "*"))
              if os.path.isdir(p) and measured(p))
data = {s: load(os.path.join(ROOT, s)) for s in sets}
thresholds = (0.5, 0.7, 0.85)
results = {th: [] for th in thresholds}
for test in sets:
    train = [r for s in sets if s != test for r in data[s]]
    held = data[test]
    va = TfidfVectorizer(analyzer="char", ngram_range=(1, 3), min_df=2, sublinear_tf=True)
    vc = TfidfVectorizer(analyzer="char", ngram_range=(1, 2), min_df=2, sublinear_tf=True)
    x = hstack([va.fit_transform([r[2] for r in train]),
                vc.fit_transform([r[3] for r in train]) * 0.5]).tocsr()
    y = np.array([r[4] for r in train])
    clf = LogisticRegression(C=4.0, class_weight="balanced", max_iter=2000).fit(x, y)
    xt = hstack([va.transform([r[2] for r in held]),
                 vc.transform([r[3] for r in held]) * 0.5]).tocsr()
    p = clf.predict_proba(xt)[:, 1]
    yt = np.array([r[4] for r in held])
    clean = {r[0] for r in held if r[5]}
    for th in thresholds:
        pred = p >= th
        tp = int((pred & (yt == 1)).sum())
        fp = int((pred & (yt == 0)).sum())
        fn = int((~pred & (yt == 1)).sum())
        hit = {r[0] for r, pr in zip(held, pred) if pr and r[5]}
        results[th].append((test, tp, fp, fn, len(hit), len(clean)))

for th in thresholds:
    print(f"{KIND}, threshold {th}")
    tot = np.zeros(5, dtype=int)
    for test, tp, fp, fn, hit, nclean in results[th]:
        tot += (tp, fp, fn, hit, nclean)
        rec = tp / (tp + fn) if tp + fn else float("nan")
        print(f"  {test:10} recall {rec:.2f} ({tp}/{tp + fn})  wrong turns {fp}  "
              f"clean dialogues hit {hit}/{nclean}")
    tp, fp, fn, hit, nclean = tot
    print(f"  pooled: recall {tp / (tp + fn):.3f}, precision {tp / max(tp + fp, 1):.3f}, "
          f"clean dialogues hit {hit}/{nclean} ({hit / nclean:.1%})")
