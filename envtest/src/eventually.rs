//! Polling for asynchronous outcomes in tests, like Gomega's `Eventually`: controllers act some time after a
//! test changes something, so assertions wait for the state instead of sleeping a guessed duration.

use std::fmt;
use std::future::Future;
use std::time::Duration;

/// How often [`eventually`] checks.
pub const POLL_INTERVAL: Duration = Duration::from_millis(100);

/// [`eventually`] gave up: the state never arrived within the timeout. Its message says what was awaited; the
/// last error `check` returned, when its last attempt failed, is its `source()` (so a chain reporter shows it,
/// with its own causes, once). `Debug` is the same report, for a test's `.unwrap()`.
#[derive(thiserror::Error)]
#[error("timed out after {timeout:?} waiting until {what}{}", if last_error.is_some() { "; the last check failed" } else { "" })]
pub struct EventuallyTimeout {
    /// What the test was waiting for.
    pub what: String,
    /// How long it waited.
    pub timeout: Duration,
    /// The last error `check` returned, if its last attempts failed rather than saying "not yet".
    #[source]
    pub last_error: Option<BoxError>,
}

/// Any error `check` may return (an error type, anyhow's, a `String`), kept whole so its causes stay reachable.
type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

impl fmt::Debug for EventuallyTimeout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::error::write_report(f, self)
    }
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
    E: Into<BoxError>,
{
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        let last_error = match check().await {
            Ok(Some(value)) => return Ok(value),
            Ok(None) => None,
            Err(err) => Some(err.into()),
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

    /// The last error is the timeout's cause, shown once, with its own causes (read from the real file system).
    #[tokio::test]
    async fn times_out_naming_the_wait_with_the_last_error_as_its_cause() {
        let missing = std::env::temp_dir().join("rkb-envtest-no-such-dir/file");
        let err = eventually::<(), _, _, _>("the file exists", Duration::from_millis(250), || {
            let read = std::fs::read_to_string(&missing).map_err(|source| crate::Error::Io {
                path: missing.clone(),
                source,
            });
            async move { read.map(|_| None) }
        })
        .await
        .unwrap_err();
        // "No such file or directory (os error 2)", as the OS words it.
        let cause = std::io::Error::from_raw_os_error(2).to_string();
        assert_eq!(
            err.to_string(),
            "timed out after 250ms waiting until the file exists; the last check failed"
        );
        let report = format!("{err:?}");
        assert_eq!(
            report,
            format!(
                "timed out after 250ms waiting until the file exists; the last check failed\n\nCaused by:\n    \
                 cannot access {}\n    {cause}",
                missing.display()
            )
        );
        assert_eq!(report.matches(&cause).count(), 1, "{report}");
    }

    #[tokio::test]
    async fn a_wait_that_ends_on_not_yet_has_no_cause() {
        let err =
            eventually::<(), _, _, _>("never", Duration::ZERO, || async { Ok::<_, String>(None) })
                .await
                .unwrap_err();
        assert_eq!(err.to_string(), "timed out after 0ns waiting until never");
        assert!(std::error::Error::source(&err).is_none());
    }
}
