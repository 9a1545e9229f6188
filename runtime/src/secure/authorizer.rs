//! Who may read the secure metrics endpoint: every request's bearer token is authenticated by a TokenReview and the
//! user it names is authorised by a SubjectAccessReview of the non-resource URL and verb asked for, like
//! controller-runtime's `filters.WithAuthenticationAndAuthorization`.
//!
//! Contract:
//! - No bearer token: 401 at once, nothing asked of the API server.
//! - The API server decides: a token it does not authenticate is 401, a user it does not allow is 403 (naming the
//!   user and verb), an allowed one passes.
//! - The two reviews together get [`REVIEW_TIMEOUT`]: an API server that does not answer in time fails the request
//!   closed with 503 (Service Unavailable), so a scrape never hangs on it and never passes without a decision; any
//!   other failure of a review is 500. Neither is remembered: the next scrape asks again.
//! - Decisions are remembered per (token, verb, path): an allow for [`ALLOW_TTL`], a 401 or 403 for the shorter
//!   [`DENY_TTL`], so a scraper with a bad or unbound token does not cost two API calls per scrape, and a role bound
//!   to it takes effect within `DENY_TTL`. At most [`MAX_CACHED`] decisions are kept; when full, expired ones go
//!   first, then the oldest.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use http::{HeaderMap, StatusCode};
use k8s_openapi::api::authentication::v1::{TokenReview, TokenReviewSpec, UserInfo};
use k8s_openapi::api::authorization::v1::{
    NonResourceAttributes, SubjectAccessReview, SubjectAccessReviewSpec,
};
use kube::Client;
use kube::api::{Api, PostParams};

/// How long an allow is reused (controller-runtime caches authentication for a minute too), so frequent scrapes do
/// not double the API server's load.
pub(crate) const ALLOW_TTL: Duration = Duration::from_secs(60);
/// How long a 401 or 403 is reused: long enough to spare the API server a misconfigured scraper's every scrape,
/// short enough that binding the missing role is seen soon.
pub(crate) const DENY_TTL: Duration = Duration::from_secs(10);
/// How many decisions are kept at most.
pub(crate) const MAX_CACHED: usize = 1024;
/// How long the TokenReview and SubjectAccessReview together may take; below Prometheus' default 10 s scrape
/// timeout, so the scraper sees the 503 rather than its own timeout.
pub(crate) const REVIEW_TIMEOUT: Duration = Duration::from_secs(5);

/// A refusal: the status and the body to answer with.
pub(crate) type Refusal = (StatusCode, String);

/// Authenticates and authorises requests with the API server; see the module docs.
#[derive(Clone)]
pub(crate) struct Authorizer {
    client: Client,
    timeout: Duration,
    decisions: Arc<Mutex<Decisions>>,
}

impl Authorizer {
    pub(crate) fn new(client: Client) -> Self {
        Self::with_timeout(client, REVIEW_TIMEOUT)
    }

    /// An authorizer whose reviews may take `timeout` (tests shorten it).
    pub(crate) fn with_timeout(client: Client, timeout: Duration) -> Self {
        Self {
            client,
            timeout,
            decisions: Arc::default(),
        }
    }

    /// Ok when the bearer token belongs to a user allowed to `verb` the non-resource URL `path`.
    pub(crate) async fn check(
        &self,
        headers: &HeaderMap,
        verb: &str,
        path: &str,
    ) -> Result<(), Refusal> {
        let token = bearer_token(headers).ok_or((
            StatusCode::UNAUTHORIZED,
            "Unauthorized: no bearer token\n".to_string(),
        ))?;
        let key = (token.to_string(), format!("{verb} {path}"));
        if let Some(decided) = self.lock().get(&key, Instant::now()) {
            return decided;
        }
        let decided = match tokio::time::timeout(self.timeout, self.review(token, verb, path)).await
        {
            Ok(Ok(decided)) => decided,
            Ok(Err(e)) => {
                tracing::warn!(error = %e, "metrics authorisation call failed");
                return Err((
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "authorisation failed\n".to_string(),
                ));
            }
            Err(_) => {
                tracing::warn!(timeout = ?self.timeout, "the API server did not review a metrics request in time");
                return Err((
                    StatusCode::SERVICE_UNAVAILABLE,
                    "authorisation timed out\n".to_string(),
                ));
            }
        };
        self.lock().put(key, decided.clone(), Instant::now());
        decided
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Decisions> {
        self.decisions.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The API server's decision: Ok(Ok) allowed, Ok(Err) refused (401 or 403), Err when a review failed.
    async fn review(
        &self,
        token: &str,
        verb: &str,
        path: &str,
    ) -> Result<Result<(), Refusal>, kube::Error> {
        let Some(user) = self.authenticate(token).await? else {
            return Ok(Err((
                StatusCode::UNAUTHORIZED,
                "Unauthorized\n".to_string(),
            )));
        };
        let access = SubjectAccessReview {
            spec: SubjectAccessReviewSpec {
                user: user.username.clone(),
                groups: user.groups.clone(),
                uid: user.uid.clone(),
                extra: user.extra.clone(),
                non_resource_attributes: Some(NonResourceAttributes {
                    path: Some(path.to_string()),
                    verb: Some(verb.to_string()),
                }),
                ..SubjectAccessReviewSpec::default()
            },
            ..SubjectAccessReview::default()
        };
        let decided = Api::<SubjectAccessReview>::all(self.client.clone())
            .create(&PostParams::default(), &access)
            .await?;
        if decided.status.is_some_and(|s| s.allowed) {
            return Ok(Ok(()));
        }
        let who = user.username.unwrap_or_default();
        Ok(Err((
            StatusCode::FORBIDDEN,
            format!("Forbidden (user={who}, verb={verb}, resource=, subresource=)\n"),
        )))
    }

    /// The user the token belongs to, `None` when the API server does not authenticate it.
    async fn authenticate(&self, token: &str) -> Result<Option<UserInfo>, kube::Error> {
        let review = TokenReview {
            spec: TokenReviewSpec {
                token: Some(token.to_string()),
                ..TokenReviewSpec::default()
            },
            ..TokenReview::default()
        };
        let reviewed = Api::<TokenReview>::all(self.client.clone())
            .create(&PostParams::default(), &review)
            .await?;
        let status = reviewed.status.unwrap_or_default();
        Ok(match (status.authenticated, status.user) {
            (Some(true), Some(user)) => Some(user),
            _ => None,
        })
    }
}

fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim)
        .filter(|t| !t.is_empty())
}

/// (token, "verb path").
type Key = (String, String);

/// Remembered decisions with the instant each expires; bounded by [`MAX_CACHED`].
#[derive(Default)]
struct Decisions {
    entries: HashMap<Key, (Result<(), Refusal>, Instant)>,
}

impl Decisions {
    fn get(&self, key: &Key, now: Instant) -> Option<Result<(), Refusal>> {
        self.entries
            .get(key)
            .filter(|(_, expires)| now < *expires)
            .map(|(decided, _)| decided.clone())
    }

    fn put(&mut self, key: Key, decided: Result<(), Refusal>, now: Instant) {
        if self.entries.len() >= MAX_CACHED && !self.entries.contains_key(&key) {
            self.entries.retain(|_, (_, expires)| now < *expires);
            if self.entries.len() >= MAX_CACHED {
                let soonest = self
                    .entries
                    .iter()
                    .min_by_key(|(_, (_, expires))| *expires)
                    .map(|(k, _)| k.clone());
                if let Some(k) = soonest {
                    self.entries.remove(&k);
                }
            }
        }
        let ttl = if decided.is_ok() { ALLOW_TTL } else { DENY_TTL };
        self.entries.insert(key, (decided, now + ttl));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(token: &str) -> Key {
        (token.to_string(), "get /metrics".to_string())
    }

    fn forbidden() -> Result<(), Refusal> {
        Err((StatusCode::FORBIDDEN, "Forbidden\n".to_string()))
    }

    #[test]
    fn a_denial_is_kept_for_less_time_than_an_allow() {
        let mut decisions = Decisions::default();
        let now = Instant::now();
        decisions.put(key("allowed"), Ok(()), now);
        decisions.put(key("denied"), forbidden(), now);
        let later = now + DENY_TTL;
        assert_eq!(
            decisions.get(&key("denied"), later - Duration::from_millis(1)),
            Some(forbidden())
        );
        assert_eq!(
            decisions.get(&key("denied"), later),
            None,
            "the denial has expired"
        );
        assert_eq!(decisions.get(&key("allowed"), later), Some(Ok(())));
        assert_eq!(decisions.get(&key("allowed"), now + ALLOW_TTL), None);
    }

    #[test]
    fn a_full_cache_drops_expired_decisions_then_the_one_expiring_first() {
        let mut decisions = Decisions::default();
        let start = Instant::now();
        // One denial (expires first), then allows until full.
        decisions.put(key("denied"), forbidden(), start);
        for i in 1..MAX_CACHED {
            decisions.put(key(&format!("t{i}")), Ok(()), start);
        }
        decisions.put(key("newest"), Ok(()), start);
        assert_eq!(decisions.entries.len(), MAX_CACHED);
        assert_eq!(decisions.get(&key("denied"), start), None, "evicted");
        assert_eq!(decisions.get(&key("newest"), start), Some(Ok(())));
        // Once the allows have expired, a new decision clears them all rather than one.
        decisions.put(key("after"), Ok(()), start + ALLOW_TTL);
        assert_eq!(decisions.entries.len(), 1);
    }

    /// A listener that accepts connections and never answers: an API server that hangs.
    async fn silent_server() -> (String, tokio::task::JoinHandle<()>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let task = tokio::spawn(async move {
            let mut held = Vec::new();
            while let Ok((socket, _)) = listener.accept().await {
                held.push(socket);
            }
        });
        (url, task)
    }

    #[tokio::test]
    async fn an_unanswered_review_fails_closed_with_503_and_is_not_remembered() {
        let (url, server) = silent_server().await;
        let client = Client::try_from(kube::Config::new(url.parse().unwrap())).unwrap();
        let auth = Authorizer::with_timeout(client, Duration::from_millis(200));
        let mut headers = HeaderMap::new();
        headers.insert(
            http::header::AUTHORIZATION,
            "Bearer some-token".parse().unwrap(),
        );
        let started = Instant::now();
        let refused = auth.check(&headers, "get", "/metrics").await;
        assert_eq!(
            refused,
            Err((
                StatusCode::SERVICE_UNAVAILABLE,
                "authorisation timed out\n".to_string()
            ))
        );
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
        assert!(
            auth.lock().entries.is_empty(),
            "a timeout is not a decision"
        );
        server.abort();
    }
}
