#!/usr/bin/env bash
# Benchmark of the LLM backend (`callbench generate --backend openai`) against the mock
# OpenAI-compatible server (crates/mock-openai) at 50 ms latency.
#
#   scripts/bench_llm.sh
#   RUST_COUNT=12000 PY_COUNT=1000 RPM_COUNT=60 SKIP="a2" scripts/bench_llm.sh
#
# a) throughput (each run against a mock of its own): callbench generate --backend openai --base-url MOCK --model mock
#    --concurrency 256 --count RUST_COUNT --out <tmp> --quiet, under /usr/bin/time -v.
#    Calls = sum of usage.roles.*.requests + cache_hits in the run's manifest.json; calls/s
#    = calls / wall; the bound is 256 / 0.050 s = 5120 calls/s. Also callbench's own
#    "time:" line (the generate phase without process start-up), peak RSS, CPU% and
#    user+sys of callbench, and the mock's CPU time over the run (from /proc/PID/stat), so
#    that it is visible whether the machine (2 cores shared by client and mock), not the
#    pipeline, limits the run. Dialogues are counted twice: written (accepted by the
#    checker) and role-played (written + every rejected attempt, from the shards' stats).
#    The target's figure is the *sustained* rate: the mock's arrivals per second over the
#    middle 80% of them (no ramp-up, no drain, cache hits not counted).
# a2) the same with a config file `max_attempts = 1` and A2_COUNT dialogues: no dialogue is
#    played again after a rejection, so every dialogue takes the same number of calls. The
#    difference to a) shows what re-played dialogues cost the in-order pipeline.
# r) reference: crates/mock-openai/examples/load.rs (bare reqwest loops, 20 s), if built.
# b) scripts/roleplay_openai_sdk.py (asyncio + openai SDK) on the same mock at concurrency
#    256 with PY_COUNT dialogues; dialogues/s of a) and b) and the ratio.
# c) rate limit: --rpm RPM --concurrency RPM_CONCURRENCY --count RPM_COUNT against a second
#    mock of its own started with --arrivals-out, which writes every arrival time when the
#    mock stops: the achieved rate (arrivals - 1) / (last - first), the most arrivals in any
#    60 s window (must be <= RPM) and in any 6 s window (<= RPM/10), the smallest gap.
#
# The load average (uptime) is printed with every figure. Temp dirs and mocks are removed /
# stopped on exit. Ends with Markdown tables for BENCHMARKS.md.
#
# Environment: RUST_COUNT (6000), A2_COUNT (12000), PY_COUNT (1000), CONCURRENCY (256),
# LATENCY_MS (50), RPM (600), RPM_CONCURRENCY (64), RPM_COUNT (60), PYTHON (python3),
# SKIP (space-separated phases among a a2 r b c to skip), NO_BUILD=1 to use the binaries as
# they are (otherwise `cargo build --release -p callbench -p mock-openai` first).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RUST_COUNT="${RUST_COUNT:-6000}"
A2_COUNT="${A2_COUNT:-12000}"
PY_COUNT="${PY_COUNT:-1000}"
CONCURRENCY="${CONCURRENCY:-256}"
LATENCY_MS="${LATENCY_MS:-50}"
RPM="${RPM:-600}"
RPM_CONCURRENCY="${RPM_CONCURRENCY:-64}"
RPM_COUNT="${RPM_COUNT:-60}"
PYTHON="${PYTHON:-python3}"
SKIP="${SKIP:-}"
BIN="$ROOT/target/release/callbench"
MOCK="$ROOT/target/release/mock-openai"

TMP="$(mktemp -d "${TMPDIR:-/tmp}/callbench-llm-bench.XXXXXX")"
MOCK_PIDS=()
cleanup() {
    for p in "${MOCK_PIDS[@]}"; do
        kill -INT "$p" 2>/dev/null || true
    done
    for p in "${MOCK_PIDS[@]}"; do
        wait "$p" 2>/dev/null || true
    done
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

skip() { [[ " $SKIP " == *" $1 "* ]]; }
load() { sed -n 's/.*load average: //p' <<<"$(uptime)"; }
log() { echo "== $*" >&2; }

if [[ ! -x /usr/bin/time ]]; then
    log "/usr/bin/time missing: installing the Debian package 'time'"
    apt-get update -qq && apt-get install -y -qq time >/dev/null
fi
if ! "$PYTHON" -c 'import openai' 2>/dev/null; then
    log "installing the openai SDK (pip install openai)"
    "$PYTHON" -m pip install -q openai
fi
if [[ "${NO_BUILD:-0}" != 1 ]]; then
    log "building: cargo build --release -p callbench -p mock-openai"
    (cd "$ROOT" && cargo build --release -p callbench -p mock-openai)
    skip r || (cd "$ROOT" && cargo build --release -p mock-openai --example load)
fi

# Run copies: another build replacing target/release mid-benchmark does not change what is measured.
mkdir -p "$TMP/bin"
cp "$BIN" "$MOCK" "$TMP/bin/"
BIN="$TMP/bin/callbench"; MOCK="$TMP/bin/mock-openai"

cpu="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//' || true)"
[[ -n "$cpu" ]] || cpu="$(uname -m)"
mem_gb="$(awk '/MemTotal/ {printf "%.0f", $2 / 1048576}' /proc/meminfo)"
machine="$(nproc) cores, ${cpu}, ${mem_gb} GB RAM, $(uname -sr)"
commit="$(cd "$ROOT" && git rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [[ -n "$(cd "$ROOT" && git status --porcelain 2>/dev/null)" ]]; then commit="$commit (dirty)"; fi
version="$("$BIN" --version 2>/dev/null || echo callbench)"
TICK="$(getconf CLK_TCK)"

# Starts a mock on a free loopback port; sets MOCK_URL and MOCK_PID. $1: log file; rest: env.
# MOCK_ARGS (an array) adds flags.
MOCK_ARGS=()
start_mock() {
    local logf="$1"; shift
    env NO_COLOR=1 "$@" "$MOCK" --addr 127.0.0.1:0 --latency-ms "$LATENCY_MS" "${MOCK_ARGS[@]}" \
        >"$logf.url" 2>"$logf" &
    MOCK_PID=$!
    MOCK_PIDS+=("$MOCK_PID")
    for _ in $(seq 100); do
        [[ -s "$logf.url" ]] && break
        sleep 0.05
    done
    MOCK_URL="$(head -1 "$logf.url")"
    [[ "$MOCK_URL" == http://* ]] || { echo "the mock did not start:" >&2; cat "$logf" >&2; exit 1; }
}
# Stops a mock (Ctrl-C: it writes its --arrivals-out file then) and waits for it.
stop_mock() {
    kill -INT "$1" 2>/dev/null || true
    wait "$1" 2>/dev/null || true
}
# Sustained rate from an arrivals file (seconds since the first arrival, one per line): the
# arrivals per second between the 10th and the 90th percentile arrival, i.e. the middle 80% of
# the calls, without the ramp-up and the drain at the end. Prints "rate arrivals span".
sustained() {
    "$PYTHON" - "$1" <<'PY'
import sys
ts = [float(x) for x in open(sys.argv[1]) if x.strip()]
n = len(ts)
i, j = n // 10, n - 1 - n // 10
span = ts[j] - ts[i] if n >= 20 else 0.0
print(f"{(j - i) / span:.0f}" if span > 0 else "n/a", n, f"{ts[-1] - ts[0]:.2f}" if n else "0")
PY
}
# CPU seconds (user + sys) a process has used so far.
cpu_secs() { awk -v t="$TICK" '{ printf "%.2f", ($14 + $15) / t }' "/proc/$1/stat"; }
# h:mm:ss or m:ss.ss -> seconds
to_seconds() { awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; printf "%.2f", s }' <<<"$1"; }
tv() { sed -n "s/.*$1: //p" "$2"; }

declare -a rows=()
rust_dps=""; rust_pps=""; py_dps=""

# ------------------------------------------------------------------ a) throughput
start_mock "$TMP/mock-a.log"
MOCK_A_PID="$MOCK_PID"; MOCK_A_URL="$MOCK_URL"
log "mock at $MOCK_A_URL (pid $MOCK_A_PID), latency ${LATENCY_MS} ms"
bound="$(awk -v c="$CONCURRENCY" -v l="$LATENCY_MS" 'BEGIN { printf "%.0f", c / (l / 1000) }')"

# Runs callbench against mock A. $1: label, $2: count, $3: config file ("" for none).
# Appends a table row and a notes line; sets RUN_DPS (written dialogues/s) and RUN_PPS
# (role-plays/s: every played dialogue, accepted or rejected by the checker).
run_callbench() {
    local label="$1" count="$2" config="$3" tag out m0 m1 load_before load_after
    tag="$(tr -c 'a-z0-9' '_' <<<"$label")"
    out="$TMP/out-$tag"
    # A mock of its own, whose arrival log gives the sustained rate of this run alone.
    MOCK_ARGS=(--arrivals-out "$TMP/arrivals-$tag.txt")
    start_mock "$TMP/mock-$tag.log"
    MOCK_ARGS=()
    local run_mock_pid="$MOCK_PID" run_mock_url="$MOCK_URL"
    load_before="$(load)"
    m0="$(cpu_secs "$run_mock_pid")"
    local cmd=("$BIN" generate)
    [[ -n "$config" ]] && cmd+=(--config "$config")
    cmd+=(--backend openai --base-url "$run_mock_url" --model mock
          --concurrency "$CONCURRENCY" --count "$count" --out "$out" --quiet)
    log "$label: ${cmd[*]}   (load $load_before)"
    if ! (cd "$ROOT" && /usr/bin/time -v -o "$TMP/time-$tag.txt" "${cmd[@]}" >"$TMP/$tag.out" 2>"$TMP/$tag.err"); then
        echo "callbench failed:" >&2; tail -20 "$TMP/$tag.err" >&2; exit 1
    fi
    m1="$(cpu_secs "$run_mock_pid")"
    load_after="$(load)"
    stop_mock "$run_mock_pid"
    local sus sus_n sus_span sus_pct
    read -r sus sus_n sus_span <<<"$(sustained "$TMP/arrivals-$tag.txt")"
    sus_pct="$(awk -v r="$sus" -v b="$bound" 'BEGIN { if (r + 0 > 0) printf "%.1f", 100 * r / b; else print "n/a" }')"
    local tf="$TMP/time-$tag.txt"
    local wall user sys cpu_pct rss_mb gen_s
    wall="$(to_seconds "$(tv 'Elapsed (wall clock) time (h:mm:ss or m:ss)' "$tf")")"
    user="$(tv 'User time (seconds)' "$tf")"
    sys="$(tv 'System time (seconds)' "$tf")"
    cpu_pct="$(tv 'Percent of CPU this job got' "$tf")"
    rss_mb="$(awk -v k="$(tv 'Maximum resident set size (kbytes)' "$tf")" 'BEGIN { printf "%.0f", k / 1024 }')"
    gen_s="$(sed -n 's/^time: \([0-9.]*\) s.*/\1/p' "$TMP/$tag.out")"
    local calls cached requests dialogues plays turns rejected failed
    read -r calls cached requests dialogues plays turns rejected failed <<<"$("$PYTHON" - "$out/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
roles = m["usage"]["roles"].values()
t = m["totals"]
req = sum(r["requests"] for r in roles)
hits = sum(r["cache_hits"] for r in roles)
attempts = sum((s.get("stats") or {}).get("rejected_attempts", 0) for s in m["shards"])
# role-plays: accepted dialogues + every rejected attempt (each was played to its end)
print(req + hits, hits, req, t["dialogues"], t["dialogues"] + attempts, t["turns"], t["rejected"], t["failed"])
PY
)"
    local rate pct rate_gen pct_gen cb_us mock_us dps pps cpd mock_cpu
    read -r rate pct rate_gen pct_gen cb_us mock_us dps pps cpd <<<"$(awk -v n="$calls" -v w="$wall" -v g="$gen_s" \
        -v b="$bound" -v u="$user" -v s="$sys" -v m0="$m0" -v m1="$m1" -v d="$dialogues" -v p="$plays" 'BEGIN {
        r = n / w; rg = n / g;
        printf "%.0f %.1f %.0f %.1f %.0f %.0f %.1f %.1f %.2f", r, 100 * r / b, rg, 100 * rg / b,
            1e6 * (u + s) / n, 1e6 * (m1 - m0) / n, d / w, p / w, n / p }')"
    mock_cpu="$(awk -v a="$m0" -v b="$m1" 'BEGIN { printf "%.2f", b - a }')"
    RUN_DPS="$dps"; RUN_PPS="$pps"
    log "   $dialogues dialogues written ($plays role-plays, $turns turns, $rejected rejected, $failed failed), $calls calls ($cached cache hits)"
    log "   wall $wall s -> $rate calls/s = $pct% of $bound; generate phase $gen_s s -> $rate_gen calls/s = $pct_gen%"
    log "   sustained at the mock (middle 80% of its $sus_n arrivals, cache hits not included): $sus calls/s = $sus_pct% of $bound"
    log "   callbench: CPU $cpu_pct, user $user s + sys $sys s = $cb_us µs/call, peak RSS $rss_mb MB;" \
        "mock: $mock_cpu CPU s = $mock_us µs/call; load before $load_before, after $load_after"
    rows+=("| $label | $dialogues written / $plays played | $calls | $wall | $dps / $pps | $rate ($pct% of $bound) | **$sus** ($sus_pct%) | $cpu_pct, $user+$sys s ($cb_us µs/call), $rss_mb MB | $mock_cpu s ($mock_us µs/call) | $load_before → $load_after |")
    notes+=("$label: generate phase (callbench's \`time:\` line, without process start-up) $gen_s s → $rate_gen calls/s ($pct_gen% of $bound); $cached of the calls were cache hits (identical requests), $requests went to the mock; $turns turns written, $rejected dialogues rejected after all attempts, $failed failed; $cpd calls per role-play.")
}

declare -a notes=()
if ! skip a; then
    run_callbench "a) callbench, concurrency $CONCURRENCY" "$RUST_COUNT" ""
    rust_dps="$RUN_DPS"; rust_pps="$RUN_PPS"
fi
if ! skip a2; then
    # Same, one attempt per dialogue: every dialogue is one role-play of the same length, so
    # the in-order window of `concurrency` dialogues never waits on a re-played head.
    printf 'max_attempts = 1\n' >"$TMP/one-attempt.toml"
    run_callbench "a2) callbench, concurrency $CONCURRENCY, max_attempts = 1" "$A2_COUNT" "$TMP/one-attempt.toml"
fi

# ------------------------------------------------------------------ r) reference
# crates/mock-openai/examples/load.rs: CONCURRENCY bare reqwest loops, one fixed request, no
# pipeline, against an in-process mock on one two-worker runtime: what this machine does
# without callbench's per-call work.
if ! skip r && [[ -x "$ROOT/target/release/examples/load" ]]; then
    load_before="$(load)"
    log "r) target/release/examples/load $CONCURRENCY $LATENCY_MS 20   (load $load_before)"
    ref="$(/usr/bin/time -f "cpu %U %S %P" "$ROOT/target/release/examples/load" "$CONCURRENCY" "$LATENCY_MS" 20 2>&1)"
    ref_line="$(grep 'requests/s' <<<"$ref")"
    ref_cpu="$(grep '^cpu ' <<<"$ref" | awk -v n="$(sed -n 's/.*s: \([0-9]*\) requests,.*/\1/p' <<<"$ref_line")" \
        '{ printf "client + mock CPU %s+%s s = %.0f µs per request (warm-up included), %s", $2, $3, 1e6 * ($2 + $3) / n, $4 }')"
    log "   $ref_line; $ref_cpu; load $load_before → $(load)"
    notes+=("r) reference, \`target/release/examples/load $CONCURRENCY $LATENCY_MS 20\` (bare reqwest loops sending one fixed short request, and the mock, in one process): $ref_line; $ref_cpu; load $load_before → $(load).")
fi

# ------------------------------------------------------------------ b) Python SDK
if ! skip b; then
    load_before="$(load)"
    m0="$(cpu_secs "$MOCK_A_PID")"
    pycmd=("$PYTHON" "$ROOT/scripts/roleplay_openai_sdk.py" --base-url "$MOCK_A_URL"
           --count "$PY_COUNT" --concurrency "$CONCURRENCY")
    log "b) ${pycmd[*]}   (load $load_before)"
    /usr/bin/time -v -o "$TMP/time-b.txt" "${pycmd[@]}" >"$TMP/b.out" 2>"$TMP/b.err" \
        || { echo "the Python script failed:" >&2; tail -20 "$TMP/b.err" >&2; exit 1; }
    m1="$(cpu_secs "$MOCK_A_PID")"
    load_after="$(load)"
    read -r pd pcalls psecs pdps pcps <<<"$(tail -1 "$TMP/b.out" | "$PYTHON" -c '
import json, sys
r = json.load(sys.stdin)
print(r["dialogues"], r["calls"], r["seconds"], r["dialogues_per_s"], r["calls_per_s"])')"
    user="$(tv 'User time (seconds)' "$TMP/time-b.txt")"
    sys="$(tv 'System time (seconds)' "$TMP/time-b.txt")"
    cpu_pct="$(tv 'Percent of CPU this job got' "$TMP/time-b.txt")"
    wall="$(to_seconds "$(tv 'Elapsed (wall clock) time (h:mm:ss or m:ss)' "$TMP/time-b.txt")")"
    rss_mb="$(awk -v k="$(tv 'Maximum resident set size (kbytes)' "$TMP/time-b.txt")" 'BEGIN { printf "%.0f", k / 1024 }')"
    read -r py_us mock_us ppct <<<"$(awk -v u="$user" -v s="$sys" -v n="$pcalls" -v m0="$m0" -v m1="$m1" \
        -v r="$pcps" -v b="$bound" 'BEGIN { printf "%.0f %.1f %.1f", 1e6 * (u + s) / n, 1e6 * (m1 - m0) / n, 100 * r / b }')"
    mock_cpu="$(awk -v a="$m0" -v b="$m1" 'BEGIN { printf "%.2f", b - a }')"
    py_dps="$pdps"
    log "   $pd dialogues, $pcalls calls in $psecs s: $pdps dialogues/s, $pcps calls/s;" \
        "python CPU $cpu_pct ($py_us µs/call), mock $mock_cpu s ($mock_us µs/call); load $load_before → $load_after"
    rows+=("| b) Python asyncio + openai SDK, concurrency $CONCURRENCY | $pd | $pcalls | $psecs (process $wall) | $pdps | $pcps ($ppct% of $bound) | – | $cpu_pct, $user+$sys s ($py_us µs/call), $rss_mb MB | $mock_cpu s ($mock_us µs/call) | $load_before → $load_after |")
fi

# ------------------------------------------------------------------ c) rate limit
if ! skip c; then
    MOCK_ARGS=(--arrivals-out "$TMP/arrivals-c.txt")
    start_mock "$TMP/mock-c.log"
    MOCK_ARGS=()
    MOCK_C_PID="$MOCK_PID"
    out="$TMP/rpm-out"
    load_before="$(load)"
    cmd=("$BIN" generate --backend openai --base-url "$MOCK_URL" --model mock --rpm "$RPM"
         --concurrency "$RPM_CONCURRENCY" --count "$RPM_COUNT" --out "$out" --quiet)
    log "c) ${cmd[*]}   (load $load_before)"
    if ! (cd "$ROOT" && /usr/bin/time -v -o "$TMP/time-c.txt" "${cmd[@]}" >"$TMP/c.out" 2>"$TMP/c.err"); then
        echo "callbench failed:" >&2; tail -20 "$TMP/c.err" >&2; exit 1
    fi
    load_after="$(load)"
    stop_mock "$MOCK_C_PID"
    wall="$(to_seconds "$(tv 'Elapsed (wall clock) time (h:mm:ss or m:ss)' "$TMP/time-c.txt")")"
    gen_s="$(sed -n 's/^time: \([0-9.]*\) s.*/\1/p' "$TMP/c.out")"
    rl="$("$PYTHON" - "$TMP/arrivals-c.txt" "$out/manifest.json" "$RPM" "$wall" "$gen_s" <<'PY'
import json, sys
arrivals, manifest, rpm, wall, gen_s = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
ts = sorted(float(x) for x in open(arrivals) if x.strip())
m = json.load(open(manifest))
calls = sum(r["requests"] + r["cache_hits"] for r in m["usage"]["roles"].values())
n = len(ts)
span = ts[-1] - ts[0]
rate = (n - 1) / span * 60
def max_in(window):
    best = j = 0
    for i in range(n):
        while ts[i] - ts[j] >= window:
            j += 1
        best = max(best, i - j + 1)
    return best
gaps = [b - a for a, b in zip(ts, ts[1:])]
print(f"{n} {calls} {span:.2f} {rate:.2f} {100 * (rate - rpm) / rpm:+.2f} {max_in(60.0)} {max_in(6.0)} "
      f"{min(gaps) * 1000:.1f} {calls / wall * 60:.1f} {calls / gen_s * 60:.1f}")
PY
)"
    read -r arrivals rcalls span arate adev max60 max6 mingap wall_rate gen_rate <<<"$rl"
    log "   $arrivals arrivals at the mock ($rcalls calls in the manifest) over $span s: $arate/min ($adev% vs $RPM);" \
        "max $max60 in any 60 s (limit $RPM), $max6 in any 6 s (limit $((RPM / 10))); smallest gap $mingap ms;" \
        "calls / wall $wall s = $wall_rate/min; calls / generate time $gen_s s = $gen_rate/min; load $load_before → $load_after"
    rows_c="| c) --rpm $RPM, concurrency $RPM_CONCURRENCY, $RPM_COUNT dialogues | $arrivals | $span | **$arate/min** ($adev%) | $max60 (≤ $RPM) | $max6 (≤ $((RPM / 10))) | $mingap ms | $wall_rate/min | $gen_rate/min | $load_before → $load_after |"
fi

ratio() { awk -v r="$1" -v p="$2" 'BEGIN { if (r != "" && p != "" && p > 0) printf "%.1f", r / p; else print "n/a" }'; }

cat <<EOF

## LLM backend against mock-openai (latency ${LATENCY_MS} ms)

Machine: $machine. Build: $version, commit $commit, $(date -u '+%Y-%m-%d %H:%M UTC').
Load average is "1, 5, 15 min" from uptime, before → after each run.

| run | dialogues | calls | seconds | dialogues/s | calls/s (whole run) | sustained calls/s at the mock | client CPU, user+sys, peak RSS | mock CPU | load |
| --- | --------: | ----: | ------: | ----------: | ------: | ------: | --- | --- | --- |
EOF
printf '%s\n' "${rows[@]}"
echo
for n in "${notes[@]}"; do echo "- $n"; done
echo
echo "Dialogues/s, callbench (a) ÷ Python SDK (b): **$(ratio "$rust_dps" "$py_dps")×** counting the dialogues callbench wrote" \
     "(accepted by its checker), **$(ratio "$rust_pps" "$py_dps")×** counting every dialogue it role-played (the script has no checker)."
if [[ -n "${rows_c:-}" ]]; then
    cat <<EOF

| rate-limit run | arrivals at the mock | span s | achieved rate | most in any 60 s | most in any 6 s | smallest gap | calls / wall | calls / generate time | load |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |
$rows_c
EOF
fi
