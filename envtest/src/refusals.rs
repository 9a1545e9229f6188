//! The requests RBAC refused a client, read from the audit log, so a test can fail naming them.
//!
//! A controller whose role lacks a permission does not fail loudly: its watch is refused with 403 and retried with
//! backoff, its updates are refused and requeued, and the test that waits for the controller's effect times out
//! without saying why. [`Environment::ensure_not_forbidden`] turns the audit log's 403s for one user into an error
//! listing each refused request and the `+kubebuilder:rbac` marker that would grant the first.
//!
//! Contract: only responses with code 403 to requests of `user` (the impersonated user, for
//! [`Environment::client_with_rbac`]'s clients) count; identical refusals (a watch retried) are listed once, in the
//! order first refused. The environment needs [`with_audit_log`](crate::EnvironmentBuilder::with_audit_log).

use crate::Environment;
use crate::audit::AuditEvent;
use crate::error::{Error, Result};

impl Environment {
    /// Fails with [`Error::Forbidden`] when the API server has refused any request of `user` with 403 Forbidden
    /// so far. Call it after waiting for the controller's effect (whether that wait succeeded or not), so a
    /// missing RBAC marker is reported as such instead of as a timeout.
    pub fn ensure_not_forbidden(&self, user: &str) -> Result<()> {
        let events = self.audit_events()?;
        let refused = refused_requests(&events, user);
        let Some(first) = refused.first() else {
            return Ok(());
        };
        Err(Error::Forbidden {
            user: user.to_string(),
            marker: marker_granting(first),
            requests: refused.iter().map(describe).collect(),
        })
    }
}

/// `user`'s requests answered 403, each (verb, group, resource, namespace) once, in the order first refused.
fn refused_requests<'a>(events: &'a [AuditEvent], user: &str) -> Vec<&'a AuditEvent> {
    let mut refused: Vec<&AuditEvent> = Vec::new();
    for event in events
        .iter()
        .filter(|e| e.user == user && e.code == Some(403))
    {
        let same = |seen: &&AuditEvent| {
            seen.verb == event.verb
                && seen.api_group == event.api_group
                && seen.rbac_resource() == event.rbac_resource()
                && seen.namespace == event.namespace
                && (!event.is_non_resource() || seen.request_uri == event.request_uri)
        };
        if !refused.iter().any(same) {
            refused.push(event);
        }
    }
    refused
}

/// `list devops.my.domain/demomicroservices in all namespaces`, `get /metrics`.
fn describe(event: &&AuditEvent) -> String {
    if event.is_non_resource() {
        return format!("{} {}", event.verb, event.request_uri);
    }
    let group = if event.api_group.is_empty() {
        "core".to_string()
    } else {
        event.api_group.clone()
    };
    let name = event
        .name
        .as_deref()
        .map(|n| format!(" {n}"))
        .unwrap_or_default();
    let place = match &event.namespace {
        Some(ns) => format!("in namespace {ns}"),
        None if event.verb == "list" || event.verb == "watch" => "in all namespaces".into(),
        None => "(cluster scope)".into(),
    };
    format!(
        "{} {group}/{}{name} {place}",
        event.verb,
        event.rbac_resource()
    )
}

/// The marker controller-gen and `rkb manifests` turn into the rule that allows `event`.
fn marker_granting(event: &AuditEvent) -> String {
    if event.is_non_resource() {
        let path = event.request_uri.split('?').next().unwrap_or_default();
        return format!("+kubebuilder:rbac:urls={path},verbs={}", event.verb);
    }
    let group = if event.api_group.is_empty() {
        "core"
    } else {
        &event.api_group
    };
    // A streaming list is authorized as a watch, but the list+watch fallback (a server without streaming lists)
    // needs `list` too: the marker grants both.
    let verbs = if event.verb == "watch" && crate::privilege::is_streaming_list(&event.request_uri)
    {
        "list;watch"
    } else {
        &event.verb
    };
    format!(
        "+kubebuilder:rbac:groups={group},resources={},verbs={verbs}",
        event.rbac_resource(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(
        user: &str,
        verb: &str,
        resource: &str,
        namespace: Option<&str>,
        code: u16,
    ) -> AuditEvent {
        AuditEvent {
            user: user.into(),
            verb: verb.into(),
            api_group: "devops.my.domain".into(),
            resource: resource.into(),
            subresource: None,
            namespace: namespace.map(Into::into),
            name: None,
            request_uri: format!("/apis/devops.my.domain/v1/{resource}"),
            code: Some(code),
        }
    }

    #[test]
    fn a_refused_streaming_list_asks_for_list_and_watch() {
        let mut streaming = event("m", "watch", "demomicroservices", None, 403);
        streaming
            .request_uri
            .push_str("?allowWatchBookmarks=true&sendInitialEvents=true&watch=true");
        assert_eq!(
            marker_granting(&streaming),
            "+kubebuilder:rbac:groups=devops.my.domain,resources=demomicroservices,verbs=list;watch"
        );
        let mut resumed = event("m", "watch", "demomicroservices", None, 403);
        resumed
            .request_uri
            .push_str("?resourceVersion=7&watch=true");
        assert_eq!(
            marker_granting(&resumed),
            "+kubebuilder:rbac:groups=devops.my.domain,resources=demomicroservices,verbs=watch"
        );
    }

    #[test]
    fn lists_each_refusal_of_the_user_once_in_order() {
        let events = [
            event("manager", "list", "demomicroservices", None, 403),
            event("admin", "list", "demomicroservices", None, 403),
            event("manager", "get", "demomicroservices", Some("default"), 200),
            event("manager", "list", "demomicroservices", None, 403),
            event(
                "manager",
                "update",
                "demomicroservices",
                Some("default"),
                403,
            ),
        ];
        let refused = refused_requests(&events, "manager");
        let described: Vec<String> = refused.iter().map(describe).collect();
        assert_eq!(
            described,
            [
                "list devops.my.domain/demomicroservices in all namespaces",
                "update devops.my.domain/demomicroservices in namespace default",
            ]
        );
        assert_eq!(
            marker_granting(refused[0]),
            "+kubebuilder:rbac:groups=devops.my.domain,resources=demomicroservices,verbs=list"
        );
    }
}
