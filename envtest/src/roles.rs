//! The roles of an RBAC YAML text (`config/rbac/role.yaml` and the like), typed: every document a ClusterRole or a
//! Role, anything else an error naming the document.

use k8s_openapi::api::rbac::v1::{ClusterRole, Role};

use crate::error::{Error, Result};

/// One role document.
pub(crate) enum RoleDocument {
    Cluster(ClusterRole),
    /// A Role; without a namespace it goes to `default`, as `kubectl apply` would put it.
    Namespaced(Role),
}

/// The roles in `rbac_yaml`, in document order; empty documents skipped.
pub(crate) fn parse(rbac_yaml: &str) -> Result<Vec<RoleDocument>> {
    let mut roles = Vec::new();
    for (index, document) in crate::crds::yaml_documents(rbac_yaml) {
        let Some(value) = document.map_err(|message| Error::RbacDocument { index, message })?
        else {
            continue;
        };
        let bad = |e: serde_json::Error| Error::RbacDocument {
            index,
            message: e.to_string(),
        };
        let kind = value
            .get("kind")
            .and_then(|k| k.as_str())
            .unwrap_or_default();
        roles.push(match kind {
            "ClusterRole" => RoleDocument::Cluster(serde_json::from_value(value).map_err(bad)?),
            "Role" => {
                let mut role: Role = serde_json::from_value(value).map_err(bad)?;
                role.metadata
                    .namespace
                    .get_or_insert_with(|| "default".into());
                RoleDocument::Namespaced(role)
            }
            other => {
                return Err(Error::RbacDocument {
                    index,
                    message: format!("expected a ClusterRole or Role, found kind {other:?}"),
                });
            }
        });
    }
    Ok(roles)
}
