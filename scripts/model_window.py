#!/usr/bin/env python3
"""A model (not a measurement) of what the in-order window of `generate` costs the LLM backend.

`roleplay::generate` runs dialogues through `futures::stream::iter(..).map(spawn).buffered(C)`:
at most C dialogues are queued, results come out in plan order, and the next dialogue starts
only when the *oldest* one has finished. A dialogue the checker rejects is played again (up to
`max_attempts`), so it holds its slot 2-3 times as long and the window behind it stalls.

This model plays N dialogues whose attempts are drawn from the first-attempt acceptance rate
P (each attempt independently accepted with P, at most A attempts), each attempt taking
CALLS x LATENCY seconds and no CPU, once through the in-order window and once through an
unordered one (a slot is freed as soon as its dialogue finishes), and prints calls/s against
the bound C / 50 ms.

    python3 scripts/model_window.py --p 0.396           # P measured by bench_llm.sh's a2 run
    python3 scripts/model_window.py --p 0.53 --attempts 3

P comes from a `max_attempts = 1` run: dialogues written / dialogues played.
"""

import argparse
import heapq
import random


def attempts(n, p, a, rng):
    out = []
    for _ in range(n):
        k = 1
        while rng.random() > p and k < a:
            k += 1
        out.append(k)
    return out


def in_order(durations, c):
    """futures' `buffered(c)`: dialogue i starts when dialogue i - c has been yielded."""
    yielded = [0.0] * len(durations)
    for i, d in enumerate(durations):
        start = yielded[i - c] if i >= c else 0.0
        yielded[i] = max(start + d, yielded[i - 1] if i else 0.0)
    return yielded[-1]


def unordered(durations, c):
    slots = [0.0] * c
    end = 0.0
    for d in durations:
        t = heapq.heappop(slots) + d
        heapq.heappush(slots, t)
        end = max(end, t)
    return end


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=6000, help="dialogues")
    ap.add_argument("--concurrency", type=int, default=256)
    ap.add_argument("--latency", type=float, default=0.0505,
                    help="seconds a call takes (the mock's 50 ms plus a little client time)")
    ap.add_argument("--nominal", type=float, default=0.050, help="latency of the bound C / latency")
    ap.add_argument("--calls", type=int, default=8, help="calls per role-play")
    ap.add_argument("--p", type=float, default=0.4, help="first-attempt acceptance rate")
    ap.add_argument("--attempts", type=int, default=3, help="max_attempts")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    att = attempts(args.n, args.p, args.attempts, rng)
    durations = [k * args.calls * args.latency for k in att]
    calls = sum(att) * args.calls
    bound = args.concurrency / args.nominal
    for name, t in (("in order (buffered)", in_order(durations, args.concurrency)),
                    ("unordered", unordered(durations, args.concurrency))):
        rate = calls / t
        print(f"{name:20} {sum(att)} role-plays, {calls} calls in {t:.2f} s: "
              f"{rate:.0f} calls/s = {100 * rate / bound:.1f}% of {bound:.0f}")


if __name__ == "__main__":
    main()
