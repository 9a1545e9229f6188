//! envtest: see docs/architecture.md.
