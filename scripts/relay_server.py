#!/usr/bin/env python3
"""An OpenAI-compatible endpoint whose replies are written by someone (a person, or a model
working in another session): every request is parked in a queue directory until its answer file
appears. It lets `callbench generate --backend openai` play real calls with a model that has no
HTTP API here — the only way on this machine to get dialogues produced by a real model through
the LLM path (prompts, schemas, retries, the checker), to be labelled by hand afterwards.

    python3 scripts/relay_server.py serve QUEUE --port 8099 &
    python3 scripts/relay_server.py show QUEUE --model relay-caller      # what is waiting
    python3 scripts/relay_server.py answer QUEUE answers.json            # {"17": {...}, ...}
    python3 scripts/relay_server.py status QUEUE

Requests are routed by their `model` field, so that each role can be answered by a different
hand (give the caller and the assistant different model names in the config). `show` prints
each waiting request of one model compactly: a conversation's system prompt and the response
schema are printed in full the first time only; after that, only the messages added since the
conversation was last shown (a request continues the conversation whose printed messages are a
prefix of its own, so two calls that share a system prompt are not mixed up). Answers are JSON values (the reply
object itself, not a string); a string is sent as is. An answer file may answer many requests.

Layout of QUEUE: `pending/ID.json` (the request body), `answers/ID.json` (the reply, written by
`answer`), `done/ID.json` (request and reply, kept for the record), `shown-MODEL-KofN.json` (what
`show` has printed to the hand answering that model's shard K of N: `--shard K/N` splits a
model's conversations between hands). Only the standard library.
"""

from __future__ import annotations

import argparse
import hashlib
import http.server
import json
import os
import sys
import threading
import time

LOCK = threading.Lock()


def est_tokens(s: str) -> int:
    cjk = sum(1 for c in s if ord(c) > 0x2E80)
    other = len(s.encode()) - 3 * cjk
    return int(cjk / 1.5 + max(other, 0) / 4) + 1


class Handler(http.server.BaseHTTPRequestHandler):
    queue = "."
    counter = [0]

    def log_message(self, *a):  # quiet
        pass

    def _send(self, code: int, obj) -> None:
        body = json.dumps(obj, ensure_ascii=False).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path.rstrip("/").endswith("/models"):
            self._send(200, {"object": "list", "data": []})
        else:
            self._send(404, {"error": {"message": "not found"}})

    def do_POST(self):
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send(404, {"error": {"message": "not found"}})
            return
        n = int(self.headers.get("Content-Length", "0"))
        try:
            req = json.loads(self.rfile.read(n))
        except json.JSONDecodeError as e:
            self._send(400, {"error": {"message": f"bad JSON: {e}"}})
            return
        with LOCK:
            self.counter[0] += 1
            rid = f"{int(time.time())}{self.counter[0]:05d}"
            pend = os.path.join(self.queue, "pending", rid + ".json")
            with open(pend + ".tmp", "w") as f:
                json.dump(req, f, ensure_ascii=False)
            os.replace(pend + ".tmp", pend)
        ans = os.path.join(self.queue, "answers", rid + ".json")
        while not os.path.exists(ans):
            time.sleep(0.5)
        time.sleep(0.1)
        with open(ans) as f:
            reply = json.load(f)
        content = reply if isinstance(reply, str) else json.dumps(reply, ensure_ascii=False)
        with open(os.path.join(self.queue, "done", rid + ".json"), "w") as f:
            json.dump({"request": req, "reply": content}, f, ensure_ascii=False)
        os.remove(pend)
        os.remove(ans)
        prompt = sum(est_tokens(m.get("content") or "") + 4 for m in req.get("messages", []))
        out = est_tokens(content)
        self._send(200, {
            "id": "relay-" + rid,
            "object": "chat.completion",
            "created": int(time.time()),
            "model": req.get("model", ""),
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": out,
                      "total_tokens": prompt + out},
        })


def serve(args) -> None:
    for d in ("pending", "answers", "done"):
        os.makedirs(os.path.join(args.queue, d), exist_ok=True)
    Handler.queue = args.queue
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    srv.daemon_threads = True
    print(f"relay on http://127.0.0.1:{args.port}/v1, queue {args.queue}", flush=True)
    srv.serve_forever()


def h(s: str) -> str:
    return hashlib.sha1(s.encode()).hexdigest()[:8]


def show(args) -> None:
    k, n_sh = (int(x) for x in (args.shard or "0/1").split("/"))
    shown_path = os.path.join(args.queue, f"shown-{args.model or 'any'}-{k}of{n_sh}.json")
    # "systems": system prompts printed; "convs": per conversation, the hashes of the messages
    # printed. Two calls can share a system prompt (two owners with the same title and presets):
    # a request continues the conversation whose printed messages are a prefix of its own, so
    # the two are never mixed up.
    shown = {"systems": [], "convs": [], "schema": []}
    if os.path.exists(shown_path):
        shown.update(json.load(open(shown_path)))
    pend = os.path.join(args.queue, "pending")
    ids = sorted(f[:-5] for f in os.listdir(pend) if f.endswith(".json"))
    answered = set(f[:-5] for f in os.listdir(os.path.join(args.queue, "answers")))
    n = 0
    for rid in ids:
        if rid in answered:
            continue
        try:
            req = json.load(open(os.path.join(pend, rid + ".json")))
        except (OSError, json.JSONDecodeError):
            continue
        if args.model and req.get("model") != args.model:
            continue
        msgs = req.get("messages", [])
        system = "\n".join(m.get("content") or "" for m in msgs if m.get("role") == "system")
        rest = [m for m in msgs if m.get("role") != "system"]
        sys_h = h(system)
        # A request without a system prompt (the judge's one-message questions) is a
        # conversation of its own: it is sharded by its first message instead.
        shard_h = sys_h if system else h(json.dumps(rest[:1], ensure_ascii=False, sort_keys=True))
        if int(shard_h, 16) % n_sh != k:
            continue
        hashes = [h(json.dumps(m, ensure_ascii=False, sort_keys=True)) for m in rest]
        best = None
        for i, c in enumerate(shown["convs"]):
            if c["sys"] == sys_h and hashes[: len(c["msgs"])] == c["msgs"]:
                if best is None or len(c["msgs"]) > len(shown["convs"][best]["msgs"]):
                    best = i
        if best is None:
            shown["convs"].append({"sys": sys_h, "msgs": []})
            best = len(shown["convs"]) - 1
            start = 0
        else:
            start = len(shown["convs"][best]["msgs"])
        n += 1
        print(f"=== request {rid} · conversation {sys_h}-{best} · model {req.get('model')} ===")
        if sys_h not in shown["systems"] or start == 0:
            print("[system]\n" + system)
            shown["systems"].append(sys_h)
        if start:
            print(f"[… {start} earlier messages of this conversation, shown before]")
        for m in rest[start:]:
            print(f"[{m.get('role')}] {m.get('content')}")
        rf = req.get("response_format")
        if rf:
            s = json.dumps(rf, ensure_ascii=False, sort_keys=True)
            if h(s) not in shown["schema"]:
                print("[response_format] " + s)
                shown["schema"].append(h(s))
            else:
                print(f"[response_format {h(s)}, shown before]")
        shown["convs"][best]["msgs"] = hashes
        print()
    with open(shown_path, "w") as f:
        json.dump(shown, f)
    print(f"({n} waiting for model {args.model or 'any'})")


def answer(args) -> None:
    data = json.load(open(args.file))
    for rid, reply in data.items():
        if not os.path.exists(os.path.join(args.queue, "pending", rid + ".json")):
            print(f"no pending request {rid}", file=sys.stderr)
            continue
        p = os.path.join(args.queue, "answers", rid + ".json")
        with open(p + ".tmp", "w") as f:
            json.dump(reply, f, ensure_ascii=False)
        os.replace(p + ".tmp", p)
    print(f"answered {len(data)}")


def status(args) -> None:
    pend = [f for f in os.listdir(os.path.join(args.queue, "pending")) if f.endswith(".json")]
    by = {}
    for f in pend:
        try:
            m = json.load(open(os.path.join(args.queue, "pending", f))).get("model")
        except (OSError, json.JSONDecodeError):
            m = "?"
        by[m] = by.get(m, 0) + 1
    done = len(os.listdir(os.path.join(args.queue, "done")))
    print(f"pending {by} · done {done}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("serve")
    s.add_argument("queue")
    s.add_argument("--port", type=int, default=8099)
    s = sub.add_parser("show")
    s.add_argument("queue")
    s.add_argument("--model")
    s.add_argument("--shard", help="K/N: only conversations whose hash is K modulo N (of the system prompt; of the first message when there is none)")
    s = sub.add_parser("answer")
    s.add_argument("queue")
    s.add_argument("file")
    s = sub.add_parser("status")
    s.add_argument("queue")
    a = p.parse_args()
    {"serve": serve, "show": show, "answer": answer, "status": status}[a.cmd](a)


if __name__ == "__main__":
    main()
