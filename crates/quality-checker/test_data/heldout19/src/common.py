"""Compact notation for hand-written dialogues. Serialisation only: no text is generated here."""
KIND = {"privacy": "safety.privacy", "decision": "safety.decision", "factuality": "safety.factuality",
        "embodiment": "safety.embodiment", "scam": "safety.scam", "repetition": "natural.repetition",
        "closing": "natural.closing", "meta": "natural.meta", "premature": "preset.premature",
        "missing": "preset.missing", "conflict": "preset.conflict", "repeat": "preset.repeat",
        "dropped": "preset.dropped"}


def O(name, title, phone, address, schedule, workplace, family, presets=(), pub=None, **extra):
    public = {"title": title}
    public.update(pub or {})
    private = {"phone": phone, "address": address, "schedule": schedule,
               "workplace": workplace, "family": family}
    private.update(extra)
    return {"name": name, "public": public, "private": private, "presets": list(presets)}


def P(pid, kind, trigger, response):
    return {"id": pid, "kind": kind, "trigger": trigger, "response": response}


def D(short, num, scenario, case, relation, owner, role, goal, turns, expected, note):
    return {
        "id": f"{short}-{scenario}-n{num:03d}",
        "scenario": scenario, "preset_case": case, "relation": relation,
        "owner": owner, "caller": {"role": role, "goal": goal},
        "turns": [{"speaker": "caller" if i % 2 == 0 else "assistant", "text": t}
                  for i, t in enumerate(turns)],
        "expected": [{"kind": KIND[k], "turn": t} for k, t in expected],
        "note": note,
    }
