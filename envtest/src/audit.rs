//! The API server's audit log, for seeing which requests a client really made: with
//! [`EnvironmentBuilder::with_audit_log`](crate::EnvironmentBuilder::with_audit_log), kube-apiserver writes one JSON
//! event per request stage to `<dir>/audit.log` under a policy that records every request at the `Metadata` level
//! (who, verb, resource, namespace, name, response code; never a body). [`Environment::audit_events`] reads it back
//! as [`AuditEvent`]s, one per request.
//!
//! Contract:
//! - Every request is recorded, the environment's own admin requests included; filter by [`AuditEvent::user`].
//! - A request made through impersonation (as [`Environment::client_with_rbac`]'s clients do) is recorded as the
//!   impersonated user: that is the identity RBAC authorised.
//! - The `RequestReceived` stage is not logged. A watch is recorded once its response started, so a watch still
//!   open when the log is read is included; a request whose response has not completed yet may be missing, so read
//!   the log after the client under test has stopped.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::Environment;
use crate::error::{Error, Result, io_err};

/// The audit policy: every request, metadata only. `RequestReceived` would only duplicate each request.
const POLICY: &str = "\
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages:
- RequestReceived
rules:
- level: Metadata
";

/// The log file's name in the environment's directory.
pub(crate) const LOG_FILE: &str = "audit.log";

/// Writes the policy into `dir` and returns the kube-apiserver flags that log to `dir/audit.log`.
pub(crate) fn apiserver_args(dir: &Path) -> Result<Vec<String>> {
    let policy = dir.join("audit-policy.yaml");
    std::fs::write(&policy, POLICY).map_err(io_err(&policy))?;
    Ok(vec![
        format!("--audit-policy-file={}", policy.display()),
        format!("--audit-log-path={}", dir.join(LOG_FILE).display()),
        "--audit-log-format=json".to_string(),
        // Each event is written before the request's handler returns, so nothing waits in a batch buffer.
        "--audit-log-mode=blocking".to_string(),
    ])
}

/// One request as the API server's audit log recorded it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuditEvent {
    /// The user RBAC authorised: the impersonated user when the request impersonated one.
    pub user: String,
    /// The Kubernetes verb: `get`, `list`, `watch`, `create`, `update`, `patch`, `delete`, `deletecollection`.
    pub verb: String,
    /// The API group of the resource, `""` for the core group and for non-resource requests.
    pub api_group: String,
    /// The resource (plural), `""` for a non-resource request such as `/version`.
    pub resource: String,
    /// The subresource (`status`, `finalizers`, `scale`), if any.
    pub subresource: Option<String>,
    /// The namespace of a namespaced request.
    pub namespace: Option<String>,
    /// The object's name, when the request named one.
    pub name: Option<String>,
    /// The request's path and query.
    pub request_uri: String,
    /// The response's HTTP status code, when the response started.
    pub code: Option<u16>,
}

impl AuditEvent {
    /// `resource` or `resource/subresource`, as RBAC rules name it.
    pub fn rbac_resource(&self) -> String {
        match &self.subresource {
            Some(sub) => format!("{}/{sub}", self.resource),
            None => self.resource.clone(),
        }
    }

    /// Whether the request was a non-resource one (`/version`, `/healthz`, discovery).
    pub fn is_non_resource(&self) -> bool {
        self.resource.is_empty()
    }
}

/// The fields of an `audit.k8s.io/v1` Event this module reads.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawEvent {
    #[serde(rename = "auditID")]
    audit_id: String,
    verb: String,
    #[serde(rename = "requestURI")]
    request_uri: String,
    user: RawUser,
    impersonated_user: Option<RawUser>,
    object_ref: Option<RawObjectRef>,
    response_status: Option<RawStatus>,
}

#[derive(Deserialize)]
struct RawUser {
    #[serde(default)]
    username: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawObjectRef {
    #[serde(default)]
    resource: String,
    subresource: Option<String>,
    namespace: Option<String>,
    name: Option<String>,
    #[serde(default)]
    api_group: String,
}

#[derive(Deserialize)]
struct RawStatus {
    code: Option<u16>,
}

impl From<RawEvent> for AuditEvent {
    fn from(raw: RawEvent) -> Self {
        let user = raw.impersonated_user.unwrap_or(raw.user).username;
        let object = raw.object_ref;
        Self {
            user,
            verb: raw.verb,
            api_group: object
                .as_ref()
                .map(|o| o.api_group.clone())
                .unwrap_or_default(),
            resource: object
                .as_ref()
                .map(|o| o.resource.clone())
                .unwrap_or_default(),
            subresource: object.as_ref().and_then(|o| o.subresource.clone()),
            namespace: object.as_ref().and_then(|o| o.namespace.clone()),
            name: object.and_then(|o| o.name),
            request_uri: raw.request_uri,
            code: raw.response_status.and_then(|s| s.code),
        }
    }
}

/// The requests in an audit log's text (JSON lines), one event per request in the order they were first logged;
/// a request logged at several stages keeps its last stage's response code.
pub(crate) fn parse(text: &str, path: &Path) -> Result<Vec<AuditEvent>> {
    let mut events: Vec<AuditEvent> = Vec::new();
    let mut index_of: HashMap<String, usize> = HashMap::new();
    for (number, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let raw: RawEvent = serde_json::from_str(line).map_err(|e| Error::Io {
            path: path.to_path_buf(),
            source: std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("line {}: not an audit event: {e}", number + 1),
            ),
        })?;
        match index_of.get(&raw.audit_id) {
            Some(&at) => events[at].code = raw.response_status.and_then(|s| s.code),
            None => {
                index_of.insert(raw.audit_id.clone(), events.len());
                events.push(raw.into());
            }
        }
    }
    Ok(events)
}

impl Environment {
    /// The audit log's path, when the environment was built
    /// [`with_audit_log`](crate::EnvironmentBuilder::with_audit_log).
    pub fn audit_log_path(&self) -> Option<PathBuf> {
        self.audit_log.then(|| self.dir().join(LOG_FILE))
    }

    /// Every request the API server has logged so far, one event per request (see the `audit` module docs). An
    /// error when the environment was built without
    /// [`with_audit_log`](crate::EnvironmentBuilder::with_audit_log).
    pub fn audit_events(&self) -> Result<Vec<AuditEvent>> {
        let path = self.audit_log_path().ok_or_else(|| Error::Io {
            path: self.dir().join(LOG_FILE),
            source: std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "no audit log: build the environment with `.with_audit_log()`",
            ),
        })?;
        // The server creates the file with its first event; none yet is an empty log.
        let text = match std::fs::read_to_string(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            other => other.map_err(io_err(&path))?,
        };
        parse(&text, &path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Two stages of one impersonated status patch, then an admin's non-resource request, as kube-apiserver 1.35
    // writes them (fields this module does not read trimmed).
    const LOG: &str = r#"{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"a1","stage":"ResponseStarted","requestURI":"/apis/apps/v1/namespaces/default/deployments/web/status","verb":"patch","user":{"username":"admin","groups":["system:masters","system:authenticated"]},"impersonatedUser":{"username":"my-operator","groups":["system:authenticated"]},"objectRef":{"resource":"deployments","namespace":"default","name":"web","apiGroup":"apps","apiVersion":"v1","subresource":"status"},"responseStatus":{"metadata":{},"code":200}}
{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"a1","stage":"ResponseComplete","requestURI":"/apis/apps/v1/namespaces/default/deployments/web/status","verb":"patch","user":{"username":"admin","groups":["system:masters","system:authenticated"]},"impersonatedUser":{"username":"my-operator","groups":["system:authenticated"]},"objectRef":{"resource":"deployments","namespace":"default","name":"web","apiGroup":"apps","apiVersion":"v1","subresource":"status"},"responseStatus":{"metadata":{},"status":"Failure","code":403}}
{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"b2","stage":"ResponseComplete","requestURI":"/version","verb":"get","user":{"username":"admin","groups":["system:masters"]},"responseStatus":{"metadata":{},"code":200}}
"#;

    #[test]
    fn one_event_per_request_as_the_impersonated_user_with_its_last_code() {
        let events = parse(LOG, Path::new("audit.log")).unwrap();
        assert_eq!(events.len(), 2);
        assert_eq!(
            events[0],
            AuditEvent {
                user: "my-operator".into(),
                verb: "patch".into(),
                api_group: "apps".into(),
                resource: "deployments".into(),
                subresource: Some("status".into()),
                namespace: Some("default".into()),
                name: Some("web".into()),
                request_uri: "/apis/apps/v1/namespaces/default/deployments/web/status".into(),
                code: Some(403),
            }
        );
        assert_eq!(events[0].rbac_resource(), "deployments/status");
        assert_eq!(events[1].user, "admin");
        assert!(events[1].is_non_resource());
    }

    #[test]
    fn a_line_that_is_not_an_event_is_named() {
        let err = parse("{\"kind\":\"Event\"}\n", Path::new("/tmp/x/audit.log")).unwrap_err();
        assert!(err.to_string().contains("/tmp/x/audit.log"), "{err}");
        let cause = std::error::Error::source(&err).map(ToString::to_string);
        assert_eq!(
            cause.as_deref(),
            Some("line 1: not an audit event: missing field `auditID` at line 1 column 16")
        );
    }
}
