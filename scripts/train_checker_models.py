#!/usr/bin/env python3
"""Trains the quality checker's learned turn classifiers, or measures them blind.

Word rules plateau on new writing for the kinds every writer words anew (BENCHMARKS.md, "Blind
measurements"): a commitment made for the owner (`safety.decision`) or a body the assistant does
not have (`safety.embodiment`). Beside the rules, the checker runs a logistic regression on
character bigrams of each assistant turn and of the caller turn before it (the latter
weighted by CALLER_SCALE), each block TF-IDF weighted (sublinear tf, smooth idf) and
L2-normalised — scikit-learn's `TfidfVectorizer`, replicated exactly by
`crates/quality-checker/src/learned.rs`. Training is two-stage: a model on every n-gram seen
twice picks the FEATURES n-grams with the largest weights, and the shipped model is refitted on
those alone, so a model file is a few thousand lines a person can read.

Training data: every labelled set under crates/quality-checker/test_data except the frozen ones
(test_data/FROZEN.sha256, test-only) and those whose README still waits for its one blind
measurement (they are kept unseen). A turn is positive when
its dialogue's `expected` names the kind at that turn; every other assistant turn is negative.
Besides, SIMULATED distinct (assistant turn, caller turn) pairs of the offline backend's
dialogues that pass the rules are negatives: without them the model, having seen no closing like
the phrasebook's `行，那就先这样，再见啦`, took `那就` for a decision and rejected 3% of the
offline corpus. They are generated here (seed 11, not the default seed the pass rate is measured
on) with the release binary, so run from a built checkout.

    pip install scikit-learn
    python3 scripts/train_checker_models.py            # writes crates/quality-checker/models/*.tsv
                                                       # and the Rust fidelity fixture
    python3 scripts/train_checker_models.py --loso     # leave-one-set-out: each set scored by a
                                                       # model that never saw it

Not part of the build or the tests: the model files are committed; the tests check that the
Rust inference gives the probabilities written here (tests/data/learned_reference.jsonl).
"""
import argparse
import glob
import json
import os
import random
import subprocess
import tempfile

import numpy as np
from scipy.sparse import hstack
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression

HERE = os.path.dirname(os.path.abspath(__file__))
CRATE = os.path.join(HERE, "..", "crates", "quality-checker")
ROOT = os.path.join(CRATE, "test_data")
MODELS = os.path.join(CRATE, "models")
REFERENCE = os.path.join(CRATE, "tests", "data", "learned_reference.jsonl")

# Per kind: the probability at or above which a turn is reported. Chosen on the
# leave-one-set-out figures (`--loso`), for precision: a false finding throws a good dialogue away.
# A finding between the threshold and CERTAIN (default: halfway to 1) is uncertain (reported,
# not rejecting; src/learned.rs), so the threshold sets recall and CERTAIN the clean dialogues
# rejected. `preset.dropped` joined on 2026-12-05: leave one set out over heldout55-84 it found
# 153 of 155 labelled turns and no clean dialogue at 0.5. Tried then and left out:
# `preset.conflict`, `preset.repeat` and `natural.over_refusal` measured as well leave-one-set-out
# (0.89-0.99 recall, few clean dialogues) but failed 18 of the hand-written cases in
# tests/cases: they had learned the writers' wording (`这个我做不了主` for an over-refusal, any
# `还是按她交代的` for a pushed preset), not the situation.
THRESHOLDS = {"safety.decision": 0.5, "safety.embodiment": 0.6, "preset.dropped": 0.5}
CERTAIN = {}

# Character n-gram lengths per block. Bigrams only: single characters and trigrams cost the
# checker most (a lookup each per character, most of them hits) and, measured leave-one-set-out,
# added nothing (decision: 1-3-grams 0.842 recall at 0.857 precision, bigrams 0.883 at 0.858).
ASSISTANT_NGRAMS = (2, 2)
CALLER_NGRAMS = (2, 2)
FEATURES = 5000
C = 4.0
CALLER_SCALE = 0.5
SIMULATED = 3000
SIM_SEED = 11
SIM_COUNT = 5000


def ngrams(text, lengths):
    """Character n-grams over Unicode code points (Rust: `chars()`), no normalisation."""
    lo, hi = lengths
    out = []
    for n in range(lo, hi + 1):
        out.extend(text[i:i + n] for i in range(len(text) - n + 1))
    return out


def assistant_ngrams(text):
    return ngrams(text, ASSISTANT_NGRAMS)


def caller_ngrams(text):
    return ngrams(text, CALLER_NGRAMS)


def frozen():
    """The frozen held-out sets (test_data/FROZEN.sha256): test-only, never trained on."""
    names = set()
    for line in open(os.path.join(ROOT, "FROZEN.sha256"), encoding="utf-8"):
        if line.strip() and not line.startswith("#"):
            names.add(line.split("  ", 1)[1].split("/", 1)[0])
    return names


def measured(folder):
    """A set still waiting for its one blind measurement is not looked at (its README says so),
    nor one without a README yet (still being written), nor a frozen set."""
    readme = os.path.join(folder, "README.md")
    return (os.path.basename(folder) not in frozen()
            and os.path.exists(readme)
            and "(to be filled in by the maintainer)" not in open(readme, encoding="utf-8").read())


def load(folder, kind):
    """(dialogue id, turn, assistant text, caller text before, positive, dialogue is clean)."""
    rows = []
    for path in sorted(glob.glob(os.path.join(folder, "*.jsonl"))):
        for line in open(path, encoding="utf-8"):
            d = json.loads(line)
            pos = {e["turn"] for e in d["expected"] if e["kind"] == kind}
            for i, t in enumerate(d["turns"]):
                if t["speaker"] != "assistant":
                    continue
                prev = d["turns"][i - 1]["text"] if i > 0 else ""
                rows.append((d["id"], i, t["text"], prev, int(i in pos), not d["expected"]))
    return rows


def simulated(path=None):
    """Negatives from the offline backend: dialogues kept by the rules alone."""
    if path is None:
        with tempfile.TemporaryDirectory(prefix="callbench-sim-") as tmp:
            return simulated(generate(tmp))
    pairs = set()
    for line in open(path, encoding="utf-8"):
        d = json.loads(line)
        for i, t in enumerate(d["turns"]):
            if t["speaker"] == "assistant" and i > 0:
                pairs.add((t["text"], d["turns"][i - 1]["text"]))
    pairs = sorted(pairs)
    random.Random(3).shuffle(pairs)
    return [("simulated", 1, a, c, 0, False) for a, c in pairs[:SIMULATED]]


def generate(tmp):
    """An offline corpus (seed SIM_SEED) checked by the rules alone, exported as JSONL."""
    config = os.path.join(tmp, "config.toml")
    with open(config, "w") as f:
        f.write("[check.detectors]\nlearned = false\n[sample]\nafter_generate = false\n")
    repo = os.path.join(HERE, "..")
    run = ["cargo", "run", "--release", "-q", "-p", "callbench", "--"]
    quiet = dict(cwd=repo, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    subprocess.run(run + ["generate", "--config", config, "--out", os.path.join(tmp, "c"),
                          "--count", str(SIM_COUNT), "--seed", str(SIM_SEED)], **quiet)
    subprocess.run(run + ["export", "--corpus", os.path.join(tmp, "c"), "--format", "jsonl",
                          "--out", os.path.join(tmp, "e")], **quiet)
    return os.path.join(tmp, "e", "dialogues.jsonl")


class Model:
    def __init__(self, va, vc, clf):
        self.va, self.vc, self.clf = va, vc, clf

    def features(self, rows):
        return hstack([self.va.transform([r[2] for r in rows]),
                       self.vc.transform([r[3] for r in rows]) * CALLER_SCALE]).tocsr()

    def proba(self, rows):
        return self.clf.predict_proba(self.features(rows))[:, 1]


def fit_once(train, va_vocab=None, vc_vocab=None):
    kw = dict(sublinear_tf=True, min_df=2, lowercase=False)
    va = TfidfVectorizer(analyzer=assistant_ngrams, vocabulary=va_vocab, **kw)
    vc = TfidfVectorizer(analyzer=caller_ngrams, vocabulary=vc_vocab, **kw)
    x = hstack([va.fit_transform([r[2] for r in train]),
                vc.fit_transform([r[3] for r in train]) * CALLER_SCALE]).tocsr()
    clf = LogisticRegression(C=C, class_weight="balanced", max_iter=5000)
    clf.fit(x, [r[4] for r in train])
    return Model(va, vc, clf)


def fit(train):
    """Two stages: keep the FEATURES n-grams weighing most, refit on them alone."""
    first = fit_once(train)
    w = first.clf.coef_[0]
    na = len(first.va.vocabulary_)
    inv_a = {i: g for g, i in first.va.vocabulary_.items()}
    inv_c = {i: g for g, i in first.vc.vocabulary_.items()}
    keep = np.argsort(-np.abs(w), kind="stable")[:FEATURES]
    va_vocab = sorted(inv_a[i] for i in keep if i < na)
    vc_vocab = sorted(inv_c[i - na] for i in keep if i >= na)
    return fit_once(train, va_vocab, vc_vocab)


# Sets named with --unseen: kept out whatever their README says (a set a writer is still
# finishing may already have a README).
UNSEEN = set()


def sets():
    return sorted(os.path.basename(p) for p in glob.glob(os.path.join(ROOT, "*"))
                  if os.path.isdir(p) and measured(p) and os.path.basename(p) not in UNSEEN)


def loso(kind, sim):
    names = sets()
    data = {s: load(os.path.join(ROOT, s), kind) for s in names}
    th = THRESHOLDS[kind]
    certain = CERTAIN.get(kind, (th + 1) / 2)
    tot = np.zeros(5, dtype=int)
    print(f"{kind}: leave one set out, threshold {th}, certain {certain}")
    for test in names:
        train = [r for s in names if s != test for r in data[s]] + sim
        held = data[test]
        p = fit(train).proba(held)
        y = np.array([r[4] for r in held])
        pred = p >= th
        tp = int((pred & (y == 1)).sum())
        fp = int((pred & (y == 0)).sum())
        fn = int((~pred & (y == 1)).sum())
        # A clean dialogue is rejected by a certain finding (see CERTAIN), only reported below.
        hit = len({r[0] for r, q in zip(held, p) if q >= certain and r[5]})
        nclean = len({r[0] for r in held if r[5]})
        tot += (tp, fp, fn, hit, nclean)
        print(f"  {test:10} recall {tp / max(tp + fn, 1):.2f} ({tp}/{tp + fn})  wrong turns {fp}  "
              f"clean dialogues rejected {hit}/{nclean}")
    tp, fp, fn, hit, nclean = tot
    print(f"  pooled: recall {tp / (tp + fn):.3f}, precision {tp / max(tp + fp, 1):.3f}, "
          f"clean dialogues rejected {hit}/{nclean} ({hit / nclean:.1%})")


def write_model(kind, model, names, n_rows, n_pos, n_sim):
    os.makedirs(MODELS, exist_ok=True)
    w = model.clf.coef_[0]
    na = len(model.va.vocabulary_)
    path = os.path.join(MODELS, f"{kind}.tsv")
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("# CallBench quality checker: a learned turn classifier (logistic regression on\n"
                "# character n-grams). Generated by scripts/train_checker_models.py; do not edit.\n"
                f"# Trained on {', '.join(names)}: {n_rows} assistant turns, {n_pos} positive;\n"
                f"# and {n_sim} turns of the offline backend (seed {SIM_SEED}), negative.\n"
                "# Lines: block (a: the assistant turn, c: the caller turn before it),\n"
                "# n-gram (JSON string), idf, weight.\n")
        f.write(f"kind\t{kind}\n")
        f.write(f"intercept\t{float(model.clf.intercept_[0]):.9g}\n")
        f.write(f"threshold\t{THRESHOLDS[kind]}\n")
        f.write(f"certain\t{CERTAIN.get(kind, (THRESHOLDS[kind] + 1) / 2)}\n")
        f.write(f"caller_scale\t{CALLER_SCALE}\n")
        f.write("assistant_ngrams\t%d\t%d\n" % ASSISTANT_NGRAMS)
        f.write("caller_ngrams\t%d\t%d\n" % CALLER_NGRAMS)
        for block, vec, off in (("a", model.va, 0), ("c", model.vc, na)):
            for gram, i in sorted(vec.vocabulary_.items()):
                f.write(f"{block}\t{json.dumps(gram, ensure_ascii=False)}\t"
                        f"{float(vec.idf_[i]):.7g}\t{float(w[off + i]):.7g}\n")
    return path


def train(kinds, sim):
    names = sets()
    reference = []
    for kind in kinds:
        rows = [r for s in names for r in load(os.path.join(ROOT, s), kind)]
        model = fit(rows + sim)
        n_pos = sum(r[4] for r in rows)
        path = write_model(kind, model, names, len(rows), n_pos, len(sim))
        print(f"{kind}: {len(rows)} turns, {n_pos} positive -> {os.path.relpath(path)}")
        # The fixture for the Rust side: every positive, a sample of negatives, and texts with
        # whitespace, Latin letters and astral characters.
        rng = random.Random(7)
        picked = [r for r in rows if r[4]] + rng.sample([r for r in rows if not r[4]], 150)
        extra = [("", "", ""), ("好的", "", ""), ("我 帮您\t定 了", "明天  行吗\n", ""),
                 ("OK，我帮您确认一下🙂", "可以吗😀", "")]
        texts = [(r[2], r[3]) for r in picked] + [(a, c) for a, c, _ in extra]
        fake = [("", 0, a, c, 0, False) for a, c in texts]
        for (a, c), p in zip(texts, model.proba(fake)):
            reference.append({"kind": kind, "assistant": a, "caller": c,
                              "probability": float(p)})
    os.makedirs(os.path.dirname(REFERENCE), exist_ok=True)
    with open(REFERENCE, "w", encoding="utf-8", newline="\n") as f:
        for r in reference:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(f"reference probabilities: {len(reference)} -> {os.path.relpath(REFERENCE)}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--loso", action="store_true",
                    help="leave-one-set-out measurement instead of training")
    ap.add_argument("--simulated", metavar="JSONL",
                    help="an exported offline corpus to take negatives from (default: generate one)")
    ap.add_argument("--unseen", metavar="SET", action="append", default=[],
                    help="a set to keep out (repeatable): one still being written or measured")
    ap.add_argument("kinds", nargs="*", default=sorted(THRESHOLDS))
    args = ap.parse_args()
    UNSEEN.update(args.unseen)
    for k in args.kinds:
        if k not in THRESHOLDS:
            ap.error(f"no threshold for kind {k!r} (known: {', '.join(sorted(THRESHOLDS))})")
    sim = simulated(args.simulated)
    if args.loso:
        for k in args.kinds:
            loso(k, sim)
    else:
        train(args.kinds, sim)


if __name__ == "__main__":
    main()
