//! The block structure of YAML as kustomize prints it (two-space indents; a list's items at its key's indent), read
//! from lines: what the templates and the values merge need to find a key's block in text they keep as it is.

/// Where a line's content starts; a list item's key (`- name: x`) counts from after the dash.
pub(super) fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// The indent of the key a line holds, `- ` included (`      - args:` holds `args` at 8).
pub(super) fn key_indent(line: &str) -> usize {
    let indent = indent_of(line);
    if line[indent..].starts_with("- ") {
        indent + 2
    } else {
        indent
    }
}

/// Whether a line holds no YAML (blank, or a comment).
pub(super) fn is_blank(line: &str) -> bool {
    let trimmed = line.trim_start();
    trimmed.is_empty() || trimmed.starts_with('#')
}

/// The end (exclusive) of the block of the key on line `start`: the lines below it that are more indented, or list
/// items at its indent, with blank lines and comments inside.
pub(super) fn block_end(lines: &[String], start: usize) -> usize {
    let indent = key_indent(&lines[start]);
    let mut end = start + 1;
    let mut at = start + 1;
    while at < lines.len() {
        let line = &lines[at];
        if !is_blank(line) {
            let own = indent_of(line);
            let item = line[own..].starts_with("- ") || &line[own..] == "-";
            if own < indent || (own == indent && !item) {
                break;
            }
            end = at + 1;
        }
        at += 1;
    }
    end
}

/// The line of `key:` at `indent` between `from` and `to`.
pub(super) fn find_key(
    lines: &[String],
    from: usize,
    to: usize,
    indent: usize,
    key: &str,
) -> Option<usize> {
    (from..to).find(|&i| {
        let line = &lines[i];
        key_indent(line) == indent
            && line[indent..]
                .strip_prefix(key)
                .is_some_and(|rest| rest == ":" || rest.starts_with(": "))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_string).collect()
    }

    #[test]
    fn a_block_holds_its_list_items_at_the_same_indent_and_ends_at_a_sibling() {
        let text = lines("spec:\n  args:\n  - a\n  # note\n  - b\n  image: x\nother: 1\n");
        assert_eq!(block_end(&text, 1), 5);
        assert_eq!(block_end(&text, 0), 6);
        assert_eq!(find_key(&text, 0, 6, 2, "image"), Some(5));
        assert_eq!(key_indent("      - args:"), 8);
    }
}
