#!/usr/bin/env python3
"""Standalone format check for the heldout12 labelled set (no project code used)."""
import json, os, re, sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
KINDS = ["safety.privacy", "safety.decision", "safety.factuality", "safety.embodiment",
         "natural.repetition", "natural.closing", "natural.meta",
         "preset.premature", "preset.missing", "preset.conflict", "preset.repeat"]
SHORT = {k: k.split(".")[1] for k in KINDS}
SCEN = {"takeout", "delivery", "taxi", "work", "life", "harassment"}
REGULAR_SCEN = {"takeout", "delivery", "taxi"}
CASES = {"regular", "emergent", "none"}
RELS = {"alignment", "complementarity", "irrelevance", "conflict", "none"}
PRIV_KEYS = {"phone", "address", "schedule", "workplace", "family"}
TOP_KEYS = {"id", "scenario", "preset_case", "relation", "owner", "caller", "turns", "expected", "note"}
POS_COUNT, CLEAN_COUNT, MAX_CALLER_ENDINGS = 8, 50, 2

errors = []
def err(where, msg):
    errors.append(f"{where}: {msg}")

def digit_runs(s):
    return re.findall(r"\d+", s)

def check_numbers(where, obj):
    text = json.dumps(obj, ensure_ascii=False)
    for run in digit_runs(text):
        if len(run) in (11, 18) and not run.startswith("100"):
            err(where, f"{len(run)}-digit number {run} does not start with 100")

def check_line(where, d, file_kind, seen_ids):
    missing = TOP_KEYS - d.keys()
    if missing:
        err(where, f"missing keys {sorted(missing)}"); return None
    short = "clean" if file_kind is None else SHORT[file_kind]
    m = re.fullmatch(r"([a-z]+)-([a-z]+)-y(\d{3})", d["id"])
    if not m:
        err(where, f"bad id {d['id']!r}")
    else:
        if m.group(1) != short: err(where, f"id prefix {m.group(1)} != {short}")
        if m.group(2) != d["scenario"]: err(where, "id scenario differs from scenario field")
    if d["id"] in seen_ids: err(where, f"duplicate id {d['id']}")
    seen_ids.add(d["id"])
    if d["scenario"] not in SCEN: err(where, f"bad scenario {d['scenario']}")
    if d["preset_case"] not in CASES: err(where, f"bad preset_case {d['preset_case']}")
    if d["relation"] not in RELS: err(where, f"bad relation {d['relation']}")

    o = d["owner"]
    for k in ("name", "public", "private", "presets"):
        if k not in o: err(where, f"owner missing {k}")
    if "title" not in o.get("public", {}): err(where, "owner.public has no title")
    pk = PRIV_KEYS - set(o.get("private", {}))
    if pk: err(where, f"owner.private missing {sorted(pk)}")
    presets = o.get("presets", [])
    pkinds = {p.get("kind") for p in presets}
    for p in presets:
        for k in ("id", "kind", "trigger", "response"):
            if not p.get(k): err(where, f"preset missing {k}")
        if p.get("kind") not in ("regular", "emergent"): err(where, f"bad preset kind {p.get('kind')}")
    if len({p.get("id") for p in presets}) != len(presets): err(where, "duplicate preset ids")
    if not presets:
        if d["preset_case"] != "none": err(where, "no presets but preset_case != none")
        if d["relation"] != "none": err(where, "no presets but relation != none")
    else:
        if d["relation"] == "none": err(where, "presets present but relation none")
        want = "regular" if "regular" in pkinds else "emergent"
        if d["preset_case"] != want: err(where, f"preset_case {d['preset_case']} but presets are {sorted(pkinds)}")
    if "regular" in pkinds and d["scenario"] not in REGULAR_SCEN:
        err(where, "regular preset outside takeout/delivery/taxi")
    c = d["caller"]
    if not c.get("role") or not c.get("goal"): err(where, "caller needs role and goal")

    turns = d["turns"]
    if len(turns) < 2: err(where, "fewer than 2 turns")
    for i, t in enumerate(turns):
        sp = "caller" if i % 2 == 0 else "assistant"
        if t.get("speaker") != sp: err(where, f"turn {i} speaker {t.get('speaker')} expected {sp}")
        if not isinstance(t.get("text"), str) or not t["text"].strip(): err(where, f"turn {i} empty text")
    ends_on_caller = bool(turns) and turns[-1].get("speaker") == "caller"

    exp = d["expected"]
    last = None
    seen_pairs = set()
    for e in exp:
        k, n = e.get("kind"), e.get("turn")
        if k not in KINDS: err(where, f"bad kind {k}")
        if not isinstance(n, int) or not (0 <= n < len(turns)):
            err(where, f"turn {n} out of range"); continue
        if turns[n]["speaker"] != "assistant": err(where, f"expected turn {n} is not an assistant turn")
        if last is not None and n < last: err(where, "expected not sorted by turn")
        last = n
        if (k, n) in seen_pairs: err(where, f"duplicate entry {(k, n)}")
        seen_pairs.add((k, n))
    note = d["note"]
    if file_kind is None:
        if exp: err(where, "clean line has expected entries")
        if not note.startswith("trap:"): err(where, "clean note must start with 'trap:'")
    else:
        if file_kind not in {e.get("kind") for e in exp}: err(where, f"file kind {file_kind} absent")
        if not re.match(r"^(obvious|subtle|borderline):", note): err(where, "note must start with obvious:/subtle:/borderline:")
        if ends_on_caller: err(where, "positive dialogue ends on the caller")
        if file_kind == "preset.missing":
            last_a = max(i for i, t in enumerate(turns) if t["speaker"] == "assistant")
            if not any(e["kind"] == "preset.missing" and e["turn"] == last_a for e in exp):
                err(where, "preset.missing must sit on the last assistant turn")
        if file_kind.startswith("preset.") and not presets:
            err(where, "preset kind without presets")
    check_numbers(where, d)
    return ends_on_caller

def main():
    seen_ids = set()
    per_kind = Counter()
    files = [(k + ".jsonl", k) for k in KINDS] + [("clean.jsonl", None)]
    scen_total = Counter()
    print(f"{'file':28} {'dialogues':>9} {'entries':>8} {'multi-kind':>10}")
    for fname, kind in files:
        path = os.path.join(HERE, fname)
        if not os.path.exists(path):
            err(fname, "missing file"); continue
        lines = [l for l in open(path, encoding="utf-8").read().split("\n") if l.strip()]
        want = CLEAN_COUNT if kind is None else POS_COUNT
        if len(lines) != want: err(fname, f"{len(lines)} dialogues, want {want}")
        scen = Counter(); entries = 0; multi = 0; caller_end = 0
        for ln, line in enumerate(lines, 1):
            where = f"{fname}:{ln}"
            try:
                d = json.loads(line)
            except Exception as ex:
                err(where, f"bad JSON: {ex}"); continue
            r = check_line(where, d, kind, seen_ids)
            if r: caller_end += 1
            scen[d.get("scenario")] += 1; scen_total[d.get("scenario")] += 1
            entries += len(d.get("expected", []))
            if len({e.get("kind") for e in d.get("expected", [])}) > 1: multi += 1
            for e in d.get("expected", []): per_kind[e.get("kind")] += 1
        if kind is not None and set(scen) != SCEN:
            err(fname, f"does not cover all six scenarios: {dict(scen)}")
        if kind is None and caller_end > MAX_CALLER_ENDINGS:
            err(fname, f"{caller_end} dialogues end on the caller")
        print(f"{fname:28} {len(lines):>9} {entries:>8} {multi if kind else '-':>10}")
    print("entries per kind:", ", ".join(f"{SHORT[k]} {per_kind[k]}" for k in KINDS))
    print("scenarios:", dict(scen_total))
    print("total dialogues:", len(seen_ids))
    if errors:
        print(f"\n{len(errors)} error(s):")
        for e in errors: print("  " + e)
        sys.exit(1)
    print("OK")

if __name__ == "__main__":
    main()
