//! Polling for asynchronous outcomes in tests, like Gomega's `Eventually`: controllers act some time after a
//! test changes something, so assertions wait for the state instead of sleeping a guessed duration.

use std::fmt::Display;
use std::future::Future;
use std::time::Duration;

/// How often [`eventually`] checks.
pub const POLL_INTERVAL: Duration = Duration::from_millis(100);

/// [`eventually`] gave up: the state never arrived within the timeout.
#[derive(Debug, thiserror::Error)]
#[error("timed out after {timeout:?} waiting until {what}{}", last_error.as_ref().map(|e| format!(" (last error: {e})")).unwrap_or_default())]
pub struct EventuallyTimeout {
    /// What the test was waiting for.
    pub what: String,
    /// How long it waited.
    pub timeout: Duration,
    /// The last error `check` returned, if its last attempts failed rather than saying "not yet".
    pub last_error: Option<String>,
}

/// Calls `check` every [`POLL_INTERVAL`] until it returns `Ok(Some(value))`, and returns that value.
///
/// `Ok(None)` means "not yet"; an `Err` is retried too (the object may not exist yet) and reported if the
/// timeout passes. For yes/no checks, return `Ok(condition.then_some(()))`.
pub async fn eventually<T, E, F, Fut>(
    what: &str,
    timeout: Duration,
    mut check: F,
) -> Result<T, EventuallyTimeout>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<Option<T>, E>>,
    E: Display,
{
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        let last_error = match check().await {
            Ok(Some(value)) => return Ok(value),
            Ok(None) => None,
            Err(err) => Some(err.to_string()),
        };
        if tokio::time::Instant::now() >= deadline {
            return Err(EventuallyTimeout {
                what: what.to_string(),
                timeout,
                last_error,
            });
        }
        tokio::time::sleep(POLL_INTERVAL).await;
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU32, Ordering};

    use super::*;

    #[tokio::test]
    async fn returns_the_first_value_after_retrying_errors_and_nones() {
        let calls = AtomicU32::new(0);
        let value = eventually("the third call", Duration::from_secs(5), || async {
            match calls.fetch_add(1, Ordering::SeqCst) {
                0 => Err("not found"),
                1 => Ok(None),
                n => Ok(Some(n)),
            }
        })
        .await
        .unwrap();
        assert_eq!(value, 2);
    }

    #[tokio::test]
    async fn times_out_naming_the_wait_and_the_last_error() {
        let err =
            eventually::<(), _, _, _>("the impossible", Duration::from_millis(250), || async {
                Err("nope")
            })
            .await
            .unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("waiting until the impossible") && text.contains("last error: nope"),
            "{text}"
        );
    }
}
