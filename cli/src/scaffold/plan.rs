//! A set of file writes applied all together (rkb_manifests::write).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use rkb_manifests::write::{FileWrite, write_atomically};

use super::format::Formatted;

#[derive(Debug, Default)]
pub struct Plan {
    root: PathBuf,
    /// What the user can do when a file to create exists already (it depends on the command).
    exists_hint: &'static str,
    /// Relative path -> new contents, and whether the file exists today.
    files: BTreeMap<PathBuf, (String, bool)>,
    /// Existing files that `create` was allowed to replace (`--force`). Those whose contents then differ (after
    /// formatting) are the user's code rewritten, listed by [`Plan::finish`].
    forced: Vec<PathBuf>,
    /// Existing files to delete (`rkb edit --multigroup` moves files: a create at the new path, a removal here).
    removed: Vec<PathBuf>,
}

impl Plan {
    /// `exists_hint` completes the error for a file that exists already, e.g. "pass --force to overwrite it".
    pub fn new(root: &Path, exists_hint: &'static str) -> Self {
        Self {
            root: root.to_path_buf(),
            exists_hint,
            files: BTreeMap::new(),
            forced: Vec::new(),
            removed: Vec::new(),
        }
    }

    pub fn exists(&self, rel: &Path) -> bool {
        self.root.join(rel).exists()
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Adds a file that must not exist yet (unless `overwrite`).
    pub fn create(
        &mut self,
        rel: impl Into<PathBuf>,
        contents: String,
        overwrite: bool,
    ) -> Result<()> {
        let rel = rel.into();
        let exists = self.root.join(&rel).exists();
        if exists && !overwrite {
            bail!("{} already exists; {}", rel.display(), self.exists_hint);
        }
        if exists && !self.forced.contains(&rel) {
            self.forced.push(rel.clone());
        }
        self.files.insert(rel, (contents, exists));
        Ok(())
    }

    /// The current contents of a file, as this plan would leave it (planned contents win over the disk).
    pub fn read(&self, rel: &Path) -> Result<String> {
        if let Some((contents, _)) = self.files.get(rel) {
            return Ok(contents.clone());
        }
        std::fs::read_to_string(self.root.join(rel))
            .map_err(|err| anyhow::anyhow!("cannot read {}: {err}", rel.display()))
    }

    /// Replaces an existing (or planned) file's contents; a no-op when nothing changes.
    pub fn update(&mut self, rel: impl Into<PathBuf>, contents: String) -> Result<()> {
        let rel = rel.into();
        if self.read(&rel)? == contents {
            return Ok(());
        }
        let exists = self.root.join(&rel).exists();
        self.files.insert(rel, (contents, exists));
        Ok(())
    }

    /// Deletes an existing file with the rest of the plan; its directory goes too when that leaves it empty.
    pub fn remove(&mut self, rel: impl Into<PathBuf>) {
        let rel = rel.into();
        if !self.removed.contains(&rel) {
            self.removed.push(rel);
        }
    }

    pub fn is_removed(&self, rel: &Path) -> bool {
        self.removed.iter().any(|r| r == rel)
    }

    pub fn is_planned(&self, rel: &Path) -> bool {
        self.files.contains_key(rel)
    }

    /// Formats every planned `.rs` file with rustfmt; returns false when rustfmt is not installed.
    fn format_rust(&mut self) -> Result<bool> {
        let rust: Vec<(&Path, &str)> = self
            .files
            .iter()
            .filter(|(rel, _)| rel.extension().is_some_and(|e| e == "rs"))
            .map(|(rel, (contents, _))| (rel.as_path(), contents.as_str()))
            .collect();
        let formatted = match super::format::rustfmt(&self.root, &rust)? {
            Formatted::Done(formatted) => formatted,
            Formatted::NoRustfmt => return Ok(false),
            Formatted::Refused(report) => return Err(self.rustfmt_refused(&report)),
        };
        let rels: Vec<PathBuf> = rust.iter().map(|(rel, _)| rel.to_path_buf()).collect();
        for (rel, text) in rels.into_iter().zip(formatted) {
            if let Some((contents, _)) = self.files.get_mut(&rel) {
                *contents = text;
            }
        }
        Ok(true)
    }

    /// Why rustfmt refused, by whose files it names: the user's files that rkb edits (they do not parse), rkb's
    /// new files (a template bug), or none (the project's rustfmt setup).
    fn rustfmt_refused(&self, report: &str) -> anyhow::Error {
        let named = |existed: bool| -> Vec<String> {
            self.files
                .iter()
                .filter(|(rel, (_, e))| *e == existed && rel.extension().is_some_and(|x| x == "rs"))
                .map(|(rel, _)| rel.display().to_string())
                .filter(|rel| report.contains(&format!("{rel}:")))
                .collect()
        };
        let report = report.trim_end();
        let users = named(true);
        if !users.is_empty() {
            let it = if users.len() == 1 { "it" } else { "them" };
            return anyhow::anyhow!(
                "rkb adds to {}, but rustfmt cannot parse {it}, and rkb formats every Rust file it changes: fix the errors below and run again\n{report}",
                users.join(", ")
            );
        }
        if !named(false).is_empty() {
            return anyhow::anyhow!(
                "internal error: scaffolded Rust does not format (a template bug):\n{report}"
            );
        }
        anyhow::anyhow!(
            "rustfmt fails before formatting the scaffolded Rust files (the project's rustfmt.toml?): fix what it reports and run again\n{report}"
        )
    }

    /// Formats the Rust files, writes everything ([`Plan::commit`]) and says what needs saying: that rustfmt was
    /// missing, and which existing files `--force` replaced. What each command ends with.
    pub fn finish(mut self) -> Result<()> {
        if !self.format_rust()? {
            eprintln!(
                "note: rustfmt is not installed; the scaffolded Rust files are left unformatted"
            );
        }
        let mut overwritten: Vec<PathBuf> = std::mem::take(&mut self.forced)
            .into_iter()
            .filter(|rel| {
                let planned = self.files.get(rel).map(|(contents, _)| contents.as_bytes());
                std::fs::read(self.root.join(rel)).ok().as_deref() != planned
            })
            .collect();
        self.commit()?;
        overwritten.sort();
        for rel in overwritten {
            eprintln!("warning: overwrote {} (--force)", rel.display());
        }
        Ok(())
    }

    /// Writes every file, all or nothing (rkb_manifests::write: staged beside their targets, then renamed; any
    /// failure undoes every step, and its error names the target, relative to the project). Returns each path and
    /// whether it existed before.
    fn commit(self) -> Result<Vec<(PathBuf, bool)>> {
        let writes: Vec<FileWrite> = self
            .files
            .iter()
            .map(|(rel, (contents, _))| FileWrite {
                path: self.root.join(rel),
                content: contents,
                executable: rel.extension().is_some_and(|e| e == "sh"),
            })
            .collect();
        let removed: Vec<PathBuf> = self.removed.iter().map(|rel| self.root.join(rel)).collect();
        write_atomically(&writes, &removed).map_err(|e| {
            let path = e.path.strip_prefix(&self.root).unwrap_or(&e.path);
            anyhow::anyhow!("cannot write {}: {}", path.display(), e.source)
        })?;
        // Directories a move emptied (src/api/v1 after `rkb edit --multigroup`); one still holding a file stays.
        for path in &removed {
            let mut dir = path.parent();
            while let Some(d) = dir.filter(|d| *d != self.root) {
                if std::fs::remove_dir(d).is_err() {
                    break;
                }
                dir = d.parent();
            }
        }
        Ok(self
            .files
            .into_iter()
            .map(|(rel, (_, existed))| (rel, existed))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_to_overwrite_without_force() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a"), "old").unwrap();
        let mut plan = Plan::new(dir.path(), "pass --force to overwrite it");
        let err = plan
            .create("a", "new".into(), false)
            .unwrap_err()
            .to_string();
        assert!(err.contains("--force"), "{err}");
        plan.create("a", "new".into(), true).unwrap();
        plan.commit().unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("a")).unwrap(),
            "new"
        );
    }

    #[test]
    fn commit_writes_nested_files_and_reports_what_existed() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("b"), "old").unwrap();
        let mut plan = Plan::new(dir.path(), "pass --force to overwrite it");
        plan.create("x/y/z.txt", "z".into(), false).unwrap();
        plan.update("b", "new".into()).unwrap();
        let written = plan.commit().unwrap();
        assert_eq!(
            written,
            vec![
                (PathBuf::from("b"), true),
                (PathBuf::from("x/y/z.txt"), false)
            ]
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("x/y/z.txt")).unwrap(),
            "z"
        );
        let leftovers: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .filter_map(|e| {
                let name = e.unwrap().file_name().into_string().unwrap();
                name.starts_with(".rkb-").then_some(name)
            })
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
    }
}
