//! Feeds arbitrary text to the marker parser for every target; parsing and rendering must never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rkb_markers::{Location, Target, parse_marker};
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // The parser is handed trimmed text starting with `+`, as the doc-comment reader does.
    let text = format!("+{}", text.trim_start_matches('+'))
        .trim()
        .to_string();
    let line = format!("/// {text}");
    let loc = Location {
        file: Path::new("fuzz.rs"),
        line: 1,
        col: 5,
        source_line: &line,
    };
    for target in [Target::Package, Target::Type, Target::Field] {
        match parse_marker(&text, target, &loc) {
            // The typed effect holds every value the parser read.
            Ok(m) => {
                let _ = format!("{:?}", m.effect);
            }
            Err(d) => {
                let _ = d.render();
            }
        }
    }
});
