//! The audit log of a real kube-apiserver: a role-bound client's requests are recorded as its user, a refused one
//! with its 403, and compared with its roles (a ClusterRole, and a Role in a namespace made for it).

use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use kube::api::{Api, ListParams};
use rkb_envtest::{Allowance, Environment};

const USER: &str = "audited-operator";

const ROLE: &str = "\
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: reader
rules:
- apiGroups:
  - \"\"
  resources:
  - configmaps
  verbs:
  - get
  - list
";

/// A Role in a namespace that does not exist yet: `client_with_roles` creates it.
const NAMESPACED: &str = "\
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: lease-reader
  namespace: audited
rules:
- apiGroups:
  - coordination.k8s.io
  resources:
  - leases
  verbs:
  - get
";

#[tokio::test]
async fn a_users_requests_are_logged_and_compared_with_its_role() {
    let env = Environment::builder()
        .with_audit_log()
        .start()
        .await
        .expect("envtest");
    let client = env
        .client_with_roles(USER, &[ROLE, NAMESPACED])
        .await
        .expect("role-bound client");
    let lease = Api::<Lease>::namespaced(client.clone(), "audited")
        .get_opt("nobody-holds-it")
        .await
        .expect("leases may be read in the Role's namespace");
    assert!(lease.is_none());
    Api::<ConfigMap>::namespaced(client.clone(), "default")
        .list(&ListParams::default())
        .await
        .expect("configmaps may be listed");
    let refused = Api::<Secret>::namespaced(client, "default")
        .list(&ListParams::default())
        .await;
    assert!(
        matches!(&refused, Err(kube::Error::Api(s)) if s.code == 403),
        "{refused:?}"
    );

    let mine: Vec<_> = env
        .audit_events()
        .expect("audit log")
        .into_iter()
        .filter(|e| e.user == USER)
        .map(|e| (e.verb, e.api_group, e.resource, e.namespace, e.code))
        .collect();
    let default = Some("default".to_string());
    assert_eq!(
        mine,
        [
            (
                "get".into(),
                "coordination.k8s.io".into(),
                "leases".into(),
                Some("audited".to_string()),
                Some(404)
            ),
            (
                "list".into(),
                "".into(),
                "configmaps".into(),
                default.clone(),
                Some(200)
            ),
            (
                "list".into(),
                "".into(),
                "secrets".into(),
                default,
                Some(403)
            ),
        ]
    );

    // The refusal, as a scaffolded controller test reports a missing RBAC marker; the admin's requests never count.
    let forbidden = env.ensure_not_forbidden(USER).unwrap_err().to_string();
    assert_eq!(
        forbidden,
        "403 Forbidden: the API server refused 1 request(s) of audited-operator, which its RBAC roles do not allow:
    list core/secrets in namespace default
hint: grant each with a marker such as `// +kubebuilder:rbac:groups=core,resources=secrets,verbs=list` on the \
controller, then run `make manifests` (config/rbac/role.yaml)"
    );
    env.ensure_not_forbidden("someone-else")
        .expect("refusals of other users do not count");

    let report = env
        .privilege_report(USER, &[ROLE, NAMESPACED], &[])
        .expect("report");
    assert_eq!(
        report.to_string(),
        "audited-operator: the roles are not least privilege:
  granted, never used: get \"\" configmaps (ClusterRole reader)
  used, not granted: list \"\" secrets (in namespace default)
"
    );
    let allow = [Allowance {
        api_group: "",
        resource: "configmaps",
        verb: "get",
        reason: "not needed: shows that an allowance excuses only what it names",
    }];
    let report = env
        .privilege_report(USER, &[ROLE, NAMESPACED], &allow)
        .expect("report");
    assert_eq!(report.unused, []);
    assert_eq!(report.ungranted.len(), 1, "{report}");
}

#[tokio::test]
async fn without_the_audit_log_reading_it_is_an_error() {
    let env = Environment::start().await.expect("envtest");
    let err = env.audit_events().unwrap_err();
    let cause = std::error::Error::source(&err).map(ToString::to_string);
    assert_eq!(
        cause.as_deref(),
        Some("no audit log: build the environment with `.with_audit_log()`")
    );
}
