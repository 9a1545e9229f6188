//! Structured logging with tracing: `RUST_LOG` filters (default `info`), `--log-format` picks text or JSON.
//!
//! `RUST_LOG` takes comma-separated directives: a bare level sets the default, `target=level` sets one module tree
//! (`info,kube=warn,my_operator=debug`), as env_logger reads them. tracing-subscriber's `EnvFilter` also selects
//! by span and field (`[reconcile{object=ns/a}]=debug`); that syntax is not read here, because its regex engine
//! would add seconds to every operator's build. A directive that does not parse is reported on stderr and the
//! default is used.
//!
//! The default is `info`, without kube's client (`kube_client::client`): it logs every failed request at ERROR
//! (and every watch cut short at WARN), before rkb logs the same failure once where it has the context: the
//! reconcile, the watch, the outage. An API server restart was dozens of lines a second. `RUST_LOG=info` (or
//! `info,kube_client=debug`) brings them back.

use tracing::{Level, Subscriber};
use tracing_subscriber::filter::Targets;
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::layer::SubscriberExt as _;

use crate::options::LogFormat;

/// Installs the global subscriber, writing to stdout. Calling it twice (e.g. from tests) keeps the first one.
pub fn init(format: LogFormat) {
    let filter = filter_from_env();
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
    filter: Targets,
    ansi: bool,
    writer: W,
) -> Box<dyn Subscriber + Send + Sync>
where
    W: for<'w> MakeWriter<'w> + Send + Sync + 'static,
{
    // fmt's own ceiling is INFO unless told otherwise, which would drop every debug event before `filter` saw it.
    let builder = tracing_subscriber::fmt()
        .with_max_level(tracing::level_filters::LevelFilter::TRACE)
        .with_ansi(ansi)
        .with_writer(writer);
    match format {
        LogFormat::Text => Box::new(builder.finish().with(filter)),
        LogFormat::Json => Box::new(
            builder
                .json()
                .flatten_event(true)
                .with_current_span(true)
                // The current span carries controller/namespace/object; the full list would repeat it.
                .with_span_list(false)
                .finish()
                .with(filter),
        ),
    }
}

/// The filter `RUST_LOG` asks for (see the module docs); `info` when it is unset or does not parse.
pub fn filter_from_env() -> Targets {
    parse_filter(std::env::var("RUST_LOG").ok().as_deref()).unwrap_or_else(|warning| {
        eprintln!("{warning}");
        default_filter()
    })
}

/// `info`, without kube's per-request failure lines (module docs).
fn default_filter() -> Targets {
    Targets::new().with_default(Level::INFO).with_target(
        "kube_client::client",
        tracing::level_filters::LevelFilter::OFF,
    )
}

/// `RUST_LOG`'s value as a filter, or the warning to print when it does not parse.
fn parse_filter(spec: Option<&str>) -> Result<Targets, String> {
    match spec.map(str::trim) {
        None | Some("") => Ok(default_filter()),
        Some(spec) => spec.parse().map_err(|err| {
            format!(
                "warning: RUST_LOG={spec:?} is not a log filter ({err}), logging at info; \
                 write a level and target=level directives, e.g. RUST_LOG=info,kube=warn,my_operator=debug"
            )
        }),
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
        emit_with(format, "info,noisy=warn")
    }

    fn emit_with(format: LogFormat, rust_log: &str) -> String {
        let buffer = Buffer::default();
        let out = buffer.clone();
        let filter = parse_filter(Some(rust_log)).unwrap();
        let subscriber = subscriber(format, filter, false, move || out.clone());
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
            tracing::info!(target: "noisy::client", "filtered out by its target");
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
    fn rust_log_directives_parse_or_warn() {
        let filter = parse_filter(Some("warn,my_operator=debug")).unwrap();
        assert!(filter.would_enable("my_operator::controller", &Level::DEBUG));
        assert!(!filter.would_enable("kube_client", &Level::INFO));
        let default = parse_filter(None).unwrap();
        assert!(default.would_enable("anything", &Level::INFO));
        assert!(!default.would_enable("anything", &Level::DEBUG));
        // kube's per-request failure lines are left out by default (rkb logs each failure once), not when asked.
        assert!(!default.would_enable("kube_client::client::builder", &Level::ERROR));
        assert!(default.would_enable("kube_runtime::watcher", &Level::INFO));
        let asked = parse_filter(Some("info")).unwrap();
        assert!(asked.would_enable("kube_client::client::builder", &Level::ERROR));
        let warning = parse_filter(Some("my_operator=loud")).unwrap_err();
        assert!(
            warning.starts_with("warning: RUST_LOG=\"my_operator=loud\" is not a log filter"),
            "{warning}"
        );
    }

    #[test]
    fn debug_lines_show_when_rust_log_asks_for_them() {
        let text = emit_with(LogFormat::Text, "debug,noisy=warn");
        assert!(
            text.contains("filtered out") && !text.contains("by its target"),
            "{text}"
        );
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
