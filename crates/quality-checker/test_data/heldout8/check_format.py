#!/usr/bin/env python3
"""Standalone format validator for the heldout8 labelled set.

Checks the format and labelling-format rules of the labelled README (not the
labels' correctness): keys, ids, scenario/preset/relation vocabulary,
alternation, expected-turn indices, per-file kind presence, clean files,
synthetic numbers and counts. Exit code 0 when everything passes.
"""
import collections
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

KINDS = ["safety.privacy", "safety.decision", "safety.factuality", "safety.embodiment",
         "natural.repetition", "natural.closing", "natural.meta",
         "preset.premature", "preset.missing", "preset.conflict", "preset.repeat"]
SHORT = {k: k.split(".", 1)[1] for k in KINDS}
SCENARIOS = {"takeout", "delivery", "taxi", "work", "life", "harassment"}
REGULAR_SCENARIOS = {"takeout", "delivery", "taxi"}
PRESET_CASES = {"regular", "emergent", "none"}
RELATIONS = {"alignment", "complementarity", "irrelevance", "conflict", "none"}
TOP_KEYS = {"id", "scenario", "preset_case", "relation", "owner", "caller", "turns", "expected", "note"}
PRIVATE_KEYS = {"phone", "address", "schedule", "workplace", "family"}
PER_KIND_FILE = 8
CLEAN_COUNT = 50

errors = []


def err(where, msg):
    errors.append(f"{where}: {msg}")


def check_numbers(where, raw):
    for m in re.finditer(r"(?<!\d)(\d{11}|\d{17}[\dXx])(?![\dXx])", raw):
        if not m.group(1).startswith("100"):
            err(where, f"number {m.group(1)} does not start with 100")


def check_line(fname, lineno, raw, file_kind, seen_ids):
    where = f"{fname}:{lineno}"
    try:
        d = json.loads(raw)
    except json.JSONDecodeError as e:
        err(where, f"invalid JSON: {e}")
        return None
    if not isinstance(d, dict):
        err(where, "line is not a JSON object")
        return None
    missing = TOP_KEYS - d.keys()
    if missing:
        err(where, f"missing keys {sorted(missing)}")
        return None
    extra = d.keys() - TOP_KEYS
    if extra:
        err(where, f"unexpected keys {sorted(extra)}")
    did = d["id"]
    where = f"{fname}:{lineno} ({did})"
    sc = d["scenario"]
    if sc not in SCENARIOS:
        err(where, f"bad scenario {sc!r}")
    short = "clean" if file_kind is None else SHORT[file_kind]
    m = re.fullmatch(r"([a-z]+)-([a-z]+)-u(\d{3})", str(did))
    if not m:
        err(where, "id does not match <short-kind>-<scenario>-uNNN")
    else:
        if m.group(1) != short:
            err(where, f"id kind {m.group(1)!r} != file kind {short!r}")
        if m.group(2) != sc:
            err(where, f"id scenario {m.group(2)!r} != scenario {sc!r}")
    if did in seen_ids:
        err(where, f"duplicate id (also {seen_ids[did]})")
    seen_ids[did] = where

    # presets / relation
    pc, rel = d["preset_case"], d["relation"]
    if pc not in PRESET_CASES:
        err(where, f"bad preset_case {pc!r}")
    if rel not in RELATIONS:
        err(where, f"bad relation {rel!r}")
    owner = d["owner"]
    if not isinstance(owner, dict):
        err(where, "owner is not an object")
        return d
    for k in ("name", "public", "private", "presets"):
        if k not in owner:
            err(where, f"owner.{k} missing")
    pub = owner.get("public", {})
    if not isinstance(pub, dict) or not pub.get("title"):
        err(where, "owner.public.title missing")
    priv = owner.get("private", {})
    if not isinstance(priv, dict) or PRIVATE_KEYS - priv.keys():
        err(where, f"owner.private lacks {sorted(PRIVATE_KEYS - set(priv))}")
    elif not re.fullmatch(r"100\d{8}", str(priv["phone"])):
        err(where, f"owner phone {priv['phone']!r} is not an 11-digit 100… number")
    presets = owner.get("presets", [])
    if not isinstance(presets, list):
        err(where, "owner.presets is not a list")
        presets = []
    pids = set()
    for p in presets:
        for k in ("id", "kind", "trigger", "response"):
            if not p.get(k):
                err(where, f"preset lacks {k}")
        if p.get("kind") != pc:
            err(where, f"preset kind {p.get('kind')!r} != preset_case {pc!r}")
        if p.get("id") in pids:
            err(where, f"duplicate preset id {p.get('id')}")
        pids.add(p.get("id"))
    if (pc == "none") != (len(presets) == 0):
        err(where, "preset_case none must go with an empty preset list and vice versa")
    if (rel == "none") != (len(presets) == 0):
        err(where, "relation must be none exactly when no preset is set")
    if pc == "regular" and sc not in REGULAR_SCENARIOS:
        err(where, f"regular preset in scenario {sc}")

    caller = d["caller"]
    if not isinstance(caller, dict) or not caller.get("role") or not caller.get("goal"):
        err(where, "caller.role / caller.goal missing")

    # turns
    turns = d["turns"]
    if not isinstance(turns, list) or len(turns) < 2:
        err(where, "turns must be a list of at least two turns")
        return d
    for i, t in enumerate(turns):
        want = "caller" if i % 2 == 0 else "assistant"
        if t.get("speaker") != want:
            err(where, f"turn {i} speaker {t.get('speaker')!r}, expected {want!r} (caller first, alternating)")
        if not isinstance(t.get("text"), str) or not t["text"].strip():
            err(where, f"turn {i} has empty text")
        if "preset_id" in t:
            if t.get("speaker") != "assistant":
                err(where, f"turn {i}: preset_id on a caller turn")
            if t["preset_id"] not in pids:
                err(where, f"turn {i}: preset_id {t['preset_id']!r} not among presets")
        extra_t = t.keys() - {"speaker", "text", "action", "preset_id"}
        if extra_t:
            err(where, f"turn {i} unexpected keys {sorted(extra_t)}")
    if turns[-1].get("speaker") != "assistant":
        if file_kind is not None:
            err(where, "positive dialogue should end on an assistant turn")
        elif len(turns) < 3 or turns[-2].get("speaker") != "assistant":
            err(where, "dialogue ends on the caller without a prior assistant close")

    # expected
    exp = d["expected"]
    if not isinstance(exp, list):
        err(where, "expected is not a list")
        return d
    last = -1
    seen_pairs = set()
    for e in exp:
        k, n = e.get("kind"), e.get("turn")
        if set(e) != {"kind", "turn"}:
            err(where, f"expected entry keys {sorted(e)}")
        if k not in KINDS:
            err(where, f"unknown kind {k!r}")
        if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n < len(turns):
            err(where, f"turn {n!r} out of range")
            continue
        if turns[n].get("speaker") != "assistant":
            err(where, f"expected turn {n} is not an assistant turn")
        if n < last:
            err(where, "expected entries not sorted by turn")
        last = n
        if (k, n) in seen_pairs:
            err(where, f"duplicate expected entry {(k, n)}")
        seen_pairs.add((k, n))
    if file_kind is None:
        if exp:
            err(where, "clean dialogue with expected entries")
        if not str(d["note"]).startswith("trap:"):
            err(where, "clean note must start with 'trap:'")
    else:
        if file_kind not in {e.get("kind") for e in exp}:
            err(where, f"file kind {file_kind} absent from expected")
        if str(d["note"]).startswith("trap:"):
            err(where, "positive note starts with 'trap:'")
        if file_kind == "preset.missing":
            lastA = max(i for i, t in enumerate(turns) if t.get("speaker") == "assistant")
            for e in exp:
                if e.get("kind") == "preset.missing" and e.get("turn") != lastA:
                    err(where, "preset.missing must be on the last assistant turn")
    if any(e.get("kind", "").startswith("preset.") for e in exp) and not presets:
        err(where, "preset.* kind on a dialogue without presets")
    if not isinstance(d["note"], str) or not d["note"].strip():
        err(where, "empty note")
    check_numbers(where, raw)
    return d


def main():
    seen_ids = {}
    summary = []
    per_kind = collections.Counter()
    scen = collections.Counter()
    expected_files = [f"{k}.jsonl" for k in KINDS] + ["clean.jsonl"]
    present = sorted(f for f in os.listdir(HERE) if f.endswith(".jsonl"))
    for f in present:
        if f not in expected_files:
            err(f, "unexpected .jsonl file")
    for fname in expected_files:
        path = os.path.join(HERE, fname)
        file_kind = None if fname == "clean.jsonl" else fname[:-len(".jsonl")]
        if not os.path.exists(path):
            err(fname, "file missing")
            continue
        rows = []
        with open(path, encoding="utf-8") as fh:
            for lineno, raw in enumerate(fh, 1):
                if not raw.strip():
                    err(f"{fname}:{lineno}", "blank line")
                    continue
                d = check_line(fname, lineno, raw, file_kind, seen_ids)
                if d is not None:
                    rows.append(d)
        want = CLEAN_COUNT if file_kind is None else PER_KIND_FILE
        if len(rows) != want:
            err(fname, f"{len(rows)} dialogues, expected {want}")
        if file_kind is not None:
            missing_sc = SCENARIOS - {r["scenario"] for r in rows}
            if missing_sc:
                err(fname, f"scenarios not covered: {sorted(missing_sc)}")
        n_exp = sum(len(r["expected"]) for r in rows)
        multi = sum(1 for r in rows if len({e["kind"] for e in r["expected"]}) > 1)
        for r in rows:
            scen[r["scenario"]] += 1
            for e in r["expected"]:
                per_kind[e["kind"]] += 1
        summary.append((fname, len(rows), n_exp, multi))

    print(f"{'file':28} {'dialogues':>9} {'expected':>9} {'multi-kind':>10}")
    for fname, n, e, m in summary:
        print(f"{fname:28} {n:9d} {e:9d} {m:10d}")
    print("total", sum(s[1] for s in summary), "dialogues,", sum(s[2] for s in summary), "expected entries")
    print("entries per kind:", ", ".join(f"{k.split('.')[1]} {per_kind[k]}" for k in KINDS))
    print("scenarios:", ", ".join(f"{k} {v}" for k, v in scen.most_common()))
    if errors:
        print(f"\nFAILED: {len(errors)} problem(s)")
        for e in errors:
            print("  -", e)
        return 1
    print("\nOK: format checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
