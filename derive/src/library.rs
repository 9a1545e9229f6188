//! The shared reading of the project (rkb-manifests), so the derive can never disagree with
//! `rkb manifests` about a kind's group, version, plural, scope or CRD.

use std::path::{Path, PathBuf};

/// What the derive needs to know about one root kind.
pub struct Identity {
    pub group: String,
    pub version: String,
    pub plural: String,
    pub namespaced: bool,
    pub has_status: bool,
    /// Deep copy is generated: neither the kind nor its package turns it off (rkb-manifests reads the markers).
    pub deep_copy: bool,
    /// Exactly what `rkb manifests` writes for the kind's CRD.
    pub crd_yaml: String,
    /// The same document as JSON, parsed at run time into k8s-openapi's type.
    pub crd_json: String,
    /// Every file the library read: tracked so editing any of them recompiles the derive's users.
    pub source_files: Vec<PathBuf>,
}

/// Looks `kind` up in the project at `root`. `file` (the source file of the derive's input, when
/// the compiler tells it) picks between same-named kinds of different groups or versions.
pub fn identity(root: &Path, kind: &str, file: Option<&Path>) -> Result<Identity, String> {
    let all = rkb_manifests::kind_identities(root).map_err(|e| chain(&e))?;
    let mut matches: Vec<_> = all.into_iter().filter(|k| k.kind == kind).collect();
    if matches.len() > 1
        && let Some(module) = file.and_then(|f| rkb_manifests::module_path(root, f))
    {
        let module = module.join("::");
        matches.retain(|k| {
            let type_module = k.rust_path.rsplit_once("::").map_or("", |(m, _)| m);
            module == type_module || module.starts_with(&format!("{type_module}::"))
        });
    }
    let found = match matches.len() {
        0 => {
            return Err(format!(
                "rkb-manifests found no root kind `{kind}` under {}/src/api (is it marked \
                 `+kubebuilder:object:root=true` in a version module with `+groupName`?)",
                root.display()
            ));
        }
        1 => matches.remove(0),
        _ => {
            let where_: Vec<String> = matches
                .iter()
                .map(|k| format!("{}/{} ({})", k.group, k.version, k.rust_path))
                .collect();
            return Err(format!(
                "kind `{kind}` is defined more than once: {}",
                where_.join(", ")
            ));
        }
    };
    let crd_yaml = rkb_manifests::crd_yaml(root, &found.group, kind).map_err(|e| chain(&e))?;
    let crd_json = rkb_manifests::crd_json(root, &found.group, kind).map_err(|e| chain(&e))?;
    let mut source_files = found.source_files.clone();
    source_files.sort();
    source_files.dedup();
    Ok(Identity {
        group: found.group,
        version: found.version,
        plural: found.plural,
        namespaced: found.namespaced,
        has_status: found.has_status,
        deep_copy: found.deep_copy,
        crd_yaml,
        crd_json,
        source_files,
    })
}

/// `e` and each cause of it (`source()`), one after the other: rkb-manifests' messages hold the context only (an
/// I/O error says which file, its cause says why), and the derive's compile error has no "caused by" lines.
fn chain(e: &rkb_manifests::Error) -> String {
    let mut text = e.to_string();
    let mut cause = std::error::Error::source(e);
    while let Some(c) = cause {
        text.push_str(&format!(": {c}"));
        cause = c.source();
    }
    text
}

/// The project whose `src/api` the derive reads: the crate being compiled, or, when that has no
/// `src/api` (trybuild compiles single files from a generated crate elsewhere), the nearest
/// ancestor of the deriving file that holds the file under its `src/api`.
pub fn project_root(manifest_dir: &Path, file: Option<&Path>) -> PathBuf {
    if manifest_dir.join("src/api").is_dir() {
        return manifest_dir.to_path_buf();
    }
    // A relative file name is relative to rustc's working directory, which is ours.
    let file = file.and_then(|f| std::path::absolute(f).ok());
    file.as_deref()
        .and_then(|f| f.ancestors().find(|d| f.starts_with(d.join("src/api"))))
        .map_or_else(|| manifest_dir.to_path_buf(), Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::{chain, project_root};
    use std::path::{Path, PathBuf};

    /// An I/O error's message is the file; the reason is its cause, and the derive's error must show both.
    #[test]
    fn an_error_is_shown_with_its_cause() {
        let e = rkb_manifests::Error::Io {
            path: PathBuf::from("/op/Cargo.toml"),
            source: std::io::Error::new(std::io::ErrorKind::PermissionDenied, "permission denied"),
        };
        assert_eq!(chain(&e), "cannot access /op/Cargo.toml: permission denied");
    }

    #[test]
    fn project_root_is_the_crate_unless_it_has_no_api() {
        let here = Path::new(env!("CARGO_MANIFEST_DIR"));
        let fixture = here.join("tests/fixture-operator");
        let ui = here.join("tests/fixture-ui");
        let case = ui.join("src/api/ui/v1/verb_tags.rs");
        // A crate with src/api is the root, whatever file derives.
        assert_eq!(project_root(&fixture, Some(&case)), fixture);
        // trybuild's crate has none: the tree the file sits in.
        assert_eq!(project_root(here, Some(&case)), ui);
        // Neither: the crate, so the error names it.
        assert_eq!(
            project_root(here, Some(&here.join("tests/ui/opt_outs.rs"))),
            here
        );
        assert_eq!(project_root(here, None), here);
    }
}
