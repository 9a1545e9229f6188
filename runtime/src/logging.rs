//! Structured logging with tracing: `RUST_LOG` filters (default `info`), `--log-format` picks text or JSON.

use tracing::Subscriber;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::fmt::MakeWriter;

use crate::options::LogFormat;

/// Installs the global subscriber, writing to stdout. Calling it twice (e.g. from tests) keeps the first one.
pub fn init(format: LogFormat) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    // Colours only on a terminal: container log collectors would store the escape codes.
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stdout());
    let _ =
        tracing::subscriber::set_global_default(subscriber(format, filter, ansi, std::io::stdout));
}

/// The subscriber `init` installs, writing to `writer`: one line per event, JSON objects with the event's fields
/// at the top level and the current span (controller, object) alongside, or human-readable text (coloured when
/// `ansi`).
pub fn subscriber<W>(
    format: LogFormat,
    filter: EnvFilter,
    ansi: bool,
    writer: W,
) -> Box<dyn Subscriber + Send + Sync>
where
    W: for<'w> MakeWriter<'w> + Send + Sync + 'static,
{
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(ansi)
        .with_writer(writer);
    match format {
        LogFormat::Text => Box::new(builder.finish()),
        LogFormat::Json => Box::new(
            builder
                .json()
                .flatten_event(true)
                .with_current_span(true)
                // The current span carries controller/namespace/object; the full list would repeat it.
                .with_span_list(false)
                .finish(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::sync::{Arc, Mutex};

    use super::*;

    #[derive(Clone, Default)]
    struct Buffer(Arc<Mutex<Vec<u8>>>);

    impl Write for Buffer {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn emit(format: LogFormat) -> String {
        let buffer = Buffer::default();
        let out = buffer.clone();
        let subscriber = subscriber(format, EnvFilter::new("info"), false, move || out.clone());
        tracing::subscriber::with_default(subscriber, || {
            let span = tracing::info_span!(
                "reconcile",
                controller = "demo",
                namespace = "ns",
                object = "ns/a"
            );
            let _entered = span.enter();
            tracing::info!(retry_in = 5, "reconciler error");
            tracing::debug!("filtered out");
        });
        String::from_utf8(buffer.0.lock().unwrap().clone()).unwrap()
    }

    #[test]
    fn json_lines_carry_fields_and_the_span() {
        let text = emit(LogFormat::Json);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 1, "{text}");
        let line: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
        assert_eq!(line["message"], "reconciler error");
        assert_eq!(line["retry_in"], 5);
        assert_eq!(line["level"], "INFO");
        assert_eq!(line["span"]["controller"], "demo");
        assert_eq!(line["span"]["namespace"], "ns");
        assert_eq!(line["span"]["object"], "ns/a");
        assert_eq!(line["span"]["name"], "reconcile");
        assert!(line.get("spans").is_none(), "{line}");
    }

    #[test]
    fn text_lines_are_human_readable() {
        let text = emit(LogFormat::Text);
        assert!(
            text.contains("reconciler error") && text.contains("retry_in=5"),
            "{text}"
        );
        assert!(serde_json::from_str::<serde_json::Value>(text.trim()).is_err());
    }
}
