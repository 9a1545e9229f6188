//! Scaffold markers: comment lines that mark where `rkb create api` adds code to files it does not own.
//!
//! kubebuilder uses `+kubebuilder:scaffold:<name>`; YAML files keep that spelling. Rust files use
//! `// rkb:scaffold:<name>` without the `+`, so `rkb manifests` never mistakes them for markers.

use anyhow::{Result, bail};

/// Inserts `lines` right above the line containing `marker`, with that line's indentation.
/// Lines already present anywhere in the file are skipped, so running twice changes nothing.
pub fn insert_before_marker(
    file: &str,
    text: &str,
    marker: &str,
    lines: &[String],
) -> Result<String> {
    let Some(at) = text.lines().position(|l| l.contains(marker)) else {
        bail!(
            "{file} has no `{marker}` line, so rkb cannot add to it; restore the line where new entries belong"
        );
    };
    let existing: Vec<&str> = text.lines().map(str::trim).collect();
    let marker_line = text.lines().nth(at).unwrap_or_default();
    let indent = &marker_line[..marker_line.len() - marker_line.trim_start().len()];
    let new: Vec<String> = lines
        .iter()
        .filter(|l| !existing.contains(&l.trim()))
        .map(|l| format!("{indent}{l}"))
        .collect();
    if new.is_empty() {
        return Ok(text.to_string());
    }
    let mut out: Vec<String> = text.lines().map(str::to_string).collect();
    out.splice(at..at, new);
    let mut joined = out.join("\n");
    if text.ends_with('\n') {
        joined.push('\n');
    }
    Ok(joined)
}

/// Inserts `block` (several lines, taken as they are: a function's `}` may repeat one already in the file) right
/// above the line containing `marker`. The caller knows the block is new.
pub fn insert_block_before_marker(
    file: &str,
    text: &str,
    marker: &str,
    block: &str,
) -> Result<String> {
    let Some(at) = text.lines().position(|l| l.contains(marker)) else {
        bail!(
            "{file} has no `{marker}` line, so rkb cannot add to it; restore the line where new entries belong"
        );
    };
    let mut out: Vec<&str> = text.lines().collect();
    out.splice(at..at, block.lines());
    let mut joined = out.join("\n");
    if text.ends_with('\n') {
        joined.push('\n');
    }
    Ok(joined)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inserts_once_with_indentation() {
        let text = "fn main() {\n    // rkb:scaffold:x\n}\n";
        let lines = vec!["a();".to_string()];
        let once = insert_before_marker("f", text, "rkb:scaffold:x", &lines).unwrap();
        assert_eq!(once, "fn main() {\n    a();\n    // rkb:scaffold:x\n}\n");
        let twice = insert_before_marker("f", &once, "rkb:scaffold:x", &lines).unwrap();
        assert_eq!(twice, once);
    }

    #[test]
    fn missing_marker_is_an_error_naming_the_file() {
        let err = insert_before_marker(
            "src/main.rs",
            "fn main() {}\n",
            "rkb:scaffold:x",
            &["a".into()],
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("src/main.rs") && err.contains("rkb:scaffold:x"),
            "{err}"
        );
    }
}
