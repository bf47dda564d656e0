#!/usr/bin/env python3
"""Format validator for the heldout5 labelled set (no checker code involved)."""
import json, os, re, sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
KINDS = ["safety.privacy", "safety.decision", "safety.factuality", "safety.embodiment",
         "natural.repetition", "natural.closing", "natural.meta",
         "preset.premature", "preset.missing", "preset.conflict", "preset.repeat"]
SCEN = {"takeout", "delivery", "taxi", "work", "life", "harassment"}
CASES = {"regular", "emergent", "none"}
RELS = {"alignment", "complementarity", "irrelevance", "conflict"}
SHORT = {k: k.split(".")[1] for k in KINDS}
errors = []
def err(f, ln, msg): errors.append(f"{f}:{ln}: {msg}")

def digit_runs(obj):
    s = json.dumps(obj, ensure_ascii=False)
    return re.findall(r"(?<!\d)\d{11,}(?!\d)", s)

seen = set()
summary = {}
files = [k + ".jsonl" for k in KINDS] + ["clean.jsonl"]
for fn in files:
    path = os.path.join(HERE, fn)
    if not os.path.exists(path):
        err(fn, 0, "missing file"); continue
    kind = fn[:-6]
    scen_seen, n, entries, subtle = set(), 0, Counter(), 0
    for ln, line in enumerate(open(path, encoding="utf-8"), 1):
        if not line.strip():
            err(fn, ln, "blank line"); continue
        try:
            d = json.loads(line)
        except Exception as e:
            err(fn, ln, f"parse error {e}"); continue
        n += 1
        for key in ["id", "scenario", "preset_case", "relation", "owner", "caller", "turns", "expected", "note"]:
            if key not in d: err(fn, ln, f"missing key {key}")
        did = d.get("id", "")
        if did in seen: err(fn, ln, f"duplicate id {did}")
        seen.add(did)
        sc = d.get("scenario"); scen_seen.add(sc)
        if sc not in SCEN: err(fn, ln, f"bad scenario {sc}")
        short = "clean" if kind == "clean" else SHORT[kind]
        if not re.fullmatch(rf"{short}-{sc}-r\d{{3}}", did): err(fn, ln, f"bad id {did}")
        pc, rel = d.get("preset_case"), d.get("relation")
        presets = d.get("owner", {}).get("presets", [])
        if pc not in CASES: err(fn, ln, f"bad preset_case {pc}")
        if pc == "regular" and sc not in {"takeout", "delivery", "taxi"}: err(fn, ln, "regular preset outside takeout/delivery/taxi")
        if pc == "none":
            if rel != "none": err(fn, ln, "preset_case none needs relation none")
            if presets: err(fn, ln, "preset_case none but presets given")
        else:
            if rel not in RELS: err(fn, ln, f"bad relation {rel}")
            if not presets: err(fn, ln, "preset case without presets")
            if pc == "regular" and not any(p.get("kind") == "regular" for p in presets): err(fn, ln, "regular case without regular preset")
            if pc == "emergent" and any(p.get("kind") == "regular" for p in presets): err(fn, ln, "emergent case with regular preset")
        if "title" not in d.get("owner", {}).get("public", {}): err(fn, ln, "owner.public.title missing")
        turns = d.get("turns", [])
        if not 6 <= len(turns) <= 14: err(fn, ln, f"{len(turns)} turns")
        for i, t in enumerate(turns):
            want = "caller" if i % 2 == 0 else "assistant"
            if t.get("speaker") != want: err(fn, ln, f"turn {i} speaker {t.get('speaker')} != {want}")
            if not t.get("text", "").strip(): err(fn, ln, f"turn {i} empty")
        exp = d.get("expected", [])
        keys = []
        for e in exp:
            k, t = e.get("kind"), e.get("turn")
            if k not in KINDS: err(fn, ln, f"bad kind {k}")
            if not isinstance(t, int) or not 0 <= t < len(turns): err(fn, ln, f"turn {t} out of range")
            elif turns[t].get("speaker") != "assistant": err(fn, ln, f"expected turn {t} not assistant")
            keys.append((t, k)); entries[k] += 1
        if keys != sorted(keys): err(fn, ln, "expected not sorted by (turn, kind)")
        if len(set(keys)) != len(keys): err(fn, ln, "duplicate expected entry")
        if kind == "clean":
            if exp: err(fn, ln, "clean line with expected entries")
            if not d.get("note", "").startswith("trap:"): err(fn, ln, "clean note must start with trap:")
        else:
            if kind not in [k for _, k in keys]: err(fn, ln, f"file kind {kind} absent")
            if "subtle" in d.get("note", ""): subtle += 1
        if "preset.missing" in [k for _, k in keys]:
            last_a = max(i for i, t in enumerate(turns) if t.get("speaker") == "assistant")
            if ("preset.missing" and [t for t, k in keys if k == "preset.missing"] != [last_a]):
                err(fn, ln, "preset.missing not on last assistant turn")
        for run in digit_runs(d):
            if len(run) in (11, 18) and not run.startswith("100"): err(fn, ln, f"number {run} does not start with 100")
            if len(run) not in (11, 18): err(fn, ln, f"suspicious digit run {run}")
    need = 6 if kind == "clean" else 5
    if len(scen_seen) < need: err(fn, 0, f"only {len(scen_seen)} scenarios")
    summary[fn] = (n, sum(entries.values()), dict(entries), subtle, len(scen_seen))

for fn, (n, tot, ent, subtle, ns) in summary.items():
    print(f"{fn:28s} dialogues={n:3d} entries={tot:3d} subtle={subtle} scenarios={ns} {ent}")
if errors:
    print("\n".join(errors)); sys.exit(1)
print("OK")
