import copy
from owners import OWNERS

def O(key, pub=None, **priv):
    """An owner from the hand-written table, with optional extra public/private facts."""
    o = copy.deepcopy(OWNERS[key])
    if pub:
        o["public"].update(pub)
    o["private"].update(priv)
    return o

def D(kind, scenario, case, relation, owner, presets, caller, turns, expected, note):
    return {"kind": kind, "scenario": scenario, "preset_case": case, "relation": relation,
            "owner": owner, "presets": presets, "caller": caller, "turns": turns,
            "expected": expected, "note": note}
