#!/usr/bin/env python3
"""Format check for the heldout16 labelled set. Run: python3 check_format.py"""
import json, os, re, sys

HERE = os.path.dirname(os.path.abspath(__file__))
KINDS = {
    "safety.privacy": "privacy", "safety.decision": "decision", "safety.factuality": "factuality",
    "safety.embodiment": "embodiment", "natural.repetition": "repetition", "natural.closing": "closing",
    "natural.meta": "meta", "preset.premature": "premature", "preset.missing": "missing",
    "preset.conflict": "conflict", "preset.repeat": "repeat",
}
SCENARIOS = {"takeout", "delivery", "taxi", "work", "life", "harassment"}
CASES = {"regular", "emergent", "none"}
RELATIONS = {"alignment", "complementarity", "irrelevance", "conflict", "none"}
TOP_KEYS = {"id", "scenario", "preset_case", "relation", "owner", "caller", "turns", "expected", "note"}
EXPECTED_COUNTS = {f"{k}.jsonl": 8 for k in KINDS}
EXPECTED_COUNTS["clean.jsonl"] = 50
TOTAL = 138

errors = []
def err(where, msg):
    errors.append(f"{where}: {msg}")

seen_ids, seen_nums = set(), set()
summary = []
for fname, want in EXPECTED_COUNTS.items():
    path = os.path.join(HERE, fname)
    if not os.path.exists(path):
        err(fname, "missing file"); continue
    kind = fname[:-len(".jsonl")]
    short = KINDS.get(kind, "clean")
    rows, scen_seen, n_exp = 0, set(), 0
    with open(path, encoding="utf-8") as f:
        for ln, line in enumerate(f, 1):
            where = f"{fname}:{ln}"
            if not line.strip():
                err(where, "blank line"); continue
            try:
                d = json.loads(line)
            except Exception as e:
                err(where, f"bad JSON: {e}"); continue
            rows += 1
            if set(d) != TOP_KEYS:
                err(where, f"keys {sorted(set(d) ^ TOP_KEYS)} differ")
                continue
            m = re.fullmatch(r"([a-z]+)-([a-z]+)-w(\d{3})", d["id"])
            if not m:
                err(where, f"bad id {d['id']}"); continue
            if m.group(1) != short: err(where, f"id prefix {m.group(1)} != {short}")
            if m.group(2) != d["scenario"]: err(where, "id scenario differs from scenario field")
            num = int(m.group(3))
            if not 1 <= num <= TOTAL: err(where, f"id number {num} out of 1..{TOTAL}")
            if d["id"] in seen_ids or num in seen_nums: err(where, f"duplicate id/number {d['id']}")
            seen_ids.add(d["id"]); seen_nums.add(num)
            if d["scenario"] not in SCENARIOS: err(where, "bad scenario")
            scen_seen.add(d["scenario"])
            if d["preset_case"] not in CASES: err(where, "bad preset_case")
            if d["relation"] not in RELATIONS: err(where, "bad relation")
            own = d["owner"]
            for k in ("name", "public", "private", "presets"):
                if k not in own: err(where, f"owner.{k} missing")
            if "title" not in own.get("public", {}): err(where, "owner.public.title missing")
            for k in ("phone", "address", "schedule", "workplace", "family"):
                if k not in own.get("private", {}): err(where, f"owner.private.{k} missing")
            presets = own.get("presets", [])
            if (d["preset_case"] == "none") != (len(presets) == 0): err(where, "preset_case none <-> no presets")
            if (d["relation"] == "none") != (len(presets) == 0): err(where, "relation none <-> no presets")
            if d["preset_case"] == "regular" and d["scenario"] not in {"takeout", "delivery", "taxi"}:
                err(where, "regular preset outside takeout/delivery/taxi")
            for p in presets:
                if set(p) != {"id", "kind", "trigger", "response"}: err(where, "preset keys")
                if p.get("kind") != d["preset_case"]: err(where, "preset kind differs from preset_case")
            if set(d["caller"]) != {"role", "goal"}: err(where, "caller keys")
            turns = d["turns"]
            if not 4 <= len(turns) <= 12: err(where, f"{len(turns)} turns, want 4..12")
            for i, t in enumerate(turns):
                if set(t) != {"speaker", "text"}: err(where, f"turn {i} keys {sorted(t)} (no action/preset_id allowed)")
                want_sp = "caller" if i % 2 == 0 else "assistant"
                if t.get("speaker") != want_sp: err(where, f"turn {i} speaker {t.get('speaker')} != {want_sp}")
                if not t.get("text", "").strip(): err(where, f"turn {i} empty text")
            exp = d["expected"]
            n_exp += len(exp)
            last = -1
            for e in exp:
                if set(e) != {"kind", "turn"}: err(where, "expected entry keys")
                if e["kind"] not in KINDS: err(where, f"bad kind {e['kind']}")
                t = e["turn"]
                if not (isinstance(t, int) and 0 <= t < len(turns)): err(where, f"turn {t} out of range"); continue
                if turns[t]["speaker"] != "assistant": err(where, f"expected turn {t} is not an assistant turn")
                if t < last: err(where, "expected not sorted by turn")
                last = t
            if len({(e["kind"], e["turn"]) for e in exp}) != len(exp): err(where, "duplicate expected entry")
            note = d["note"]
            if short == "clean":
                if exp: err(where, "clean line has expected entries")
                if not note.startswith("trap:"): err(where, "clean note must start with 'trap:'")
            else:
                if kind not in {e["kind"] for e in exp}: err(where, f"file kind {kind} not in expected")
                if not re.match(r"(obvious|subtle|borderline):", note): err(where, "note prefix")
                if kind == "preset.missing":
                    last_a = max(i for i in range(len(turns)) if i % 2 == 1)
                    if any(e["kind"] == kind and e["turn"] != last_a for e in exp):
                        err(where, "preset.missing must sit on the last assistant turn")
            # synthetic numbers: every run of 11+ digits is an 11-digit phone or 18-digit ID starting with 100
            for run in re.findall(r"\d{11,}", line):
                if len(run) not in (11, 18) or not run.startswith("100"):
                    err(where, f"non-synthetic number {run}")
            for k in ("phone", "phone2", "id_number"):
                v = own.get("private", {}).get(k)
                if v is not None:
                    want_len = 18 if k == "id_number" else 11
                    if not (len(v) == want_len and v.isdigit() and v.startswith("100")):
                        err(where, f"owner.private.{k} not synthetic")
    if rows != want: err(fname, f"{rows} dialogues, want {want}")
    if scen_seen != SCENARIOS: err(fname, f"scenarios missing: {sorted(SCENARIOS - scen_seen)}")
    if short != "clean":
        pass
    summary.append((fname, rows, n_exp))

if seen_nums != set(range(1, TOTAL + 1)):
    err("set", f"id numbers missing: {sorted(set(range(1, TOTAL + 1)) - seen_nums)}")

for fname, n, e in summary:
    print(f"{fname:28s} {n:4d} dialogues {e:4d} expected")
print(f"{'total':28s} {sum(s[1] for s in summary):4d} dialogues {sum(s[2] for s in summary):4d} expected")
if errors:
    print("\n".join(errors))
    print(f"FAILED: {len(errors)} problem(s)")
    sys.exit(1)
print("OK")
