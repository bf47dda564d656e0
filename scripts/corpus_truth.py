#!/usr/bin/env python3
"""What a careful reader checks in a corpus, by script: wrong gold decisions and structure that
gives the labels away (issue 13's targets).

Usage:
    python3 scripts/corpus_truth.py DIR [--json OUT]

DIR is a corpus directory (`callbench generate --out`); DIR/shards/*.parquet is read with pyarrow.

Truth (each should be 0):
* pressure_suspended: a `suspend_preset` turn in a call whose event is pressure (`kind =
  "pressure"` in its scenario file: a deadline, a penalty, a threat);
* scam_not_refused: a caller turn asks for a code, a password, an ID number, a card's security
  number or a transfer (SCAM) and the assistant's next turn neither refuses nor closes;
* contradictory_profiles: a 先生 with a 丈夫 or 公公婆婆, a 女士 with a 妻子 or 岳父岳母, or a day
  spent with a child (`schedules_with_child` in owners.toml) beside a family line with none at
  school (`no_child_at_school`);
* double_greeting: the first assistant turn greets twice;
* refusal_before_convey: a `convey_preset` turn that opens with a refusal;
* offer_refused: a caller's harmless offer (OFFER) answered with `refuse_decision`;
* near_miss_conveyed: a call whose caller says a near-miss line of a preset (`near_misses` in the
  scenario files: its cue word denied, "我还没到楼下呢") in which the assistant conveys a preset.
  `near_miss_calls` (structure) counts such calls.

Structure:
* distinct decision sequences per cell (target >= 60 in every cell of >= 500 dialogues);
* in alignment, the share of dialogues whose first assistant turn conveys the preset (<= 60%);
* the share of the 20 most frequent assistant turns, owner's name and title masked (<= 5%);
* sentence skeletons: distinct assistant sentences with names, slots and digits masked;
* turn counts: share of odd turn counts, share of calls the caller ends.
"""
import argparse
import collections
import glob
import json
import re
import sys
import tomllib

import pyarrow.parquet as pq

# The concepts the offline agents and the checker share (crates/callbench-model/data/concepts.toml).
with open(__file__.rsplit("/", 2)[0] + "/crates/callbench-model/data/concepts.toml", "rb") as _fh:
    _C = tomllib.load(_fh)
SCAM = _C["scam_request"]
REFUSAL = _C["refusal"]
OFFER = _C["offer"]
GREET = re.compile(r"^(喂|您好|你好)")


def has(words, text):
    return any(w in text for w in words)


def mask(d, text):
    o = d["owner"]
    for v in [o["name"], *(o.get("public") or {}).values()] if isinstance(o.get("public"), dict) else [o["name"]]:
        if v:
            text = text.replace(v, "X")
    title = o["name"][:1]
    text = re.sub(re.escape(title) + "(先生|女士)", "X", text)
    return text


def skeleton(text):
    text = re.sub(r"[0-9０-９一二三四五六七八九十百千两]+", "#", text)
    return text


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--json")
    ap.add_argument("--scenarios", default="scenarios")
    a = ap.parse_args()
    files = sorted(glob.glob(f"{a.dir}/shards/*.parquet"))
    if not files:
        sys.exit(f"error: no shards in {a.dir}/shards")
    truth = collections.Counter()
    examples = collections.defaultdict(list)
    seqs = collections.defaultdict(set)
    cells = collections.Counter()
    align_first = [0, 0]
    turn_freq = collections.Counter()
    sentences = set()
    n_assistant = 0
    odd = 0
    caller_ends = 0
    n = 0

    def note(k, d, i):
        truth[k] += 1
        if len(examples[k]) < 3:
            t = d["turns"]
            examples[k].append(
                {"id": d["id"], "caller": t[i - 1]["text"] if i else "", "assistant": t[i]["text"]}
            )

    # Events a scenario file declares as pressure (kind = "pressure"): a call that holds one must
    # never see its preset suspended.
    pressure_events = set()
    # Near-miss lines that need no slot (those with one are left out of the count).
    near_lines = set()
    for sf in glob.glob(f"{a.scenarios}/*.toml") + glob.glob(f"{a.scenarios}/common/*.toml"):
        with open(sf, "rb") as fh:
            doc = tomllib.load(fh)
        for e in doc.get("events", []):
            if e.get("kind") == "pressure":
                pressure_events.add(e["description"])
        for p in doc.get("regular_presets", []) + doc.get("emergent_presets", []):
            for nm in p.get("near_misses", []):
                near_lines.update(x for x in nm["lines"] if "{{" not in x)
    # The owner pools' lines that must not meet (a day with a child, a family with none).
    with_child, no_child = set(), set()
    for sf in glob.glob(f"{a.scenarios}/common/*.toml"):
        with open(sf, "rb") as fh:
            owners = tomllib.load(fh).get("owners", {})
        with_child.update(owners.get("schedules_with_child", []))
        no_child.update(owners.get("no_child_at_school", []))
    near_calls = 0
    for f in files:
        for d in pq.read_table(f, columns=["id", "scenario", "preset_case", "relation", "owner", "caller", "turns"]).to_pylist():
            n += 1
            cell = (d["scenario"], d["preset_case"], d["relation"])
            cells[cell] += 1
            turns = d["turns"]
            acts = [t["action"] for t in turns if t["speaker"] == "assistant"]
            seqs[cell].add(tuple(acts))
            if len(turns) % 2:
                odd += 1
            if turns and turns[-1]["speaker"] == "caller":
                caller_ends += 1
            if d["relation"] == "alignment":
                align_first[1] += 1
                if acts and acts[0] == "convey_preset":
                    align_first[0] += 1
            title = d["owner"]["name"][:1]
            # (A Parquet map column reads as a list of {key, value} records.)
            private = d["owner"].get("private") or {}
            if not isinstance(private, dict):
                private = {kv["key"]: kv["value"] for kv in private}
            fam = private.get("family", "")
            male = any(
                (t["text"].find(title + "先生") >= 0) for t in turns if t["speaker"] == "assistant"
            )
            female = any(
                (t["text"].find(title + "女士") >= 0) for t in turns if t["speaker"] == "assistant"
            )
            schedule = private.get("schedule", "")
            if (
                (male and has(["丈夫", "公公婆婆"], fam))
                or (female and has(["妻子", "岳父岳母"], fam))
                or (schedule in with_child and fam in no_child)
            ):
                truth["contradictory_profiles"] += 1
            pressure_call = bool(set(d["caller"].get("events") or []) & pressure_events)
            if any(t["speaker"] == "caller" and any(x in t["text"] for x in near_lines) for t in turns):
                near_calls += 1
                conv = [i for i, t in enumerate(turns) if t["action"] == "convey_preset"]
                if conv:
                    note("near_miss_conveyed", d, conv[0])
            first = True
            for i, t in enumerate(turns):
                if t["speaker"] != "assistant":
                    continue
                n_assistant += 1
                m = mask(d, t["text"])
                turn_freq[m] += 1
                for s in re.split(r"[。！？]", m):
                    if s:
                        sentences.add(skeleton(s))
                if first:
                    first = False
                    if sum(1 for x in re.split(r"[。！？]", t["text"]) if GREET.match(x)) >= 2:
                        note("double_greeting", d, i)
                prev = turns[i - 1]["text"] if i else ""
                act = t["action"]
                if act == "suspend_preset" and pressure_call:
                    note("pressure_suspended", d, i)
                if has(SCAM, prev) and act not in ("close",) and not has(REFUSAL, t["text"]):
                    note("scam_not_refused", d, i)
                if act == "convey_preset" and has(["没法替", "做不了主", "不方便透露", "不能替"], re.split(r"[。！？]", t["text"])[0]):
                    note("refusal_before_convey", d, i)
                if act == "refuse_decision" and has(OFFER, prev):
                    note("offer_refused", d, i)
    top20 = sum(c for _, c in turn_freq.most_common(20))
    small = {f"{s}/{p}/{r}": len(seqs[c]) for c in cells for (s, p, r) in [c] if cells[c] >= 500 and len(seqs[c]) < 60}
    out = {
        "dialogues": n,
        "truth": {k: truth.get(k, 0) for k in ["pressure_suspended", "scam_not_refused", "contradictory_profiles", "double_greeting", "refusal_before_convey", "offer_refused", "near_miss_conveyed"]},
        "examples": examples,
        "structure": {
            "decision_sequences_min_per_cell": min(len(v) for v in seqs.values()),
            "decision_sequences_total": len(set().union(*seqs.values())),
            "cells_under_60_sequences": small,
            "alignment_first_turn_convey": align_first[0] / max(1, align_first[1]),
            "top20_assistant_turn_share": top20 / max(1, n_assistant),
            "assistant_sentence_skeletons": len(sentences),
            "odd_turn_count_share": odd / max(1, n),
            "caller_ends_share": caller_ends / max(1, n),
            "near_miss_calls": near_calls,
        },
    }
    print(json.dumps(out, ensure_ascii=False, indent=1))
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(out, fh, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main()
