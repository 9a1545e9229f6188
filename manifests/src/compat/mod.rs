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

pub(crate) mod diagnostics;
mod finding;
mod rules;
mod walk;

pub use finding::{Finding, Rule};

use serde_json::Value;

/// Every breaking change from `old` to `new`, two CustomResourceDefinition documents: CRD-wide first, then
/// version by version in `old`'s order, each version's schema depth first in key order.
pub fn compare(old: &Value, new: &Value) -> Vec<Finding> {
    walk::compare_crds(old, new)
}
