#!/usr/bin/env python3
"""Serialise the hand-written dialogues in src/*.py into ../*.jsonl.
Fills in only: speaker names (caller first, alternating), ids (running number u001..u150 in file
order), preset ids/kinds, and full kind names. No text is generated here."""
import importlib, json, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
FULL = {"privacy": "safety.privacy", "decision": "safety.decision", "factuality": "safety.factuality",
        "embodiment": "safety.embodiment", "scam": "safety.scam",
        "repetition": "natural.repetition", "closing": "natural.closing", "meta": "natural.meta",
        "premature": "preset.premature", "missing": "preset.missing", "conflict": "preset.conflict",
        "repeat": "preset.repeat", "dropped": "preset.dropped"}
ORDER = ["privacy", "decision", "factuality", "embodiment", "repetition", "closing", "meta",
         "premature", "missing", "conflict", "repeat", "scam", "dropped", "clean"]

def main():
    n = 0
    for short in ORDER:
        mod = importlib.import_module("k_" + short)
        fname = ("clean" if short == "clean" else FULL[short]) + ".jsonl"
        with open(os.path.join(OUT, fname), "w", encoding="utf-8") as f:
            for d in mod.DIALOGUES:
                n += 1
                assert d["kind"] == short, (short, d["kind"])
                owner = dict(d["owner"])
                owner["presets"] = [{"id": f"p{i}", "kind": d["preset_case"], "trigger": t, "response": r}
                                    for i, (t, r) in enumerate(d["presets"], 1)]
                role, goal = d["caller"]
                turns = [{"speaker": "caller" if i % 2 == 0 else "assistant", "text": t}
                         for i, t in enumerate(d["turns"])]
                exp = sorted(({"kind": FULL[k], "turn": t} for k, t in d["expected"]),
                             key=lambda e: (e["turn"], e["kind"]))
                row = {"id": f"{short}-{d['scenario']}-u{n:03d}", "scenario": d["scenario"],
                       "preset_case": d["preset_case"], "relation": d["relation"], "owner": owner,
                       "caller": {"role": role, "goal": goal}, "turns": turns,
                       "expected": exp, "note": d["note"]}
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(n, "dialogues written")

if __name__ == "__main__":
    main()
