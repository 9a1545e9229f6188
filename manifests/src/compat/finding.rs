//! What compat reports: a [`Finding`] names its [`Rule`], the version and the schema path (how paths are
//! written: mod.rs), and the old and new value as printed.

/// One breaking change found by `compare` (mod.rs).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Finding {
    /// What broke.
    pub rule: Rule,
    /// The API version (`v1`) the change is in; empty for a CRD-wide change (the scope).
    pub version: String,
    /// Where in the version's schema (module docs); empty for a CRD-wide or version-wide change.
    pub path: String,
    /// What the baseline said, as it is printed (`integer`, `maximum: 10`, a JSON value); empty when it said
    /// nothing (a default added).
    pub old: String,
    /// What the new CRD says, likewise; empty when it says nothing (a field removed).
    pub new: String,
}

/// What a breaking change breaks; [`Rule::name`] is how markers and the docs name it.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rule {
    ScopeChanged,
    StoredVersionRemoved,
    ServedVersionRemoved,
    FieldRemoved,
    TypeChanged,
    RequiredAdded,
    DefaultAdded,
    DefaultChanged,
    DefaultRemoved,
    EnumAdded,
    EnumValueRemoved,
    LimitTightened,
    LimitAdded,
    PreserveUnknownFieldsNarrowed,
    ListTypeChanged,
    CelRuleAdded,
    CelRuleChanged,
    NullableChanged,
    /// A CRD of the baseline that the project no longer generates. [`compare`](super::compare) never reports it
    /// (it compares one CRD with one); `rkb manifests` finds it among the baseline's files (see
    /// `diagnostics::removed_crd`).
    CrdRemoved,
}

/// Every rule with its name, in the order of the enum.
const NAMES: &[(Rule, &str)] = &[
    (Rule::ScopeChanged, "scope-changed"),
    (Rule::StoredVersionRemoved, "stored-version-removed"),
    (Rule::ServedVersionRemoved, "served-version-removed"),
    (Rule::FieldRemoved, "field-removed"),
    (Rule::TypeChanged, "type-changed"),
    (Rule::RequiredAdded, "required-added"),
    (Rule::DefaultAdded, "default-added"),
    (Rule::DefaultChanged, "default-changed"),
    (Rule::DefaultRemoved, "default-removed"),
    (Rule::EnumAdded, "enum-added"),
    (Rule::EnumValueRemoved, "enum-value-removed"),
    (Rule::LimitTightened, "limit-tightened"),
    (Rule::LimitAdded, "limit-added"),
    (
        Rule::PreserveUnknownFieldsNarrowed,
        "preserve-unknown-fields-narrowed",
    ),
    (Rule::ListTypeChanged, "list-type-changed"),
    (Rule::CelRuleAdded, "cel-rule-added"),
    (Rule::CelRuleChanged, "cel-rule-changed"),
    (Rule::NullableChanged, "nullable-changed"),
    (Rule::CrdRemoved, "crd-removed"),
];

const ALL: [Rule; 19] = [
    Rule::ScopeChanged,
    Rule::StoredVersionRemoved,
    Rule::ServedVersionRemoved,
    Rule::FieldRemoved,
    Rule::TypeChanged,
    Rule::RequiredAdded,
    Rule::DefaultAdded,
    Rule::DefaultChanged,
    Rule::DefaultRemoved,
    Rule::EnumAdded,
    Rule::EnumValueRemoved,
    Rule::LimitTightened,
    Rule::LimitAdded,
    Rule::PreserveUnknownFieldsNarrowed,
    Rule::ListTypeChanged,
    Rule::CelRuleAdded,
    Rule::CelRuleChanged,
    Rule::NullableChanged,
    Rule::CrdRemoved,
];

impl Rule {
    /// The rule's kebab-case name (`field-removed`), as an acknowledgment marker names it.
    pub fn name(&self) -> &'static str {
        NAMES
            .iter()
            .find(|(rule, _)| rule == self)
            .map(|(_, name)| *name)
            .expect("every rule is named in NAMES")
    }

    /// Every rule.
    pub fn all() -> &'static [Rule] {
        &ALL
    }

    /// The rule named `name` (kebab-case), if there is one.
    pub fn from_name(name: &str) -> Option<Rule> {
        NAMES
            .iter()
            .find(|(_, n)| *n == name)
            .map(|(rule, _)| *rule)
    }
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The path of property `name` below `parent` (`.` is the root).
pub fn child_path(parent: &str, name: &str) -> String {
    match parent {
        "." => format!(".{name}"),
        _ => format!("{parent}.{name}"),
    }
}

/// The path of an array's items (`[*]`) or a map's values (`{*}`) below `parent`.
pub fn element_path(parent: &str, mark: &str) -> String {
    match parent {
        "." => format!(".{mark}"),
        _ => format!("{parent}{mark}"),
    }
}
