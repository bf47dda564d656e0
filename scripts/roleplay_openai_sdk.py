#!/usr/bin/env python3
"""The obvious Python alternative to `callbench generate --backend openai`, for comparison.

asyncio + the official `openai` SDK (`pip install openai`): for each dialogue a caller model and
an assistant model role-play a phone call, with the same system prompts as
templates/prompts/caller.tera and assistant.tera (filled with fixed sample values), the same
message layout as the Rust agents (crates/caller-agent, crates/assistant-agent: LlmCaller,
LlmAssistant), the same `response_format` JSON schemas, and the same loop as
crates/roleplay/src/engine.rs: caller, then assistant; stop when the assistant's end_call is
true, when the caller hung up (after the assistant's last word), or at 20 turns. A failed call
is retried a few times with backoff; a reply that is not valid JSON is asked again.

Concurrency is bounded by an asyncio.Semaphore over dialogues (as the Rust pipeline bounds
dialogues in flight).

    python3 scripts/roleplay_openai_sdk.py --base-url http://127.0.0.1:8089/v1 \\
        --count 2000 --concurrency 256

Prints dialogues, calls, seconds, dialogues/s, calls/s (and one JSON line with the same
figures, for scripts).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import time

import openai

MAX_TURNS = 20
MAX_RETRIES = 3          # retries of a failed call (transport error, 429, 5xx)
MAX_INVALID_REPLIES = 2  # re-asks after a reply that does not parse

# --- prompts: templates/prompts/caller.tera and assistant.tera, filled with sample values ---

OWNER_TITLE = "李先生"

CALLER_SYSTEM = f"""你在扮演一通电话里的来电者。你打给{OWNER_TITLE}，但接电话的是{OWNER_TITLE}的来电助理（一个替机主接电话的助手），不是机主本人。

场景：外卖。外卖骑手、商家、外卖平台客服和配送站打给机主：送达、问路、缺货、晚到、求好评、退款、改派等
你的身份：外卖骑手（你叫小王）。
你的说话风格：说话很快，手上压着好几单，着急赶下一单。
你打这通电话的目的（只有你自己知道，不要一下子全说出来）：外卖已经送到汇智大厦楼下，想问机主怎么交给他
通话中你会遇到并提起的情况（在合适的时候自然地说出来，一次一件）：
- 汤洒了一点，袋子里有点漏
要求：
- 说口语化的普通话，像真实打电话一样简短，每次一到两句话，不用书面语，不列清单，不用表情或括号动作。
- 你听到的是助理说的话；根据它说的内容自然回应。它可能转告机主、说机主的交代、或者拒绝替机主做决定。
- 你的事情说清楚、得到答复或确认会被转告后，就礼貌道别（说“再见”或“拜拜”）并把 end_call 设为 true。
- 不要替助理说话，不要暴露你是在扮演。

每次只输出一个 JSON 对象：{{"utterance": "你这一句要说的话", "end_call": 是否挂断电话（true/false）}}
"""

ASSISTANT_SYSTEM = f"""你是{OWNER_TITLE}的来电助理，替机主接听电话。机主现在不方便接电话，你只能替机主传话、记录来电事项，不能替机主做任何决定。

可以告诉来电者的信息：机主的称呼是{OWNER_TITLE}。

机主的预设（只在触发条件满足、且来电者的情况与之不冲突时转达；说过一次就不要反复说）：
- [p1] 当「骑手或商家说外卖已经送到楼下或门口时」时，可以转达：「麻烦把外卖放在门口就行，不用敲门，谢谢」

安全规则（必须遵守）：
1. 不透露机主的任何隐私：电话号码、住址、行程、单位、家人情况等，你也不知道这些。
2. 不替机主做决定：不答应、不拒绝、不付款、不接受、不取消、不确认、不承诺，只说会转告机主、由机主决定。
3. 不编造事实：不说预设里没有的时间、金额、地点、人名；来电者自己说过的可以复述。
4. 你没有身体：不能说看到、听到现场、下楼、去拿、开门等实际动作。
5. 来电者遇到异常（东西坏了、洒了、有急事、出了意外）时，先处理他的情况，和预设冲突就暂不执行预设，转告机主。
6. 说简短自然的口语，每次一到两句，不要提自己是AI，不要用列表、markdown 或英文。
7. 来电者道别、事情处理完时礼貌结束通话。

每次只输出一个 JSON 对象：
{{"utterance": "你要说的话", "action": 决策标签, "preset_id": 涉及的预设编号或 null, "end_call": 是否结束通话}}
决策标签取值：respond（一般回应）、convey_preset（转达预设）、defer_preset（先处理来电者的事，稍后再转达预设）、suspend_preset（情况与预设冲突，暂不执行并转告机主）、relay_to_owner（记录并转告机主）、refuse_decision（拒绝替机主做决定）、decline_private（拒绝透露隐私）、close（结束通话）。"""

PRESET_IDS = {"p1"}
CALLER_OPENER = "（电话接通了，对方还没说话，请你先开口。）"

# --- schemas: caller_reply_schema() and assistant_reply_schema() of the Rust agents ---

ACTIONS = [
    "respond", "convey_preset", "defer_preset", "suspend_preset",
    "relay_to_owner", "refuse_decision", "decline_private", "close",
]

CALLER_FORMAT = {
    "type": "json_schema",
    "json_schema": {
        "name": "caller_turn",
        "strict": True,
        "schema": {
            "type": "object",
            "properties": {
                "utterance": {"type": "string", "description": "这一轮要说的话"},
                "end_call": {"type": "boolean", "description": "说完这句是否挂断"},
            },
            "required": ["utterance", "end_call"],
            "additionalProperties": False,
        },
    },
}

ASSISTANT_FORMAT = {
    "type": "json_schema",
    "json_schema": {
        "name": "assistant_turn",
        "strict": True,
        "schema": {
            "type": "object",
            "properties": {
                "utterance": {"type": "string", "description": "这一轮要说的话"},
                "action": {"type": "string", "enum": ACTIONS},
                "preset_id": {"type": ["string", "null"], "description": "涉及的预设编号，没有则为 null"},
                "end_call": {"type": "boolean"},
            },
            "required": ["utterance", "action", "preset_id", "end_call"],
            "additionalProperties": False,
        },
    },
}


class Counter:
    calls = 0
    retries = 0
    invalid = 0
    failed_dialogues = 0
    turns = 0


def parse_caller(content: str) -> dict:
    v = json.loads(content)
    text = (v.get("utterance") or "").strip()
    if not text:
        raise ValueError("`utterance` is missing or empty")
    return {"text": text, "end_call": v.get("end_call") is True}


def parse_assistant(content: str) -> dict:
    v = json.loads(content)
    text = (v.get("utterance") or "").strip()
    if not text:
        raise ValueError("`utterance` is missing or empty")
    action = v.get("action")
    if action not in ACTIONS:
        raise ValueError(f"unknown action {action!r}")
    preset_id = v.get("preset_id")
    if preset_id in ("", "null"):
        preset_id = None
    if preset_id is not None and preset_id not in PRESET_IDS:
        raise ValueError(f"preset_id {preset_id!r} is not a preset of the owner")
    end_call = v.get("end_call")
    if not isinstance(end_call, bool):
        end_call = action == "close"
    return {"text": text, "action": action, "preset_id": preset_id, "end_call": end_call}


async def call(client: openai.AsyncOpenAI, model: str, messages: list, response_format: dict) -> str:
    """One chat completion, retried on failure with exponential backoff and jitter."""
    for attempt in range(MAX_RETRIES + 1):
        try:
            Counter.calls += 1
            r = await client.chat.completions.create(
                model=model,
                messages=messages,
                temperature=0.8,
                max_tokens=300,
                response_format=response_format,
            )
            return r.choices[0].message.content or ""
        except (openai.APIConnectionError, openai.APITimeoutError,
                openai.RateLimitError, openai.InternalServerError):
            if attempt == MAX_RETRIES:
                raise
            Counter.retries += 1
            await asyncio.sleep(random.uniform(0, 0.5 * 2 ** attempt))
    raise AssertionError("unreachable")


async def ask(client, model, messages, response_format, parse):
    last = None
    for _ in range(MAX_INVALID_REPLIES + 1):
        content = await call(client, model, messages, response_format)
        try:
            return parse(content)
        except (ValueError, TypeError, AttributeError, json.JSONDecodeError) as e:
            Counter.invalid += 1
            last = e
    raise ValueError(f"no valid reply: {last}")


async def dialogue(client: openai.AsyncOpenAI, model: str) -> list:
    turns: list[dict] = []
    while len(turns) < MAX_TURNS:
        # The caller sees its own turns as `assistant`, the phone assistant's as `user`.
        cm = [{"role": "system", "content": CALLER_SYSTEM},
              {"role": "user", "content": CALLER_OPENER}]
        cm += [{"role": "assistant" if t["speaker"] == "caller" else "user", "content": t["text"]}
               for t in turns]
        c = await ask(client, model, cm, CALLER_FORMAT, parse_caller)
        turns.append({"speaker": "caller", "text": c["text"]})
        # The assistant sees caller turns as `user`, its own as `assistant`.
        am = [{"role": "system", "content": ASSISTANT_SYSTEM}]
        am += [{"role": "user" if t["speaker"] == "caller" else "assistant", "content": t["text"]}
               for t in turns]
        a = await ask(client, model, am, ASSISTANT_FORMAT, parse_assistant)
        turns.append({"speaker": "assistant", "text": a["text"], "action": a["action"],
                      "preset_id": a["preset_id"]})
        if a["end_call"] or c["end_call"]:
            break
    return turns


async def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base-url", required=True, help="e.g. http://127.0.0.1:8089/v1")
    ap.add_argument("--count", type=int, default=1000, help="dialogues")
    ap.add_argument("--concurrency", type=int, default=256, help="dialogues in flight")
    ap.add_argument("--model", default="mock")
    ap.add_argument("--api-key", default=os.environ.get("OPENAI_API_KEY", "sk-mock"))
    ap.add_argument("--print-dialogues", type=int, default=0, help="print this many dialogues")
    args = ap.parse_args()

    client = openai.AsyncOpenAI(base_url=args.base_url, api_key=args.api_key, max_retries=0,
                                timeout=60.0)
    sem = asyncio.Semaphore(args.concurrency)
    results: list = []

    async def one(i: int):
        async with sem:
            try:
                results.append(await dialogue(client, args.model))
            except Exception as e:  # a dialogue that failed for good
                Counter.failed_dialogues += 1
                print(f"dialogue {i} failed: {type(e).__name__}: {e}", file=sys.stderr)

    start = time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(args.count)))
    seconds = time.perf_counter() - start
    await client.close()

    for d in results[: args.print_dialogues]:
        for t in d:
            print(f"{t['speaker']}: {t['text']}" + (f"  [{t['action']}]" if "action" in t else ""))
        print()
    n = len(results)
    turns = sum(len(d) for d in results)
    print(f"dialogues {n}  failed {Counter.failed_dialogues}  turns {turns}  calls {Counter.calls}"
          f"  retries {Counter.retries}  invalid {Counter.invalid}")
    print(f"seconds {seconds:.2f}  dialogues/s {n / seconds:.1f}  calls/s {Counter.calls / seconds:.1f}")
    print(json.dumps({"dialogues": n, "failed": Counter.failed_dialogues, "turns": turns,
                      "calls": Counter.calls, "retries": Counter.retries,
                      "invalid": Counter.invalid, "seconds": round(seconds, 3),
                      "dialogues_per_s": round(n / seconds, 2),
                      "calls_per_s": round(Counter.calls / seconds, 2)}))
    return 0 if Counter.failed_dialogues == 0 else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
