//! The two Rust files of a kind's webhooks in one version: src/webhook/.../<kind>_webhook.rs and its envtest test.
//!
//! Both are built from a base (the `webhooks()` function, the test's environment and create) plus one piece per
//! webhook type, added at `// rkb:scaffold:webhook-*` lines. A fresh file is the base with every wanted piece added;
//! `rkb create webhook` on a kind that has webhooks adds only the missing pieces to the files as the user left
//! them, the way kubebuilder merges a new webhook type into an existing file. Both paths run the same code, so
//! scaffolding defaulting, then validation, then conversion gives the files one command with all three gives
//! (rustfmt then lays them out alike). User code is never rewritten: a piece goes in above its marker, and the one
//! rkb-written line that is replaced (the test's install of no admission webhooks) must read as rkb wrote it.
//!
//! A missing marker refuses the whole command before anything is written, naming the file, the marker line to
//! restore and where it belongs.

use anyhow::{Result, bail};
use serde::Serialize;

use crate::scaffold::{insert_before_marker, insert_block_before_marker};

/// A scaffold line of the webhook file or test, and where a user who deleted it puts it back.
struct Marker {
    name: &'static str,
    place: &'static str,
}

const IMPORTS: Marker = Marker {
    name: "rkb:scaffold:webhook-imports",
    place: "below the file's `use rkb_runtime::webhook::...` lines",
};
const BUILDERS: Marker = Marker {
    name: "rkb:scaffold:webhook-builders",
    place: "as the last line of the `Webhooks::new()` chain in `webhooks()`",
};
const IMPLS: Marker = Marker {
    name: "rkb:scaffold:webhook-impls",
    place: "at the end of the file",
};
const TEST_MANIFESTS: Marker = Marker {
    name: "rkb:scaffold:webhook-test-manifests",
    place: "right above the test's `let server = env.install_webhooks(\"\").await?;` line",
};
const TEST_CONVERSION: Marker = Marker {
    name: "rkb:scaffold:webhook-test-conversion",
    place: "right below the test's `let server = env.install_webhooks(..)` line",
};
const TEST_READS: Marker = Marker {
    name: "rkb:scaffold:webhook-test-reads",
    place: "right above the test's `running.stop().await?;` line",
};

/// The line a test without admission webhooks installs them with; `--defaulting` or `--programmatic-validation`
/// replaces it (and its marker) by the install of config/webhook/manifests.yaml.
const NO_ADMISSION_INSTALL: &str = "let server = env.install_webhooks(\"\").await?;";

/// What one run adds to a kind's webhook file and test (everything wanted, for a fresh file).
#[derive(Debug, Default)]
pub struct Additions {
    pub defaulting: bool,
    pub validation: bool,
    /// The test starts installing config/webhook/manifests.yaml (the kind had no admission webhook).
    pub admission: bool,
    /// The test starts turning the CRD's conversion on (no version of the kind was converted).
    pub conversion: bool,
    /// New spokes, by index into the data's spokes.
    pub spokes: Vec<usize>,
}

/// How the pieces are rendered: a `webhook/` template by path with the kind's values, or with one spoke's.
pub trait Pieces {
    fn render(&self, template: &str) -> Result<String>;
    fn render_spoke(&self, template: &str, spoke: usize) -> Result<String>;
    /// The registration of the defaulter or validator: `.defaulter::<Kind, _>(KindCustomDefaulter)`.
    fn builder(&self, webhook: Builder) -> String;
}

/// A line of the `webhooks()` chain.
pub enum Builder {
    Defaulter,
    Validator,
    Conversion(usize),
}

/// The kind's webhook file with `add`'s pieces added to `text` (the base template, or the user's file).
pub fn add_to_source(
    file: &str,
    text: &str,
    add: &Additions,
    pieces: &dyn Pieces,
) -> Result<String> {
    let mut needed = Vec::new();
    if add.defaulting || add.validation {
        needed.extend([&IMPORTS, &BUILDERS, &IMPLS]);
    }
    if !add.spokes.is_empty() {
        needed.push(&BUILDERS);
    }
    require(file, text, &needed)?;
    let mut text = text.to_string();
    for (wanted, imports, builder, template) in [
        (
            add.defaulting,
            "Defaulter, Denied",
            Builder::Defaulter,
            "src/defaulter.rs",
        ),
        (
            add.validation,
            "Validator, Verdict",
            Builder::Validator,
            "src/validator.rs",
        ),
    ] {
        if !wanted {
            continue;
        }
        let import = format!("use rkb_runtime::webhook::{{{imports}}};");
        text = insert_before_marker(file, &text, IMPORTS.name, &[import])?;
        text = insert_before_marker(file, &text, BUILDERS.name, &[pieces.builder(builder)])?;
        text = insert_block_before_marker(file, &text, IMPLS.name, &pieces.render(template)?)?;
    }
    for &spoke in &add.spokes {
        let line = pieces.builder(Builder::Conversion(spoke));
        text = insert_before_marker(file, &text, BUILDERS.name, &[line])?;
    }
    Ok(text)
}

/// The kind's test with `add`'s pieces added to `text`.
pub fn add_to_test(file: &str, text: &str, add: &Additions, pieces: &dyn Pieces) -> Result<String> {
    let mut needed = Vec::new();
    if add.admission {
        needed.push(&TEST_MANIFESTS);
    }
    if add.conversion {
        needed.push(&TEST_CONVERSION);
    }
    if !add.spokes.is_empty() {
        needed.push(&TEST_READS);
    }
    require(file, text, &needed)?;
    let mut text = text.to_string();
    if add.admission {
        text = install_manifests(file, &text, &pieces.render("tests/install_manifests.rs")?)?;
    }
    if add.conversion {
        text = insert_block_before_marker(
            file,
            &text,
            TEST_CONVERSION.name,
            &pieces.render("tests/enable_conversion.rs")?,
        )?;
    }
    for &spoke in &add.spokes {
        let read = pieces.render_spoke("tests/spoke_read.rs", spoke)?;
        text = insert_block_before_marker(file, &text, TEST_READS.name, &read)?;
    }
    Ok(text)
}

/// Only the conversion line, for the tests of the kind's other versions when the kind becomes converted: the API
/// server cannot serve them without it either.
pub fn enable_conversion_in_test(file: &str, text: &str, pieces: &dyn Pieces) -> Result<String> {
    let add = Additions {
        conversion: true,
        ..Additions::default()
    };
    add_to_test(file, text, &add, pieces)
}

/// Replaces the marker and the install of no admission webhooks below it with `install`.
fn install_manifests(file: &str, text: &str, install: &str) -> Result<String> {
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains(TEST_MANIFESTS.name))
        .expect("required above");
    if lines.get(at + 1).map(|l| l.trim()) != Some(NO_ADMISSION_INSTALL) {
        bail!(
            "{file}: the line below `// {}` is not `{NO_ADMISSION_INSTALL}`, the line rkb replaces with the install of config/webhook/manifests.yaml; put it back (or install the manifests there yourself and delete the marker line) and run again",
            TEST_MANIFESTS.name
        );
    }
    let mut out: Vec<&str> = lines[..at].to_vec();
    out.extend(install.lines());
    out.extend(&lines[at + 2..]);
    Ok(out.join("\n") + "\n")
}

/// Refuses, naming every missing marker and where it belongs, when `text` lacks one of `markers`.
fn require(file: &str, text: &str, markers: &[&Marker]) -> Result<()> {
    let mut missing: Vec<String> = Vec::new();
    for marker in markers {
        let hint = format!("`// {}` {}", marker.name, marker.place);
        if !text.contains(marker.name) && !missing.contains(&hint) {
            missing.push(hint);
        }
    }
    if missing.is_empty() {
        return Ok(());
    }
    bail!(
        "{file} lacks the scaffold line rkb adds the new webhook at, so nothing was written: put {} and run again",
        missing.join(", and ")
    )
}

/// The values of a spoke's pieces: the kind's, and the spoke's.
#[derive(Serialize)]
pub struct SpokeValues<'a, T: Serialize> {
    #[serde(flatten)]
    pub webhook: &'a T,
    pub spoke_version: &'a str,
    pub spoke_api_mod: &'a str,
}
