#!/usr/bin/env python3
"""Reading a CallBench corpus with pyarrow, DuckDB and polars — and checking they agree.

    pip install pyarrow duckdb polars
    python3 scripts/read_corpus.py OUT        # OUT = the --out directory of `callbench generate`

Each library opens OUT/shards/*.parquet with no options. The sections marked
`# --- pyarrow ---`, `# --- duckdb ---` and `# --- polars ---` are the README's "reading the
output" examples; the rest checks that the three libraries and OUT/manifest.json agree:
same row count (= manifest totals.dialogues), unique ids, counts per split, the required columns
with `turns` a
list of struct {idx, speaker, text, action, preset_id}, and every dialogue opening with the
caller. Exits 1 with a message naming the mismatch, 0 after printing a short summary.
"""

import json
import sys
from pathlib import Path

REQUIRED = ["id", "scenario", "preset_case", "relation", "split", "owner", "caller", "turns", "qc",
            "gen"]
TURN_FIELDS = ["idx", "speaker", "text", "action", "preset_id"]
problems: list[str] = []


def check(ok, message: str) -> None:
    if not ok:
        problems.append(message)


def main(out: Path) -> int:
    manifest = json.loads((out / "manifest.json").read_text())
    shards = f"{out}/shards/*.parquet"

    # --- pyarrow ---
    import pyarrow.compute as pc
    import pyarrow.dataset as ds

    dataset = ds.dataset(f"{out}/shards", format="parquet")
    table = dataset.to_table()
    pa_rows = table.num_rows
    pa_unique_ids = pc.count_distinct(table["id"]).as_py()
    pa_by_scenario = table.group_by("scenario").aggregate([("id", "count")]).to_pylist()
    opening = pc.list_flatten(pc.list_slice(table["turns"], 0, 1))  # first turn of each dialogue
    pa_openers = pc.value_counts(pc.struct_field(opening, "speaker")).to_pylist()
    turn_fields = [f.name for f in table.schema.field("turns").type.value_type]

    # --- duckdb ---
    import duckdb

    con = duckdb.connect()
    con.execute(f"CREATE VIEW corpus AS SELECT * FROM read_parquet('{shards}')")
    db_rows, db_unique_ids, db_first_not_caller = con.execute("""
        SELECT count(*), count(DISTINCT id),
               count(*) FILTER (WHERE turns[1].speaker IS DISTINCT FROM 'caller')
        FROM corpus""").fetchone()
    db_cells = con.execute("""
        SELECT scenario, preset_case, relation, count(*) AS n
        FROM corpus GROUP BY ALL ORDER BY ALL""").fetchall()
    db_speakers = con.execute("""
        SELECT t.speaker, count(*) AS turns, round(avg(length(t.text)), 1) AS avg_chars
        FROM (SELECT unnest(turns) AS t FROM corpus) GROUP BY ALL ORDER BY ALL""").fetchall()
    db_columns = [row[0] for row in con.execute("DESCRIBE corpus").fetchall()]
    db_splits = dict(con.execute(
        "SELECT split, count(*) FROM corpus WHERE split IS NOT NULL GROUP BY ALL").fetchall())

    # --- polars ---
    import polars as pl

    df = pl.read_parquet(shards)
    turns = df.select("id", "scenario", "turns").explode("turns").unnest("turns")
    pl_rows = df.height
    pl_unique_ids = df["id"].n_unique()
    pl_first_not_caller = df.filter(
        pl.col("turns").list.first().struct.field("speaker").ne_missing("caller")).height
    pl_speakers = turns.group_by("speaker").len().sort("speaker").rows()
    pl_passed = df.select(pl.col("qc").struct.field("passed").mean()).item()
    pl_lazy_rows = pl.scan_parquet(shards).select(pl.len()).collect().item()

    # --- checks: the three libraries and the manifest agree ---
    expected = manifest["totals"]["dialogues"]
    counts = {"manifest": expected, "pyarrow": pa_rows, "duckdb": db_rows, "polars": pl_rows,
              "polars (lazy)": pl_lazy_rows}
    check(len(set(counts.values())) == 1, f"row counts differ: {counts}")
    shard_rows = sum(s["rows"] for s in manifest["shards"])
    check(shard_rows == expected, f"manifest shards hold {shard_rows} rows, totals {expected}")
    check(len(dataset.files) == len(manifest["shards"]),
          f"{len(dataset.files)} shard files, manifest lists {len(manifest['shards'])}")
    for lib, n, rows in [("pyarrow", pa_unique_ids, pa_rows), ("duckdb", db_unique_ids, db_rows),
                         ("polars", pl_unique_ids, pl_rows)]:
        check(n == rows, f"{lib}: {n} distinct ids among {rows} rows")
    for lib, cols in [("pyarrow", table.column_names), ("duckdb", db_columns),
                      ("polars", df.columns)]:
        missing = [c for c in REQUIRED if c not in cols]
        check(not missing, f"{lib}: missing columns {missing}")
    check(turn_fields[:5] == TURN_FIELDS, f"pyarrow: turns items have fields {turn_fields}")
    pl_turn = df.schema["turns"]
    check(isinstance(pl_turn, pl.List) and [f.name for f in pl_turn.inner.fields][:5] == TURN_FIELDS,
          f"polars reads turns as {pl_turn}")
    check(pa_openers == [{"values": "caller", "counts": pa_rows}],
          f"pyarrow: opening speakers {pa_openers} (every one of {pa_rows} should be the caller)")
    for lib, n in [("duckdb", db_first_not_caller), ("polars", pl_first_not_caller)]:
        check(n == 0, f"{lib}: {n} dialogues do not open with the caller (or have no turns)")
    manifest_cells = sorted((c["scenario"], c["preset_case"], c["relation"], c["written"])
                            for c in manifest["cells"] if c["written"])
    check(db_cells == manifest_cells, "duckdb counts per scenario x preset_case x relation "
          "differ from manifest cells[].written")
    check(sorted((r["scenario"], r["id_count"]) for r in pa_by_scenario)
          == sorted(df.group_by("scenario").len().rows()),
          "pyarrow and polars disagree on dialogues per scenario")
    check([r[:2] for r in db_speakers] == pl_speakers,
          f"turns per speaker: duckdb {db_speakers} vs polars {pl_speakers}")
    check(sum(n for _, n in pl_speakers) == manifest["totals"]["turns"],
          f"{sum(n for _, n in pl_speakers)} turns, manifest totals.turns "
          f"{manifest['totals']['turns']}")

    manifest_splits = {k: v for k, v in manifest.get("splits", {}).items() if v}
    check(db_splits == manifest_splits,
          f"duckdb counts per split {db_splits} differ from manifest splits {manifest_splits}")

    if problems:
        for p in problems:
            print(f"read_corpus: MISMATCH: {p}", file=sys.stderr)
        return 1

    # --- summary ---
    print(f"{out}: {expected} dialogues in {len(dataset.files)} shard(s); pyarrow, DuckDB and "
          f"polars agree with manifest.json")
    for scenario, n in sorted(df.group_by("scenario").len().rows()):
        print(f"  {scenario:<12} {n:>8}")
    for speaker, n, chars in db_speakers:
        print(f"  {speaker:<12} {n:>8} turns, {chars} characters on average")
    print(f"  turns per dialogue {sum(n for _, n in pl_speakers) / max(expected, 1):.2f}, "
          f"qc passed {pl_passed:.1%}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: read_corpus.py DIR   (DIR = the --out directory of callbench generate)")
    out = Path(sys.argv[1])
    if not (out / "manifest.json").is_file():
        sys.exit(f"read_corpus: {out}/manifest.json not found — not a corpus directory")
    sys.exit(main(out))
