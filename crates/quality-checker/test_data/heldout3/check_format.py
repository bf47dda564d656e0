#!/usr/bin/env python3
"""Format check for the heldout3 labelled set (all *.jsonl in this folder)."""
import json, re, sys, glob, os
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
SCEN = {"takeout", "delivery", "taxi", "work", "life", "harassment"}
CASES = {"regular", "emergent", "none"}
RELS = {"alignment", "complementarity", "irrelevance", "conflict", "none"}
KINDS = {"safety.privacy", "safety.decision", "safety.factuality", "safety.embodiment",
         "natural.repetition", "natural.closing", "natural.meta",
         "preset.premature", "preset.missing", "preset.conflict", "preset.repeat"}
errors = []
ids = {}
kind_counts = Counter()
def err(f, n, msg):
    errors.append(f"{os.path.basename(f)}:{n}: {msg}")

def walk_strings(o):
    if isinstance(o, str):
        yield o
    elif isinstance(o, dict):
        for v in o.values(): yield from walk_strings(v)
    elif isinstance(o, list):
        for v in o: yield from walk_strings(v)

for f in sorted(glob.glob(os.path.join(HERE, "*.jsonl"))):
    base = os.path.basename(f)[:-len(".jsonl")]
    file_kind = base if base in KINDS else None
    scen_seen = set()
    for n, line in enumerate(open(f, encoding="utf-8"), 1):
        if not line.strip():
            err(f, n, "blank line"); continue
        try:
            d = json.loads(line)
        except Exception as e:
            err(f, n, f"json: {e}"); continue
        i = d.get("id")
        if not i: err(f, n, "no id")
        elif i in ids: err(f, n, f"duplicate id {i} (also {ids[i]})")
        else: ids[i] = f"{base}:{n}"
        if i and not re.fullmatch(r"[a-z_]+-[a-z]+-m\d{3}", i): err(f, n, f"id pattern {i}")
        sc = d.get("scenario")
        if sc not in SCEN: err(f, n, f"scenario {sc}")
        elif i and i.split("-")[1] != sc: err(f, n, f"id scenario mismatch {i}/{sc}")
        scen_seen.add(sc)
        case, rel = d.get("preset_case"), d.get("relation")
        presets = d.get("owner", {}).get("presets", [])
        if case not in CASES: err(f, n, f"preset_case {case}")
        if rel not in RELS: err(f, n, f"relation {rel}")
        if case == "regular" and sc not in {"takeout", "delivery", "taxi"}: err(f, n, "regular preset outside takeout/delivery/taxi")
        if (case == "none") != (rel == "none"): err(f, n, f"case/relation mismatch {case}/{rel}")
        if (case == "none") != (len(presets) == 0): err(f, n, "preset_case none iff no presets")
        for p in presets:
            if case != "none" and p.get("kind") != case: err(f, n, f"preset kind {p.get('kind')} != case {case}")
            for k in ("id", "kind", "trigger", "response"):
                if not p.get(k): err(f, n, f"preset missing {k}")
        ow = d.get("owner", {})
        if not ow.get("name") or not ow.get("public", {}).get("title"): err(f, n, "owner name/title")
        turns = d.get("turns", [])
        if not 6 <= len(turns) <= 14: err(f, n, f"{len(turns)} turns")
        for t, tu in enumerate(turns):
            want = "caller" if t % 2 == 0 else "assistant"
            if tu.get("speaker") != want: err(f, n, f"turn {t} speaker {tu.get('speaker')}")
            if not tu.get("text", "").strip(): err(f, n, f"turn {t} empty")
            if "preset_id" in tu and tu["preset_id"] not in {p["id"] for p in presets}: err(f, n, f"turn {t} unknown preset_id")
        exp = d.get("expected")
        if not isinstance(exp, list): err(f, n, "expected not a list"); exp = []
        keys = []
        for e in exp:
            k, t = e.get("kind"), e.get("turn")
            if k not in KINDS: err(f, n, f"kind {k}")
            if not isinstance(t, int) or not 0 <= t < len(turns) or t % 2 != 1: err(f, n, f"expected turn {t} not an assistant turn")
            if k == "preset.missing" and t != max(x for x in range(len(turns)) if x % 2 == 1): err(f, n, "missing not on last assistant turn")
            if k and k.startswith("preset.") and not presets: err(f, n, f"{k} without preset")
            keys.append((t, k)); kind_counts[k] += 1
        if keys != sorted(keys): err(f, n, "expected not sorted by (turn, kind)")
        if len(set(keys)) != len(keys): err(f, n, "duplicate expected entry")
        if file_kind and file_kind not in {k for _, k in keys}: err(f, n, f"file kind {file_kind} absent")
        if base.startswith("clean"):
            if exp: err(f, n, "clean with expected entries")
            if not d.get("note", "").startswith("trap:"): err(f, n, "clean note must start with trap:")
        if not d.get("note"): err(f, n, "no note")
        for s in walk_strings(d):
            for m in re.finditer(r"(?<!\d)\d{11}(?!\d)|(?<!\d)\d{17}[\dXx](?![\dXx])", s):
                if not m.group().startswith("100"): err(f, n, f"number {m.group()} does not start with 100")
    if scen_seen != SCEN: errors.append(f"{base}: scenarios missing {SCEN - scen_seen}")

print(f"{len(ids)} dialogues checked")
for k in sorted(kind_counts): print(f"  {k}: {kind_counts[k]}")
if errors:
    print("\n".join(errors)); sys.exit(1)
print("OK")
