#!/usr/bin/env python3
"""Inputs for the checker's byte-identical reference check (BENCHMARKS.md, checker throughput).

  checker_ref_inputs.py sets  TEST_DATA_DIR            > sets.jsonl   # every labelled set, one file
  checker_ref_inputs.py scramble CORPUS.jsonl SETS.jsonl > scr.jsonl   # 10,000 scrambled dialogues

`sets`: the labelled and held-out sets concatenated, with the action labels the model does not
know dropped (a few sets carry `relay_message` and the like), so `checker-eval --corpus-jsonl`
reads every line. `scramble`: owners, callers and turns swapped between dialogues (seeded,
deterministic), to reach code the clean corpus does not.
"""
import glob
import json
import os
import random
import sys

ACTIONS = {"respond", "convey_preset", "defer_preset", "suspend_preset", "hold_preset",
           "relay_to_owner", "refuse_decision", "decline_private", "close"}


def sets(root):
    for f in sorted(glob.glob(os.path.join(root, "*", "*.jsonl"))):
        for line in open(f, encoding="utf-8"):
            if not line.strip():
                continue
            d = json.loads(line)
            for t in d["turns"]:
                if "action" in t and t["action"] not in ACTIONS:
                    del t["action"]
            print(json.dumps(d, ensure_ascii=False))


def scramble(files):
    random.seed(14)
    pool = [json.loads(l) for f in files for l in open(f, encoding="utf-8") if l.strip()]
    callers = [t for d in pool for t in d["turns"] if t["speaker"] == "caller"]
    assistants = [t for d in pool for t in d["turns"] if t["speaker"] == "assistant"]
    copy = lambda x: json.loads(json.dumps(x))
    for i in range(10000):
        d = copy(random.choice(pool))
        d["id"] = f"scr-{i:05d}"
        for k in ("labels", "findings", "expected"):
            d.pop(k, None)
        if random.random() < 0.6:
            d["owner"] = copy(random.choice(pool)["owner"])
        if random.random() < 0.3:
            d["caller"] = copy(random.choice(pool)["caller"])
        turns = []
        for t in d["turns"]:
            if random.random() < 0.35:
                t = copy(random.choice(callers if t["speaker"] == "caller" else assistants))
            turns.append(t)
        if random.random() < 0.15 and len(turns) > 2:
            j = random.randrange(len(turns) - 1)
            turns[j], turns[j + 1] = turns[j + 1], turns[j]
        d["turns"] = turns
        print(json.dumps(d, ensure_ascii=False))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "sets":
        sets(sys.argv[2])
    elif len(sys.argv) >= 3 and sys.argv[1] == "scramble":
        scramble(sys.argv[2:])
    else:
        sys.exit(__doc__)
