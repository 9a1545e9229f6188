//! All-or-nothing file writes, shared by `rkb manifests` and the scaffolding commands.
//!
//! Contract: every file is first written to a temporary sibling (`.<name>.rkb-tmp`, in the directory it goes
//! to, so the final rename stays on one file system). Only when all of them are written are they put in place:
//! each file it replaces, and each file to remove, is first kept as `.<name>.rkb-old` beside it. When any step
//! fails, everything is undone (the kept files put back, the new ones and every directory this call created
//! removed), so the tree is as it was; the error names the file the user asked for, never a staging file. Only
//! when every step succeeded are the kept files deleted. Two writes to one path are refused before anything
//! is written. What cannot be undone is a crash of the process itself: it may leave `.rkb-tmp`/`.rkb-old`
//! files. Later runs leave those alone (they stage under the next free name, `.<name>.rkb-tmp.1`, ...), so a
//! leftover is the user's to inspect and delete, never silently lost.

use std::path::{Path, PathBuf};

/// One file to write.
pub struct FileWrite<'a> {
    pub path: PathBuf,
    pub content: &'a str,
    /// Mode 0755 on Unix (scripts).
    pub executable: bool,
}

/// A write that failed, with the path it was about.
#[derive(Debug)]
pub struct WriteError {
    pub path: PathBuf,
    pub source: std::io::Error,
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The io error is the cause (`source()`): a chain reporter prints it once, after this.
        write!(f, "cannot write {}", self.path.display())
    }
}

impl std::error::Error for WriteError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

fn at(path: &Path) -> impl FnOnce(std::io::Error) -> WriteError + '_ {
    move |source| WriteError {
        path: path.to_path_buf(),
        source,
    }
}

/// A path beside `path` that nothing occupies: `.<name><suffix>`, else `.<name><suffix>.1`, `.2`, ... so that a file
/// a killed run left at the first name is never written over, nor removed when this call undoes its steps.
fn free_sibling(path: &Path, suffix: &str) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let first = path.with_file_name(format!(".{name}{suffix}"));
    std::iter::once(first)
        .chain((1..).map(|n| path.with_file_name(format!(".{name}{suffix}.{n}"))))
        .find(|p| p.symlink_metadata().is_err())
        .expect("some numbered name is free")
}

/// What a call has done so far, to undo it.
#[derive(Default)]
struct Journal {
    created_dirs: Vec<PathBuf>,
    staged: Vec<PathBuf>,
    /// (the file, where its old content is kept) for each file replaced or removed so far.
    kept: Vec<(PathBuf, PathBuf)>,
    /// Files put in place that did not exist before.
    placed_new: Vec<PathBuf>,
}

impl Journal {
    /// Puts the tree back as it was before the call, as far as the file system lets it.
    fn undo(self) {
        for path in self.placed_new.iter().rev() {
            let _ = std::fs::remove_file(path);
        }
        for (path, old) in self.kept.iter().rev() {
            let _ = std::fs::rename(old, path);
        }
        for tmp in &self.staged {
            let _ = std::fs::remove_file(tmp);
        }
        for dir in self.created_dirs.iter().rev() {
            let _ = std::fs::remove_dir(dir);
        }
    }
}

/// Writes `files` and removes `remove`, all or nothing (see the module docs).
pub fn write_atomically(files: &[FileWrite], remove: &[PathBuf]) -> Result<(), WriteError> {
    refuse_duplicates(files, remove)?;
    let mut journal = Journal::default();
    match stage_and_place(files, remove, &mut journal) {
        Ok(()) => {
            for (_, old) in &journal.kept {
                let _ = std::fs::remove_file(old);
            }
            Ok(())
        }
        Err(e) => {
            journal.undo();
            Err(e)
        }
    }
}

/// Two writes to one path (or a write and a removal of it) would leave only one of them: refused up front.
fn refuse_duplicates(files: &[FileWrite], remove: &[PathBuf]) -> Result<(), WriteError> {
    let mut seen = std::collections::HashSet::new();
    for path in files.iter().map(|f| &f.path).chain(remove) {
        if !seen.insert(path) {
            return Err(WriteError {
                path: path.clone(),
                source: std::io::Error::new(
                    std::io::ErrorKind::AlreadyExists,
                    "two outputs of this run go to this file",
                ),
            });
        }
    }
    Ok(())
}

fn stage_and_place(
    files: &[FileWrite],
    remove: &[PathBuf],
    journal: &mut Journal,
) -> Result<(), WriteError> {
    for f in files {
        stage(f, journal)?;
    }
    for (tmp, f) in journal.staged.clone().iter().zip(files) {
        let existed = keep_old(&f.path, journal, false)?;
        std::fs::rename(tmp, &f.path).map_err(at(&f.path))?;
        journal.staged.retain(|s| s != tmp);
        if !existed {
            journal.placed_new.push(f.path.clone());
        }
    }
    for path in remove {
        keep_old(path, journal, true)?;
    }
    Ok(())
}

/// Keeps the current content of `path`, if any, as `.<name>.rkb-old`: a hard link (the file stays in place until
/// the new one replaces it), or the file itself moved there when `moving` (a removal). Whether it existed.
fn keep_old(path: &Path, journal: &mut Journal, moving: bool) -> Result<bool, WriteError> {
    match path.symlink_metadata() {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(at(path)(e)),
        Ok(md) if md.is_dir() => {
            return Err(at(path)(std::io::Error::new(
                std::io::ErrorKind::IsADirectory,
                "a directory is in the way of this file",
            )));
        }
        Ok(_) => {}
    }
    let old = free_sibling(path, ".rkb-old");
    let kept = if moving {
        std::fs::rename(path, &old)
    } else {
        std::fs::hard_link(path, &old).or_else(|_| std::fs::copy(path, &old).map(|_| ()))
    };
    kept.map_err(at(path))?;
    journal.kept.push((path.to_path_buf(), old));
    Ok(true)
}

fn stage(f: &FileWrite, journal: &mut Journal) -> Result<(), WriteError> {
    let dir = f.path.parent().unwrap_or(Path::new("."));
    create_dir_all_tracked(dir, &mut journal.created_dirs)?;
    let tmp = free_sibling(&f.path, ".rkb-tmp");
    // Created here, never opened over an existing file: whatever is at the name is not ours to truncate.
    let mut staged = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .map_err(at(&f.path))?;
    journal.staged.push(tmp.clone());
    std::io::Write::write_all(&mut staged, f.content.as_bytes()).map_err(at(&f.path))?;
    if f.executable {
        set_executable(&tmp).map_err(at(&f.path))?;
    }
    Ok(())
}

/// `create_dir_all` that remembers which directories it created (outermost first).
fn create_dir_all_tracked(dir: &Path, created: &mut Vec<PathBuf>) -> Result<(), WriteError> {
    if dir.as_os_str().is_empty() || dir.is_dir() {
        return Ok(());
    }
    if let Some(parent) = dir.parent() {
        create_dir_all_tracked(parent, created)?;
    }
    std::fs::create_dir(dir).map_err(|e| {
        let e = if e.kind() == std::io::ErrorKind::AlreadyExists {
            std::io::Error::new(
                std::io::ErrorKind::NotADirectory,
                "not a directory: a file is in the way",
            )
        } else {
            e
        };
        at(dir)(e)
    })?;
    created.push(dir.to_path_buf());
    Ok(())
}

#[cfg(unix)]
fn set_executable(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
}

#[cfg(not(unix))]
fn set_executable(_: &Path) -> std::io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write<'a>(path: PathBuf, content: &'a str) -> FileWrite<'a> {
        FileWrite {
            path,
            content,
            executable: false,
        }
    }

    /// The message names the file; the io error is only the cause, so a chain reporter prints it once.
    #[test]
    fn the_message_is_the_context_and_the_io_error_its_source() {
        let e = WriteError {
            path: PathBuf::from("config/crd/bases/a.yaml"),
            source: std::io::Error::new(std::io::ErrorKind::PermissionDenied, "permission denied"),
        };
        assert_eq!(e.to_string(), "cannot write config/crd/bases/a.yaml");
        let cause = std::error::Error::source(&e).map(ToString::to_string);
        assert_eq!(cause.as_deref(), Some("permission denied"));
    }

    #[test]
    fn a_failed_stage_leaves_no_file_and_no_new_directory() {
        let dir = tempfile::tempdir().unwrap();
        let kept = dir.path().join("kept.yaml");
        std::fs::write(&kept, "old").unwrap();
        // The second file's parent is a file, so staging it fails after the first was staged.
        let blocker = dir.path().join("blocker");
        std::fs::write(&blocker, "").unwrap();
        let files = [
            write(dir.path().join("new/sub/a.yaml"), "a"),
            write(kept.clone(), "new"),
            write(blocker.join("b.yaml"), "b"),
        ];
        assert!(write_atomically(&files, &[]).is_err());
        assert_eq!(std::fs::read_to_string(&kept).unwrap(), "old");
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["blocker", "kept.yaml"]);
    }

    /// Every file under `dir` (dotfiles included) with its content, for before/after comparisons.
    fn tree(dir: &Path) -> Vec<(PathBuf, Option<String>)> {
        let mut v: Vec<_> = walkdir::WalkDir::new(dir)
            .into_iter()
            .map(|e| {
                let e = e.unwrap();
                let content = e
                    .file_type()
                    .is_file()
                    .then(|| std::fs::read_to_string(e.path()).unwrap());
                (e.into_path(), content)
            })
            .collect();
        v.sort();
        v
    }

    /// A rename that fails after others succeeded (a directory where the last file goes) puts back every file
    /// already replaced and removes every new one: the tree is as before, staging files included.
    #[test]
    fn a_failed_rename_undoes_the_renames_before_it() {
        let dir = tempfile::tempdir().unwrap();
        let replaced = dir.path().join("crd/a.yaml");
        let removed = dir.path().join("crd/stale.yaml");
        std::fs::create_dir_all(dir.path().join("crd/blocked.yaml")).unwrap();
        std::fs::write(&replaced, "old").unwrap();
        std::fs::write(&removed, "stale").unwrap();
        let before = tree(dir.path());
        let files = [
            write(replaced.clone(), "new"),
            write(dir.path().join("crd/new.yaml"), "n"),
            write(dir.path().join("rbac/role.yaml"), "r"),
            write(dir.path().join("crd/blocked.yaml"), "b"),
        ];
        let e = write_atomically(&files, std::slice::from_ref(&removed)).unwrap_err();
        assert_eq!(e.path, dir.path().join("crd/blocked.yaml"));
        assert_eq!(tree(dir.path()), before);
    }

    /// A staging file that cannot be created is reported as the file the caller asked for. (A name of 250
    /// characters is allowed; its staging name, 13 longer, passes the file system's limit of 255.)
    #[test]
    fn errors_name_the_file_not_its_staging_file() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join(format!("{}.yaml", "r".repeat(245)));
        let before = tree(dir.path());
        let e = write_atomically(&[write(target.clone(), "x")], &[]).unwrap_err();
        assert_eq!(e.path, target);
        assert_eq!(tree(dir.path()), before);
    }

    #[test]
    fn two_writes_to_one_path_are_refused_before_anything_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/x.yaml");
        let e = write_atomically(&[write(path.clone(), "a"), write(path.clone(), "b")], &[])
            .unwrap_err();
        assert_eq!(e.path, path);
        assert_eq!(
            e.source.to_string(),
            "two outputs of this run go to this file"
        );
        assert!(!dir.path().join("sub").exists());
    }

    /// Files at the staging names (left by a killed run, or the user's) are neither written over nor removed, by a
    /// run that fails or one that succeeds.
    #[test]
    fn files_at_staging_names_are_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("a.yaml");
        std::fs::write(&target, "old").unwrap();
        std::fs::write(dir.path().join(".a.yaml.rkb-tmp"), "leftover tmp").unwrap();
        std::fs::write(dir.path().join(".a.yaml.rkb-old"), "leftover old").unwrap();
        std::fs::create_dir(dir.path().join("blocked.yaml")).unwrap();
        let before = tree(dir.path());
        let failing = [
            write(target.clone(), "new"),
            write(dir.path().join("blocked.yaml"), "b"),
        ];
        assert!(write_atomically(&failing, &[]).is_err());
        assert_eq!(tree(dir.path()), before);
        write_atomically(&[write(target.clone(), "new")], &[]).unwrap();
        let leftover = |n: &str| std::fs::read_to_string(dir.path().join(n)).unwrap();
        assert_eq!(leftover(".a.yaml.rkb-tmp"), "leftover tmp");
        assert_eq!(leftover(".a.yaml.rkb-old"), "leftover old");
        assert_eq!(leftover("a.yaml"), "new");
        assert!(!dir.path().join(".a.yaml.rkb-tmp.1").exists());
        assert!(!dir.path().join(".a.yaml.rkb-old.1").exists());
    }

    #[test]
    fn writes_then_removes() {
        let dir = tempfile::tempdir().unwrap();
        let gone = dir.path().join("gone.yaml");
        std::fs::write(&gone, "x").unwrap();
        let script = dir.path().join("hack/run.sh");
        let files = [FileWrite {
            path: script.clone(),
            content: "#!/bin/sh\n",
            executable: true,
        }];
        write_atomically(&files, std::slice::from_ref(&gone)).unwrap();
        assert_eq!(std::fs::read_to_string(&script).unwrap(), "#!/bin/sh\n");
        assert!(!gone.exists());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&script).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o755);
        }
    }
}
