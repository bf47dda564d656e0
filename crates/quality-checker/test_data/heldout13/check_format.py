#!/usr/bin/env python3
"""Standalone format check for the heldout13 labelled set."""
import json, os, re, sys

HERE = os.path.dirname(os.path.abspath(__file__))
KINDS = ["safety.privacy", "safety.decision", "safety.factuality", "safety.embodiment",
         "natural.repetition", "natural.closing", "natural.meta",
         "preset.premature", "preset.missing", "preset.conflict", "preset.repeat"]
SCENARIOS = {"takeout", "delivery", "taxi", "work", "life", "harassment"}
REGULAR_OK = {"takeout", "delivery", "taxi"}
RELATIONS = {"alignment", "complementarity", "irrelevance", "conflict", "none"}
CASES = {"regular", "emergent", "none"}
TOP = {"id", "scenario", "preset_case", "relation", "owner", "caller", "turns", "expected", "note"}
COUNTS = {k + ".jsonl": 8 for k in KINDS}
COUNTS["clean.jsonl"] = 50

errors = []
def err(where, msg):
    errors.append(f"{where}: {msg}")

def short(kind):
    return kind.split(".", 1)[1]

def digits_ok(where, text):
    for m in re.finditer(r"\d+", text):
        s = m.group()
        if len(s) in (11, 18) and not s.startswith("100"):
            err(where, f"{len(s)}-digit number not starting with 100: {s}")

seen = set()
for fname, want in COUNTS.items():
    path = os.path.join(HERE, fname)
    if not os.path.exists(path):
        err(fname, "missing file"); continue
    fkind = fname[:-len(".jsonl")]
    rows = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            where = f"{fname}:{n}"
            try:
                d = json.loads(line)
            except Exception as e:
                err(where, f"bad json: {e}"); continue
            rows.append(d)
            if set(d) != TOP:
                err(where, f"keys {sorted(set(d) ^ TOP)}")
                if not TOP <= set(d): continue
            sc = d["scenario"]
            if sc not in SCENARIOS: err(where, f"scenario {sc}")
            if d["preset_case"] not in CASES: err(where, f"preset_case {d['preset_case']}")
            if d["relation"] not in RELATIONS: err(where, f"relation {d['relation']}")
            prefix = "clean" if fkind == "clean" else short(fkind)
            if not re.fullmatch(rf"{re.escape(prefix)}-{sc}-z\d{{3}}", d["id"]):
                err(where, f"bad id {d['id']}")
            if d["id"] in seen: err(where, f"duplicate id {d['id']}")
            seen.add(d["id"])
            o = d["owner"]
            for k in ("name", "public", "private", "presets"):
                if k not in o: err(where, f"owner lacks {k}")
            if "title" not in o.get("public", {}): err(where, "owner.public lacks title")
            presets = o.get("presets", [])
            if (d["relation"] == "none") != (len(presets) == 0) or (d["preset_case"] == "none") != (len(presets) == 0):
                err(where, "relation/preset_case 'none' must match absence of presets")
            for p in presets:
                if set(p) != {"id", "kind", "trigger", "response"}: err(where, f"preset keys {sorted(p)}")
                if p.get("kind") != d["preset_case"]: err(where, "preset kind != preset_case")
                if p.get("kind") == "regular" and sc not in REGULAR_OK: err(where, "regular preset outside takeout/delivery/taxi")
            if set(d["caller"]) != {"role", "goal"}: err(where, "caller keys")
            turns = d["turns"]
            if len(turns) < 2: err(where, "too few turns")
            for i, t in enumerate(turns):
                exp_sp = "caller" if i % 2 == 0 else "assistant"
                if t.get("speaker") != exp_sp: err(where, f"turn {i} speaker {t.get('speaker')} (expected {exp_sp})")
                if not isinstance(t.get("text"), str) or not t["text"].strip(): err(where, f"turn {i} empty text")
            digits_ok(where, json.dumps(d, ensure_ascii=False))
            exp = d["expected"]
            last = -1
            for e in exp:
                if set(e) != {"kind", "turn"}: err(where, f"expected keys {sorted(e)}")
                if e.get("kind") not in KINDS: err(where, f"bad kind {e.get('kind')}")
                t = e.get("turn")
                if not isinstance(t, int) or t < 0 or t >= len(turns) or turns[t]["speaker"] != "assistant":
                    err(where, f"turn {t} is not an assistant turn")
                elif t < last:
                    err(where, "expected not sorted by turn")
                else:
                    last = t
            if len({(e.get('kind'), e.get('turn')) for e in exp}) != len(exp): err(where, "duplicate expected entry")
            if fkind == "clean":
                if exp: err(where, "clean line has expected entries")
                if not d["note"].startswith("trap:"): err(where, "clean note must start with 'trap:'")
            else:
                if fkind not in {e.get("kind") for e in exp}: err(where, f"file kind {fkind} absent")
                if not re.match(r"(obvious|subtle|borderline): ", d["note"]): err(where, "note prefix")
    if len(rows) != want: err(fname, f"{len(rows)} lines, want {want}")
    if fkind != "clean":
        scs = {r.get("scenario") for r in rows}
        if scs != SCENARIOS: err(fname, f"scenarios missing: {sorted(SCENARIOS - scs)}")
    n_exp = sum(len(r.get("expected", [])) for r in rows)
    print(f"{fname:28s} {len(rows):3d} dialogues {n_exp:3d} expected")

if errors:
    print("\n".join(errors)); print(f"FAILED: {len(errors)} problem(s)"); sys.exit(1)
print(f"OK: {len(seen)} dialogues")
