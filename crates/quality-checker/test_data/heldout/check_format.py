#!/usr/bin/env python3
"""Format check for the held-out labelled set (no checker involved).

Usage: python3 check_format.py [FILE.jsonl ...]   (default: every *.jsonl in this folder)
"""
import glob, json, os, re, sys

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIOS = {"takeout", "delivery", "taxi", "work", "life", "harassment"}
CASES = {"regular", "emergent", "none"}
RELATIONS = {"alignment", "complementarity", "irrelevance", "conflict", "none"}
KINDS = {"safety.privacy", "safety.decision", "safety.factuality", "safety.embodiment",
         "natural.repetition", "natural.closing", "natural.meta",
         "preset.premature", "preset.missing", "preset.conflict", "preset.repeat"}
ACTIONS = {"respond", "convey_preset", "defer_preset", "suspend_preset", "relay_to_owner",
           "refuse_decision", "decline_private", "close"}
DIGITS = re.compile(r"(?<!\d)\d{11,}(?!\d)")


def check_file(path, seen_ids, errors):
    name = os.path.basename(path)
    file_kind = name[:-len(".jsonl")]
    is_clean = file_kind.startswith("clean")
    scen = set()
    n = 0
    for ln, raw in enumerate(open(path, encoding="utf-8"), 1):
        if not raw.strip():
            continue
        n += 1
        where = f"{name}:{ln}"
        def err(msg):
            errors.append(f"{where}: {msg}")
        try:
            d = json.loads(raw)
        except Exception as e:
            err(f"does not parse: {e}"); continue
        for k in ("id", "scenario", "preset_case", "relation", "owner", "caller", "turns", "expected", "note"):
            if k not in d:
                err(f"missing key {k}")
        if any(k not in d for k in ("id", "turns", "expected", "owner")):
            continue
        did = d["id"]
        if did in seen_ids:
            err(f"duplicate id {did} (also {seen_ids[did]})")
        seen_ids[did] = where
        if d.get("scenario") not in SCENARIOS:
            err(f"bad scenario {d.get('scenario')}")
        scen.add(d.get("scenario"))
        if not re.fullmatch(r"[a-z]+-" + re.escape(str(d.get("scenario"))) + r"-h?\d{3}", did):
            err(f"id {did} does not match <kind>-<scenario>-<nnn>")
        case, rel = d.get("preset_case"), d.get("relation")
        presets = d["owner"].get("presets", [])
        if case not in CASES: err(f"bad preset_case {case}")
        if rel not in RELATIONS: err(f"bad relation {rel}")
        if (case == "none") != (not presets): err("preset_case none iff no presets")
        if (rel == "none") != (case == "none"): err("relation none iff preset_case none")
        if case == "regular" and d.get("scenario") not in {"takeout", "delivery", "taxi"}:
            err("regular preset case outside takeout/delivery/taxi")
        kinds = {p.get("kind") for p in presets}
        if case == "regular" and "regular" not in kinds: err("preset_case regular without a regular preset")
        if case == "emergent" and "emergent" not in kinds: err("preset_case emergent without an emergent preset")
        pids = [p.get("id") for p in presets]
        if len(pids) != len(set(pids)): err("duplicate preset ids")
        for p in presets:
            for k in ("id", "kind", "trigger", "response"):
                if not p.get(k): err(f"preset missing {k}")
        if "title" not in d["owner"].get("public", {}): err("owner.public.title missing")
        turns = d["turns"]
        if not (6 <= len(turns) <= 14): err(f"{len(turns)} turns (want 6-14)")
        for i, t in enumerate(turns):
            want = "caller" if i % 2 == 0 else "assistant"
            if t.get("speaker") != want: err(f"turn {i} speaker {t.get('speaker')} (want {want})")
            if not t.get("text", "").strip(): err(f"turn {i} empty text")
            if "action" in t and t["action"] not in ACTIONS: err(f"turn {i} unknown action {t['action']}")
            if "preset_id" in t and t["preset_id"] not in pids: err(f"turn {i} unknown preset_id")
        exp = d["expected"]
        if is_clean and exp: err("clean file with non-empty expected")
        keys = []
        for e in exp:
            k, t = e.get("kind"), e.get("turn")
            if k not in KINDS: err(f"unknown kind {k}")
            if not isinstance(t, int) or not (0 <= t < len(turns)): err(f"turn {t} out of range"); continue
            if turns[t]["speaker"] != "assistant": err(f"expected turn {t} is not an assistant turn")
            keys.append((t, k))
        if keys != sorted(keys): err("expected not sorted by turn")
        if len(keys) != len(set(keys)): err("duplicate expected entry")
        if not is_clean and file_kind not in {k for _, k in keys}:
            err(f"file kind {file_kind} absent from expected")
        last_asst = max(i for i, t in enumerate(turns) if t["speaker"] == "assistant")
        for t, k in keys:
            if k == "preset.missing" and t != last_asst: err("preset.missing not on the last assistant turn")
        blob = json.dumps(d, ensure_ascii=False)
        for m in DIGITS.finditer(blob):
            s = m.group(0)
            if len(s) in (11, 18) and not s.startswith("100"):
                err(f"phone/ID-like number {s} does not start with 100")
            elif len(s) not in (11, 18):
                err(f"long digit run {s}")
        if not d.get("note", "").strip(): err("empty note")
    missing = SCENARIOS - scen
    if missing:
        errors.append(f"{name}: scenarios not covered: {sorted(missing)}")
    return n


def main():
    files = sys.argv[1:] or sorted(glob.glob(os.path.join(HERE, "*.jsonl")))
    if len(sys.argv) > 1:
        # ids must still be unique across the whole folder
        others = [f for f in sorted(glob.glob(os.path.join(HERE, "*.jsonl"))) if os.path.abspath(f) not in map(os.path.abspath, files)]
    else:
        others = []
    errors, seen = [], {}
    for f in others + files:
        n = check_file(f, seen, errors if f in files else [])
        print(f"{os.path.basename(f)}: {n} dialogues")
    for e in errors:
        print("ERROR", e)
    print("OK" if not errors else f"{len(errors)} error(s)")
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
