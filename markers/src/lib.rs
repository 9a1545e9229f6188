//! markers: see docs/architecture.md.
