//! Diagnostics with a file position, rendered like rustc (header, `-->` location, source line, caret).

use std::fmt;
use std::path::PathBuf;

/// How bad a diagnostic is: errors stop a run, warnings are printed and the run goes on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Error,
    Warning,
}

impl Severity {
    fn label(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// One problem at one place in one file.
///
/// `line` and `col` are 1-based; `col` counts characters (not bytes) so the caret lines up in a terminal.
/// `len` is the number of characters to underline (at least one caret is always drawn).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub message: String,
    pub file: PathBuf,
    pub line: usize,
    pub col: usize,
    pub len: usize,
    /// The full text of line `line` (without its newline); empty when unknown.
    pub source_line: String,
    pub hint: Option<String>,
    /// What kind of problem this is, for callers that treat a kind specially (e.g. [`UNKNOWN_MARKER`]).
    pub code: Option<&'static str>,
}

/// The code of "unknown marker" diagnostics: a `+kubebuilder:` name (or a near miss of a known one) that no
/// marker has. Projects porting Go types may let these through as warnings (rkb-manifests' settings).
pub const UNKNOWN_MARKER: &str = "unknown-marker";

impl Diagnostic {
    pub fn error(message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            message: message.into(),
            file: PathBuf::new(),
            line: 0,
            col: 0,
            len: 0,
            source_line: String::new(),
            hint: None,
            code: None,
        }
    }

    pub fn warning(message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(message)
        }
    }

    /// Places the diagnostic at `line:col` (1-based) of `file`, underlining `len` characters.
    pub fn at(mut self, file: impl Into<PathBuf>, line: usize, col: usize, len: usize) -> Self {
        self.file = file.into();
        self.line = line;
        self.col = col;
        self.len = len;
        self
    }

    pub fn with_source_line(mut self, source_line: impl Into<String>) -> Self {
        self.source_line = source_line.into();
        self
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// `file:line:col`, the location part of the rendering.
    pub fn location(&self) -> String {
        format!("{}:{}:{}", self.file.display(), self.line, self.col)
    }

    /// The rustc-style rendering:
    /// ```text
    /// error: unknown marker `kubebuilder:validation:Minimun`
    ///   --> src/api/v1/demo_types.rs:12:9
    ///    |
    /// 12 |     /// +kubebuilder:validation:Minimun=1
    ///    |         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
    ///    = help: did you mean `kubebuilder:validation:Minimum`?
    /// ```
    pub fn render(&self) -> String {
        let mut out = format!("{}: {}\n", self.severity.label(), self.message);
        if self.line == 0 {
            if !self.file.as_os_str().is_empty() {
                out.push_str(&format!("  --> {}\n", self.file.display()));
            }
            if let Some(hint) = &self.hint {
                out.push_str(&format!("   = help: {hint}\n"));
            }
            return out;
        }
        let num = self.line.to_string();
        let pad = " ".repeat(num.len());
        out.push_str(&format!("{pad}--> {}\n", self.location()));
        out.push_str(&format!("{pad} |\n"));
        if !self.source_line.is_empty() {
            // Tabs would shift the caret; render them as four spaces on both lines.
            let shown = self.source_line.replace('\t', "    ");
            out.push_str(&format!("{num} | {}\n", shown.trim_end()));
            let prefix: String = self
                .source_line
                .chars()
                .take(self.col.saturating_sub(1))
                .collect();
            let indent = prefix.replace('\t', "    ").chars().count();
            let carets = "^".repeat(self.len.max(1));
            out.push_str(&format!("{pad} | {}{carets}\n", " ".repeat(indent)));
        }
        if let Some(hint) = &self.hint {
            out.push_str(&format!("{pad} = help: {hint}\n"));
        }
        out
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render())
    }
}

/// Renders many diagnostics, errors first in file/line order, with a closing count line.
pub fn render_all(diags: &[Diagnostic]) -> String {
    let mut sorted: Vec<&Diagnostic> = diags.iter().collect();
    sorted.sort_by(|a, b| {
        (a.severity, &a.file, a.line, a.col).cmp(&(b.severity, &b.file, b.line, b.col))
    });
    let mut out = String::new();
    for d in &sorted {
        out.push_str(&d.render());
        out.push('\n');
    }
    let errors = diags.iter().filter(|d| d.is_error()).count();
    if errors > 0 {
        out.push_str(&format!(
            "error: aborting due to {errors} previous error{}; no file written\n",
            if errors == 1 { "" } else { "s" }
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_caret_under_span() {
        let d = Diagnostic::error("unknown marker `kubebuilder:validation:Minimun`")
            .at("src/api/v1/demo_types.rs", 12, 9, 5)
            .with_source_line("    /// +kubebuilder:validation:Minimun=1")
            .with_hint("did you mean `kubebuilder:validation:Minimum`?");
        let r = d.render();
        assert_eq!(
            r,
            "error: unknown marker `kubebuilder:validation:Minimun`\n\
             \x20 --> src/api/v1/demo_types.rs:12:9\n\
             \x20  |\n\
             12 |     /// +kubebuilder:validation:Minimun=1\n\
             \x20  |         ^^^^^\n\
             \x20  = help: did you mean `kubebuilder:validation:Minimum`?\n"
        );
    }

    #[test]
    fn render_all_counts_errors() {
        let d = vec![
            Diagnostic::warning("w").at("a.rs", 1, 1, 1),
            Diagnostic::error("e").at("b.rs", 2, 1, 1),
        ];
        let r = render_all(&d);
        assert!(r.starts_with("error: e"), "{r}");
        assert!(r.ends_with("aborting due to 1 previous error; no file written\n"));
    }
}
