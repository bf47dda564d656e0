#!/usr/bin/env python3
"""Format check for the heldout15 labelled set (structure only, not label correctness)."""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
KINDS = {
    "safety.privacy": "privacy", "safety.decision": "decision",
    "safety.factuality": "factuality", "safety.embodiment": "embodiment",
    "natural.repetition": "repetition", "natural.closing": "closing",
    "natural.meta": "meta", "preset.premature": "premature",
    "preset.missing": "missing", "preset.conflict": "conflict",
    "preset.repeat": "repeat",
}
SCENARIOS = {"takeout", "delivery", "taxi", "work", "life", "harassment"}
REGULAR_SCENARIOS = {"takeout", "delivery", "taxi"}
CASES = {"regular", "emergent", "none"}
RELATIONS = {"alignment", "complementarity", "irrelevance", "conflict", "none"}
TOP_KEYS = {"id", "scenario", "preset_case", "relation", "owner", "caller",
            "turns", "expected", "note"}
PRIVATE_KEYS = {"phone", "address", "schedule", "workplace", "family"}
PER_KIND = 8
CLEAN_COUNT = 50
TOTAL = len(KINDS) * PER_KIND + CLEAN_COUNT
ID_RE = re.compile(r"^([a-z]+)-([a-z]+)-v(\d{3})$")
DIGITS_RE = re.compile(r"\d{7,}")

errors = []


def err(where, msg):
    errors.append(f"{where}: {msg}")


def check_numbers(where, obj):
    text = json.dumps(obj, ensure_ascii=False)
    for run in DIGITS_RE.findall(text):
        if not run.startswith("100") or len(run) not in (11, 18):
            err(where, f"non-synthetic digit run {run!r} (must be 11 or 18 digits starting 100)")


def check_line(fname, lineno, d, file_kind, seen_ids, seen_nums):
    where = f"{fname}:{lineno}"
    keys = set(d)
    if keys != TOP_KEYS:
        err(where, f"keys {sorted(keys ^ TOP_KEYS)} missing or unexpected")
        return None
    did = d["id"]
    where = f"{fname}:{lineno} ({did})"
    m = ID_RE.match(did)
    if not m:
        err(where, "id not of the form <short-kind>-<scenario>-vNNN")
    else:
        short, scen, num = m.group(1), m.group(2), int(m.group(3))
        want_short = "clean" if file_kind is None else KINDS[file_kind]
        if short != want_short:
            err(where, f"id short kind {short!r} != {want_short!r}")
        if scen != d["scenario"]:
            err(where, f"id scenario {scen!r} != scenario field {d['scenario']!r}")
        if num in seen_nums:
            err(where, f"running number v{num:03d} used twice")
        seen_nums.add(num)
    if did in seen_ids:
        err(where, "duplicate id")
    seen_ids.add(did)

    if d["scenario"] not in SCENARIOS:
        err(where, f"bad scenario {d['scenario']!r}")
    if d["preset_case"] not in CASES:
        err(where, f"bad preset_case {d['preset_case']!r}")
    if d["relation"] not in RELATIONS:
        err(where, f"bad relation {d['relation']!r}")
    if d["preset_case"] == "regular" and d["scenario"] not in REGULAR_SCENARIOS:
        err(where, "regular presets only in takeout/delivery/taxi")

    owner = d["owner"]
    if not isinstance(owner, dict) or set(owner) != {"name", "public", "private", "presets"}:
        err(where, "owner must have exactly name/public/private/presets")
    else:
        if not isinstance(owner["name"], str) or not owner["name"]:
            err(where, "owner.name empty")
        if not isinstance(owner["public"], dict) or not owner["public"].get("title"):
            err(where, "owner.public.title missing")
        priv = owner["private"]
        if not isinstance(priv, dict) or not PRIVATE_KEYS <= set(priv):
            err(where, "owner.private lacks one of the five usual keys")
        else:
            if not re.fullmatch(r"100\d{8}", priv["phone"]):
                err(where, f"owner phone {priv['phone']!r} not 11 digits starting 100")
            if "id_number" in priv and not re.fullmatch(r"100\d{15}", priv["id_number"]):
                err(where, "id_number not 18 digits starting 100")
        presets = owner["presets"]
        if not isinstance(presets, list):
            err(where, "presets must be a list")
            presets = []
        for p in presets:
            if set(p) != {"id", "kind", "trigger", "response"}:
                err(where, f"preset keys {sorted(p)}")
            elif p["kind"] != d["preset_case"]:
                err(where, f"preset kind {p['kind']!r} != preset_case {d['preset_case']!r}")
        none_case = d["preset_case"] == "none"
        if none_case != (len(presets) == 0):
            err(where, "preset_case none <=> no presets violated")
        if none_case != (d["relation"] == "none"):
            err(where, "relation none <=> preset_case none violated")

    caller = d["caller"]
    if not isinstance(caller, dict) or set(caller) != {"role", "goal"} or not all(caller.values()):
        err(where, "caller must have non-empty role and goal")

    turns = d["turns"]
    if not isinstance(turns, list) or not (4 <= len(turns) <= 12):
        err(where, f"turn count {len(turns) if isinstance(turns, list) else '?'} outside 4..12")
        turns = turns if isinstance(turns, list) else []
    for i, t in enumerate(turns):
        if set(t) != {"speaker", "text"}:
            err(where, f"turn {i} keys {sorted(t)} (no action/preset_id allowed)")
            continue
        want = "caller" if i % 2 == 0 else "assistant"
        if t["speaker"] != want:
            err(where, f"turn {i} speaker {t['speaker']!r}, expected {want!r}")
        if not isinstance(t["text"], str) or not t["text"].strip():
            err(where, f"turn {i} empty text")

    exp = d["expected"]
    if not isinstance(exp, list):
        err(where, "expected must be a list")
        exp = []
    prev = None
    kinds_here = set()
    for e in exp:
        if set(e) != {"kind", "turn"}:
            err(where, f"expected entry keys {sorted(e)}")
            continue
        if e["kind"] not in KINDS:
            err(where, f"unknown kind {e['kind']!r}")
        kinds_here.add(e["kind"])
        tn = e["turn"]
        if not isinstance(tn, int) or not (0 <= tn < len(turns)):
            err(where, f"expected turn {tn!r} out of range")
        elif turns[tn]["speaker"] != "assistant":
            err(where, f"expected turn {tn} is not an assistant turn")
        key = (tn, e["kind"])
        if prev is not None and key < prev:
            err(where, "expected entries not sorted by turn")
        if prev == key:
            err(where, f"duplicate expected entry {key}")
        prev = key

    note = d["note"]
    if file_kind is None:
        if exp:
            err(where, "clean line with non-empty expected")
        if not note.startswith("trap:"):
            err(where, "clean note must start with 'trap:'")
        prefix = "trap"
    else:
        if file_kind not in kinds_here:
            err(where, f"file kind {file_kind} not among expected kinds")
        prefix = note.split(":", 1)[0]
        if prefix not in ("obvious", "subtle", "borderline"):
            err(where, "note must start with obvious:/subtle:/borderline:")
    if "\n" in note:
        err(where, "note must be one line")

    check_numbers(where, d)
    return d["scenario"], prefix, len(exp)


def main():
    seen_ids, seen_nums = set(), set()
    total = 0
    table = []
    files = [(f"{k}.jsonl", k) for k in KINDS] + [("clean.jsonl", None)]
    present = {f for f in os.listdir(HERE) if f.endswith(".jsonl")}
    extra = present - {f for f, _ in files}
    if extra:
        err("folder", f"unexpected jsonl files {sorted(extra)}")
    for fname, kind in files:
        path = os.path.join(HERE, fname)
        if not os.path.exists(path):
            err(fname, "missing")
            continue
        scen, prefixes, n, n_exp = set(), set(), 0, 0
        with open(path, encoding="utf-8") as f:
            for lineno, line in enumerate(f, 1):
                if not line.strip():
                    err(f"{fname}:{lineno}", "blank line")
                    continue
                try:
                    d = json.loads(line)
                except json.JSONDecodeError as e:
                    err(f"{fname}:{lineno}", f"invalid JSON: {e}")
                    continue
                r = check_line(fname, lineno, d, kind, seen_ids, seen_nums)
                n += 1
                if r:
                    scen.add(r[0]); prefixes.add(r[1]); n_exp += r[2]
        want = CLEAN_COUNT if kind is None else PER_KIND
        if n != want:
            err(fname, f"{n} dialogues, expected {want}")
        if kind is not None:
            if scen != SCENARIOS:
                err(fname, f"scenarios missing: {sorted(SCENARIOS - scen)}")
            if prefixes != {"obvious", "subtle", "borderline"}:
                err(fname, f"note prefixes present: {sorted(prefixes)} (need a mix of all three)")
        table.append((fname, n, n_exp))
        total += n
    if total != TOTAL:
        err("set", f"{total} dialogues, expected {TOTAL}")
    if seen_nums and seen_nums != set(range(1, TOTAL + 1)):
        err("set", "running numbers are not exactly v001..v%03d" % TOTAL)

    for fname, n, n_exp in table:
        print(f"{fname:28s} {n:4d} dialogues {n_exp:4d} expected")
    print(f"{'total':28s} {total:4d} dialogues {sum(t[2] for t in table):4d} expected")
    if errors:
        print(f"\n{len(errors)} problem(s):")
        for e in errors:
            print("  " + e)
        sys.exit(1)
    print("\nOK")


if __name__ == "__main__":
    main()
