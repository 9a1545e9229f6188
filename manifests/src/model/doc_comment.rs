//! Doc comments -> (markers, description), with controller-gen's description cleaning. The markers are parsed,
//! checked against each other and sorted into the item's settings (item_markers.rs).

use crate::model::item_markers::{self, ItemMarkers};
use crate::read::source::{DocLine, SourceFile};
use rkb_markers::{Diagnostic, Location, Target, is_marker_text, marker_in, parse_marker};

/// The doc comment of one item: its markers (parsed, checked and sorted) and its description.
#[derive(Clone, Debug, Default)]
pub struct Doc {
    pub markers: ItemMarkers,
    pub description: String,
}

/// Splits doc lines into markers (parsed for `target`) and the cleaned description.
pub fn build_doc(
    lines: &[DocLine],
    file: &SourceFile,
    target: Target,
    diags: &mut Vec<Diagnostic>,
) -> Doc {
    let mut markers = Vec::new();
    let mut text_lines: Vec<&str> = Vec::with_capacity(lines.len());
    for l in lines {
        if is_marker_text(&l.text) {
            let lead = l.text.len() - l.text.trim_start().len();
            let Some(text) = marker_in(&l.text) else {
                continue;
            };
            let loc = Location {
                file: &file.rel,
                line: l.line,
                col: l.col + l.text[..lead].chars().count(),
                source_line: file.line(l.line),
            };
            match parse_marker(text, target, &loc) {
                Ok(m) => markers.push(m),
                Err(d) => diags.push(d),
            }
        } else {
            text_lines.push(&l.text);
        }
    }
    item_markers::check(&markers, file, diags);
    Doc {
        markers: ItemMarkers::sort(markers),
        description: clean_description(&text_lines),
    }
}

/// go/ast `CommentGroup.Text()` followed by controller-gen's `extractDoc`: drop one leading space per line,
/// trailing blanks, leading/trailing empty lines, collapse empty-line runs, drop `TODO` lines, stop at `---`
/// (outside fenced code blocks).
pub fn clean_description(lines: &[&str]) -> String {
    let mut text: Vec<String> = Vec::with_capacity(lines.len());
    for raw in lines {
        for l in raw.split('\n') {
            let l = match l.strip_prefix(' ') {
                Some(rest) => rest,
                None => {
                    if is_directive(l) {
                        continue;
                    }
                    l
                }
            };
            text.push(l.trim_end().to_string());
        }
    }
    // Collapse runs of empty lines and trim empty lines at both ends.
    let mut collapsed: Vec<String> = Vec::with_capacity(text.len());
    for l in text {
        if l.is_empty() && collapsed.last().is_none_or(|p: &String| p.is_empty()) {
            continue;
        }
        collapsed.push(l);
    }
    while collapsed.last().is_some_and(|l| l.is_empty()) {
        collapsed.pop();
    }
    let mut out: Vec<&str> = Vec::with_capacity(collapsed.len());
    let mut in_code = false;
    for l in &collapsed {
        if l.starts_with("```") || l.starts_with("~~~") {
            in_code = !in_code;
        }
        if !in_code {
            if l.starts_with("TODO") {
                continue;
            }
            if l.starts_with("---") {
                break;
            }
        }
        out.push(l);
    }
    out.join("\n")
}

/// `//go:generate`-style directives (no space after the comment marker, `word:word`) are not doc text.
fn is_directive(l: &str) -> bool {
    if l.starts_with("line ") || l.starts_with("extern ") || l.starts_with("export ") {
        return true;
    }
    let Some(colon) = l.find(':') else {
        return false;
    };
    let (head, tail) = (&l[..colon], &l[colon + 1..]);
    !head.is_empty()
        && head
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        && tail.starts_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::clean_description;

    #[test]
    fn cleans_like_controller_gen() {
        let lines = [
            " ",
            " First line.",
            " second line  ",
            "",
            "",
            " Third.",
            " TODO: drop me",
            " ",
        ];
        assert_eq!(
            clean_description(&lines),
            "First line.\nsecond line\n\nThird."
        );
        let lines = [" Keep.", " ---", " hidden"];
        assert_eq!(clean_description(&lines), "Keep.");
        let lines = [" ```", " TODO inside code", " ```"];
        assert_eq!(clean_description(&lines), "```\nTODO inside code\n```");
        let lines = ["  indented", "no space"];
        assert_eq!(clean_description(&lines), " indented\nno space");
    }
}
