//! What serde_with's adapters (`#[serde_as(as = "..")]`) and Display derives write, read off the model, and the
//! messages that name them; schema generation (mod.rs, serde_with.rs) decides what to do with it.

use crate::model::{Field, OwnJson, TypeDef};
use crate::read::type_expr::TypeExpr;

/// The name of serde_with's adapter `adapter` written bare or by its `serde_with::` path (`DisplayFromStr`,
/// `Same`), or `_`; `None` for a container or another crate's adapter.
pub(super) fn serde_with_name(adapter: &TypeExpr) -> Option<&str> {
    match adapter {
        TypeExpr::Other(text) if text == "_" => Some("_"),
        TypeExpr::Path { segments, args }
            if args.is_empty() && (segments.len() == 1 || segments[0] == "serde_with") =>
        {
            segments.last().map(String::as_str)
        }
        _ => None,
    }
}

/// Whether field `f` is written through an adapter other than `_` or `Same` (which leave its JSON to its type).
pub(super) fn is_adapted(f: &Field) -> bool {
    f.adapter
        .as_ref()
        .is_some_and(|a| !matches!(a.ty.as_ref().and_then(serde_with_name), Some("_" | "Same")))
}

/// Why local type `td` is a JSON string because it is a Display text (serde_with's derives), for
/// `SchemaGen::check_written_as_string` (serde_with.rs).
pub(super) fn written_by_display(td: &TypeDef) -> Option<String> {
    match &td.own_json {
        Some(OwnJson::Display(derive)) => Some(format!(
            "`{}` is written as its Display text, a string (its `#[derive({derive})]`)",
            td.name
        )),
        _ => None,
    }
}

/// The hint for a Display text without a Type marker: the marker that describes it, and `where_to` put it.
pub(super) fn display_hint(where_to: &str) -> String {
    format!(
        "describe it with `+kubebuilder:validation:Type=string` (and Pattern, MaxLength, ...) {where_to}: its JSON is \
         the text of its Display, a string (controller-gen writes a Go type with MarshalText as one)"
    )
}

/// A field's `#[serde_as(...)]` key and value as written (`as = "DisplayFromStr"`), for messages.
pub(super) fn serde_as_attr(f: &Field) -> &str {
    f.adapter.as_ref().map_or("", |a| a.attr.as_str())
}

/// What field `f`'s adapter does to a value of `ty`: its Display text, whose JSON is a string.
pub(super) fn writes_display_of(f: &Field, ty: &TypeExpr) -> String {
    format!(
        "field `{}` writes `{}` as its Display text, a string (its `#[serde_as({})]`)",
        f.json_name,
        ty.to_rust(),
        serde_as_attr(f)
    )
}

/// The error of a field whose adapter rkb cannot describe.
pub(super) fn adapter_message(f: &Field) -> String {
    format!(
        "field `{}` has a JSON format of its own (its `#[serde_as({})]`), which rkb cannot read",
        f.json_name,
        serde_as_attr(f)
    )
}
