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
//! ```
//! #[global_allocator]
//! static ALLOCATOR: rkb_runtime::Allocator = rkb_runtime::Allocator;
//! # fn main() {}
//! ```
//!
//! Removing those lines (and the feature) gives the C library's malloc back; nothing else in rkb depends on it.
//! Caveats: mimalloc is C, compiled once by the `cc` crate when the feature is on (a few seconds of a first build);
//! it keeps more memory mapped than glibc's malloc at a peak (the benchmark operator at 10,000 instances: 94 MiB
//! against 84 at its first sync, still under a fifth of its controller-runtime twin's).

pub use mimalloc::MiMalloc as Allocator;
