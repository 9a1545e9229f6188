//! Least privilege, checked: the rules of an operator's roles (`config/rbac/role.yaml`,
//! `leader_election_role.yaml`) against the requests its identity made, as the audit log recorded them
//! ([`EnvironmentBuilder::with_audit_log`](crate::EnvironmentBuilder::with_audit_log)).
//!
//! Contract of [`Environment::privilege_report`]:
//! - A permission is one (API group, resource or `resource/subresource`, verb) of one rule, in the namespace of a
//!   Role or in every namespace for a ClusterRole. It is *used* when the user made a request it authorises (the
//!   request's namespace in the Role's, its name among the rule's `resourceNames` if the rule lists any); a
//!   permission no request used is reported as unused.
//! - A `patch` or `update` that created its object (201 Created: server-side apply of a new object) also uses
//!   `create`: the API server authorises that inside the request, where the audit log shows no request of its own.
//! - A resource request of the user that no permission authorises is reported as ungranted, whatever the server
//!   answered (a 403, or a 2xx allowed by another binding). Non-resource requests (`/version`, discovery) are not
//!   compared: every authenticated user may make them, through the cluster's own `system:discovery` role.
//! - A wildcard (`*`) in a rule's groups, resources or verbs is reported as such: it grants verbs no test can
//!   exercise; name the ones used instead.
//! - An [`Allowance`] excuses one unused permission and must give the reason it is needed anyway (a path one run
//!   does not take). An allowance that excuses nothing (its permission was used, or is not granted) is reported
//!   as stale, so the list cannot outlive the code it describes.

use std::collections::BTreeSet;
use std::fmt;

use k8s_openapi::api::core::v1::Namespace;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::api::PostParams;

use crate::Environment;
use crate::audit::AuditEvent;
use crate::error::Result;
use crate::roles::{self, RoleDocument};

/// One unused permission that is needed all the same, with the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Allowance {
    /// The API group (`""` for the core group).
    pub api_group: &'static str,
    /// The resource, or `resource/subresource`.
    pub resource: &'static str,
    /// The verb.
    pub verb: &'static str,
    /// Why the role holds it although the test's run does not use it.
    pub reason: &'static str,
}

impl Allowance {
    /// `update` on `<plural>/finalizers` of `api_group`: needed by a controller whose children's owner references
    /// set `blockOwnerDeletion` (as a controller reference does), which a cluster running the
    /// OwnerReferencesPermissionEnforcement admission plugin allows only to whoever may update the owner's
    /// finalizers. An admission check is no request of its own, so no audit log shows it.
    pub const fn owner_finalizers(api_group: &'static str, resource: &'static str) -> Self {
        Self {
            api_group,
            resource,
            verb: "update",
            reason: "children's owner references set blockOwnerDeletion (OwnerReferencesPermissionEnforcement)",
        }
    }
}

/// One permission of a role.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Permission {
    /// `ClusterRole <name>` or `Role <namespace>/<name>`.
    pub role: String,
    /// The Role's namespace; `None` for a ClusterRole (every namespace).
    pub namespace: Option<String>,
    /// The API group (`""` for the core group).
    pub api_group: String,
    /// The resource, or `resource/subresource`.
    pub resource: String,
    /// The verb.
    pub verb: String,
    /// The rule's `resourceNames`, empty when it names none.
    pub resource_names: Vec<String>,
}

impl Permission {
    fn authorises(&self, event: &AuditEvent) -> bool {
        let matches = |granted: &str, asked: &str| granted == "*" || granted == asked;
        let in_namespace = self
            .namespace
            .as_ref()
            .is_none_or(|ns| event.namespace.as_ref() == Some(ns));
        let named = self.resource_names.is_empty()
            || event
                .name
                .as_ref()
                .is_some_and(|n| self.resource_names.contains(n));
        in_namespace
            && named
            && matches(&self.api_group, &event.api_group)
            && matches(&self.resource, &event.rbac_resource())
            && matches(&self.verb, &event.verb)
    }

    fn is_wildcard(&self) -> bool {
        [&self.api_group, &self.resource, &self.verb]
            .iter()
            .any(|s| s.as_str() == "*")
    }

    fn is_excused_by(&self, allowance: &Allowance) -> bool {
        self.api_group == allowance.api_group
            && self.resource == allowance.resource
            && self.verb == allowance.verb
    }
}

impl fmt::Display for Permission {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let group = if self.api_group.is_empty() {
            "\"\""
        } else {
            &self.api_group
        };
        write!(f, "{} {group} {} ({})", self.verb, self.resource, self.role)
    }
}

/// The permissions of every ClusterRole and Role in an RBAC YAML text (other kinds are an error, as in
/// [`Environment::client_with_rbac`]). Non-resource URL rules are left out.
pub fn permissions(rbac_yaml: &str) -> Result<Vec<Permission>> {
    let mut permissions = Vec::new();
    for document in roles::parse(rbac_yaml)? {
        let (role, namespace, rules) = match document {
            RoleDocument::Cluster(role) => {
                let name = role.metadata.name.unwrap_or_default();
                (format!("ClusterRole {name}"), None, role.rules)
            }
            RoleDocument::Namespaced(role) => {
                let name = role.metadata.name.unwrap_or_default();
                let ns = role.metadata.namespace.unwrap_or_default();
                (format!("Role {ns}/{name}"), Some(ns), role.rules)
            }
        };
        for rule in rules.unwrap_or_default() {
            let groups = rule.api_groups.unwrap_or_default();
            let resources = rule.resources.unwrap_or_default();
            for (group, resource, verb) in product(&groups, &resources, &rule.verbs) {
                permissions.push(Permission {
                    role: role.clone(),
                    namespace: namespace.clone(),
                    api_group: group.clone(),
                    resource: resource.clone(),
                    verb: verb.clone(),
                    resource_names: rule.resource_names.clone().unwrap_or_default(),
                });
            }
        }
    }
    Ok(permissions)
}

fn product<'a>(
    groups: &'a [String],
    resources: &'a [String],
    verbs: &'a [String],
) -> impl Iterator<Item = (&'a String, &'a String, &'a String)> {
    groups.iter().flat_map(move |g| {
        resources
            .iter()
            .flat_map(move |r| verbs.iter().map(move |v| (g, r, v)))
    })
}

/// What [`compare`] found; empty when the roles grant exactly what was used (allowances aside).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PrivilegeReport {
    /// The user compared.
    pub user: String,
    /// Granted, never used, and not excused by an allowance.
    pub unused: Vec<Permission>,
    /// Used (verb, API group, resource, namespace), authorised by no permission.
    pub ungranted: Vec<(String, String, String, Option<String>)>,
    /// Permissions with a `*`.
    pub wildcards: Vec<Permission>,
    /// Allowances that excuse no unused permission.
    pub stale_allowances: Vec<Allowance>,
}

impl PrivilegeReport {
    /// Whether the roles grant exactly what was used.
    pub fn is_least(&self) -> bool {
        self.unused.is_empty()
            && self.ungranted.is_empty()
            && self.wildcards.is_empty()
            && self.stale_allowances.is_empty()
    }
}

impl fmt::Display for PrivilegeReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_least() {
            return write!(f, "{}: the roles grant exactly what it used", self.user);
        }
        writeln!(f, "{}: the roles are not least privilege:", self.user)?;
        for p in &self.unused {
            writeln!(f, "  granted, never used: {p}")?;
        }
        for (verb, group, resource, namespace) in &self.ungranted {
            let group = if group.is_empty() { "\"\"" } else { group };
            let place = namespace.as_ref().map_or_else(
                || "cluster-wide".to_string(),
                |ns| format!("in namespace {ns}"),
            );
            writeln!(
                f,
                "  used, not granted: {verb} {group} {resource} ({place})"
            )?;
        }
        for p in &self.wildcards {
            writeln!(f, "  wildcard, name the verbs and resources used: {p}")?;
        }
        for a in &self.stale_allowances {
            writeln!(
                f,
                "  allowance excuses nothing (used, or not granted): {} {:?} {}",
                a.verb, a.api_group, a.resource
            )?;
        }
        Ok(())
    }
}

/// The request, and the verbs the API server authorised with it that the audit log shows no request of (module
/// docs): the `create` of a `patch` or `update` that made its object (answered 201 Created: a server-side apply of
/// a new object, a PUT that creates), the `list` of a streaming list's `watch`.
fn with_implied_uses(event: &AuditEvent) -> Vec<AuditEvent> {
    let implied = |verb: &str| AuditEvent {
        verb: verb.into(),
        ..event.clone()
    };
    let mut uses = vec![event.clone()];
    if (event.verb == "patch" || event.verb == "update") && event.code == Some(201) {
        uses.push(implied("create"));
    }
    if event.verb == "watch" && is_streaming_list(&event.request_uri) {
        uses.push(implied("list"));
    }
    uses
}

/// Whether a request URI asks for the initial state as watch events (`sendInitialEvents=true`).
pub(crate) fn is_streaming_list(request_uri: &str) -> bool {
    let query = request_uri.split_once('?').map_or("", |(_, query)| query);
    query
        .split('&')
        .any(|parameter| parameter == "sendInitialEvents=true")
}

/// Compares `permissions` with the resource requests `user` made among `events`, as the module docs say.
pub fn compare(
    user: &str,
    permissions: &[Permission],
    events: &[AuditEvent],
    allowances: &[Allowance],
) -> PrivilegeReport {
    let requests: Vec<AuditEvent> = events
        .iter()
        .filter(|e| e.user == user && !e.is_non_resource())
        .flat_map(with_implied_uses)
        .collect();
    let used = |p: &Permission| requests.iter().any(|e| p.authorises(e));
    let (wildcards, exact): (Vec<&Permission>, Vec<&Permission>) =
        permissions.iter().partition(|p| p.is_wildcard());
    let unused: Vec<&Permission> = exact.into_iter().filter(|p| !used(p)).collect();
    let excused = |p: &Permission| allowances.iter().any(|a| p.is_excused_by(a));
    let ungranted: BTreeSet<_> = requests
        .iter()
        .filter(|e| !permissions.iter().any(|p| p.authorises(e)))
        .map(|e| {
            (
                e.verb.clone(),
                e.api_group.clone(),
                e.rbac_resource(),
                e.namespace.clone(),
            )
        })
        .collect();
    PrivilegeReport {
        user: user.to_string(),
        unused: unused
            .iter()
            .filter(|p| !excused(p))
            .map(|p| (*p).clone())
            .collect(),
        ungranted: ungranted.into_iter().collect(),
        wildcards: wildcards.into_iter().cloned().collect(),
        stale_allowances: allowances
            .iter()
            .filter(|a| !unused.iter().any(|p| p.is_excused_by(a)))
            .cloned()
            .collect(),
    }
}

impl Environment {
    /// A client acting as `user` and holding exactly the roles in `rbac_yamls` (e.g. `role.yaml` and
    /// `leader_election_role.yaml`), as [`Environment::client_with_rbac`] makes one; the namespaces of the Roles
    /// (the scaffold's leader election Role is in `system`) are created first when missing.
    pub async fn client_with_roles(&self, user: &str, rbac_yamls: &[&str]) -> Result<kube::Client> {
        let namespaces: BTreeSet<String> = roles::parse(&joined(rbac_yamls))?
            .into_iter()
            .filter_map(|document| match document {
                RoleDocument::Namespaced(role) => role.metadata.namespace,
                RoleDocument::Cluster(_) => None,
            })
            .collect();
        let api = kube::Api::<Namespace>::all(self.client());
        for name in namespaces {
            if api.get_opt(&name).await?.is_none() {
                let namespace = Namespace {
                    metadata: ObjectMeta {
                        name: Some(name),
                        ..ObjectMeta::default()
                    },
                    ..Namespace::default()
                };
                api.create(&PostParams::default(), &namespace).await?;
            }
        }
        self.client_with_rbac(user, &joined(rbac_yamls)).await
    }

    /// Compares the roles in `rbac_yamls` with the requests `user` has made so far, as the audit log recorded them
    /// (see the `privilege` module docs). Read it after the client under test has stopped. An error when the
    /// environment has no audit log or the YAML is not roles.
    pub fn privilege_report(
        &self,
        user: &str,
        rbac_yamls: &[&str],
        allowances: &[Allowance],
    ) -> Result<PrivilegeReport> {
        let permissions = permissions(&joined(rbac_yamls))?;
        Ok(compare(
            user,
            &permissions,
            &self.audit_events()?,
            allowances,
        ))
    }
}

/// Several YAML streams as one.
fn joined(yamls: &[&str]) -> String {
    yamls.join("\n---\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROLES: &str = "\
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: manager-role
rules:
- apiGroups:
  - apps
  resources:
  - deployments
  verbs:
  - delete
  - list
  - watch
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: leader-election-role
  namespace: system
rules:
- apiGroups:
  - coordination.k8s.io
  resources:
  - leases
  verbs:
  - get
";

    fn request(verb: &str, group: &str, resource: &str, namespace: &str) -> AuditEvent {
        AuditEvent {
            user: "op".into(),
            verb: verb.into(),
            api_group: group.into(),
            resource: resource.into(),
            subresource: None,
            namespace: Some(namespace.into()),
            name: None,
            request_uri: String::new(),
            code: Some(200),
        }
    }

    #[test]
    fn unused_and_ungranted_are_named_and_a_role_counts_in_its_namespace_only() {
        let permissions = permissions(ROLES).unwrap();
        let mut other_user = request("delete", "apps", "deployments", "default");
        // A server-side apply that made its object: a create as well as a patch.
        let mut created = request("patch", "apps", "deployments", "default");
        created.code = Some(201);
        other_user.user = "admin".into();
        let events = [
            request("list", "apps", "deployments", "default"),
            request("watch", "apps", "deployments", "default"),
            request("patch", "apps", "deployments", "default"),
            created,
            // A lease outside the Role's namespace is not authorised by it.
            request("get", "coordination.k8s.io", "leases", "default"),
            other_user,
        ];
        let allow = [Allowance {
            api_group: "apps",
            resource: "deployments",
            verb: "watch",
            reason: "a stale allowance: watch is used",
        }];
        let report = compare("op", &permissions, &events, &allow);
        assert_eq!(
            report.to_string(),
            "op: the roles are not least privilege:
  granted, never used: delete apps deployments (ClusterRole manager-role)
  granted, never used: get coordination.k8s.io leases (Role system/leader-election-role)
  used, not granted: create apps deployments (in namespace default)
  used, not granted: get coordination.k8s.io leases (in namespace default)
  used, not granted: patch apps deployments (in namespace default)
  allowance excuses nothing (used, or not granted): watch \"apps\" deployments
"
        );
    }

    #[test]
    fn an_allowance_excuses_an_unused_permission() {
        let permissions = permissions(ROLES).unwrap();
        let events = [
            request("list", "apps", "deployments", "default"),
            request("watch", "apps", "deployments", "default"),
            request("get", "coordination.k8s.io", "leases", "system"),
        ];
        let allow = [Allowance {
            api_group: "apps",
            resource: "deployments",
            verb: "delete",
            reason: "the cleanup path",
        }];
        let report = compare("op", &permissions, &events, &allow);
        assert!(report.is_least(), "{report}");
    }

    #[test]
    fn a_streaming_list_uses_list_and_a_plain_watch_does_not() {
        let permissions = permissions(ROLES).unwrap();
        let uri = "/apis/apps/v1/namespaces/default/deployments?allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&timeoutSeconds=290&watch=true";
        let mut streaming = request("watch", "apps", "deployments", "default");
        streaming.request_uri = uri.into();
        let delete = request("delete", "apps", "deployments", "default");
        let lease = request("get", "coordination.k8s.io", "leases", "system");
        let report = compare(
            "op",
            &permissions,
            &[streaming, delete.clone(), lease.clone()],
            &[],
        );
        assert!(report.is_least(), "{report}");

        // The same watch resumed (no initial events) reads no list.
        let mut resumed = request("watch", "apps", "deployments", "default");
        resumed.request_uri = uri.replace("sendInitialEvents=true", "sendInitialEvents=false");
        let report = compare("op", &permissions, &[resumed, delete, lease], &[]);
        assert_eq!(
            report.to_string(),
            "op: the roles are not least privilege:
  granted, never used: list apps deployments (ClusterRole manager-role)
"
        );
    }
}
