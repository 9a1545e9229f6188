//! Clients with exactly the permissions of an RBAC file, so tests run a controller the way a cluster runs it:
//! as a service identity holding only the generated `config/rbac/role.yaml`. A missing `+kubebuilder:rbac` marker
//! then fails the test with a 403, where the admin client would hide it.

use k8s_openapi::api::rbac::v1::{
    ClusterRole, ClusterRoleBinding, Role, RoleBinding, RoleRef, Subject,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::Client;
use kube::api::{Api, PostParams};

use crate::Environment;
use crate::error::{Error, Result};

impl Environment {
    /// A client acting as `user` (by impersonation), bound to every ClusterRole and Role in `rbac_yaml`
    /// (for instance `include_str!("../config/rbac/role.yaml")`). The roles are created, each bound to `user`
    /// with a binding named `<user>-<role>`; any other kind of document is an error.
    pub async fn client_with_rbac(&self, user: &str, rbac_yaml: &str) -> Result<Client> {
        let admin = self.client();
        let post = PostParams::default();
        for (index, document) in crate::crds::yaml_documents(rbac_yaml) {
            let Some(value) = document.map_err(|message| Error::RbacDocument { index, message })?
            else {
                continue;
            };
            let kind = value
                .get("kind")
                .and_then(|k| k.as_str())
                .unwrap_or_default()
                .to_string();
            match kind.as_str() {
                "ClusterRole" => {
                    let role: ClusterRole =
                        serde_json::from_value(value).map_err(|e| parse_error(index, e))?;
                    let name = role.metadata.name.clone().unwrap_or_default();
                    Api::<ClusterRole>::all(admin.clone())
                        .create(&post, &role)
                        .await?;
                    let binding = ClusterRoleBinding {
                        metadata: named(format!("{user}-{name}"), None),
                        role_ref: role_ref("ClusterRole", name),
                        subjects: Some(vec![user_subject(user)]),
                    };
                    Api::<ClusterRoleBinding>::all(admin.clone())
                        .create(&post, &binding)
                        .await?;
                }
                "Role" => {
                    let role: Role =
                        serde_json::from_value(value).map_err(|e| parse_error(index, e))?;
                    let name = role.metadata.name.clone().unwrap_or_default();
                    let namespace = role
                        .metadata
                        .namespace
                        .clone()
                        .unwrap_or_else(|| "default".to_string());
                    Api::<Role>::namespaced(admin.clone(), &namespace)
                        .create(&post, &role)
                        .await?;
                    let binding = RoleBinding {
                        metadata: named(format!("{user}-{name}"), Some(namespace.clone())),
                        role_ref: role_ref("Role", name),
                        subjects: Some(vec![user_subject(user)]),
                    };
                    Api::<RoleBinding>::namespaced(admin.clone(), &namespace)
                        .create(&post, &binding)
                        .await?;
                }
                other => {
                    return Err(Error::RbacDocument {
                        index,
                        message: format!("expected a ClusterRole or Role, found kind {other:?}"),
                    });
                }
            }
        }
        let mut config = self.config().clone();
        config.auth_info.impersonate = Some(user.to_string());
        Ok(Client::try_from(config)?)
    }
}

fn parse_error(index: usize, err: serde_json::Error) -> Error {
    Error::RbacDocument {
        index,
        message: err.to_string(),
    }
}

fn named(name: String, namespace: Option<String>) -> ObjectMeta {
    ObjectMeta {
        name: Some(name),
        namespace,
        ..ObjectMeta::default()
    }
}

fn role_ref(kind: &str, name: String) -> RoleRef {
    RoleRef {
        api_group: "rbac.authorization.k8s.io".into(),
        kind: kind.into(),
        name,
    }
}

fn user_subject(user: &str) -> Subject {
    Subject {
        kind: "User".into(),
        name: user.into(),
        api_group: Some("rbac.authorization.k8s.io".into()),
        namespace: None,
    }
}
