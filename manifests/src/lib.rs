//! manifests: see docs/architecture.md.
