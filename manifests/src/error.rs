//! The error type of a run: every diagnostic of the run, or an I/O failure.
//!
//! An I/O failure's message names the file and `source()` returns the io error, never both in one message, so a
//! chain reporter (anyhow's `{:#}`, the CLI's "caused by" lines) prints the cause once. Diagnostics are not a
//! chain: each is a complete rustc-style report.

use rkb_markers::{Diagnostic, render_all};
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Everything wrong with the project's sources, each with file:line:col, the source line and a caret.
    #[error("{}", render_all(.0))]
    Diagnostics(Vec<Diagnostic>),
    // "access": the same variant reports reads, directory listings and writes.
    #[error("cannot access {}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// `crd_yaml` was asked for a kind the project does not define.
    #[error("no CRD for kind `{kind}` in group `{group}` (known: {known})")]
    UnknownKind {
        group: String,
        kind: String,
        known: String,
    },
}

impl Error {
    /// The diagnostics carried by this error (empty for I/O errors).
    pub fn diagnostics(&self) -> &[Diagnostic] {
        match self {
            Error::Diagnostics(d) => d,
            _ => &[],
        }
    }
}

/// Adds `d` unless it is already there: the same problem is found once per use of a type (and per version that
/// uses it), and is reported once.
pub(crate) fn report_once(diags: &mut Vec<Diagnostic>, d: Diagnostic) {
    if !diags.contains(&d) {
        diags.push(d);
    }
}
