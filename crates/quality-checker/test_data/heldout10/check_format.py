#!/usr/bin/env python3
"""Standalone format check for the heldout10 labelled set.

Usage: python3 check_format.py [DIR]   (DIR defaults to this file's folder)
Exits non-zero and lists every problem found.
"""
import json
import os
import re
import sys
from collections import Counter

KINDS = ["safety.privacy", "safety.decision", "safety.factuality", "safety.embodiment",
         "natural.repetition", "natural.closing", "natural.meta",
         "preset.premature", "preset.missing", "preset.conflict", "preset.repeat"]
SHORT = {k: k.split(".")[1] for k in KINDS}
SCENARIOS = {"takeout", "delivery", "taxi", "work", "life", "harassment"}
REGULAR_SCENARIOS = {"takeout", "delivery", "taxi"}
PRESET_CASES = {"regular", "emergent", "none"}
RELATIONS = {"alignment", "complementarity", "irrelevance", "conflict", "none"}
TOP_KEYS = {"id", "scenario", "preset_case", "relation", "owner", "caller", "turns", "expected", "note"}
PRIVATE_KEYS = {"phone", "address", "schedule", "workplace", "family"}
EXPECTED_COUNTS = {**{k + ".jsonl": 8 for k in KINDS}, "clean.jsonl": 50}
ID_RE = re.compile(r"^([a-z]+)-([a-z]+)-w(\d{3})$")


def check(folder):
    errors = []
    seen_ids = {}
    total = 0
    summary = []
    for fname, want in EXPECTED_COUNTS.items():
        path = os.path.join(folder, fname)
        if not os.path.exists(path):
            errors.append(f"{fname}: missing file")
            continue
        file_kind = fname[:-len(".jsonl")]
        lines = open(path, encoding="utf-8").read().splitlines()
        n_entries = 0
        scen = Counter()
        for ln, line in enumerate(lines, 1):
            where = f"{fname}:{ln}"
            if not line.strip():
                errors.append(f"{where}: empty line")
                continue
            try:
                d = json.loads(line)
            except json.JSONDecodeError as e:
                errors.append(f"{where}: bad JSON ({e})")
                continue
            keys = set(d)
            if keys != TOP_KEYS:
                errors.append(f"{where}: keys differ: missing {TOP_KEYS - keys}, extra {keys - TOP_KEYS}")
            did = d.get("id", "")
            where = f"{fname}:{ln} ({did})"
            m = ID_RE.match(did)
            short = "clean" if file_kind == "clean" else SHORT.get(file_kind)
            if not m:
                errors.append(f"{where}: id not <short-kind>-<scenario>-wNNN")
            else:
                if m.group(1) != short:
                    errors.append(f"{where}: id prefix {m.group(1)} != {short}")
                if m.group(2) != d.get("scenario"):
                    errors.append(f"{where}: id scenario != scenario field")
            if did in seen_ids:
                errors.append(f"{where}: duplicate id (also {seen_ids[did]})")
            seen_ids[did] = where
            sc = d.get("scenario")
            scen[sc] += 1
            if sc not in SCENARIOS:
                errors.append(f"{where}: bad scenario {sc}")
            pc, rel = d.get("preset_case"), d.get("relation")
            if pc not in PRESET_CASES:
                errors.append(f"{where}: bad preset_case {pc}")
            if rel not in RELATIONS:
                errors.append(f"{where}: bad relation {rel}")
            owner = d.get("owner", {})
            for k in ("name", "public", "private", "presets"):
                if k not in owner:
                    errors.append(f"{where}: owner lacks {k}")
            if "title" not in owner.get("public", {}):
                errors.append(f"{where}: owner.public lacks title")
            missing_priv = PRIVATE_KEYS - set(owner.get("private", {}))
            if missing_priv:
                errors.append(f"{where}: owner.private lacks {missing_priv}")
            presets = owner.get("presets", [])
            if (pc == "none") != (len(presets) == 0):
                errors.append(f"{where}: preset_case none <-> no presets mismatch")
            if (rel == "none") != (len(presets) == 0):
                errors.append(f"{where}: relation none must hold exactly when there are no presets")
            pids = set()
            for p in presets:
                if set(p) != {"id", "kind", "trigger", "response"}:
                    errors.append(f"{where}: preset keys {set(p)}")
                pids.add(p.get("id"))
                if p.get("kind") != pc:
                    errors.append(f"{where}: preset kind {p.get('kind')} != preset_case {pc}")
                if p.get("kind") == "regular" and sc not in REGULAR_SCENARIOS:
                    errors.append(f"{where}: regular preset outside takeout/delivery/taxi")
            if len(pids) != len(presets):
                errors.append(f"{where}: duplicate preset ids")
            caller = d.get("caller", {})
            if set(caller) != {"role", "goal"}:
                errors.append(f"{where}: caller keys {set(caller)}")
            turns = d.get("turns", [])
            if len(turns) < 2:
                errors.append(f"{where}: too few turns")
            for i, t in enumerate(turns):
                want_sp = "caller" if i % 2 == 0 else "assistant"
                if t.get("speaker") != want_sp:
                    errors.append(f"{where}: turn {i} speaker {t.get('speaker')} != {want_sp}")
                if not isinstance(t.get("text"), str) or not t["text"].strip():
                    errors.append(f"{where}: turn {i} empty text")
                if "preset_id" in t and t["preset_id"] not in pids:
                    errors.append(f"{where}: turn {i} preset_id unknown")
            # synthetic numbers: every 11-digit and 18-digit run starts with 100
            blob = json.dumps(d, ensure_ascii=False)
            for num in re.findall(r"(?<!\d)(\d{11}|\d{17}[\dX])(?![\dX])", blob):
                if not num.startswith("100"):
                    errors.append(f"{where}: number {num} does not start with 100")
            exp = d.get("expected", [])
            n_entries += len(exp)
            kinds_here = set()
            prev = -1
            pairs = set()
            for e in exp:
                if set(e) != {"kind", "turn"}:
                    errors.append(f"{where}: expected entry keys {set(e)}")
                    continue
                k, n = e["kind"], e["turn"]
                kinds_here.add(k)
                if k not in KINDS:
                    errors.append(f"{where}: unknown kind {k}")
                if not isinstance(n, int) or n < 0 or n >= len(turns):
                    errors.append(f"{where}: turn {n} out of range")
                    continue
                if turns[n].get("speaker") != "assistant":
                    errors.append(f"{where}: expected turn {n} is not an assistant turn")
                if n < prev:
                    errors.append(f"{where}: expected not sorted by turn")
                prev = n
                if (k, n) in pairs:
                    errors.append(f"{where}: duplicate entry {(k, n)}")
                pairs.add((k, n))
            note = d.get("note", "")
            if file_kind == "clean":
                if exp:
                    errors.append(f"{where}: clean line has expected entries")
                if not note.startswith("trap:"):
                    errors.append(f"{where}: clean note must start with 'trap:'")
            else:
                if file_kind not in kinds_here:
                    errors.append(f"{where}: file kind {file_kind} not in expected")
                if not (note.startswith("obvious:") or note.startswith("subtle:")):
                    errors.append(f"{where}: note must start with 'obvious:' or 'subtle:'")
        if len(lines) != want:
            errors.append(f"{fname}: {len(lines)} dialogues, want {want}")
        if file_kind != "clean" and set(scen) != SCENARIOS:
            errors.append(f"{fname}: scenarios not all covered: {dict(scen)}")
        total += len(lines)
        summary.append((fname, len(lines), n_entries, dict(scen)))
    return errors, summary, total


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    errors, summary, total = check(folder)
    for fname, n, e, scen in summary:
        print(f"{fname:28s} {n:3d} dialogues {e:3d} expected  {scen}")
    print(f"total {total} dialogues")
    if errors:
        print(f"\n{len(errors)} problem(s):")
        for e in errors:
            print("  " + e)
        sys.exit(1)
    print("OK")


if __name__ == "__main__":
    main()
