#!/usr/bin/env python3
"""Standalone format validator for the heldout6 labelled set.

Checks the layout and labelling-format rules of the labelled-set README:
keys, id pattern and uniqueness, vocabularies, speaker alternation, expected
entries (valid kind, 0-based index of an assistant turn, sorted, no duplicates),
the file's own kind present on every line, clean lines with no entries, note
prefixes, preset/relation consistency, synthetic phone/ID numbers, and counts.

Usage: python3 check_format.py [DIR]   (DIR defaults to this file's folder)
Exit status 0 when everything passes, 1 otherwise.
"""
import json
import os
import re
import sys
from collections import Counter

SCENARIOS = {"takeout", "delivery", "taxi", "work", "life", "harassment"}
REGULAR_SCENARIOS = {"takeout", "delivery", "taxi"}
PRESET_CASES = {"regular", "emergent", "none"}
RELATIONS = {"alignment", "complementarity", "irrelevance", "conflict", "none"}
KINDS = [
    "safety.privacy", "safety.decision", "safety.factuality", "safety.embodiment",
    "natural.repetition", "natural.closing", "natural.meta",
    "preset.premature", "preset.missing", "preset.conflict", "preset.repeat",
]
SHORT = {k: k.split(".", 1)[1] for k in KINDS}
POSITIVE_COUNT = 8
CLEAN_COUNT = 50
TOP_KEYS = {"id", "scenario", "preset_case", "relation", "owner", "caller", "turns", "expected", "note"}
PRIVATE_USUAL = {"phone", "address", "schedule", "workplace", "family"}


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    errors = []
    seen_ids = {}
    summary = []
    scen_total = Counter()
    kind_total = Counter()

    def err(where, msg):
        errors.append(f"{where}: {msg}")

    files = [(k, SHORT[k]) for k in KINDS] + [("clean", "clean")]
    for fkind, short in files:
        path = os.path.join(root, fkind + ".jsonl")
        if not os.path.exists(path):
            err(path, "missing file")
            continue
        n_lines = 0
        n_entries = 0
        multi = 0
        scen = Counter()
        with open(path, encoding="utf-8") as f:
            for ln, raw in enumerate(f, 1):
                where = f"{fkind}.jsonl:{ln}"
                if not raw.strip():
                    err(where, "blank line")
                    continue
                try:
                    d = json.loads(raw)
                except json.JSONDecodeError as e:
                    err(where, f"bad JSON: {e}")
                    continue
                n_lines += 1
                if not isinstance(d, dict):
                    err(where, "line is not an object")
                    continue
                missing = TOP_KEYS - d.keys()
                if missing:
                    err(where, f"missing keys {sorted(missing)}")
                    continue
                extra = d.keys() - TOP_KEYS
                if extra:
                    err(where, f"unexpected keys {sorted(extra)}")

                # id
                did = d["id"]
                where = f"{fkind}.jsonl:{ln} ({did})"
                m = re.fullmatch(r"([a-z]+)-([a-z]+)-s(\d{3})", did if isinstance(did, str) else "")
                if not m:
                    err(where, "id does not match <short-kind>-<scenario>-sNNN")
                else:
                    if m.group(1) != short:
                        err(where, f"id kind '{m.group(1)}' should be '{short}'")
                    if m.group(2) != d["scenario"]:
                        err(where, "id scenario differs from the scenario field")
                if did in seen_ids:
                    err(where, f"duplicate id, first seen at {seen_ids[did]}")
                seen_ids[did] = where

                # vocab
                sc = d["scenario"]
                if sc not in SCENARIOS:
                    err(where, f"unknown scenario {sc!r}")
                scen[sc] += 1
                scen_total[sc] += 1
                if d["preset_case"] not in PRESET_CASES:
                    err(where, f"unknown preset_case {d['preset_case']!r}")
                if d["relation"] not in RELATIONS:
                    err(where, f"unknown relation {d['relation']!r}")

                # owner
                owner = d["owner"]
                if not isinstance(owner, dict):
                    err(where, "owner is not an object")
                    continue
                for k in ("name", "public", "private", "presets"):
                    if k not in owner:
                        err(where, f"owner.{k} missing")
                pub = owner.get("public", {})
                if not isinstance(pub, dict) or not pub.get("title"):
                    err(where, "owner.public.title missing")
                priv = owner.get("private", {})
                if not isinstance(priv, dict) or not PRIVATE_USUAL <= priv.keys():
                    err(where, f"owner.private lacks some of {sorted(PRIVATE_USUAL)}")
                else:
                    if not re.fullmatch(r"100\d{8}", str(priv.get("phone", ""))):
                        err(where, "owner.private.phone is not an 11-digit number starting with 100")
                    if "id_number" in priv and not re.fullmatch(r"100\d{14}[\dX]", str(priv["id_number"])):
                        err(where, "owner.private.id_number is not 18 chars starting with 100")
                presets = owner.get("presets", [])
                if not isinstance(presets, list):
                    err(where, "owner.presets is not a list")
                    presets = []
                pids = set()
                for p in presets:
                    if not isinstance(p, dict) or not {"id", "kind", "trigger", "response"} <= p.keys():
                        err(where, "preset lacks id/kind/trigger/response")
                        continue
                    if p["id"] in pids:
                        err(where, f"duplicate preset id {p['id']}")
                    pids.add(p["id"])
                    if p["kind"] not in ("regular", "emergent"):
                        err(where, f"preset kind {p['kind']!r} not regular/emergent")
                    if p["kind"] == "regular" and sc not in REGULAR_SCENARIOS:
                        err(where, "regular preset outside takeout/delivery/taxi")
                kinds_here = {p.get("kind") for p in presets if isinstance(p, dict)}
                if not presets:
                    if d["preset_case"] != "none":
                        err(where, "no presets but preset_case is not none")
                    if d["relation"] != "none":
                        err(where, "no presets but relation is not none")
                else:
                    if d["relation"] == "none":
                        err(where, "presets set but relation is none")
                    want = "regular" if "regular" in kinds_here else "emergent"
                    if d["preset_case"] != want:
                        err(where, f"preset_case should be {want}")

                # caller
                caller = d["caller"]
                if not isinstance(caller, dict) or not caller.get("role") or not caller.get("goal"):
                    err(where, "caller.role / caller.goal missing")

                # turns
                turns = d["turns"]
                if not isinstance(turns, list) or len(turns) < 2:
                    err(where, "turns must be a list of at least two turns")
                    continue
                ok_turns = True
                for i, t in enumerate(turns):
                    want = "caller" if i % 2 == 0 else "assistant"
                    if not isinstance(t, dict) or t.get("speaker") != want:
                        err(where, f"turn {i} should be spoken by {want}")
                        ok_turns = False
                    elif not isinstance(t.get("text"), str) or not t["text"].strip():
                        err(where, f"turn {i} has empty text")
                        ok_turns = False
                if ok_turns and turns[-1]["speaker"] == "caller":
                    if fkind != "clean":
                        err(where, "positive dialogue ends on a caller turn")
                    elif "再见" not in turns[-2]["text"] or "再见" not in turns[-1]["text"]:
                        err(where, "a dialogue may end on the caller only with their goodbye after the assistant's")

                # synthetic numbers in the whole line
                for num in re.findall(r"(?<!\d)\d{11}(?!\d)|(?<!\d)\d{17}[\dX](?![\dX])", raw):
                    if not num.startswith("100"):
                        err(where, f"number {num} does not start with 100")

                # expected
                exp = d["expected"]
                if not isinstance(exp, list):
                    err(where, "expected is not a list")
                    continue
                last = -1
                pairs = set()
                for e in exp:
                    if not isinstance(e, dict) or set(e.keys()) != {"kind", "turn"}:
                        err(where, f"bad expected entry {e!r}")
                        continue
                    if e["kind"] not in KINDS:
                        err(where, f"unknown kind {e['kind']!r}")
                    tt = e["turn"]
                    if not isinstance(tt, int) or isinstance(tt, bool) or not 0 <= tt < len(turns):
                        err(where, f"turn {tt!r} out of range")
                        continue
                    if turns[tt].get("speaker") != "assistant":
                        err(where, f"expected turn {tt} is not an assistant turn")
                    if tt < last:
                        err(where, "expected entries not sorted by turn")
                    last = tt
                    if (e["kind"], tt) in pairs:
                        err(where, f"duplicate entry {e['kind']}@{tt}")
                    pairs.add((e["kind"], tt))
                    kind_total[e["kind"]] += 1
                n_entries += len(exp)
                kinds_in = {e.get("kind") for e in exp if isinstance(e, dict)}
                if fkind == "clean":
                    if exp:
                        err(where, "clean line with expected entries")
                    if not str(d["note"]).startswith("trap:"):
                        err(where, "clean note must start with 'trap:'")
                else:
                    if fkind not in kinds_in:
                        err(where, f"file kind {fkind} missing from expected")
                    if len(kinds_in) > 1:
                        multi += 1
                    if not re.match(r"(obvious|subtle): \S", str(d["note"])):
                        err(where, "note must start with 'obvious:' or 'subtle:'")
                    if fkind == "preset.missing":
                        last_asst = max(i for i, t in enumerate(turns) if i % 2 == 1)
                        if ("preset.missing", last_asst) not in pairs:
                            err(where, "preset.missing must be on the last assistant turn")
                if d["preset_case"] == "none" and kinds_in & {"preset.premature", "preset.missing", "preset.conflict", "preset.repeat"}:
                    err(where, "preset kind labelled on a dialogue without presets")

        want_n = CLEAN_COUNT if fkind == "clean" else POSITIVE_COUNT
        if n_lines != want_n:
            err(f"{fkind}.jsonl", f"{n_lines} dialogues, expected {want_n}")
        if fkind != "clean" and set(scen) != SCENARIOS:
            err(f"{fkind}.jsonl", f"does not cover all scenarios: {sorted(scen)}")
        summary.append((fkind, n_lines, n_entries, multi))

    print(f"{'file':<28}{'dialogues':>10}{'entries':>9}{'multi':>7}")
    for fk, n, e, mu in summary:
        print(f"{fk + '.jsonl':<28}{n:>10}{e:>9}{mu:>7}")
    print(f"{'total':<28}{sum(s[1] for s in summary):>10}{sum(s[2] for s in summary):>9}")
    print("entries per kind:", ", ".join(f"{SHORT[k]} {kind_total[k]}" for k in KINDS))
    print("scenarios:", ", ".join(f"{k} {v}" for k, v in scen_total.most_common()))
    if errors:
        print(f"\n{len(errors)} problem(s):")
        for e in errors:
            print("  " + e)
        return 1
    print("\nOK: all format checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
