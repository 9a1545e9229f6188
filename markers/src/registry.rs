//! The marker vocabulary of controller-gen v0.21.0 (crd, rbac, and the markers other generators own that
//! rkb accepts and ignores), with argument names, types, required-ness and the targets each may describe.

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

/// What rkb does with a marker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Use {
    /// Used to generate CRDs or RBAC.
    Used,
    /// Recognised (another generator's, e.g. deepcopy or webhook) and otherwise ignored.
    Ignored,
}

/// One marker of the vocabulary.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MarkerDef {
    pub name: &'static str,
    pub targets: Targets,
    pub args: Args,
    pub usage: Use,
    pub help: &'static str,
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

const XVALIDATION: &[ArgDef] = &[
    a("rule", ArgType::String, false),
    a("message", ArgType::String, true),
    a("messageExpression", ArgType::String, true),
    a("reason", ArgType::String, true),
    a("fieldPath", ArgType::String, true),
    a("optionalOldSelf", ArgType::Bool, true),
];

/// The validation markers controller-gen registers for fields and types, and again under `items:`.
const VALIDATION: &[(&str, Args, &str)] = &[
    (
        "Maximum",
        anon(ArgType::Number),
        "maximum value of a number",
    ),
    (
        "Minimum",
        anon(ArgType::Number),
        "minimum value of a number",
    ),
    (
        "ExclusiveMaximum",
        anon(ArgType::Bool),
        "whether Maximum is exclusive",
    ),
    (
        "ExclusiveMinimum",
        anon(ArgType::Bool),
        "whether Minimum is exclusive",
    ),
    (
        "MultipleOf",
        anon(ArgType::Number),
        "the number must be a multiple of this",
    ),
    (
        "MinProperties",
        anon(ArgType::Int),
        "minimum number of properties of an object",
    ),
    (
        "MaxProperties",
        anon(ArgType::Int),
        "maximum number of properties of an object",
    ),
    (
        "MaxLength",
        anon(ArgType::Int),
        "maximum length of a string",
    ),
    (
        "MinLength",
        anon(ArgType::Int),
        "minimum length of a string",
    ),
    (
        "Pattern",
        anon(ArgType::String),
        "regular expression a string must match",
    ),
    ("MaxItems", anon(ArgType::Int), "maximum length of a list"),
    ("MinItems", anon(ArgType::Int), "minimum length of a list"),
    (
        "UniqueItems",
        anon(ArgType::Bool),
        "list items must be unique",
    ),
    ("Enum", anon(ArgType::AnyList), "the allowed values"),
    (
        "Format",
        anon(ArgType::String),
        "OpenAPI format (date-time, int32, ...)",
    ),
    ("Type", anon(ArgType::String), "overrides the OpenAPI type"),
    (
        "XPreserveUnknownFields",
        Args::Flag,
        "keep fields the schema does not declare",
    ),
    (
        "XEmbeddedResource",
        Args::Flag,
        "the value is an embedded Kubernetes object",
    ),
    (
        "XIntOrString",
        Args::Flag,
        "the value is an int or a string",
    ),
    (
        "XValidation",
        Args::Named(XVALIDATION),
        "a CEL validation rule",
    ),
];

const TF: Targets = Targets::TYPE_FIELD;

/// Everything except the generated validation/items variants.
const BASE: &[MarkerDef] = &[
    // package
    MarkerDef {
        name: "groupName",
        targets: Targets::PACKAGE,
        args: Args::Anonymous {
            ty: ArgType::String,
            optional: true,
        },
        usage: Use::Used,
        help: "API group of the package",
    },
    MarkerDef {
        name: "versionName",
        targets: Targets::PACKAGE,
        args: anon(ArgType::String),
        usage: Use::Used,
        help: "API version of the package (default: the module name)",
    },
    MarkerDef {
        name: "kubebuilder:skip",
        targets: Targets::PACKAGE,
        args: Args::Flag,
        usage: Use::Used,
        help: "not an API version: no CRD from this package",
    },
    MarkerDef {
        name: "kubebuilder:validation:Optional",
        targets: Targets::PACKAGE_FIELD,
        args: Args::Flag,
        usage: Use::Used,
        help: "field optional (on a package: every field optional by default)",
    },
    MarkerDef {
        name: "kubebuilder:validation:Required",
        targets: Targets::PACKAGE_FIELD,
        args: Args::Flag,
        usage: Use::Used,
        help: "field required",
    },
    // field-only
    MarkerDef {
        name: "required",
        targets: Targets::FIELD,
        args: Args::Flag,
        usage: Use::Used,
        help: "field required",
    },
    MarkerDef {
        name: "optional",
        targets: Targets::FIELD,
        args: Args::Flag,
        usage: Use::Used,
        help: "field optional",
    },
    MarkerDef {
        name: "k8s:required",
        targets: Targets::FIELD,
        args: Args::Flag,
        usage: Use::Used,
        help: "field required",
    },
    MarkerDef {
        name: "k8s:optional",
        targets: Targets::FIELD,
        args: Args::Flag,
        usage: Use::Used,
        help: "field optional",
    },
    MarkerDef {
        name: "nullable",
        targets: Targets::FIELD,
        args: Args::Flag,
        usage: Use::Used,
        help: "null is an allowed value",
    },
    MarkerDef {
        name: "kubebuilder:default",
        targets: Targets::FIELD,
        args: anon(ArgType::Any),
        usage: Use::Used,
        help: "default value (marker syntax)",
    },
    MarkerDef {
        name: "default",
        targets: Targets::FIELD,
        args: anon(ArgType::Json),
        usage: Use::Used,
        help: "default value (JSON)",
    },
    MarkerDef {
        name: "kubebuilder:example",
        targets: Targets::FIELD,
        args: anon(ArgType::Any),
        usage: Use::Used,
        help: "example value",
    },
    MarkerDef {
        name: "kubebuilder:validation:EmbeddedResource",
        targets: Targets::FIELD,
        args: Args::Flag,
        usage: Use::Used,
        help: "the value is an embedded Kubernetes object",
    },
    MarkerDef {
        name: "kubebuilder:validation:Schemaless",
        targets: Targets::FIELD,
        args: Args::Flag,
        usage: Use::Used,
        help: "emit no schema for this field",
    },
    MarkerDef {
        name: "k8s:immutable",
        targets: Targets::FIELD,
        args: Args::Flag,
        usage: Use::Used,
        help: "the field cannot change once set",
    },
    // type-only
    MarkerDef {
        name: "kubebuilder:validation:AtMostOneOf",
        targets: Targets::TYPE,
        args: anon(ArgType::StringList),
        usage: Use::Used,
        help: "at most one of these fields may be set",
    },
    MarkerDef {
        name: "kubebuilder:validation:ExactlyOneOf",
        targets: Targets::TYPE,
        args: anon(ArgType::StringList),
        usage: Use::Used,
        help: "exactly one of these fields must be set",
    },
    MarkerDef {
        name: "kubebuilder:validation:AtLeastOneOf",
        targets: Targets::TYPE,
        args: anon(ArgType::StringList),
        usage: Use::Used,
        help: "at least one of these fields must be set",
    },
    MarkerDef {
        name: "k8s:enum",
        targets: Targets::TYPE,
        args: Args::Flag,
        usage: Use::Used,
        help: "the type is a string enum of its variants",
    },
    // validation-ish
    MarkerDef {
        name: "kubebuilder:pruning:PreserveUnknownFields",
        targets: TF,
        args: Args::Flag,
        usage: Use::Used,
        help: "keep fields the schema does not declare",
    },
    MarkerDef {
        name: "kubebuilder:title",
        targets: TF,
        args: anon(ArgType::Any),
        usage: Use::Used,
        help: "schema title",
    },
    MarkerDef {
        name: "kubebuilder:externalDocs",
        targets: TF,
        args: Args::Named(&[
            a("url", ArgType::String, false),
            a("description", ArgType::String, true),
        ]),
        usage: Use::Used,
        help: "external documentation link",
    },
    // topology
    MarkerDef {
        name: "listType",
        targets: TF,
        args: anon(ArgType::String),
        usage: Use::Used,
        help: "atomic, set or map",
    },
    MarkerDef {
        name: "listMapKey",
        targets: TF,
        args: anon(ArgType::String),
        usage: Use::Used,
        help: "a key of a listType=map list (repeatable)",
    },
    MarkerDef {
        name: "mapType",
        targets: TF,
        args: anon(ArgType::String),
        usage: Use::Used,
        help: "atomic or granular",
    },
    MarkerDef {
        name: "structType",
        targets: TF,
        args: anon(ArgType::String),
        usage: Use::Used,
        help: "atomic or granular",
    },
    // CRD
    MarkerDef {
        name: "kubebuilder:subresource:status",
        targets: Targets::TYPE,
        args: Args::Flag,
        usage: Use::Used,
        help: "enable the status subresource",
    },
    MarkerDef {
        name: "kubebuilder:subresource:scale",
        targets: Targets::TYPE,
        args: Args::Named(&[
            a("specpath", ArgType::String, false),
            a("statuspath", ArgType::String, false),
            a("selectorpath", ArgType::String, true),
        ]),
        usage: Use::Used,
        help: "enable the scale subresource",
    },
    MarkerDef {
        name: "kubebuilder:printcolumn",
        targets: Targets::TYPE,
        args: Args::Named(&[
            a("name", ArgType::String, false),
            a("type", ArgType::String, false),
            a("JSONPath", ArgType::String, false),
            a("description", ArgType::String, true),
            a("format", ArgType::String, true),
            a("priority", ArgType::Int, true),
        ]),
        usage: Use::Used,
        help: "an additional printer column",
    },
    MarkerDef {
        name: "kubebuilder:resource",
        targets: Targets::TYPE,
        args: Args::Named(&[
            a("path", ArgType::String, true),
            a("shortName", ArgType::StringList, true),
            a("categories", ArgType::StringList, true),
            a("singular", ArgType::String, true),
            a("scope", ArgType::String, true),
        ]),
        usage: Use::Used,
        help: "resource names and scope",
    },
    MarkerDef {
        name: "kubebuilder:storageversion",
        targets: Targets::TYPE,
        args: Args::Flag,
        usage: Use::Used,
        help: "this version is the storage version",
    },
    MarkerDef {
        name: "kubebuilder:skipversion",
        targets: Targets::TYPE,
        args: Args::Flag,
        usage: Use::Used,
        help: "leave this version out of the CRD",
    },
    MarkerDef {
        name: "kubebuilder:unservedversion",
        targets: Targets::TYPE,
        args: Args::Flag,
        usage: Use::Used,
        help: "this version is not served",
    },
    MarkerDef {
        name: "kubebuilder:deprecatedversion",
        targets: Targets::TYPE,
        args: Args::Named(&[a("warning", ArgType::String, true)]),
        usage: Use::Used,
        help: "this version is deprecated",
    },
    MarkerDef {
        name: "kubebuilder:metadata",
        targets: Targets::TYPE,
        args: Args::Named(&[
            a("annotations", ArgType::StringList, true),
            a("labels", ArgType::StringList, true),
        ]),
        usage: Use::Used,
        help: "annotations and labels of the CRD",
    },
    MarkerDef {
        name: "kubebuilder:selectablefield",
        targets: Targets::TYPE,
        args: Args::Named(&[a("JSONPath", ArgType::String, false)]),
        usage: Use::Used,
        help: "a field usable in field selectors",
    },
    // RBAC: allowed on any doc comment under src/ (controller-gen reads it from any comment of a package).
    MarkerDef {
        name: "kubebuilder:rbac",
        targets: Targets::ANY,
        args: Args::Named(&[
            a("groups", ArgType::StringList, true),
            a("resources", ArgType::StringList, true),
            a("resourceNames", ArgType::StringList, true),
            a("verbs", ArgType::StringList, false),
            a("urls", ArgType::StringList, true),
            a("namespace", ArgType::String, true),
            a("roleName", ArgType::String, true),
        ]),
        usage: Use::Used,
        help: "an RBAC rule for the manager role",
    },
    // Root kinds.
    MarkerDef {
        name: "kubebuilder:object:root",
        targets: Targets::TYPE,
        args: Args::Anonymous {
            ty: ArgType::Bool,
            optional: true,
        },
        usage: Use::Used,
        help: "a root kind (gets a CRD when it has metadata)",
    },
    // Other generators' markers: accepted, not used.
    MarkerDef {
        name: "kubebuilder:object:generate",
        targets: Targets::PACKAGE_TYPE,
        args: Args::Anonymous {
            ty: ArgType::Bool,
            optional: true,
        },
        usage: Use::Ignored,
        help: "deepcopy generation (derive does this in rkb)",
    },
    MarkerDef {
        name: "k8s:deepcopy-gen",
        targets: Targets::PACKAGE_TYPE,
        args: Args::Anonymous {
            ty: ArgType::Raw,
            optional: true,
        },
        usage: Use::Ignored,
        help: "deepcopy generation",
    },
    MarkerDef {
        name: "k8s:deepcopy-gen:interfaces",
        targets: Targets::TYPE,
        args: anon(ArgType::String),
        usage: Use::Ignored,
        help: "deepcopy generation",
    },
    MarkerDef {
        name: "kubebuilder:webhook",
        targets: Targets::ANY,
        args: Args::Anonymous {
            ty: ArgType::Raw,
            optional: true,
        },
        usage: Use::Ignored,
        help: "webhook configuration (not generated by rkb manifests)",
    },
    MarkerDef {
        name: "kubebuilder:webhookconfiguration",
        targets: Targets::ANY,
        args: Args::Anonymous {
            ty: ArgType::Raw,
            optional: true,
        },
        usage: Use::Ignored,
        help: "webhook configuration",
    },
    MarkerDef {
        name: "kubebuilder:ac:generate",
        targets: Targets::PACKAGE_TYPE,
        args: Args::Anonymous {
            ty: ArgType::Bool,
            optional: true,
        },
        usage: Use::Ignored,
        help: "apply configurations",
    },
    MarkerDef {
        name: "kubebuilder:ac:output:package",
        targets: Targets::PACKAGE,
        args: anon(ArgType::String),
        usage: Use::Ignored,
        help: "apply configurations",
    },
    MarkerDef {
        name: "kubebuilder:scaffold",
        targets: Targets::ANY,
        args: Args::Anonymous {
            ty: ArgType::Raw,
            optional: true,
        },
        usage: Use::Ignored,
        help: "scaffold insertion point",
    },
    MarkerDef {
        name: "genclient",
        targets: Targets::TYPE,
        args: Args::Anonymous {
            ty: ArgType::Raw,
            optional: true,
        },
        usage: Use::Ignored,
        help: "client-gen",
    },
    MarkerDef {
        name: "genclient:nonNamespaced",
        targets: Targets::TYPE,
        args: Args::Flag,
        usage: Use::Ignored,
        help: "client-gen: cluster-scoped client",
    },
    MarkerDef {
        name: "genclient:noVerbs",
        targets: Targets::TYPE,
        args: Args::Flag,
        usage: Use::Ignored,
        help: "client-gen: no client verbs",
    },
    MarkerDef {
        name: "genclient:noStatus",
        targets: Targets::TYPE,
        args: Args::Flag,
        usage: Use::Ignored,
        help: "client-gen: no UpdateStatus",
    },
    MarkerDef {
        name: "genclient:readonly",
        targets: Targets::TYPE,
        args: Args::Flag,
        usage: Use::Ignored,
        help: "client-gen: read verbs only",
    },
    MarkerDef {
        name: "genclient:onlyVerbs",
        targets: Targets::TYPE,
        args: anon(ArgType::StringList),
        usage: Use::Ignored,
        help: "client-gen: only these verbs",
    },
    MarkerDef {
        name: "genclient:skipVerbs",
        targets: Targets::TYPE,
        args: anon(ArgType::StringList),
        usage: Use::Ignored,
        help: "client-gen: all verbs but these",
    },
    MarkerDef {
        name: "genclient:method",
        targets: Targets::TYPE,
        args: anon(ArgType::Raw),
        usage: Use::Ignored,
        help: "client-gen: an extra client method",
    },
    // Kubernetes' other code generators: controller-gen ignores them; real APIs carry them.
    MarkerDef {
        name: "k8s:openapi-gen",
        targets: Targets::ANY,
        args: Args::Anonymous {
            ty: ArgType::Raw,
            optional: true,
        },
        usage: Use::Ignored,
        help: "openapi-gen",
    },
    MarkerDef {
        name: "k8s:defaulter-gen",
        targets: Targets::ANY,
        args: Args::Anonymous {
            ty: ArgType::Raw,
            optional: true,
        },
        usage: Use::Ignored,
        help: "defaulter-gen",
    },
    MarkerDef {
        name: "k8s:defaulter-gen-input",
        targets: Targets::ANY,
        args: Args::Anonymous {
            ty: ArgType::Raw,
            optional: true,
        },
        usage: Use::Ignored,
        help: "defaulter-gen",
    },
    MarkerDef {
        name: "k8s:conversion-gen",
        targets: Targets::ANY,
        args: Args::Anonymous {
            ty: ArgType::Raw,
            optional: true,
        },
        usage: Use::Ignored,
        help: "conversion-gen",
    },
    MarkerDef {
        name: "k8s:conversion-gen-external-types",
        targets: Targets::ANY,
        args: Args::Anonymous {
            ty: ArgType::Raw,
            optional: true,
        },
        usage: Use::Ignored,
        help: "conversion-gen",
    },
    MarkerDef {
        name: "k8s:prerelease-lifecycle-gen",
        targets: Targets::ANY,
        args: Args::Anonymous {
            ty: ArgType::Raw,
            optional: true,
        },
        usage: Use::Ignored,
        help: "prerelease-lifecycle-gen (`:introduced=`, `:deprecated=`, `:removed=`, `:replacement=`)",
    },
    MarkerDef {
        name: "groupGoName",
        targets: Targets::PACKAGE,
        args: anon(ArgType::String),
        usage: Use::Ignored,
        help: "client-gen: Go name of the group",
    },
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
        for &(short, args, help) in VALIDATION {
            defs.push(MarkerDef {
                name: leak(format!("kubebuilder:validation:{short}")),
                targets: TF,
                args,
                usage: Use::Used,
                help,
            });
            defs.push(MarkerDef {
                name: leak(format!("kubebuilder:validation:items:{short}")),
                targets: TF,
                args,
                usage: Use::Used,
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

    /// The process-wide registry.
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
        for (short, _, _) in VALIDATION {
            assert!(
                r.by_name(&format!("kubebuilder:validation:items:{short}"))
                    .is_some()
            );
        }
    }
}
