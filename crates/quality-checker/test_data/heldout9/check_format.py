#!/usr/bin/env python3
"""Standalone format check for the heldout9 labelled set.

Checks, per line: required keys, id shape and uniqueness, scenario / preset_case / relation
vocabulary and their consistency, owner structure, caller-first strict alternation, expected
entries (valid kind, turn points at an assistant turn, sorted by turn, no duplicates), the
file's own kind present on every positive line, clean lines empty with a 'trap:' note, note
prefixes, synthetic phone / ID numbers, and the per-file counts.

Usage: python3 check_format.py [DIR]   (DIR defaults to this script's folder)
"""
import json
import os
import re
import sys
from collections import Counter

KINDS = {
    "safety.privacy": "privacy", "safety.decision": "decision", "safety.factuality": "factuality",
    "safety.embodiment": "embodiment", "natural.repetition": "repetition",
    "natural.closing": "closing", "natural.meta": "meta", "preset.premature": "premature",
    "preset.missing": "missing", "preset.conflict": "conflict", "preset.repeat": "repeat",
}
SCENARIOS = {"takeout", "delivery", "taxi", "work", "life", "harassment"}
REGULAR_SCENARIOS = {"takeout", "delivery", "taxi"}
PRESET_CASES = {"regular", "emergent", "none"}
RELATIONS = {"alignment", "complementarity", "irrelevance", "conflict", "none"}
TOP_KEYS = {"id", "scenario", "preset_case", "relation", "owner", "caller", "turns", "expected", "note"}
EXPECTED_COUNTS = {f"{k}.jsonl": 8 for k in KINDS}
EXPECTED_COUNTS["clean.jsonl"] = 50
ID_RE = re.compile(r"^([a-z]+)-([a-z]+)-v(\d{3})$")
PHONE_RE = re.compile(r"(?<!\d)\d{11}(?!\d)")
IDNUM_RE = re.compile(r"(?<!\d)\d{17}[\dXx](?!\d)")


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    errors = []
    seen_ids = set()
    summary = []

    def err(fname, lineno, msg):
        errors.append(f"{fname}:{lineno}: {msg}")

    present = sorted(f for f in os.listdir(root) if f.endswith(".jsonl"))
    for fname in sorted(EXPECTED_COUNTS):
        if fname not in present:
            errors.append(f"{fname}: missing file")
    for fname in present:
        if fname not in EXPECTED_COUNTS:
            errors.append(f"{fname}: unexpected file")

    for fname in sorted(EXPECTED_COUNTS):
        path = os.path.join(root, fname)
        if not os.path.exists(path):
            continue
        file_kind = fname[:-len(".jsonl")]
        is_clean = file_kind == "clean"
        short = "clean" if is_clean else KINDS[file_kind]
        n = 0
        entries = Counter()
        scen = Counter()
        with open(path, encoding="utf-8") as f:
            for lineno, line in enumerate(f, 1):
                if not line.strip():
                    err(fname, lineno, "blank line")
                    continue
                n += 1
                try:
                    d = json.loads(line)
                except json.JSONDecodeError as e:
                    err(fname, lineno, f"bad JSON: {e}")
                    continue
                missing = TOP_KEYS - d.keys()
                if missing:
                    err(fname, lineno, f"missing keys {sorted(missing)}")
                    continue
                # id
                did = d["id"]
                m = ID_RE.match(did) if isinstance(did, str) else None
                if not m:
                    err(fname, lineno, f"bad id {did!r}")
                else:
                    if m.group(1) != short:
                        err(fname, lineno, f"id prefix {m.group(1)!r} should be {short!r}")
                    if m.group(2) != d["scenario"]:
                        err(fname, lineno, f"id scenario {m.group(2)!r} != scenario {d['scenario']!r}")
                if did in seen_ids:
                    err(fname, lineno, f"duplicate id {did}")
                seen_ids.add(did)
                # vocab
                if d["scenario"] not in SCENARIOS:
                    err(fname, lineno, f"bad scenario {d['scenario']!r}")
                scen[d["scenario"]] += 1
                pc, rel = d["preset_case"], d["relation"]
                if pc not in PRESET_CASES:
                    err(fname, lineno, f"bad preset_case {pc!r}")
                if rel not in RELATIONS:
                    err(fname, lineno, f"bad relation {rel!r}")
                # owner
                owner = d["owner"]
                if not isinstance(owner, dict):
                    err(fname, lineno, "owner not an object")
                    continue
                for k in ("name", "public", "private", "presets"):
                    if k not in owner:
                        err(fname, lineno, f"owner.{k} missing")
                pub = owner.get("public", {})
                if not isinstance(pub, dict) or not pub.get("title"):
                    err(fname, lineno, "owner.public.title missing")
                priv = owner.get("private", {})
                if not isinstance(priv, dict) or not priv:
                    err(fname, lineno, "owner.private empty")
                presets = owner.get("presets", [])
                if not isinstance(presets, list):
                    err(fname, lineno, "owner.presets not a list")
                    presets = []
                pids = set()
                for p in presets:
                    for k in ("id", "kind", "trigger", "response"):
                        if not p.get(k):
                            err(fname, lineno, f"preset missing {k}")
                    if p.get("id") in pids:
                        err(fname, lineno, f"duplicate preset id {p.get('id')}")
                    pids.add(p.get("id"))
                    if p.get("kind") != pc:
                        err(fname, lineno, f"preset kind {p.get('kind')!r} != preset_case {pc!r}")
                if (pc == "none") != (not presets):
                    err(fname, lineno, "preset_case none must go with an empty preset list and vice versa")
                if (rel == "none") != (not presets):
                    err(fname, lineno, "relation none exactly when there are no presets")
                if pc == "regular" and d["scenario"] not in REGULAR_SCENARIOS:
                    err(fname, lineno, f"regular preset in scenario {d['scenario']}")
                # caller
                caller = d["caller"]
                if not isinstance(caller, dict) or not caller.get("role") or not caller.get("goal"):
                    err(fname, lineno, "caller.role / caller.goal missing")
                # turns
                turns = d["turns"]
                if not isinstance(turns, list) or len(turns) < 2:
                    err(fname, lineno, "turns must be a list of at least 2")
                    continue
                for i, t in enumerate(turns):
                    want = "caller" if i % 2 == 0 else "assistant"
                    if t.get("speaker") != want:
                        err(fname, lineno, f"turn {i} speaker {t.get('speaker')!r}, expected {want}")
                    if not isinstance(t.get("text"), str) or not t["text"].strip():
                        err(fname, lineno, f"turn {i} empty text")
                if turns[-1].get("speaker") != "assistant":
                    # allowed only for clean dialogues that end on the caller's goodbye
                    if not is_clean:
                        err(fname, lineno, "positive dialogue ends on a caller turn")
                # expected
                exp = d["expected"]
                if not isinstance(exp, list):
                    err(fname, lineno, "expected not a list")
                    continue
                prev = -1
                pairs = set()
                for e in exp:
                    k, t = e.get("kind"), e.get("turn")
                    if k not in KINDS:
                        err(fname, lineno, f"bad kind {k!r}")
                    if not isinstance(t, int) or not (0 <= t < len(turns)):
                        err(fname, lineno, f"turn {t!r} out of range")
                        continue
                    if turns[t].get("speaker") != "assistant":
                        err(fname, lineno, f"expected turn {t} is not an assistant turn")
                    if t < prev:
                        err(fname, lineno, "expected not sorted by turn")
                    prev = t
                    if (k, t) in pairs:
                        err(fname, lineno, f"duplicate expected entry {(k, t)}")
                    pairs.add((k, t))
                    entries[k] += 1
                kinds_here = {e.get("kind") for e in exp}
                if is_clean:
                    if exp:
                        err(fname, lineno, "clean line with expected entries")
                    if not str(d["note"]).startswith("trap:"):
                        err(fname, lineno, "clean note must start with 'trap:'")
                else:
                    if file_kind not in kinds_here:
                        err(fname, lineno, f"file kind {file_kind} not in expected")
                    if not re.match(r"^(obvious|subtle|borderline): ", str(d["note"])):
                        err(fname, lineno, "positive note must start with 'obvious:' / 'subtle:' / 'borderline:'")
                # synthetic numbers
                blob = json.dumps(d, ensure_ascii=False)
                for num in PHONE_RE.findall(blob):
                    if not num.startswith("100"):
                        err(fname, lineno, f"11-digit number {num} does not start with 100")
                for num in IDNUM_RE.findall(blob):
                    if not num.startswith("100"):
                        err(fname, lineno, f"18-digit number {num} does not start with 100")
        if n != EXPECTED_COUNTS[fname]:
            errors.append(f"{fname}: {n} dialogues, expected {EXPECTED_COUNTS[fname]}")
        if not is_clean and set(scen) != SCENARIOS:
            errors.append(f"{fname}: scenarios not all covered: {sorted(set(scen))}")
        summary.append((fname, n, sum(entries.values()), dict(entries), dict(scen)))

    for fname, n, total, ent, scen in summary:
        ent_s = ", ".join(f"{k}={v}" for k, v in sorted(ent.items()))
        print(f"{fname:28s} dialogues={n:3d} expected={total:3d}  {ent_s}")
    if errors:
        print(f"\n{len(errors)} error(s):")
        for e in errors:
            print("  " + e)
        return 1
    print("\nOK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
