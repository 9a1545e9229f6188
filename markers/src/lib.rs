//! rkb-markers: controller-gen's `+marker` grammar, the controller-gen v0.21.0 marker vocabulary, and
//! diagnostics rendered rustc-style. It works on text and positions only (no syn): callers hand it the
//! text of a doc line that starts with `+`, with the line/column where that text sits.
//!
//! ```
//! use rkb_markers::{parse_marker, Effect, Location, NumberMarker, SchemaMarker, Target};
//! use std::path::Path;
//! let line = "    /// +kubebuilder:validation:Minimum=1";
//! let loc = Location { file: Path::new("src/api/v1/a_types.rs"), line: 3, col: 9, source_line: line };
//! let m = parse_marker("+kubebuilder:validation:Minimum=1", Target::Field, &loc).unwrap();
//! assert_eq!(m.effect, Effect::Schema(SchemaMarker::Number(NumberMarker::Minimum(1.0))));
//! ```

mod args;
mod diag;
mod dns;
mod effect;
mod keywords;
mod naming;
mod parse;
mod registry;
mod suggest;
mod value;

pub use diag::{Diagnostic, Severity, UNKNOWN_MARKER, render_all};
pub use dns::{DNS1035_LABEL_RULE, dns1035_label_like, dns1035_label_problem};
pub use effect::{
    CompatAllow, CrdMarker, DeriveMarker, Effect, ExternalDocs, Family, GenclientTag, ListMarker,
    NumberMarker, ObjectMarker, PackageMarker, Presence, PrintColumn, RbacRule, Resource,
    RuleMarker, Scale, SchemaMarker, StringMarker, TopologyMarker, ValueMarker, WebhookArgs,
    WebhookMarker, XValidation,
};
pub use keywords::{RUST_KEYWORDS, is_rust_keyword};
pub use naming::{plural_of, pluralize};
pub use parse::{Location, Marker, Span, is_marker_text, marker_in, parse_marker};
pub use registry::{ArgDef, Args, MarkerDef, Registry, Target, Targets};
pub use suggest::levenshtein;
pub use value::{ArgType, Value, ValueError};
