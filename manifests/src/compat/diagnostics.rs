//! compat's findings as rustc-style diagnostics, each at the Rust item that made the change: the marker that
//! wrote the keyword (found through the schema node's `Provenance`), else the field or type the node was made
//! for; a removed field at the struct that lost it; a CRD-wide or version-wide change at the kind. Each says the
//! old and new value, what breaks, and the safe way (`help`), and is left out when a `+rkb:compat:allow`
//! acknowledges it.
//!
//! Which acknowledgment counts (docs/markers.md, "Breaking changes"): one naming the finding's rule, on an item
//! behind the finding's node (the field or its type; for a removed field, the struct that lost it or the field
//! holding it, with `field=` naming the removed property; for `required-added` also the struct holding the
//! field); for a CRD-wide or version-wide rule, on the root type of any version of the kind, with `version=`
//! naming the version when it is given.

use super::finding::{Finding, Rule};
use super::rules;
use crate::model::item_markers::{ItemMarkers, Written};
use crate::model::{At, Model, Origin};
use crate::plan::CrdPlan;
use crate::schema::node::{Node, Provenance, Schema};
use rkb_markers::{
    CompatAllow, Diagnostic, ListMarker, NumberMarker, ObjectMarker, Presence, RuleMarker,
    SchemaMarker, Span, StringMarker, TopologyMarker, ValueMarker,
};

/// What one rule breaks and the safe way, as the diagnostics say it.
struct Explained {
    why: &'static str,
    instead: &'static str,
}

/// How the API server treats a stored object whose unchanged value a narrowed schema refuses (KEP-4008,
/// validation ratcheting: on by default since Kubernetes 1.30, GA in 1.33): shared by the rules that narrow what is valid. What breaks
/// is the same manifest as a new object, as `manifests/tests/upgrade_apiserver.rs` shows.
macro_rules! ratcheted {
    () => {
        ", as a re-install, another namespace or a restore from backup makes one, and so is an update of a stored object to another value it refuses; a stored object's own manifest, unchanged, still applies (the API server ratchets unchanged values)"
    };
}

/// Why each rule's change breaks (what the API server then does, as the tests in
/// manifests/tests/upgrade_apiserver.rs show it on a real one), and what to do instead.
fn explain(rule: Rule) -> Explained {
    match rule {
        Rule::ScopeChanged => SCOPE_CHANGED,
        Rule::StoredVersionRemoved => STORED_VERSION_REMOVED,
        Rule::ServedVersionRemoved => SERVED_VERSION_REMOVED,
        Rule::FieldRemoved => FIELD_REMOVED,
        Rule::TypeChanged => TYPE_CHANGED,
        Rule::RequiredAdded => REQUIRED_ADDED,
        Rule::DefaultAdded => DEFAULT_ADDED,
        Rule::DefaultChanged => DEFAULT_CHANGED,
        Rule::DefaultRemoved => DEFAULT_REMOVED,
        Rule::EnumAdded => ENUM_ADDED,
        Rule::EnumValueRemoved => ENUM_VALUE_REMOVED,
        Rule::LimitTightened => LIMIT_TIGHTENED,
        Rule::LimitAdded => LIMIT_ADDED,
        Rule::PreserveUnknownFieldsNarrowed => PRESERVE_UNKNOWN_FIELDS_NARROWED,
        Rule::ListTypeChanged => LIST_TYPE_CHANGED,
        Rule::CelRuleAdded => CEL_RULE_ADDED,
        Rule::NullableChanged => NULLABLE_CHANGED,
        Rule::CrdRemoved => CRD_REMOVED,
        Rule::CelRuleChanged => CEL_RULE_CHANGED,
    }
}

const SCOPE_CHANGED: Explained = Explained {
    why: "the API server refuses the new CRD (`spec.scope` is immutable): every stored object is named with (or without) a namespace, and none can be served under the other scope",
    instead: "keep the scope; a kind of the other scope is a new CRD (another kind or group)",
};

const STORED_VERSION_REMOVED: Explained = Explained {
    why: "the API server refuses the new CRD while the version is in `status.storedVersions` (objects stored in it stay so until each is rewritten), and clients that use it get 404 Not Found once it is gone",
    instead: "keep the version (stop serving it with `+kubebuilder:unservedversion`) until a storage-version migration (rkb-runtime's `StorageMigration`, docs/webhooks.md) has rewritten every object and dropped it from `status.storedVersions`",
};

const SERVED_VERSION_REMOVED: Explained = Explained {
    why: "clients that use it get 404 Not Found, without a warning beforehand",
    instead: "first release it deprecated (`+kubebuilder:deprecatedversion`), so clients are warned; stop serving it in a later release",
};

const FIELD_REMOVED: Explained = Explained {
    why: "its value disappears from every read of the stored objects at once (pruned on read, lost for good at their next write); a create that sets it succeeds with the value dropped, and a server-side apply that sets it fails (HTTP 500, `field not declared in schema`, under kubectl's strict field validation)",
    instead: "keep the field and say in its doc comment that it is deprecated; or remove it in a new API version, with a conversion that carries its value",
};

const TYPE_CHANGED: Explained = Explained {
    why: "a manifest with a value of the old type is refused as a new object (HTTP 422, `must be of type`), and its server-side apply to a stored object fails even unchanged (HTTP 500: server-side apply types the manifest before validation, so nothing is ratcheted); stored values keep the old type, which clients decoding the new one fail on; only a merge patch that leaves the value as it is passes",
    instead: "keep the type and add a field of the new type; or change it in a new API version, with a conversion",
};

const REQUIRED_ADDED: Explained = Explained {
    why: concat!(
        "a manifest that leaves it out is refused as a new object (HTTP 422, `Required value`)",
        ratcheted!()
    ),
    instead: "keep it optional (`+optional`) and treat it as absent in the controller; or require it in a new API version, with a conversion that fills it",
};

const DEFAULT_ADDED: Explained = Explained {
    why: "a default is applied whenever an object is read: a GET of a stored object without the field now returns this value, which nobody wrote, and the controller acts on it",
    instead: "leave the field without a default and handle its absence in the controller; or add the default in a new API version",
};

const DEFAULT_CHANGED: Explained = Explained {
    why: "stored objects keep the old value (a default is written into an object when it is created), but the same manifest now creates a different object: one that leaves the field out gets the new value",
    instead: "keep the default; or change it in a new API version, with a conversion",
};

const DEFAULT_REMOVED: Explained = Explained {
    why: "stored objects keep the old value (a default is written into an object when it is created), but the same manifest now creates a different object: one that leaves the field out has it absent",
    instead: "keep the default; or remove it in a new API version, with a conversion that writes the old value",
};

const ENUM_ADDED: Explained = Explained {
    why: concat!(
        "a manifest with another value is refused as a new object (HTTP 422, `Unsupported value`)",
        ratcheted!()
    ),
    instead: "check the value in the controller (or a webhook, with a warning) first; or limit it in a new API version, with a conversion",
};

const ENUM_VALUE_REMOVED: Explained = Explained {
    why: concat!(
        "a manifest with the removed value is refused as a new object (HTTP 422, `Unsupported value`)",
        ratcheted!()
    ),
    instead: "keep the value (the controller may map it to another); or drop it in a new API version, with a conversion",
};

const LIMIT_TIGHTENED: Explained = Explained {
    why: concat!(
        "a manifest with a value outside the new limit is refused as a new object (HTTP 422)",
        ratcheted!()
    ),
    instead: "keep the old limit (relaxing a limit is safe); or tighten it in a new API version, with a conversion",
};

const LIMIT_ADDED: Explained = Explained {
    why: concat!(
        "a manifest with a value outside the limit is refused as a new object (HTTP 422)",
        ratcheted!()
    ),
    instead: "leave the field unlimited and check it in the controller; or limit it in a new API version, with a conversion",
};

const PRESERVE_UNKNOWN_FIELDS_NARROWED: Explained = Explained {
    why: "the fields it kept disappear from every read of the stored objects at once (pruned on read, lost for good at their next write), and clients that set them have them dropped without an error",
    instead: "keep unknown fields (`+kubebuilder:pruning:PreserveUnknownFields`, or the map); or declare every field it kept",
};

const LIST_TYPE_CHANGED: Explained = Explained {
    why: "server-side apply merges the list or map another way: made a `set` or `map`, a manifest with repeated entries is refused as a new object (HTTP 422, `Duplicate value`) and its server-side apply to a stored object fails even unchanged (HTTP 500: nothing is ratcheted there; only a merge patch that leaves the list as it is passes); made `atomic`, field managers that each owned their own entries conflict on their next apply (HTTP 409)",
    instead: "keep the list or map type; another one belongs to a new field or a new API version",
};

const CEL_RULE_ADDED: Explained = Explained {
    why: concat!(
        "a manifest with a value the rule refuses is refused as a new object (HTTP 422, `failed rule`)",
        ratcheted!()
    ),
    instead: "write the rule so every stored object passes it (a transition rule on `oldSelf`, with `optionalOldSelf`), or check it in the controller; or add it in a new API version",
};

const NULLABLE_CHANGED: Explained = Explained {
    why: "taken away, a stored null disappears from every read at once (pruned), a create with null succeeds with the null dropped, and a server-side apply with null is refused (HTTP 422, `must be of type`); given, clients read a null they never expected",
    instead: "keep `nullable` as it was; or change it in a new API version, with a conversion",
};

const CRD_REMOVED: Explained = Explained {
    why: "applied with pruning (`kubectl apply --prune`, a GitOps tool), the release deletes the CRD, and the API server deletes every object of it with it; applied without, the CRD and its objects stay, and no controller acts on them",
    instead: "keep the kind (its versions deprecated with `+kubebuilder:deprecatedversion`) until its objects are moved or deleted on purpose",
};

const CEL_RULE_CHANGED: Explained = Explained {
    why: concat!(
        "a manifest with a value the new rule refuses is refused as a new object (HTTP 422, `failed rule`)",
        ratcheted!()
    ),
    instead: "keep the rule; or change it in a new API version, with a conversion",
};

/// A finding's error, not yet placed: `[rule] what changed (against the baseline)`, and the hint saying what
/// breaks, the safe way and the acknowledgment.
fn unplaced(f: &Finding, kind: &str, baseline: &str) -> Diagnostic {
    let Explained { why, instead } = explain(f.rule);
    let message = format!(
        "[{}] {} (against {baseline})",
        f.rule.name(),
        headline(f, kind)
    );
    let hint = format!(
        "{why}. Instead: {instead}; or, if the break is intended, acknowledge it with `{}` on {}",
        allow_marker(f),
        allow_place(f)
    );
    Diagnostic::error(message).with_hint(hint)
}

/// The acknowledgment a finding would need, as it is written.
fn allow_marker(f: &Finding) -> String {
    let extra = match f.rule {
        Rule::FieldRemoved => format!(",field={}", split_last(&f.path).1),
        Rule::StoredVersionRemoved | Rule::ServedVersionRemoved => {
            format!(",version={}", f.version)
        }
        Rule::CrdRemoved => format!(",crd={}", f.old),
        _ => String::new(),
    };
    format!(
        "+rkb:compat:allow:rule={}{extra},reason=\"...\"",
        f.rule.name()
    )
}

/// Where the acknowledgment of a finding goes, as the hint says it.
fn allow_place(f: &Finding) -> &'static str {
    match f.rule {
        Rule::ScopeChanged | Rule::StoredVersionRemoved | Rule::ServedVersionRemoved => "the kind",
        Rule::FieldRemoved => "the struct that lost it",
        Rule::CrdRemoved => "any type of the project (the kind that replaces it, say)",
        _ => "the field",
    }
}

/// What changed, as the message's first words say it.
fn headline(f: &Finding, kind: &str) -> String {
    let at = format!("`{}` of {kind} {}", f.path, f.version);
    match f.rule {
        Rule::ScopeChanged => format!("the scope of {kind} changed from {} to {}", f.old, f.new),
        Rule::StoredVersionRemoved if f.old == rules::DEPRECATED => format!(
            "version {} of {kind}, deprecated in the baseline, is removed: objects may still be stored in it",
            f.version
        ),
        Rule::StoredVersionRemoved => {
            format!(
                "version {} of {kind}, the baseline's storage version, is removed",
                f.version
            )
        }
        Rule::ServedVersionRemoved if f.new.is_empty() => {
            format!(
                "served version {} of {kind} is removed without being deprecated first",
                f.version
            )
        }
        Rule::ServedVersionRemoved => format!(
            "version {} of {kind} is no longer served ({}) without being deprecated first",
            f.version, f.new
        ),
        Rule::FieldRemoved => format!("field {at} is removed (it was {})", f.old),
        Rule::TypeChanged => format!("the type of {at} changed from {} to {}", f.old, f.new),
        Rule::RequiredAdded => format!("{at} is now required"),
        Rule::DefaultAdded => format!("{at} gets the default {}", f.new),
        Rule::DefaultChanged => format!("the default of {at} changed from {} to {}", f.old, f.new),
        Rule::DefaultRemoved => format!("the default {} of {at} is removed", f.old),
        Rule::EnumAdded => format!("{at} is now limited to the values {}", f.new),
        Rule::EnumValueRemoved => {
            format!("values of {at} are removed: {} is now {}", f.old, f.new)
        }
        Rule::LimitTightened => format!("{at} is narrowed from `{}` to `{}`", f.old, f.new),
        Rule::LimitAdded => format!("{at} gets the limit `{}`", f.new),
        Rule::PreserveUnknownFieldsNarrowed => format!(
            "{at} no longer keeps unknown fields (`{}` is now {})",
            f.old,
            if f.new.is_empty() {
                "absent".to_string()
            } else {
                format!("`{}`", f.new)
            }
        ),
        Rule::ListTypeChanged => format!(
            "{at} is merged another way: {} is now {}",
            or_absent(&f.old),
            or_absent(&f.new)
        ),
        Rule::CelRuleAdded => format!("{at} gets the CEL rule {}", f.new),
        Rule::NullableChanged if f.new.is_empty() => format!("{at} no longer allows null"),
        Rule::NullableChanged => format!("{at} now allows null"),
        Rule::CelRuleChanged => {
            format!("the CEL rule {} of {at} changed to {}", f.old, f.new)
        }
        Rule::CrdRemoved => format!("CRD {} is no longer generated: {}", f.old, f.new),
    }
}

fn or_absent(s: &str) -> String {
    if s.is_empty() {
        "absent".into()
    } else {
        format!("`{s}`")
    }
}

/// The node at a finding's path in one version's resolved schema, and the nearest own node on the way (a
/// shared k8s sub-schema has no provenance): `None` when the path leaves the schema.
fn node_at<'a>(root: &'a Schema, path: &str) -> Option<&'a Schema> {
    let mut node = root;
    for seg in segments(path) {
        let next = match seg {
            Segment::Items => node.items.as_deref(),
            Segment::Values => node.additional_properties.as_deref(),
            Segment::Property(name) => node.properties.as_ref().and_then(|p| p.get(name)),
        };
        match next {
            Some(Node::Own(s)) => node = s,
            // The k8s type's own sub-schema: the project's nearest item is the one that uses it.
            Some(Node::Shared(_)) => return Some(node),
            None => return None,
        }
    }
    Some(node)
}

enum Segment<'a> {
    Property(&'a str),
    Items,
    Values,
}

/// `.spec.items[*].labels{*}` as its steps (mod.rs: how paths are written).
fn segments(path: &str) -> Vec<Segment<'_>> {
    let mut out = Vec::new();
    let mut rest = path.strip_prefix('.').unwrap_or(path);
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("[*]") {
            out.push(Segment::Items);
            rest = r;
        } else if let Some(r) = rest.strip_prefix("{*}") {
            out.push(Segment::Values);
            rest = r;
        } else {
            let r = rest.strip_prefix('.').unwrap_or(rest);
            let end = r.find(['.', '[', '{']).unwrap_or(r.len());
            out.push(Segment::Property(&r[..end]));
            rest = &r[end..];
        }
    }
    out
}

/// The path of a finding's parent node and the last property name (`.spec`, `replicas`).
fn split_last(path: &str) -> (&str, &str) {
    match path.rfind('.') {
        Some(0) => (".", &path[1..]),
        Some(i) => (&path[..i], &path[i + 1..]),
        None => (".", path),
    }
}

/// The JSON keyword a schema marker writes, to find the marker behind a keyword's finding.
fn keyword_of(m: &SchemaMarker) -> Option<&'static str> {
    Some(match m {
        SchemaMarker::Number(n) => match n {
            NumberMarker::Maximum(_) => "maximum",
            NumberMarker::Minimum(_) => "minimum",
            NumberMarker::ExclusiveMaximum(_) => "exclusiveMaximum",
            NumberMarker::ExclusiveMinimum(_) => "exclusiveMinimum",
            NumberMarker::MultipleOf(_) => "multipleOf",
        },
        SchemaMarker::String(s) => match s {
            StringMarker::MaxLength(_) => "maxLength",
            StringMarker::MinLength(_) => "minLength",
            StringMarker::Pattern(_) => "pattern",
        },
        SchemaMarker::List(l) => match l {
            ListMarker::MaxItems(_) => "maxItems",
            ListMarker::MinItems(_) => "minItems",
            ListMarker::UniqueItems(_) => return None,
        },
        SchemaMarker::Object(o) => match o {
            ObjectMarker::MaxProperties(_) => "maxProperties",
            ObjectMarker::MinProperties(_) => "minProperties",
            ObjectMarker::PreserveUnknownFields => "x-kubernetes-preserve-unknown-fields",
            _ => return None,
        },
        SchemaMarker::Value(v) => match v {
            ValueMarker::Enum(_) => "enum",
            ValueMarker::Default(_) | ValueMarker::DefaultJson(_) => "default",
            ValueMarker::Type(_) | ValueMarker::IntOrString => "type",
            ValueMarker::Nullable => "nullable",
            _ => return None,
        },
        SchemaMarker::Rule(RuleMarker::XValidation(_)) => "x-kubernetes-validations",
        SchemaMarker::Rule(_) => return None,
        SchemaMarker::Topology(t) => match t {
            TopologyMarker::ListType(_) => "x-kubernetes-list-type",
            TopologyMarker::ListMapKey(_) => "x-kubernetes-list-map-keys",
            TopologyMarker::MapType(_) => "x-kubernetes-map-type",
            TopologyMarker::StructType(_) => return None,
        },
    })
}

/// The keyword a node finding is about, for finding the marker that wrote it.
fn finding_keyword(f: &Finding) -> Option<String> {
    match f.rule {
        Rule::LimitTightened | Rule::LimitAdded | Rule::ListTypeChanged => {
            let text = if f.new.is_empty() { &f.old } else { &f.new };
            text.split(':').next().map(str::to_string)
        }
        Rule::DefaultAdded | Rule::DefaultChanged | Rule::DefaultRemoved => Some("default".into()),
        Rule::EnumAdded | Rule::EnumValueRemoved => Some("enum".into()),
        Rule::TypeChanged => Some("type".into()),
        Rule::PreserveUnknownFieldsNarrowed => Some("x-kubernetes-preserve-unknown-fields".into()),
        Rule::NullableChanged => Some("nullable".into()),
        Rule::CelRuleAdded | Rule::CelRuleChanged => Some("x-kubernetes-validations".into()),
        _ => None,
    }
}

/// The span of the marker of `markers` (its own or its `items:` ones) that writes `keyword`.
fn marker_writing(markers: &ItemMarkers, keyword: &str) -> Option<Span> {
    markers
        .schema
        .iter()
        .chain(&markers.items)
        .find(|m| keyword_of(&m.value) == Some(keyword))
        .map(|m| m.span)
}

/// The span of a presence marker that makes the field required.
fn required_marker(markers: &ItemMarkers) -> Option<Span> {
    markers
        .presence
        .iter()
        .find(|m| m.value.required)
        .map(|m: &Written<Presence>| m.span)
}

/// One CRD's findings against its baseline, as diagnostics: what the model and the version's resolved schemas
/// (in `plan.versions` order) say of where each comes from.
pub struct Located<'a> {
    pub model: &'a Model,
    pub plan: &'a CrdPlan,
    pub schemas: &'a [Schema],
    /// Where the baseline was read, as messages name it (`config/crd/bases/x.yaml`, `v0.1.0:config/...`).
    pub baseline: &'a str,
}

impl Located<'_> {
    /// The unacknowledged findings as errors.
    pub fn diagnose(&self, findings: &[Finding]) -> Vec<Diagnostic> {
        findings
            .iter()
            .filter(|f| !self.acknowledged(f))
            .map(|f| self.diagnostic(f))
            .collect()
    }

    fn diagnostic(&self, f: &Finding) -> Diagnostic {
        let d = unplaced(f, &self.plan.kind, self.baseline);
        match self.place(f) {
            Some(at) => self.model.locate(at, d),
            None => d,
        }
    }

    /// The version's resolved schema.
    fn version_schema(&self, version: &str) -> Option<&Schema> {
        let i = self.plan.versions.iter().position(|v| v.name == version)?;
        self.schemas.get(i)
    }

    /// The node a finding is about: for a removed field, the node that lost it.
    fn anchor(&self, f: &Finding) -> Option<&Schema> {
        let root = self.version_schema(&f.version)?;
        let path = match f.rule {
            Rule::FieldRemoved => split_last(&f.path).0,
            _ => f.path.as_str(),
        };
        node_at(root, path)
    }

    /// Where a finding is reported: the marker that wrote its keyword, else its node's field or type, else the
    /// kind (of the version, else the storage one).
    fn place(&self, f: &Finding) -> Option<At> {
        let from_node = self.anchor(f).and_then(|node| {
            let p = &node.provenance;
            let marker = match (f.rule, finding_keyword(f)) {
                (Rule::RequiredAdded, _) => p.marker(self.model, required_marker),
                (_, Some(k)) => p.marker(self.model, |m| marker_writing(m, &k)),
                _ => None,
            };
            // A removed field is reported at the struct that lost it: its type, before the field holding it.
            let lost_from = (f.rule == Rule::FieldRemoved)
                .then(|| p.referenced.and_then(|t| self.model.origin_at(t)))
                .flatten();
            marker.or(lost_from).or_else(|| p.origin_at(self.model))
        });
        from_node
            .or(match f.rule {
                Rule::ScopeChanged => self.plan.names_at,
                _ => None,
            })
            .or_else(|| self.kind_type(&f.version).map(|t| self.model.type_at(t)))
    }

    /// The root type of `version`, else of the storage version.
    fn kind_type(&self, version: &str) -> Option<crate::model::TypeId> {
        let v = self.plan.versions.iter();
        v.clone()
            .find(|v| v.name == version)
            .or_else(|| v.clone().find(|v| v.storage))
            .map(|v| v.ty)
    }

    /// Whether a `+rkb:compat:allow` acknowledges the finding (module docs: which one counts).
    fn acknowledged(&self, f: &Finding) -> bool {
        let allows = |a: &CompatAllow| {
            a.rule == f.rule.name()
                && match f.rule {
                    Rule::FieldRemoved => a.field.as_deref() == Some(split_last(&f.path).1),
                    Rule::StoredVersionRemoved | Rule::ServedVersionRemoved => {
                        a.version.as_deref().is_none_or(|v| v == f.version)
                    }
                    _ => true,
                }
        };
        self.items_of(f)
            .into_iter()
            .filter_map(|origin| self.model.markers_of(origin))
            .any(|(_, markers)| markers.compat.iter().any(|m| allows(&m.value)))
    }

    /// The items whose acknowledgments count for a finding.
    fn items_of(&self, f: &Finding) -> Vec<Origin> {
        let of = |p: &Provenance| [p.made_for, p.referenced].into_iter().flatten();
        match f.rule {
            Rule::ScopeChanged | Rule::StoredVersionRemoved | Rule::ServedVersionRemoved => self
                .plan
                .versions
                .iter()
                .map(|v| Origin::Type(v.ty))
                .collect(),
            Rule::RequiredAdded => {
                let root = self.version_schema(&f.version);
                let parent = root.and_then(|r| node_at(r, split_last(&f.path).0));
                let node = root.and_then(|r| node_at(r, &f.path));
                [parent, node]
                    .into_iter()
                    .flatten()
                    .flat_map(|n| of(&n.provenance))
                    .collect()
            }
            _ => self
                .anchor(f)
                .map(|n| of(&n.provenance).collect())
                .unwrap_or_default(),
        }
    }
}

/// Every `+rkb:compat:allow` of the project, on any type or field, with the file it is in.
fn every_allow(model: &Model) -> Vec<(crate::model::FileId, &Written<CompatAllow>)> {
    let mut out = Vec::new();
    for (id, ty) in model.types_with_ids() {
        let fields = match &ty.kind {
            crate::model::TypeKind::Struct(fields) => fields.len(),
            _ => 0,
        };
        let origins = std::iter::once(Origin::Type(id))
            .chain((0..fields as u32).map(|i| Origin::Field(id, i)));
        for origin in origins {
            if let Some((file, markers)) = model.markers_of(origin) {
                out.extend(markers.compat.iter().map(|m| (file, m)));
            }
        }
    }
    out
}

/// Errors for acknowledgments that cannot count: an unknown rule, or `field-removed` without `field=`,
/// `crd-removed` without `crd=`.
pub fn check_allow_markers(model: &Model) -> Vec<Diagnostic> {
    every_allow(model)
        .into_iter()
        .filter_map(|(file, m)| {
            let (message, hint) = allow_problem(&m.value)?;
            let d = Diagnostic::error(message).with_hint(hint);
            Some(model.locate(At { file, span: m.span }, d))
        })
        .collect()
}

/// A CRD of the baseline that the project no longer generates (the `crd-removed` rule).
pub struct RemovedCrd<'a> {
    /// Where the baseline was read, as messages name it (`config/crd/bases/x.yaml`, `v0.1.0:config/...`).
    pub source: &'a str,
    /// The baseline file's text: the error points at its `metadata.name`.
    pub text: &'a str,
    /// Why the project no longer generates it (`no type \`Widget\` is left in group ...`).
    pub why: &'a str,
}

/// The `crd-removed` error of `removed`, at the CRD's name in the baseline file (there is no Rust item left to
/// point at); `None` when a `+rkb:compat:allow:rule=crd-removed,crd=<its name>` on any type or field of the
/// project acknowledges it. A file with no `metadata.name` is named by its file.
pub fn removed_crd(model: &Model, removed: &RemovedCrd<'_>) -> Option<Diagnostic> {
    let (line, col, name) = metadata_name(removed.text).unwrap_or((0, 0, ""));
    let acknowledged = every_allow(model).into_iter().any(|(_, m)| {
        m.value.rule == Rule::CrdRemoved.name() && m.value.crd.as_deref() == Some(name)
    });
    if acknowledged {
        return None;
    }
    // `new` says why it is gone: there is no new CRD.
    let f = Finding {
        rule: Rule::CrdRemoved,
        version: String::new(),
        path: String::new(),
        old: name.to_string(),
        new: removed.why.to_string(),
    };
    let d = unplaced(&f, "", removed.source);
    if line == 0 {
        return Some(d.at(removed.source, 0, 0, 0));
    }
    let source_line = removed.text.lines().nth(line - 1).unwrap_or_default();
    Some(
        d.at(removed.source, line, col, name.len())
            .with_source_line(source_line),
    )
}

/// The line and column (1-based) of the CRD's name in its YAML text (`  name: <plural>.<group>` below
/// `metadata:`, as rkb writes it), and the name.
fn metadata_name(text: &str) -> Option<(usize, usize, &str)> {
    let mut in_metadata = false;
    for (i, line) in text.lines().enumerate() {
        if !line.starts_with(' ') {
            in_metadata = line == "metadata:";
            continue;
        }
        if let Some(value) = in_metadata.then(|| line.strip_prefix("  name: ")).flatten() {
            let name = value.trim().trim_matches(['\'', '"']);
            let col = line.find(name).unwrap_or(0) + 1;
            return Some((i + 1, col, name));
        }
    }
    None
}

/// What is wrong with one acknowledgment, and the hint.
fn allow_problem(a: &CompatAllow) -> Option<(String, String)> {
    let names: Vec<&str> = Rule::all().iter().map(Rule::name).collect();
    match Rule::from_name(&a.rule) {
        None => {
            let near = names
                .iter()
                .min_by_key(|n| rkb_markers::levenshtein(n, &a.rule))
                .filter(|n| rkb_markers::levenshtein(n, &a.rule) <= 3);
            let hint = match near {
                Some(n) => format!("did you mean `{n}`? The rules: {}", names.join(", ")),
                None => format!("the rules: {}", names.join(", ")),
            };
            Some((format!("`+rkb:compat:allow` names no rule `{}`", a.rule), hint))
        }
        Some(Rule::CrdRemoved) if a.crd.is_none() => Some((
            "`+rkb:compat:allow:rule=crd-removed` needs `crd=<plural>.<group>`: which removed CRD it acknowledges"
                .into(),
            "name the CRD as its `metadata.name` does, e.g. `crd=widgets.example.my.domain`".into(),
        )),
        Some(Rule::FieldRemoved) if a.field.is_none() => Some((
            "`+rkb:compat:allow:rule=field-removed` needs `field=<json name>`: which removed field it acknowledges"
                .into(),
            "name the removed property as the CRD named it, e.g. `field=replicas`".into(),
        )),
        Some(_) => None,
    }
}
