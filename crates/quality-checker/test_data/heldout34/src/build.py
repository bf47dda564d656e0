import json, os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import h, a, b, c, d, e
from ext import EXT
ORDER = ["safety.privacy","safety.decision","safety.scam","preset.dropped","safety.factuality","safety.embodiment",
         "preset.missing","preset.conflict","preset.premature","preset.repeat","natural.repetition","natural.closing",
         "natural.meta","natural.over_refusal","clean"]
full = lambda k: "clean" if k == "clean" else h.KIND[k]
by = {k: [] for k in ORDER}
for x in h.OUT:
    by[full(x["kind"])].append(x)
n = 0
out = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for k in ORDER:
    with open(os.path.join(out, f"{k}.jsonl"), "w", encoding="utf-8") as f:
        for x in by[k]:
            n += 1
            short = "clean" if k == "clean" else k.split(".")[1]
            y = {"id": f"{short}-{x['scenario']}-q{n:03d}"}
            y.update({kk: vv for kk, vv in x.items() if kk != "kind"})
            if n in EXT:
                mode, extra = EXT[n]
                texts = [t["text"] for t in y["turns"]]
                pos = len(texts) - 2 if mode == "ins" else len(texts)
                texts[pos:pos] = extra
                y["turns"] = [{"speaker": "caller" if i % 2 == 0 else "assistant", "text": t} for i, t in enumerate(texts)]
                y["expected"] = [{"kind": e["kind"], "turn": e["turn"] + (len(extra) if e["turn"] >= pos else 0)} for e in y["expected"]]
            f.write(json.dumps(y, ensure_ascii=False) + "\n")
    print(k, len(by[k]))
print("total", n)
