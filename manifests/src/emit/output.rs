//! Writing generated files: all-or-nothing (write.rs), skipping files already up to date, or `--check`
//! (write nothing, return a unified diff of the stale files).

use crate::Error;
use crate::emit::write::{FileWrite, write_atomically};
use std::path::{Path, PathBuf};

/// What [`crate::write()`] changed on disk.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Written {
    /// Files written (their content changed).
    pub written: Vec<PathBuf>,
    /// Stale CRDs removed (see [`crate::stale_crds`]).
    pub removed: Vec<PathBuf>,
}

/// A file to write: absolute path and full content.
pub struct Planned {
    pub path: PathBuf,
    /// The path shown in `--check` diffs.
    #[cfg_attr(not(feature = "check"), allow(dead_code))]
    pub rel: PathBuf,
    pub content: String,
}

fn read_existing(path: &Path) -> Result<Option<String>, Error> {
    match std::fs::read_to_string(path) {
        Ok(s) => Ok(Some(s)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(Error::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// A generated CRD that no kind generates any more.
pub struct Stale {
    pub path: PathBuf,
    #[cfg_attr(not(feature = "check"), allow(dead_code))]
    pub rel: PathBuf,
    /// Why (see [`crate::Output::why_not_generated`]).
    #[cfg_attr(not(feature = "check"), allow(dead_code))]
    pub reason: String,
}

/// Writes the files whose content changed, then removes the `stale` CRDs, all or nothing
/// ([`crate::emit::write::write_atomically`]): a failure while staging leaves the old files untouched.
pub fn write_all(files: &[Planned], stale: &[Stale]) -> Result<Written, Error> {
    let changed: Vec<&Planned> = files
        .iter()
        .zip(up_to_date(files)?)
        .filter(|(_, fresh)| !fresh)
        .map(|(f, _)| f)
        .collect();
    let writes: Vec<FileWrite> = changed
        .iter()
        .map(|f| FileWrite {
            path: f.path.clone(),
            content: &f.content,
            executable: false,
        })
        .collect();
    let removed: Vec<PathBuf> = stale.iter().map(|s| s.path.clone()).collect();
    write_atomically(&writes, &removed).map_err(|e| Error::Io {
        path: e.path,
        source: e.source,
    })?;
    Ok(Written {
        written: changed.iter().map(|f| f.path.clone()).collect(),
        removed,
    })
}

/// Whether each file already holds its planned content (read on every core: a re-run mostly finds
/// nothing to write, and reading was then its last step). The first error is the one in file order.
fn up_to_date(files: &[Planned]) -> Result<Vec<bool>, Error> {
    crate::parallel::map_indexed(
        files.len(),
        crate::parallel::MIN_FILES_TO_READ,
        || (),
        |(), i| Ok(read_existing(&files[i].path)?.as_deref() == Some(files[i].content.as_str())),
    )
    .into_iter()
    .collect()
}

/// A unified diff (`--- a/<file>` / `+++ b/<file>`) of every file whose content would change, and of each stale
/// file's removal (`+++ /dev/null`, after a `# <file> is deleted: <reason>` line); `None` when everything is up to
/// date.
#[cfg(feature = "check")]
pub fn diff_all(files: &[Planned], stale: &[Stale]) -> Result<Option<String>, Error> {
    let mut out = String::new();
    for f in files {
        let old = read_existing(&f.path)?.unwrap_or_default();
        if old == f.content {
            continue;
        }
        let rel = f.rel.display().to_string();
        out.push_str(&unified(
            &old,
            &f.content,
            &format!("a/{rel}"),
            &format!("b/{rel}"),
        ));
    }
    for s in stale {
        let old = read_existing(&s.path)?.unwrap_or_default();
        // Text before a file's `---` line is not part of the diff to patch and git apply.
        out.push_str(&format!("# {} is deleted: {}\n", s.rel.display(), s.reason));
        out.push_str(&unified(
            &old,
            "",
            &format!("a/{}", s.rel.display()),
            "/dev/null",
        ));
    }
    Ok(if out.is_empty() { None } else { Some(out) })
}

#[cfg(feature = "check")]
fn unified(old: &str, new: &str, from: &str, to: &str) -> String {
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(from, to)
        .to_string()
}
