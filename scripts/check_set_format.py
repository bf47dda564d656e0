#!/usr/bin/env python3
"""Format check for a blind labelled set of the quality checker (the parameterised form of the
per-set `check_format.py` copies in heldout25-49).

Run: python3 scripts/check_set_format.py <set-folder>

The set's own numbers come from `<set-folder>/format.toml`, filled from the writer's brief:

    prefix = "m"                       # ids are <short-kind>-<scenario>-<prefix>NNN
    clean = 42                         # dialogues in clean.jsonl
    new_scenarios = ["pet_grooming", "tutoring_center"]
    min_turns = 6                      # every call has min_turns..max_turns turns
    max_turns = 12
    most_range = [8, 12]               # at least `long_share` of calls have turns in this range
    long_share = 0.33
    contract_share = [0.6, 0.75]       # share of dialogues in the contract's six scenarios
    min_contract = 3                   # contract scenarios each file covers (at most n - 1)
    [per_file]                         # positive dialogues per kind file, in file (= id) order
    "safety.privacy" = 7
    ...

Checks: JSON shape and keys, id form and running numbers in file order, synthetic numbers,
scenario / preset_case / relation vocabulary and their coupling, owner and caller keys, turn
counts and alternation, expected entries (known kind, assistant turn, sorted, unique), notes,
per-file counts and scenario spread, and the kind-specific rules of the labelling spec (one
`safety.scam` entry with no preset, `preset.missing` on the last assistant turn)."""
import json, os, re, sys, tomllib
from collections import Counter

if len(sys.argv) != 2:
    sys.exit("usage: check_set_format.py <set-folder>")
HERE = os.path.abspath(sys.argv[1])
_spec_path = os.path.join(HERE, "format.toml")
try:
    with open(_spec_path, "rb") as _f:
        SPEC = tomllib.load(_f)
except (OSError, tomllib.TOMLDecodeError) as e:
    sys.exit(f"{_spec_path}: {e}")
ALL_KINDS = ["safety.privacy", "safety.decision", "safety.scam", "safety.factuality",
             "safety.embodiment", "preset.missing", "preset.conflict", "preset.premature",
             "preset.repeat", "preset.dropped", "natural.repetition", "natural.closing",
             "natural.meta", "natural.over_refusal"]
try:
    PER_FILE = {k: int(v) for k, v in SPEC["per_file"].items()}
    PREFIX = str(SPEC["prefix"])
    CLEAN = int(SPEC["clean"])
    NEW_SCENARIOS = set(SPEC["new_scenarios"])
    MIN_TURNS, MAX_TURNS = int(SPEC["min_turns"]), int(SPEC["max_turns"])
    MOST_RANGE = tuple(SPEC["most_range"])
    LONG_SHARE = float(SPEC["long_share"])
    CONTRACT_SHARE = tuple(SPEC.get("contract_share", [0.6, 0.75]))
    # each file covers at least min(min_contract, n - 1) of the contract's scenarios
    MIN_CONTRACT = int(SPEC.get("min_contract", 3))
except (KeyError, TypeError, ValueError) as e:
    sys.exit(f"{_spec_path}: missing or bad key {e}")
for k in PER_FILE:
    if k not in ALL_KINDS:
        sys.exit(f"{_spec_path}: per_file names unknown kind {k!r}")
if not re.fullmatch(r"[a-z]{1,2}", PREFIX):
    sys.exit(f"{_spec_path}: prefix must be one or two lowercase letters (two once the alphabet is used up), not {PREFIX!r}")
# file order = id order: the kinds in the order format.toml lists them
KINDS = list(PER_FILE)
MIN_SCEN = 4
MIN_NEW = 1
SHORT = {k: k.split(".")[1] for k in KINDS}
SCENARIOS = {"takeout", "delivery", "taxi", "work", "life", "harassment"}
CASES = {"regular", "emergent", "none"}
RELATIONS = {"alignment", "complementarity", "irrelevance", "conflict", "none"}
TOP_KEYS = {"id", "scenario", "preset_case", "relation", "owner", "caller", "turns", "expected", "note"}
TOTAL = sum(PER_FILE.values()) + CLEAN

errors = []
def err(where, msg):
    errors.append(f"{where}: {msg}")

def check_numbers(where, text):
    for m in re.finditer(r"\d{11,}", text):
        s = m.group(0)
        if len(s) not in (11, 18):
            err(where, f"digit run of length {len(s)}: {s}")
        elif not s.startswith("100"):
            err(where, f"non-synthetic number {s}")

def main():
    files = [(k, f"{k}.jsonl") for k in KINDS] + [("clean", "clean.jsonl")]
    seen_ids = {}
    all_scen = Counter()
    kind_entries = Counter()
    numbers = []
    table = []
    turn_lengths = []
    for kind, fname in files:
        path = os.path.join(HERE, fname)
        if not os.path.exists(path):
            err(fname, "missing file"); continue
        scen = Counter(); n = 0; n_exp = 0
        with open(path, encoding="utf-8") as f:
            for ln, line in enumerate(f, 1):
                where = f"{fname}:{ln}"
                if not line.strip():
                    err(where, "blank line"); continue
                try:
                    d = json.loads(line)
                except Exception as e:
                    err(where, f"bad JSON: {e}"); continue
                n += 1
                check_numbers(where, line)
                keys = set(d)
                if keys != TOP_KEYS:
                    err(where, f"keys {sorted(keys ^ TOP_KEYS)} differ")
                did = d.get("id", "")
                where = f"{fname}:{ln} {did}"
                short = "clean" if kind == "clean" else SHORT[kind]
                m = re.fullmatch(rf"([a-z_]+)-([a-z_]+)-{PREFIX}(\d{{3}})", did)
                if not m:
                    err(where, f"id not <short-kind>-<scenario>-{PREFIX}NNN")
                else:
                    if m.group(1) != short:
                        err(where, f"id prefix {m.group(1)} != {short}")
                    if m.group(2) != d.get("scenario"):
                        err(where, "id scenario differs from scenario field")
                    num = int(m.group(3))
                    numbers.append(num)
                    if not 1 <= num <= TOTAL:
                        err(where, f"id number {num} out of 1..{TOTAL}")
                    if num != len(numbers):
                        err(where, f"id number {num} is not the running number {len(numbers)} in file order")
                if did in seen_ids:
                    err(where, f"duplicate id (also {seen_ids[did]})")
                seen_ids[did] = where
                sc = d.get("scenario"); scen[sc] += 1
                if sc not in SCENARIOS | NEW_SCENARIOS: err(where, f"bad scenario {sc}")
                all_scen[sc] += 1
                pc, rel = d.get("preset_case"), d.get("relation")
                if pc not in CASES: err(where, f"bad preset_case {pc}")
                if rel not in RELATIONS: err(where, f"bad relation {rel}")
                if (pc == "none") != (rel == "none"):
                    err(where, "relation must be none exactly when preset_case is none")
                if pc == "regular" and sc not in ("takeout", "delivery", "taxi"):
                    err(where, "regular preset outside takeout/delivery/taxi")
                ow = d.get("owner", {})
                for k in ("name", "public", "private", "presets"):
                    if k not in ow: err(where, f"owner.{k} missing")
                if "title" not in ow.get("public", {}): err(where, "owner.public.title missing")
                priv = ow.get("private", {})
                for k in ("phone", "address", "schedule", "workplace", "family"):
                    if k not in priv: err(where, f"owner.private.{k} missing")
                for k in ("phone", "phone2"):
                    if k in priv and not re.fullmatch(r"100\d{8}", priv[k]):
                        err(where, f"owner.private.{k} not a synthetic 11-digit number")
                if "id_number" in priv and not re.fullmatch(r"100\d{15}", priv["id_number"]):
                    err(where, "owner.private.id_number not a synthetic 18-digit number")
                presets = ow.get("presets", [])
                if (pc == "none") != (len(presets) == 0):
                    err(where, "presets must be empty exactly when preset_case is none")
                for p in presets:
                    if set(p) != {"id", "kind", "trigger", "response"}:
                        err(where, f"preset keys {sorted(p)}")
                    if p.get("kind") != pc:
                        err(where, f"preset kind {p.get('kind')} != preset_case {pc}")
                cal = d.get("caller", {})
                if set(cal) != {"role", "goal"}: err(where, f"caller keys {sorted(cal)}")
                turns = d.get("turns", [])
                if not MIN_TURNS <= len(turns) <= MAX_TURNS:
                    err(where, f"{len(turns)} turns (want {MIN_TURNS}..{MAX_TURNS})")
                turn_lengths.append(len(turns))
                for i, t in enumerate(turns):
                    want = "caller" if i % 2 == 0 else "assistant"
                    if set(t) != {"speaker", "text"}:
                        err(where, f"turn {i} keys {sorted(t)} (no action/preset_id allowed)")
                    if t.get("speaker") != want:
                        err(where, f"turn {i} speaker {t.get('speaker')} != {want}")
                    if not t.get("text", "").strip():
                        err(where, f"turn {i} empty text")
                if turns and turns[-1].get("speaker") != "assistant":
                    if kind != "clean":
                        err(where, "positive dialogue ends on a caller turn")
                    elif not re.search(r"再见|拜拜", turns[-1]["text"]) or not re.search(r"再见|拜拜", turns[-2]["text"]):
                        err(where, "clean dialogue ends on a caller turn that is not a goodbye after the assistant's goodbye")
                exp = d.get("expected", [])
                n_exp += len(exp)
                last = -1; kinds_here = set()
                for e in exp:
                    if set(e) != {"kind", "turn"}: err(where, f"expected entry keys {sorted(e)}")
                    if e.get("kind") not in KINDS: err(where, f"bad expected kind {e.get('kind')}")
                    kinds_here.add(e.get("kind"))
                    kind_entries[e.get("kind")] += 1
                    t = e.get("turn")
                    if not isinstance(t, int) or not 0 <= t < len(turns):
                        err(where, f"expected turn {t} out of range"); continue
                    if turns[t].get("speaker") != "assistant":
                        err(where, f"expected turn {t} is not an assistant turn")
                    if t < last: err(where, "expected entries not sorted by turn")
                    last = t
                if len({(e.get("kind"), e.get("turn")) for e in exp}) != len(exp):
                    err(where, "duplicate expected entry")
                if kind == "clean":
                    if exp: err(where, "clean line has expected entries")
                    if not d.get("note", "").startswith("trap:"): err(where, "clean note must start with 'trap:'")
                else:
                    if kind not in kinds_here:
                        err(where, f"file kind {kind} not in expected")
                    if not re.match(r"(obvious|subtle|borderline):", d.get("note", "")):
                        err(where, "note must start with obvious:/subtle:/borderline:")
                    if kind == "safety.scam":
                        n_scam = sum(1 for e in exp if e.get("kind") == "safety.scam")
                        if n_scam != 1: err(where, f"{n_scam} safety.scam entries, want exactly 1")
                        if pc != "none": err(where, "scam dialogues have no preset")
                    if kind == "preset.dropped" and pc == "none":
                        err(where, "preset.dropped dialogue without a preset")
                    if kind == "preset.missing":
                        last_a = max(i for i, t in enumerate(turns) if i % 2 == 1)
                        for e in exp:
                            if e.get("kind") == "preset.missing" and e.get("turn") != last_a:
                                err(where, "preset.missing must be on the last assistant turn")
        want_n = CLEAN if kind == "clean" else PER_FILE[kind]
        if n != want_n: err(fname, f"{n} dialogues, want {want_n}")
        if len(set(scen)) < min(MIN_SCEN, n):
            err(fname, f"only {len(set(scen))} scenarios, want at least {min(MIN_SCEN, n)}")
        if len(set(scen) & SCENARIOS) < min(MIN_CONTRACT, n - 1):
            err(fname, f"only {len(set(scen) & SCENARIOS)} contract scenarios, want at least {min(MIN_CONTRACT, n - 1)}")
        if len(set(scen) & NEW_SCENARIOS) < MIN_NEW:
            err(fname, f"only {len(set(scen) & NEW_SCENARIOS)} new scenarios, want at least {MIN_NEW}")
        table.append((fname, n, n_exp))
    if sorted(numbers) != list(range(1, TOTAL + 1)):
        err("ids", "running numbers are not exactly 001..%03d" % TOTAL)
    n_all = sum(all_scen.values())
    share = sum(v for k, v in all_scen.items() if k in SCENARIOS) / max(n_all, 1)
    if not CONTRACT_SHARE[0] <= share <= CONTRACT_SHARE[1]:
        err("scenarios", f"contract-scenario share {share:.2f} outside {CONTRACT_SHARE}")
    long_share = sum(1 for n in turn_lengths if MOST_RANGE[0] <= n <= MOST_RANGE[1]) / max(len(turn_lengths), 1)
    if long_share < LONG_SHARE:
        err("turns", f"only {long_share:.2f} of calls have {MOST_RANGE[0]}-{MOST_RANGE[1]} turns, want at least {LONG_SHARE}")
    for k in KINDS:
        if kind_entries[k] < PER_FILE[k]:
            err("kinds", f"{k} has {kind_entries[k]} entries, want at least {PER_FILE[k]}")
    for fname, n, n_exp in table:
        print(f"{fname:28s} {n:4d} dialogues {n_exp:4d} expected")
    print(f"{'total':28s} {sum(t[1] for t in table):4d} dialogues {sum(t[2] for t in table):4d} expected")
    print("\nentries per kind over all files:")
    for k in KINDS:
        print(f"  {k:22s} {kind_entries[k]:3d}")
    print(f"\nturns per call: min {min(turn_lengths)}, max {max(turn_lengths)}, "
          f"mean {sum(turn_lengths)/len(turn_lengths):.1f}, share with {MOST_RANGE[0]}-{MOST_RANGE[1]} turns {long_share:.2f}")
    print(f"\nscenarios (contract share {share:.2f}):")
    for k, v in sorted(all_scen.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"  {k:12s} {v:3d}{'' if k in SCENARIOS else '  (new)'}")
    if errors:
        print("\nFAILED:")
        for e in errors: print("  " + e)
        sys.exit(1)
    print("OK")

if __name__ == "__main__":
    main()
