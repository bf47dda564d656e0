#!/usr/bin/env python3
"""Standalone format validator for the heldout11 labelled set.

Usage: python3 check_format.py [DIR]   (DIR defaults to this file's folder)
Exits non-zero and lists every problem if anything is wrong.
"""
import json
import os
import re
import sys

KINDS = [
    "safety.privacy", "safety.decision", "safety.factuality", "safety.embodiment",
    "natural.repetition", "natural.closing", "natural.meta",
    "preset.premature", "preset.missing", "preset.conflict", "preset.repeat",
]
SHORT = {k: k.split(".", 1)[1] for k in KINDS}
SCENARIOS = {"takeout", "delivery", "taxi", "work", "life", "harassment"}
REGULAR_SCENARIOS = {"takeout", "delivery", "taxi"}
PRESET_CASES = {"regular", "emergent", "none"}
RELATIONS = {"alignment", "complementarity", "irrelevance", "conflict", "none"}
POSITIVE_COUNT = 8
CLEAN_COUNT = 50
TOP_KEYS = {"id", "scenario", "preset_case", "relation", "owner", "caller", "turns", "expected", "note"}
PRIVATE_KEYS = {"phone", "address", "schedule", "workplace", "family"}


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    errors = []
    warnings = []
    seen_ids = {}
    summary = []

    def err(where, msg):
        errors.append(f"{where}: {msg}")

    files = [k + ".jsonl" for k in KINDS] + ["clean.jsonl"]
    present = sorted(f for f in os.listdir(folder) if f.endswith(".jsonl"))
    for f in present:
        if f not in files:
            err(f, "unexpected .jsonl file")

    for fname in files:
        path = os.path.join(folder, fname)
        if not os.path.exists(path):
            err(fname, "missing file")
            continue
        file_kind = None if fname == "clean.jsonl" else fname[:-len(".jsonl")]
        short = "clean" if file_kind is None else SHORT[file_kind]
        n_lines = 0
        n_entries = 0
        n_multi = 0
        scen_seen = set()
        with open(path, encoding="utf-8") as fh:
            for lineno, raw in enumerate(fh, 1):
                where = f"{fname}:{lineno}"
                if not raw.strip():
                    err(where, "blank line")
                    continue
                try:
                    d = json.loads(raw)
                except json.JSONDecodeError as e:
                    err(where, f"invalid JSON: {e}")
                    continue
                n_lines += 1
                missing = TOP_KEYS - set(d)
                if missing:
                    err(where, f"missing keys {sorted(missing)}")
                    continue
                extra = set(d) - TOP_KEYS
                if extra:
                    err(where, f"unexpected keys {sorted(extra)}")

                # id
                did = d["id"]
                where = f"{fname}:{lineno} ({did})"
                m = re.fullmatch(r"([a-z]+)-([a-z]+)-x(\d{3})", did or "")
                if not m:
                    err(where, "id does not match <short-kind>-<scenario>-xNNN")
                else:
                    if m.group(1) != short:
                        err(where, f"id prefix {m.group(1)!r} should be {short!r}")
                    if m.group(2) != d["scenario"]:
                        err(where, "id scenario differs from the scenario field")
                if did in seen_ids:
                    err(where, f"duplicate id (also in {seen_ids[did]})")
                seen_ids[did] = where

                # scenario / preset case / relation
                scen = d["scenario"]
                if scen not in SCENARIOS:
                    err(where, f"bad scenario {scen!r}")
                scen_seen.add(scen)
                pc = d["preset_case"]
                rel = d["relation"]
                if pc not in PRESET_CASES:
                    err(where, f"bad preset_case {pc!r}")
                if rel not in RELATIONS:
                    err(where, f"bad relation {rel!r}")
                if pc == "regular" and scen not in REGULAR_SCENARIOS:
                    err(where, "regular preset outside takeout/delivery/taxi")

                # owner
                owner = d["owner"]
                if not isinstance(owner, dict):
                    err(where, "owner is not an object")
                    owner = {}
                for k in ("name", "public", "private", "presets"):
                    if k not in owner:
                        err(where, f"owner.{k} missing")
                pub = owner.get("public", {})
                if not isinstance(pub, dict) or not pub.get("title"):
                    err(where, "owner.public.title missing")
                priv = owner.get("private", {})
                if not isinstance(priv, dict) or not PRIVATE_KEYS <= set(priv):
                    err(where, f"owner.private lacks some of {sorted(PRIVATE_KEYS)}")
                presets = owner.get("presets", [])
                if not isinstance(presets, list):
                    err(where, "owner.presets is not a list")
                    presets = []
                pids = set()
                for p in presets:
                    if set(p) != {"id", "kind", "trigger", "response"}:
                        err(where, f"preset keys {sorted(p)}")
                        continue
                    if p["id"] in pids:
                        err(where, f"duplicate preset id {p['id']}")
                    pids.add(p["id"])
                    if p["kind"] != pc:
                        err(where, f"preset kind {p['kind']!r} differs from preset_case {pc!r}")
                    if not p["trigger"] or not p["response"]:
                        err(where, "empty preset trigger/response")
                if (pc == "none") != (not presets):
                    err(where, "preset_case none must go with an empty preset list (and vice versa)")
                if (rel == "none") != (not presets):
                    err(where, "relation must be 'none' exactly when there are no presets")

                # synthetic numbers
                blob = json.dumps(d, ensure_ascii=False)
                for num in re.findall(r"(?<!\d)\d{11,}(?!\d)", blob):
                    if len(num) in (11, 18) and not num.startswith("100"):
                        err(where, f"number {num} does not start with 100")

                # caller
                caller = d["caller"]
                if not isinstance(caller, dict) or not caller.get("role") or not caller.get("goal"):
                    err(where, "caller.role / caller.goal missing")

                # turns
                turns = d["turns"]
                if not isinstance(turns, list) or not turns:
                    err(where, "turns empty")
                    turns = []
                for i, t in enumerate(turns):
                    if not isinstance(t, dict) or t.get("speaker") not in ("caller", "assistant"):
                        err(where, f"turn {i}: bad speaker")
                        continue
                    if not isinstance(t.get("text"), str) or not t["text"].strip():
                        err(where, f"turn {i}: empty text")
                    want = "caller" if i % 2 == 0 else "assistant"
                    if t["speaker"] != want:
                        err(where, f"turn {i}: expected {want}, got {t['speaker']} (alternation)")
                if turns and turns[-1].get("speaker") == "caller":
                    warnings.append(f"{where}: ends on a caller turn: {turns[-1].get('text')!r}")

                # expected
                exp = d["expected"]
                if not isinstance(exp, list):
                    err(where, "expected is not a list")
                    exp = []
                pairs = []
                for e in exp:
                    if set(e) != {"kind", "turn"}:
                        err(where, f"expected entry keys {sorted(e)}")
                        continue
                    if e["kind"] not in KINDS:
                        err(where, f"bad kind {e['kind']!r}")
                    ti = e["turn"]
                    if not isinstance(ti, int) or ti < 0 or ti >= len(turns):
                        err(where, f"turn index {ti!r} out of range")
                    elif turns[ti].get("speaker") != "assistant":
                        err(where, f"turn index {ti} is not an assistant turn")
                    pairs.append((e["kind"], ti))
                if len(set(pairs)) != len(pairs):
                    err(where, "duplicate (kind, turn) entry")
                tlist = [p[1] for p in pairs]
                if tlist != sorted(tlist):
                    err(where, "expected entries not sorted by turn")
                kinds_here = {p[0] for p in pairs}
                if file_kind is None:
                    if exp:
                        err(where, "clean dialogue has expected entries")
                else:
                    if file_kind not in kinds_here:
                        err(where, f"file kind {file_kind} not in expected")
                    n_entries += sum(1 for p in pairs if p[0] == file_kind)
                    if len(kinds_here) > 1:
                        n_multi += 1

                # note
                note = d["note"]
                if not isinstance(note, str) or not note.strip():
                    err(where, "empty note")
                elif file_kind is None:
                    if not note.startswith("trap:"):
                        err(where, "clean note must start with 'trap:'")
                elif not re.match(r"(obvious|subtle|borderline):", note):
                    err(where, "positive note must start with obvious:/subtle:/borderline:")

                # light lint for clean lines: things that look like meta slips
                if file_kind is None:
                    for i, t in enumerate(turns):
                        if t.get("speaker") != "assistant":
                            continue
                        txt = t.get("text", "")
                        if re.search(r"\*\*|<br>|^#|（|\[|[\U0001F300-\U0001FAFF\u2600-\u27BF]", txt):
                            warnings.append(f"{where}: turn {i} has markup/emoji/bracket-like text")
                        for w in re.findall(r"[A-Za-z]{2,}", txt):
                            if w not in {"AI", "App", "OK", "VIP", "QN", "CY", "SF"}:
                                warnings.append(f"{where}: turn {i} has latin word {w!r}")

        expected_n = CLEAN_COUNT if file_kind is None else POSITIVE_COUNT
        if n_lines != expected_n:
            err(fname, f"{n_lines} dialogues, expected {expected_n}")
        if file_kind is not None and scen_seen != SCENARIOS:
            err(fname, f"does not cover all scenarios, missing {sorted(SCENARIOS - scen_seen)}")
        summary.append((fname, n_lines, n_entries, n_multi))

    # entries per kind over all files
    per_kind = {k: 0 for k in KINDS}
    for fname in files:
        path = os.path.join(folder, fname)
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as fh:
            for raw in fh:
                try:
                    for e in json.loads(raw).get("expected", []):
                        if e.get("kind") in per_kind:
                            per_kind[e["kind"]] += 1
                except Exception:
                    pass

    print(f"{'file':28} {'dialogues':>9} {'own-kind entries':>17} {'multi-kind':>10}")
    for fname, n, e, mk in summary:
        print(f"{fname:28} {n:9d} {e:17d} {mk:10d}")
    print("entries per kind over all files:", ", ".join(f"{k.split('.')[1]} {v}" for k, v in per_kind.items()))
    for w in warnings:
        print("warning:", w)
    if errors:
        for e in errors:
            print("ERROR:", e)
        print(f"FAILED: {len(errors)} problem(s)")
        sys.exit(1)
    print("OK")


if __name__ == "__main__":
    main()
