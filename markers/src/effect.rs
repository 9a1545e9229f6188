//! What each marker does. Every entry of the vocabulary (registry.rs) names exactly one [`Effect`], and each
//! consumer matches on the effects it owns without a catch-all arm: a new marker whose effect nobody applies
//! does not compile, instead of parsing cleanly and doing nothing.
//!
//! The enums are grouped by what they change, as controller-tools groups its marker types: package settings,
//! presence, schema (numbers, strings, lists, objects, values, CEL rules, topology), the CRD around the schema,
//! RBAC, webhooks, and what `#[derive(Kind)]` reads. rkb-manifests applies the schema and CRD effects
//! (manifests/src/schema_markers/, manifests/src/crd_markers.rs); rkb-derive reads [`DeriveMarker`].

/// What a marker does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
    Rbac,
    /// A webhook, or the name of a webhook configuration (config/webhook/manifests.yaml).
    Webhook(WebhookMarker),
    /// Makes the type a root kind (`+kubebuilder:object:root`).
    Root,
    /// Read by `#[derive(Kind)]` only.
    Derive(DeriveMarker),
    /// Another generator's marker (apply configurations, openapi-gen, ...): accepted, unused.
    Ignored,
}

impl Effect {
    /// Whether rkb does anything with the marker (for docs and tests).
    pub fn is_used(self) -> bool {
        self != Effect::Ignored
    }
}

/// Settings of a version module (`//!` markers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PackageMarker {
    /// `+groupName`: the API group.
    GroupName,
    /// `+versionName`: the version, when it is not the module's name.
    VersionName,
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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SchemaMarker {
    Number(NumberMarker),
    String(StringMarker),
    List(ListMarker),
    Object(ObjectMarker),
    Value(ValueMarker),
    Rule(RuleMarker),
    Topology(TopologyMarker),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NumberMarker {
    Maximum,
    Minimum,
    MultipleOf,
    ExclusiveMaximum,
    ExclusiveMinimum,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StringMarker {
    MaxLength,
    MinLength,
    Pattern,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListMarker {
    MaxItems,
    MinItems,
    UniqueItems,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjectMarker {
    MaxProperties,
    MinProperties,
    /// `x-kubernetes-preserve-unknown-fields` (XPreserveUnknownFields, pruning:PreserveUnknownFields).
    PreserveUnknownFields,
    /// `x-kubernetes-embedded-resource` (XEmbeddedResource, EmbeddedResource).
    EmbeddedResource,
}

/// What a value is or may be, whatever its type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueMarker {
    Enum,
    Format,
    Type,
    IntOrString,
    Nullable,
    /// `+kubebuilder:default` (marker syntax).
    Default,
    /// `+default` (JSON).
    DefaultJson,
    Example,
    Title,
    ExternalDocs,
    /// `+k8s:enum`: a string enum of the type's variants.
    K8sEnum,
}

/// CEL rules (`x-kubernetes-validations`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleMarker {
    XValidation,
    AtMostOneOf,
    ExactlyOneOf,
    AtLeastOneOf,
    /// `+k8s:immutable`.
    Immutable,
}

/// How lists and maps merge under server-side apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TopologyMarker {
    ListType,
    ListMapKey,
    MapType,
    StructType,
}

/// Settings of the CRD around a root kind's schema.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CrdMarker {
    StatusSubresource,
    ScaleSubresource,
    PrintColumn,
    Resource,
    StorageVersion,
    SkipVersion,
    UnservedVersion,
    DeprecatedVersion,
    Metadata,
    SelectableField,
}

/// controller-gen's `webhook` generator's markers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WebhookMarker {
    /// `+kubebuilder:webhook`: one mutating or validating webhook.
    Webhook,
    /// `+kubebuilder:webhookconfiguration`: the name of the mutating or the validating configuration.
    Configuration,
}

/// Markers `#[derive(Kind)]` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeriveMarker {
    /// `+kubebuilder:object:generate`, `+k8s:deepcopy-gen`: deep copy on or off.
    DeepCopy,
    /// `+genclient`: generate the typed client.
    Genclient,
    /// `+genclient:<tag>`: shapes the typed client.
    GenclientTag(GenclientTag),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GenclientTag {
    NonNamespaced,
    NoVerbs,
    NoStatus,
    Readonly,
    OnlyVerbs,
    SkipVerbs,
    Method,
}
