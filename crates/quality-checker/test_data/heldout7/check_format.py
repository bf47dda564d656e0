#!/usr/bin/env python3
"""Standalone format validator for the heldout7 labelled set.

Checks keys, ids, speaker alternation, expected-entry turn indices, kinds,
file-kind presence, clean files, per-file counts, vocabulary, preset/relation
consistency and synthetic phone / ID numbers.  Exits non-zero on any problem.

Usage: python3 check_format.py [DIR]   (DIR defaults to this file's folder)
"""
import json
import os
import re
import sys

KINDS = {
    "safety.privacy": "privacy", "safety.decision": "decision", "safety.factuality": "factuality",
    "safety.embodiment": "embodiment", "natural.repetition": "repetition", "natural.closing": "closing",
    "natural.meta": "meta", "preset.premature": "premature", "preset.missing": "missing",
    "preset.conflict": "conflict", "preset.repeat": "repeat",
}
SCENARIOS = {"takeout", "delivery", "taxi", "work", "life", "harassment"}
REGULAR_SCENARIOS = {"takeout", "delivery", "taxi"}
PRESET_CASES = {"regular", "emergent", "none"}
RELATIONS = {"alignment", "complementarity", "irrelevance", "conflict", "none"}
POSITIVE_COUNT = 8
CLEAN_COUNT = 50
TOP_KEYS = {"id", "scenario", "preset_case", "relation", "owner", "caller", "turns", "expected", "note"}
ID_RE = re.compile(r"^([a-z]+)-([a-z]+)-t(\d{3})$")
PHONE_RE = re.compile(r"(?<!\d)\d{11}(?!\d)")
IDNUM_RE = re.compile(r"(?<![\dXx])\d{17}[\dXx](?![\dXx])")


def strings(obj):
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from strings(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from strings(v)


def check_line(d, file_kind, where, errors):
    def err(msg):
        errors.append("%s: %s" % (where, msg))

    if not isinstance(d, dict):
        err("line is not a JSON object")
        return
    missing = TOP_KEYS - d.keys()
    if missing:
        err("missing keys %s" % sorted(missing))
        return
    if d["scenario"] not in SCENARIOS:
        err("bad scenario %r" % d["scenario"])
    if d["preset_case"] not in PRESET_CASES:
        err("bad preset_case %r" % d["preset_case"])
    if d["relation"] not in RELATIONS:
        err("bad relation %r" % d["relation"])

    # id
    m = ID_RE.match(str(d["id"]))
    short = "clean" if file_kind == "clean" else KINDS[file_kind]
    if not m:
        err("id %r does not match <short-kind>-<scenario>-tNNN" % d["id"])
    else:
        if m.group(1) != short:
            err("id prefix %r should be %r" % (m.group(1), short))
        if m.group(2) != d["scenario"]:
            err("id scenario %r differs from scenario %r" % (m.group(2), d["scenario"]))

    # owner
    owner = d["owner"]
    if not isinstance(owner, dict):
        err("owner is not an object")
        return
    for k in ("name", "public", "private", "presets"):
        if k not in owner:
            err("owner lacks %r" % k)
    if not isinstance(owner.get("public"), dict) or not owner["public"].get("title"):
        err("owner.public.title missing")
    priv = owner.get("private")
    if not isinstance(priv, dict):
        err("owner.private is not an object")
    else:
        for k in ("phone", "address", "schedule", "workplace", "family"):
            if k not in priv:
                err("owner.private lacks %r" % k)
    presets = owner.get("presets", [])
    if not isinstance(presets, list):
        err("owner.presets is not a list")
        presets = []
    ids = set()
    for p in presets:
        for k in ("id", "kind", "trigger", "response"):
            if not isinstance(p, dict) or not p.get(k):
                err("preset lacks %r" % k)
        if isinstance(p, dict):
            if p.get("id") in ids:
                err("duplicate preset id %r" % p.get("id"))
            ids.add(p.get("id"))
            if p.get("kind") not in ("regular", "emergent"):
                err("preset kind %r" % p.get("kind"))
            elif p.get("kind") != d["preset_case"]:
                err("preset kind %r differs from preset_case %r" % (p.get("kind"), d["preset_case"]))
    if (d["preset_case"] == "none") != (len(presets) == 0):
        err("preset_case none must go with an empty preset list and vice versa")
    if (d["relation"] == "none") != (len(presets) == 0):
        err("relation none exactly when there are no presets")
    if d["preset_case"] == "regular" and d["scenario"] not in REGULAR_SCENARIOS:
        err("regular presets only in takeout/delivery/taxi")

    # caller
    c = d["caller"]
    if not isinstance(c, dict) or not c.get("role") or not c.get("goal"):
        err("caller needs role and goal")

    # turns
    turns = d["turns"]
    if not isinstance(turns, list) or len(turns) < 2:
        err("turns must be a list with at least two entries")
        return
    for i, t in enumerate(turns):
        want = "caller" if i % 2 == 0 else "assistant"
        if not isinstance(t, dict) or t.get("speaker") != want:
            err("turn %d should be spoken by %s" % (i, want))
        if not isinstance(t, dict) or not isinstance(t.get("text"), str) or not t["text"].strip():
            err("turn %d has no text" % i)

    # expected
    exp = d["expected"]
    if not isinstance(exp, list):
        err("expected is not a list")
        return
    last = -1
    seen = set()
    for e in exp:
        if not isinstance(e, dict) or set(e.keys()) != {"kind", "turn"}:
            err("expected entry must have exactly kind and turn: %r" % (e,))
            continue
        if e["kind"] not in KINDS:
            err("unknown kind %r" % e["kind"])
        t = e["turn"]
        if not isinstance(t, int) or isinstance(t, bool) or t < 0 or t >= len(turns):
            err("turn index %r out of range" % (t,))
            continue
        if turns[t].get("speaker") != "assistant":
            err("expected turn %d is not an assistant turn" % t)
        if t < last:
            err("expected entries not sorted by turn")
        last = t
        if (e["kind"], t) in seen:
            err("duplicate expected entry %r" % (e,))
        seen.add((e["kind"], t))

    note = d["note"]
    if not isinstance(note, str):
        err("note is not a string")
    elif file_kind == "clean":
        if exp:
            err("clean dialogue has expected entries")
        if not note.startswith("trap:"):
            err("clean note must start with 'trap:'")
    else:
        if file_kind not in {e.get("kind") for e in exp if isinstance(e, dict)}:
            err("file kind %s missing from expected" % file_kind)
        if not (note.startswith("obvious:") or note.startswith("subtle:")):
            err("note must start with 'obvious:' or 'subtle:'")

    # synthetic numbers
    for s in strings(d):
        for num in PHONE_RE.findall(s):
            if not num.startswith("100"):
                err("11-digit number %s does not start with 100" % num)
        for num in IDNUM_RE.findall(s):
            if not num.startswith("100"):
                err("18-digit ID %s does not start with 100" % num)


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    errors = []
    all_ids = {}
    summary = []
    expected_files = list(KINDS) + ["clean"]
    present = {f[:-len(".jsonl")] for f in os.listdir(folder) if f.endswith(".jsonl")}
    for extra in sorted(present - set(expected_files)):
        errors.append("unexpected file %s.jsonl" % extra)
    for fk in expected_files:
        path = os.path.join(folder, fk + ".jsonl")
        if not os.path.exists(path):
            errors.append("missing file %s.jsonl" % fk)
            continue
        rows = 0
        entries = 0
        scen = set()
        with open(path, encoding="utf-8") as fh:
            for ln, raw in enumerate(fh, 1):
                where = "%s.jsonl:%d" % (fk, ln)
                if not raw.strip():
                    errors.append("%s: blank line" % where)
                    continue
                try:
                    d = json.loads(raw)
                except json.JSONDecodeError as ex:
                    errors.append("%s: invalid JSON (%s)" % (where, ex))
                    continue
                rows += 1
                check_line(d, fk, where, errors)
                if isinstance(d, dict):
                    i = d.get("id")
                    if i in all_ids:
                        errors.append("%s: duplicate id %r (first in %s)" % (where, i, all_ids[i]))
                    else:
                        all_ids[i] = where
                    scen.add(d.get("scenario"))
                    if isinstance(d.get("expected"), list):
                        entries += len(d["expected"])
        want = CLEAN_COUNT if fk == "clean" else POSITIVE_COUNT
        if rows != want:
            errors.append("%s.jsonl: %d dialogues, expected %d" % (fk, rows, want))
        if fk != "clean" and scen != SCENARIOS:
            errors.append("%s.jsonl: scenarios %s do not cover all six" % (fk, sorted(s for s in scen if s)))
        summary.append((fk, rows, entries))
    for fk, rows, entries in summary:
        print("%-22s %3d dialogues %3d expected entries" % (fk + ".jsonl", rows, entries))
    if errors:
        print("\n%d problem(s):" % len(errors))
        for e in errors:
            print("  " + e)
        sys.exit(1)
    print("\nOK: %d dialogues, all format checks passed" % len(all_ids))


if __name__ == "__main__":
    main()
