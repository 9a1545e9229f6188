//! Rust's strict and reserved keywords (edition 2024), for the scanner (words that cannot name an item) and the
//! CLI (names a kind, group or project may not take).

/// None of these can name a module, crate, struct or field without `r#`.
pub const RUST_KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate",
    "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl",
    "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref",
    "return", "self", "Self", "static", "struct", "super", "trait", "true", "try", "type",
    "typeof", "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

pub fn is_rust_keyword(word: &str) -> bool {
    RUST_KEYWORDS.contains(&word)
}
