//! Marker lines (`/// +...`) of an item's doc attributes, each with the span of its attribute so
//! errors point at the marker.

use proc_macro2::Span;
use syn::{Attribute, Expr, ExprLit, Lit, Meta};

/// One doc line that is a marker.
pub struct MarkerLine {
    /// Trimmed text, starting with `+`.
    pub text: String,
    /// The `#[doc = ...]` attribute it came from.
    pub span: Span,
}

/// Marker lines of `attrs` in source order.
pub fn marker_lines(attrs: &[Attribute]) -> Vec<MarkerLine> {
    let mut out = Vec::new();
    for attr in attrs {
        let Meta::NameValue(nv) = &attr.meta else {
            continue;
        };
        if !nv.path.is_ident("doc") {
            continue;
        }
        let Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) = &nv.value
        else {
            continue;
        };
        // One attribute per `///` line; a `/** */` block may hold several lines.
        for text in s.value().lines().filter_map(rkb_markers::marker_in) {
            out.push(MarkerLine {
                text: text.to_string(),
                span: attr_span(attr),
            });
        }
    }
    out
}

fn attr_span(attr: &Attribute) -> Span {
    use syn::spanned::Spanned;
    attr.span()
}

/// Parses `line` with rkb-markers (the grammar and vocabulary `rkb manifests` uses), on a type.
/// `Ok(None)` for lines the vocabulary does not know and only warns about (other tools' markers).
pub fn parse_with_library(line: &MarkerLine) -> Result<Option<rkb_markers::Marker>, syn::Error> {
    let start = line.span.start();
    // Outside a macro expansion (unit tests) the compiler's span API is unavailable.
    let file = proc_macro::is_available()
        .then(|| proc_macro::Span::call_site().local_file())
        .flatten()
        .unwrap_or_else(|| std::path::PathBuf::from("<derive input>"));
    let loc = rkb_markers::Location {
        file: &file,
        line: start.line,
        col: start.column + 1,
        source_line: &line.text,
    };
    match rkb_markers::parse_marker(&line.text, rkb_markers::Target::Type, &loc) {
        Ok(m) => Ok(Some(m)),
        Err(d) if !d.is_error() => Ok(None),
        Err(d) => {
            let mut msg = d.message.clone();
            if let Some(h) = &d.hint {
                msg.push_str(&format!("\nhelp: {h}"));
            }
            Err(syn::Error::new(line.span, msg))
        }
    }
}
