//! Stage 8, compat: whether a CRD can replace the one already released (`rkb manifests --check`, `--against`).
//!
//! Contract:
//! - [`compare`] reads two `apiextensions.k8s.io/v1` CustomResourceDefinition documents (the baseline and the
//!   one generated now, as JSON values) and returns one [`Finding`] for each change that breaks objects already
//!   stored or clients already written against the baseline. It is the only implementation of the rules: the
//!   CLI's diagnostics (`diagnostics.rs`) are made from its findings, placed at the Rust field or marker behind
//!   each finding's schema path.
//! - `walk.rs` pairs the versions of the two CRDs by name, then the schema nodes of each pair by path; `rules.rs`
//!   holds one function per rule, each reading one pair (CRD-wide, one version, or one schema node) and
//!   reporting what it breaks. Nothing the baseline did not have is compared (a new version, a new optional
//!   field), so a CRD compared with itself has no finding.
//! - Paths are written from the version's `openAPIV3Schema`: `.` is its root, `.spec.replicas` a property,
//!   `[*]` an array's items, `{*}` a map's values (`additionalProperties`). CRD-wide findings have the empty
//!   version and path; version-wide ones (a stored or served version) the empty path.
//! - A CRD the baseline has and the project no longer generates (`crd-removed`) is no pair: [`removed_crds`]
//!   reports it, for the baseline files the caller found without a generated CRD.

pub(crate) mod diagnostics;
mod finding;
mod rules;
mod walk;

pub use diagnostics::RemovedCrd;
pub use finding::{Finding, Rule};

use serde_json::Value;
use std::path::Path;

/// Every breaking change from `old` to `new`, two CustomResourceDefinition documents: CRD-wide first, then
/// version by version in `old`'s order, each version's schema depth first in key order.
pub fn compare(old: &Value, new: &Value) -> Vec<Finding> {
    walk::compare_crds(old, new)
}

/// The `crd-removed` errors of the project at `project_root`: one for each CRD of the baseline it no longer
/// generates (`removed`, found by the caller among the baseline's files), at the CRD's name in that file, unless
/// a `+rkb:compat:allow:rule=crd-removed,crd=<plural>.<group>` on any type or field acknowledges it. Reads the
/// sources (for the acknowledgments) only when there is one; call it after `generate` passed: the problems of
/// the sources are that run's to report, and are not reported again here.
pub fn removed_crds(
    project_root: &Path,
    removed: &[RemovedCrd<'_>],
) -> Result<Vec<rkb_markers::Diagnostic>, crate::error::Error> {
    if removed.is_empty() {
        return Ok(Vec::new());
    }
    let mut reported_by_generate = Vec::new();
    let files = crate::read::load::load_sources(project_root, &mut reported_by_generate)?;
    let model = crate::model::Model::build(files, &mut reported_by_generate);
    Ok(removed
        .iter()
        .filter_map(|r| diagnostics::removed_crd(&model, r))
        .collect())
}
