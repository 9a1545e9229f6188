//! Metadata-only watches in protobuf: [`ProtobufWatchLayer`], a tower layer around a kube client's HTTP service
//! (the manager's client has it) that asks kube-apiserver for a metadata watch's events in protobuf and hands
//! kube's watcher the same events as JSON lines.
//!
//! Why: kube's client reads JSON only, and kube-apiserver spends two to three times as much CPU encoding a watch's
//! metadata as JSON as it does encoding it as protobuf (measured at 10,000 Deployments in docs/benchmarks.md). The
//! child index and `.owns()` watch every child kind metadata-only, so after a restart the server encodes every
//! child once for them: in protobuf that is the cheapest an operator can ask for, cheaper than controller-runtime's
//! whole objects.
//!
//! Contract:
//! - only a metadata watch changes: a GET with `watch=true` whose Accept is kube's metadata JSON type
//!   (`Api::watch_metadata`, and so kube's watcher of an `Api<PartialObjectMeta<K>>`). Its Accept becomes
//!   protobuf first, JSON second. Every other request, metadata lists included, goes out unchanged;
//! - a response in protobuf (`application/vnd.kubernetes.protobuf;stream=watch`) is transcoded: each
//!   length-prefixed frame becomes one JSON line, the event kube-apiserver would have sent in JSON, field for
//!   field (messages.rs), but for one: managed fields entries come without `fieldsV1`, the set of fields each
//!   manager owns. It is most of a child's metadata bytes, decoding it into a JSON tree was most of the client's
//!   work on a metadata watch, and no reader of one in rkb uses it (the child index reads who applied last and
//!   when); as with the controller's cache, which keeps no managedFields at all, a reconcile that needs them GETs
//!   the object. Any other response (an error, or JSON from a server that does not serve protobuf, such as an
//!   aggregated API) passes through unchanged;
//! - a frame that cannot be read ends the response with an error naming the cause, which the watcher retries as
//!   any watch error; a frame over [`MAX_FRAME`] is such an error, so a response cannot make the client buffer
//!   without bound. A partial frame when the server closes the stream is dropped, as kube drops a partial JSON
//!   line: the watcher resumes from the last event it saw.
//!
//! Caveats: the JSON is re-encoded, so it is not byte for byte what the server would have written (key order,
//! escapes); the objects kube decodes from it are equal but for `fieldsV1` (tests/protobuf_watch.rs compares them).
//! A client handed
//! to the manager ready-made (`ManagerBuilder::client`) watches in JSON unless it was built with this layer.

mod messages;
#[cfg(test)]
mod tests;
mod wire;

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use bytes::Bytes;
use http::header::{ACCEPT, CONTENT_TYPE, HeaderValue};
use http::{Method, Request, Response};
use http_body::{Body, Frame, SizeHint};
use tower_layer::Layer;
use tower_service::Service;

use crate::BoxError;
use messages::EventError;

/// kube's Accept header for a metadata-only request (kube-core's `JSON_METADATA_MIME`).
const JSON_METADATA: &str = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";

/// The Accept header a metadata watch goes out with: protobuf where the server has it, JSON where it does not.
const PROTOBUF_THEN_JSON: &str = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1, \
     application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";

/// The Content-Type of a protobuf watch stream.
const PROTOBUF_WATCH: &str = "application/vnd.kubernetes.protobuf;stream=watch";

/// The largest frame read. An object's metadata is at most etcd's limit on a whole object (1.5 MiB by default).
const MAX_FRAME: usize = 16 << 20;

/// Makes a kube client's metadata-only watches protobuf on the wire: kube-apiserver encodes them at a third to half
/// the CPU it spends on JSON, and kube's watcher reads the same events as before, transcoded to JSON lines (every
/// metadata field, managed fields included but for their `fieldsV1`, which the client no longer decodes: a reader
/// that needs it GETs the object). Other requests, and answers that are not a protobuf watch stream,
/// pass through unchanged; an event that cannot be read (or is over 16 MiB) fails the watch, which the watcher
/// retries.
///
/// The manager's own client has it. A client handed to the manager ready-made
/// ([`ManagerBuilder::client`](crate::ManagerBuilder::client)) gets it so:
/// ```no_run
/// # async fn client() -> Result<kube::Client, kube::Error> {
/// let config = kube::Config::infer().await.map_err(kube::Error::InferConfig)?;
/// let client = kube::client::ClientBuilder::try_from(config)?
///     .with_layer(&rkb_runtime::client::ProtobufWatchLayer)
///     .build();
/// # Ok(client) }
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct ProtobufWatchLayer;

impl<S> Layer<S> for ProtobufWatchLayer {
    type Service = ProtobufWatches<S>;

    fn layer(&self, inner: S) -> Self::Service {
        ProtobufWatches { inner }
    }
}

/// The service [`ProtobufWatchLayer`] wraps around a client's HTTP service.
pub struct ProtobufWatches<S> {
    inner: S,
}

impl<S, ReqBody, B> Service<Request<ReqBody>> for ProtobufWatches<S>
where
    S: Service<Request<ReqBody>, Response = Response<B>>,
    S::Future: Send + 'static,
{
    type Response = Response<WatchBody<B>>;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request<ReqBody>) -> Self::Future {
        let asked = ask_for_protobuf(&mut request);
        let response = self.inner.call(request);
        Box::pin(async move {
            let mut response = response.await?;
            if !(asked && is_protobuf_watch(&response)) {
                return Ok(response.map(|body| WatchBody(Inner::Plain(Box::pin(body)))));
            }
            let json_watch = HeaderValue::from_static("application/json;stream=watch");
            response.headers_mut().insert(CONTENT_TYPE, json_watch);
            Ok(response.map(|body| WatchBody(Inner::Transcoded(Transcoder::new(body)))))
        })
    }
}

/// Whether `request` is a metadata watch; if so, it now asks for protobuf first.
fn ask_for_protobuf<B>(request: &mut Request<B>) -> bool {
    let watch = request.uri().query().is_some_and(|query| {
        query
            .split('&')
            .any(|p| p == "watch=true" || p == "watch=1")
    });
    let metadata = request
        .headers()
        .get(ACCEPT)
        .is_some_and(|accept| accept == JSON_METADATA);
    let metadata_watch = request.method() == Method::GET && watch && metadata;
    if metadata_watch {
        let accept = HeaderValue::from_static(PROTOBUF_THEN_JSON);
        request.headers_mut().insert(ACCEPT, accept);
    }
    metadata_watch
}

fn is_protobuf_watch<B>(response: &Response<B>) -> bool {
    let content_type = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok());
    response.status().is_success()
        && content_type.is_some_and(|t| t.replace(' ', "").eq_ignore_ascii_case(PROTOBUF_WATCH))
}

/// A response's body through [`ProtobufWatches`]: as it came, or a protobuf watch's transcoded to JSON lines.
pub struct WatchBody<B>(Inner<B>);

enum Inner<B> {
    Plain(Pin<Box<B>>),
    Transcoded(Transcoder<B>),
}

impl<B> Body for WatchBody<B>
where
    B: Body<Data = Bytes>,
    B::Error: Into<BoxError>,
{
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        match &mut self.get_mut().0 {
            Inner::Plain(body) => body.as_mut().poll_frame(cx).map_err(Into::into),
            Inner::Transcoded(transcoder) => transcoder.poll_frame(cx),
        }
    }

    fn is_end_stream(&self) -> bool {
        match &self.0 {
            Inner::Plain(body) => body.is_end_stream(),
            Inner::Transcoded(_) => false,
        }
    }

    fn size_hint(&self) -> SizeHint {
        match &self.0 {
            Inner::Plain(body) => body.size_hint(),
            Inner::Transcoded(_) => SizeHint::default(),
        }
    }
}

/// A protobuf watch stream read frame by frame: a 4-byte big-endian length, then a metav1.WatchEvent.
struct Transcoder<B> {
    body: Pin<Box<B>>,
    /// What has come of the stream and is not a whole frame yet.
    pending: Vec<u8>,
    ended: bool,
}

impl<B> Transcoder<B> {
    fn new(body: B) -> Self {
        Transcoder {
            body: Box::pin(body),
            pending: Vec::new(),
            ended: false,
        }
    }
}

impl<B> Transcoder<B>
where
    B: Body<Data = Bytes>,
    B::Error: Into<BoxError>,
{
    /// The JSON lines of the whole frames received so far, once there are any.
    fn poll_frame(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        loop {
            let lines = self.whole_frames().map_err(BoxError::from)?;
            if !lines.is_empty() {
                return Poll::Ready(Some(Ok(Frame::data(Bytes::from(lines)))));
            }
            if self.ended {
                return Poll::Ready(None);
            }
            match ready!(self.body.as_mut().poll_frame(cx)) {
                Some(Ok(frame)) => match frame.into_data() {
                    Ok(data) => self.pending.extend_from_slice(&data),
                    Err(trailers) => return Poll::Ready(Some(Ok(trailers))),
                },
                Some(Err(e)) => return Poll::Ready(Some(Err(e.into()))),
                // A partial frame left now is dropped (module docs).
                None => self.ended = true,
            }
        }
    }

    /// Takes the whole frames out of `pending`, as JSON lines.
    fn whole_frames(&mut self) -> Result<Vec<u8>, StreamError> {
        let mut lines = Vec::new();
        let mut read = 0;
        while let Some(len_bytes) = self.pending.get(read..read + 4) {
            let len = u32::from_be_bytes(len_bytes.try_into().expect("4 bytes")) as usize;
            if len > MAX_FRAME {
                return Err(StreamError::Oversized(len));
            }
            let Some(frame) = self.pending.get(read + 4..read + 4 + len) else {
                break;
            };
            messages::transcode(frame, &mut lines).map_err(StreamError::Event)?;
            lines.push(b'\n');
            read += 4 + len;
        }
        self.pending.drain(..read);
        Ok(lines)
    }
}

/// A protobuf watch stream that could not be read: the context; `source()` is the cause.
#[derive(Debug)]
enum StreamError {
    /// A frame longer than [`MAX_FRAME`].
    Oversized(usize),
    /// An event that could not be read.
    Event(EventError),
}

impl std::fmt::Display for StreamError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StreamError::Oversized(len) => write!(
                f,
                "kube-apiserver sent a protobuf watch event of {len} bytes, more than the {MAX_FRAME} bytes read"
            ),
            StreamError::Event(_) => {
                f.write_str("kube-apiserver sent a protobuf watch event rkb cannot read")
            }
        }
    }
}

impl std::error::Error for StreamError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StreamError::Oversized(_) => None,
            StreamError::Event(e) => Some(e),
        }
    }
}
