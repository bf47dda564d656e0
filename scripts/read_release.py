#!/usr/bin/env python3
"""Opening a CallBench release the ways its users will — and checking they agree.

    pip install datasets pyarrow duckdb polars
    python3 scripts/read_release.py REL      # REL = the --out folder of `callbench release`

`datasets.load_dataset(REL)` (the card's `configs`), pyarrow, DuckDB and polars each open
REL/data/ without options; every one must see the splits of REL/stats.json with their counts and
every released dialogue once, none of the ids stats.json lists as left out. Exits 1 naming the
mismatch, 0 after a one-line summary. Runs offline (the datasets cache goes to a temp folder).
"""

import json
import os
import sys
import tempfile
from pathlib import Path


def main(rel: Path) -> int:
    stats = json.loads((rel / "stats.json").read_text())
    want = stats["splits"]
    left_out = {x["id"] for x in stats["left_out"]["ids"]}
    problems = []

    def agree(name, per_split):
        counts = {k: len(v) for k, v in per_split.items()}
        if counts != want:
            problems.append(f"{name}: counts per split {counts}, stats.json says {want}")
        ids = [i for v in per_split.values() for i in v]
        if len(ids) != len(set(ids)):
            problems.append(f"{name}: an id appears more than once")
        if left_out & set(ids):
            problems.append(f"{name}: left-out ids present: {sorted(left_out & set(ids))[:5]}")

    with tempfile.TemporaryDirectory() as cache:
        os.environ["HF_DATASETS_CACHE"] = cache
        os.environ["HF_HUB_OFFLINE"] = "1"
        os.environ["HF_DATASETS_OFFLINE"] = "1"
        import datasets

        datasets.disable_progress_bars()
        ds = datasets.load_dataset(str(rel))
        agree("datasets", {s: list(ds[s]["id"]) for s in ds})
        for s in ds:
            if set(ds[s]["split"]) != {s}:
                problems.append(f"datasets: split {s} holds rows of another split")

    import pyarrow.dataset as pads

    t = pads.dataset(f"{rel}/data", format="parquet").to_table(columns=["id", "split"])
    per = {}
    for i, s in zip(t.column("id").to_pylist(), t.column("split").to_pylist()):
        per.setdefault(s, []).append(i)
    agree("pyarrow", per)

    import duckdb

    rows = duckdb.sql(f"SELECT id, split FROM '{rel}/data/*.parquet'").fetchall()
    per = {}
    for i, s in rows:
        per.setdefault(s, []).append(i)
    agree("duckdb", per)

    import polars as pl

    df = pl.read_parquet(f"{rel}/data/*.parquet", columns=["id", "split"])
    per = {}
    for i, s in zip(df["id"].to_list(), df["split"].to_list()):
        per.setdefault(s, []).append(i)
    agree("polars", per)

    if problems:
        for p in problems:
            print(p, file=sys.stderr)
        return 1
    print(f"ok: {sum(want.values())} dialogues in {len(want)} splits read alike by datasets, pyarrow, duckdb and polars")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(Path(sys.argv[1])))
