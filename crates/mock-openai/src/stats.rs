//! What the mock has seen: counters by outcome and request arrival times.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// At most this many arrival instants are kept (16 MB); later arrivals are only counted in
/// [`Stats::arrivals_dropped`].
pub const MAX_ARRIVALS: usize = 1_000_000;

/// How the mock answered one chat-completion request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// `200` with a complete reply.
    Ok,
    /// `429` with `Retry-After`.
    RateLimited,
    /// `500`.
    ServerError,
    /// Held for `hang_ms`, then answered (usually after the client gave up).
    Hang,
    /// `200` with a cut-off JSON body.
    Truncated,
    /// The connection was reset without a response.
    Reset,
    /// `401`: missing or wrong API key.
    Unauthorized,
    /// `400`: the request was malformed or asked for streaming.
    BadRequest,
}

impl Outcome {
    /// All outcomes, in declaration order.
    pub const ALL: [Outcome; 8] = [
        Outcome::Ok,
        Outcome::RateLimited,
        Outcome::ServerError,
        Outcome::Hang,
        Outcome::Truncated,
        Outcome::Reset,
        Outcome::Unauthorized,
        Outcome::BadRequest,
    ];

    /// A short name for logs: `ok`, `429`, `500`, `hang`, `truncated`, `reset`, `401`, `400`.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::RateLimited => "429",
            Outcome::ServerError => "500",
            Outcome::Hang => "hang",
            Outcome::Truncated => "truncated",
            Outcome::Reset => "reset",
            Outcome::Unauthorized => "401",
            Outcome::BadRequest => "400",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// A snapshot of the mock's counters ([`MockServer::stats`](crate::MockServer::stats)).
///
/// Outcomes are counted when decided, so a request that is still hanging already counts as
/// [`Outcome::Hang`], and a request the client abandoned still counts.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Stats {
    /// Chat-completion requests received.
    pub requests: u64,
    /// Requests answered `200` with a complete reply.
    pub ok: u64,
    /// Requests answered `429`.
    pub rate_limited: u64,
    /// Requests answered `500`.
    pub server_error: u64,
    /// Requests held for `hang_ms`.
    pub hang: u64,
    /// Requests answered with a truncated body.
    pub truncated: u64,
    /// Requests whose connection was reset.
    pub reset: u64,
    /// Requests refused `401`.
    pub unauthorized: u64,
    /// Requests refused `400`.
    pub bad_request: u64,
    /// `GET /v1/models` requests.
    pub model_list: u64,
    /// When each chat-completion request arrived, in arrival order (when
    /// [`record_arrivals`](crate::MockConfig::record_arrivals) is on).
    pub arrivals: Vec<Instant>,
    /// Arrivals not kept because [`MAX_ARRIVALS`] were already recorded.
    pub arrivals_dropped: u64,
}

impl Stats {
    /// The number of requests with this outcome.
    pub fn count(&self, outcome: Outcome) -> u64 {
        match outcome {
            Outcome::Ok => self.ok,
            Outcome::RateLimited => self.rate_limited,
            Outcome::ServerError => self.server_error,
            Outcome::Hang => self.hang,
            Outcome::Truncated => self.truncated,
            Outcome::Reset => self.reset,
            Outcome::Unauthorized => self.unauthorized,
            Outcome::BadRequest => self.bad_request,
        }
    }

    /// The largest number of recorded arrivals within any window of length `window`
    /// (`[t, t + window)`): what a rate limiter allowing N per window must keep at most N.
    pub fn max_arrivals_in(&self, window: Duration) -> usize {
        let mut times = self.arrivals.clone();
        times.sort_unstable();
        let mut best = 0;
        let mut start = 0;
        for end in 0..times.len() {
            while times[end].duration_since(times[start]) >= window {
                start += 1;
            }
            best = best.max(end - start + 1);
        }
        best
    }

    /// Recorded arrivals per second between the first and the last (`None` for fewer than two).
    pub fn arrival_rate(&self) -> Option<f64> {
        let first = self.arrivals.iter().min()?;
        let last = self.arrivals.iter().max()?;
        let span = last.duration_since(*first).as_secs_f64();
        (self.arrivals.len() >= 2 && span > 0.0).then(|| (self.arrivals.len() - 1) as f64 / span)
    }
}

/// The live counters: atomics, plus the arrival log behind a mutex held only for a push.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    requests: AtomicU64,
    by_outcome: [AtomicU64; 8],
    model_list: AtomicU64,
    arrivals: Mutex<Vec<Instant>>,
    arrivals_dropped: AtomicU64,
}

impl Counters {
    pub(crate) fn arrived(&self, at: Instant, record: bool) {
        self.requests.fetch_add(1, Ordering::Relaxed);
        if record {
            let mut arrivals = self.arrivals.lock().unwrap_or_else(|e| e.into_inner());
            if arrivals.len() < MAX_ARRIVALS {
                arrivals.push(at);
            } else {
                self.arrivals_dropped.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    pub(crate) fn outcome(&self, outcome: Outcome) {
        self.by_outcome[outcome.index()].fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn model_list(&self) {
        self.model_list.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn snapshot(&self) -> Stats {
        let n = |o: Outcome| self.by_outcome[o.index()].load(Ordering::Relaxed);
        Stats {
            requests: self.requests.load(Ordering::Relaxed),
            ok: n(Outcome::Ok),
            rate_limited: n(Outcome::RateLimited),
            server_error: n(Outcome::ServerError),
            hang: n(Outcome::Hang),
            truncated: n(Outcome::Truncated),
            reset: n(Outcome::Reset),
            unauthorized: n(Outcome::Unauthorized),
            bad_request: n(Outcome::BadRequest),
            model_list: self.model_list.load(Ordering::Relaxed),
            arrivals: self
                .arrivals
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone(),
            arrivals_dropped: self.arrivals_dropped.load(Ordering::Relaxed),
        }
    }

    pub(crate) fn clear(&self) {
        self.requests.store(0, Ordering::Relaxed);
        for c in &self.by_outcome {
            c.store(0, Ordering::Relaxed);
        }
        self.model_list.store(0, Ordering::Relaxed);
        self.arrivals
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
        self.arrivals_dropped.store(0, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_count() {
        let t0 = Instant::now();
        let ms = |m| t0 + Duration::from_millis(m);
        let stats = Stats {
            arrivals: vec![ms(0), ms(100), ms(900), ms(1000), ms(1050), ms(3000)],
            ..Stats::default()
        };
        assert_eq!(stats.max_arrivals_in(Duration::from_secs(1)), 4);
        assert_eq!(stats.max_arrivals_in(Duration::from_millis(1)), 1);
        assert!(stats.arrival_rate().unwrap() > 1.6);
        assert_eq!(Stats::default().arrival_rate(), None);
    }
}
