//! What a scaffolded project runs in CI and builds its image from is pinned and least privilege: the scaffold's
//! workflows, the examples' copies of them and the golden trees give their token `contents: read` only and use
//! every action at a full commit SHA with its release in a comment; every Dockerfile stage starts from an image
//! pinned by digest. Read from the files themselves (templates included), so no rkb build is needed.

use std::path::{Path, PathBuf};

use rkb_scaffold_tests::workspace_root;

/// The project directories whose `.github/workflows` and `Dockerfile` are checked, the template first.
fn projects() -> Vec<PathBuf> {
    let root = workspace_root();
    let mut dirs = vec![root.join("templates/init")];
    for parent in ["examples", "scaffold-tests/golden"] {
        let mut found: Vec<PathBuf> = std::fs::read_dir(root.join(parent))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.join("Dockerfile").exists() || p.join("Dockerfile.hbs").exists())
            .collect();
        found.sort();
        dirs.extend(found);
    }
    dirs
}

fn files_in(dir: &Path, suffixes: &[&str]) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| suffixes.iter().any(|s| p.to_string_lossy().ends_with(s)))
        .collect();
    files.sort();
    files
}

fn is_hex(text: &str, len: usize) -> bool {
    text.len() == len
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// The problems of one workflow's text: its token's permissions and each `uses:` line.
fn workflow_problems(text: &str) -> Vec<String> {
    let mut problems = Vec::new();
    // Handlebars escapes (`$\{{`) do not matter to the YAML structure checked here.
    let yaml: serde_json::Value = serde_saphyr::from_str(&text.replace("$\\{{", "${{"))
        .unwrap_or_else(|e| panic!("not YAML: {e}"));
    if yaml["permissions"] != serde_json::json!({"contents": "read"}) {
        problems.push(format!(
            "top-level permissions must be exactly `contents: read`, found {}",
            yaml["permissions"]
        ));
    }
    for line in text.lines() {
        let Some(used) = line
            .trim_start()
            .trim_start_matches("- ")
            .strip_prefix("uses: ")
        else {
            continue;
        };
        let (action, comment) = used.split_once(" # ").unwrap_or((used, ""));
        let sha = action.split_once('@').map_or("", |(_, r)| r.trim());
        if !is_hex(sha, 40) {
            problems.push(format!("not pinned by a full commit SHA: {}", line.trim()));
        } else if comment.trim().is_empty() {
            problems.push(format!("no `# <release>` comment: {}", line.trim()));
        }
    }
    problems
}

/// The problems of one Dockerfile: each FROM must name an image by digest.
fn dockerfile_problems(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| line.strip_prefix("FROM "))
        .filter(|from| {
            let image = from.split_whitespace().next().unwrap_or_default();
            let digest = image.split_once("@sha256:").map_or("", |(_, d)| d);
            !is_hex(digest, 64)
        })
        .map(|from| format!("FROM {from}: not pinned by @sha256 digest"))
        .collect()
}

#[test]
fn workflows_and_base_images_are_pinned() {
    let mut problems = Vec::new();
    let mut checked = 0;
    for dir in projects() {
        for file in files_in(&dir.join(".github/workflows"), &[".yml", ".yml.hbs"]) {
            let text = std::fs::read_to_string(&file).unwrap();
            problems.extend(
                workflow_problems(&text)
                    .into_iter()
                    .map(|p| format!("{}: {p}", file.display())),
            );
            checked += 1;
        }
        for file in files_in(&dir, &["/Dockerfile", "/Dockerfile.hbs"]) {
            let text = std::fs::read_to_string(&file).unwrap();
            problems.extend(
                dockerfile_problems(&text)
                    .into_iter()
                    .map(|p| format!("{}: {p}", file.display())),
            );
            checked += 1;
        }
    }
    // The template, five examples and three golden trees, two workflows and a Dockerfile each.
    assert!(checked >= 27, "only {checked} files checked");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_checks_catch_a_tag_a_missing_comment_wide_permissions_and_an_unpinned_image() {
    let workflow = "on: push
permissions:
  contents: write
jobs:
  a:
    steps:
      - uses: actions/checkout@v4
      - uses: actions/cache@27d5ce7f107fe9357f9df03efb73ab90386fccae
";
    assert_eq!(
        workflow_problems(workflow),
        [
            "top-level permissions must be exactly `contents: read`, found {\"contents\":\"write\"}",
            "not pinned by a full commit SHA: - uses: actions/checkout@v4",
            "no `# <release>` comment: - uses: actions/cache@27d5ce7f107fe9357f9df03efb73ab90386fccae",
        ]
    );
    assert_eq!(
        dockerfile_problems("FROM rust:1.89 AS builder\nFROM scratch@sha256:abc\n"),
        [
            "FROM rust:1.89 AS builder: not pinned by @sha256 digest",
            "FROM scratch@sha256:abc: not pinned by @sha256 digest",
        ]
    );
}
