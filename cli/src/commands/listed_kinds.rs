//! Kinds PROJECT lists that `rkb manifests` generated no CRD for.
//!
//! PROJECT records every API rkb scaffolded. When one of them yields no CRD (its type file removed, the type
//! renamed, the group's `+groupName` dropped), the run still succeeds and the CRD file is deleted: that is right
//! when the kind is really gone, and a silent loss when the kind was lost by accident. So each such entry gets a
//! warning at its line of PROJECT, naming the source file it points at; the run's outcome does not change.

use std::path::{Path, PathBuf};

use rkb_manifests::{Diagnostic, Output};

use crate::project_config::{self, ProjectConfig, ResourceConfig};

/// One warning per PROJECT entry with an API whose kind has no CRD in `output`, or whose CRD lacks its version.
pub fn warnings(root: &Path, config: &ProjectConfig, output: &Output) -> Vec<Diagnostic> {
    let mut warnings = Vec::new();
    for (index, resource) in config.resources.iter().enumerate() {
        if resource.api.is_none() {
            continue;
        }
        let group = resource.full_group();
        let crd = output
            .crds
            .iter()
            .find(|c| c.group == group && c.kind == resource.kind);
        let (kind, version) = (&resource.kind, &resource.version);
        let message = match crd {
            None => format!(
                "kind {kind} ({group}/{version}) is listed in PROJECT, but no CRD was generated for it"
            ),
            Some(crd) if !super::manifests::crd_versions(&crd.yaml).contains(version) => format!(
                "kind {kind} ({group}) is listed in PROJECT with version {version}, but its CRD has no version {version}"
            ),
            Some(_) => continue,
        };
        let warning = at_entry(root, index, kind, Diagnostic::warning(message));
        warnings.push(warning.with_hint(hint(root, &config.repo, resource)));
    }
    warnings
}

/// Places the warning at the entry's `kind:` line of PROJECT (or names the file, when the line is not found).
fn at_entry(root: &Path, index: usize, kind: &str, warning: Diagnostic) -> Diagnostic {
    let file = PathBuf::from(project_config::FILE_NAME);
    let text = std::fs::read_to_string(root.join(&file)).unwrap_or_default();
    let Some(line) = ProjectConfig::resource_key_line(&text, index, "kind") else {
        return warning.at(file, 0, 0, 0);
    };
    let source = text.lines().nth(line - 1).unwrap_or_default();
    let col = source.rfind(kind).map_or(1, |at| at + 1);
    warning
        .at(file, line, col, kind.len())
        .with_source_line(source)
}

/// Where PROJECT's `path` says the kind's type lives, and the two ways out.
fn hint(root: &Path, repo: &str, resource: &ResourceConfig) -> String {
    let fix =
        "restore the type, or remove the entry from PROJECT if the kind (or this version) is gone";
    let Some(path) = &resource.path else {
        return format!("PROJECT records no path for it: {fix}");
    };
    let Some(module) = path.strip_prefix(&format!("{repo}::")) else {
        return format!("PROJECT's path `{path}` is outside this crate ({repo}): {fix}");
    };
    // rkb scaffolds a kind's types as `<kind>_types.rs` in the version's module directory.
    let file = Path::new("src")
        .join(module.replace("::", "/"))
        .join(format!("{}_types.rs", resource.kind.to_lowercase()));
    let state = if root.join(&file).is_file() {
        format!(
            "which yields no kind {} (its struct is gone, not reached by `mod`, or no longer a kind)",
            resource.kind
        )
    } else {
        "which does not exist".to_string()
    };
    format!(
        "PROJECT's path `{path}` points at {}, {state}: {fix}",
        file.display()
    )
}
