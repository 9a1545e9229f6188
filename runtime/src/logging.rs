//! Structured logging with tracing: `RUST_LOG` filters (default `info`), `--log-format` picks text or JSON.

use tracing_subscriber::EnvFilter;

use crate::options::LogFormat;

/// Installs the global subscriber. Calling it twice (e.g. from tests) keeps the first one.
pub fn init(format: LogFormat) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt().with_env_filter(filter);
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .try_init(),
    };
}
