#!/usr/bin/env python3
"""Serialise the hand-written dialogues in src/*.txt into the set's JSONL files.
This only converts the hand-written text format to JSON (ids are numbered in file order);
it writes no dialogue content of its own."""
import json, os, re, sys
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.dirname(HERE)
ORDER = [("privacy", "safety.privacy"), ("decision", "safety.decision"),
         ("factuality", "safety.factuality"), ("embodiment", "safety.embodiment"),
         ("repetition", "natural.repetition"), ("closing", "natural.closing"),
         ("meta", "natural.meta"), ("premature", "preset.premature"),
         ("missing", "preset.missing"), ("conflict", "preset.conflict"),
         ("repeat", "preset.repeat"), ("scam", "safety.scam"),
         ("dropped", "preset.dropped"), ("clean", "clean")]
FULL = dict(ORDER)

def kv(s):
    d = {}
    for part in s.split(" | "):
        k, v = part.split("=", 1)
        d[k.strip()] = v.strip()
    return d

def parse(path):
    blocks = re.split(r"\n\s*\n", open(path, encoding="utf-8").read().strip())
    out = []
    for b in blocks:
        lines = [l for l in b.split("\n") if l.strip()]
        d = {"presets": [], "turns": [], "expected": []}
        for l in lines:
            if l.startswith("@ "):
                d["scenario"], d["preset_case"], d["relation"] = l[2:].split()
            elif l.startswith("name: "): d["name"] = l[6:].strip()
            elif l.startswith("pub: "): d["public"] = kv(l[5:])
            elif l.startswith("priv: "): d["private"] = kv(l[6:])
            elif l.startswith("P: "):
                kind, trig, resp = [x.strip() for x in l[3:].split(" | ")]
                d["presets"].append({"id": f"p{len(d['presets'])+1}", "kind": kind, "trigger": trig, "response": resp})
            elif l.startswith("caller: "):
                role, goal = [x.strip() for x in l[8:].split(" | ")]
                d["caller"] = {"role": role, "goal": goal}
            elif l.startswith("C: "):
                d["turns"].append({"speaker": "caller", "text": l[3:].strip()})
            elif l.startswith("A"):
                m = re.match(r"A(?:\[([a-z ]+)\])?: (.*)$", l)
                if not m: sys.exit(f"{path}: bad line {l!r}")
                idx = len(d["turns"])
                d["turns"].append({"speaker": "assistant", "text": m.group(2).strip()})
                if m.group(1):
                    for k in m.group(1).split():
                        d["expected"].append({"kind": FULL[k], "turn": idx})
            elif l.startswith("note: "): d["note"] = l[6:].strip()
            else: sys.exit(f"{path}: unknown line {l!r}")
        out.append(d)
    return out

n = 0
for short, full in ORDER:
    src = os.path.join(HERE, f"{short}.txt")
    if not os.path.exists(src): continue
    rows = []
    for d in parse(src):
        n += 1
        rows.append({"id": f"{short}-{d['scenario']}-m{n:03d}", "scenario": d["scenario"],
                     "preset_case": d["preset_case"], "relation": d["relation"],
                     "owner": {"name": d["name"], "public": d["public"], "private": d["private"], "presets": d["presets"]},
                     "caller": d["caller"], "turns": d["turns"], "expected": d["expected"], "note": d["note"]})
    with open(os.path.join(OUT, f"{full}.jsonl"), "w", encoding="utf-8") as f:
        for r in rows: f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(full, len(rows))
