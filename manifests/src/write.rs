//! All-or-nothing file writes, shared by `rkb manifests` and the scaffolding commands.
//!
//! Contract: every file is first written to a temporary sibling (`.<name>.rkb-tmp`, in the directory it goes
//! to, so the final rename stays on one file system). Only when all of them are written are they renamed into
//! place, then the files to remove are removed. When staging fails, the temporaries and every directory this
//! call created are removed, and nothing the user had is touched. A failure after staging (a rename or a
//! removal refused) is reported with its path; files renamed before it stay written.

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
        write!(f, "{}: {}", self.path.display(), self.source)
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

/// Writes `files` and removes `remove`, all or nothing (see the module docs).
pub fn write_atomically(files: &[FileWrite], remove: &[PathBuf]) -> Result<(), WriteError> {
    let mut created_dirs = Vec::new();
    let mut staged: Vec<PathBuf> = Vec::new();
    let staging = files
        .iter()
        .try_for_each(|f| stage(f, &mut created_dirs, &mut staged));
    if let Err(e) = staging {
        for tmp in &staged {
            let _ = std::fs::remove_file(tmp);
        }
        for dir in created_dirs.iter().rev() {
            let _ = std::fs::remove_dir(dir);
        }
        return Err(e);
    }
    for (tmp, f) in staged.iter().zip(files) {
        std::fs::rename(tmp, &f.path).map_err(at(&f.path))?;
    }
    for path in remove {
        std::fs::remove_file(path).map_err(at(path))?;
    }
    Ok(())
}

fn stage(
    f: &FileWrite,
    created_dirs: &mut Vec<PathBuf>,
    staged: &mut Vec<PathBuf>,
) -> Result<(), WriteError> {
    let dir = f.path.parent().unwrap_or(Path::new("."));
    create_dir_all_tracked(dir, created_dirs)?;
    let name = f
        .path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.rkb-tmp"));
    std::fs::write(&tmp, f.content).map_err(at(&tmp))?;
    staged.push(tmp.clone());
    if f.executable {
        set_executable(&tmp).map_err(at(&tmp))?;
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
    std::fs::create_dir(dir).map_err(at(dir))?;
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
