//! The train / validation / test split of a corpus.
//!
//! A dialogue's split is a function of the run seed and its id only: a uniform number drawn
//! from `mix64(seed, fnv1a(id))` falls into the train, validation or test share. So a dialogue
//! never changes split when the corpus grows (a larger `--count` keeps every id of the smaller
//! one with its split), a dialogue can be assigned alone, and two runs with the same seed agree.
//!
//! Stratification by scenario × preset case × relation is in expectation: the draw is
//! independent of the cell, so every cell's dialogues fall into the splits with the same
//! probabilities (80/10/10 by default), and a cell of `n` dialogues holds `n · share ± √n`-ish
//! of each. A positional allocation (every tenth dialogue of a cell to `test`) would be exact
//! per cell but would move dialogues between splits whenever a cell grows, which a benchmark's
//! test set must never do.

use crate::error::{ModelError, Result};
use crate::plan::{fnv1a, mix64};
use crate::vocab::Split;
use serde::{Deserialize, Serialize};

/// The shares of the three splits; they sum to 1.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SplitRatios {
    /// Share of `train`.
    pub train: f64,
    /// Share of `validation`.
    pub validation: f64,
    /// Share of `test`.
    pub test: f64,
}

impl Default for SplitRatios {
    fn default() -> Self {
        SplitRatios {
            train: 0.8,
            validation: 0.1,
            test: 0.1,
        }
    }
}

impl SplitRatios {
    /// Checks that the shares are in 0–1 and sum to 1 (within rounding). `key` names the config
    /// key in the error.
    pub fn validate(&self, key: &str) -> Result<()> {
        let shares = [self.train, self.validation, self.test];
        if shares
            .iter()
            .any(|s| !s.is_finite() || *s < 0.0 || *s > 1.0)
        {
            return Err(ModelError::Plan(format!(
                "{key}: split shares must each be in 0–1, got train {}, validation {}, test {}",
                self.train, self.validation, self.test
            )));
        }
        let sum: f64 = shares.iter().sum();
        if (sum - 1.0).abs() > 1e-9 {
            return Err(ModelError::Plan(format!(
                "{key}: split shares must sum to 1, got {sum}"
            )));
        }
        Ok(())
    }

    /// The split of dialogue `id` in a run with `seed`.
    pub fn assign(&self, seed: u64, id: &str) -> Split {
        // 53 bits of the hash as a uniform number in [0, 1).
        let h = mix64(seed ^ 0x5b11_7000_0000_0000 ^ mix64(fnv1a(id.as_bytes())));
        let u = (h >> 11) as f64 / (1u64 << 53) as f64;
        if u < self.train {
            Split::Train
        } else if u < self.train + self.validation {
            Split::Validation
        } else {
            Split::Test
        }
    }
}
