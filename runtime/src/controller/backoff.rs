//! Requeue delays after failed reconciles: controller-runtime's default rate limiter, i.e. the larger of a
//! per-object exponential backoff (5 ms doubling to 1000 s, forgotten on success) and an overall token bucket
//! (10 qps, burst 100) shared by every object of a controller, so a mass failure cannot hot-loop the API server.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// controller-runtime's per-item base delay.
pub const DEFAULT_BASE_DELAY: Duration = Duration::from_millis(5);
/// controller-runtime's per-item maximum delay.
pub const DEFAULT_MAX_DELAY: Duration = Duration::from_secs(1000);
/// controller-runtime's overall rate.
pub const DEFAULT_QPS: f64 = 10.0;
/// controller-runtime's overall burst.
pub const DEFAULT_BURST: u32 = 100;

/// Per-object exponential backoff combined with an overall token bucket.
#[derive(Debug)]
pub struct RateLimiter<Key> {
    base: Duration,
    max: Duration,
    failures: Mutex<HashMap<Key, u32>>,
    bucket: Mutex<TokenBucket>,
}

impl<Key: Hash + Eq + Clone> Default for RateLimiter<Key> {
    fn default() -> Self {
        Self::new(
            DEFAULT_BASE_DELAY,
            DEFAULT_MAX_DELAY,
            DEFAULT_QPS,
            DEFAULT_BURST,
        )
    }
}

impl<Key: Hash + Eq + Clone> RateLimiter<Key> {
    /// A limiter with the given per-object and overall limits.
    pub fn new(base: Duration, max: Duration, qps: f64, burst: u32) -> Self {
        Self {
            base,
            max,
            failures: Mutex::new(HashMap::new()),
            bucket: Mutex::new(TokenBucket::new(qps, burst)),
        }
    }

    /// Records one more failure of `key` and returns how long to wait before retrying it.
    pub fn when(&self, key: &Key) -> Duration {
        self.when_at(key, Instant::now())
    }

    fn when_at(&self, key: &Key, now: Instant) -> Duration {
        let exp = {
            let mut failures = self.failures.lock().unwrap_or_else(|e| e.into_inner());
            let n = failures.entry(key.clone()).or_insert(0);
            let delay = exponential(self.base, self.max, *n);
            *n = n.saturating_add(1);
            delay
        };
        let overall = self
            .bucket
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .reserve(now);
        exp.max(overall)
    }

    /// Forgets the failures of `key` (after a successful reconcile), so its next failure starts at the base delay.
    pub fn forget(&self, key: &Key) {
        self.failures
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(key);
    }

    /// How many consecutive failures `key` has had.
    pub fn num_requeues(&self, key: &Key) -> u32 {
        self.failures
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(key)
            .copied()
            .unwrap_or(0)
    }
}

fn exponential(base: Duration, max: Duration, failures: u32) -> Duration {
    // Integer nanoseconds keep the steps exact; past 2^64 the cap has long been reached.
    if failures >= 64 {
        return max;
    }
    let nanos = base.as_nanos().saturating_mul(1u128 << failures);
    if nanos >= max.as_nanos() {
        max
    } else {
        Duration::from_nanos(nanos as u64)
    }
}

/// golang.org/x/time/rate's token bucket, reservation style: every call takes a token and says how long to wait
/// for it.
#[derive(Debug)]
struct TokenBucket {
    qps: f64,
    burst: f64,
    tokens: f64,
    last: Option<Instant>,
}

impl TokenBucket {
    fn new(qps: f64, burst: u32) -> Self {
        Self {
            qps,
            burst: f64::from(burst),
            tokens: f64::from(burst),
            last: None,
        }
    }

    fn reserve(&mut self, now: Instant) -> Duration {
        if let Some(last) = self.last {
            let elapsed = now.saturating_duration_since(last).as_secs_f64();
            self.tokens = (self.tokens + elapsed * self.qps).min(self.burst);
        }
        self.last = Some(now);
        self.tokens -= 1.0;
        if self.tokens >= 0.0 {
            Duration::ZERO
        } else {
            Duration::from_secs_f64(-self.tokens / self.qps)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_object_delay_doubles_and_caps() {
        let rl = RateLimiter::<&str>::default();
        let now = Instant::now();
        let delays: Vec<_> = (0..5).map(|_| rl.when_at(&"a", now)).collect();
        assert_eq!(
            delays,
            [5, 10, 20, 40, 80].map(Duration::from_millis).to_vec()
        );
        assert_eq!(rl.num_requeues(&"a"), 5);
        // Another object starts from the base.
        assert_eq!(rl.when_at(&"b", now), Duration::from_millis(5));
        for _ in 0..60 {
            rl.when_at(&"c", now + Duration::from_secs(3600));
        }
        assert_eq!(
            rl.when_at(&"c", now + Duration::from_secs(7200)),
            DEFAULT_MAX_DELAY
        );
    }

    #[test]
    fn forget_resets() {
        let rl = RateLimiter::<&str>::default();
        let now = Instant::now();
        rl.when_at(&"a", now);
        rl.when_at(&"a", now);
        rl.forget(&"a");
        assert_eq!(rl.num_requeues(&"a"), 0);
        assert_eq!(rl.when_at(&"a", now), Duration::from_millis(5));
    }

    #[test]
    fn overall_bucket_limits_after_burst() {
        let rl = RateLimiter::<u32>::new(
            Duration::from_millis(5),
            Duration::from_secs(1000),
            10.0,
            100,
        );
        let now = Instant::now();
        // 100 distinct objects fail at once: the burst absorbs them, each waits only its own 5 ms.
        for i in 0..100 {
            assert_eq!(rl.when_at(&i, now), Duration::from_millis(5));
        }
        // The 101st waits for a token: 1/10 s; the 102nd 2/10 s.
        assert_eq!(rl.when_at(&100, now), Duration::from_millis(100));
        assert_eq!(rl.when_at(&101, now), Duration::from_millis(200));
        // Tokens refill at 10 per second.
        assert_eq!(
            rl.when_at(&102, now + Duration::from_secs(10)),
            Duration::from_millis(5)
        );
    }

    #[test]
    fn exponential_never_overflows() {
        for n in [0, 30, 31, 32, 39, 40, 1000, u32::MAX] {
            assert!(exponential(DEFAULT_BASE_DELAY, DEFAULT_MAX_DELAY, n) <= DEFAULT_MAX_DELAY);
        }
        assert_eq!(
            exponential(DEFAULT_BASE_DELAY, DEFAULT_MAX_DELAY, 1),
            Duration::from_millis(10)
        );
    }
}
