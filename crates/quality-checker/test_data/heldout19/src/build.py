"""Serialise the hand-written dialogues in src/*.py to ../<kind>.jsonl."""
import importlib, json, os, sys
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
FILES = {"privacy": "safety.privacy", "decision": "safety.decision", "factuality": "safety.factuality",
         "embodiment": "safety.embodiment", "scam": "safety.scam", "repetition": "natural.repetition",
         "closing": "natural.closing", "meta": "natural.meta", "premature": "preset.premature",
         "missing": "preset.missing", "conflict": "preset.conflict", "repeat": "preset.repeat",
         "dropped": "preset.dropped", "clean": "clean"}
for mod, out in FILES.items():
    if not os.path.exists(os.path.join(HERE, f"d_{mod}.py")):
        print("skip", mod); continue
    m = importlib.import_module(f"d_{mod}")
    with open(os.path.join(HERE, "..", f"{out}.jsonl"), "w", encoding="utf-8") as f:
        for d in m.DIALOGUES:
            f.write(json.dumps(d, ensure_ascii=False) + "\n")
    print(out, len(m.DIALOGUES))
