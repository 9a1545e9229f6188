//! A webhook request's body, read within its limits before any of it is decoded (the Limits of [`super`]).
//!
//! Contract:
//! - A body whose Content-Length is over `--webhook-max-request-bytes` is answered 413 without being read; one
//!   sent without a length (chunked) is read until it passes that size, then answered 413.
//! - The bodies being read, decoded and answered at once may total `--webhook-max-in-flight-bytes`: a request
//!   takes its Content-Length from that budget before reading (a chunked one takes each chunk as it arrives) and
//!   gives it back once its answer is made. A request that does not fit is answered 429 at once.
//! - A body that has not fully arrived within `--http-read-body-timeout` of its headers is answered 408.
//!
//! After any of these refusals the connection closes (hyper does not keep a connection whose body was left
//! unread).

use std::sync::Arc;
use std::time::Duration;

use http::StatusCode;
use http_body_util::BodyExt;
use hyper::body::{Body as _, Incoming};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Reads webhook bodies within the limits (module docs); one per webhook server, shared by its connections.
#[derive(Clone)]
pub(crate) struct Intake {
    max_bytes: usize,
    in_flight: Arc<Semaphore>,
    in_flight_bytes: usize,
    read_timeout: Duration,
}

/// A body read in full, with its share of the in-flight budget.
pub(crate) struct Body {
    bytes: Vec<u8>,
    share: OwnedSemaphorePermit,
}

impl Body {
    /// The bytes, and the share to drop once the answer is made.
    pub(crate) fn into_parts(self) -> (Vec<u8>, OwnedSemaphorePermit) {
        (self.bytes, self.share)
    }
}

/// A refusal: the status and its reason.
type Refusal = (StatusCode, String);

impl Intake {
    /// `max_bytes` per body, `in_flight_bytes` for all bodies at once (at least `max_bytes`, below 4 GiB: checked
    /// with the options), `read_timeout` per body.
    pub(crate) fn new(max_bytes: usize, in_flight_bytes: usize, read_timeout: Duration) -> Self {
        Self {
            max_bytes,
            in_flight: Arc::new(Semaphore::new(in_flight_bytes)),
            in_flight_bytes,
            read_timeout,
        }
    }

    /// The whole of `body`, or why it is refused (module docs).
    pub(crate) async fn read(&self, body: Incoming) -> Result<Body, Refusal> {
        let declared = body.size_hint().exact();
        if let Some(length) = declared.filter(|&length| length > self.max_bytes as u64) {
            return Err(self.too_large(&format!("the body has {length} bytes")));
        }
        let share = self.share(declared.unwrap_or(0))?;
        match tokio::time::timeout(self.read_timeout, self.collect(body, declared, share)).await {
            Ok(read) => read,
            Err(_) => Err((
                StatusCode::REQUEST_TIMEOUT,
                format!(
                    "the body did not arrive within {:?} (--http-read-body-timeout)",
                    self.read_timeout
                ),
            )),
        }
    }

    /// Reads the frames of `body` into one buffer (sized once when the length was declared); a body without a
    /// declared length adds each chunk to `share` as it arrives.
    async fn collect(
        &self,
        mut body: Incoming,
        declared: Option<u64>,
        mut share: OwnedSemaphorePermit,
    ) -> Result<Body, Refusal> {
        let mut bytes = Vec::with_capacity(declared.map_or(0, |length| length as usize));
        while let Some(frame) = body.frame().await {
            let frame = frame.map_err(|e| {
                (
                    StatusCode::BAD_REQUEST,
                    format!("cannot read the body: {e}"),
                )
            })?;
            let Ok(data) = frame.into_data() else {
                continue; // trailers
            };
            if bytes.len() + data.len() > self.max_bytes {
                return Err(self.too_large("the body runs"));
            }
            if declared.is_none() {
                share.merge(self.share(data.len() as u64)?);
            }
            bytes.extend_from_slice(&data);
        }
        Ok(Body { bytes, share })
    }

    /// `bytes` of the in-flight budget, or 429 when they are not free.
    fn share(&self, bytes: u64) -> Result<OwnedSemaphorePermit, Refusal> {
        u32::try_from(bytes)
            .ok()
            .and_then(|permits| self.in_flight.clone().try_acquire_many_owned(permits).ok())
            .ok_or_else(|| {
                (
                    StatusCode::TOO_MANY_REQUESTS,
                    format!(
                        "the webhook requests in flight hold their budget of {} bytes (--webhook-max-in-flight-bytes): retry later",
                        self.in_flight_bytes
                    ),
                )
            })
    }

    /// 413: `what` (the body's size, or that it runs on) is over the limit.
    fn too_large(&self, what: &str) -> Refusal {
        (
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "{what} over the {} bytes a webhook reads (--webhook-max-request-bytes)",
                self.max_bytes
            ),
        )
    }
}
