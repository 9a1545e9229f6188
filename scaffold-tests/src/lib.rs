//! Tests live in tests/.
