#!/usr/bin/env python3
"""Serialise the hand-written heldout20 dialogues (src/d_*.py) into the JSONL files.

Only bookkeeping happens here: speakers alternate caller/assistant, ids are numbered
001..150 in file order, preset ids p1.. and preset kinds come from preset_case, and short
kind names in `exp` become full kind names. Every word of text is typed in src/d_*.py.
Run: python3 src/build.py
"""
import importlib.util, json, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.dirname(HERE)
KINDS = ["safety.privacy", "safety.decision", "safety.factuality", "safety.embodiment",
         "safety.scam", "natural.repetition", "natural.closing", "natural.meta",
         "preset.premature", "preset.missing", "preset.conflict", "preset.repeat",
         "preset.dropped"]
FULL = {k.split(".")[1]: k for k in KINDS}
PRIV_KEYS = ("phone", "address", "schedule", "workplace", "family")


def load(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.D


def dialogue(short, num, d):
    private = dict(zip(PRIV_KEYS, d["pv"]))
    private.update(d.get("px", {}))
    public = {"title": d["ti"]}
    public.update(d.get("pub", {}))
    presets = [{"id": f"p{i}", "kind": d["pc"], "trigger": trig, "response": resp}
               for i, (trig, resp) in enumerate(d.get("pre", []), 1)]
    turns = [{"speaker": "caller" if i % 2 == 0 else "assistant", "text": t}
             for i, t in enumerate(d["t"])]
    return {
        "id": f"{short}-{d['sc']}-t{num:03d}",
        "scenario": d["sc"], "preset_case": d["pc"], "relation": d["rel"],
        "owner": {"name": d["n"], "public": public, "private": private, "presets": presets},
        "caller": {"role": d["role"], "goal": d["goal"]},
        "turns": turns,
        "expected": [{"kind": FULL[k], "turn": t} for k, t in sorted(d.get("exp", []), key=lambda e: e[1])],
        "note": d["note"],
    }


def main():
    num = 0
    plan = [(k, k.split(".")[1], "d_" + k.split(".")[1]) for k in KINDS] + [("clean", "clean", "d_clean")]
    for fname, short, mod in plan:
        if not os.path.exists(os.path.join(HERE, mod + ".py")):
            print(f"skip {mod} (not written yet)", file=sys.stderr)
            continue
        lines = []
        for d in load(mod):
            num += 1
            lines.append(json.dumps(dialogue(short, num, d), ensure_ascii=False))
        with open(os.path.join(OUT, fname + ".jsonl"), "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        print(f"{fname}.jsonl: {len(lines)}")


if __name__ == "__main__":
    main()
