//! Token and request accounting per role, and what it cost.

use crate::config::{LlmConfig, Role};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};

/// Counters of one role. Lock-free: a million calls update them from many tasks.
#[derive(Debug, Default)]
pub struct RoleMeter {
    requests: AtomicU64,
    cache_hits: AtomicU64,
    prompt_tokens: AtomicU64,
    completion_tokens: AtomicU64,
    retries: AtomicU64,
    failures: AtomicU64,
    invalid_replies: AtomicU64,
}

/// Usage of every role.
#[derive(Debug, Default)]
pub struct UsageMeter {
    roles: [RoleMeter; 3],
}

/// A snapshot of one role's usage.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RoleUsage {
    /// Model of the role.
    pub model: String,
    /// Requests answered by an endpoint (not the cache).
    pub requests: u64,
    /// Requests answered from the cache (paid for by an earlier run).
    pub cache_hits: u64,
    /// Prompt tokens of answered requests (as reported, or estimated when a server omits usage).
    pub prompt_tokens: u64,
    /// Completion tokens of answered requests.
    pub completion_tokens: u64,
    /// Retries after a failed attempt.
    pub retries: u64,
    /// Requests that failed for good.
    pub failures: u64,
    /// Replies the agents could not use (invalid JSON, missing fields).
    pub invalid_replies: u64,
    /// Cost of the answered requests, by the configured prices.
    pub cost: f64,
}

/// A snapshot of all usage, for the manifest and the summary.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    /// Per role.
    pub roles: BTreeMap<String, RoleUsage>,
    /// Total cost.
    pub cost: f64,
    /// Currency of the costs.
    pub currency: String,
}

impl UsageMeter {
    fn meter(&self, role: Role) -> &RoleMeter {
        &self.roles[role as usize]
    }

    /// Records an answered request.
    pub fn answered(&self, role: Role, prompt: u64, completion: u64) {
        let m = self.meter(role);
        m.requests.fetch_add(1, Ordering::Relaxed);
        m.prompt_tokens.fetch_add(prompt, Ordering::Relaxed);
        m.completion_tokens.fetch_add(completion, Ordering::Relaxed);
    }

    /// Records a cache hit.
    pub fn cache_hit(&self, role: Role) {
        self.meter(role).cache_hits.fetch_add(1, Ordering::Relaxed);
    }

    /// Records a retry.
    pub fn retry(&self, role: Role) {
        self.meter(role).retries.fetch_add(1, Ordering::Relaxed);
    }

    /// Records a request that failed for good.
    pub fn failure(&self, role: Role) {
        self.meter(role).failures.fetch_add(1, Ordering::Relaxed);
    }

    /// Records a reply an agent could not use.
    pub fn invalid_reply(&self, role: Role) {
        self.meter(role)
            .invalid_replies
            .fetch_add(1, Ordering::Relaxed);
    }

    /// Total retries so far (for progress).
    pub fn total_retries(&self) -> u64 {
        self.roles
            .iter()
            .map(|m| m.retries.load(Ordering::Relaxed))
            .sum()
    }

    /// Total answered requests so far (for progress).
    pub fn total_requests(&self) -> u64 {
        self.roles
            .iter()
            .map(|m| m.requests.load(Ordering::Relaxed))
            .sum()
    }

    /// Total tokens so far (for progress).
    pub fn total_tokens(&self) -> u64 {
        self.roles
            .iter()
            .map(|m| {
                m.prompt_tokens.load(Ordering::Relaxed)
                    + m.completion_tokens.load(Ordering::Relaxed)
            })
            .sum()
    }

    /// A snapshot with costs.
    pub fn snapshot(&self, cfg: &LlmConfig) -> Usage {
        let mut roles = BTreeMap::new();
        let mut total = 0.0;
        for role in Role::ALL {
            let m = self.meter(role);
            let model = cfg.role(role).model.clone();
            let prompt = m.prompt_tokens.load(Ordering::Relaxed);
            let completion = m.completion_tokens.load(Ordering::Relaxed);
            let price = cfg.prices.get(&model).copied().unwrap_or_default();
            let cost = prompt as f64 / 1e6 * price.input_per_million
                + completion as f64 / 1e6 * price.output_per_million;
            total += cost;
            roles.insert(
                role.as_str().to_string(),
                RoleUsage {
                    model,
                    requests: m.requests.load(Ordering::Relaxed),
                    cache_hits: m.cache_hits.load(Ordering::Relaxed),
                    prompt_tokens: prompt,
                    completion_tokens: completion,
                    retries: m.retries.load(Ordering::Relaxed),
                    failures: m.failures.load(Ordering::Relaxed),
                    invalid_replies: m.invalid_replies.load(Ordering::Relaxed),
                    cost,
                },
            );
        }
        Usage {
            roles,
            cost: total,
            currency: cfg.currency.clone(),
        }
    }
}

/// A rough token count of text: CJK characters count one token each, other text one token per
/// four bytes. Used to reserve tokens-per-minute before sending and for servers that omit
/// `usage`; corrected from `usage` when the server reports it.
pub fn estimate_tokens(text: &str) -> u64 {
    let mut cjk = 0u64;
    let mut other = 0u64;
    for c in text.chars() {
        if ('\u{2E80}'..='\u{9FFF}').contains(&c)
            || ('\u{F900}'..='\u{FAFF}').contains(&c)
            || ('\u{FF00}'..='\u{FFEF}').contains(&c)
        {
            cjk += 1;
        } else {
            other += c.len_utf8() as u64;
        }
    }
    cjk + other.div_ceil(4)
}
