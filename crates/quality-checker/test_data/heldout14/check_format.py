#!/usr/bin/env python3
"""Standalone format check for the heldout14 labelled set (no checker code involved)."""
import json, os, re, sys

HERE = os.path.dirname(os.path.abspath(__file__))
KINDS = ["safety.privacy", "safety.decision", "safety.factuality", "safety.embodiment",
         "natural.repetition", "natural.closing", "natural.meta",
         "preset.premature", "preset.missing", "preset.conflict", "preset.repeat"]
SCEN = {"takeout", "delivery", "taxi", "work", "life", "harassment"}
REGULAR_SCEN = {"takeout", "delivery", "taxi"}
RELS = {"alignment", "complementarity", "irrelevance", "conflict", "none"}
KEYS = {"id", "scenario", "preset_case", "relation", "owner", "caller", "turns", "expected", "note"}
EXPECTED_COUNTS = {k + ".jsonl": 8 for k in KINDS}
EXPECTED_COUNTS["clean.jsonl"] = 50

errors = []
def err(where, msg):
    errors.append(f"{where}: {msg}")

def digit_runs(s):
    return re.findall(r"\d+", s)

ids = set()
summary = []
for fname, want in EXPECTED_COUNTS.items():
    path = os.path.join(HERE, fname)
    if not os.path.exists(path):
        err(fname, "missing file"); continue
    kind = None if fname == "clean.jsonl" else fname[:-len(".jsonl")]
    short = "clean" if kind is None else kind.split(".")[1]
    n = 0; n_exp = 0; scen_seen = set(); per_kind = {}
    with open(path, encoding="utf-8") as f:
        for ln, line in enumerate(f, 1):
            where = f"{fname}:{ln}"
            if not line.strip():
                err(where, "blank line"); continue
            try:
                d = json.loads(line)
            except Exception as e:
                err(where, f"bad json {e}"); continue
            n += 1
            missing = KEYS - set(d)
            if missing: err(where, f"missing keys {sorted(missing)}")
            did = d.get("id", "")
            where = f"{fname}:{ln} ({did})"
            m = re.fullmatch(r"([a-z]+)-([a-z]+)-q(\d{3})", did)
            if not m: err(where, "bad id pattern")
            else:
                if m.group(1) != short: err(where, f"id prefix should be {short}")
                if m.group(2) != d.get("scenario"): err(where, "id scenario mismatch")
            if did in ids: err(where, "duplicate id")
            ids.add(did)
            sc = d.get("scenario")
            if sc not in SCEN: err(where, f"bad scenario {sc}")
            scen_seen.add(sc)
            owner = d.get("owner", {})
            for k in ("name", "public", "private", "presets"):
                if k not in owner: err(where, f"owner lacks {k}")
            if "title" not in owner.get("public", {}): err(where, "public lacks title")
            presets = owner.get("presets", [])
            pc, rel = d.get("preset_case"), d.get("relation")
            if rel not in RELS: err(where, f"bad relation {rel}")
            if (rel == "none") != (len(presets) == 0): err(where, "relation none iff no presets")
            pkinds = {p.get("kind") for p in presets}
            if not presets and pc != "none": err(where, "preset_case should be none")
            if presets:
                if pc not in ("regular", "emergent"): err(where, f"bad preset_case {pc}")
                if pc not in pkinds: err(where, "preset_case does not match preset kinds")
                for p in presets:
                    if set(p) != {"id", "kind", "trigger", "response"}: err(where, "preset keys")
                    if p.get("kind") == "regular" and sc not in REGULAR_SCEN:
                        err(where, "regular preset outside takeout/delivery/taxi")
            if not isinstance(d.get("caller"), dict) or not {"role", "goal"} <= set(d["caller"]):
                err(where, "caller needs role and goal")
            turns = d.get("turns", [])
            if len(turns) < 2: err(where, "too few turns")
            for i, t in enumerate(turns):
                want_sp = "caller" if i % 2 == 0 else "assistant"
                if t.get("speaker") != want_sp: err(where, f"turn {i} speaker should be {want_sp}")
                if not t.get("text", "").strip(): err(where, f"turn {i} empty")
            if turns and turns[-1].get("speaker") != "assistant":
                if not (kind is None and "再见" in turns[-1]["text"] and "再见" in turns[-2]["text"]):
                    err(where, "ends on caller turn without a prior assistant close")
            # synthetic numbers
            blob = json.dumps(d, ensure_ascii=False)
            for run in digit_runs(blob):
                if len(run) in (11, 18) and not run.startswith("100"):
                    err(where, f"number not starting with 100: {run}")
                if len(run) >= 11 and len(run) not in (11, 18):
                    err(where, f"odd long number {run}")
            exp = d.get("expected", [])
            n_exp += len(exp)
            keys = [(e.get("turn"), e.get("kind")) for e in exp]
            if [e.get("turn") for e in exp] != sorted(e.get("turn") for e in exp): err(where, "expected not sorted by turn")
            if len(set(keys)) != len(keys): err(where, "duplicate expected entry")
            for e in exp:
                if set(e) != {"kind", "turn"}: err(where, "expected entry keys")
                if e.get("kind") not in KINDS: err(where, f"bad kind {e.get('kind')}")
                t = e.get("turn")
                if not isinstance(t, int) or not (0 <= t < len(turns)) or turns[t]["speaker"] != "assistant":
                    err(where, f"turn {t} is not an assistant turn")
                per_kind[e.get("kind")] = per_kind.get(e.get("kind"), 0) + 1
            note = d.get("note", "")
            if kind is None:
                if exp: err(where, "clean line has expected entries")
                if not note.startswith("trap:"): err(where, "clean note must start with trap:")
            else:
                if kind not in {e.get("kind") for e in exp}: err(where, f"file kind {kind} missing")
                if not re.match(r"(obvious|subtle|borderline): ", note): err(where, "note prefix")
    if n != want: err(fname, f"{n} dialogues, want {want}")
    if kind is not None and scen_seen != SCEN: err(fname, f"scenarios not all covered: {sorted(SCEN - scen_seen)}")
    summary.append((fname, n, n_exp, per_kind))

for fname, n, ne, pk in summary:
    print(f"{fname:28s} {n:3d} dialogues {ne:3d} expected  {pk}")
if errors:
    print("\nFAIL"); [print(" ", e) for e in errors]; sys.exit(1)
print("\nOK: all checks passed")
