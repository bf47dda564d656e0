#!/usr/bin/env bash
# Benchmark of the offline `callbench generate` (embedded sim backend).
#
#   scripts/bench_generate.sh                 # counts 50000 and 500000
#   COUNTS="5000 50000" scripts/bench_generate.sh
#
# Builds the release binary, then for each COUNT runs
#   callbench generate --out <fresh temp dir> --count COUNT --quiet
# under /usr/bin/time -v and reports wall seconds, peak RSS and dialogues per second, plus the
# machine. Runs scripts/read_corpus.py and scripts/variety.py on the 50,000 corpus (when 50000
# is among the counts; needs python3 with pyarrow, duckdb, polars and numpy). Every temp dir is
# removed on exit. Ends with a Markdown table for BENCHMARKS.md.
#
# Environment: COUNTS (default "50000 500000"), PYTHON (default python3).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
COUNTS="${COUNTS:-50000 500000}"
PYTHON="${PYTHON:-python3}"
BIN="$ROOT/target/release/callbench"

TMP="$(mktemp -d "${TMPDIR:-/tmp}/callbench-bench.XXXXXX")"
cleanup() { rm -rf "$TMP"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

if [[ ! -x /usr/bin/time ]]; then
    echo "== /usr/bin/time missing: installing the Debian package 'time'" >&2
    if [[ $(id -u) -eq 0 ]]; then SUDO=""; else SUDO="sudo"; fi
    $SUDO apt-get update -qq && $SUDO apt-get install -y -qq time >/dev/null
fi

echo "== building: cargo build --release -p callbench" >&2
(cd "$ROOT" && cargo build --release -p callbench)

cpu="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//' || true)"
[[ -n "$cpu" ]] || cpu="$(uname -m)"
mem_gb="$(awk '/MemTotal/ {printf "%.0f", $2 / 1048576}' /proc/meminfo)"
machine="$(nproc) cores, ${cpu}, ${mem_gb} GB RAM, $(uname -sr)"
commit="$(cd "$ROOT" && git rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [[ -n "$(cd "$ROOT" && git status --porcelain 2>/dev/null)" ]]; then commit="$commit (dirty)"; fi
version="$("$BIN" --version 2>/dev/null || echo callbench)"

# h:mm:ss or m:ss.ss -> seconds
to_seconds() { awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; printf "%.2f", s }' <<<"$1"; }

declare -a rows=()
variety_table=""
variety_line=""
for count in $COUNTS; do
    out="$TMP/corpus-$count"
    echo "== generate --count $count" >&2
    # Run from the repo root: the scenario library and templates are found relative to it.
    if ! (cd "$ROOT" && /usr/bin/time -v -o "$TMP/time-$count.txt" \
            "$BIN" generate --out "$out" --count "$count" --quiet \
            >"$TMP/generate-$count.log" 2>&1); then
        echo "generate --count $count failed:" >&2
        tail -20 "$TMP/generate-$count.log" >&2
        exit 1
    fi
    wall="$(to_seconds "$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$TMP/time-$count.txt")")"
    rss_kb="$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$TMP/time-$count.txt")"
    cpu_pct="$(sed -n 's/.*Percent of CPU this job got: //p' "$TMP/time-$count.txt")"
    rss_mb="$(awk -v k="$rss_kb" 'BEGIN { printf "%.0f", k / 1024 }')"
    rate="$(awk -v n="$count" -v s="$wall" 'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }')"
    written="$("$PYTHON" -c 'import json,sys; t=json.load(open(sys.argv[1]))["totals"]; print(t["dialogues"], t["turns"], t["rejected"])' "$out/manifest.json" 2>/dev/null || echo "? ? ?")"
    read -r n_dialogues n_turns n_rejected <<<"$written"
    size_mb="$(du -sm "$out/shards" | cut -f1)"
    echo "   $count: ${wall} s, peak RSS ${rss_mb} MB, ${rate} dialogues/s, CPU ${cpu_pct}," \
         "${n_dialogues} dialogues, ${n_turns} turns, ${n_rejected} rejected, ${size_mb} MB of shards" >&2
    rows+=("| $count | $wall | $rss_mb | $rate | $cpu_pct | $n_turns | $n_rejected | $size_mb |")

    if [[ "$count" == 50000 ]]; then
        echo "== read_corpus.py on the 50000 corpus" >&2
        "$PYTHON" "$ROOT/scripts/read_corpus.py" "$out" >&2
        echo "== variety.py on the 50000 corpus" >&2
        start=$(date +%s.%N)
        "$PYTHON" "$ROOT/scripts/variety.py" "$out" --json "$TMP/variety.json" >"$TMP/variety.txt"
        end=$(date +%s.%N)
        cat "$TMP/variety.txt" >&2
        variety_table="$(sed -n '/^| /p' "$TMP/variety.txt")"
        variety_line="$("$PYTHON" - "$TMP/variety.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(f"{r['dialogues']} dialogues, character {r['shingle_chars']}-grams of the joined turn texts, "
      f"Jaccard >= {r['threshold']}, MinHash {r['bands']} bands x {r['rows']} rows "
      f"(P(detect | J = {r['threshold']}) = {r['p_detect_at_threshold']:.4f}), "
      f"{r['pairs_verified']} candidate pairs verified exactly; "
      f"{r['distinct']} distinct turn-text lists")
PY
)"
        variety_line="$variety_line; variety.py took $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }') s"
    fi
    rm -rf "$out"   # free the disk before the next count
done

cat <<EOF

## Offline generate (\`callbench generate --quiet\`, sim backend)

Machine: $machine. Build: $version, commit $commit, $(date -u +%Y-%m-%d).

| dialogues | wall s | peak RSS MB | dialogues/s | CPU | turns | rejected | shards MB |
| --------: | -----: | ----------: | ----------: | --: | ----: | -------: | --------: |
EOF
printf '%s\n' "${rows[@]}"
if [[ -n "$variety_table" ]]; then
    cat <<EOF

## Variety of the 50,000 corpus (\`scripts/variety.py\`)

$variety_line.

$variety_table
EOF
fi
