#!/usr/bin/env python3
"""Inline-aware costs per source line and per function from a callgrind profile (issue 14).

The checker is one codegen unit and inlines nearly everything, so `callgrind_annotate` gives a
detector's inclusive cost but not where inside it the instructions go: an inlined helper's
instructions are charged to the helper's own source lines. This script charges every
instruction (and every call's inclusive cost, at its call site) to *each* frame of its inline
chain (`llvm-addr2line -i`), so a line of a detector counts everything it does, inlined or not.

    valgrind --tool=callgrind --dump-instr=yes --callgrind-out-file=cg.out \\
        --toggle-collect='quality_checker::Checker::check' \\
        target/release/checker-eval --bench /tmp/5k.jsonl --n 4000
    scripts/callgrind_lines.py cg.out target/release/checker-eval fn [SUBSTRING] [MIN_K]
    scripts/callgrind_lines.py cg.out target/release/checker-eval line preset.rs [MIN_K]

Figures are thousands of instructions per check (the `--bench` run's 4,100 checks; `--checks`
to change). A line's figure includes its callees and may overlap its neighbours' (a frame
counts once per instruction, lines of one function each count it). One-time builds inside the
first check are included.
"""
import collections
import json
import re
import subprocess
import sys


def pos(tok, prev, hexa):
    if tok == "*":
        return prev
    if tok[0] in "+-":
        return prev + int(tok, 0)
    return int(tok, 16) if hexa else int(tok)


def load(cg, binary, skip=None):
    self_cost, call_cost = collections.Counter(), collections.Counter()
    addr = line = 0
    pending_call = False
    objects, current = {}, ""
    fns, callee = {}, ""
    for l in open(cg):
        if not l or l[0] == "#":
            continue
        if l[0].isdigit() or l[0] in "+-*":
            p = l.split()
            if len(p) < 3:
                continue
            addr, line = pos(p[0], addr, True), pos(p[1], line, False)
            if binary in current and not (pending_call and skip and re.search(skip, callee)):
                (call_cost if pending_call else self_cost)[addr] += int(p[2])
            pending_call = False
        elif l.startswith(("fn=", "cfn=")):
            m = re.match(r"c?fn=\((\d+)\)\s*(.*)", l.strip())
            if m and m.group(2):
                fns[m.group(1)] = m.group(2)
            if l.startswith("cfn=") and m:
                callee = fns.get(m.group(1), "")
        elif l.startswith("calls="):
            pending_call = True
        elif l.startswith(("ob=", "cob=")):
            m = re.match(r"c?ob=\((\d+)\)\s*(.*)", l.strip())
            if m.group(2):
                objects[m.group(1)] = m.group(2)
            if l.startswith("ob="):
                current = objects.get(m.group(1), "")
    addrs = sorted(set(self_cost) | set(call_cost))
    out = subprocess.run(
        ["llvm-addr2line", "--output-style=JSON", "-f", "-i", "-C", "-e", binary],
        input="".join(f"{hex(a)}\n" for a in addrs),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    lines, funcs = collections.Counter(), collections.Counter()
    for a, js in zip(addrs, out.strip().split("\n")):
        cost = self_cost[a] + call_cost[a]
        seen_l, seen_f = set(), set()
        for fr in json.loads(js)["Symbol"]:
            if "quality-checker/src/" in fr["FileName"]:
                key = fr["FileName"].split("quality-checker/src/")[1] + ":" + str(fr["Line"])
                if key not in seen_l:
                    lines[key] += cost
                    seen_l.add(key)
            f = re.sub(r"::h[0-9a-f]{16}$", "", fr["FunctionName"])
            f = re.sub(r"::\{\{closure\}\}.*", "", f)
            if f.startswith("quality_checker") and f not in seen_f:
                funcs[f] += cost
                seen_f.add(f)
    return lines, funcs


def main():
    args = sys.argv[1:]
    checks = 4100
    if "--checks" in args:
        i = args.index("--checks")
        checks = int(args[i + 1])
        del args[i : i + 2]
    skip = src_dir = None
    if "--skip" in args:
        # Calls whose callee matches the regex are not charged to their callers (e.g. the
        # one-time builds, or the turn index's `State::build`, paid by whoever asks first).
        i = args.index("--skip")
        skip = args[i + 1]
        del args[i : i + 2]
    src_dir = "crates/quality-checker/src"
    if "--src" in args:
        i = args.index("--src")
        src_dir = args[i + 1]
        del args[i : i + 2]
    cg, binary, mode = args[:3]
    rest = args[3:]
    lines, funcs = load(cg, binary, skip)
    k = lambda v: v / checks / 1000
    if mode == "fn":
        pat = rest[0] if rest else ""
        least = float(rest[1]) if len(rest) > 1 else 1.0
        for f, v in funcs.most_common():
            if pat in f and k(v) >= least:
                print(f"{k(v):7.1f}k {f}")
    else:
        src = rest[0]
        least = float(rest[1]) if len(rest) > 1 else 1.0
        text = open(f"{src_dir}/{src}", encoding="utf-8").read().split("\n")
        for key in sorted((x for x in lines if x.rsplit(":", 1)[0] == src),
                          key=lambda x: int(x.rsplit(":", 1)[1])):
            n = int(key.rsplit(":", 1)[1])
            if k(lines[key]) >= least:
                print(f"{n:5d} {k(lines[key]):7.1f}k {text[n - 1][:120] if n else ''}")


if __name__ == "__main__":
    main()
