//! The markers of one item (a field, a type, or a version module's `//!` lines), sorted once by what they do into
//! typed settings, and the rules between two markers of one item.
//!
//! Contract: [`ItemMarkers::sort`] is the one place that matches every [`Effect`] of an item's markers, without a
//! catch-all: each effect lands in the setting its reader takes (the schema changes for schema/mod.rs, the CRD settings
//! for plan/mod.rs, the package settings for model/mod.rs, RBAC rules and webhooks for their generators); readers take
//! fields, never re-filter markers. The parser already refused a marker on a target it does not fit, so a field's
//! `crd` stays empty. Each setting keeps its marker's definition and span ([`Written`]), so a diagnostic (or a later
//! "which marker wrote this keyword") points at the marker. [`ItemMarkers::check`] reports what two markers of one
//! item say against each other: one marker twice with different values, optional with required, a lower bound above
//! its upper bound.

use crate::read::source::SourceFile;
use rkb_markers::{
    CompatAllow, CrdMarker, DeriveMarker, Diagnostic, Effect, ListMarker, Marker, MarkerDef,
    NumberMarker, ObjectMarker, PackageMarker, Presence, RbacRule, RuleMarker, SchemaMarker, Span,
    StringMarker, ValueMarker, WebhookMarker,
};

/// One marker's typed value, where it was written.
#[derive(Clone, Debug)]
pub struct Written<T> {
    pub value: T,
    pub def: &'static MarkerDef,
    pub span: Span,
}

impl<T> Written<T> {
    fn of(m: &Marker, value: T) -> Written<T> {
        Written {
            value,
            def: m.def,
            span: m.span,
        }
    }

    /// The marker's name (`kubebuilder:validation:items:Minimum`).
    pub fn name(&self) -> &'static str {
        self.def.name
    }

    /// Its last name segment, as messages name it (`Minimum`).
    pub fn short_name(&self) -> &'static str {
        let name = self.def.name;
        name.rsplit_once(':').map_or(name, |(_, short)| short)
    }
}

/// What the markers of one item say, by reader. Lists keep source order.
#[derive(Clone, Debug, Default)]
pub struct ItemMarkers {
    /// Group, version and skip of a version module.
    pub package: Vec<Written<PackageMarker>>,
    /// Optional and required (on a package: whether fields are optional by default).
    pub presence: Vec<Written<Presence>>,
    /// Changes to the item's schema (applied in `schema_markers::order`).
    pub schema: Vec<Written<SchemaMarker>>,
    /// Changes to the schema of the items of a list (`+kubebuilder:validation:items:<Name>`).
    pub items: Vec<Written<SchemaMarker>>,
    /// `+kubebuilder:validation:Schemaless`: the field gets an empty schema.
    pub schemaless: bool,
    /// Settings of the CRD of the root kind the markers are on.
    pub crd: Vec<Written<CrdMarker>>,
    /// `+kubebuilder:object:root` (the first, when there are two: they conflict unless equal).
    pub root: Option<Written<bool>>,
    /// `+kubebuilder:object:generate=false` or `+k8s:deepcopy-gen=false`.
    pub deep_copy_off: bool,
    /// RBAC rules (read from any doc comment).
    pub rbac: Vec<Written<RbacRule>>,
    /// Webhooks and configuration names (read from any doc comment).
    pub webhooks: Vec<Written<WebhookMarker>>,
    /// `+rkb:compat:allow`: breaking changes of the CRD made on purpose (compat/diagnostics.rs reads them).
    pub compat: Vec<Written<CompatAllow>>,
}

impl ItemMarkers {
    /// Sorts an item's parsed markers into its settings.
    pub fn sort(markers: Vec<Marker>) -> ItemMarkers {
        let mut out = ItemMarkers::default();
        for m in markers {
            match m.effect.clone() {
                Effect::Package(p) => out.package.push(Written::of(&m, p)),
                Effect::Presence(p) => out.presence.push(Written::of(&m, p)),
                Effect::Schema(s) => out.schema.push(Written::of(&m, s)),
                Effect::ItemsSchema(s) => out.items.push(Written::of(&m, s)),
                Effect::Schemaless => out.schemaless = true,
                Effect::Crd(c) => out.crd.push(Written::of(&m, c)),
                Effect::Root(root) => {
                    out.root.get_or_insert(Written::of(&m, root));
                }
                Effect::Derive(DeriveMarker::DeepCopy(on)) => out.deep_copy_off |= !on,
                Effect::Rbac(r) => out.rbac.push(Written::of(&m, r)),
                Effect::Webhook(w) => out.webhooks.push(Written::of(&m, w)),
                Effect::Compat(c) => out.compat.push(Written::of(&m, c)),
                // client-gen's tags: the derive reads them from the attributes rustc hands it (genclient.rs).
                Effect::Derive(DeriveMarker::Genclient(_) | DeriveMarker::GenclientTag(_)) => {}
                // Other generators' markers: accepted, and nothing to do.
                Effect::Ignored => {}
            }
        }
        out
    }

    /// Whether a presence marker says this (`decisive`: the `kubebuilder:validation:` form).
    pub fn says(&self, presence: Presence) -> bool {
        self.presence.iter().any(|p| p.value == presence)
    }

    /// The first `+kubebuilder:validation:Type` and the type it says ("" removes the type, as with IntOrString).
    pub fn type_marker(&self) -> Option<(Span, &str)> {
        self.schema.iter().find_map(|m| match &m.value {
            SchemaMarker::Value(ValueMarker::Type(t)) => Some((m.span, t.as_str())),
            _ => None,
        })
    }

    /// `+k8s:immutable`.
    pub fn immutable(&self) -> bool {
        self.schema
            .iter()
            .any(|m| m.value == SchemaMarker::Rule(RuleMarker::Immutable))
    }

    /// The OneOf markers (AtMostOneOf, ExactlyOneOf, AtLeastOneOf) with the fields each counts.
    pub fn one_ofs(&self) -> impl Iterator<Item = (&Written<SchemaMarker>, &[String])> {
        self.schema.iter().filter_map(|m| match &m.value {
            SchemaMarker::Rule(r) => r.one_of_fields().map(|fields| (m, fields)),
            _ => None,
        })
    }

    /// Where the first default (`+kubebuilder:default` or `+default`) is.
    pub fn default_at(&self) -> Option<Span> {
        self.schema.iter().find_map(|m| {
            matches!(
                m.value,
                SchemaMarker::Value(ValueMarker::Default(_) | ValueMarker::DefaultJson(_))
            )
            .then_some(m.span)
        })
    }

    /// Where the XValidation marker (of the value or of its items) whose rule is `rule` is.
    pub fn rule_at(&self, rule: &str) -> Option<Span> {
        self.schema
            .iter()
            .chain(&self.items)
            .find_map(|m| match &m.value {
                SchemaMarker::Rule(RuleMarker::XValidation(x)) if x.rule == rule => Some(m.span),
                _ => None,
            })
    }

    /// The schema marker (of the value) `pick` matches first, where it is.
    pub fn schema_at(&self, pick: impl Fn(&SchemaMarker) -> bool) -> Option<Span> {
        self.schema.iter().find(|m| pick(&m.value)).map(|m| m.span)
    }

    /// The CRD setting `pick` matches first, where it is.
    pub fn crd_at(&self, pick: impl Fn(&CrdMarker) -> bool) -> Option<Span> {
        self.crd.iter().find(|c| pick(&c.value)).map(|c| c.span)
    }

    /// The markers that only mean something on a kind, by name in source order: the CRD settings and a root marker
    /// that does not say `false` (on a list type, the root marker means deep copy and clients).
    pub fn kind_level(&self, is_list: bool) -> Vec<(&'static str, Span)> {
        let root = self
            .root
            .as_ref()
            .filter(|r| r.value && !is_list)
            .map(|r| (r.name(), r.span));
        let mut found: Vec<(&'static str, Span)> = root
            .into_iter()
            .chain(self.crd.iter().map(|c| (c.name(), c.span)))
            .collect();
        found.sort_by_key(|(_, span)| (span.line, span.col));
        found
    }
}

/// The rules between two markers of one item, each an error at the later marker: the same single-valued marker
/// twice with different values, optional and required together, and lower bounds above upper bounds.
pub fn check(markers: &[Marker], file: &SourceFile, diags: &mut Vec<Diagnostic>) {
    for (i, b) in markers.iter().enumerate() {
        if b.def.repeatable {
            continue;
        }
        if let Some(a) = markers[..i].iter().find(|a| a.def == b.def)
            && a.effect != b.effect
        {
            diags.push(conflict(
                file,
                a,
                b,
                format!("conflicting markers: `{}` and `{}`", a.text, b.text),
                "keep one of them",
            ));
        }
    }
    let presence = |required: bool| {
        markers
            .iter()
            .find(|m| matches!(m.effect, Effect::Presence(p) if p.required == required))
    };
    if let (Some(a), Some(b)) = (presence(false), presence(true)) {
        let (first, second) = if a.span.line <= b.span.line {
            (a, b)
        } else {
            (b, a)
        };
        diags.push(conflict(
            file,
            first,
            second,
            format!(
                "conflicting markers: `{}` and `{}`",
                first.text, second.text
            ),
            "a field is either optional or required",
        ));
    }
    check_bounds(markers, file, diags);
}

/// A lower bound and an upper bound of one value (or of its items): Minimum/Maximum, MinLength/MaxLength,
/// MinItems/MaxItems, MinProperties/MaxProperties.
fn check_bounds(markers: &[Marker], file: &SourceFile, diags: &mut Vec<Diagnostic>) {
    #[derive(PartialEq)]
    enum Bound {
        Lower,
        Upper,
    }
    /// Which bound the marker is, of which pair, on the value (`false`) or its items, and its number.
    fn bound(m: &Marker) -> Option<(Bound, u8, bool, f64)> {
        let (schema, on_items) = match &m.effect {
            Effect::Schema(s) => (s, false),
            Effect::ItemsSchema(s) => (s, true),
            _ => return None,
        };
        let (b, pair, n) = match *schema {
            SchemaMarker::Number(NumberMarker::Minimum(n)) => (Bound::Lower, 0, n),
            SchemaMarker::Number(NumberMarker::Maximum(n)) => (Bound::Upper, 0, n),
            SchemaMarker::String(StringMarker::MinLength(n)) => (Bound::Lower, 1, n as f64),
            SchemaMarker::String(StringMarker::MaxLength(n)) => (Bound::Upper, 1, n as f64),
            SchemaMarker::List(ListMarker::MinItems(n)) => (Bound::Lower, 2, n as f64),
            SchemaMarker::List(ListMarker::MaxItems(n)) => (Bound::Upper, 2, n as f64),
            SchemaMarker::Object(ObjectMarker::MinProperties(n)) => (Bound::Lower, 3, n as f64),
            SchemaMarker::Object(ObjectMarker::MaxProperties(n)) => (Bound::Upper, 3, n as f64),
            _ => return None,
        };
        Some((b, pair, on_items, n))
    }
    for on_items in [false, true] {
        for pair in 0..4 {
            let first = |which: Bound| {
                markers.iter().find_map(|m| match bound(m) {
                    Some((b, p, i, n)) if b == which && p == pair && i == on_items => Some((m, n)),
                    _ => None,
                })
            };
            if let (Some((a, x)), Some((b, y))) = (first(Bound::Lower), first(Bound::Upper))
                && x > y
            {
                diags.push(conflict(
                    file,
                    a,
                    b,
                    format!(
                        "conflicting markers: {}={x} is greater than {}={y}",
                        a.short_name(),
                        b.short_name()
                    ),
                    "no value can satisfy both",
                ));
            }
        }
    }
}

fn conflict(file: &SourceFile, a: &Marker, b: &Marker, msg: String, hint: &str) -> Diagnostic {
    Diagnostic::error(msg)
        .at(&file.rel, b.span.line, b.span.col, b.span.len)
        .with_source_line(file.line(b.span.line))
        .with_hint(format!("{hint} (the other one is at line {})", a.span.line))
}
