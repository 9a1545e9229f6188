//! Panics in user code the runtime calls: a reconcile ([`crate::Controller`]), a worker's sync ([`crate::worker`]),
//! a webhook's handler.
//!
//! Contract: [`catch`] runs a future and turns a panic inside it into `Err(message)`, so the task that called it (a
//! controller's worker, a server's connection) lives on and the caller counts and logs the panic like a failure.
//! The message is the panic's own (`panic!("...")` with or without arguments, `expect`, `unwrap`); a payload of
//! another type (`std::panic::panic_any`) reads "a panic with a payload of another type than a string".
//!
//! Caveat: the future is polled as `AssertUnwindSafe`: state it shared with others (a `Mutex` it held is poisoned;
//! the runtime's own locks recover from poisoning) may be half-updated, as after any caught panic.

use std::any::Any;
use std::panic::AssertUnwindSafe;

use futures::FutureExt;

/// The message of a caught panic's payload.
pub fn message(payload: &(dyn Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        return (*text).to_string();
    }
    payload
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_else(|| "a panic with a payload of another type than a string".to_string())
}

/// Runs `future`; a panic inside it comes back as `Err` with its [`message`].
pub async fn catch<F: Future>(future: F) -> Result<F::Output, String> {
    AssertUnwindSafe(future)
        .catch_unwind()
        .await
        .map_err(|payload| message(payload.as_ref()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_panic_comes_back_with_its_message() {
        assert_eq!(catch(async { 7 }).await, Ok(7));
        let literal = catch(async { panic!("literal") }).await;
        assert_eq!(literal, Err("literal".to_string()));
        let name = "web";
        let formatted = catch(async move { panic!("no image for {name}") }).await;
        assert_eq!(formatted, Err("no image for web".to_string()));
        let other = catch(async { std::panic::panic_any(42_u8) }).await;
        assert_eq!(
            other,
            Err("a panic with a payload of another type than a string".to_string())
        );
    }
}
