//! A connection's I/O as hyper sees it: it moves the connection's phase when bytes arrive, and holds the request
//! heads being read to the listener's head budget (the Limits of [`super`]).
//!
//! Contract:
//! - hyper buffers a request's head until it is complete, up to `--http-max-header-bytes` (1 MiB) per connection.
//!   The first [`FREE_HEAD`] bytes of each head are free; every byte beyond is charged to a budget shared by the
//!   listener's connections ([`HeadBudget`], `--http-max-header-bytes` or 4 MiB, whichever is larger) as it
//!   arrives. A head whose next bytes do not fit is answered 431 with the reason, and the connection closes.
//! - A charge is held until the connection closes, not just until its head is complete: hyper keeps the buffer the
//!   head grew for as long as the connection lives. So a connection whose head was charged is closed after its
//!   answer (`Connection: close`), and a client cannot keep large heads past the budget by finishing them.
//! - Each read is at most [`READ_CHUNK`]: a head's bytes are charged after they are read, so this bounds what a
//!   refused head read over the budget, and what hyper reads ahead of a head while a request is answered (those
//!   bytes are not charged: at most one read, as hyper reads no further until it has parsed what it holds).
//!
//! So a listener holds at most C × (2 × 16 KiB) plus the budget in request heads, C its connections (36 MiB at
//! the defaults), instead of C × 1 MiB; a client's head of up to 16 KiB (every client Kubernetes runs: the API
//! server's reviews, Prometheus' scrapes, the kubelet's probes) is never charged nor refused.
//!
//! Why here: hyper reads and parses the head itself and has no hook between reads, and its buffer limit is fixed
//! when the connection starts, so a smaller limit could not be raised for the few legitimate large heads. The
//! bytes it reads all pass through this wrapper, which knows from the phase whether they belong to a head.

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, ready};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::Limits;
use super::connections::{HeadRead, Occasional, Tracked};

/// The bytes of a head that are never charged.
pub(super) const FREE_HEAD: usize = 16 << 10;

/// The most read from a connection at once (one TLS record's plaintext).
pub(super) const READ_CHUNK: usize = 16 << 10;

/// The smallest head budget: four heads of the default limit (1 MiB) at once.
const MIN_HEAD_BUDGET: usize = 4 << 20;

/// The bytes of request heads beyond [`FREE_HEAD`] that a listener's connections may hold at once.
pub(super) struct HeadBudget {
    free: Arc<Semaphore>,
    bytes: usize,
    refused: Mutex<Occasional>,
    limits: Limits,
}

impl HeadBudget {
    pub(super) fn new(limits: Limits) -> Arc<Self> {
        let bytes = limits.max_header_bytes.max(MIN_HEAD_BUDGET);
        Arc::new(Self {
            free: Arc::new(Semaphore::new(bytes)),
            bytes,
            refused: Mutex::new(Occasional::new(
                "request heads over 16 KiB hold a listener's head budget: the next ones are answered 431",
            )),
            limits,
        })
    }

    /// The bytes of the budget not charged now.
    #[cfg(test)]
    pub(super) fn available(&self) -> usize {
        self.free.available_permits()
    }

    #[cfg(test)]
    pub(super) fn bytes(&self) -> usize {
        self.bytes
    }

    /// `bytes` more, or None when they are not free.
    fn charge(&self, bytes: usize) -> Option<OwnedSemaphorePermit> {
        let permits = u32::try_from(bytes).ok()?;
        self.free.clone().try_acquire_many_owned(permits).ok()
    }

    /// The answer to a head refused for want of budget: 431 with the reason, and the connection closes.
    fn refusal(&self) -> Vec<u8> {
        let reason = format!(
            "request heads over {FREE_HEAD} bytes being read on this listener hold their budget of {} bytes (--http-max-header-bytes or 4 MiB): retry later\n",
            self.bytes
        );
        format!(
            "HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{reason}",
            reason.len()
        )
        .into_bytes()
    }

    fn note_refusal(&self) {
        let mut refused = self.refused.lock().unwrap_or_else(|e| e.into_inner());
        refused.note(&self.limits);
    }
}

/// A connection's socket (plain or TLS) as hyper reads and writes it (module docs).
pub(super) struct ConnectionIo<T> {
    io: T,
    tracked: Arc<Tracked>,
    budget: Arc<HeadBudget>,
    /// The bytes of the head in progress read so far.
    head_bytes: usize,
    /// What this connection's heads hold of the budget, until it closes.
    charge: Option<OwnedSemaphorePermit>,
    /// Once the budget refused a head: the answer (none when another answer is still being written) and how much
    /// of it is written.
    refusing: Option<(Vec<u8>, usize)>,
}

impl<T> ConnectionIo<T> {
    pub(super) fn new(io: T, tracked: Arc<Tracked>, budget: Arc<HeadBudget>) -> Self {
        Self {
            io,
            tracked,
            budget,
            head_bytes: 0,
            charge: None,
            refusing: None,
        }
    }

    /// Counts `read` bytes that just arrived: false when they belong to a head that the budget cannot hold.
    fn count(&mut self, read: usize) -> bool {
        match self.tracked.bytes_arrived() {
            HeadRead::NotAHead => return true,
            HeadRead::Started => self.head_bytes = 0,
            HeadRead::Continued => {}
        }
        self.head_bytes += read;
        let held = self
            .charge
            .as_ref()
            .map_or(0, OwnedSemaphorePermit::num_permits);
        let due = self.head_bytes.saturating_sub(FREE_HEAD);
        if due <= held {
            return true;
        }
        let Some(more) = self.budget.charge(due - held) else {
            return false;
        };
        match &mut self.charge {
            Some(charge) => charge.merge(more),
            None => self.charge = Some(more),
        }
        self.tracked.mark_charged();
        true
    }
}

impl<T: AsyncRead + AsyncWrite + Unpin> ConnectionIo<T> {
    /// Reads at most [`READ_CHUNK`] bytes into `buf`.
    fn poll_read_chunk(
        &mut self,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<usize>> {
        if buf.remaining() <= READ_CHUNK {
            let before = buf.filled().len();
            ready!(Pin::new(&mut self.io).poll_read(cx, buf))?;
            return Poll::Ready(Ok(buf.filled().len() - before));
        }
        // Zeroing a chunk of hyper's uninitialised buffer is the price of not using unsafe code.
        let mut chunk = ReadBuf::new(buf.initialize_unfilled_to(READ_CHUNK));
        ready!(Pin::new(&mut self.io).poll_read(cx, &mut chunk))?;
        let read = chunk.filled().len();
        buf.advance(read);
        Poll::Ready(Ok(read))
    }

    /// Writes the refusal, if any, and closes: always ends in an error, which ends hyper's connection.
    fn poll_refuse(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let refused = || {
            io::Error::new(
                io::ErrorKind::ConnectionAborted,
                "a request head over the listener's head budget",
            )
        };
        let Some((answer, written)) = &mut self.refusing else {
            return Poll::Ready(Err(refused()));
        };
        let mut io = Pin::new(&mut self.io);
        while *written < answer.len() {
            match ready!(io.as_mut().poll_write(cx, &answer[*written..])) {
                Ok(0) | Err(_) => return Poll::Ready(Err(refused())),
                Ok(n) => *written += n,
            }
        }
        // The answer is best effort: the connection closes either way.
        let _ = ready!(io.as_mut().poll_flush(cx));
        let _ = ready!(io.poll_shutdown(cx));
        Poll::Ready(Err(refused()))
    }
}

impl<T: AsyncRead + AsyncWrite + Unpin> AsyncRead for ConnectionIo<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.refusing.is_some() {
            return this.poll_refuse(cx);
        }
        let read = ready!(this.poll_read_chunk(cx, buf))?;
        if read == 0 || this.count(read) {
            return Poll::Ready(Ok(()));
        }
        tracing::debug!(
            head_bytes = this.head_bytes,
            "request head refused: the listener's head budget is spent"
        );
        this.budget.note_refusal();
        // hyper may still be writing an earlier answer (the client sent its next request before reading it): then
        // a 431 would be mixed into that answer, so the connection only closes.
        let answer = if this.tracked.answer_unsent() {
            Vec::new()
        } else {
            this.budget.refusal()
        };
        this.refusing = Some((answer, 0));
        this.poll_refuse(cx)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for ConnectionIo<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    /// hyper flushes once it has written all it buffered: then no answer is left unsent.
    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let flushed = ready!(Pin::new(&mut this.io).poll_flush(cx));
        if flushed.is_ok() {
            this.tracked.flushed();
        }
        Poll::Ready(flushed)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_shutdown(cx)
    }
}
