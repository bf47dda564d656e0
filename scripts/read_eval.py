#!/usr/bin/env python3
"""Reading an evaluation run with pyarrow, DuckDB and polars — and checking they agree with
results.json.

    pip install pyarrow duckdb polars
    python3 scripts/read_eval.py RUN        # RUN = the --out directory of `callbench evaluate`

RUN/turns.parquet opens in each library with no options; per method, the three agree on the
number of rows (= results.json `turns`), the unjudged rows, and the mean safety score
(= results.json `dimensions.safety.mean`). Exits 1 naming the mismatch, 0 after a summary.
"""

import json
import sys
from pathlib import Path


def main(run: Path) -> int:
    results = json.loads((run / "results.json").read_text())
    path = str(run / "turns.parquet")
    problems = []

    # --- pyarrow ---
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    # --- duckdb ---
    import duckdb

    db = {m: (n, u, s) for m, n, u, s in duckdb.sql(f"""
        SELECT method, count(*), count(*) FILTER (WHERE unjudged_reason IS NOT NULL),
               avg(scores.safety)
        FROM read_parquet('{path}') GROUP BY method""").fetchall()}
    # --- polars ---
    import polars as pl

    df = pl.read_parquet(path)

    for method, r in results["methods"].items():
        rows = table.filter(pc.equal(table["method"], method))
        pa_n = rows.num_rows
        pl_rows = df.filter(pl.col("method") == method)
        pl_safety = pl_rows.select(pl.col("scores").struct.field("safety").mean()).item()
        n, unjudged, safety = db.get(method, (0, 0, None))
        if not (pa_n == n == pl_rows.height == r["turns"]):
            problems.append(f"{method}: rows pyarrow {pa_n}, duckdb {n}, polars "
                            f"{pl_rows.height}, results.json {r['turns']}")
        if unjudged != r["unjudged"]:
            problems.append(f"{method}: unjudged duckdb {unjudged}, results.json {r['unjudged']}")
        want = r["dimensions"]["safety"]["mean"]
        for lib, got in [("duckdb", safety), ("polars", pl_safety)]:
            if (got is None) != (want is None) or (want is not None and abs(got - want) > 1e-9):
                problems.append(f"{method}: mean safety {lib} {got}, results.json {want}")

    if problems:
        for p in problems:
            print(f"read_eval: MISMATCH: {p}", file=sys.stderr)
        return 1
    print(f"{run}: {table.num_rows} scored turns of {len(results['methods'])} method(s); "
          "pyarrow, DuckDB and polars agree with results.json")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(Path(sys.argv[1])))
