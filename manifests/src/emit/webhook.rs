//! `config/webhook/manifests.yaml` from `+kubebuilder:webhook` markers: the MutatingWebhookConfiguration and
//! ValidatingWebhookConfiguration controller-gen's `webhook` generator writes, byte for byte.
//!
//! Contract:
//! - Each `+kubebuilder:webhook` marker (on any doc comment under src/, as RBAC markers) is one webhook of the
//!   mutating or the validating configuration; webhooks are sorted by name. `+kubebuilder:webhookconfiguration`
//!   names a configuration (default `mutating-webhook-configuration` / `validating-webhook-configuration`).
//! - Values controller-gen normalises are normalised the same way (`failurePolicy=fail` is `Fail`, verbs are
//!   upper-cased, the group `core` is `""`).
//! - What controller-gen refuses, rkb refuses at the marker (`path` and `url` together or neither, an unknown
//!   matchPolicy, sideEffects missing or `Some`/`Unknown`, timeoutSeconds outside 1..30, an unsupported
//!   webhookVersions, a second configuration marker of one kind). Where controller-gen writes a value the API
//!   server refuses (an unknown failurePolicy, verb or reinvocationPolicy, `*` beside other values in a rule,
//!   two webhooks of one name), rkb refuses it too, so a generated file always installs.

use crate::model::{At, Model};
use rkb_markers::{Diagnostic, WebhookArgs, WebhookMarker};
use serde_json::{Map, Value, json};

/// The two configurations the markers describe, every webhook checked and in controller-gen's form, sorted by
/// name. Built before anything is generated (stage 3); [`Configurations::document`] prints them and cannot fail.
pub struct Configurations {
    names: ConfigNames,
    mutating: Vec<Value>,
    validating: Vec<Value>,
}

/// Reads and checks every webhook marker of the project; each problem is a located error in `diags`.
pub fn configurations(model: &Model, diags: &mut Vec<Diagnostic>) -> Configurations {
    let mut names = ConfigNames::default();
    let (mut mutating, mut validating) = (Vec::new(), Vec::new());
    for (file, m) in &model.webhooks {
        let at = At::marker(*file, m);
        let mut error = |msg: String, hint: &str| {
            diags.push(model.locate(at, Diagnostic::error(msg)).with_hint(hint));
        };
        match &m.value {
            WebhookMarker::Configuration { mutating, name } => {
                names.set(*mutating, name, &mut error)
            }
            WebhookMarker::Webhook(args) => match webhook(args) {
                Ok(w) if args.mutating => mutating.push((&args.name, w, at)),
                Ok(w) => validating.push((&args.name, w, at)),
                Err((msg, hint)) => error(msg, hint),
            },
        }
    }
    Configurations {
        names,
        mutating: sorted_unique(model, mutating, diags),
        validating: sorted_unique(model, validating, diags),
    }
}

impl Configurations {
    /// The text of manifests.yaml, or `None` when the project has no webhook markers.
    pub fn document(self) -> Option<String> {
        if self.mutating.is_empty() && self.validating.is_empty() {
            return None;
        }
        let mut out = String::new();
        for (kind, webhooks, name) in [
            (
                "MutatingWebhookConfiguration",
                self.mutating,
                self.names.mutating,
            ),
            (
                "ValidatingWebhookConfiguration",
                self.validating,
                self.names.validating,
            ),
        ] {
            if webhooks.is_empty() {
                continue;
            }
            let doc = json!({
                "apiVersion": "admissionregistration.k8s.io/v1",
                "kind": kind,
                "metadata": {"name": name.unwrap_or_else(|| default_name(kind))},
                "webhooks": webhooks,
            });
            out.push_str(&crate::emit::yaml::document(&doc));
        }
        Some(out)
    }
}

fn default_name(kind: &str) -> String {
    if kind.starts_with("Mutating") {
        "mutating-webhook-configuration".into()
    } else {
        "validating-webhook-configuration".into()
    }
}

/// The names `+kubebuilder:webhookconfiguration` gives the two configurations.
#[derive(Default)]
struct ConfigNames {
    mutating: Option<String>,
    validating: Option<String>,
}

impl ConfigNames {
    fn set(&mut self, mutating: bool, name: &Option<String>, error: &mut impl FnMut(String, &str)) {
        let (slot, which) = if mutating {
            (&mut self.mutating, "mutating")
        } else {
            (&mut self.validating, "validating")
        };
        if let Some(first) = slot {
            return error(
                format!(
                    "a second {which} `+kubebuilder:webhookconfiguration` (the first names `{first}`)"
                ),
                "keep one: a project has one configuration of each kind",
            );
        }
        // Without a name (or with an empty one), the configuration keeps its default name.
        if let Some(name) = name.as_ref().filter(|n| !n.is_empty()) {
            *slot = Some(name.clone());
        }
    }
}

type Problem = (String, &'static str);

/// An optional text argument that was given, and not empty (controller-gen reads an empty value as none).
fn given(arg: &Option<String>) -> Option<&str> {
    arg.as_deref().filter(|v| !v.is_empty())
}

/// One webhook of a configuration, in controller-gen's form.
fn webhook(m: &WebhookArgs) -> Result<Value, Problem> {
    let mut w = Map::new();
    if m.admission_review_versions.is_empty() {
        return Err((
            "admissionReviewVersions is empty: the API server needs at least one".into(),
            "write `admissionReviewVersions=v1`",
        ));
    }
    w.insert(
        "admissionReviewVersions".into(),
        json!(m.admission_review_versions),
    );
    w.insert("clientConfig".into(), client_config(m)?);
    w.insert("failurePolicy".into(), json!(failure_policy(m)?));
    if let Some(p) = match_policy(m)? {
        w.insert("matchPolicy".into(), json!(p));
    }
    w.insert("name".into(), json!(m.name));
    if let Some(p) = reinvocation_policy(m)? {
        w.insert("reinvocationPolicy".into(), json!(p));
    }
    w.insert("rules".into(), json!([rule(m)?]));
    w.insert("sideEffects".into(), json!(side_effects(m)?));
    // 0 is Go's unset value: the API server's default (10 seconds).
    if let Some(t) = m.timeout_seconds.filter(|t| *t != 0) {
        if !(1..=30).contains(&t) {
            return Err((
                format!("timeoutSeconds={t} is out of range"),
                "the API server takes 1 to 30 seconds (default 10)",
            ));
        }
        w.insert("timeoutSeconds".into(), json!(t));
    }
    for v in &m.webhook_versions {
        if v != "v1" {
            return Err((
                format!("unsupported webhook version: {v}"),
                "the only webhookVersions value is v1 (the default): drop the argument",
            ));
        }
    }
    Ok(Value::Object(w))
}

fn client_config(m: &WebhookArgs) -> Result<Value, Problem> {
    match (given(&m.path), given(&m.url)) {
        (Some(path), None) => {
            let mut service = Map::new();
            let name = given(&m.service_name).unwrap_or("webhook-service");
            let namespace = given(&m.service_namespace).unwrap_or("system");
            service.insert("name".into(), json!(name));
            service.insert("namespace".into(), json!(namespace));
            service.insert("path".into(), json!(path));
            if let Some(port) = m.service_port {
                service.insert("port".into(), json!(port));
            }
            Ok(json!({ "service": service }))
        }
        (None, Some(url)) => Ok(json!({ "url": url })),
        _ => Err((
            "`url` or `path` markers are required and mutually exclusive".into(),
            "give `path=/mutate-...` for the in-cluster service, or `url=\"https://...\"` for a webhook elsewhere",
        )),
    }
}

/// `value` matched case-insensitively against the API's spellings.
fn one_of(value: &str, allowed: &[&'static str]) -> Option<&'static str> {
    allowed
        .iter()
        .copied()
        .find(|a| a.eq_ignore_ascii_case(value))
}

fn failure_policy(m: &WebhookArgs) -> Result<&'static str, Problem> {
    let v = &m.failure_policy;
    one_of(v, &["Fail", "Ignore"]).ok_or_else(|| {
        (
            format!("unknown failurePolicy `{v}`: the API server refuses it"),
            "failurePolicy is `Fail` (reject when the webhook cannot be reached) or `Ignore`",
        )
    })
}

fn match_policy(m: &WebhookArgs) -> Result<Option<&'static str>, Problem> {
    let Some(v) = given(&m.match_policy) else {
        return Ok(None);
    };
    one_of(v, &["Exact", "Equivalent"])
        .map(Some)
        .ok_or_else(|| {
            (
                format!("unknown value \"{v}\" for matchPolicy"),
                "matchPolicy is `Exact` or `Equivalent` (the default)",
            )
        })
}

fn side_effects(m: &WebhookArgs) -> Result<&'static str, Problem> {
    let v = given(&m.side_effects);
    match v.and_then(|v| one_of(v, &["None", "NoneOnDryRun", "Some", "Unknown"])) {
        Some(s @ ("None" | "NoneOnDryRun")) => Ok(s),
        Some(_) => Err((
            "SideEffects should not be set to `Some` or `Unknown` for v1 {Mutating,Validating}WebhookConfiguration".into(),
            "write `sideEffects=None`, or `NoneOnDryRun` if the webhook checks the request's dryRun",
        )),
        None => Err((
            "SideEffects is required for creating v1 {Mutating,Validating}WebhookConfiguration".into(),
            "write `sideEffects=None`, or `NoneOnDryRun` if the webhook checks the request's dryRun",
        )),
    }
}

fn reinvocation_policy(m: &WebhookArgs) -> Result<Option<&'static str>, Problem> {
    // controller-gen drops it from validating webhooks, which have no such field.
    let Some(v) = given(&m.reinvocation_policy).filter(|_| m.mutating) else {
        return Ok(None);
    };
    one_of(v, &["Never", "IfNeeded"]).map(Some).ok_or_else(|| {
        (
            format!("unknown reinvocationPolicy `{v}`: the API server refuses it"),
            "reinvocationPolicy is `Never` (the default) or `IfNeeded`",
        )
    })
}

fn rule(m: &WebhookArgs) -> Result<Value, Problem> {
    let groups: Vec<&str> = m
        .groups
        .iter()
        .map(|g| if g == "core" { "" } else { g.as_str() })
        .collect();
    let mut operations = Vec::new();
    for verb in &m.verbs {
        let Some(op) = one_of(verb, &["CREATE", "UPDATE", "DELETE", "CONNECT", "*"]) else {
            return Err((
                format!("unknown verb `{verb}` in a webhook rule: the API server refuses it"),
                "verbs are create, update, delete, connect or * (separated by `;`)",
            ));
        };
        operations.push(op);
    }
    wildcard_alone("groups", groups.iter().copied(), |_| false)?;
    wildcard_alone("versions", m.versions.iter().map(String::as_str), |_| false)?;
    wildcard_alone("verbs", operations.iter().copied(), |_| false)?;
    // `*` beside subresources (`*/status`, `pods/log`) is allowed; beside a resource it is not.
    wildcard_alone("resources", m.resources.iter().map(String::as_str), |r| {
        r.contains('/')
    })?;
    Ok(json!({
        "apiGroups": groups,
        "apiVersions": m.versions,
        "operations": operations,
        "resources": m.resources,
    }))
}

/// The API server's rule for a webhook rule's lists: `*` already means everything, so it stands alone (apart
/// from values `allowed` beside it).
fn wildcard_alone<'a>(
    arg: &str,
    values: impl Iterator<Item = &'a str> + Clone,
    allowed: impl Fn(&str) -> bool,
) -> Result<(), Problem> {
    let has_wildcard = values.clone().any(|v| v == "*");
    match values.clone().find(|v| *v != "*" && !allowed(v)) {
        Some(other) if has_wildcard => Err((
            format!(
                "`*` in {arg} already matches `{other}`: the API server refuses `*` beside other values"
            ),
            "write `*` alone, or list the values without it",
        )),
        _ => Ok(()),
    }
}

/// Webhooks sorted by name, as controller-gen sorts them; two of one name are an error (the API server refuses
/// the configuration).
fn sorted_unique(
    model: &Model,
    mut webhooks: Vec<(&String, Value, At)>,
    diags: &mut Vec<Diagnostic>,
) -> Vec<Value> {
    webhooks.sort_by_key(|(name, _, _)| *name);
    for pair in webhooks.windows(2) {
        if pair[0].0 == pair[1].0 {
            diags.push(
                model
                    .locate(
                        pair[1].2,
                        Diagnostic::error(format!(
                            "a second webhook named `{}` in one configuration",
                            pair[1].0
                        )),
                    )
                    .with_hint("webhook names must be unique: kubebuilder's are m<kind>-<version>.kb.io and v<kind>-<version>.kb.io"),
            );
        }
    }
    webhooks.into_iter().map(|(_, w, _)| w).collect()
}
