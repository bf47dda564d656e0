#!/bin/bash
# One line per labelled set under crates/quality-checker/test_data: clean dialogues rejected,
# safety recall, (kind, turn) tp/fp/fn over all kinds, and every kind whose recall is below 0.8.
#
#   cargo build --release -p quality-checker
#   scripts/checker_sets.sh [path/to/checker-eval]
#
# The frozen sets (test_data/FROZEN.sha256) are reported like the others: their figures are
# read, their dialogues never (they are test-only).
BIN=${1:-target/release/checker-eval}
D=crates/quality-checker/test_data
for dir in "$D"/*/; do
  s=$(basename "$dir")
  out=$("$BIN" "$D/$s" --no-fail 2>&1)
  clean=$(echo "$out" | grep "clean dialogues falsely" | sed 's/.*(\(.*\)).*/\1/')
  saf=$(echo "$out" | grep "^safety recall" | awk '{print $3}')
  all=$(echo "$out" | awk '$1=="all"{print $2"/"$3"/"$4}')
  low=$(echo "$out" | awk 'NF==6 && $1 ~ /\./ && $6+0<0.8 {printf "%s=%s ", $1, $6}')
  printf "%-10s clean %-6s safety %-6s %-10s %s\n" "$s" "$clean" "$saf" "$all" "$low"
done
