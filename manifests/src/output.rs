//! Writing generated files: all-or-nothing (stage every file to a temp file, then rename), or `--check`
//! (write nothing, return a unified diff of the stale files).

use crate::{Error, Written};
use std::path::{Path, PathBuf};

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

/// Writes the files whose content changed, then removes `stale` ((absolute, relative) paths). Every changed file is staged first; only when all staged writes succeeded are they
/// renamed into place and the stale files removed, so a failure leaves the old files untouched.
pub fn write_all(files: &[Planned], stale: &[(PathBuf, PathBuf)]) -> Result<Written, Error> {
    let mut staged: Vec<(PathBuf, &Planned)> = Vec::new();
    if let Err(e) = stage(files, &mut staged) {
        for (tmp, _) in &staged {
            let _ = std::fs::remove_file(tmp);
        }
        return Err(e);
    }
    let mut done = Written::default();
    for (tmp, f) in &staged {
        std::fs::rename(tmp, &f.path).map_err(|source| Error::Io {
            path: f.path.clone(),
            source,
        })?;
        done.written.push(f.path.clone());
    }
    for (path, _) in stale {
        std::fs::remove_file(path).map_err(|source| Error::Io {
            path: path.clone(),
            source,
        })?;
        done.removed.push(path.clone());
    }
    Ok(done)
}

/// Fewest files worth a reading thread of their own.
const MIN_FILES_PER_THREAD: usize = 8;

/// Whether each file already holds its planned content (read on every core: a re-run mostly finds
/// nothing to write, and reading was then its last step). The first error is the one in file order.
fn up_to_date(files: &[Planned]) -> Result<Vec<bool>, Error> {
    crate::parallel::map_indexed(
        files.len(),
        MIN_FILES_PER_THREAD,
        || (),
        |(), i| Ok(read_existing(&files[i].path)?.as_deref() == Some(files[i].content.as_str())),
    )
    .into_iter()
    .collect()
}

fn stage<'a>(files: &'a [Planned], staged: &mut Vec<(PathBuf, &'a Planned)>) -> Result<(), Error> {
    for (f, fresh) in files.iter().zip(up_to_date(files)?) {
        if fresh {
            continue;
        }
        let dir = f.path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir).map_err(|source| Error::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        let name = f
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let tmp = dir.join(format!(".{name}.rkb-tmp"));
        std::fs::write(&tmp, &f.content).map_err(|source| Error::Io {
            path: tmp.clone(),
            source,
        })?;
        staged.push((tmp, f));
    }
    Ok(())
}

/// A unified diff (`--- a/<file>` / `+++ b/<file>`) of every file whose content would change, and of each stale
/// file's removal (`+++ /dev/null`); `None` when everything is up to date.
#[cfg(feature = "check")]
pub fn diff_all(files: &[Planned], stale: &[(PathBuf, PathBuf)]) -> Result<Option<String>, Error> {
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
    for (path, rel) in stale {
        let old = read_existing(path)?.unwrap_or_default();
        out.push_str(&unified(
            &old,
            "",
            &format!("a/{}", rel.display()),
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
