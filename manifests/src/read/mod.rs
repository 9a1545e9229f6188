//! Stage 1, read: the project's sources as the model needs them. `modules` follows the module tree cargo
//! compiles from the crate roots, `load` reads its files (`source`: one file's text, positions and doc lines),
//! and each file becomes an `outline` (its items, doc lines, serde attributes and field types as `type_expr`s),
//! by the fast `scan`ner or, where the scanner steps aside, by syn. `settings` reads the project's
//! `[package.metadata.rkb]` from Cargo.toml. `kube_derive` adds to an outline the kinds kube-derive's
//! `#[derive(CustomResource)]` generates.

pub mod kube_derive;
pub mod load;
pub mod modules;
pub mod outline;
pub mod scan;
pub mod settings;
pub mod source;
pub mod type_expr;

use rkb_markers::Diagnostic;
use scan::Scanned;
use source::SourceFile;

/// The outline of `file`: the scanner's, else syn's ([`outline::with_syn`]). Nesting deeper than
/// [`scan::nesting::MAX_NESTING`] and syntax errors go to `diags`, and give `None`. The kinds of kube-derive types
/// are added ([`kube_derive::adopt`]), with the diagnostics of their attributes.
pub fn outline(file: &SourceFile, diags: &mut Vec<Diagnostic>) -> Option<outline::Outline> {
    let mut outline = outline_as_written(file, diags)?;
    kube_derive::adopt(file, &mut outline, diags);
    Some(outline)
}

fn outline_as_written(file: &SourceFile, diags: &mut Vec<Diagnostic>) -> Option<outline::Outline> {
    match scan::scan(file) {
        Scanned::Outline(outline) => Some(outline),
        Scanned::TooDeep(d) => {
            diags.push(d);
            None
        }
        Scanned::Unsure => outline::with_syn(file, diags, |ast| outline::from_syn(ast, file)),
    }
}
