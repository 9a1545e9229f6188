//! What each marker does, with the values it was written with. Every entry of the vocabulary (registry.rs) builds
//! exactly one [`Effect`], and each consumer matches on the effects it owns without a catch-all arm: a new marker
//! whose effect nobody applies does not compile, instead of parsing cleanly and doing nothing.
//!
//! Each effect carries its arguments typed (`Maximum(f64)`, [`PrintColumn`], [`WebhookArgs`], [`RbacRule`]),
//! filled by the parser from the argument names the registry line (or the struct's `read`, below) asks for: an
//! argument's name is written once, there, and the consumer reads a field. [`Value`] is left only where the marker
//! takes any value (`default`, `example`, `title`, `Enum` items) and for raw text.
//!
//! The enums are grouped by what they change, as controller-tools groups its marker types: package settings,
//! presence, schema (numbers, strings, lists, objects, values, CEL rules, topology), the CRD around the schema,
//! RBAC, webhooks, and what `#[derive(Kind)]` reads. rkb-manifests applies the schema and CRD effects
//! (manifests/src/schema/markers/, manifests/src/plan/crd_markers.rs); rkb-derive reads [`DeriveMarker`].

use crate::args::ArgReader;
use crate::value::Value;

/// What a marker does.
#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// A setting of the version module it is in.
    Package(PackageMarker),
    /// Whether a field is required.
    Presence(Presence),
    /// Changes the schema of the field or type it is on.
    Schema(SchemaMarker),
    /// The same change, on the items of the list it is on (`+kubebuilder:validation:items:<Name>`).
    ItemsSchema(SchemaMarker),
    /// The field gets an empty schema (`+kubebuilder:validation:Schemaless`).
    Schemaless,
    /// A setting of the CRD (or of one of its versions) of the root kind it is on.
    Crd(CrdMarker),
    /// A rule of the manager's role (config/rbac/role.yaml).
    Rbac(RbacRule),
    /// A webhook, or the name of a webhook configuration (config/webhook/manifests.yaml).
    Webhook(WebhookMarker),
    /// `+kubebuilder:object:root`: whether the type is a root kind (`=false` says it is not).
    Root(bool),
    /// Read by `#[derive(Kind)]` only.
    Derive(DeriveMarker),
    /// `+rkb:compat:allow`: a breaking change of the CRD, made on purpose (read by `rkb manifests --check`).
    Compat(CompatAllow),
    /// Another generator's marker (apply configurations, openapi-gen, ...): accepted, unused.
    Ignored,
}

/// Which group of [`Effect`] a marker has, without its values: what the vocabulary says of a marker before one is
/// parsed (a `//` comment's marker is never parsed, yet its hint depends on whether it is a package marker).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    Package,
    Presence,
    Schema,
    ItemsSchema,
    Schemaless,
    Crd,
    Rbac,
    Webhook,
    Root,
    Derive,
    Compat,
    Ignored,
}

impl Effect {
    pub fn family(&self) -> Family {
        match self {
            Effect::Package(_) => Family::Package,
            Effect::Presence(_) => Family::Presence,
            Effect::Schema(_) => Family::Schema,
            Effect::ItemsSchema(_) => Family::ItemsSchema,
            Effect::Schemaless => Family::Schemaless,
            Effect::Crd(_) => Family::Crd,
            Effect::Rbac(_) => Family::Rbac,
            Effect::Webhook(_) => Family::Webhook,
            Effect::Root(_) => Family::Root,
            Effect::Derive(_) => Family::Derive,
            Effect::Compat(_) => Family::Compat,
            Effect::Ignored => Family::Ignored,
        }
    }
}

impl Family {
    /// Whether rkb does anything with the marker (for docs and tests).
    pub fn is_used(self) -> bool {
        self != Family::Ignored
    }
}

/// `+rkb:compat:allow`: acknowledges one breaking change of the CRD, so `rkb manifests --check` lets it pass.
/// It names the rule (`field-removed`, as rkb_manifests::compat names it: checked there, which knows the rules)
/// and why; `field` names a removed property (on the struct that lost it), `version` the API version of a
/// stored or served version removed (on the kind), `crd` a CRD no longer generated (`<plural>.<group>`, on any
/// type).
#[derive(Clone, Debug, PartialEq)]
pub struct CompatAllow {
    pub rule: String,
    pub reason: String,
    pub field: Option<String>,
    pub version: Option<String>,
    pub crd: Option<String>,
}

impl CompatAllow {
    pub(crate) fn read(a: &mut ArgReader) -> CompatAllow {
        CompatAllow {
            rule: a.string("rule"),
            reason: a.string("reason"),
            field: a.opt_string("field"),
            version: a.opt_string("version"),
            crd: a.opt_string("crd"),
        }
    }
}

/// Settings of a version module (`//!` markers).
#[derive(Clone, Debug, PartialEq)]
pub enum PackageMarker {
    /// `+groupName`: the API group (a bare `+groupName` is the empty group, as in controller-gen).
    GroupName(Option<String>),
    /// `+versionName`: the version, when it is not the module's name.
    VersionName(String),
    /// `+kubebuilder:skip`: not an API version.
    Skip,
}

/// A field's presence marker. controller-gen lets the `kubebuilder:validation:` forms win over the short ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Presence {
    pub required: bool,
    /// The `kubebuilder:validation:` form (on a package, `Optional` makes every field optional by default).
    pub decisive: bool,
}

/// A change to an OpenAPI schema, grouped by the kind of value it constrains.
#[derive(Clone, Debug, PartialEq)]
pub enum SchemaMarker {
    Number(NumberMarker),
    String(StringMarker),
    List(ListMarker),
    Object(ObjectMarker),
    Value(ValueMarker),
    Rule(RuleMarker),
    Topology(TopologyMarker),
}

#[derive(Clone, Debug, PartialEq)]
pub enum NumberMarker {
    Maximum(f64),
    Minimum(f64),
    MultipleOf(f64),
    ExclusiveMaximum(bool),
    ExclusiveMinimum(bool),
}

#[derive(Clone, Debug, PartialEq)]
pub enum StringMarker {
    MaxLength(i64),
    MinLength(i64),
    Pattern(String),
}

#[derive(Clone, Debug, PartialEq)]
pub enum ListMarker {
    MaxItems(i64),
    MinItems(i64),
    UniqueItems(bool),
}

#[derive(Clone, Debug, PartialEq)]
pub enum ObjectMarker {
    MaxProperties(i64),
    MinProperties(i64),
    /// `x-kubernetes-preserve-unknown-fields` (XPreserveUnknownFields, pruning:PreserveUnknownFields).
    PreserveUnknownFields,
    /// `x-kubernetes-embedded-resource` (XEmbeddedResource, EmbeddedResource).
    EmbeddedResource,
}

/// What a value is or may be, whatever its type.
#[derive(Clone, Debug, PartialEq)]
pub enum ValueMarker {
    /// The allowed values (never empty: the parser refuses an empty list).
    Enum(Vec<Value>),
    Format(String),
    /// `""` removes the type (used with XIntOrString).
    Type(String),
    IntOrString,
    Nullable,
    /// `+kubebuilder:default` (marker syntax).
    Default(Value),
    /// `+default` (JSON); `null` for `+default=ref(...)`, which controller-gen ignores.
    DefaultJson(serde_json::Value),
    Example(Value),
    /// Any value; only a string fits (the schema's title is a string).
    Title(Value),
    ExternalDocs(ExternalDocs),
    /// `+k8s:enum`: a string enum of the type's variants.
    K8sEnum,
}

/// `+kubebuilder:externalDocs`.
#[derive(Clone, Debug, PartialEq)]
pub struct ExternalDocs {
    pub url: String,
    pub description: Option<String>,
}

impl ExternalDocs {
    pub(crate) fn read(a: &mut ArgReader) -> ExternalDocs {
        ExternalDocs {
            url: a.string("url"),
            description: a.opt_string("description"),
        }
    }
}

/// CEL rules (`x-kubernetes-validations`).
#[derive(Clone, Debug, PartialEq)]
pub enum RuleMarker {
    XValidation(XValidation),
    /// The OneOf family: the JSON names of the fields they count.
    AtMostOneOf(Vec<String>),
    ExactlyOneOf(Vec<String>),
    AtLeastOneOf(Vec<String>),
    /// `+k8s:immutable`.
    Immutable,
}

impl RuleMarker {
    /// The fields a OneOf marker counts; `None` for the other rules.
    pub fn one_of_fields(&self) -> Option<&[String]> {
        match self {
            RuleMarker::AtMostOneOf(f)
            | RuleMarker::ExactlyOneOf(f)
            | RuleMarker::AtLeastOneOf(f) => Some(f),
            RuleMarker::XValidation(_) | RuleMarker::Immutable => None,
        }
    }
}

/// `+kubebuilder:validation:XValidation`.
#[derive(Clone, Debug, PartialEq)]
pub struct XValidation {
    pub rule: String,
    pub message: Option<String>,
    pub message_expression: Option<String>,
    pub reason: Option<String>,
    pub field_path: Option<String>,
    pub optional_old_self: Option<bool>,
}

impl XValidation {
    pub(crate) fn read(a: &mut ArgReader) -> XValidation {
        XValidation {
            rule: a.string("rule"),
            message: a.opt_string("message"),
            message_expression: a.opt_string("messageExpression"),
            reason: a.opt_string("reason"),
            field_path: a.opt_string("fieldPath"),
            optional_old_self: a.opt_bool("optionalOldSelf"),
        }
    }
}

/// How lists and maps merge under server-side apply; each value is checked where it is applied.
#[derive(Clone, Debug, PartialEq)]
pub enum TopologyMarker {
    ListType(String),
    ListMapKey(String),
    MapType(String),
    StructType(String),
}

/// Settings of the CRD around a root kind's schema.
#[derive(Clone, Debug, PartialEq)]
pub enum CrdMarker {
    StatusSubresource,
    ScaleSubresource(Scale),
    PrintColumn(PrintColumn),
    Resource(Resource),
    StorageVersion,
    SkipVersion,
    UnservedVersion,
    DeprecatedVersion {
        warning: Option<String>,
    },
    /// `key=value` annotations and `key=value` (or `key`) labels of the CRD.
    Metadata {
        annotations: Vec<String>,
        labels: Vec<String>,
    },
    SelectableField {
        json_path: String,
    },
}

/// `+kubebuilder:subresource:scale`.
#[derive(Clone, Debug, PartialEq)]
pub struct Scale {
    pub spec_path: String,
    pub status_path: String,
    pub selector_path: Option<String>,
}

impl Scale {
    pub(crate) fn read(a: &mut ArgReader) -> Scale {
        Scale {
            spec_path: a.string("specpath"),
            status_path: a.string("statuspath"),
            selector_path: a.opt_string("selectorpath"),
        }
    }
}

/// `+kubebuilder:printcolumn`.
#[derive(Clone, Debug, PartialEq)]
pub struct PrintColumn {
    pub name: String,
    pub type_: String,
    pub json_path: String,
    pub description: Option<String>,
    pub format: Option<String>,
    pub priority: Option<i64>,
}

impl PrintColumn {
    pub(crate) fn read(a: &mut ArgReader) -> PrintColumn {
        PrintColumn {
            name: a.string("name"),
            type_: a.string("type"),
            json_path: a.string("JSONPath"),
            description: a.opt_string("description"),
            format: a.opt_string("format"),
            priority: a.opt_int("priority"),
        }
    }
}

/// `+kubebuilder:resource`.
#[derive(Clone, Debug, PartialEq)]
pub struct Resource {
    pub path: Option<String>,
    pub short_names: Vec<String>,
    pub categories: Vec<String>,
    pub singular: Option<String>,
    pub scope: Option<String>,
}

impl Resource {
    pub(crate) fn read(a: &mut ArgReader) -> Resource {
        Resource {
            path: a.opt_string("path"),
            short_names: a.opt_strings("shortName"),
            categories: a.opt_strings("categories"),
            singular: a.opt_string("singular"),
            scope: a.opt_string("scope"),
        }
    }
}

/// `+kubebuilder:rbac`: one rule of the manager's role (optional lists are empty when not given).
#[derive(Clone, Debug, PartialEq)]
pub struct RbacRule {
    pub groups: Vec<String>,
    pub resources: Vec<String>,
    pub resource_names: Vec<String>,
    pub verbs: Vec<String>,
    pub urls: Vec<String>,
    pub namespace: Option<String>,
    pub role_name: Option<String>,
}

impl RbacRule {
    pub(crate) fn read(a: &mut ArgReader) -> RbacRule {
        RbacRule {
            groups: a.opt_strings("groups"),
            resources: a.opt_strings("resources"),
            resource_names: a.opt_strings("resourceNames"),
            verbs: a.strings("verbs"),
            urls: a.opt_strings("urls"),
            namespace: a.opt_string("namespace"),
            role_name: a.opt_string("roleName"),
        }
    }
}

/// controller-gen's `webhook` generator's markers.
#[derive(Clone, Debug, PartialEq)]
pub enum WebhookMarker {
    /// `+kubebuilder:webhook`: one mutating or validating webhook (boxed: its eighteen arguments would make every
    /// effect as large).
    Webhook(Box<WebhookArgs>),
    /// `+kubebuilder:webhookconfiguration`: the name of the mutating or the validating configuration.
    Configuration {
        mutating: bool,
        name: Option<String>,
    },
}

/// `+kubebuilder:webhook`'s arguments (optional lists are empty when not given).
#[derive(Clone, Debug, PartialEq)]
pub struct WebhookArgs {
    pub webhook_versions: Vec<String>,
    pub failure_policy: String,
    pub match_policy: Option<String>,
    pub side_effects: Option<String>,
    pub timeout_seconds: Option<i64>,
    pub groups: Vec<String>,
    pub resources: Vec<String>,
    pub verbs: Vec<String>,
    pub versions: Vec<String>,
    pub name: String,
    pub service_name: Option<String>,
    pub service_namespace: Option<String>,
    pub path: Option<String>,
    pub service_port: Option<i64>,
    pub admission_review_versions: Vec<String>,
    pub reinvocation_policy: Option<String>,
    pub url: Option<String>,
    pub mutating: bool,
}

impl WebhookArgs {
    /// In controller-gen's order of the arguments (its messages list them so).
    pub(crate) fn read(a: &mut ArgReader) -> WebhookArgs {
        WebhookArgs {
            webhook_versions: a.opt_strings("webhookVersions"),
            failure_policy: a.string("failurePolicy"),
            match_policy: a.opt_string("matchPolicy"),
            side_effects: a.opt_string("sideEffects"),
            timeout_seconds: a.opt_int("timeoutSeconds"),
            groups: a.strings("groups"),
            resources: a.strings("resources"),
            verbs: a.strings("verbs"),
            versions: a.strings("versions"),
            name: a.string("name"),
            service_name: a.opt_string("serviceName"),
            service_namespace: a.opt_string("serviceNamespace"),
            path: a.opt_string("path"),
            service_port: a.opt_int("servicePort"),
            admission_review_versions: a.strings("admissionReviewVersions"),
            reinvocation_policy: a.opt_string("reinvocationPolicy"),
            url: a.opt_string("url"),
            mutating: a.bool("mutating"),
        }
    }
}

/// Markers `#[derive(Kind)]` reads.
#[derive(Clone, Debug, PartialEq)]
pub enum DeriveMarker {
    /// `+kubebuilder:object:generate`, `+k8s:deepcopy-gen`: deep copy on (`true`) or off.
    DeepCopy(bool),
    /// `+genclient`: generate the typed client (a value, which client-gen does not take, is kept to be refused).
    Genclient(Option<String>),
    /// `+genclient:<tag>`: shapes the typed client.
    GenclientTag(GenclientTag),
}

#[derive(Clone, Debug, PartialEq)]
pub enum GenclientTag {
    NonNamespaced,
    NoVerbs,
    NoStatus,
    Readonly,
    OnlyVerbs(Vec<String>),
    SkipVerbs(Vec<String>),
    /// client-gen's own `Name,key=value,...` list, as written (the derive reads it).
    Method(String),
}
