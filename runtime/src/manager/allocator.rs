//! The memory allocator an operator's process should use (the `mimalloc` feature): mimalloc, in place of the C
//! library's malloc.
//!
//! Why: an operator's work is mostly decoding watch events and building the objects it applies, which allocates
//! and frees many small strings and maps (labels, annotations, managedFields). Under glibc's malloc that was a
//! third of the benchmark operator's CPU at 10,000 instances (`perf`: `_int_malloc`, `_int_free`,
//! `malloc_consolidate`), and its restart took a quarter longer than with mimalloc (docs/benchmarks.md).
//!
//! Contract: the allocator is the binary's choice, so this module only names one. A scaffolded `main.rs` declares
//! it (Rust allows one `#[global_allocator]` per binary, and a library cannot choose for it):
//!
//! ```ignore
//! #[global_allocator]
//! static ALLOCATOR: rkb_runtime::Allocator = rkb_runtime::Allocator;
//! ```
//!
//! Removing those lines (and the feature) gives the C library's malloc back; nothing else in rkb depends on it.
//! Caveat: mimalloc is C, compiled once by the `cc` crate when the feature is on (a few seconds of a first build).

pub use mimalloc::MiMalloc as Allocator;
