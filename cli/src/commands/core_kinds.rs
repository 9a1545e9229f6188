//! Kinds a project does not define: Kubernetes' own (k8s-openapi's types) and other crates' (`--external-api-path`).
//!
//! Contract: `create api --resource=false` and `create webhook` scaffold for such a kind from a [`ForeignKind`]
//! (its Rust type, its group as RBAC and webhook rules write it, its plural and scope), and record it in PROJECT
//! as kubebuilder does: `core: true` with the k8s-openapi module as `path` (and no domain for the unsuffixed groups),
//! or `external: true` with `path`, `domain` and `module` (the crate, kubebuilder's Go module). A group that is
//! neither one of [`GROUPS`] nor given `--external-api-path` is refused, as is a kind its group and version lack.
//!
//! [`GROUPS`] and [`KINDS`] are the listable resources of k8s-openapi 0.29 with feature `v1_35`, the version and
//! feature the scaffold's Cargo.toml pins: each `impl crate::Resource` whose type is also `ListableResource` (a
//! controller lists and watches its kind). A group is named as kubebuilder's `--group` names it: the API group
//! without `.k8s.io`, `core` for the legacy group "". The test `the_tables_are_k8s_openapis` reads them again from
//! k8s-openapi's sources in cargo's registry (the workspace builds that crate) and prints the table to paste when
//! they differ.

use std::path::Path;

use anyhow::{Result, bail};

use crate::args::ExternalApiArgs;
use crate::names;
use crate::project_config::{ProjectConfig, ResourceConfig};
use crate::scaffold::Plan;

/// One of Kubernetes' API groups, as kubebuilder's `--group` names it.
#[derive(Debug)]
pub struct CoreGroup {
    /// `--group`: `core`, `apps`, `rbac.authorization`, ...
    pub name: &'static str,
    /// The API group: "" for core, `apps`, `rbac.authorization.k8s.io`, ...
    pub api_group: &'static str,
    /// What kubebuilder records as the domain: `k8s.io` for the suffixed groups, "" for the others.
    pub domain: &'static str,
    /// The module below `k8s_openapi::api`.
    pub module: &'static str,
}

/// One listable kind of a [`CoreGroup`].
#[derive(Debug)]
pub struct CoreKind {
    /// The [`CoreGroup::name`].
    pub group: &'static str,
    pub version: &'static str,
    pub kind: &'static str,
    pub plural: &'static str,
    pub namespaced: bool,
}

#[rustfmt::skip]
pub const GROUPS: &[CoreGroup] = &[
    CoreGroup { name: "admissionregistration", api_group: "admissionregistration.k8s.io", domain: "k8s.io", module: "admissionregistration" },
    CoreGroup { name: "apps", api_group: "apps", domain: "", module: "apps" },
    CoreGroup { name: "autoscaling", api_group: "autoscaling", domain: "", module: "autoscaling" },
    CoreGroup { name: "batch", api_group: "batch", domain: "", module: "batch" },
    CoreGroup { name: "certificates", api_group: "certificates.k8s.io", domain: "k8s.io", module: "certificates" },
    CoreGroup { name: "coordination", api_group: "coordination.k8s.io", domain: "k8s.io", module: "coordination" },
    CoreGroup { name: "core", api_group: "", domain: "", module: "core" },
    CoreGroup { name: "discovery", api_group: "discovery.k8s.io", domain: "k8s.io", module: "discovery" },
    CoreGroup { name: "events", api_group: "events.k8s.io", domain: "k8s.io", module: "events" },
    CoreGroup { name: "flowcontrol.apiserver", api_group: "flowcontrol.apiserver.k8s.io", domain: "k8s.io", module: "flowcontrol" },
    CoreGroup { name: "internal.apiserver", api_group: "internal.apiserver.k8s.io", domain: "k8s.io", module: "apiserverinternal" },
    CoreGroup { name: "networking", api_group: "networking.k8s.io", domain: "k8s.io", module: "networking" },
    CoreGroup { name: "node", api_group: "node.k8s.io", domain: "k8s.io", module: "node" },
    CoreGroup { name: "policy", api_group: "policy", domain: "", module: "policy" },
    CoreGroup { name: "rbac.authorization", api_group: "rbac.authorization.k8s.io", domain: "k8s.io", module: "rbac" },
    CoreGroup { name: "resource", api_group: "resource.k8s.io", domain: "k8s.io", module: "resource" },
    CoreGroup { name: "scheduling", api_group: "scheduling.k8s.io", domain: "k8s.io", module: "scheduling" },
    CoreGroup { name: "storage", api_group: "storage.k8s.io", domain: "k8s.io", module: "storage" },
    CoreGroup { name: "storagemigration", api_group: "storagemigration.k8s.io", domain: "k8s.io", module: "storagemigration" },
];

#[rustfmt::skip]
pub const KINDS: &[CoreKind] = &[
    CoreKind { group: "admissionregistration", version: "v1", kind: "MutatingWebhookConfiguration", plural: "mutatingwebhookconfigurations", namespaced: false },
    CoreKind { group: "admissionregistration", version: "v1", kind: "ValidatingAdmissionPolicy", plural: "validatingadmissionpolicies", namespaced: false },
    CoreKind { group: "admissionregistration", version: "v1", kind: "ValidatingAdmissionPolicyBinding", plural: "validatingadmissionpolicybindings", namespaced: false },
    CoreKind { group: "admissionregistration", version: "v1", kind: "ValidatingWebhookConfiguration", plural: "validatingwebhookconfigurations", namespaced: false },
    CoreKind { group: "admissionregistration", version: "v1alpha1", kind: "MutatingAdmissionPolicy", plural: "mutatingadmissionpolicies", namespaced: false },
    CoreKind { group: "admissionregistration", version: "v1alpha1", kind: "MutatingAdmissionPolicyBinding", plural: "mutatingadmissionpolicybindings", namespaced: false },
    CoreKind { group: "admissionregistration", version: "v1beta1", kind: "MutatingAdmissionPolicy", plural: "mutatingadmissionpolicies", namespaced: false },
    CoreKind { group: "admissionregistration", version: "v1beta1", kind: "MutatingAdmissionPolicyBinding", plural: "mutatingadmissionpolicybindings", namespaced: false },
    CoreKind { group: "internal.apiserver", version: "v1alpha1", kind: "StorageVersion", plural: "storageversions", namespaced: false },
    CoreKind { group: "apps", version: "v1", kind: "ControllerRevision", plural: "controllerrevisions", namespaced: true },
    CoreKind { group: "apps", version: "v1", kind: "DaemonSet", plural: "daemonsets", namespaced: true },
    CoreKind { group: "apps", version: "v1", kind: "Deployment", plural: "deployments", namespaced: true },
    CoreKind { group: "apps", version: "v1", kind: "ReplicaSet", plural: "replicasets", namespaced: true },
    CoreKind { group: "apps", version: "v1", kind: "StatefulSet", plural: "statefulsets", namespaced: true },
    CoreKind { group: "autoscaling", version: "v1", kind: "HorizontalPodAutoscaler", plural: "horizontalpodautoscalers", namespaced: true },
    CoreKind { group: "autoscaling", version: "v2", kind: "HorizontalPodAutoscaler", plural: "horizontalpodautoscalers", namespaced: true },
    CoreKind { group: "batch", version: "v1", kind: "CronJob", plural: "cronjobs", namespaced: true },
    CoreKind { group: "batch", version: "v1", kind: "Job", plural: "jobs", namespaced: true },
    CoreKind { group: "certificates", version: "v1", kind: "CertificateSigningRequest", plural: "certificatesigningrequests", namespaced: false },
    CoreKind { group: "certificates", version: "v1alpha1", kind: "ClusterTrustBundle", plural: "clustertrustbundles", namespaced: false },
    CoreKind { group: "certificates", version: "v1beta1", kind: "ClusterTrustBundle", plural: "clustertrustbundles", namespaced: false },
    CoreKind { group: "certificates", version: "v1beta1", kind: "PodCertificateRequest", plural: "podcertificaterequests", namespaced: true },
    CoreKind { group: "coordination", version: "v1", kind: "Lease", plural: "leases", namespaced: true },
    CoreKind { group: "coordination", version: "v1alpha2", kind: "LeaseCandidate", plural: "leasecandidates", namespaced: true },
    CoreKind { group: "coordination", version: "v1beta1", kind: "LeaseCandidate", plural: "leasecandidates", namespaced: true },
    CoreKind { group: "core", version: "v1", kind: "ComponentStatus", plural: "componentstatuses", namespaced: false },
    CoreKind { group: "core", version: "v1", kind: "ConfigMap", plural: "configmaps", namespaced: true },
    CoreKind { group: "core", version: "v1", kind: "Endpoints", plural: "endpoints", namespaced: true },
    CoreKind { group: "core", version: "v1", kind: "Event", plural: "events", namespaced: true },
    CoreKind { group: "core", version: "v1", kind: "LimitRange", plural: "limitranges", namespaced: true },
    CoreKind { group: "core", version: "v1", kind: "Namespace", plural: "namespaces", namespaced: false },
    CoreKind { group: "core", version: "v1", kind: "Node", plural: "nodes", namespaced: false },
    CoreKind { group: "core", version: "v1", kind: "PersistentVolume", plural: "persistentvolumes", namespaced: false },
    CoreKind { group: "core", version: "v1", kind: "PersistentVolumeClaim", plural: "persistentvolumeclaims", namespaced: true },
    CoreKind { group: "core", version: "v1", kind: "Pod", plural: "pods", namespaced: true },
    CoreKind { group: "core", version: "v1", kind: "PodTemplate", plural: "podtemplates", namespaced: true },
    CoreKind { group: "core", version: "v1", kind: "ReplicationController", plural: "replicationcontrollers", namespaced: true },
    CoreKind { group: "core", version: "v1", kind: "ResourceQuota", plural: "resourcequotas", namespaced: true },
    CoreKind { group: "core", version: "v1", kind: "Secret", plural: "secrets", namespaced: true },
    CoreKind { group: "core", version: "v1", kind: "Service", plural: "services", namespaced: true },
    CoreKind { group: "core", version: "v1", kind: "ServiceAccount", plural: "serviceaccounts", namespaced: true },
    CoreKind { group: "discovery", version: "v1", kind: "EndpointSlice", plural: "endpointslices", namespaced: true },
    CoreKind { group: "events", version: "v1", kind: "Event", plural: "events", namespaced: true },
    CoreKind { group: "flowcontrol.apiserver", version: "v1", kind: "FlowSchema", plural: "flowschemas", namespaced: false },
    CoreKind { group: "flowcontrol.apiserver", version: "v1", kind: "PriorityLevelConfiguration", plural: "prioritylevelconfigurations", namespaced: false },
    CoreKind { group: "networking", version: "v1", kind: "IPAddress", plural: "ipaddresses", namespaced: false },
    CoreKind { group: "networking", version: "v1", kind: "Ingress", plural: "ingresses", namespaced: true },
    CoreKind { group: "networking", version: "v1", kind: "IngressClass", plural: "ingressclasses", namespaced: false },
    CoreKind { group: "networking", version: "v1", kind: "NetworkPolicy", plural: "networkpolicies", namespaced: true },
    CoreKind { group: "networking", version: "v1", kind: "ServiceCIDR", plural: "servicecidrs", namespaced: false },
    CoreKind { group: "networking", version: "v1beta1", kind: "IPAddress", plural: "ipaddresses", namespaced: false },
    CoreKind { group: "networking", version: "v1beta1", kind: "ServiceCIDR", plural: "servicecidrs", namespaced: false },
    CoreKind { group: "node", version: "v1", kind: "RuntimeClass", plural: "runtimeclasses", namespaced: false },
    CoreKind { group: "policy", version: "v1", kind: "PodDisruptionBudget", plural: "poddisruptionbudgets", namespaced: true },
    CoreKind { group: "rbac.authorization", version: "v1", kind: "ClusterRole", plural: "clusterroles", namespaced: false },
    CoreKind { group: "rbac.authorization", version: "v1", kind: "ClusterRoleBinding", plural: "clusterrolebindings", namespaced: false },
    CoreKind { group: "rbac.authorization", version: "v1", kind: "Role", plural: "roles", namespaced: true },
    CoreKind { group: "rbac.authorization", version: "v1", kind: "RoleBinding", plural: "rolebindings", namespaced: true },
    CoreKind { group: "resource", version: "v1", kind: "DeviceClass", plural: "deviceclasses", namespaced: false },
    CoreKind { group: "resource", version: "v1", kind: "ResourceClaim", plural: "resourceclaims", namespaced: true },
    CoreKind { group: "resource", version: "v1", kind: "ResourceClaimTemplate", plural: "resourceclaimtemplates", namespaced: true },
    CoreKind { group: "resource", version: "v1", kind: "ResourceSlice", plural: "resourceslices", namespaced: false },
    CoreKind { group: "resource", version: "v1alpha3", kind: "DeviceTaintRule", plural: "devicetaintrules", namespaced: false },
    CoreKind { group: "resource", version: "v1beta1", kind: "DeviceClass", plural: "deviceclasses", namespaced: false },
    CoreKind { group: "resource", version: "v1beta1", kind: "ResourceClaim", plural: "resourceclaims", namespaced: true },
    CoreKind { group: "resource", version: "v1beta1", kind: "ResourceClaimTemplate", plural: "resourceclaimtemplates", namespaced: true },
    CoreKind { group: "resource", version: "v1beta1", kind: "ResourceSlice", plural: "resourceslices", namespaced: false },
    CoreKind { group: "resource", version: "v1beta2", kind: "DeviceClass", plural: "deviceclasses", namespaced: false },
    CoreKind { group: "resource", version: "v1beta2", kind: "ResourceClaim", plural: "resourceclaims", namespaced: true },
    CoreKind { group: "resource", version: "v1beta2", kind: "ResourceClaimTemplate", plural: "resourceclaimtemplates", namespaced: true },
    CoreKind { group: "resource", version: "v1beta2", kind: "ResourceSlice", plural: "resourceslices", namespaced: false },
    CoreKind { group: "scheduling", version: "v1", kind: "PriorityClass", plural: "priorityclasses", namespaced: false },
    CoreKind { group: "scheduling", version: "v1alpha1", kind: "Workload", plural: "workloads", namespaced: true },
    CoreKind { group: "storage", version: "v1", kind: "CSIDriver", plural: "csidrivers", namespaced: false },
    CoreKind { group: "storage", version: "v1", kind: "CSINode", plural: "csinodes", namespaced: false },
    CoreKind { group: "storage", version: "v1", kind: "CSIStorageCapacity", plural: "csistoragecapacities", namespaced: true },
    CoreKind { group: "storage", version: "v1", kind: "StorageClass", plural: "storageclasses", namespaced: false },
    CoreKind { group: "storage", version: "v1", kind: "VolumeAttachment", plural: "volumeattachments", namespaced: false },
    CoreKind { group: "storage", version: "v1", kind: "VolumeAttributesClass", plural: "volumeattributesclasses", namespaced: false },
    CoreKind { group: "storage", version: "v1beta1", kind: "VolumeAttributesClass", plural: "volumeattributesclasses", namespaced: false },
    CoreKind { group: "storagemigration", version: "v1beta1", kind: "StorageVersionMigration", plural: "storageversionmigrations", namespaced: false },
];

/// The Kubernetes group kubebuilder's `--group` names.
pub fn core_group(name: &str) -> Option<&'static CoreGroup> {
    GROUPS.iter().find(|g| g.name == name)
}

/// The kind of a Kubernetes group, or why there is none (naming the kinds there are).
pub fn core_kind(group: &CoreGroup, version: &str, kind: &str) -> Result<&'static CoreKind> {
    let in_group = || KINDS.iter().filter(|k| k.group == group.name);
    if let Some(found) = in_group().find(|k| k.version == version && k.kind == kind) {
        return Ok(found);
    }
    let versions: Vec<&str> = in_group()
        .filter(|k| k.kind == kind)
        .map(|k| k.version)
        .collect();
    if !versions.is_empty() {
        bail!(
            "invalid --version {version:?}: Kubernetes serves kind {kind} of group {} in {}, not {version}",
            group.name,
            versions.join(", ")
        );
    }
    let mut kinds: Vec<&str> = in_group()
        .filter(|k| k.version == version)
        .map(|k| k.kind)
        .collect();
    if kinds.is_empty() {
        let mut served: Vec<&str> = in_group().map(|k| k.version).collect();
        served.dedup();
        bail!(
            "invalid --version {version:?}: Kubernetes group {} has no version {version} (it has {})",
            group.name,
            served.join(", ")
        );
    }
    kinds.sort_unstable();
    bail!(
        "invalid --kind {kind:?}: Kubernetes group {} {version} has no kind {kind} (k8s-openapi's listable kinds there: {}); for a kind of another project pass --external-api-path <rust module path>",
        group.name,
        kinds.join(", ")
    )
}

/// What a controller or webhook of a kind the project does not define is scaffolded from.
#[derive(Debug, Clone)]
pub struct ForeignKind {
    /// The Rust path of the type: `k8s_openapi::api::apps::v1::Deployment`.
    pub type_path: String,
    /// The group as `+kubebuilder:rbac` writes it: `core` for the legacy group, as controller-gen reads it.
    pub rbac_group: String,
    pub plural: String,
    pub namespaced: bool,
    /// An object of the kind that the API server accepts (JSON), for the scaffolded tests; `None` where rkb knows
    /// none, and the tests are scaffolded ignored until the user writes one.
    pub sample: Option<&'static str>,
}

/// The PROJECT entry of a kind this project does not define, for `create api --resource=false` and `create
/// webhook`: the entry PROJECT has, else a new one from `external` (an external kind) or from the Kubernetes
/// tables. `Ok(None)` when the kind is the project's own (it has, or is getting, its API).
pub fn resolve(
    config: &ProjectConfig,
    dir: &Path,
    (group, version, kind): (&str, &str, &str),
    external: &ExternalApiArgs,
    own_kind_hint: &str,
) -> Result<Option<ResourceConfig>> {
    let recorded = config.find(group, version, kind);
    if let Some(entry) = recorded {
        if entry.api.is_some() {
            refuse_external_flags(external, "its API is defined in this project")?;
            return Ok(None);
        }
        if entry.core || entry.external {
            refuse_external_flags(external, "PROJECT records it already")?;
            return Ok(Some(entry.clone()));
        }
    }
    if let Some(path) = &external.external_api_path {
        return external_entry(config, dir, (group, version, kind), path, external).map(Some);
    }
    if let Some(core) = core_group(group) {
        let found = core_kind(core, version, kind)?;
        return Ok(Some(ResourceConfig {
            api: None,
            controller: false,
            controllers: None,
            core: true,
            domain: core.domain.to_string(),
            external: false,
            group: group.to_string(),
            kind: found.kind.to_string(),
            module: None,
            path: Some(format!(
                "k8s_openapi::api::{}::{}",
                core.module, found.version
            )),
            plural: None,
            version: version.to_string(),
            webhooks: None,
        }));
    }
    // A kind of one of the project's own groups: the caller says what it needs (its API scaffolded first).
    let own_group = config
        .resources
        .iter()
        .any(|r| r.group == group && r.api.is_some());
    if recorded.is_some() || own_group {
        return Ok(None);
    }
    let hint = match GROUPS.iter().find(|g| g.module == group || g.api_group == group) {
        Some(known) => format!("Kubernetes' group {:?} is `--group {}`", known.api_group, known.name),
        None => "for a kind of another crate pass --external-api-path <rust module path> (and --external-api-crate, --external-api-domain)".to_string(),
    };
    bail!(
        "invalid --group {group:?}: no kind {kind} of group {group} is defined in this project ({own_kind_hint}), and {group} is not one of Kubernetes' groups ({}); {hint}",
        GROUPS.iter().map(|g| g.name).collect::<Vec<_>>().join(", ")
    )
}

/// The `--external-api-*` flags describe a kind PROJECT does not hold yet.
fn refuse_external_flags(external: &ExternalApiArgs, why: &str) -> Result<()> {
    if external.external_api_path.is_some() {
        bail!(
            "--external-api-path names a kind defined outside this project, but {why}: drop the --external-api-* flags"
        );
    }
    Ok(())
}

/// A new PROJECT entry for an external kind, after checking the path, the crate and the domain.
fn external_entry(
    config: &ProjectConfig,
    dir: &Path,
    (group, version, kind): (&str, &str, &str),
    path: &str,
    external: &ExternalApiArgs,
) -> Result<ResourceConfig> {
    let segments: Vec<&str> = path.split("::").collect();
    if segments.iter().any(|s| !is_identifier(s)) {
        bail!(
            "invalid --external-api-path {path:?}: a Rust module path such as `cert_manager::v1` (the kind's type is `<path>::{kind}`)"
        );
    }
    let crate_ident = segments[0];
    match &external.external_api_crate {
        Some(spec) => {
            let (name, _) = parse_crate_spec(spec)?;
            if name.replace('-', "_") != crate_ident {
                bail!(
                    "invalid --external-api-path {path:?}: it must start with the crate --external-api-crate names ({}::...)",
                    name.replace('-', "_")
                );
            }
        }
        None => {
            let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap_or_default();
            let depends = manifest.lines().any(|l| {
                let key = l.split('=').next().unwrap_or("").trim();
                key.replace('-', "_") == crate_ident
            });
            if !depends {
                bail!(
                    "invalid --external-api-path {path:?}: Cargo.toml has no dependency {crate_ident}; pass --external-api-crate <crate>[@<version>] to add it"
                );
            }
        }
    }
    let domain = external
        .external_api_domain
        .clone()
        .unwrap_or_else(|| config.domain.clone());
    if !domain.is_empty() && !names::is_dns1123_subdomain(&domain) {
        bail!(
            "invalid --external-api-domain {domain:?}: a DNS-1123 subdomain such as `io` or `example.com`"
        );
    }
    Ok(ResourceConfig {
        api: None,
        controller: false,
        controllers: None,
        core: false,
        domain,
        external: true,
        group: group.to_string(),
        kind: kind.to_string(),
        module: external.external_api_crate.clone(),
        path: Some(path.to_string()),
        plural: None,
        version: version.to_string(),
        webhooks: None,
    })
}

fn is_identifier(segment: &str) -> bool {
    segment.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && segment
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_')
        && segment != "_"
}

/// `<crate>[@<version>]`: the crate's name and its version requirement (`*` when none is given).
fn parse_crate_spec(spec: &str) -> Result<(&str, &str)> {
    let (name, version) = spec.split_once('@').unwrap_or((spec, "*"));
    let name_ok = name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    let version_ok = !version.is_empty()
        && version
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || ".*^~=<>, -+".contains(c));
    if !name_ok || !version_ok {
        bail!(
            "invalid --external-api-crate {spec:?}: a crate name and an optional version requirement, e.g. `my-crds` or `my-crds@0.3`"
        );
    }
    Ok((name, version))
}

/// Adds `--external-api-crate`'s crate to Cargo.toml's [dependencies] (after its last entry), unless it is there.
pub fn add_crate_dependency(plan: &mut Plan, spec: &str) -> Result<()> {
    let (name, version) = parse_crate_spec(spec)?;
    let rel = Path::new("Cargo.toml");
    let text = plan.read(rel)?;
    let lines: Vec<&str> = text.lines().collect();
    let Some(section) = lines.iter().position(|l| l.trim() == "[dependencies]") else {
        bail!(
            "Cargo.toml has no [dependencies] table to add {name} to; add `{name} = \"{version}\"` yourself and drop --external-api-crate"
        );
    };
    let end = (section + 1..lines.len())
        .find(|&n| lines[n].trim_start().starts_with('['))
        .unwrap_or(lines.len());
    let entries = &lines[section + 1..end];
    if entries
        .iter()
        .any(|l| l.split('=').next().unwrap_or("").trim() == name)
    {
        return Ok(());
    }
    let last = entries
        .iter()
        .rposition(|l| !l.trim().is_empty())
        .map_or(section, |n| section + 1 + n);
    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    out.insert(last + 1, format!("{name} = \"{version}\""));
    plan.update(rel, out.join("\n") + "\n")
}

/// The scaffolding facts of a core or external PROJECT entry.
pub fn foreign_kind(resource: &ResourceConfig) -> ForeignKind {
    let module = resource.path.clone().unwrap_or_default();
    let core = core_group(&resource.group)
        .filter(|_| resource.core)
        .and_then(|g| core_kind(g, &resource.version, &resource.kind).ok());
    let full_group = resource.full_group();
    ForeignKind {
        type_path: format!("{module}::{}", resource.kind),
        rbac_group: if full_group.is_empty() {
            "core".to_string()
        } else {
            full_group
        },
        plural: core.map_or_else(|| resource.plural(), |k| k.plural.to_string()),
        namespaced: core.is_none_or(|k| k.namespaced),
        sample: core.and_then(|k| sample(k.group, k.kind)),
    }
}

/// Objects the API server accepts for the kinds scaffolds most often watch or mutate: the tests create them. Other
/// kinds' tests are scaffolded ignored, with a TODO to write one.
fn sample(group: &str, kind: &str) -> Option<&'static str> {
    Some(match (group, kind) {
        ("core", "Pod") => POD_SAMPLE,
        ("apps", "Deployment") => DEPLOYMENT_SAMPLE,
        ("core", "ConfigMap") => r#"{"data": {"key": "value"}}"#,
        // Kinds whose fields are all optional.
        ("core", "Namespace" | "Secret" | "ServiceAccount")
        | ("rbac.authorization", "Role" | "ClusterRole") => "{}",
        _ => return None,
    })
}

const POD_SAMPLE: &str =
    r#"{"spec": {"containers": [{"name": "app", "image": "registry.k8s.io/pause:3.10"}]}}"#;

const DEPLOYMENT_SAMPLE: &str = r#"{"spec": {"selector": {"matchLabels": {"app": "sample"}}, "template": {"metadata": {"labels": {"app": "sample"}}, "spec": {"containers": [{"name": "app", "image": "registry.k8s.io/pause:3.10"}]}}}}"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_is_in_a_known_group() {
        for kind in KINDS {
            assert!(core_group(kind.group).is_some(), "{kind:?}");
        }
    }

    /// `(module path, API group, version, kind, plural, namespaced)` of each listable resource in the k8s-openapi
    /// sources below `api`.
    fn listable_resources(api: &Path) -> Vec<(String, String, String, String, String, bool)> {
        let mut found = Vec::new();
        let mut dirs = vec![api.to_path_buf()];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap().map(Result::unwrap) {
                let path = entry.path();
                if path.is_dir() {
                    dirs.push(path);
                    continue;
                }
                let text = std::fs::read_to_string(&path).unwrap();
                let Some(at) = text.find("impl crate::Resource for ") else {
                    continue;
                };
                if !text.contains("impl crate::ListableResource for ") {
                    continue;
                }
                let block = &text[at..text[at..].find("\n}").map_or(text.len(), |end| at + end)];
                let constant = |name: &str| {
                    let line = block
                        .lines()
                        .find(|l| l.contains(&format!("const {name}:")))
                        .unwrap();
                    line.split('"').nth(1).unwrap().to_string()
                };
                let module = path.parent().unwrap().strip_prefix(api).unwrap();
                let module: Vec<String> = module
                    .iter()
                    .map(|c| c.to_string_lossy().into_owned())
                    .collect();
                found.push((
                    module.join("::"),
                    constant("GROUP"),
                    constant("VERSION"),
                    constant("KIND"),
                    constant("URL_PATH_SEGMENT"),
                    block.contains("NamespaceResourceScope"),
                ));
            }
        }
        found.sort();
        found
    }

    #[test]
    fn the_tables_are_k8s_openapis() {
        let home = std::env::var_os("CARGO_HOME")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| {
                std::path::PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cargo")
            });
        let api = std::fs::read_dir(home.join("registry/src"))
            .expect("cargo's registry sources (the workspace depends on k8s-openapi 0.29)")
            .map(|e| e.unwrap().path().join("k8s-openapi-0.29.0/src/v1_35/api"))
            .find(|p| p.is_dir())
            .expect("k8s-openapi 0.29.0's sources in cargo's registry (build the workspace once)");
        let mut expected = Vec::new();
        for (module, api_group, version, kind, plural, namespaced) in listable_resources(&api) {
            let name = if api_group.is_empty() {
                "core"
            } else {
                api_group.strip_suffix(".k8s.io").unwrap_or(&api_group)
            };
            let group =
                core_group(name).unwrap_or_else(|| panic!("GROUPS lacks {name} ({api_group})"));
            assert_eq!(
                (group.api_group, group.module),
                (api_group.as_str(), module.split("::").next().unwrap())
            );
            expected.push(format!(
                "    CoreKind {{ group: \"{name}\", version: \"{version}\", kind: \"{kind}\", plural: \"{plural}\", namespaced: {namespaced} }},"
            ));
        }
        expected.sort();
        let mut actual: Vec<String> = KINDS
            .iter()
            .map(|k| format!(
                "    CoreKind {{ group: \"{}\", version: \"{}\", kind: \"{}\", plural: \"{}\", namespaced: {} }},",
                k.group, k.version, k.kind, k.plural, k.namespaced
            ))
            .collect();
        actual.sort();
        assert!(
            actual == expected,
            "KINDS differs from k8s-openapi; the table is:\n{}",
            expected.join("\n")
        );
    }

    #[test]
    fn unknown_kinds_and_versions_are_named() {
        let apps = core_group("apps").unwrap();
        assert_eq!(
            core_kind(apps, "v1", "Deployment").unwrap().plural,
            "deployments"
        );
        let err = core_kind(apps, "v1", "Deploymnet").unwrap_err().to_string();
        assert!(
            err.contains("has no kind Deploymnet") && err.contains("Deployment, ReplicaSet"),
            "{err}"
        );
        let err = core_kind(apps, "v1beta1", "Deployment")
            .unwrap_err()
            .to_string();
        assert!(err.contains("in v1, not v1beta1"), "{err}");
    }
}
