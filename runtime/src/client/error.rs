//! The error of every client verb.
//!
//! As in `rkb_runtime::Error`, a message says what failed and `source()` returns why, never both; `Kube` is
//! transparent (kube's own message, kube's own source), so it adds no layer that could repeat it.

use kube::core::Status;

/// What a client call can fail with.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The API server (or the transport to it) refused the request.
    #[error(transparent)]
    Kube(#[from] kube::Error),
    /// The object handed to a verb that addresses an object by name has no `metadata.name`.
    #[error("the object has no metadata.name")]
    MissingName,
    /// An apply configuration could not be turned into JSON.
    #[error("cannot serialize the apply configuration")]
    Serialize(#[from] serde_json::Error),
}

impl Error {
    /// The `Status` the API server answered with, when it answered.
    pub fn status(&self) -> Option<&Status> {
        match self {
            Error::Kube(kube::Error::Api(status)) => Some(status),
            _ => None,
        }
    }

    /// The HTTP code the API server answered with, when it answered.
    pub fn code(&self) -> Option<u16> {
        self.status().map(|s| s.code)
    }

    /// 404: the object (or its namespace) does not exist.
    pub fn is_not_found(&self) -> bool {
        self.code() == Some(404)
    }

    /// 409 with reason AlreadyExists: create of a name that is taken.
    pub fn is_already_exists(&self) -> bool {
        self.status()
            .is_some_and(|s| s.code == 409 && s.reason == "AlreadyExists")
    }

    /// 409 with reason Conflict: a stale resourceVersion on update, or a server-side apply
    /// field-ownership conflict.
    pub fn is_conflict(&self) -> bool {
        self.status()
            .is_some_and(|s| s.code == 409 && s.reason == "Conflict")
    }

    /// 422: the object failed validation (OpenAPI schema, CEL rules, immutable fields).
    pub fn is_invalid(&self) -> bool {
        self.code() == Some(422)
    }
}
