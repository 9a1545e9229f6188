//! serde_with's ways of writing a value as other JSON than its type's derive gives, in schemas: a field's adapter
//! (`#[serde_as(as = "DisplayFromStr")]`) and the Display derives of a type (`#[derive(SerializeDisplay)]`, whose
//! type is a [`crate::model::OwnJson::Display`] and resolved as every type with its own JSON: see
//! `SchemaGen::type_schema`). Both are Go's MarshalText: a JSON string, the text of the value's Display.
//!
//! The contract, as for every JSON rkb cannot read from fields (docs/markers.md, "Types whose JSON is not their
//! fields"): a Display text is described by a `+kubebuilder:validation:Type` marker, never guessed. For a field
//! written through an adapter:
//! - with a Type marker on the field, the field's markers alone describe it (as for another crate's type);
//! - otherwise rkb reads the adapter: `_` and `Same` write the value as its type does; `DisplayFromStr` writes the
//!   Display text of a local type described by its own Type marker, that type's markers alone; Option, list and
//!   map adapters over the same container (`Option<DisplayFromStr>`, `Vec<DisplayFromStr>`,
//!   `BTreeMap<DisplayFromStr, _>`) apply their arguments to its content (a Display text is a string map key);
//! - anything else (another adapter, a Display text of a type without a Type marker) is an error at the field,
//!   naming the attribute and the marker that describes it.
//!
//! A Type marker other than `string` where the JSON is a Display text is an error at the marker, as controller-gen
//! refuses one on a Go type with MarshalText.

use super::SchemaGen;
use super::adapters::{
    adapter_message, display_hint, serde_with_name, writes_display_of, written_by_display,
};
use crate::model::item_markers::ItemMarkers;
use crate::model::{At, Field, FileId, Resolved, TypeId};
use crate::read::type_expr::TypeExpr;
use crate::schema::node::Schema;
use std::slice;

impl SchemaGen<'_> {
    /// The schema of field `f`, written through its adapter ([`super::adapters::is_adapted`]) and without a Type marker of its own.
    pub(super) fn adapted_field_schema(&mut self, f: &Field, at: At) -> Schema {
        let adapter = f.adapter.as_ref().and_then(|a| a.ty.as_ref());
        self.adapted_schema(f, adapter, &f.ty, at, true)
    }

    /// What `adapter` writes for a value of `ty`, inside field `f` (`top`: the field's value itself, through
    /// Options, not a list item or map value).
    fn adapted_schema(
        &mut self,
        f: &Field,
        adapter: Option<&TypeExpr>,
        ty: &TypeExpr,
        at: At,
        top: bool,
    ) -> Schema {
        match adapter.and_then(serde_with_name) {
            Some("_" | "Same") => return self.expr_schema(at.file, ty, at),
            Some("DisplayFromStr") => return self.display_schema(f, ty, at, top),
            _ => {}
        }
        let container = adapter.and_then(|a| self.same_container(at.file, a, ty));
        match container {
            Some((Resolved::Wrapper, [a], [t])) => self.adapted_schema(f, Some(a), t, at, top),
            Some((Resolved::List, [a], [t])) => {
                super::array_of(self.adapted_schema(f, Some(a), t, at, false))
            }
            Some((Resolved::Map, [key_adapter, a, ..], [key, t, ..])) => {
                match serde_with_name(key_adapter) {
                    // A Display text is a string: a JSON object key.
                    Some("DisplayFromStr") => {}
                    Some("_" | "Same") => self.check_map_key(at.file, key, at),
                    _ => self.unread_adapter(f, at),
                }
                super::object_of(self.adapted_schema(f, Some(a), t, at, false))
            }
            _ => {
                self.unread_adapter(f, at);
                Schema::new()
            }
        }
    }

    /// The container (an Option or other wrapper, a list, a map) that both `adapter` and `ty` are, with the type
    /// arguments of each.
    fn same_container<'t>(
        &self,
        file: FileId,
        adapter: &'t TypeExpr,
        ty: &'t TypeExpr,
    ) -> Option<(Resolved, &'t [TypeExpr], &'t [TypeExpr])> {
        match (adapter, ty) {
            (TypeExpr::List(a), TypeExpr::List(t)) => {
                Some((Resolved::List, slice::from_ref(&**a), slice::from_ref(&**t)))
            }
            (
                TypeExpr::Path {
                    segments: adapter_path,
                    args: adapter_args,
                },
                TypeExpr::Path { segments, args },
            ) => {
                let kind = self.model.resolve(file, segments);
                let container = matches!(kind, Resolved::Wrapper | Resolved::List | Resolved::Map);
                (container
                    && self.model.resolve(file, adapter_path) == kind
                    && adapter_args.len() == args.len())
                .then_some((kind, adapter_args.as_slice(), args.as_slice()))
            }
            _ => None,
        }
    }

    /// The Display text of a value of `ty` in field `f`: the markers alone of the local type `ty` names, when it has
    /// a Type marker; else an error at the field naming where the marker goes.
    fn display_schema(&mut self, f: &Field, ty: &TypeExpr, at: At, top: bool) -> Schema {
        let model = self.model;
        let local = self.local_type_of(at.file, ty).map(|t| &model.types[t]);
        if let Some(td) = local.filter(|td| td.doc.markers.type_marker().is_some()) {
            self.check_written_as_string(&td.doc.markers, td.file, &writes_display_of(f, ty));
            let mut s = Schema::new();
            self.apply_markers(&mut s, &td.doc.markers, td.file, None);
            return s;
        }
        let where_to = match (local, top) {
            (Some(td), true) => format!("on the field or on `{}`", td.name),
            (Some(td), false) => format!("on `{}`", td.name),
            (None, true) => "on the field".to_owned(),
            (None, false) => format!(
                "on a type of your own around `{}` (the field's markers describe the field, not its items)",
                ty.to_rust()
            ),
        };
        self.error(at, adapter_message(f), Some(display_hint(&where_to)));
        Schema::new()
    }

    /// An adapter rkb does not read, in field `f`.
    fn unread_adapter(&mut self, f: &Field, at: At) {
        let hint = "describe its JSON with `+kubebuilder:validation:Type=<type>` (and Format, ...) on the field: of \
                    serde_with's adapters, rkb reads `DisplayFromStr`, `_` and `Same`, also inside Option, lists and \
                    maps (`Vec<DisplayFromStr>`, `BTreeMap<DisplayFromStr, _>`)";
        self.error(at, adapter_message(f), Some(hint.into()));
    }

    /// The local type `ty` names, through Option, Box and the other wrappers.
    fn local_type_of(&self, file: FileId, ty: &TypeExpr) -> Option<TypeId> {
        let TypeExpr::Path { segments, args } = ty else {
            return None;
        };
        match self.model.resolve(file, segments) {
            Resolved::Local(t) => Some(t),
            Resolved::Wrapper => self.local_type_of(file, args.first()?),
            _ => None,
        }
    }

    /// A Type marker on field `f` (which rkb then describes by its markers alone) must say string when the field is
    /// a Display text: written through `DisplayFromStr` (also inside Options), or of a type with a Display derive.
    pub(super) fn check_field_written_as_string(&mut self, f: &Field, file: FileId) {
        let what = match f.adapter.as_ref().and_then(|a| a.ty.as_ref()) {
            Some(adapter) => self
                .displayed(file, adapter, &f.ty)
                .map(|ty| writes_display_of(f, ty)),
            None => self
                .local_type_of(file, &f.ty)
                .and_then(|t| written_by_display(&self.model.types[t])),
        };
        if let Some(what) = what {
            self.check_written_as_string(&f.doc.markers, file, &what);
        }
    }

    /// The type whose Display text `adapter` writes for a value of `ty`, through Options.
    fn displayed<'t>(
        &self,
        file: FileId,
        adapter: &'t TypeExpr,
        ty: &'t TypeExpr,
    ) -> Option<&'t TypeExpr> {
        if serde_with_name(adapter) == Some("DisplayFromStr") {
            return Some(ty);
        }
        match self.same_container(file, adapter, ty)? {
            (Resolved::Wrapper, [a], [t]) => self.displayed(file, a, t),
            _ => None,
        }
    }

    /// A Type marker other than string among `markers`, where the JSON is a Display text (`what` says whose, and
    /// why): the schema would lie.
    pub(super) fn check_written_as_string(
        &mut self,
        markers: &ItemMarkers,
        file: FileId,
        what: &str,
    ) {
        let Some((span, wanted)) = markers.type_marker() else {
            return;
        };
        if wanted.is_empty() || wanted == "string" {
            return;
        }
        self.error(
            At { file, span },
            format!("conflicting types: the Type marker says {wanted}, but {what}"),
            Some(
                "make it `+kubebuilder:validation:Type=string`, and describe the text with Pattern, MaxLength, ..."
                    .into(),
            ),
        );
    }
}
