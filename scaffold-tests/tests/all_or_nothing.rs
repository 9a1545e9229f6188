//! All-or-nothing, proven (issue #22 item 5): a property test that breaks a scaffolded project at random and runs
//! one rkb command on it.
//!
//! Contract under test: every run of `rkb manifests`, `rkb manifests --check`, `rkb create api`,
//! `rkb create webhook` and `rkb edit --namespaced` (a create here) either
//! - exits 0 and leaves outputs consistent with the sources: a `manifests` run changed only its outputs, left no
//!   staging file, and `manifests --check` agrees with it at once; a `--check` changed nothing; after a `create`,
//!   the `rkb manifests` a user runs next is all-or-nothing too and, where `rkb manifests` accepted the tree
//!   without a warning before the create, accepts it after, keeps the file, group, scope and names of every CRD it
//!   made before, and gives no version a scope other than the one PROJECT records; and neither `manifests` nor
//!   `--check` succeeds on a tree cargo would refuse (a declared module whose file is missing, a dangling symlink,
//!   a directory or not UTF-8; no Cargo.toml);
//! - or exits 1 (no panic, no signal) and leaves the tree byte-identical: every path, dotfiles such as staging
//!   files included, with its kind (file, directory, symlink and its target), mode and bytes.
//!
//! Either way, no message names a staging file (`.<name>.rkb-tmp` or `.<name>.rkb-old`): errors name the file the
//! user has.
//!
//! The project is scaffolded once (two kinds, one of them in two versions, webhooks, manifests); each case copies
//! it, applies 1 to 4 mutations and runs one command, all drawn from the case's seed. Choices the issue leaves open:
//! - Seeds are 0..RKB_AON_CASES (default [`DEFAULT_CASES`]), the same on every run, so CI is deterministic; raise
//!   RKB_AON_CASES to explore further. RKB_AON_SEED=<n> runs only seed n and prints rkb's output;
//!   RKB_AON_MUTATIONS=<i,j> keeps only those of its mutations (the failure report prints both for a shrunk case).
//! - A hand-rolled generator (SplitMix64) instead of proptest: every failing seed is reported (not only the first),
//!   each with its mutations shrunk to a minimal set, and the failures are grouped into distinct classes.
//! - A syntax error that rustc would report is not held against a successful run: rkb's scanner leaves errors in
//!   function bodies to `cargo build` (docs/architecture.md). Unreadable files and read-only directories are among
//!   the mutations, but they block nothing when the test runs as root.
//! - A staging-named obstacle put there by a mutation may be named in a message, as the cause, on the line that
//!   names the file the user asked for (it is the user's own path then).
//! - A staging file a killed run left behind may be consumed by a successful `rkb manifests` (it writes over it),
//!   never by a failed run: that one leaves the tree as it found it, leftovers included.
//! - CRDs and PROJECT are read with the workspace's YAML reader (serde-saphyr) into `serde_json::Value`.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::Mutex;

use serde_json::Value;

use rkb_scaffold_tests::{CREATE_DEMO_API, CREATE_DEMO_WEBHOOKS, rkb, rkb_ok};

/// Cases run when RKB_AON_CASES is not set: about ten seconds on two cores. 128 rather than 64: with 64, a writer
/// that no longer undoes a failed write, or that names its staging file in errors, was caught by one or two cases
/// only (each was tried on purpose); 128 catches each in three or four.
const DEFAULT_CASES: u64 = 128;
/// The most mutations one case applies.
const MAX_MUTATIONS: usize = 4;
/// How write.rs's own files end: it stages new content in `<dir>/.<name>.rkb-tmp` and keeps the content it
/// replaces or removes in `<dir>/.<name>.rkb-old` until every step succeeded.
const STAGING_SUFFIXES: [&str; 2] = [".rkb-tmp", ".rkb-old"];
/// The kinds of the base project and their plurals.
const KINDS: [(&str, &str); 2] = [
    ("DemoMicroService", "demomicroservices"),
    ("Frigate", "frigates"),
];
/// The marker every scaffolded kind carries; conflicting markers go right above it.
const ROOT_MARKER: &str = "/// +kubebuilder:object:root=true";

// ---------------------------------------------------------------------------------------------------------------
// Trees: every entry with its kind, mode and bytes.

#[derive(Clone, PartialEq, Eq)]
enum Entry {
    Dir {
        mode: u32,
    },
    File {
        mode: u32,
        bytes: Vec<u8>,
    },
    /// A file this process cannot read (mode 000 when not root).
    Unreadable {
        mode: u32,
    },
    Symlink {
        target: PathBuf,
    },
}

impl fmt::Display for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Entry::Dir { mode } => write!(f, "directory {mode:o}"),
            Entry::File { mode, bytes } => write!(f, "file {mode:o}, {} bytes", bytes.len()),
            Entry::Unreadable { mode } => write!(f, "unreadable file {mode:o}"),
            Entry::Symlink { target } => write!(f, "symlink to {}", target.display()),
        }
    }
}

/// Relative path -> entry, for every path below a directory (the directory itself excluded).
type Tree = BTreeMap<PathBuf, Entry>;

/// Everything below `dir`, dotfiles, empty directories and symlinks included (lib.rs `snapshot` keeps regular
/// files only, without modes).
fn full_snapshot(dir: &Path) -> Tree {
    walkdir::WalkDir::new(dir)
        .min_depth(1)
        .sort_by_file_name()
        .into_iter()
        .map(|e| e.expect("walk the project"))
        .map(|e| {
            let meta = e.path().symlink_metadata().expect("stat");
            let mode = meta.permissions().mode() & 0o7777;
            let entry = if meta.file_type().is_symlink() {
                Entry::Symlink {
                    target: std::fs::read_link(e.path()).expect("readlink"),
                }
            } else if meta.is_dir() {
                Entry::Dir { mode }
            } else {
                match std::fs::read(e.path()) {
                    Ok(bytes) => Entry::File { mode, bytes },
                    Err(_) => Entry::Unreadable { mode },
                }
            };
            let rel = e.path().strip_prefix(dir).expect("below dir").to_path_buf();
            (rel, entry)
        })
        .collect()
}

/// Writes `tree` into the empty directory `dir`. Modes of directories are set last, so a read-only one does not
/// stop its own contents from being written.
fn materialize(tree: &Tree, dir: &Path) {
    for (rel, entry) in tree {
        let path = dir.join(rel);
        match entry {
            Entry::Dir { .. } => std::fs::create_dir(&path).expect("mkdir"),
            Entry::File { mode, bytes } => {
                std::fs::write(&path, bytes).expect("write");
                std::fs::set_permissions(&path, std::fs::Permissions::from_mode(*mode))
                    .expect("chmod");
            }
            Entry::Unreadable { mode } => {
                std::fs::write(&path, b"").expect("write");
                std::fs::set_permissions(&path, std::fs::Permissions::from_mode(*mode))
                    .expect("chmod");
            }
            Entry::Symlink { target } => symlink(target, &path).expect("symlink"),
        }
    }
    for (rel, entry) in tree.iter().rev() {
        if let Entry::Dir { mode } = entry {
            std::fs::set_permissions(dir.join(rel), std::fs::Permissions::from_mode(*mode))
                .expect("chmod");
        }
    }
}

/// Makes every directory below `dir` writable again, so the temporary directory can be removed.
fn make_removable(dir: &Path) {
    for e in walkdir::WalkDir::new(dir).into_iter().flatten() {
        if e.file_type().is_dir() {
            let _ = std::fs::set_permissions(e.path(), std::fs::Permissions::from_mode(0o755));
        }
    }
}

/// What differs between two trees, one line per path.
fn describe_diff(before: &Tree, after: &Tree) -> String {
    let paths: BTreeSet<&PathBuf> = before.keys().chain(after.keys()).collect();
    let mut lines = Vec::new();
    for path in paths {
        match (before.get(path), after.get(path)) {
            (None, Some(new)) => lines.push(format!("  + {} ({new})", path.display())),
            (Some(old), None) => lines.push(format!("  - {} (was {old})", path.display())),
            (Some(old), Some(new)) if old != new => {
                lines.push(format!("  ~ {} ({old} -> {new})", path.display()))
            }
            _ => {}
        }
    }
    lines.join("\n")
}

fn is_staging(path: &Path) -> bool {
    path.file_name().is_some_and(|n| {
        STAGING_SUFFIXES
            .iter()
            .any(|s| n.to_string_lossy().ends_with(s))
    })
}

// ---------------------------------------------------------------------------------------------------------------
// Randomness: SplitMix64, so a seed replays the same case on every machine.

struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x05ee_da11_0a0a_0a0a)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (n > 0).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next() as u8).collect()
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Mutations: the ways a user, an editor, a crashed run or a merge breaks a project.

/// How a file's bytes are broken.
#[derive(Clone)]
enum Garbling {
    Overwrite {
        at: usize,
        bytes: Vec<u8>,
    },
    Truncate {
        len: usize,
    },
    /// Bytes that are never UTF-8, inserted at a byte offset.
    InvalidUtf8 {
        at: usize,
    },
}

#[derive(Clone)]
enum Mutation {
    Delete(PathBuf),
    Rename {
        from: PathBuf,
        to: PathBuf,
    },
    Garble {
        path: PathBuf,
        how: Garbling,
    },
    /// Removes the first line equal to `line` (a `mod`/`use` declaration or a `//! +` marker of a module file).
    DropLine {
        path: PathBuf,
        line: String,
    },
    /// Copies a types file to `to` and declares it in the `mod.rs` beside `to`.
    DuplicateKind {
        from: PathBuf,
        to: PathBuf,
    },
    /// Puts a kind-level marker right above the kind's root marker, in one version or in all of them.
    AddMarker {
        paths: Vec<PathBuf>,
        marker: String,
    },
    /// A new Spec field in one types file or in all of them: those CRDs are stale, so `rkb manifests` must write
    /// them.
    AddField(Vec<PathBuf>),
    /// A new RBAC rule: role.yaml is stale, so `rkb manifests` must write it.
    AddRbacRule(PathBuf),
    DanglingSymlink(PathBuf),
    DirToFile(PathBuf),
    FileToDir(PathBuf),
    /// Directories at paths of write.rs's own (`.<name>.rkb-tmp` or `.<name>.rkb-old` beside outputs): where a
    /// write fails after others were staged or put in place, so that they must be undone.
    StagingObstacles(Vec<PathBuf>),
    /// A file at a path of write.rs's own, as a killed run leaves behind.
    StaleStagingFile(PathBuf),
    /// Mode 0555 on a directory, 000 on a file (blocks nothing when the test runs as root).
    ReadOnly(PathBuf),
}

impl fmt::Display for Mutation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Mutation::Delete(p) => write!(f, "delete {}", p.display()),
            Mutation::Rename { from, to } => {
                write!(f, "rename {} to {}", from.display(), to.display())
            }
            Mutation::Garble { path, how } => match how {
                Garbling::Overwrite { at, bytes } => {
                    write!(f, "garble {}: bytes {bytes:02x?} at {at}", path.display())
                }
                Garbling::Truncate { len } => {
                    write!(f, "truncate {} to {len} bytes", path.display())
                }
                Garbling::InvalidUtf8 { at } => {
                    write!(f, "invalid UTF-8 into {} at {at}", path.display())
                }
            },
            Mutation::DropLine { path, line } => {
                write!(f, "drop `{line}` from {}", path.display())
            }
            Mutation::DuplicateKind { from, to } => {
                write!(f, "duplicate {} as {}", from.display(), to.display())
            }
            Mutation::AddMarker { paths, marker } => {
                let paths: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
                write!(f, "add `{marker}` to the kind in {}", paths.join(" and "))
            }
            Mutation::AddField(paths) => {
                let paths: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
                write!(f, "add a Spec field in {}", paths.join(" and "))
            }
            Mutation::AddRbacRule(p) => write!(f, "add an rbac marker in {}", p.display()),
            Mutation::DanglingSymlink(p) => write!(f, "dangling symlink at {}", p.display()),
            Mutation::DirToFile(p) => write!(f, "replace directory {} with a file", p.display()),
            Mutation::FileToDir(p) => write!(f, "replace file {} with a directory", p.display()),
            Mutation::StagingObstacles(paths) => {
                let paths: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
                write!(f, "a directory at {}", paths.join(" and at "))
            }
            Mutation::StaleStagingFile(p) => write!(f, "a stale file at {}", p.display()),
            Mutation::ReadOnly(p) => write!(f, "read-only {}", p.display()),
        }
    }
}

impl Mutation {
    /// The mutation's class, for grouping failures.
    fn class(&self) -> &'static str {
        match self {
            Mutation::Delete(_) => "delete",
            Mutation::Rename { .. } => "rename",
            Mutation::Garble { .. } => "garble",
            Mutation::DropLine { .. } => "drop-line",
            Mutation::DuplicateKind { .. } => "duplicate-kind",
            Mutation::AddMarker { .. } => "conflicting-marker",
            Mutation::AddField(_) => "stale-crd",
            Mutation::AddRbacRule(_) => "stale-role",
            Mutation::DanglingSymlink(_) => "dangling-symlink",
            Mutation::DirToFile(_) => "dir-to-file",
            Mutation::FileToDir(_) => "file-to-dir",
            Mutation::StagingObstacles(_) => "staging-obstacle",
            Mutation::StaleStagingFile(_) => "stale-staging-file",
            Mutation::ReadOnly(_) => "read-only",
        }
    }

    /// Applies the mutation inside project `dir`. A mutation whose target an earlier one removed does nothing.
    fn apply(&self, dir: &Path) {
        let at = |p: &Path| dir.join(p);
        // An error here only means that: the mutation had nothing to act on.
        let _ = match self {
            Mutation::Delete(p) => std::fs::remove_file(at(p)),
            Mutation::Rename { from, to } => std::fs::rename(at(from), at(to)),
            Mutation::Garble { path, how } => garble(&at(path), how),
            Mutation::DropLine { path, line } => edit(&at(path), |text| {
                let start = text.find(&format!("{line}\n"))?;
                Some(format!(
                    "{}{}",
                    &text[..start],
                    &text[start + line.len() + 1..]
                ))
            }),
            Mutation::DuplicateKind { from, to } => duplicate_kind(dir, from, to),
            Mutation::AddMarker { paths, marker } => paths.iter().try_for_each(|path| {
                edit(&at(path), |text| {
                    let root = text.find(ROOT_MARKER)?;
                    Some(format!("{}{marker}\n{}", &text[..root], &text[root..]))
                })
            }),
            Mutation::AddField(paths) => paths.iter().try_for_each(|path| {
                edit(&at(path), |text| {
                    let field = "    pub foo: Option<String>,\n";
                    let added = "    /// replicas is new.\n    pub replicas: i32,\n";
                    text.contains(field)
                        .then(|| text.replacen(field, &format!("{field}{added}"), 1))
                })
            }),
            Mutation::AddRbacRule(p) => edit(&at(p), |text| {
                let rule = "/// +kubebuilder:rbac:";
                let added = "/// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get\n";
                text.contains(rule)
                    .then(|| text.replacen(rule, &format!("{added}{rule}"), 1))
            }),
            Mutation::DanglingSymlink(p) => {
                let _ = std::fs::remove_file(at(p));
                symlink(format!("missing-{}", file_name(p)), at(p))
            }
            Mutation::DirToFile(p) => std::fs::remove_dir_all(at(p))
                .and_then(|()| std::fs::write(at(p), "not a directory\n")),
            Mutation::FileToDir(p) => {
                let _ = std::fs::remove_file(at(p));
                std::fs::create_dir(at(p))
            }
            Mutation::StagingObstacles(paths) => {
                paths.iter().try_for_each(|p| std::fs::create_dir(at(p)))
            }
            Mutation::StaleStagingFile(p) => std::fs::write(at(p), "left behind by a killed run\n"),
            Mutation::ReadOnly(p) => {
                let mode = if at(p).is_dir() { 0o555 } else { 0o000 };
                std::fs::set_permissions(at(p), std::fs::Permissions::from_mode(mode))
            }
        };
    }

    /// The staging-named paths the mutation put there itself, which a message may name.
    fn placed_staging_paths(&self) -> Vec<PathBuf> {
        match self {
            Mutation::StagingObstacles(paths) => paths.clone(),
            Mutation::StaleStagingFile(p) => vec![p.clone()],
            _ => Vec::new(),
        }
    }
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// A path of write.rs's own for `path`: `.<name><suffix>` beside it.
fn staging_path(path: &Path, suffix: &str) -> PathBuf {
    path.with_file_name(format!(".{}{suffix}", file_name(path)))
}

/// The file a path of write.rs's own stands for (the inverse of [`staging_path`]).
fn staged_target(staging: &Path) -> PathBuf {
    let name = file_name(staging);
    let name = STAGING_SUFFIXES
        .iter()
        .find_map(|s| name.strip_suffix(s))
        .unwrap_or(&name);
    staging.with_file_name(name.strip_prefix('.').unwrap_or(name))
}

/// Rewrites a UTF-8 file with `change`; a file that is not there or not UTF-8, or a change that finds nothing to
/// change, is left as it is.
fn edit(path: &Path, change: impl FnOnce(&str) -> Option<String>) -> std::io::Result<()> {
    let text = std::fs::read_to_string(path)?;
    match change(&text) {
        Some(changed) => std::fs::write(path, changed),
        None => Ok(()),
    }
}

fn garble(path: &Path, how: &Garbling) -> std::io::Result<()> {
    let mut bytes = std::fs::read(path)?;
    match how {
        Garbling::Overwrite { at, bytes: new } => {
            let at = (*at).min(bytes.len());
            let end = (at + new.len()).min(bytes.len());
            bytes.splice(at..end, new.iter().copied());
        }
        Garbling::Truncate { len } => bytes.truncate(*len),
        Garbling::InvalidUtf8 { at } => {
            let at = (*at).min(bytes.len());
            bytes.splice(at..at, [0xff, 0xfe]);
        }
    }
    std::fs::write(path, bytes)
}

/// Copies the types file `from` to `to` and declares it (`pub mod` and `pub use`) in the `mod.rs` beside `to`.
fn duplicate_kind(dir: &Path, from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::copy(dir.join(from), dir.join(to))?;
    let stem = to.file_stem().expect("a .rs file").to_string_lossy();
    let declaration = format!("pub mod {stem};\npub use {stem}::*;\n");
    edit(&dir.join(to.with_file_name("mod.rs")), |text| {
        (!text.contains(&format!("pub mod {stem};"))).then(|| {
            text.replacen(
                "// rkb:scaffold:types",
                &format!("{declaration}// rkb:scaffold:types"),
                1,
            )
        })
    })
}

/// What the mutations pick from, read off the base project.
struct Targets {
    /// Regular files, with their text when it is UTF-8 (garbling offsets, lines to drop).
    files: BTreeMap<PathBuf, Vec<u8>>,
}

impl Targets {
    fn of(base: &Tree) -> Targets {
        let files = base
            .iter()
            .filter_map(|(rel, entry)| match entry {
                Entry::File { bytes, .. } => Some((rel.clone(), bytes.clone())),
                _ => None,
            })
            .collect();
        Targets { files }
    }

    fn paths(&self, keep: impl Fn(&str) -> bool) -> Vec<PathBuf> {
        let found: Vec<PathBuf> = self
            .files
            .keys()
            .filter(|p| keep(&p.to_string_lossy()))
            .cloned()
            .collect();
        assert!(!found.is_empty(), "the base project has no file to mutate");
        found
    }

    fn sources(&self) -> Vec<PathBuf> {
        self.paths(|p| p.starts_with("src/") && p.ends_with(".rs"))
    }

    fn module_files(&self) -> Vec<PathBuf> {
        self.paths(|p| {
            p.starts_with("src/")
                && ["lib.rs", "main.rs", "mod.rs"]
                    .iter()
                    .any(|m| p.ends_with(m))
        })
    }

    fn types(&self) -> Vec<PathBuf> {
        self.paths(|p| p.starts_with("src/api/") && p.ends_with("_types.rs"))
    }

    fn controllers(&self) -> Vec<PathBuf> {
        self.paths(|p| p.ends_with("_controller.rs") && p.starts_with("src/"))
    }

    /// Cargo.toml, PROJECT and every YAML file under config/.
    fn configs(&self) -> Vec<PathBuf> {
        self.paths(|p| p == "Cargo.toml" || p == "PROJECT" || p.starts_with("config/"))
    }

    /// The files `rkb manifests` writes.
    fn outputs(&self) -> Vec<PathBuf> {
        self.paths(|p| is_output_file(Path::new(p)))
    }

    /// Lines of module files that declare a module or carry a package marker.
    fn droppable_lines(&self) -> Vec<(PathBuf, String)> {
        let mut lines = Vec::new();
        for path in self.module_files() {
            let text = String::from_utf8_lossy(&self.files[&path]);
            for line in text.lines() {
                let t = line.trim_start();
                if t.starts_with("pub mod ") || t.starts_with("pub use ") || t.starts_with("//! +")
                {
                    lines.push((path.clone(), line.to_string()));
                }
            }
        }
        lines
    }
}

/// The directories whose files `rkb manifests` writes.
const OUTPUT_DIRS: [&str; 3] = ["config/crd/bases", "config/rbac", "config/webhook"];

fn is_output_file(path: &Path) -> bool {
    let crd = path.parent() == Some(Path::new("config/crd/bases"))
        && path.extension().is_some_and(|e| e == "yaml");
    crd || path == Path::new("config/rbac/role.yaml")
        || path == Path::new("config/webhook/manifests.yaml")
}

/// The kind a types file holds, from its name (`frigate_types.rs` -> Frigate).
fn kind_of(types: &Path) -> (&'static str, &'static str) {
    let stem = file_name(types).to_lowercase();
    *KINDS
        .iter()
        .find(|(kind, _)| stem.starts_with(&kind.to_lowercase()))
        .unwrap_or(&KINDS[0])
}

/// Markers that clash with what the kind's other versions, or the other kind, already say.
fn conflicting_marker(rng: &mut Rng, types: &Path) -> String {
    let (kind, _) = kind_of(types);
    let other_plural = KINDS.iter().find(|(k, _)| *k != kind).expect("two kinds").1;
    let markers = [
        "/// +kubebuilder:storageversion".to_string(),
        format!("/// +kubebuilder:resource:path={other_plural}"),
        "/// +kubebuilder:resource:path=ships".to_string(),
        "/// +kubebuilder:resource:scope=Cluster".to_string(),
        "/// +kubebuilder:resource:scope=Namespaced".to_string(),
    ];
    rng.pick(&markers).clone()
}

/// A new name for `path`: a backup suffix, another letter case, or the same name in the other version.
fn renamed(rng: &mut Rng, path: &Path) -> PathBuf {
    let name = file_name(path);
    match rng.below(3) {
        0 => path.with_file_name(format!("{name}.bak")),
        1 => {
            let mut chars = name.chars();
            let first = chars.next().map(|c| c.to_ascii_uppercase()).unwrap_or('X');
            path.with_file_name(format!("{first}{}", chars.as_str()))
        }
        _ => other_version(path).join(name),
    }
}

/// The sibling version directory of a file under src/api/v1 or src/api/v2 (else the file's own directory).
fn other_version(path: &Path) -> PathBuf {
    let dir = path.parent().unwrap_or(Path::new(""));
    match dir.to_str() {
        Some("src/api/v1") => PathBuf::from("src/api/v2"),
        Some("src/api/v2") => PathBuf::from("src/api/v1"),
        _ => dir.to_path_buf(),
    }
}

fn garbling(rng: &mut Rng, len: usize) -> Garbling {
    match rng.below(3) {
        0 => {
            let n = 1 + rng.below(16);
            Garbling::Overwrite {
                at: rng.below(len + 1),
                bytes: rng.bytes(n),
            }
        }
        1 => Garbling::Truncate {
            len: rng.below(len.max(1)),
        },
        _ => Garbling::InvalidUtf8 {
            at: rng.below(len + 1),
        },
    }
}

/// A path of write.rs's own beside a random output.
fn own_path(rng: &mut Rng, t: &Targets) -> PathBuf {
    let output = rng.pick(&t.outputs()).clone();
    let suffix = *rng.pick(&STAGING_SUFFIXES);
    staging_path(&output, suffix)
}

/// An obstacle beside one output, or beside every output (one suffix for all), so that whichever file a run
/// writes, writing it fails: its staging with `.rkb-tmp`, or with `.rkb-old` putting it in place after every file
/// was staged, which all must then be undone.
fn obstacles(rng: &mut Rng, t: &Targets) -> Vec<PathBuf> {
    if rng.below(2) == 0 {
        return vec![own_path(rng, t)];
    }
    let suffix = *rng.pick(&STAGING_SUFFIXES);
    t.outputs()
        .iter()
        .map(|o| staging_path(o, suffix))
        .collect()
}

/// One random mutation. The weights favour what makes `rkb manifests` write (stale outputs) and what makes a
/// write fail, since all-or-nothing is only at stake when both happen in one run.
fn mutation(rng: &mut Rng, t: &Targets) -> Mutation {
    let edited = || [t.sources(), t.configs()].concat();
    match rng.below(21) {
        0 => Mutation::Delete(rng.pick(&edited()).clone()),
        1 => {
            let from = rng.pick(&edited()).clone();
            let to = renamed(rng, &from);
            Mutation::Rename { from, to }
        }
        2 | 3 => {
            let path = rng.pick(&edited()).clone();
            let how = garbling(rng, t.files[&path].len());
            Mutation::Garble { path, how }
        }
        4 => {
            let (path, line) = rng.pick(&t.droppable_lines()).clone();
            Mutation::DropLine { path, line }
        }
        5 => {
            let from = rng.pick(&t.types()).clone();
            let to = if rng.below(2) == 0 {
                other_version(&from).join(file_name(&from))
            } else {
                from.with_file_name(format!("copy_{}", file_name(&from)))
            };
            Mutation::DuplicateKind { from, to }
        }
        6 | 7 => {
            let path = rng.pick(&t.types()).clone();
            let marker = conflicting_marker(rng, &path);
            let paths = if rng.below(2) == 0 {
                vec![path]
            } else {
                let same_kind = |p: &PathBuf| file_name(p) == file_name(&path);
                t.types().into_iter().filter(same_kind).collect()
            };
            Mutation::AddMarker { paths, marker }
        }
        8 | 9 if rng.below(2) == 0 => Mutation::AddField(vec![rng.pick(&t.types()).clone()]),
        8 | 9 => Mutation::AddField(t.types()),
        10 | 11 => Mutation::AddRbacRule(rng.pick(&t.controllers()).clone()),
        12 => Mutation::DanglingSymlink(rng.pick(&t.types()).clone()),
        13 => Mutation::DirToFile(PathBuf::from(rng.pick(&OUTPUT_DIRS))),
        14 => Mutation::FileToDir(rng.pick(&[t.outputs(), t.types()].concat()).clone()),
        15..=18 => Mutation::StagingObstacles(obstacles(rng, t)),
        19 => Mutation::StaleStagingFile(own_path(rng, t)),
        _ => {
            let dirs: Vec<PathBuf> = OUTPUT_DIRS.iter().map(PathBuf::from).collect();
            Mutation::ReadOnly(rng.pick(&[dirs, t.types()].concat()).clone())
        }
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Commands.

#[derive(Clone, Copy, PartialEq)]
enum Verb {
    Manifests,
    Check,
    Create,
    /// The `rkb manifests` run after a successful create: judged for all-or-nothing only (what it generates is
    /// judged as the create's outcome).
    FollowUp,
}

struct Command {
    /// Why this command is in the list (printed with failures).
    label: &'static str,
    verb: Verb,
    /// rkb's arguments, separated by spaces.
    line: &'static str,
}

impl Command {
    fn args(&self) -> Vec<&'static str> {
        self.line.split(' ').collect()
    }
}

const fn create(label: &'static str, line: &'static str) -> Command {
    Command {
        label,
        verb: Verb::Create,
        line,
    }
}

const MANIFESTS: Command = Command {
    label: "manifests",
    verb: Verb::Manifests,
    line: "manifests",
};

const CHECK: Command = Command {
    label: "manifests --check",
    verb: Verb::Check,
    line: "manifests --check",
};

/// The commands a case runs, each listed as often as it should be drawn: most mutations are aimed at
/// `rkb manifests`, so it runs in about a third of the cases.
const COMMANDS: &[Command] = &[
    MANIFESTS,
    MANIFESTS,
    MANIFESTS,
    CHECK,
    CHECK,
    create(
        "create api: a new kind",
        "create api --group devops --version v1 --kind Cruiser",
    ),
    create(
        "create api: a new kind with another kind's plural",
        "create api --group devops --version v1 --kind Cruiser --plural frigates",
    ),
    create(
        "create api: a namespaced version of the cluster-scoped Frigate",
        "create api --group devops --version v3 --kind Frigate --controller=false",
    ),
    create(
        "create api: a version with another plural",
        "create api --group devops --version v3 --kind DemoMicroService --controller=false --plural demos",
    ),
    create(
        "create api: a cluster-scoped version of the namespaced DemoMicroService",
        "create api --group devops --version v3 --kind DemoMicroService --controller=false --namespaced=false",
    ),
    create(
        "create api: a new version",
        "create api --group devops --version v3 --kind DemoMicroService --controller=false",
    ),
    create(
        "create api: an existing kind (refused without --force)",
        "create api --group devops --version v1 --kind Frigate",
    ),
    create(
        "create webhook: a new defaulting webhook",
        "create webhook --group devops --version v1 --kind Frigate --defaulting",
    ),
    create(
        "create webhook: a conversion",
        "create webhook --group devops --version v1 --kind DemoMicroService --conversion --spoke v2",
    ),
    create(
        "create webhook: an existing webhook (refused without --force)",
        "create webhook --group devops --version v1 --kind DemoMicroService --defaulting",
    ),
    create(
        "edit: a namespace-scoped manager (manager.yaml, role_binding.yaml, the controllers' RBAC markers)",
        "edit --namespaced",
    ),
    create(
        "edit: a sharded manager (manager.yaml, leader_election_role.yaml, the controllers' builders)",
        "edit --sharded",
    ),
];

/// What runs after a successful create, as a user would.
const FOLLOW_UP: Command = Command {
    label: "manifests after the create",
    verb: Verb::FollowUp,
    line: "manifests",
};

// ---------------------------------------------------------------------------------------------------------------
// Cases and what they must show.

#[derive(Clone)]
struct Case {
    seed: u64,
    /// The mutations the seed drew that this case keeps (shrinking drops some), each with its index in the draw.
    mutations: Vec<(usize, Mutation)>,
    command: &'static Command,
}

impl Case {
    fn new(seed: u64, targets: &Targets) -> Case {
        let mut rng = Rng::new(seed);
        let count = 1 + rng.below(MAX_MUTATIONS);
        let mutations = (0..count)
            .map(|i| (i, mutation(&mut rng, targets)))
            .collect();
        Case {
            seed,
            mutations,
            command: rng.pick(COMMANDS),
        }
    }

    /// Keeps only the mutations whose draw index is in `kept` (a replay of a shrunk case).
    fn keeping(mut self, kept: &[usize]) -> Case {
        self.mutations.retain(|(i, _)| kept.contains(i));
        self
    }

    /// The draw indices of the kept mutations, as RKB_AON_MUTATIONS takes them.
    fn kept(&self) -> String {
        let kept: Vec<String> = self.mutations.iter().map(|(i, _)| i.to_string()).collect();
        kept.join(",")
    }

    /// The mutation classes and the command: what makes two failures the same failure.
    fn signature(&self) -> String {
        let classes: BTreeSet<&str> = self.mutations.iter().map(|(_, m)| m.class()).collect();
        let classes: Vec<&str> = classes.into_iter().collect();
        let classes = if classes.is_empty() {
            "no mutation".to_string()
        } else {
            classes.join(" + ")
        };
        format!("{classes} | rkb {}", self.command.label)
    }
}

impl fmt::Display for Case {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "seed {}:", self.seed)?;
        for (i, m) in &self.mutations {
            writeln!(f, "    #{i} {m}")?;
        }
        write!(
            f,
            "    then `rkb {}` ({})",
            self.command.line, self.command.label
        )
    }
}

/// A broken promise: its class groups failures, its detail shows this one.
struct Violation {
    class: &'static str,
    detail: String,
}

fn violation(class: &'static str, detail: impl Into<String>) -> Result<(), Violation> {
    Err(Violation {
        class,
        detail: detail.into(),
    })
}

fn output_text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Copies the base project, applies the case's mutations, runs its command and judges the outcome.
fn run_case(base: &Tree, case: &Case, verbose: bool) -> Result<(), Violation> {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("demo");
    std::fs::create_dir(&dir).expect("mkdir");
    materialize(base, &dir);
    for (_, m) in &case.mutations {
        m.apply(&dir);
    }
    if verbose {
        eprintln!("{case}");
    }
    let placed: Vec<PathBuf> = case
        .mutations
        .iter()
        .flat_map(|(_, m)| m.placed_staging_paths())
        .collect();
    let verdict = run_and_judge(&dir, case.command, &placed, verbose);
    make_removable(tmp.path());
    verdict
}

/// Runs `command` in project `dir` and judges the outcome. `placed`: staging-named paths the mutations put there,
/// which a message may name (they are the user's files then).
fn run_and_judge(
    dir: &Path,
    command: &Command,
    placed: &[PathBuf],
    verbose: bool,
) -> Result<(), Violation> {
    let before = full_snapshot(dir);
    let out = rkb(dir, &command.args());
    if verbose {
        let (args, code) = (command.line, out.status.code());
        eprintln!("`rkb {args}` exited {code:?}:\n{}", output_text(&out));
    }
    judge(dir, command, placed, &before, &out)
}

fn judge(
    dir: &Path,
    command: &Command,
    placed: &[PathBuf],
    before: &Tree,
    out: &Output,
) -> Result<(), Violation> {
    let text = output_text(out);
    if !matches!(out.status.code(), Some(0 | 1)) {
        return violation(
            "rkb crashed or exited with neither 0 nor 1",
            format!("exit {:?}:\n{text}", out.status.code()),
        );
    }
    // A path a mutation put there may be named, as the cause, beside the file the user asked for.
    let placed_by_mutation = |line: &str| {
        placed.iter().any(|p| {
            line.contains(&p.display().to_string())
                && line.contains(&staged_target(p).display().to_string())
        })
    };
    let staging_named: Vec<&str> = text
        .lines()
        .filter(|l| STAGING_SUFFIXES.iter().any(|s| l.contains(s)) && !placed_by_mutation(l))
        .collect();
    if !staging_named.is_empty() {
        return violation("a message names a staging file", staging_named.join("\n"));
    }
    let after = full_snapshot(dir);
    if !out.status.success() {
        if after != *before {
            let class = if after
                .keys()
                .any(|p| is_staging(p) && !before.contains_key(p))
            {
                "a failed run left a staging file"
            } else {
                "a failed run changed the tree"
            };
            return violation(
                class,
                format!("{}\nrkb said:\n{text}", describe_diff(before, &after)),
            );
        }
        return Ok(());
    }
    let left: Vec<String> = after
        .keys()
        .filter(|p| is_staging(p) && !before.contains_key(*p))
        .map(|p| p.display().to_string())
        .collect();
    if !left.is_empty() {
        return violation("a successful run left a staging file", left.join("\n"));
    }
    match command.verb {
        Verb::Manifests => judge_manifests(dir, before, &after, &text),
        Verb::FollowUp => Ok(()),
        Verb::Check if after != *before => violation(
            "a passing --check changed the tree",
            describe_diff(before, &after),
        ),
        Verb::Check => match cargo_refuses(dir) {
            Some(why) => violation("--check passed a tree cargo refuses", why),
            None => Ok(()),
        },
        Verb::Create => judge_create(dir, before, placed),
    }
}

/// A successful `rkb manifests`: only outputs changed, the tree is one cargo builds, and `--check` agrees.
fn judge_manifests(dir: &Path, before: &Tree, after: &Tree, said: &str) -> Result<(), Violation> {
    let keys: BTreeSet<&PathBuf> = before.keys().chain(after.keys()).collect();
    let foreign: Vec<String> = keys
        .into_iter()
        .filter(|p| before.get(*p) != after.get(*p))
        .filter(|p| !allowed_output_change(p, before.get(*p), after.get(*p)))
        .map(|p| p.display().to_string())
        .collect();
    if !foreign.is_empty() {
        return violation(
            "a successful manifests run changed files that are not its outputs",
            format!("{}\n{}", foreign.join("\n"), describe_diff(before, after)),
        );
    }
    if let Some(why) = cargo_refuses(dir) {
        return violation(
            "manifests succeeded on a tree cargo refuses",
            format!("{why}\n{}\nrkb said:\n{said}", describe_diff(before, after)),
        );
    }
    let check = rkb(dir, &["manifests", "--check"]);
    if !check.status.success() || full_snapshot(dir) != *after {
        return violation(
            "--check disagrees right after a successful manifests run",
            format!("exit {:?}:\n{}", check.status.code(), output_text(&check)),
        );
    }
    Ok(())
}

/// What a successful `rkb manifests` may change: its output files (written, rewritten or removed), directories
/// it creates for them, and a staging file of its own that a killed run left (it stages over it).
fn allowed_output_change(path: &Path, old: Option<&Entry>, new: Option<&Entry>) -> bool {
    let file_or_none = |e: Option<&Entry>| matches!(e, None | Some(Entry::File { .. }));
    let output = is_output_file(path) && file_or_none(old) && file_or_none(new);
    let new_dir = old.is_none() && matches!(new, Some(Entry::Dir { .. }));
    let own_staging_file =
        is_staging(path) && matches!(old, Some(Entry::File { .. })) && new.is_none();
    output || new_dir || own_staging_file
}

/// `rkb manifests` into fresh directories of the project, so neither the files in the default output directories
/// nor obstacles a mutation put there play a part.
const FRESH_MANIFESTS: [&str; 7] = [
    "manifests",
    "--crd-dir",
    "fresh/crd",
    "--rbac-dir",
    "fresh/rbac",
    "--webhook-dir",
    "fresh/webhook",
];

/// A successful `create`: the `rkb manifests` run after it is all-or-nothing too; where `rkb manifests` accepted
/// the tree before without a warning, it accepts it after; every CRD it made before keeps its file, group, scope
/// and names; and no version gets a scope other than the one PROJECT records.
fn judge_create(dir: &Path, before: &Tree, placed: &[PathBuf]) -> Result<(), Violation> {
    run_and_judge(dir, &FOLLOW_UP, placed, false).map_err(|v| Violation {
        detail: format!("in the `rkb manifests` run after it:\n{}", v.detail),
        ..v
    })?;
    let tmp = tempfile::tempdir().expect("tempdir");
    let earlier = tmp.path().join("demo");
    std::fs::create_dir(&earlier).expect("mkdir");
    materialize(before, &earlier);
    let verdict = compare_manifests(&earlier, dir);
    make_removable(tmp.path());
    verdict
}

fn compare_manifests(earlier: &Path, dir: &Path) -> Result<(), Violation> {
    // A tree rkb refused or warned about before the create (a kind PROJECT lists but the sources lost, say) is
    // one the create cannot be held to.
    let before = rkb(earlier, &FRESH_MANIFESTS);
    if !before.status.success() || String::from_utf8_lossy(&before.stderr).contains("warning:") {
        return Ok(());
    }
    let out = rkb(dir, &FRESH_MANIFESTS);
    if !out.status.success() {
        return violation(
            "a successful create left a tree rkb manifests refuses",
            output_text(&out),
        );
    }
    let (was, is) = (crd_specs(earlier), crd_specs(dir));
    for (file, spec) in &was {
        let (before, after) = (crd_identity(Some(spec)), crd_identity(is.get(file)));
        if before != after {
            return violation(
                "a successful create changed or removed an existing CRD",
                format!("{file}:\n  before: {before}\n  after:  {after}"),
            );
        }
    }
    let known = scope_disagreements(earlier, &was);
    let new: Vec<String> = scope_disagreements(dir, &is)
        .into_iter()
        .filter(|d| !known.contains(d))
        .collect();
    if !new.is_empty() {
        return violation(
            "a successful create made PROJECT and a CRD disagree on the scope",
            new.join("\n"),
        );
    }
    Ok(())
}

/// The `spec` of each CRD [`FRESH_MANIFESTS`] wrote, by file name.
fn crd_specs(dir: &Path) -> BTreeMap<String, Value> {
    let Ok(files) = std::fs::read_dir(dir.join("fresh/crd")) else {
        return BTreeMap::new();
    };
    files
        .map(|f| f.expect("list CRDs").path())
        .map(|path| {
            let yaml = std::fs::read_to_string(&path).expect("read a CRD");
            let doc: Value = serde_saphyr::from_str(&yaml).expect("rkb writes YAML");
            (file_name(&path), doc["spec"].clone())
        })
        .collect()
}

/// A CRD's group, scope and names (what a live cluster cannot change), or "no CRD".
fn crd_identity(spec: Option<&Value>) -> String {
    let Some(spec) = spec else {
        return "no CRD".to_string();
    };
    format!("{} {} {}", spec["group"], spec["scope"], spec["names"])
}

/// Each version whose CRD has another scope than PROJECT records for it (`api.namespaced`, false when absent).
fn scope_disagreements(dir: &Path, crds: &BTreeMap<String, Value>) -> BTreeSet<String> {
    let project: Value = std::fs::read_to_string(dir.join("PROJECT"))
        .ok()
        .and_then(|text| serde_saphyr::from_str(&text).ok())
        .unwrap_or_default();
    let resources = project["resources"].as_array().cloned().unwrap_or_default();
    let mut found = BTreeSet::new();
    for resource in resources.iter().filter(|r| r["api"].is_object()) {
        let (kind, version) = (&resource["kind"], &resource["version"]);
        let recorded = match resource["api"]["namespaced"].as_bool() {
            Some(true) => "Namespaced",
            _ => "Cluster",
        };
        let serves = |spec: &&Value| {
            spec["names"]["kind"] == *kind
                && spec["versions"]
                    .as_array()
                    .is_some_and(|vs| vs.iter().any(|v| v["name"] == *version))
        };
        for spec in crds.values().filter(serves) {
            if spec["scope"].as_str() != Some(recorded) {
                found.insert(format!(
                    "{} {}: PROJECT records {recorded}, the CRD says {}",
                    kind.as_str().unwrap_or("?"),
                    version.as_str().unwrap_or("?"),
                    spec["scope"].as_str().unwrap_or("?")
                ));
            }
        }
    }
    found
}

/// Why cargo would refuse to build the project, as far as the module tree goes: no Cargo.toml, no crate root, or a
/// `mod` whose file is missing, a dangling symlink, a directory, unreadable or not UTF-8.
fn cargo_refuses(dir: &Path) -> Option<String> {
    if let Err(e) = std::fs::read_to_string(dir.join("Cargo.toml")) {
        return Some(format!("Cargo.toml: {e}"));
    }
    let roots: Vec<&Path> = [Path::new("src/lib.rs"), Path::new("src/main.rs")]
        .into_iter()
        .filter(|root| dir.join(root).symlink_metadata().is_ok())
        .collect();
    if roots.is_empty() {
        return Some("neither src/lib.rs nor src/main.rs".to_string());
    }
    roots.into_iter().find_map(|root| module_problem(dir, root))
}

/// The first problem in the module tree below `file` (a path relative to `dir`), as rustc resolves `mod name;`.
fn module_problem(dir: &Path, file: &Path) -> Option<String> {
    let text = match std::fs::read_to_string(dir.join(file)) {
        Ok(text) => text,
        Err(e) => return Some(format!("{}: {e}", file.display())),
    };
    let owns_dir = ["lib.rs", "main.rs", "mod.rs"].contains(&file_name(file).as_str());
    let children = if owns_dir {
        file.parent().expect("under src").to_path_buf()
    } else {
        file.with_extension("")
    };
    for name in declared_modules(&text) {
        let flat = children.join(format!("{name}.rs"));
        let nested = children.join(&name).join("mod.rs");
        let is_file = |p: &Path| std::fs::metadata(dir.join(p)).is_ok_and(|m| m.is_file());
        let problem = match (is_file(&flat), is_file(&nested)) {
            (true, true) => Some(format!("{}: module `{name}` has two files", file.display())),
            (false, false) => Some(format!(
                "{}: file not found for module `{name}`",
                file.display()
            )),
            (true, false) => module_problem(dir, &flat),
            (false, true) => module_problem(dir, &nested),
        };
        if problem.is_some() {
            return problem;
        }
    }
    None
}

/// The names of `mod name;` declarations (not inline `mod name { .. }` blocks), one per line as rkb scaffolds them.
fn declared_modules(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| {
            let t = line.trim();
            let t = ["pub(crate) ", "pub(super) ", "pub "]
                .iter()
                .find_map(|vis| t.strip_prefix(vis))
                .unwrap_or(t);
            let name = t.strip_prefix("mod ")?.strip_suffix(';')?.trim();
            let ident = !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_');
            ident.then(|| name.to_string())
        })
        .collect()
}

/// Drops mutations one at a time as long as the case still breaks the same promise: the smallest case to read
/// (none at all when the command alone breaks it).
fn shrink(base: &Tree, mut case: Case, mut found: Violation) -> (Case, Violation) {
    'smaller: while !case.mutations.is_empty() {
        for i in 0..case.mutations.len() {
            let mut smaller = case.clone();
            smaller.mutations.remove(i);
            if let Err(v) = run_case(base, &smaller, false)
                && v.class == found.class
            {
                (case, found) = (smaller, v);
                continue 'smaller;
            }
        }
        break;
    }
    (case, found)
}

// ---------------------------------------------------------------------------------------------------------------
// The test.

/// The project every case starts from: two kinds, DemoMicroService in v1 (storage) and v2 with webhooks, and the
/// cluster-scoped Frigate; manifests written.
fn base_project() -> Tree {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("demo");
    std::fs::create_dir(&dir).expect("mkdir");
    rkb_ok(
        &dir,
        &["init", "--domain", "my.domain", "--project-name", "demo"],
    );
    rkb_ok(&dir, &CREATE_DEMO_API);
    let mut v2 = CREATE_DEMO_API.to_vec();
    v2[5] = "v2";
    v2.push("--controller=false");
    rkb_ok(&dir, &v2);
    let mut frigate = CREATE_DEMO_API.to_vec();
    frigate[7] = "Frigate";
    frigate.push("--namespaced=false");
    rkb_ok(&dir, &frigate);
    rkb_ok(&dir, &CREATE_DEMO_WEBHOOKS);
    rkb_ok(&dir, &["manifests"]);
    full_snapshot(&dir)
}

fn env_number(name: &str) -> Option<u64> {
    let value = std::env::var(name).ok()?;
    Some(
        value
            .parse()
            .unwrap_or_else(|_| panic!("{name}={value:?} is not a number")),
    )
}

/// Runs `seeds` on every core (at most four), returning the failing cases, each shrunk.
fn run_seeds(base: &Tree, targets: &Targets, seeds: &[u64]) -> Vec<(Case, Violation)> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                while let Some(&seed) =
                    seeds.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
                {
                    let case = Case::new(seed, targets);
                    if let Err(found) = run_case(base, &case, false) {
                        let shrunk = shrink(base, case, found);
                        failures.lock().expect("no worker panicked").push(shrunk);
                    }
                }
            });
        }
    });
    let mut failures = failures.into_inner().expect("no worker panicked");
    failures.sort_by_key(|(case, _)| case.seed);
    failures
}

/// The case RKB_AON_SEED names, cut down to the draw indices RKB_AON_MUTATIONS lists (all when unset).
fn replayed_case(seed: u64, targets: &Targets) -> Case {
    let case = Case::new(seed, targets);
    match std::env::var("RKB_AON_MUTATIONS") {
        Ok(list) => {
            let kept: Vec<usize> = list
                .split(',')
                .map(|i| i.trim().parse().expect("RKB_AON_MUTATIONS lists numbers"))
                .collect();
            case.keeping(&kept)
        }
        Err(_) => case,
    }
}

#[test]
fn every_command_is_all_or_nothing_on_a_broken_project() {
    let base = base_project();
    let targets = Targets::of(&base);
    if let Some(seed) = env_number("RKB_AON_SEED") {
        let case = replayed_case(seed, &targets);
        if let Err(found) = run_case(&base, &case, true) {
            panic!(
                "{}
{}",
                found.class, found.detail
            );
        }
        return;
    }
    let cases = env_number("RKB_AON_CASES").unwrap_or(DEFAULT_CASES);
    let failures = run_seeds(&base, &targets, &(0..cases).collect::<Vec<_>>());
    if !failures.is_empty() {
        panic!("{}", report(cases, &failures));
    }
}

/// Each failing seed with its minimal mutations, then one case per distinct failure (promise broken, mutation
/// classes, command) in full, with the command that replays it.
fn report(cases: u64, failures: &[(Case, Violation)]) -> String {
    let mut distinct: BTreeMap<String, &(Case, Violation)> = BTreeMap::new();
    let mut listing = String::new();
    for failure in failures {
        let (case, found) = failure;
        listing += &format!(
            "- seed {}: {} | {}\n",
            case.seed,
            found.class,
            case.signature()
        );
        distinct
            .entry(format!("{} | {}", found.class, case.signature()))
            .or_insert(failure);
    }
    let (broken, kinds) = (failures.len(), distinct.len());
    let mut report = format!(
        "{broken} of {cases} cases broke all-or-nothing, {kinds} distinct failures; \
         each seed shrunk to its minimal mutations:\n{listing}\n"
    );
    let test = "cargo test -p rkb-scaffold-tests --test all_or_nothing -- --nocapture";
    for (key, (case, found)) in &distinct {
        let (detail, seed, kept) = (found.detail.trim_end(), case.seed, case.kept());
        report += &format!(
            "== {key}\n{case}\n{detail}\nreplay: RKB_AON_SEED={seed} RKB_AON_MUTATIONS={kept} {test}\n\n"
        );
    }
    report
}

/// The snapshot sees what the property is about, and a copy made from it is exact: a staging dotfile, a mode, a
/// symlink and an empty directory each make a difference, and each survives `materialize`.
#[test]
fn snapshots_see_dotfiles_modes_symlinks_and_empty_directories() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("role.yaml"), "rules: []\n").unwrap();
    let base = full_snapshot(tmp.path());
    type Change = fn(&Path) -> std::io::Result<()>;
    let changes: [(&str, Change); 4] = [
        ("a staging file", |d| {
            std::fs::write(d.join(".role.yaml.rkb-tmp"), "rules: []\n")
        }),
        ("a mode", |d| {
            std::fs::set_permissions(d.join("role.yaml"), std::fs::Permissions::from_mode(0o600))
        }),
        ("a symlink", |d| {
            symlink("role.yaml", d.join("role-link.yaml"))
        }),
        ("an empty directory", |d| {
            std::fs::create_dir(d.join("bases"))
        }),
    ];
    for (what, change) in changes {
        let changed = tempfile::tempdir().unwrap();
        materialize(&base, changed.path());
        change(changed.path()).unwrap();
        let seen = full_snapshot(changed.path());
        assert!(seen != base, "the snapshot misses {what}");
        let copy = tempfile::tempdir().unwrap();
        materialize(&seen, copy.path());
        assert!(full_snapshot(copy.path()) == seen, "a copy loses {what}");
    }
}

#[test]
fn staged_target_inverts_staging_path() {
    let role = Path::new("config/rbac/role.yaml");
    for suffix in STAGING_SUFFIXES {
        let staged = staging_path(role, suffix);
        assert!(is_staging(&staged), "{}", staged.display());
        assert_eq!(staged_target(&staged), role);
    }
}
