//! What a check rule (check/mod.rs) reads and where it reports: one resolved version of a CRD, the checker that
//! holds the run's model and diagnostics, and the walk over a schema's children with their schema paths.

use rkb_markers::Diagnostic;

use crate::error::report_once;
use crate::model::{At, Model, TypeId};
use crate::schema::node::{Node, Schema};
use crate::schema::shared::SharedSchemas;

/// One resolved version of a CRD, as every rule reads it.
pub struct Version<'a> {
    /// The root type of the version.
    pub ty: TypeId,
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

    pub(super) fn has_errors(&self) -> bool {
        self.earlier_errors || self.diags.iter().any(Diagnostic::is_error)
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
