//! What the tests' small projects share: writing them, the module declarations cargo needs, and the rendered
//! diagnostics of a run that must fail. (Each test crate uses some of these.)
#![allow(dead_code)]

use rkb_manifests::{Error, Options, generate};
use std::fs;
use std::path::Path;

/// A project of exactly `files` (path relative to the project, text) with a minimal Cargo.toml; no module
/// declarations are added.
pub fn write_project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("Cargo.toml"),
        "[package]\nname = \"t\"\nversion = \"0.1.0\"\n",
    )
    .unwrap();
    for (rel, text) in files {
        let p = dir.path().join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }
    dir
}

/// The rendered diagnostics of a run that must fail on the sources at `root`.
pub fn diagnostics(root: &Path) -> String {
    match generate(root, &Options::default()) {
        Err(e @ Error::Diagnostics(_)) => e.to_string(),
        Err(other) => panic!("expected diagnostics, got {other:?}"),
        Ok(out) => panic!(
            "expected diagnostics, the run succeeded: {:?}",
            out.warnings
        ),
    }
}

/// Makes every `.rs` file under `root/src` part of the crate, as a user's project is: each directory's module file
/// (`src/lib.rs`, else `mod.rs`) gets a `pub mod <child>;` for each child file or directory it does not declare
/// yet, created when missing. Tests about the module tree itself write their files without this.
pub fn declare_modules(root: &Path) {
    declare_in(&root.join("src"), true);
}

fn declare_in(dir: &Path, crate_root: bool) {
    let mut children: Vec<(String, bool)> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?.to_string();
            if p.is_dir() {
                Some((name, true))
            } else {
                let stem = name.strip_suffix(".rs")?;
                (!matches!(stem, "mod" | "lib" | "main")).then(|| (stem.to_string(), false))
            }
        })
        .collect();
    children.sort();
    let module_file = if crate_root && !dir.join("lib.rs").exists() && dir.join("main.rs").exists()
    {
        dir.join("main.rs")
    } else if crate_root {
        dir.join("lib.rs")
    } else {
        dir.join("mod.rs")
    };
    let mut text = fs::read_to_string(&module_file).unwrap_or_default();
    for (name, is_dir) in &children {
        let declared = text.lines().any(|l| {
            let l = l.trim_start().trim_start_matches("pub ");
            l.starts_with(&format!("mod {name};")) || l.starts_with(&format!("mod {name} "))
        });
        if !declared {
            text.push_str(&format!("pub mod {name};\n"));
        }
        if *is_dir {
            declare_in(&dir.join(name), false);
        }
    }
    fs::write(&module_file, text).unwrap();
}
