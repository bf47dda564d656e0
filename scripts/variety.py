#!/usr/bin/env python3
"""Corpus variety check: near-duplicate and identical dialogues in a CallBench corpus.

Usage:
    python3 scripts/variety.py DIR [--threshold 0.9] [--json OUT]
                               [--max-near-dup-rate R] [--fail-on-identical]

DIR is a corpus directory (the `--out` of `callbench generate`); every DIR/shards/*.parquet
is read (columns `id`, `scenario`, `turns`).

What is measured
----------------
* A dialogue's document is the texts of its turns joined with "\\n"; its shingle set is the
  set of character 5-grams of that document (Unicode code points, so a Chinese character is
  one character). Documents shorter than 5 characters have no shingles and are only compared
  for identity.
* near-duplicate: a dialogue has a near-duplicate if some *other* dialogue anywhere in the
  corpus (any scenario) has shingle-set Jaccard similarity >= threshold with it. The reported
  rate per scenario is (dialogues of that scenario with a near-duplicate) / (dialogues of that
  scenario). Exact copies count as near-duplicates (Jaccard 1).
* identical: dialogues whose list of turn texts equals another dialogue's. `identical` counts
  every member of such a group (a pair of copies counts 2); `redundant` (overall only) is
  dialogues minus distinct turn-text lists, i.e. how many could be dropped.

Method (so that 50,000 dialogues take seconds, not hours)
---------------------------------------------------------
1. Exact duplicates are grouped by their turn-text list (a dict); only one representative of
   each group enters steps 2-5, and every member of a group of >= 2 is flagged.
2. Shingling is vectorised with numpy: all documents are concatenated as UTF-32 code points,
   every 5-character window gets a polynomial hash mod 2^64 passed through the splitmix64
   finaliser, windows crossing a document boundary are dropped, and the per-document sets are
   made by sorting and de-duplicating the keys `doc << (64 - d) | hash >> d` (d = bits needed for a
   document index). A shingle is therefore identified by a 64-d bit hash (>= 45 bits for up to
   half a million dialogues); two distinct 5-grams colliding is negligible at corpus scale and
   could only raise a similarity.
3. MinHash: K = bands * rows hash functions h_j(x) = ((a_j * x + b_j) mod 2^64) >> 32 (a_j odd
   random 64-bit, multiply-shift family) give each document the signature
   min_{x in set} h_j(x), computed per function with np.minimum.reduceat over the sorted keys.
   For two sets with Jaccard J, each signature row agrees with probability ~J.
4. LSH banding: the signature is cut into `bands` bands of `rows` rows; two documents are a
   candidate pair if they agree on every row of at least one band. A pair with Jaccard J is a
   candidate with probability P(J) = 1 - (1 - J^rows)^bands. The defaults, 20 bands x 10 rows,
   give P(0.9) = 0.99981 (> 0.999), P(0.8) = 0.90, P(0.5) = 0.019, P(0.3) < 0.0001; the
   script refuses bands/rows with P(threshold) <= 0.999 unless --allow-low-recall is given.
5. Verification: every candidate pair is checked with the exact Jaccard of the two hashed
   shingle sets (sorted arrays, np.searchsorted); only verified pairs flag dialogues. Pairs
   are examined lazily per band bucket: a dialogue already flagged does not start further
   comparisons, a dialogue not yet flagged is compared with its bucket mates until one
   matches, and a pair is never verified twice. This yields exactly the flags that verifying
   every candidate pair would, without enumerating all pairs of a large bucket. The size bound
   min(|A|,|B|)/max(|A|,|B|) >= J rejects some pairs before the intersection is computed.

So the only approximation is recall: a pair at Jaccard >= threshold is missed with probability
1 - P(J) <= 0.0002 (for the defaults and threshold 0.9); there are no false positives.

Output: a table per scenario (dialogues, with near-duplicate, rate, identical) and an overall
row; --json OUT writes the same figures plus parameters, a few example pairs and timings.
Exit status: 0, or 1 if --max-near-dup-rate R is given and the overall rate or any scenario's
rate exceeds R, or if --fail-on-identical is given and any identical dialogues exist; 2 on
bad input (missing directory, no shards, missing columns).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds

SHINGLE = 5
_U64 = np.uint64
_P_WINDOW = _U64(0x9E3779B97F4A7C15)  # odd multiplier of the 5-gram polynomial hash
_P_BAND = _U64(0xC2B2AE3D27D4EB4F)  # odd multiplier combining a band's rows


class InputError(Exception):
    pass


def mix64(x: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser, elementwise on a uint64 array (wrapping arithmetic)."""
    x = x ^ (x >> _U64(30))
    x = x * _U64(0xBF58476D1CE4E5B9)
    x = x ^ (x >> _U64(27))
    x = x * _U64(0x94D049BB133111EB)
    return x ^ (x >> _U64(31))


def detect_probability(j: float, bands: int, rows: int) -> float:
    """P(a pair with Jaccard j shares at least one LSH band)."""
    return 1.0 - (1.0 - j**rows) ** bands


# ---------------------------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------------------------


def load(corpus: Path) -> tuple[list[str], list[str], list[str], list[str]]:
    """(ids, scenarios, documents, identity keys) of every dialogue in corpus/shards/*.parquet."""
    shard_dir = corpus / "shards"
    files = sorted(shard_dir.glob("*.parquet")) if shard_dir.is_dir() else []
    if not files:
        raise InputError(f"no parquet shards in {shard_dir}")
    dataset = ds.dataset([str(f) for f in files], format="parquet")
    missing = {"id", "scenario", "turns"} - set(dataset.schema.names)
    if missing:
        raise InputError(f"{shard_dir}: missing column(s) {sorted(missing)}")
    table = dataset.to_table(columns=["id", "scenario", "turns"])
    turns = table["turns"]
    # list<struct{..., text}> -> list<string> -> one string per dialogue.
    texts = pc.struct_field(pc.list_flatten(turns), "text")
    lengths = pc.list_value_length(turns).to_numpy(zero_copy_only=False)
    offsets = pa.array(np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32))
    text_lists = pa.ListArray.from_arrays(offsets, texts.combine_chunks())
    docs = pc.binary_join(text_lists, "\n").to_pylist()
    # \x1e (record separator) cannot be confused with text inside a turn.
    keys = pc.binary_join(text_lists, "\x1e").to_pylist()
    return table["id"].to_pylist(), table["scenario"].to_pylist(), docs, keys


# ---------------------------------------------------------------------------------------------
# Shingling and MinHash
# ---------------------------------------------------------------------------------------------


def shingle_sets(docs: list[str], k: int = SHINGLE) -> tuple[np.ndarray, np.ndarray]:
    """Hashed k-gram sets of the documents as CSR: (indptr, values), each row sorted, unique.

    values are uint64 shingle hashes of 64 - d significant bits (d = bits of a doc index).
    """
    n = len(docs)
    doc_bits = max(1, (n - 1).bit_length())
    shift = _U64(64 - doc_bits)
    lengths = np.fromiter(map(len, docs), dtype=np.int64, count=n)
    cps = np.frombuffer("".join(docs).encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)
    n_win = np.maximum(lengths - k + 1, 0)
    total = int(n_win.sum())
    if total == 0:
        return np.zeros(n + 1, dtype=np.int64), np.zeros(0, dtype=np.uint64)
    # Hash every window of the concatenation, then keep those inside one document.
    span = cps.size - k + 1
    h = np.zeros(span, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j in range(k):
            h = h * _P_WINDOW + cps[j : j + span]
        h = mix64(h)
    doc_start = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    win_doc = np.repeat(np.arange(n, dtype=np.int64), n_win)
    first_win = np.concatenate([[0], np.cumsum(n_win)[:-1]])
    pos = doc_start[win_doc] + (np.arange(total, dtype=np.int64) - first_win[win_doc])
    keys = (win_doc.astype(np.uint64) << shift) | (h[pos] >> _U64(doc_bits))
    keys.sort()  # by document, then by shingle hash (np.unique's hash path is slower)
    keys = keys[np.concatenate([[True], keys[1:] != keys[:-1]])]
    doc_of = (keys >> shift).astype(np.int64)
    values = keys & ((_U64(1) << shift) - _U64(1))
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(doc_of, minlength=n), out=indptr[1:])
    return indptr, values


def minhash(indptr: np.ndarray, values: np.ndarray, n_hashes: int, seed: int) -> np.ndarray:
    """MinHash signatures, shape (n_hashes, n_docs), uint32; empty sets get 0xFFFFFFFF."""
    n = indptr.size - 1
    sig = np.full((n_hashes, n), np.iinfo(np.uint32).max, dtype=np.uint32)
    nonempty = np.flatnonzero(np.diff(indptr) > 0)
    if nonempty.size == 0:
        return sig
    starts = indptr[nonempty]
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2**63, size=n_hashes, dtype=np.uint64) * _U64(2) + _U64(1)
    b = rng.integers(0, 2**63, size=n_hashes, dtype=np.uint64)
    tmp = np.empty_like(values)  # reused: one pass per hash function, no allocations
    with np.errstate(over="ignore"):
        for j in range(n_hashes):
            np.multiply(values, a[j], out=tmp)
            np.add(tmp, b[j], out=tmp)
            np.right_shift(tmp, _U64(32), out=tmp)
            sig[j, nonempty] = np.minimum.reduceat(tmp, starts)
    return sig


def band_buckets(sig: np.ndarray, bands: int, rows: int, active: np.ndarray) -> list[np.ndarray]:
    """Per band, the groups (>= 2 members, as arrays of doc indices) of `active` documents
    whose signature rows in that band are all equal (hashed to 64 bits; a hash collision only
    adds a candidate, which verification then rejects)."""
    groups: list[np.ndarray] = []
    sub = sig[:, active]
    with np.errstate(over="ignore"):
        for band in range(bands):
            key = np.zeros(active.size, dtype=np.uint64)
            for row in range(band * rows, (band + 1) * rows):
                key = key * _P_BAND + sub[row].astype(np.uint64)
            key = mix64(key ^ _U64(band))
            order = np.argsort(key, kind="stable")
            sk = key[order]
            cut = np.flatnonzero(sk[1:] != sk[:-1]) + 1
            starts = np.concatenate([[0], cut])
            ends = np.concatenate([cut, [sk.size]])
            for s, e in zip(starts[ends - starts >= 2], ends[ends - starts >= 2]):
                groups.append(active[order[s:e]])
    return groups


def jaccard(a: np.ndarray, b: np.ndarray) -> float:
    """Exact Jaccard of two sorted unique arrays."""
    if a.size == 0 and b.size == 0:
        return 1.0
    if a.size > b.size:
        a, b = b, a
    if a.size == 0:
        return 0.0
    idx = np.searchsorted(b, a)
    idx[idx == b.size] = 0
    inter = int(np.count_nonzero(b[idx] == a))
    return inter / (a.size + b.size - inter)


# ---------------------------------------------------------------------------------------------
# The check
# ---------------------------------------------------------------------------------------------


def analyse(
    ids: list[str],
    scenarios: list[str],
    docs: list[str],
    keys: list[str],
    threshold: float = 0.9,
    bands: int = 20,
    rows: int = 10,
    seed: int = 1,
    n_examples: int = 5,
) -> tuple[dict, np.ndarray, np.ndarray]:
    """Variety figures of a corpus given as parallel lists; see the module docstring.

    Returns (report, near_dup, identical): the JSON-able figures and two boolean arrays, per
    dialogue, "has a near-duplicate (Jaccard >= threshold) elsewhere" and "has an identical
    copy elsewhere".
    """
    timing: dict[str, float] = {}
    t0 = time.perf_counter()
    n = len(docs)

    # 1. identical groups
    first: dict[str, int] = {}
    rep = np.empty(n, dtype=np.int64)  # representative (first occurrence) of each dialogue
    for i, key in enumerate(keys):
        rep[i] = first.setdefault(key, i)
    group_size = np.bincount(rep, minlength=n)
    identical = group_size[rep] >= 2
    uniq = np.flatnonzero(rep == np.arange(n))
    timing["identity_s"] = time.perf_counter() - t0

    # 2. shingles of the representatives
    t = time.perf_counter()
    indptr, values = shingle_sets([docs[i] for i in uniq])
    sizes = np.diff(indptr)
    timing["shingle_s"] = time.perf_counter() - t

    # 3. MinHash
    t = time.perf_counter()
    sig = minhash(indptr, values, bands * rows, seed)
    timing["minhash_s"] = time.perf_counter() - t

    # 4.+5. LSH buckets, lazily verified. Indices below are into `uniq`.
    t = time.perf_counter()
    groups = band_buckets(sig, bands, rows, np.flatnonzero(sizes > 0))
    m = uniq.size
    near = [False] * m
    seen: set[int] = set()
    verified = 0
    examples: list[dict] = []
    for g in groups:
        g = g.tolist()
        for x in g:
            if near[x]:
                continue
            for y in g:
                if y == x:
                    continue
                pair = x * m + y if x < y else y * m + x
                if pair in seen:
                    continue
                seen.add(pair)
                sx, sy = int(sizes[x]), int(sizes[y])
                if min(sx, sy) < threshold * max(sx, sy):
                    continue
                verified += 1
                j = jaccard(values[indptr[x] : indptr[x + 1]], values[indptr[y] : indptr[y + 1]])
                if j >= threshold:
                    near[x] = near[y] = True
                    if len(examples) < n_examples:
                        examples.append(
                            {"a": ids[uniq[x]], "b": ids[uniq[y]], "jaccard": round(j, 4)}
                        )
                    break
    timing["lsh_verify_s"] = time.perf_counter() - t
    timing["total_s"] = time.perf_counter() - t0

    # A dialogue is near-duplicated if it has an identical copy or its representative matched.
    near_dup = identical | np.asarray(near, dtype=bool)[np.searchsorted(uniq, rep)]

    scen = np.asarray(scenarios, dtype=object)
    per_scenario = {}
    for name in sorted(set(scenarios)):
        mask = scen == name
        total = int(mask.sum())
        nd = int(near_dup[mask].sum())
        per_scenario[name] = {
            "dialogues": total,
            "near_dup": nd,
            "near_dup_rate": nd / total if total else 0.0,
            "identical": int(identical[mask].sum()),
        }
    nd = int(near_dup.sum())
    report = {
        "threshold": threshold,
        "shingle_chars": SHINGLE,
        "bands": bands,
        "rows": rows,
        "p_detect_at_threshold": detect_probability(threshold, bands, rows),
        "dialogues": n,
        "distinct": int(uniq.size),
        "shingles_total": int(values.size),
        "bucket_groups": len(groups),
        "pairs_verified": verified,
        "overall": {
            "dialogues": n,
            "near_dup": nd,
            "near_dup_rate": nd / n if n else 0.0,
            "identical": int(identical.sum()),
            "redundant": int(n - uniq.size),
        },
        "scenarios": per_scenario,
        "examples": examples,
        "timing": {k: round(v, 3) for k, v in timing.items()},
    }
    return report, near_dup, identical


def render(r: dict) -> str:
    lines = [
        f"variety: {r['dialogues']} dialogues, char {r['shingle_chars']}-grams, "
        f"Jaccard >= {r['threshold']}, MinHash {r['bands']} bands x {r['rows']} rows "
        f"(P(detect | J={r['threshold']}) = {r['p_detect_at_threshold']:.5f}), "
        f"{r['pairs_verified']} candidate pairs verified exactly",
        "",
        f"| {'scenario':<12} | {'dialogues':>9} | {'near-dup':>8} | {'rate':>7} | {'identical':>9} |",
        f"| {'-' * 12} | {'-' * 8}: | {'-' * 7}: | {'-' * 6}: | {'-' * 8}: |",
    ]
    rows = list(r["scenarios"].items()) + [("**overall**", r["overall"])]
    for name, s in rows:
        lines.append(
            f"| {name:<12} | {s['dialogues']:>9} | {s['near_dup']:>8} | "
            f"{100 * s['near_dup_rate']:>6.2f}% | {s['identical']:>9} |"
        )
    lines.append("")
    lines.append(
        f"distinct turn-text lists: {r['distinct']} (redundant copies: {r['overall']['redundant']}); "
        f"time {r['timing']['total_s']:.1f} s after reading"
    )
    for e in r["examples"]:
        lines.append(f"  e.g. {e['a']} ~ {e['b']} (Jaccard {e['jaccard']})")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description="Near-duplicate / identical dialogue rates of a CallBench corpus "
        "(MinHash + LSH, exact Jaccard verification)."
    )
    ap.add_argument("dir", type=Path, help="corpus directory (containing shards/*.parquet)")
    ap.add_argument("--threshold", type=float, default=0.9, help="Jaccard threshold (0.9)")
    ap.add_argument("--json", type=Path, metavar="OUT", help="write the figures as JSON")
    ap.add_argument("--max-near-dup-rate", type=float, metavar="R",
                    help="exit 1 if the overall or any scenario's near-dup rate exceeds R")
    ap.add_argument("--fail-on-identical", action="store_true",
                    help="exit 1 if any two dialogues have identical turn texts")
    ap.add_argument("--bands", type=int, default=20, help="LSH bands (20)")
    ap.add_argument("--rows", type=int, default=10, help="MinHash rows per band (10)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the MinHash functions (1)")
    ap.add_argument("--allow-low-recall", action="store_true",
                    help="accept bands/rows with P(detect | J=threshold) <= 0.999")
    args = ap.parse_args(argv)

    if not 0.0 < args.threshold <= 1.0:
        ap.error("--threshold must be in (0, 1]")
    if args.bands < 1 or args.rows < 1:
        ap.error("--bands and --rows must be positive")
    p = detect_probability(args.threshold, args.bands, args.rows)
    if p <= 0.999 and not args.allow_low_recall:
        ap.error(f"{args.bands} bands x {args.rows} rows detect a pair at J={args.threshold} "
                 f"with probability {p:.5f} <= 0.999 (use --allow-low-recall to accept)")

    t = time.perf_counter()
    try:
        ids, scenarios, docs, keys = load(args.dir)
    except (InputError, pa.ArrowException, OSError) as e:
        print(f"variety: error: {e}", file=sys.stderr)
        return 2
    read_s = time.perf_counter() - t
    r, _, _ = analyse(ids, scenarios, docs, keys, args.threshold, args.bands, args.rows,
                      args.seed)
    r["timing"]["read_s"] = round(read_s, 3)
    print(render(r))
    if args.json:
        args.json.write_text(json.dumps(r, indent=2, ensure_ascii=False) + "\n")

    status = 0
    if args.max_near_dup_rate is not None:
        over = [(name, s["near_dup_rate"]) for name, s in r["scenarios"].items()
                if s["near_dup_rate"] > args.max_near_dup_rate]
        if r["overall"]["near_dup_rate"] > args.max_near_dup_rate:
            over.append(("overall", r["overall"]["near_dup_rate"]))
        for name, rate in over:
            print(f"variety: FAIL: {name} near-duplicate rate {rate:.4f} exceeds "
                  f"{args.max_near_dup_rate}", file=sys.stderr)
        status = 1 if over else status
    if args.fail_on_identical and r["overall"]["identical"]:
        print(f"variety: FAIL: {r['overall']['identical']} dialogues have an identical copy",
              file=sys.stderr)
        status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
