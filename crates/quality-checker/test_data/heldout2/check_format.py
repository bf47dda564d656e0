#!/usr/bin/env python3
"""Format check for the heldout2 labelled set (does not judge labels)."""
import glob, json, os, re, sys

HERE = os.path.dirname(os.path.abspath(__file__))
SCEN = {"takeout", "delivery", "taxi", "work", "life", "harassment"}
CASES = {"regular", "emergent", "none"}
RELS = {"alignment", "complementarity", "irrelevance", "conflict"}
KINDS = {"safety.privacy", "safety.decision", "safety.factuality", "safety.embodiment",
         "natural.repetition", "natural.closing", "natural.meta", "preset.premature",
         "preset.missing", "preset.conflict", "preset.repeat"}
errs = []
ids = {}
def err(f, n, m): errs.append(f"{os.path.basename(f)}:{n}: {m}")

def digits_ok(text, f, n):
    for m in re.finditer(r"(?<!\d)(\d{11}|\d{17}[\dXx])(?!\d)", text):
        if not m.group(1).startswith("100"):
            err(f, n, f"number {m.group(1)} does not start with 100")

files = sorted(glob.glob(os.path.join(HERE, "*.jsonl")))
for f in files:
    base = os.path.basename(f)[:-6]
    scen_seen = set()
    for n, line in enumerate(open(f, encoding="utf-8"), 1):
        if not line.strip():
            err(f, n, "blank line"); continue
        try:
            d = json.loads(line)
        except Exception as e:
            err(f, n, f"bad json: {e}"); continue
        for k in ("id", "scenario", "preset_case", "relation", "owner", "caller", "turns", "expected", "note"):
            if k not in d: err(f, n, f"missing {k}")
        i = d.get("id")
        if i in ids: err(f, n, f"duplicate id {i} (also {ids[i]})")
        ids[i] = f"{os.path.basename(f)}:{n}"
        sc = d.get("scenario"); scen_seen.add(sc)
        if sc not in SCEN: err(f, n, f"bad scenario {sc}")
        if i and sc and f"-{sc}-" not in i: err(f, n, f"id {i} does not name scenario {sc}")
        case, rel = d.get("preset_case"), d.get("relation")
        owner = d.get("owner", {})
        presets = owner.get("presets", [])
        if case not in CASES: err(f, n, f"bad preset_case {case}")
        if case == "regular" and sc not in ("takeout", "delivery", "taxi"):
            err(f, n, "regular preset outside takeout/delivery/taxi")
        if case == "none":
            if rel != "none": err(f, n, "relation must be none when preset_case none")
            if presets: err(f, n, "presets present with preset_case none")
        else:
            if rel not in RELS: err(f, n, f"bad relation {rel} for preset case {case}")
            if not presets: err(f, n, "no presets although preset_case != none")
            for p in presets:
                if p.get("kind") != case: err(f, n, f"preset kind {p.get('kind')} != preset_case {case}")
        if "title" not in owner.get("public", {}): err(f, n, "owner.public.title missing")
        turns = d.get("turns", [])
        if not (6 <= len(turns) <= 14):
            err(f, n, f"{len(turns)} turns")
        for t_i, t in enumerate(turns):
            want = "caller" if t_i % 2 == 0 else "assistant"
            if t.get("speaker") != want: err(f, n, f"turn {t_i} speaker {t.get('speaker')} != {want}")
            if not t.get("text"): err(f, n, f"turn {t_i} empty")
        digits_ok(json.dumps(d, ensure_ascii=False), f, n)
        exp = d.get("expected", [])
        keys = []
        for e in exp:
            if e.get("kind") not in KINDS: err(f, n, f"bad kind {e.get('kind')}")
            t = e.get("turn")
            if not isinstance(t, int) or t < 0 or t >= len(turns) or turns[t]["speaker"] != "assistant":
                err(f, n, f"expected turn {t} is not an assistant turn in range")
            keys.append((t, e.get("kind")))
        if keys != sorted(keys): err(f, n, "expected not sorted by (turn, kind)")
        if len(set(keys)) != len(keys): err(f, n, "duplicate expected entry")
        if base.startswith("clean"):
            if exp: err(f, n, "clean file with expected entries")
        else:
            if base not in {e.get("kind") for e in exp}: err(f, n, f"file kind {base} absent from expected")
    if SCEN - scen_seen: err(f, 0, f"missing scenarios {sorted(SCEN - scen_seen)}")

for e in errs: print(e)
print(f"{len(files)} files, {len(ids)} dialogues, {len(errs)} problems")
sys.exit(1 if errs else 0)
