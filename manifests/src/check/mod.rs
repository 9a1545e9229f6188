//! Stage 5, check: the rules the API server applies to a CRD's schemas, run on each CRD's resolved schemas
//! (schema/mod.rs) before anything of it is generated (crd_document.rs, yaml.rs).
//!
//! Contract:
//! - Each rule is one function over one resolved version, listed in [`RULES`] in the order it runs; a rule reports
//!   every problem it finds (with the schema path, at the marker that caused it, found with one call through the
//!   node's `Provenance`, or at the kind) and never stops at
//!   the first.
//! - A rule runs only while the run has no error, of any stage: after one, a schema may be incomplete (an
//!   unresolved type is `{}`, a misplaced or misspelled marker is left out), also in a later CRD that uses the
//!   same type (a type is resolved, and its problem reported, once per run), and the rules would report what
//!   follows from the first problem instead of problems of their own. A version is checked right after it is
//!   resolved, so an error in a later version does not hide the problems of an earlier one.
//! - Only a CRD that passed is generated, by functions that cannot fail. A run with any error returns no output:
//!   the one-thread build generates nothing, and the split build (lib.rs) drops what its threads printed.
//!
//! What is checked earlier, and why there: a marker's fit to the type it lands on (Maximum on a number, a map-list
//! key on a list) is checked where the marker is applied (schema/markers/), because the type is what resolving
//! finds; conflicts between one item's markers are checked when the item's doc comment is read (doc_comment.rs).

pub mod cel_cost;
pub mod defaults;
pub mod formats;
mod rule;
pub mod structural;

pub(crate) use rule::child;
pub use rule::{Checker, Version, for_each_child, for_each_own_child};

/// One rule: checks one resolved version, reporting to the checker.
type Rule = fn(&mut Checker<'_>, &Version<'_>);

/// Every rule, in the order they run.
const RULES: &[Rule] = &[
    structural::schema_is_structural,
    structural::map_lists_have_scalar_keys,
    defaults::defaults_are_accepted,
    cel_cost::cel_rules_are_within_cost_limits,
];

/// Runs every rule on one resolved version (the module docs say when rules are left out).
pub fn check_version(cx: &mut Checker<'_>, version: &Version<'_>) {
    for rule in RULES {
        if cx.has_errors() {
            return;
        }
        rule(cx, version);
    }
}
