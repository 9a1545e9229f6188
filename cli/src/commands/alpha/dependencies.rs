//! The user's dependencies, carried from the old Cargo.toml into the regenerated one by `alpha generate`.
//!
//! The carried sources need the crates the user added, and Cargo.toml is otherwise the scaffold's. Entries of
//! `[dependencies]`, `[dev-dependencies]` and `[build-dependencies]` whose crate the fresh section lacks are appended
//! to it as the user wrote them (an entry is its `name = ...` line and the indented or closing lines that continue
//! it); entries the scaffold has keep the scaffold's version, so an upgrade of rkb's own dependencies goes through.
//! Other tables (features, profiles, the user's [[bin]]s) are not merged: the summary lists Cargo.toml when it
//! differs, for the user to compare.

const SECTIONS: [&str; 3] = [
    "[dependencies]",
    "[dev-dependencies]",
    "[build-dependencies]",
];

/// `fresh` with the dependency entries of `old` that it lacks.
pub fn carry(old: &str, fresh: &str) -> String {
    let mut out = fresh.to_string();
    for section in SECTIONS {
        let present: Vec<String> = entries(fresh, section)
            .iter()
            .map(|(name, _)| name.clone())
            .collect();
        let missing: Vec<String> = entries(old, section)
            .into_iter()
            .filter(|(name, _)| !present.contains(name))
            .map(|(_, text)| text)
            .collect();
        if !missing.is_empty() {
            out = append_to_section(&out, section, &missing.concat());
        }
    }
    out
}

/// The entries of `section` in `manifest`: crate name and the entry's lines.
fn entries(manifest: &str, section: &str) -> Vec<(String, String)> {
    let mut entries: Vec<(String, String)> = Vec::new();
    let mut inside = false;
    for line in manifest.split_inclusive('\n') {
        let trimmed = line.trim();
        // A table header (`[x]`, `[[bin]]`) starts a line; an array's continuation `]` is indented or alone.
        if line.starts_with('[') {
            inside = trimmed == section;
            continue;
        }
        if !inside || trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let continues = line.starts_with(char::is_whitespace) || trimmed.starts_with(['}', ']']);
        match (continues, entries.last_mut()) {
            (true, Some((_, text))) => text.push_str(line),
            _ => {
                let name = trimmed
                    .split(['=', '.'])
                    .next()
                    .unwrap_or_default()
                    .trim()
                    .trim_matches('"');
                entries.push((name.to_string(), line.to_string()));
            }
        }
    }
    entries
}

/// `manifest` with `text` after the last entry of `section`, or a new section at the end.
fn append_to_section(manifest: &str, section: &str, text: &str) -> String {
    let lines: Vec<&str> = manifest.split_inclusive('\n').collect();
    let Some(start) = lines.iter().position(|l| l.trim() == section) else {
        let separator = if manifest.ends_with("\n\n") || manifest.is_empty() {
            ""
        } else {
            "\n"
        };
        return format!("{manifest}{separator}{section}\n{text}");
    };
    let end = (start + 1..lines.len())
        .find(|&n| lines[n].starts_with('['))
        .unwrap_or(lines.len());
    // After the section's last non-blank, non-comment line (a comment before the next table belongs to it).
    let last = (start..end)
        .rev()
        .find(|&n| !lines[n].trim().is_empty() && !lines[n].trim_start().starts_with('#'))
        .unwrap_or(start);
    let mut out: String = lines[..=last].concat();
    out.push_str(text);
    out.push_str(&lines[last + 1..].concat());
    out
}

#[cfg(test)]
mod tests {
    use super::carry;

    const FRESH: &str = "[package]\nname = \"demo\"\n\n[dependencies]\nrkb-runtime = \"0.2\"\nanyhow = \"1\"\n\n\
        [dev-dependencies]\n# The real kube-apiserver.\nrkb-runtime = { version = \"0.2\", features = [\"envtest\"] }\n\n\
        [profile.dev]\ndebug = \"line-tables-only\"\n";

    #[test]
    fn the_users_crates_are_added_and_the_scaffolds_versions_kept() {
        let old = "[package]\nname = \"demo\"\n\n[dependencies]\nrkb-runtime = \"0.1\"\nanyhow = \"1\"\n\
            reqwest = { version = \"0.12\", default-features = false, features = [\n    \"json\",\n] }\n\
            chrono.workspace = true\n\n[dev-dependencies]\nrkb-runtime = { version = \"0.1\", features = [\"envtest\"] }\n\
            pretty_assertions = \"1\"\n\n[build-dependencies]\ncc = \"1\"\n";
        assert_eq!(
            carry(old, FRESH),
            "[package]\nname = \"demo\"\n\n[dependencies]\nrkb-runtime = \"0.2\"\nanyhow = \"1\"\n\
             reqwest = { version = \"0.12\", default-features = false, features = [\n    \"json\",\n] }\n\
             chrono.workspace = true\n\n[dev-dependencies]\n# The real kube-apiserver.\n\
             rkb-runtime = { version = \"0.2\", features = [\"envtest\"] }\npretty_assertions = \"1\"\n\n\
             [profile.dev]\ndebug = \"line-tables-only\"\n\n[build-dependencies]\ncc = \"1\"\n"
        );
    }

    #[test]
    fn a_manifest_without_new_crates_is_the_fresh_one() {
        assert_eq!(carry(FRESH, FRESH), FRESH);
    }
}
