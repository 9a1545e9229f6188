//! A webhook request's body, read within its limits before any of it is decoded (the Limits of [`super`]).
//!
//! Contract:
//! - A body whose Content-Length is over `--webhook-max-request-bytes` is answered 413 without being read; one
//!   sent without a length (chunked) is read until it passes that size, then answered 413.
//! - The bodies being read, decoded and answered at once may total `--webhook-max-in-flight-bytes`: a request
//!   takes its Content-Length from that budget before reading (a chunked one takes each chunk as it arrives) and
//!   gives it back once its answer is made. A request that does not fit is answered 429 at once.
//! - Except small bodies (a Content-Length of at most [`SMALL_BODY`], which is every review of an ordinary
//!   object): they take each chunk as it arrives from a lane of their own, a quarter of that budget more.
//!
//! Why the lane: a reservation costs a client nothing to hold. Sixteen connections that each declared 1 MiB and
//! then sent a byte a second held the whole 16 MiB budget for `--http-read-body-timeout`, and every review of the
//! API server got 429 meanwhile (hack/bench-webhook.sh's slow clients, docs/benchmarks.md). In the lane a client
//! holds only the bytes it has sent. Large bodies keep the reservation: when several arrive at once, the late ones
//! are refused before any is read, instead of each being refused part-way when the budget runs out.
//! - A body that has not fully arrived within `--http-read-body-timeout` of its headers is answered 408.
//!
//! After any of these refusals the connection closes (hyper does not keep a connection whose body was left
//! unread).

use std::sync::Arc;
use std::time::Duration;

use http::StatusCode;
use http_body_util::BodyExt;
use hyper::body::{Body as HttpBody, Bytes};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Reads webhook bodies within the limits (module docs); one per webhook server, shared by its connections.
#[derive(Clone)]
pub(crate) struct Intake {
    max_bytes: usize,
    in_flight: Arc<Semaphore>,
    in_flight_bytes: usize,
    /// The lane of small bodies (module docs), a quarter of `in_flight_bytes`.
    small: Arc<Semaphore>,
    read_timeout: Duration,
}

/// The largest Content-Length read in the lane of small bodies: an AdmissionReview of an object of a few KiB, as
/// the API server sends for nearly every request, is far below it.
pub(crate) const SMALL_BODY: u64 = 64 << 10;

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
            small: Arc::new(Semaphore::new(in_flight_bytes / 4)),
            read_timeout,
        }
    }

    /// The whole of `body`, or why it is refused (module docs).
    pub(crate) async fn read<B>(&self, body: B) -> Result<Body, Refusal>
    where
        B: HttpBody<Data = Bytes> + Unpin,
        B::Error: std::fmt::Display,
    {
        let declared = body.size_hint().exact();
        if let Some(length) = declared.filter(|&length| length > self.max_bytes as u64) {
            return Err(self.too_large(&format!("the body has {length} bytes")));
        }
        // Where each chunk is taken from as it arrives: the small lane, the budget (no declared length), or
        // nowhere because the whole length was reserved here.
        let (share, per_chunk) = match declared {
            Some(length) if length <= SMALL_BODY => {
                (self.share(&self.small, 0)?, Some(&self.small))
            }
            Some(length) => (self.share(&self.in_flight, length)?, None),
            None => (self.share(&self.in_flight, 0)?, Some(&self.in_flight)),
        };
        let collected = self.collect(body, declared, share, per_chunk);
        match tokio::time::timeout(self.read_timeout, collected).await {
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

    /// Reads the frames of `body` into one buffer (sized once when the length was declared), adding each chunk
    /// to `share` from `per_chunk` as it arrives when the length was not reserved up front.
    async fn collect<B>(
        &self,
        mut body: B,
        declared: Option<u64>,
        mut share: OwnedSemaphorePermit,
        per_chunk: Option<&Arc<Semaphore>>,
    ) -> Result<Body, Refusal>
    where
        B: HttpBody<Data = Bytes> + Unpin,
        B::Error: std::fmt::Display,
    {
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
            if let Some(pool) = per_chunk {
                share.merge(self.share(pool, data.len() as u64)?);
            }
            bytes.extend_from_slice(&data);
        }
        Ok(Body { bytes, share })
    }

    /// `bytes` of the in-flight budget (`pool`: all of it, or the small lane), or 429 when they are not free.
    fn share(&self, pool: &Arc<Semaphore>, bytes: u64) -> Result<OwnedSemaphorePermit, Refusal> {
        u32::try_from(bytes)
            .ok()
            .and_then(|permits| pool.clone().try_acquire_many_owned(permits).ok())
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

#[cfg(test)]
mod tests {
    use std::convert::Infallible;
    use std::pin::Pin;
    use std::task::{Context, Poll};

    use hyper::body::{Frame, SizeHint};
    use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

    use super::*;

    const BUDGET: usize = 1 << 20;

    /// A body with a declared Content-Length whose chunks arrive when the test sends them, as a client's do.
    struct Sent {
        length: u64,
        chunks: UnboundedReceiver<Bytes>,
    }

    impl HttpBody for Sent {
        type Data = Bytes;
        type Error = Infallible;

        fn poll_frame(
            mut self: Pin<&mut Self>,
            cx: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
            self.chunks
                .poll_recv(cx)
                .map(|chunk| chunk.map(|data| Ok(Frame::data(data))))
        }

        fn size_hint(&self) -> SizeHint {
            SizeHint::with_exact(self.length)
        }
    }

    fn body(length: usize) -> (UnboundedSender<Bytes>, Sent) {
        let (sender, chunks) = unbounded_channel();
        let length = length as u64;
        (sender, Sent { length, chunks })
    }

    /// Starts reading a body of `declared` bytes of which only `sent` arrive, and returns once `pool` has lost
    /// `held` permits to it; the sender keeps the body open.
    async fn stalled(
        intake: &Intake,
        pool: &Semaphore,
        declared: usize,
        sent: usize,
        held: usize,
    ) -> UnboundedSender<Bytes> {
        let before = pool.available_permits();
        let (sender, stalled) = body(declared);
        sender.send(Bytes::from(vec![b' '; sent])).unwrap();
        let reader = intake.clone();
        tokio::spawn(async move { reader.read(stalled).await.map(|_| ()) });
        while pool.available_permits() > before - held {
            tokio::task::yield_now().await;
        }
        sender
    }

    async fn read_small(intake: &Intake, size: usize) -> Result<Vec<u8>, Refusal> {
        let (sender, small) = body(size);
        sender.send(Bytes::from(vec![b'{'; size])).unwrap();
        drop(sender);
        let read = intake.read(small).await?;
        Ok(read.into_parts().0)
    }

    #[tokio::test]
    async fn a_review_is_read_while_slow_large_bodies_hold_the_budget() {
        let intake = Intake::new(BUDGET, BUDGET, Duration::from_secs(30));
        // A slow client: the whole budget declared and reserved, one byte sent.
        let _slow = stalled(&intake, &intake.in_flight, BUDGET, 1, BUDGET).await;

        let read = read_small(&intake, 3 << 10).await;
        let bytes = read
            .map_err(|(status, why)| format!("{status}: {why}"))
            .expect("a review of an ordinary object is read while a slow body waits");
        assert_eq!(bytes.len(), 3 << 10);
        // A large body has to wait for the budget, as before.
        let (status, _) = read_small(&intake, 128 << 10).await.unwrap_err();
        assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    }

    #[tokio::test]
    async fn small_bodies_hold_what_they_sent_against_their_lane() {
        let intake = Intake::new(BUDGET, BUDGET, Duration::from_secs(30));
        let lane = intake.small.clone();
        let mut slow = Vec::new();
        for _ in 0..4 {
            slow.push(stalled(&intake, &lane, 64 << 10, 60 << 10, 60 << 10).await);
        }
        // 240 KiB of the 256 KiB lane are held: a 20 KiB review does not fit, a 10 KiB one does.
        let (status, why) = read_small(&intake, 20 << 10).await.unwrap_err();
        assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(
            why,
            "the webhook requests in flight hold their budget of 1048576 bytes (--webhook-max-in-flight-bytes): retry later"
        );
        assert!(read_small(&intake, 10 << 10).await.is_ok());
    }
}
