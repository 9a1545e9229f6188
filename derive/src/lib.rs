//! rkb derive macros: see docs/architecture.md.
