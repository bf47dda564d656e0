//! Synthetic owner profiles. Names come from pools of common surnames and given names,
//! addresses from invented cities, roads and compounds, phone numbers from a prefix no real
//! subscriber has (validated in the library). Nothing here is any real person's data.

use crate::dialogue::Owner;
use crate::scenario::OwnerPools;
use rand::Rng;
use rand::seq::IndexedRandom;
use std::collections::BTreeMap;

/// A drawn owner: the profile plus the forms of address templates use.
#[derive(Debug, Clone)]
pub struct OwnerDraw {
    /// The profile as stored with the dialogue (presets are added by the caller of `draw`).
    pub owner: Owner,
    /// How to address the owner politely (`王先生`).
    pub title: String,
    /// Family name.
    pub surname: String,
}

fn pick<'a, R: Rng + ?Sized>(rng: &mut R, list: &'a [String]) -> &'a str {
    list.choose(rng).map(String::as_str).unwrap_or("")
}

/// A family line that fits the owner: the shared pool plus the lines only a man (妻子, 岳父岳母)
/// or only a woman (丈夫, 公公婆婆) can say of themselves.
fn pick_family<'a, R: Rng + ?Sized>(pools: &'a OwnerPools, female: bool, rng: &mut R) -> &'a str {
    let own = if female {
        &pools.family_female
    } else {
        &pools.family_male
    };
    let n = pools.family.len() + own.len();
    if n == 0 {
        return "";
    }
    let i = rng.random_range(0..n);
    match pools.family.get(i) {
        Some(s) => s,
        None => &own[i - pools.family.len()],
    }
}

/// A family line that fits an owner whose child is at school: as `pick_family`, less the lines
/// of `no_child_at_school`. `None` when the pools have no such line.
pub fn family_with_child<R: Rng + ?Sized>(
    pools: &OwnerPools,
    female: bool,
    rng: &mut R,
) -> Option<String> {
    let own = if female {
        &pools.family_female
    } else {
        &pools.family_male
    };
    let fits: Vec<&String> = pools
        .family
        .iter()
        .chain(own)
        .filter(|l| !pools.no_child_at_school.contains(l))
        .collect();
    fits.choose(rng).map(|s| s.to_string())
}

/// Draws a synthetic owner from the pools.
pub fn draw<R: Rng + ?Sized>(pools: &OwnerPools, rng: &mut R) -> OwnerDraw {
    let surname = pick(rng, &pools.surnames).to_string();
    let female = rng.random_bool(0.5);
    let given = if female {
        pick(rng, &pools.given_female)
    } else {
        pick(rng, &pools.given_male)
    };
    let title = format!("{surname}{}", if female { "女士" } else { "先生" });
    let phone = {
        let mut p = pools.phone_prefix.clone();
        while p.len() < 11 {
            p.push(char::from(b'0' + rng.random_range(0..10u8)));
        }
        p
    };
    let address = format!(
        "{}{}{}号{}{}栋{}单元{}{:02}室",
        pick(rng, &pools.cities),
        pick(rng, &pools.roads),
        rng.random_range(1..300),
        pick(rng, &pools.communities),
        rng.random_range(1..30),
        rng.random_range(1..6),
        rng.random_range(1..33),
        rng.random_range(1..5),
    );
    let private = BTreeMap::from([
        ("phone".to_string(), phone),
        ("address".to_string(), address),
        (
            "schedule".to_string(),
            pick(rng, &pools.schedules).to_string(),
        ),
        (
            "workplace".to_string(),
            pick(rng, &pools.workplaces).to_string(),
        ),
        (
            "family".to_string(),
            pick_family(pools, female, rng).to_string(),
        ),
    ]);
    let public = BTreeMap::from([("title".to_string(), title.clone())]);
    OwnerDraw {
        owner: Owner {
            name: format!("{surname}{given}"),
            public,
            private,
            presets: Vec::new(),
        },
        title,
        surname,
    }
}
