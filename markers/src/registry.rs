//! The marker vocabulary of controller-gen v0.21.0 (crd, rbac, webhook, what the derive reads, and the markers other
//! generators own that rkb accepts and ignores): one definition per marker, with its name, the targets it may
//! describe, its arguments, whether it repeats, and its [`Effect`] (applied by whoever owns that effect).

use crate::effect::{
    CrdMarker, DeriveMarker, Effect, GenclientTag, ListMarker, NumberMarker, ObjectMarker,
    PackageMarker, Presence, RuleMarker, SchemaMarker, StringMarker, TopologyMarker, ValueMarker,
    WebhookMarker,
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

/// The shape of a marker's arguments.
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

/// One marker of the vocabulary: everything rkb knows about it but how its effect is applied.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MarkerDef {
    pub name: &'static str,
    pub targets: Targets,
    pub args: Args,
    pub effect: Effect,
    /// May appear several times on one item; a second copy of any other marker with another value conflicts.
    pub repeatable: bool,
    pub help: &'static str,
}

impl MarkerDef {
    const fn new(
        name: &'static str,
        targets: Targets,
        args: Args,
        effect: Effect,
        help: &'static str,
    ) -> MarkerDef {
        MarkerDef {
            name,
            targets,
            args,
            effect,
            repeatable: false,
            help,
        }
    }

    const fn repeatable(mut self) -> MarkerDef {
        self.repeatable = true;
        self
    }

    const fn with_args(mut self, args: Args) -> MarkerDef {
        self.args = args;
        self
    }
}

const fn a(name: &'static str, ty: ArgType, optional: bool) -> ArgDef {
    ArgDef { name, ty, optional }
}

const fn anon(ty: ArgType) -> Args {
    Args::Anonymous {
        ty,
        optional: false,
    }
}

const fn optional(ty: ArgType) -> Args {
    Args::Anonymous { ty, optional: true }
}

const XVALIDATION: &[ArgDef] = &[
    a("rule", ArgType::String, false),
    a("message", ArgType::String, true),
    a("messageExpression", ArgType::String, true),
    a("reason", ArgType::String, true),
    a("fieldPath", ArgType::String, true),
    a("optionalOldSelf", ArgType::Bool, true),
];

/// controller-gen's webhook generator's arguments, in its order.
const WEBHOOK: &[ArgDef] = &[
    a("webhookVersions", ArgType::StringList, true),
    a("failurePolicy", ArgType::String, false),
    a("matchPolicy", ArgType::String, true),
    a("sideEffects", ArgType::String, true),
    a("timeoutSeconds", ArgType::Int, true),
    a("groups", ArgType::StringList, false),
    a("resources", ArgType::StringList, false),
    a("verbs", ArgType::StringList, false),
    a("versions", ArgType::StringList, false),
    a("name", ArgType::String, false),
    a("serviceName", ArgType::String, true),
    a("serviceNamespace", ArgType::String, true),
    a("path", ArgType::String, true),
    a("servicePort", ArgType::Int, true),
    a("admissionReviewVersions", ArgType::StringList, false),
    a("reinvocationPolicy", ArgType::String, true),
    a("url", ArgType::String, true),
    a("mutating", ArgType::Bool, false),
];

/// A validation marker: `+kubebuilder:validation:<short>` on a field or type, and again as
/// `+kubebuilder:validation:items:<short>` for the items of a list.
struct Validation {
    short: &'static str,
    args: Args,
    effect: SchemaMarker,
    repeatable: bool,
    help: &'static str,
}

const fn v(
    short: &'static str,
    args: Args,
    effect: SchemaMarker,
    help: &'static str,
) -> Validation {
    Validation {
        short,
        args,
        effect,
        repeatable: false,
        help,
    }
}

use NumberMarker as N;
use ObjectMarker as O;
use SchemaMarker as S;
use ValueMarker as V;

/// The validation markers controller-gen registers for fields and types, and again under `items:`.
#[rustfmt::skip]
const VALIDATION: &[Validation] = &[
    v("Maximum", anon(ArgType::Number), S::Number(N::Maximum), "maximum value of a number"),
    v("Minimum", anon(ArgType::Number), S::Number(N::Minimum), "minimum value of a number"),
    v("ExclusiveMaximum", anon(ArgType::Bool), S::Number(N::ExclusiveMaximum), "whether Maximum is exclusive"),
    v("ExclusiveMinimum", anon(ArgType::Bool), S::Number(N::ExclusiveMinimum), "whether Minimum is exclusive"),
    v("MultipleOf", anon(ArgType::Number), S::Number(N::MultipleOf), "the number must be a multiple of this"),
    v("MinProperties", anon(ArgType::Int), S::Object(O::MinProperties), "minimum number of properties of an object"),
    v("MaxProperties", anon(ArgType::Int), S::Object(O::MaxProperties), "maximum number of properties of an object"),
    v("MaxLength", anon(ArgType::Int), S::String(StringMarker::MaxLength), "maximum length of a string"),
    v("MinLength", anon(ArgType::Int), S::String(StringMarker::MinLength), "minimum length of a string"),
    v("Pattern", anon(ArgType::String), S::String(StringMarker::Pattern), "regular expression a string must match"),
    v("MaxItems", anon(ArgType::Int), S::List(ListMarker::MaxItems), "maximum length of a list"),
    v("MinItems", anon(ArgType::Int), S::List(ListMarker::MinItems), "minimum length of a list"),
    v("UniqueItems", anon(ArgType::Bool), S::List(ListMarker::UniqueItems), "list items must be unique"),
    v("Enum", anon(ArgType::AnyList), S::Value(V::Enum), "the allowed values"),
    v("Format", anon(ArgType::String), S::Value(V::Format), "OpenAPI format (date-time, int32, ...)"),
    v("Type", anon(ArgType::String), S::Value(V::Type), "overrides the OpenAPI type"),
    v("XPreserveUnknownFields", Args::Flag, S::Object(O::PreserveUnknownFields), "keep fields the schema does not declare"),
    v("XEmbeddedResource", Args::Flag, S::Object(O::EmbeddedResource), "the value is an embedded Kubernetes object"),
    v("XIntOrString", Args::Flag, S::Value(V::IntOrString), "the value is an int or a string"),
    Validation { repeatable: true, ..v("XValidation", Args::Named(XVALIDATION), S::Rule(RuleMarker::XValidation), "a CEL validation rule") },
];

const TF: Targets = Targets::TYPE_FIELD;
const PKG: Targets = Targets::PACKAGE;
const TYPE: Targets = Targets::TYPE;
const FIELD: Targets = Targets::FIELD;

const fn presence(required: bool, decisive: bool) -> Effect {
    Effect::Presence(Presence { required, decisive })
}

const fn schema(m: SchemaMarker) -> Effect {
    Effect::Schema(m)
}

const fn crd(m: CrdMarker) -> Effect {
    Effect::Crd(m)
}

const fn genclient(tag: GenclientTag) -> Effect {
    Effect::Derive(DeriveMarker::GenclientTag(tag))
}

/// An accepted marker of another generator, whatever its arguments.
const fn other(name: &'static str, targets: Targets, help: &'static str) -> MarkerDef {
    MarkerDef::new(name, targets, optional(ArgType::Raw), Effect::Ignored, help)
}

/// Everything except the validation markers and their items variants.
#[rustfmt::skip]
const BASE: &[MarkerDef] = &[
    // package
    MarkerDef::new("groupName", PKG, optional(ArgType::String), Effect::Package(PackageMarker::GroupName), "API group of the package"),
    MarkerDef::new("versionName", PKG, anon(ArgType::String), Effect::Package(PackageMarker::VersionName), "API version of the package (default: the module name)"),
    MarkerDef::new("kubebuilder:skip", PKG, Args::Flag, Effect::Package(PackageMarker::Skip), "not an API version: no CRD from this package"),
    // presence
    MarkerDef::new("kubebuilder:validation:Optional", Targets::PACKAGE_FIELD, Args::Flag, presence(false, true), "field optional (on a package: every field optional by default)"),
    MarkerDef::new("kubebuilder:validation:Required", Targets::PACKAGE_FIELD, Args::Flag, presence(true, true), "field required"),
    MarkerDef::new("required", FIELD, Args::Flag, presence(true, false), "field required"),
    MarkerDef::new("optional", FIELD, Args::Flag, presence(false, false), "field optional"),
    MarkerDef::new("k8s:required", FIELD, Args::Flag, presence(true, false), "field required"),
    MarkerDef::new("k8s:optional", FIELD, Args::Flag, presence(false, false), "field optional"),
    // field schema
    MarkerDef::new("nullable", FIELD, Args::Flag, schema(S::Value(V::Nullable)), "null is an allowed value"),
    MarkerDef::new("kubebuilder:default", FIELD, anon(ArgType::Any), schema(S::Value(V::Default)), "default value (marker syntax)"),
    MarkerDef::new("default", FIELD, anon(ArgType::Json), schema(S::Value(V::DefaultJson)), "default value (JSON)"),
    MarkerDef::new("kubebuilder:example", FIELD, anon(ArgType::Any), schema(S::Value(V::Example)), "example value"),
    MarkerDef::new("kubebuilder:validation:EmbeddedResource", FIELD, Args::Flag, schema(S::Object(O::EmbeddedResource)), "the value is an embedded Kubernetes object"),
    MarkerDef::new("kubebuilder:validation:Schemaless", FIELD, Args::Flag, Effect::Schemaless, "emit no schema for this field"),
    MarkerDef::new("k8s:immutable", FIELD, Args::Flag, schema(S::Rule(RuleMarker::Immutable)), "the field cannot change once set"),
    // type schema
    MarkerDef::new("kubebuilder:validation:AtMostOneOf", TYPE, anon(ArgType::StringList), schema(S::Rule(RuleMarker::AtMostOneOf)), "at most one of these fields may be set").repeatable(),
    MarkerDef::new("kubebuilder:validation:ExactlyOneOf", TYPE, anon(ArgType::StringList), schema(S::Rule(RuleMarker::ExactlyOneOf)), "exactly one of these fields must be set").repeatable(),
    MarkerDef::new("kubebuilder:validation:AtLeastOneOf", TYPE, anon(ArgType::StringList), schema(S::Rule(RuleMarker::AtLeastOneOf)), "at least one of these fields must be set").repeatable(),
    MarkerDef::new("k8s:enum", TYPE, Args::Flag, schema(S::Value(V::K8sEnum)), "the type is a string enum of its variants"),
    // type or field schema
    MarkerDef::new("kubebuilder:pruning:PreserveUnknownFields", TF, Args::Flag, schema(S::Object(O::PreserveUnknownFields)), "keep fields the schema does not declare"),
    MarkerDef::new("kubebuilder:title", TF, anon(ArgType::Any), schema(S::Value(V::Title)), "schema title"),
    MarkerDef::new("kubebuilder:externalDocs", TF, Args::Named(&[a("url", ArgType::String, false), a("description", ArgType::String, true)]), schema(S::Value(V::ExternalDocs)), "external documentation link"),
    // topology
    MarkerDef::new("listType", TF, anon(ArgType::String), schema(S::Topology(TopologyMarker::ListType)), "atomic, set or map"),
    MarkerDef::new("listMapKey", TF, anon(ArgType::String), schema(S::Topology(TopologyMarker::ListMapKey)), "a key of a listType=map list (repeatable)").repeatable(),
    MarkerDef::new("mapType", TF, anon(ArgType::String), schema(S::Topology(TopologyMarker::MapType)), "atomic or granular"),
    MarkerDef::new("structType", TF, anon(ArgType::String), schema(S::Topology(TopologyMarker::StructType)), "atomic or granular"),
    // CRD
    MarkerDef::new("kubebuilder:subresource:status", TYPE, Args::Flag, crd(CrdMarker::StatusSubresource), "enable the status subresource"),
    MarkerDef::new("kubebuilder:subresource:scale", TYPE, Args::Named(&[a("specpath", ArgType::String, false), a("statuspath", ArgType::String, false), a("selectorpath", ArgType::String, true)]), crd(CrdMarker::ScaleSubresource), "enable the scale subresource"),
    MarkerDef::new("kubebuilder:printcolumn", TYPE, Args::Named(&[a("name", ArgType::String, false), a("type", ArgType::String, false), a("JSONPath", ArgType::String, false), a("description", ArgType::String, true), a("format", ArgType::String, true), a("priority", ArgType::Int, true)]), crd(CrdMarker::PrintColumn), "an additional printer column").repeatable(),
    MarkerDef::new("kubebuilder:resource", TYPE, Args::Named(&[a("path", ArgType::String, true), a("shortName", ArgType::StringList, true), a("categories", ArgType::StringList, true), a("singular", ArgType::String, true), a("scope", ArgType::String, true)]), crd(CrdMarker::Resource), "resource names and scope"),
    MarkerDef::new("kubebuilder:storageversion", TYPE, Args::Flag, crd(CrdMarker::StorageVersion), "this version is the storage version"),
    MarkerDef::new("kubebuilder:skipversion", TYPE, Args::Flag, crd(CrdMarker::SkipVersion), "leave this version out of the CRD"),
    MarkerDef::new("kubebuilder:unservedversion", TYPE, Args::Flag, crd(CrdMarker::UnservedVersion), "this version is not served"),
    MarkerDef::new("kubebuilder:deprecatedversion", TYPE, Args::Named(&[a("warning", ArgType::String, true)]), crd(CrdMarker::DeprecatedVersion), "this version is deprecated"),
    MarkerDef::new("kubebuilder:metadata", TYPE, Args::Named(&[a("annotations", ArgType::StringList, true), a("labels", ArgType::StringList, true)]), crd(CrdMarker::Metadata), "annotations and labels of the CRD").repeatable(),
    MarkerDef::new("kubebuilder:selectablefield", TYPE, Args::Named(&[a("JSONPath", ArgType::String, false)]), crd(CrdMarker::SelectableField), "a field usable in field selectors").repeatable(),
    // RBAC: allowed on any doc comment under src/ (controller-gen reads it from any comment of a package).
    MarkerDef::new("kubebuilder:rbac", Targets::ANY, Args::Named(&[a("groups", ArgType::StringList, true), a("resources", ArgType::StringList, true), a("resourceNames", ArgType::StringList, true), a("verbs", ArgType::StringList, false), a("urls", ArgType::StringList, true), a("namespace", ArgType::String, true), a("roleName", ArgType::String, true)]), Effect::Rbac, "an RBAC rule for the manager role").repeatable(),
    // Webhooks: allowed on any doc comment under src/, like RBAC.
    MarkerDef::new("kubebuilder:webhook", Targets::ANY, Args::Named(WEBHOOK), Effect::Webhook(WebhookMarker::Webhook), "a mutating or validating webhook (config/webhook/manifests.yaml)").repeatable(),
    MarkerDef::new("kubebuilder:webhookconfiguration", Targets::ANY, Args::Named(&[a("mutating", ArgType::Bool, false), a("name", ArgType::String, true)]), Effect::Webhook(WebhookMarker::Configuration), "the name of the mutating or validating webhook configuration").repeatable(),
    // Root kinds.
    MarkerDef::new("kubebuilder:object:root", TYPE, optional(ArgType::Bool), Effect::Root, "a root kind (gets a CRD when it has metadata)"),
    // What #[derive(Kind)] reads: deep copy here, client-gen's tags below.
    MarkerDef::new("kubebuilder:object:generate", Targets::PACKAGE_TYPE, optional(ArgType::Bool), Effect::Derive(DeriveMarker::DeepCopy), "deep copy generation (on by default; `=false` turns it off)"),
    MarkerDef::new("k8s:deepcopy-gen", Targets::PACKAGE_TYPE, optional(ArgType::Raw), Effect::Derive(DeriveMarker::DeepCopy), "deep copy generation (deepcopy-gen's form)"),
    // Other generators' markers: accepted, not used.
    other("k8s:deepcopy-gen:interfaces", TYPE, "deepcopy generation").with_args(anon(ArgType::String)),
    other("kubebuilder:ac:generate", Targets::PACKAGE_TYPE, "apply configurations").with_args(optional(ArgType::Bool)),
    other("kubebuilder:ac:output:package", PKG, "apply configurations").with_args(anon(ArgType::String)),
    other("kubebuilder:scaffold", Targets::ANY, "scaffold insertion point").repeatable(),
    // client-gen's tags, for the derive's typed client.
    MarkerDef::new("genclient", TYPE, optional(ArgType::Raw), Effect::Derive(DeriveMarker::Genclient), "client-gen: generate a typed client"),
    MarkerDef::new("genclient:nonNamespaced", TYPE, Args::Flag, genclient(GenclientTag::NonNamespaced), "client-gen: cluster-scoped client"),
    MarkerDef::new("genclient:noVerbs", TYPE, Args::Flag, genclient(GenclientTag::NoVerbs), "client-gen: no client verbs"),
    MarkerDef::new("genclient:noStatus", TYPE, Args::Flag, genclient(GenclientTag::NoStatus), "client-gen: no UpdateStatus"),
    MarkerDef::new("genclient:readonly", TYPE, Args::Flag, genclient(GenclientTag::Readonly), "client-gen: read verbs only"),
    MarkerDef::new("genclient:onlyVerbs", TYPE, anon(ArgType::StringList), genclient(GenclientTag::OnlyVerbs), "client-gen: only these verbs"),
    MarkerDef::new("genclient:skipVerbs", TYPE, anon(ArgType::StringList), genclient(GenclientTag::SkipVerbs), "client-gen: all verbs but these"),
    MarkerDef::new("genclient:method", TYPE, anon(ArgType::Raw), genclient(GenclientTag::Method), "client-gen: an extra client method").repeatable(),
    // Kubernetes' other code generators: controller-gen ignores them; real APIs carry them.
    other("k8s:openapi-gen", Targets::ANY, "openapi-gen"),
    other("k8s:defaulter-gen", Targets::ANY, "defaulter-gen"),
    other("k8s:defaulter-gen-input", Targets::ANY, "defaulter-gen"),
    other("k8s:conversion-gen", Targets::ANY, "conversion-gen"),
    other("k8s:conversion-gen-external-types", Targets::ANY, "conversion-gen"),
    other("k8s:prerelease-lifecycle-gen", Targets::ANY, "prerelease-lifecycle-gen (`:introduced=`, `:deprecated=`, `:removed=`, `:replacement=`)"),
    other("groupGoName", PKG, "client-gen: Go name of the group").with_args(anon(ArgType::String)),
];

/// The registry: lookup by name, did-you-mean, and the full list (for docs and tests).
pub struct Registry {
    defs: Vec<MarkerDef>,
    /// Lowercased names, for did-you-mean.
    lower: Vec<String>,
    by_name: HashMap<&'static str, usize>,
}

fn leak(s: String) -> &'static str {
    // The registry is built once per process (OnceLock), so these few strings live as long as it does.
    Box::leak(s.into_boxed_str())
}

impl Registry {
    fn build() -> Registry {
        let mut defs: Vec<MarkerDef> = Vec::new();
        for v in VALIDATION {
            defs.push(MarkerDef {
                name: leak(format!("kubebuilder:validation:{}", v.short)),
                targets: TF,
                args: v.args,
                effect: Effect::Schema(v.effect),
                repeatable: v.repeatable,
                help: v.help,
            });
            defs.push(MarkerDef {
                name: leak(format!("kubebuilder:validation:items:{}", v.short)),
                targets: TF,
                args: v.args,
                effect: Effect::ItemsSchema(v.effect),
                repeatable: v.repeatable,
                help: "the same, for the items of a list",
            });
        }
        defs.extend_from_slice(BASE);
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
    /// `k8s:`), known or not. Other `+words` may belong to other tools.
    pub fn owns(&self, text: &str) -> bool {
        let name = text
            .split(|c: char| c == '=' || c.is_whitespace())
            .next()
            .unwrap_or(text);
        self.lookup(text).is_some()
            || self.by_name(name).is_some()
            || ["kubebuilder:", "k8s:"]
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
            assert_eq!(items.effect, Effect::ItemsSchema(v.effect));
        }
    }
}
