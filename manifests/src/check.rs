//! Stage 5, check: the rules the API server applies to a CRD's schemas, run on each CRD's resolved schemas
//! (schema.rs) before anything of it is generated (crd_document.rs, yaml.rs).
//!
//! Contract:
//! - Each rule is one function over one resolved version, listed in [`RULES`] in the order it runs; a rule reports
//!   every problem it finds (with the schema path, at the marker that caused it or at the kind) and never stops at
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
//! key on a list) is checked where the marker is applied (schema_markers/), because the type is what resolving
//! finds; conflicts between one item's markers are checked when the item's doc comment is read (doc_comment.rs).

use rkb_markers::Diagnostic;

use crate::model::{At, Model};
use crate::node::{Node, Schema};
use crate::shared::SharedSchemas;

/// One rule: checks one resolved version, reporting to the checker.
type Rule = fn(&mut Checker<'_>, &Version<'_>);

/// Every rule, in the order they run.
const RULES: &[Rule] = &[
    crate::structural::schema_is_structural,
    crate::structural::map_lists_have_scalar_keys,
    crate::defaults::defaults_are_accepted,
    crate::cel_cost::cel_rules_are_within_cost_limits,
];

/// One resolved version of a CRD, as every rule reads it.
pub struct Version<'a> {
    /// The root type of the version.
    pub ty: usize,
    /// The version's name (`v1`).
    pub name: &'a str,
    /// Its `openAPIV3Schema`.
    pub schema: &'a Schema,
}

/// What the rules read, and where they report.
pub struct Checker<'a> {
    pub model: &'a Model,
    /// The run's shared k8s sub-schemas, which the resolved schemas refer to.
    pub shared: &'a SharedSchemas,
    /// Local types found to refer to themselves while resolving: the structural rule's hint names them.
    pub recursive: &'a [String],
    /// The stages before resolving reported an error.
    earlier_errors: bool,
    diags: &'a mut Vec<Diagnostic>,
}

impl<'a> Checker<'a> {
    /// A checker reporting into `diags`, which holds what resolving the CRDs reported so far; `earlier_errors`:
    /// the stages before resolving reported an error.
    pub fn new(
        model: &'a Model,
        shared: &'a SharedSchemas,
        recursive: &'a [String],
        earlier_errors: bool,
        diags: &'a mut Vec<Diagnostic>,
    ) -> Self {
        Checker {
            model,
            shared,
            recursive,
            earlier_errors,
            diags,
        }
    }

    /// An error at `at`, with `hint`.
    pub fn error(&mut self, at: At, msg: impl Into<String>, hint: impl Into<String>) {
        let d = self
            .model
            .locate(at, Diagnostic::error(msg))
            .with_hint(hint);
        report_once(self.diags, d);
    }

    /// A located diagnostic of any severity.
    pub fn report(&mut self, d: Diagnostic) {
        report_once(self.diags, d);
    }

    fn has_errors(&self) -> bool {
        self.earlier_errors || self.diags.iter().any(Diagnostic::is_error)
    }
}

/// Runs every rule on one resolved version (the module docs say when rules are left out).
pub fn check_version(cx: &mut Checker<'_>, version: &Version<'_>) {
    for rule in RULES {
        if cx.has_errors() {
            return;
        }
        rule(cx, version);
    }
}

/// Adds `d` unless it is already there: the same problem is found once per use of a type (and per version that
/// uses it), and is reported once.
pub fn report_once(diags: &mut Vec<Diagnostic>, d: Diagnostic) {
    if !diags.contains(&d) {
        diags.push(d);
    }
}

/// Calls `f` with each property, items and additionalProperties schema of `s` and its path (`.a.b`, `.a[*]`),
/// skipping shared k8s sub-schemas: they are the API server's own, and hold nothing of the project's.
pub fn for_each_own_child(s: &Schema, path: &str, f: &mut dyn FnMut(&Schema, String)) {
    for_each_child(s, path, &mut |n, p| {
        if let Node::Own(o) = n {
            f(o, p);
        }
    });
}

/// Calls `f` with each property, items and additionalProperties node of `s` (a shared one too) and its path.
pub fn for_each_child(s: &Schema, path: &str, f: &mut dyn FnMut(&Node, String)) {
    for (k, n) in s.properties.iter().flatten() {
        f(n, child(path, k));
    }
    for n in [&s.items, &s.additional_properties].into_iter().flatten() {
        f(n, format!("{path}[*]"));
    }
}

/// `.spec.name` from `.spec` (or `.`) and `name`: the schema paths diagnostics name.
pub(crate) fn child(path: &str, seg: &str) -> String {
    if path == "." {
        format!(".{seg}")
    } else {
        format!("{path}.{seg}")
    }
}
