//! The marker vocabulary of controller-gen v0.21.0 (crd, rbac, webhook, what the derive reads, and the markers other
//! generators own that rkb accepts and ignores): one definition per marker, with its name, the targets it may
//! describe, its arguments, whether it repeats, and its [`Effect`] (applied by whoever owns that effect).

use crate::args::ArgReader;
use crate::effect::{
    CompatAllow, CrdMarker, DeriveMarker, Effect, ExternalDocs, Family, GenclientTag, ListMarker,
    NumberMarker, ObjectMarker, PackageMarker, Presence, PrintColumn, RbacRule, Resource,
    RuleMarker, Scale, SchemaMarker, StringMarker, TopologyMarker, ValueMarker, WebhookArgs,
    WebhookMarker, XValidation,
};
use crate::value::ArgType;
use std::collections::HashMap;
use std::fmt;
use std::sync::OnceLock;

/// What a marker line is attached to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// Inner doc comments (`//!`) of a version module.
    Package,
    /// A struct, enum or type alias.
    Type,
    /// A struct field.
    Field,
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Target::Package => "package (`//!` in a version module)",
            Target::Type => "type",
            Target::Field => "field",
        })
    }
}

/// Allowed targets as a small bit set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Targets(u8);

impl Targets {
    pub const PACKAGE: Targets = Targets(1);
    pub const TYPE: Targets = Targets(2);
    pub const FIELD: Targets = Targets(4);
    pub const TYPE_FIELD: Targets = Targets(6);
    pub const PACKAGE_FIELD: Targets = Targets(5);
    pub const PACKAGE_TYPE: Targets = Targets(3);
    pub const ANY: Targets = Targets(7);

    pub fn contains(self, t: Target) -> bool {
        let bit = match t {
            Target::Package => 1,
            Target::Type => 2,
            Target::Field => 4,
        };
        self.0 & bit != 0
    }

    pub fn describe(self) -> String {
        let mut parts = Vec::new();
        if self.0 & 1 != 0 {
            parts.push("a package (`//!` in the version module)");
        }
        if self.0 & 2 != 0 {
            parts.push("a type");
        }
        if self.0 & 4 != 0 {
            parts.push("a field");
        }
        parts.join(" or ")
    }
}

/// A named argument.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ArgDef {
    pub name: &'static str,
    pub ty: ArgType,
    pub optional: bool,
}

/// The shape of a marker's arguments, as its read function asks for them (args.rs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Args {
    /// No value: `+kubebuilder:subresource:status`.
    Flag,
    /// One unnamed value: `+kubebuilder:validation:Minimum=1`. `optional` markers may omit `=value`
    /// (bools then mean `true`).
    Anonymous { ty: ArgType, optional: bool },
    /// `name=value` pairs: `+kubebuilder:printcolumn:name=...,type=...`.
    Named(&'static [ArgDef]),
}

/// How a marker's typed effect is read from its arguments. A validation marker's read function gives the schema
/// change, which its plain name applies to the value and its `items:` twin to a list's items.
#[derive(Clone, Copy)]
enum Read {
    Effect(fn(&mut ArgReader) -> Effect),
    Schema(fn(&mut ArgReader) -> SchemaMarker),
    ItemsSchema(fn(&mut ArgReader) -> SchemaMarker),
}

impl Read {
    fn effect(self, a: &mut ArgReader) -> Effect {
        match self {
            Read::Effect(read) => read(a),
            Read::Schema(read) => Effect::Schema(read(a)),
            Read::ItemsSchema(read) => Effect::ItemsSchema(read(a)),
        }
    }
}

/// One marker of the vocabulary: everything rkb knows about it but how its effect is applied.
#[derive(Clone, Copy)]
pub struct MarkerDef {
    pub name: &'static str,
    pub targets: Targets,
    /// The arguments its read function asks for.
    pub args: Args,
    /// Which effect it has (the values come with each parsed marker).
    pub family: Family,
    /// May appear several times on one item; a second copy of any other marker with another value conflicts.
    pub repeatable: bool,
    pub help: &'static str,
    read: Read,
}

impl fmt::Debug for MarkerDef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MarkerDef")
            .field("name", &self.name)
            .field("args", &self.args)
            .finish_non_exhaustive()
    }
}

/// Names are unique in the vocabulary.
impl PartialEq for MarkerDef {
    fn eq(&self, other: &MarkerDef) -> bool {
        self.name == other.name
    }
}

impl MarkerDef {
    /// The marker's effect with the values `a` gives (the parser's reading of its arguments).
    pub(crate) fn effect(&self, a: &mut ArgReader) -> Effect {
        self.read.effect(a)
    }
}

/// A line of the tables below: a [`MarkerDef`] before its read function declared its arguments.
struct Entry {
    name: &'static str,
    targets: Targets,
    read: fn(&mut ArgReader) -> Effect,
    repeatable: bool,
    help: &'static str,
}

impl Entry {
    const fn new(
        name: &'static str,
        targets: Targets,
        read: fn(&mut ArgReader) -> Effect,
        help: &'static str,
    ) -> Entry {
        Entry {
            name,
            targets,
            read,
            repeatable: false,
            help,
        }
    }

    const fn repeatable(mut self) -> Entry {
        self.repeatable = true;
        self
    }
}

/// A validation marker: `+kubebuilder:validation:<short>` on a field or type, and again as
/// `+kubebuilder:validation:items:<short>` for the items of a list.
struct Validation {
    short: &'static str,
    read: fn(&mut ArgReader) -> SchemaMarker,
    repeatable: bool,
    help: &'static str,
}

const fn v(
    short: &'static str,
    read: fn(&mut ArgReader) -> SchemaMarker,
    help: &'static str,
) -> Validation {
    Validation {
        short,
        read,
        repeatable: false,
        help,
    }
}

use ListMarker as L;
use NumberMarker as N;
use ObjectMarker as O;
use SchemaMarker as S;
use ValueMarker as V;

/// The validation markers controller-gen registers for fields and types, and again under `items:`.
#[rustfmt::skip]
const VALIDATION: &[Validation] = &[
    v("Maximum", |a| S::Number(N::Maximum(a.value_number())), "maximum value of a number"),
    v("Minimum", |a| S::Number(N::Minimum(a.value_number())), "minimum value of a number"),
    v("ExclusiveMaximum", |a| S::Number(N::ExclusiveMaximum(a.value_bool())), "whether Maximum is exclusive"),
    v("ExclusiveMinimum", |a| S::Number(N::ExclusiveMinimum(a.value_bool())), "whether Minimum is exclusive"),
    v("MultipleOf", |a| S::Number(N::MultipleOf(a.value_number())), "the number must be a multiple of this"),
    v("MinProperties", |a| S::Object(O::MinProperties(a.value_int())), "minimum number of properties of an object"),
    v("MaxProperties", |a| S::Object(O::MaxProperties(a.value_int())), "maximum number of properties of an object"),
    v("MaxLength", |a| S::String(StringMarker::MaxLength(a.value_int())), "maximum length of a string"),
    v("MinLength", |a| S::String(StringMarker::MinLength(a.value_int())), "minimum length of a string"),
    v("Pattern", |a| S::String(StringMarker::Pattern(a.value_string())), "regular expression a string must match"),
    v("MaxItems", |a| S::List(L::MaxItems(a.value_int())), "maximum length of a list"),
    v("MinItems", |a| S::List(L::MinItems(a.value_int())), "minimum length of a list"),
    v("UniqueItems", |a| S::List(L::UniqueItems(a.value_bool())), "list items must be unique"),
    v("Enum", |a| S::Value(V::Enum(a.value_any_list())), "the allowed values"),
    v("Format", |a| S::Value(V::Format(a.value_string())), "OpenAPI format (date-time, int32, ...)"),
    v("Type", |a| S::Value(V::Type(a.value_string())), "overrides the OpenAPI type"),
    v("XPreserveUnknownFields", |_| S::Object(O::PreserveUnknownFields), "keep fields the schema does not declare"),
    v("XEmbeddedResource", |_| S::Object(O::EmbeddedResource), "the value is an embedded Kubernetes object"),
    v("XIntOrString", |_| S::Value(V::IntOrString), "the value is an int or a string"),
    Validation { repeatable: true, ..v("XValidation", |a| S::Rule(RuleMarker::XValidation(XValidation::read(a))), "a CEL validation rule") },
];

const TF: Targets = Targets::TYPE_FIELD;
const PKG: Targets = Targets::PACKAGE;
const TYPE: Targets = Targets::TYPE;
const FIELD: Targets = Targets::FIELD;

const fn presence(required: bool, decisive: bool) -> Effect {
    Effect::Presence(Presence { required, decisive })
}

const fn tag(tag: GenclientTag) -> Effect {
    Effect::Derive(DeriveMarker::GenclientTag(tag))
}

/// An accepted marker of another generator, whatever its arguments (its text is read, and dropped).
const fn other(name: &'static str, targets: Targets, help: &'static str) -> Entry {
    Entry::new(
        name,
        targets,
        |a| {
            a.opt_value_raw();
            Effect::Ignored
        },
        help,
    )
}

/// Everything except the validation markers and their items variants.
#[rustfmt::skip]
const BASE: &[Entry] = &[
    // package
    Entry::new("groupName", PKG, |a| Effect::Package(PackageMarker::GroupName(a.opt_value_string())), "API group of the package"),
    Entry::new("versionName", PKG, |a| Effect::Package(PackageMarker::VersionName(a.value_string())), "API version of the package (default: the module name)"),
    Entry::new("kubebuilder:skip", PKG, |_| Effect::Package(PackageMarker::Skip), "not an API version: no CRD from this package"),
    // presence
    Entry::new("kubebuilder:validation:Optional", Targets::PACKAGE_FIELD, |_| presence(false, true), "field optional (on a package: every field optional by default)"),
    Entry::new("kubebuilder:validation:Required", Targets::PACKAGE_FIELD, |_| presence(true, true), "field required"),
    Entry::new("required", FIELD, |_| presence(true, false), "field required"),
    Entry::new("optional", FIELD, |_| presence(false, false), "field optional"),
    Entry::new("k8s:required", FIELD, |_| presence(true, false), "field required"),
    Entry::new("k8s:optional", FIELD, |_| presence(false, false), "field optional"),
    // field schema
    Entry::new("nullable", FIELD, |_| Effect::Schema(S::Value(V::Nullable)), "null is an allowed value"),
    Entry::new("kubebuilder:default", FIELD, |a| Effect::Schema(S::Value(V::Default(a.value_any()))), "default value (marker syntax)"),
    Entry::new("default", FIELD, |a| Effect::Schema(S::Value(V::DefaultJson(a.value_json()))), "default value (JSON)"),
    Entry::new("kubebuilder:example", FIELD, |a| Effect::Schema(S::Value(V::Example(a.value_any()))), "example value"),
    Entry::new("kubebuilder:validation:EmbeddedResource", FIELD, |_| Effect::Schema(S::Object(O::EmbeddedResource)), "the value is an embedded Kubernetes object"),
    Entry::new("kubebuilder:validation:Schemaless", FIELD, |_| Effect::Schemaless, "emit no schema for this field"),
    Entry::new("k8s:immutable", FIELD, |_| Effect::Schema(S::Rule(RuleMarker::Immutable)), "the field cannot change once set"),
    // type schema
    Entry::new("kubebuilder:validation:AtMostOneOf", TYPE, |a| Effect::Schema(S::Rule(RuleMarker::AtMostOneOf(a.value_strings()))), "at most one of these fields may be set").repeatable(),
    Entry::new("kubebuilder:validation:ExactlyOneOf", TYPE, |a| Effect::Schema(S::Rule(RuleMarker::ExactlyOneOf(a.value_strings()))), "exactly one of these fields must be set").repeatable(),
    Entry::new("kubebuilder:validation:AtLeastOneOf", TYPE, |a| Effect::Schema(S::Rule(RuleMarker::AtLeastOneOf(a.value_strings()))), "at least one of these fields must be set").repeatable(),
    Entry::new("k8s:enum", TYPE, |_| Effect::Schema(S::Value(V::K8sEnum)), "the type is a string enum of its variants"),
    // type or field schema
    Entry::new("kubebuilder:pruning:PreserveUnknownFields", TF, |_| Effect::Schema(S::Object(O::PreserveUnknownFields)), "keep fields the schema does not declare"),
    Entry::new("kubebuilder:title", TF, |a| Effect::Schema(S::Value(V::Title(a.value_any()))), "schema title"),
    Entry::new("kubebuilder:externalDocs", TF, |a| Effect::Schema(S::Value(V::ExternalDocs(ExternalDocs::read(a)))), "external documentation link"),
    // topology
    Entry::new("listType", TF, |a| Effect::Schema(S::Topology(TopologyMarker::ListType(a.value_string()))), "atomic, set or map"),
    Entry::new("listMapKey", TF, |a| Effect::Schema(S::Topology(TopologyMarker::ListMapKey(a.value_string()))), "a key of a listType=map list (repeatable)").repeatable(),
    Entry::new("mapType", TF, |a| Effect::Schema(S::Topology(TopologyMarker::MapType(a.value_string()))), "atomic or granular"),
    Entry::new("structType", TF, |a| Effect::Schema(S::Topology(TopologyMarker::StructType(a.value_string()))), "atomic or granular"),
    // CRD
    Entry::new("kubebuilder:subresource:status", TYPE, |_| Effect::Crd(CrdMarker::StatusSubresource), "enable the status subresource"),
    Entry::new("kubebuilder:subresource:scale", TYPE, |a| Effect::Crd(CrdMarker::ScaleSubresource(Scale::read(a))), "enable the scale subresource"),
    Entry::new("kubebuilder:printcolumn", TYPE, |a| Effect::Crd(CrdMarker::PrintColumn(PrintColumn::read(a))), "an additional printer column").repeatable(),
    Entry::new("kubebuilder:resource", TYPE, |a| Effect::Crd(CrdMarker::Resource(Resource::read(a))), "resource names and scope"),
    Entry::new("kubebuilder:storageversion", TYPE, |_| Effect::Crd(CrdMarker::StorageVersion), "this version is the storage version"),
    Entry::new("kubebuilder:skipversion", TYPE, |_| Effect::Crd(CrdMarker::SkipVersion), "leave this version out of the CRD"),
    Entry::new("kubebuilder:unservedversion", TYPE, |_| Effect::Crd(CrdMarker::UnservedVersion), "this version is not served"),
    Entry::new("kubebuilder:deprecatedversion", TYPE, |a| Effect::Crd(CrdMarker::DeprecatedVersion { warning: a.opt_string("warning") }), "this version is deprecated"),
    Entry::new("kubebuilder:metadata", TYPE, |a| Effect::Crd(CrdMarker::Metadata { annotations: a.opt_strings("annotations"), labels: a.opt_strings("labels") }), "annotations and labels of the CRD").repeatable(),
    Entry::new("kubebuilder:selectablefield", TYPE, |a| Effect::Crd(CrdMarker::SelectableField { json_path: a.string("JSONPath") }), "a field usable in field selectors").repeatable(),
    // RBAC: allowed on any doc comment under src/ (controller-gen reads it from any comment of a package).
    Entry::new("kubebuilder:rbac", Targets::ANY, |a| Effect::Rbac(RbacRule::read(a)), "an RBAC rule for the manager role").repeatable(),
    // Webhooks: allowed on any doc comment under src/, like RBAC.
    Entry::new("kubebuilder:webhook", Targets::ANY, |a| Effect::Webhook(WebhookMarker::Webhook(Box::new(WebhookArgs::read(a)))), "a mutating or validating webhook (config/webhook/manifests.yaml)").repeatable(),
    Entry::new("kubebuilder:webhookconfiguration", Targets::ANY, |a| Effect::Webhook(WebhookMarker::Configuration { mutating: a.bool("mutating"), name: a.opt_string("name") }), "the name of the mutating or validating webhook configuration").repeatable(),
    // rkb's own: a breaking change of the CRD made on purpose (rkb manifests --check).
    Entry::new("rkb:compat:allow", TF, |a| Effect::Compat(CompatAllow::read(a)), "acknowledges a breaking change of the CRD that `rkb manifests --check` would refuse").repeatable(),
    // Root kinds.
    Entry::new("kubebuilder:object:root", TYPE, |a| Effect::Root(a.opt_value_bool()), "a root kind (gets a CRD when it has metadata)"),
    // What #[derive(Kind)] reads: deep copy here, client-gen's tags below.
    Entry::new("kubebuilder:object:generate", Targets::PACKAGE_TYPE, |a| Effect::Derive(DeriveMarker::DeepCopy(a.opt_value_bool())), "deep copy generation (on by default; `=false` turns it off)"),
    // deepcopy-gen's `=package` (and any other value but `false`) leaves it on.
    Entry::new("k8s:deepcopy-gen", Targets::PACKAGE_TYPE, |a| Effect::Derive(DeriveMarker::DeepCopy(a.opt_value_raw().is_none_or(|v| v.trim() != "false"))), "deep copy generation (deepcopy-gen's form)"),
    // Other generators' markers: accepted, not used.
    Entry::new("k8s:deepcopy-gen:interfaces", TYPE, |a| { a.value_string(); Effect::Ignored }, "deepcopy generation"),
    Entry::new("kubebuilder:ac:generate", Targets::PACKAGE_TYPE, |a| { a.opt_value_bool(); Effect::Ignored }, "apply configurations"),
    Entry::new("kubebuilder:ac:output:package", PKG, |a| { a.value_string(); Effect::Ignored }, "apply configurations"),
    other("kubebuilder:scaffold", Targets::ANY, "scaffold insertion point").repeatable(),
    // client-gen's tags, for the derive's typed client.
    Entry::new("genclient", TYPE, |a| Effect::Derive(DeriveMarker::Genclient(a.opt_value_raw())), "client-gen: generate a typed client"),
    Entry::new("genclient:nonNamespaced", TYPE, |_| tag(GenclientTag::NonNamespaced), "client-gen: cluster-scoped client"),
    Entry::new("genclient:noVerbs", TYPE, |_| tag(GenclientTag::NoVerbs), "client-gen: no client verbs"),
    Entry::new("genclient:noStatus", TYPE, |_| tag(GenclientTag::NoStatus), "client-gen: no UpdateStatus"),
    Entry::new("genclient:readonly", TYPE, |_| tag(GenclientTag::Readonly), "client-gen: read verbs only"),
    Entry::new("genclient:onlyVerbs", TYPE, |a| tag(GenclientTag::OnlyVerbs(a.value_strings())), "client-gen: only these verbs"),
    Entry::new("genclient:skipVerbs", TYPE, |a| tag(GenclientTag::SkipVerbs(a.value_strings())), "client-gen: all verbs but these"),
    Entry::new("genclient:method", TYPE, |a| tag(GenclientTag::Method(a.value_raw())), "client-gen: an extra client method").repeatable(),
    // Kubernetes' other code generators: controller-gen ignores them; real APIs carry them.
    other("k8s:openapi-gen", Targets::ANY, "openapi-gen"),
    other("k8s:defaulter-gen", Targets::ANY, "defaulter-gen"),
    other("k8s:defaulter-gen-input", Targets::ANY, "defaulter-gen"),
    other("k8s:conversion-gen", Targets::ANY, "conversion-gen"),
    other("k8s:conversion-gen-external-types", Targets::ANY, "conversion-gen"),
    other("k8s:prerelease-lifecycle-gen", Targets::ANY, "prerelease-lifecycle-gen (`:introduced=`, `:deprecated=`, `:removed=`, `:replacement=`)"),
    Entry::new("groupGoName", PKG, |a| { a.value_string(); Effect::Ignored }, "client-gen: Go name of the group"),
];

/// The registry: lookup by name, did-you-mean, and the full list (for docs and tests).
pub struct Registry {
    defs: Vec<MarkerDef>,
    /// Lowercased names, for did-you-mean.
    lower: Vec<String>,
    by_name: HashMap<&'static str, usize>,
}

/// A definition whose arguments and family are what its read function asks for and returns while declaring.
fn declare(
    name: &'static str,
    targets: Targets,
    read: Read,
    repeatable: bool,
    help: &'static str,
) -> MarkerDef {
    let mut declaring = ArgReader::declaring();
    let family = read.effect(&mut declaring).family();
    MarkerDef {
        name,
        targets,
        args: declaring.declared(name),
        family,
        repeatable,
        help,
        read,
    }
}

fn leak(s: String) -> &'static str {
    // The registry is built once per process (OnceLock), so these few strings live as long as it does.
    Box::leak(s.into_boxed_str())
}

impl Registry {
    fn build() -> Registry {
        let mut defs: Vec<MarkerDef> = Vec::new();
        for v in VALIDATION {
            let plain = format!("kubebuilder:validation:{}", v.short);
            let items = format!("kubebuilder:validation:items:{}", v.short);
            defs.push(declare(
                leak(plain),
                TF,
                Read::Schema(v.read),
                v.repeatable,
                v.help,
            ));
            defs.push(declare(
                leak(items),
                TF,
                Read::ItemsSchema(v.read),
                v.repeatable,
                "the same, for the items of a list",
            ));
        }
        for e in BASE {
            defs.push(declare(
                e.name,
                e.targets,
                Read::Effect(e.read),
                e.repeatable,
                e.help,
            ));
        }
        let by_name = defs.iter().enumerate().map(|(i, d)| (d.name, i)).collect();
        let lower = defs.iter().map(|d| d.name.to_ascii_lowercase()).collect();
        Registry {
            defs,
            lower,
            by_name,
        }
    }

    /// The process-wide registry: built once from the const tables above and never changed, so one copy
    /// serves every run and thread.
    pub fn get() -> &'static Registry {
        static REG: OnceLock<Registry> = OnceLock::new();
        REG.get_or_init(Registry::build)
    }

    pub fn all(&self) -> &[MarkerDef] {
        &self.defs
    }

    pub fn by_name(&self, name: &str) -> Option<&MarkerDef> {
        self.by_name.get(name).map(|&i| &self.defs[i])
    }

    /// controller-gen's lookup: the full name before `=` first, then without its last `:segment`
    /// (which then is the first argument's name, as in `+kubebuilder:printcolumn:name=...`).
    /// Returns the definition and the length of the marker name within `text` (which excludes the `+`).
    pub fn lookup(&self, text: &str) -> Option<(&MarkerDef, usize)> {
        let head = text.split('=').next().unwrap_or(text);
        if let Some(def) = self.by_name(head) {
            return Some((def, head.len()));
        }
        // controller-gen falls back for every marker; for unnamed-value markers the dropped segment is
        // ignored (`+kubebuilder:default:=Allow` is `+kubebuilder:default=Allow`).
        if text.contains('=')
            && let Some(i) = head.rfind(':')
            && let Some(def) = self.by_name(&head[..i])
            && matches!(def.args, Args::Named(_) | Args::Anonymous { .. })
        {
            return Some((def, i));
        }
        None
    }

    /// Whether `text` (a marker without its `+`) is in rkb's vocabulary's territory: a known marker (however its
    /// value is spaced), or any name in the namespaces whose every name is this vocabulary's (`kubebuilder:`,
    /// `k8s:`, rkb's own `rkb:`), known or not. Other `+words` may belong to other tools.
    pub fn owns(&self, text: &str) -> bool {
        let name = text
            .split(|c: char| c == '=' || c.is_whitespace())
            .next()
            .unwrap_or(text);
        self.lookup(text).is_some()
            || self.by_name(name).is_some()
            || ["kubebuilder:", "k8s:", "rkb:"]
                .iter()
                .any(|ns| name.starts_with(ns))
    }

    /// The closest known name to `name`, if close enough to be a likely typo.
    pub fn suggest(&self, name: &str) -> Option<&'static str> {
        let lower = name.to_ascii_lowercase();
        let limit = (name.chars().count() / 3).clamp(1, 4);
        let mut best: Option<(usize, &'static str)> = None;
        for (d, dl) in self.defs.iter().zip(&self.lower) {
            // The distance is at least the length difference: skip hopeless names cheaply.
            if dl.len().abs_diff(lower.len()) > limit {
                continue;
            }
            let dist = crate::suggest::levenshtein(&lower, dl);
            if best.is_none_or(|(b, _)| dist < b) {
                best = Some((dist, d.name));
            }
        }
        // Case-only differences count as distance 0 after lowering; give those a suggestion too.
        best.filter(|&(d, n)| d <= limit && n != name)
            .map(|(_, n)| n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_prefers_full_name_then_drops_last_segment() {
        let r = Registry::get();
        let (d, n) = r.lookup("kubebuilder:validation:Minimum=1").unwrap();
        assert_eq!((d.name, n), ("kubebuilder:validation:Minimum", 30));
        let (d, n) = r
            .lookup("kubebuilder:printcolumn:name=\"x\",type=string")
            .unwrap();
        assert_eq!((d.name, n), ("kubebuilder:printcolumn", 23));
        let (d, _) = r.lookup("kubebuilder:subresource:status").unwrap();
        assert_eq!(d.name, "kubebuilder:subresource:status");
        assert!(r.lookup("kubebuilder:validation:Minimun=1").is_none());
    }

    #[test]
    fn owns_known_markers_and_its_namespaces_only() {
        let r = Registry::get();
        for ours in [
            "groupName=apps.example.com",
            "groupName = apps.example.com",
            "kubebuilder:validation:Minimun=1",
            "k8s:some-future-tag",
            "listType=map",
            "rkb:compat:alow:rule=field-removed",
        ] {
            assert!(r.owns(ours), "{ours}");
        }
        for theirs in [
            "optionalOldSelf",
            "protobuf=true",
            "genclientx",
            "kubebuilderish",
        ] {
            assert!(!r.owns(theirs), "{theirs}");
        }
    }

    #[test]
    fn suggests_close_names() {
        let r = Registry::get();
        assert_eq!(
            r.suggest("kubebuilder:validation:Minimun"),
            Some("kubebuilder:validation:Minimum")
        );
        assert_eq!(
            r.suggest("kubebuilder:validation:minimum"),
            Some("kubebuilder:validation:Minimum")
        );
        assert_eq!(r.suggest("optinal"), Some("optional"));
        assert_eq!(r.suggest("something:else:entirely"), None);
    }

    #[test]
    fn validation_markers_have_items_variants() {
        let r = Registry::get();
        for v in VALIDATION {
            let items = r
                .by_name(&format!("kubebuilder:validation:items:{}", v.short))
                .unwrap();
            assert_eq!(items.family, Family::ItemsSchema);
            assert_eq!(
                items.args,
                r.by_name(&format!("kubebuilder:validation:{}", v.short))
                    .unwrap()
                    .args
            );
        }
    }
}
