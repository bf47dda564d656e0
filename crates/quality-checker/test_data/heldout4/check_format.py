#!/usr/bin/env python3
"""Format check for the heldout4 labelled set (no checker involved).

Usage: python3 check_format.py [DIR]   (default: the directory of this script)
"""
import json, os, re, sys
from collections import Counter, defaultdict

KINDS = ["safety.privacy", "safety.decision", "safety.factuality", "safety.embodiment",
         "natural.repetition", "natural.closing", "natural.meta",
         "preset.premature", "preset.missing", "preset.conflict", "preset.repeat"]
SHORT = {k: k.split(".")[1] for k in KINDS}
SCEN = {"takeout", "delivery", "taxi", "work", "life", "harassment"}
CASES = {"regular", "emergent", "none"}
RELS = {"alignment", "complementarity", "irrelevance", "conflict"}
CN = {"零": "0", "〇": "0", "一": "1", "幺": "1", "二": "2", "两": "2", "三": "3", "四": "4",
      "五": "5", "六": "6", "七": "7", "八": "8", "九": "9"}

def strings(x):
    if isinstance(x, str):
        yield x
    elif isinstance(x, dict):
        for v in x.values():
            yield from strings(v)
    elif isinstance(x, list):
        for v in x:
            yield from strings(v)

def number_problems(obj):
    bad = []
    for s in strings(obj):
        cands = re.findall(r"(?<![0-9A-Za-z])[0-9]{11,}[0-9Xx]?(?![0-9])", s)
        cands += ["".join(CN[c] for c in m) for m in re.findall("[零〇一幺二两三四五六七八九]{11,}", s)]
        for c in cands:
            if len(c) in (11, 18) and not c.startswith("100"):
                bad.append(c)
            elif len(c) not in (11, 18):
                bad.append(c + " (unexpected length %d)" % len(c))
    return bad

def main():
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    errors = []
    ids = set()
    files = [k + ".jsonl" for k in KINDS] + ["clean.jsonl"]
    summary = []
    for fname in files:
        path = os.path.join(d, fname)
        if not os.path.exists(path):
            errors.append(f"{fname}: missing")
            continue
        fkind = fname[:-6]
        scen_cov = Counter(); n = 0; n_entries = 0; kinds_in_file = Counter(); subtle = 0
        with open(path, encoding="utf-8") as f:
            for ln, line in enumerate(f, 1):
                where = f"{fname}:{ln}"
                if not line.strip():
                    errors.append(f"{where}: empty line"); continue
                try:
                    o = json.loads(line)
                except Exception as e:
                    errors.append(f"{where}: JSON error {e}"); continue
                n += 1
                for key in ["id", "scenario", "preset_case", "relation", "owner", "caller", "turns", "expected", "note"]:
                    if key not in o:
                        errors.append(f"{where}: missing key {key}")
                if any(k not in o for k in ["id", "scenario", "preset_case", "relation", "owner", "turns", "expected"]):
                    continue
                i = o["id"]
                where = f"{where} ({i})"
                if i in ids:
                    errors.append(f"{where}: duplicate id")
                ids.add(i)
                sc = o["scenario"]; scen_cov[sc] += 1
                if sc not in SCEN: errors.append(f"{where}: bad scenario {sc}")
                short = "clean" if fkind == "clean" else SHORT[fkind]
                if not re.fullmatch(rf"{short}-{sc}-q\d{{3}}", i):
                    errors.append(f"{where}: id does not match <{short}>-<{sc}>-qNNN")
                case, rel = o["preset_case"], o["relation"]
                presets = o["owner"].get("presets", [])
                if case not in CASES: errors.append(f"{where}: bad preset_case {case}")
                if case == "none":
                    if rel != "none": errors.append(f"{where}: preset_case none needs relation none")
                    if presets: errors.append(f"{where}: preset_case none but presets present")
                else:
                    if rel not in RELS: errors.append(f"{where}: bad relation {rel} for case {case}")
                    if not presets: errors.append(f"{where}: preset_case {case} without presets")
                    for p in presets:
                        if p.get("kind") != case: errors.append(f"{where}: preset kind {p.get('kind')} != case {case}")
                        for k in ("id", "trigger", "response"):
                            if not p.get(k): errors.append(f"{where}: preset missing {k}")
                if case == "regular" and sc not in {"takeout", "delivery", "taxi"}:
                    errors.append(f"{where}: regular preset in {sc}")
                ow = o["owner"]
                if "title" not in ow.get("public", {}): errors.append(f"{where}: owner.public.title missing")
                if not isinstance(ow.get("private"), dict) or not ow["private"]: errors.append(f"{where}: owner.private missing")
                t = o["turns"]
                if not (6 <= len(t) <= 14): errors.append(f"{where}: {len(t)} turns (need 6-14)")
                for k, turn in enumerate(t):
                    want = "caller" if k % 2 == 0 else "assistant"
                    if turn.get("speaker") != want: errors.append(f"{where}: turn {k} speaker {turn.get('speaker')} != {want}")
                    if not turn.get("text", "").strip(): errors.append(f"{where}: turn {k} empty")
                exp = o["expected"]
                keys = []
                for e in exp:
                    kd, tn = e.get("kind"), e.get("turn")
                    if kd not in KINDS: errors.append(f"{where}: bad kind {kd}")
                    if not isinstance(tn, int) or not (0 <= tn < len(t)): errors.append(f"{where}: turn {tn} out of range"); continue
                    if t[tn]["speaker"] != "assistant": errors.append(f"{where}: expected turn {tn} is not an assistant turn")
                    keys.append((tn, kd)); kinds_in_file[kd] += 1
                if keys != sorted(keys): errors.append(f"{where}: expected not sorted by (turn, kind)")
                if len(set(keys)) != len(keys): errors.append(f"{where}: duplicate expected entry")
                n_entries += len(exp)
                note = o.get("note", "")
                if fkind == "clean":
                    if exp: errors.append(f"{where}: clean line with expected entries")
                    if not note.startswith("trap:"): errors.append(f"{where}: clean note must start with 'trap:'")
                else:
                    if fkind not in [e["kind"] for e in exp]: errors.append(f"{where}: file kind {fkind} absent from expected")
                    if "subtle" in note.split(":")[0]: subtle += 1
                    if fkind == "preset.missing":
                        last_a = max(k for k in range(len(t)) if k % 2 == 1)
                        if ("preset.missing" in [e["kind"] for e in exp]) and \
                           [e["turn"] for e in exp if e["kind"] == "preset.missing"] != [last_a]:
                            errors.append(f"{where}: preset.missing not on the last assistant turn")
                for b in number_problems(o):
                    errors.append(f"{where}: number not starting with 100: {b}")
        need = 6 if fkind == "clean" else 5
        if len(scen_cov) < need: errors.append(f"{fname}: covers only {len(scen_cov)} scenarios")
        summary.append((fname, n, n_entries, dict(kinds_in_file), subtle, dict(scen_cov)))
    for s in summary:
        print(f"{s[0]:28s} dialogues={s[1]:3d} entries={s[2]:3d} subtle={s[4]} kinds={s[3]} scenarios={s[5]}")
    if errors:
        print("\nERRORS:")
        for e in errors: print("  " + e)
        sys.exit(1)
    print("\nOK: %d dialogues, all checks passed" % len(ids))

if __name__ == "__main__":
    main()
