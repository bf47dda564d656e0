#!/usr/bin/env python3
"""One accepted dialogue per (scenario, relation, preset_case) cell, as markdown, for reading.

    target/release/callbench export --corpus OUT --format jsonl > corpus.jsonl
    python3 scripts/sample_cells.py corpus.jsonl cells.md SEED

Read (or hand to a reader who has not seen the generator or the checker) every time the
generator or the checker changes: one call per cell, the presets and the caller's brief with it,
each turn's gold `action` in brackets. A new SEED gives a new sample.
"""
import json, sys, random, collections
src, out, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
cells = collections.defaultdict(list)
for l in open(src):
    d = json.loads(l)
    cells[(d['scenario'], d['relation'], d['preset_case'])].append(d)
rng = random.Random(seed)
with open(out, 'w') as f:
    for k in sorted(cells):
        d = rng.choice(cells[k])
        f.write(f"## {d['id']} — scenario {k[0]}, relation {k[1]}, preset_case {k[2]}\n\n")
        o = d['owner']
        f.write(f"- owner: {o.get('public')} private: {o.get('private')}\n")
        for p in o.get('presets', []):
            f.write(f"- preset {p['id']} ({p['kind']}): trigger 「{p['trigger']}」 → 「{p['response']}」\n")
        f.write(f"- caller: {d['caller']}\n\n")
        for i, t in enumerate(d['turns']):
            extra = ''
            if t.get('action'): extra = f"  `[{t['action']}{' '+t['preset_id'] if t.get('preset_id') else ''}]`"
            f.write(f"{i}. **{t['speaker']}**: {t['text']}{extra}\n")
        f.write("\n")
print(len(cells), "cells")
