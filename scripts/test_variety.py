#!/usr/bin/env python3
"""Self-test of scripts/variety.py on synthetic corpora (no Rust binary needed).

    python3 scripts/test_variety.py

Builds small corpora as Parquet shards with the corpus's `turns` layout (list of struct idx,
speaker, text, action, preset_id) in a temporary directory:

* distinct dialogues sharing stock phrases (so unrelated pairs have Jaccard ~0.1-0.4),
* near-duplicates: copies with one character changed (Jaccard ~0.95),
* copies with many characters changed (Jaccard ~0.6-0.85: must NOT count),
* exact copies (also across scenarios), and very short dialogues (< 5 characters),

then checks the per-dialogue flags of variety.analyse against a brute-force all-pairs exact
Jaccard over Python sets of 5-gram strings, and the command line (table, --json, exit codes).
"""

from __future__ import annotations

import itertools
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import variety  # noqa: E402

TURN = pa.struct([
    pa.field("idx", pa.int32(), nullable=False),
    pa.field("speaker", pa.string(), nullable=False),
    pa.field("text", pa.string(), nullable=False),
    pa.field("action", pa.string()),
    pa.field("preset_id", pa.string()),
])
SCHEMA = pa.schema([
    pa.field("id", pa.string(), nullable=False),
    pa.field("scenario", pa.string(), nullable=False),
    pa.field("turns", pa.list_(pa.field("item", TURN, nullable=False)), nullable=False),
])
STOCK = ["您好，我是", "麻烦您转告一下", "好的，那先这样，再见。", "机主现在不方便接电话，",
         "我帮您记下来了。", "请问您是哪位？", "没问题，", "稍等一下，"]


def rand_text(rng: random.Random, n: int) -> str:
    return "".join(chr(rng.randint(0x4E00, 0x9FA5)) for _ in range(n))


def make_turns(rng: random.Random) -> list[str]:
    return [rng.choice(STOCK) + rand_text(rng, rng.randint(12, 30))
            for _ in range(rng.randint(6, 9))]


def mutate(rng: random.Random, turns: list[str], n_changes: int) -> list[str]:
    """A copy with n_changes random characters replaced (never by the same character)."""
    turns = [list(t) for t in turns]
    for _ in range(n_changes):
        t = rng.randrange(len(turns))
        i = rng.randrange(len(turns[t]))
        old = turns[t][i]
        while (new := chr(rng.randint(0x4E00, 0x9FA5))) == old:
            pass
        turns[t][i] = new
    return ["".join(t) for t in turns]


def write_corpus(root: Path, dialogues: list[tuple[str, str, list[str]]], shards: int = 2):
    (root / "shards").mkdir(parents=True)
    per = -(-len(dialogues) // shards)
    for k in range(shards):
        chunk = dialogues[k * per:(k + 1) * per]
        rows = {
            "id": [d[0] for d in chunk],
            "scenario": [d[1] for d in chunk],
            "turns": [[{"idx": i, "speaker": "caller" if i % 2 == 0 else "assistant",
                        "text": t, "action": None, "preset_id": None}
                       for i, t in enumerate(d[2])] for d in chunk],
        }
        pq.write_table(pa.table(rows, schema=SCHEMA), root / "shards" / f"part-{k:05d}.parquet",
                       compression="zstd")


def grams(text: str) -> set[str]:
    return {text[i:i + 5] for i in range(len(text) - 4)}


def brute_force(dialogues, threshold: float):
    """Reference flags: all pairs, exact Jaccard of 5-gram string sets."""
    docs = ["\n".join(d[2]) for d in dialogues]
    sets = [grams(d) for d in docs]
    keys = ["\x1e".join(d[2]) for d in dialogues]
    n = len(docs)
    near, ident = [False] * n, [False] * n
    for a, b in itertools.combinations(range(n), 2):
        if keys[a] == keys[b]:
            near[a] = near[b] = ident[a] = ident[b] = True
            continue
        sa, sb = sets[a], sets[b]
        if not sa or not sb:
            continue
        if len(sa & sb) / len(sa | sb) >= threshold:
            near[a] = near[b] = True
    return near, ident


def build(seed: int = 7):
    rng = random.Random(seed)
    scenarios = ["takeout", "taxi", "life"]
    out: list[tuple[str, str, list[str]]] = []
    counter = itertools.count()

    def add(scenario: str, turns: list[str]):
        out.append((f"{scenario}-{next(counter):06d}", scenario, turns))

    bases = []
    for s in scenarios:
        for _ in range(120):
            turns = make_turns(rng)
            bases.append((s, turns))
            add(s, turns)
    picks = rng.sample(bases, 60)
    for s, turns in picks[:20]:                      # one character changed: near-duplicates
        add(s, mutate(rng, turns, 1))
    for s, turns in picks[20:35]:                    # many characters changed: not near
        add(s, mutate(rng, turns, rng.randint(4, 12)))
    for s, turns in picks[35:40]:                    # exact copies, same scenario
        add(s, list(turns))
    for s, turns in picks[40:43]:                    # exact copies, another scenario
        add(scenarios[(scenarios.index(s) + 1) % 3], list(turns))
    add("life", ["喂", "嗯"])                         # short, identical pair
    add("taxi", ["喂", "嗯"])
    add("taxi", ["你好", "在"])                       # short, unique
    rng.shuffle(out)
    return out


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(HERE / "variety.py"), *args],
                          capture_output=True, text=True)


def main() -> None:
    dialogues = build()
    threshold = 0.9
    ref_near, ref_ident = brute_force(dialogues, threshold)
    # The synthetic corpus must exercise every case.
    assert sum(ref_near) >= 40 and sum(ref_ident) == 18, (sum(ref_near), sum(ref_ident))
    assert sum(ref_near) < len(dialogues) // 4

    # --- library: per-dialogue flags equal brute force, for a few MinHash seeds ---
    ids = [d[0] for d in dialogues]
    scen = [d[1] for d in dialogues]
    docs = ["\n".join(d[2]) for d in dialogues]
    keys = ["\x1e".join(d[2]) for d in dialogues]
    for seed in (1, 2, 3):
        report, near, ident = variety.analyse(ids, scen, docs, keys, threshold, seed=seed)
        bad = [ids[i] for i in range(len(ids)) if near[i] != ref_near[i]]
        assert not bad, f"seed {seed}: near-dup flags differ from brute force for {bad}"
        assert list(ident) == ref_ident, f"seed {seed}: identical flags differ"
        assert report["overall"]["near_dup"] == sum(ref_near)
        assert report["overall"]["identical"] == sum(ref_ident)
        assert report["overall"]["redundant"] == 9, report["overall"]  # 8 copies + 1 short
        for s, fig in report["scenarios"].items():
            idx = [i for i in range(len(ids)) if scen[i] == s]
            assert fig["dialogues"] == len(idx)
            assert fig["near_dup"] == sum(ref_near[i] for i in idx), s
            assert fig["identical"] == sum(ref_ident[i] for i in idx), s
        assert report["p_detect_at_threshold"] > 0.999

    # A lower threshold flags the heavily mutated copies too (still equal to brute force).
    ref_near_07, _ = brute_force(dialogues, 0.7)
    assert sum(ref_near_07) > sum(ref_near)
    _, near07, _ = variety.analyse(ids, scen, docs, keys, 0.7, bands=50, rows=5)
    assert list(near07) == ref_near_07, "threshold 0.7: flags differ from brute force"

    assert variety.detect_probability(0.9, 20, 10) > 0.999
    assert variety.jaccard(variety.np.array([1, 2, 3], dtype="u8"),
                           variety.np.array([2, 3, 4, 5], dtype="u8")) == 2 / 5

    with tempfile.TemporaryDirectory(prefix="test-variety-") as tmp:
        tmp = Path(tmp)

        # --- command line on the corpus with duplicates ---
        write_corpus(tmp / "dup", dialogues)
        r = run(str(tmp / "dup"), "--json", str(tmp / "dup.json"))
        assert r.returncode == 0, r.stderr
        assert "| **overall**" in r.stdout and "| takeout" in r.stdout, r.stdout
        fig = json.loads((tmp / "dup.json").read_text())
        assert fig["dialogues"] == len(dialogues)
        assert fig["overall"]["near_dup"] == sum(ref_near)
        assert fig["overall"]["identical"] == sum(ref_ident)
        assert set(fig["scenarios"]) == {"takeout", "taxi", "life"}
        rate = fig["overall"]["near_dup_rate"]
        assert run(str(tmp / "dup"), "--max-near-dup-rate", "0.5").returncode == 0
        r = run(str(tmp / "dup"), "--max-near-dup-rate", f"{rate / 2}")
        assert r.returncode == 1 and "exceeds" in r.stderr, (r.returncode, r.stderr)
        r = run(str(tmp / "dup"), "--fail-on-identical")
        assert r.returncode == 1 and "identical" in r.stderr, (r.returncode, r.stderr)
        # Too few bands for the recall guarantee is refused.
        assert run(str(tmp / "dup"), "--bands", "2", "--rows", "10").returncode == 2

        # --- a clean corpus passes every gate ---
        rng = random.Random(11)
        clean = [(f"work-{i:06d}", "work", make_turns(rng)) for i in range(200)]
        write_corpus(tmp / "clean", clean, shards=1)
        r = run(str(tmp / "clean"), "--max-near-dup-rate", "0", "--fail-on-identical")
        assert r.returncode == 0, (r.stdout, r.stderr)

        # --- bad input: exit 2 with a message, no traceback ---
        r = run(str(tmp / "missing"))
        assert r.returncode == 2 and "no parquet shards" in r.stderr, r.stderr
        assert "Traceback" not in r.stderr

    print(f"test_variety: ok ({len(dialogues)} dialogues, {sum(ref_near)} near-duplicates, "
          f"{sum(ref_ident)} identical, flags equal brute force)")


if __name__ == "__main__":
    main()
