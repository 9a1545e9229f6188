//! client-gen's `+genclient` tags: which verbs a kind's typed client gets (code-generator's
//! `ParseClientGenTags`, with its conflicts turned into compile errors at the marker).

use std::collections::BTreeSet;

use proc_macro2::Span;

use rkb_markers::{DeriveMarker, Effect, Family, GenclientTag, Registry};

use crate::doc_markers::MarkerLine;

/// client-gen's verbs, in its order.
pub const SUPPORTED_VERBS: [&str; 11] = [
    "create",
    "update",
    "updateStatus",
    "delete",
    "deleteCollection",
    "get",
    "list",
    "watch",
    "patch",
    "apply",
    "applyStatus",
];
const READONLY_VERBS: [&str; 3] = ["get", "list", "watch"];
const STATUS_VERBS: [&str; 2] = ["updateStatus", "applyStatus"];

/// The verbs `+genclient:method=` may use: client-gen's, but for the status ones (a method names its subresource).
const METHOD_VERBS: [&str; 9] = [
    "get",
    "list",
    "watch",
    "create",
    "update",
    "patch",
    "apply",
    "delete",
    "deleteCollection",
];

/// Method verbs that address the whole resource or collection: kube builds no subresource request for them.
const NO_SUBRESOURCE_VERBS: [&str; 4] = ["list", "watch", "delete", "deleteCollection"];

/// What the tags ask for.
pub struct GenClient {
    /// The `+genclient` line, when present.
    pub enabled: Option<Span>,
    pub non_namespaced: Option<Span>,
    /// Verbs of the generated client (subset of `SUPPORTED_VERBS`).
    pub verbs: BTreeSet<&'static str>,
    /// Lines that bring status verbs (for errors about a missing status subresource).
    pub status_source: Option<Span>,
    pub methods: Vec<Method>,
}

/// `+genclient:method=Name,verb=...,subresource=...,input=...,result=...`
pub struct Method {
    pub name: String,
    pub verb: &'static str,
    pub subresource: Option<String>,
    pub input: Option<syn::Type>,
    pub result: Option<syn::Type>,
    pub span: Span,
}

fn err(span: Span, msg: impl std::fmt::Display) -> syn::Error {
    syn::Error::new(span, msg)
}

/// The verbs of `+genclient:onlyVerbs=` or `+genclient:skipVerbs=`, from the list rkb-markers read.
fn verb_list(
    line: &MarkerLine,
    listed: &[String],
    errors: &mut Vec<syn::Error>,
) -> Vec<&'static str> {
    let mut verbs = Vec::new();
    for v in listed.iter().map(|v| v.trim()).filter(|v| !v.is_empty()) {
        match SUPPORTED_VERBS.iter().find(|s| **s == v) {
            Some(s) => verbs.push(*s),
            None => errors.push(err(
                line.span,
                format!(
                    "`{}`: unknown verb `{v}`; client-gen's verbs are {}",
                    line.text,
                    SUPPORTED_VERBS.join(", ")
                ),
            )),
        }
    }
    if listed.is_empty() {
        errors.push(err(
            line.span,
            format!("`{}` needs a verb list, e.g. `=get,list`", line.text),
        ));
    }
    verbs
}

/// Reads the `+genclient` family from the type's marker lines.
/// The tags seen, before their conflicts are checked and the verbs resolved.
#[derive(Default)]
struct Tags<'a> {
    no_verbs: Option<Span>,
    no_status: Option<Span>,
    readonly: Option<Span>,
    only: Option<(Vec<&'static str>, Span)>,
    skip: Option<(Vec<&'static str>, Span)>,
    /// Every `+genclient:<tag>` line (each needs `+genclient` on the type).
    tagged: Vec<&'a MarkerLine>,
}

pub fn parse(lines: &[MarkerLine]) -> Result<GenClient, syn::Error> {
    let mut errors = Vec::new();
    let mut g = GenClient {
        enabled: None,
        non_namespaced: None,
        verbs: BTreeSet::new(),
        status_source: None,
        methods: Vec::new(),
    };
    let tags = read_tags(lines, &mut g, &mut errors);
    if g.enabled.is_none() {
        for line in &tags.tagged {
            let msg = format!(
                "`{}` has no effect without `+genclient` on the same type",
                line.text
            );
            errors.push(err(line.span, msg));
        }
    }
    check_conflicts(&tags, &g.methods, &mut errors);
    if tags.no_verbs.is_none() && g.enabled.is_some() {
        g.verbs = resolved_verbs(&tags);
        if STATUS_VERBS.iter().any(|v| g.verbs.contains(v)) {
            g.status_source = match &tags.only {
                Some((o, span)) if o.iter().any(|v| STATUS_VERBS.contains(v)) => Some(*span),
                _ => g.enabled,
            };
        }
    }
    check_method_names(&g.methods, &mut errors);
    let mut errors = errors.into_iter();
    match errors.next() {
        None => Ok(g),
        Some(mut first) => {
            for e in errors {
                first.combine(e);
            }
            Err(first)
        }
    }
}

/// Reads each `+genclient` line: `+genclient` itself, namespacing and methods into `g`, the verb tags into the
/// result. Lines of other markers are skipped.
fn read_tags<'a>(
    lines: &'a [MarkerLine],
    g: &mut GenClient,
    errors: &mut Vec<syn::Error>,
) -> Tags<'a> {
    let mut tags = Tags::default();
    for line in lines {
        // The shared grammar reads every line: the family is known by its effect, typos and malformed values get
        // its diagnostics.
        let marker = match crate::doc_markers::parse_with_library(line) {
            Ok(Some(m)) => m,
            // An unreadable line is ours to report only in client-gen's namespace; rkb-manifests reports the others.
            Ok(None) if in_genclient_namespace(line) => {
                errors.push(unknown_tag(line));
                continue;
            }
            Err(e) if in_genclient_namespace(line) => {
                errors.push(e);
                continue;
            }
            Ok(None) | Err(_) => continue,
        };
        // Markers of other effects are rkb-manifests' to apply; among the derive's own, each is handled here or
        // named as another file's.
        let Effect::Derive(derive) = marker.effect else {
            continue;
        };
        let tag = match derive {
            DeriveMarker::Genclient(value) => {
                if value.is_some() {
                    errors.push(err(
                        line.span,
                        format!(
                            "`{}` is invalid: write `+genclient` to generate a client, or leave it out",
                            line.text
                        ),
                    ));
                }
                g.enabled = Some(line.span);
                continue;
            }
            DeriveMarker::GenclientTag(tag) => tag,
            // Read by deep_copy.rs.
            DeriveMarker::DeepCopy(_) => continue,
        };
        tags.tagged.push(line);
        match tag {
            GenclientTag::NonNamespaced => g.non_namespaced = Some(line.span),
            GenclientTag::NoVerbs => tags.no_verbs = Some(line.span),
            GenclientTag::NoStatus => tags.no_status = Some(line.span),
            GenclientTag::Readonly => tags.readonly = Some(line.span),
            GenclientTag::OnlyVerbs(listed) => {
                tags.only = Some((verb_list(line, &listed, errors), line.span))
            }
            GenclientTag::SkipVerbs(listed) => {
                tags.skip = Some((verb_list(line, &listed, errors), line.span))
            }
            GenclientTag::Method(raw) => match parse_method(line, &raw) {
                Ok(m) => g.methods.push(m),
                Err(e) => errors.push(e),
            },
        }
    }
    tags
}

/// client-gen's conflicts between tags: noVerbs with anything that names verbs, a verb both only and skipped, a
/// status verb with noStatus.
fn check_conflicts(tags: &Tags, methods: &[Method], errors: &mut Vec<syn::Error>) {
    if tags.no_verbs.is_some() {
        for (what, other) in [
            ("readonly", tags.readonly),
            ("onlyVerbs", tags.only.as_ref().map(|o| o.1)),
            ("skipVerbs", tags.skip.as_ref().map(|s| s.1)),
        ] {
            if let Some(o) = other {
                errors.push(err(
                    o,
                    format!("`+genclient:{what}` conflicts with `+genclient:noVerbs`"),
                ));
            }
        }
        if let Some(m) = methods.first() {
            errors.push(err(
                m.span,
                "`+genclient:method` conflicts with `+genclient:noVerbs`",
            ));
        }
    }
    if let (Some((only_verbs, _)), Some((skip_verbs, skip_span))) = (&tags.only, &tags.skip) {
        for v in skip_verbs.iter().filter(|v| only_verbs.contains(v)) {
            let msg =
                format!("verb `{v}` used both in +genclient:skipVerbs and +genclient:onlyVerbs");
            errors.push(err(*skip_span, msg));
        }
    }
    if let (Some(_), Some((only_verbs, only_span))) = (tags.no_status, &tags.only) {
        for v in only_verbs.iter().filter(|v| STATUS_VERBS.contains(v)) {
            errors.push(err(
                *only_span,
                format!("verb `{v}` conflicts with `+genclient:noStatus`"),
            ));
        }
    }
}

/// The client's verbs: all of client-gen's, or onlyVerbs (readonly adds get, list, watch), minus skipVerbs and,
/// with noStatus, the status verbs.
fn resolved_verbs(tags: &Tags) -> BTreeSet<&'static str> {
    let mut verbs: BTreeSet<&'static str> = if tags.readonly.is_some() || tags.only.is_some() {
        let mut set = BTreeSet::new();
        if tags.readonly.is_some() {
            set.extend(READONLY_VERBS);
        }
        if let Some((only, _)) = &tags.only {
            set.extend(only.iter().copied());
        }
        set
    } else {
        SUPPORTED_VERBS.into_iter().collect()
    };
    if let Some((skip, _)) = &tags.skip {
        for v in skip {
            verbs.remove(v);
        }
    }
    if tags.no_status.is_some() {
        for v in STATUS_VERBS {
            verbs.remove(v);
        }
    }
    verbs
}

/// A method may not take the name of a verb's method or of another method.
fn check_method_names(methods: &[Method], errors: &mut Vec<syn::Error>) {
    for (i, m) in methods.iter().enumerate() {
        let snake = snake_case(&m.name);
        if SUPPORTED_VERBS.iter().any(|v| snake_case(v) == snake)
            || methods[..i].iter().any(|o| o.name == m.name)
        {
            errors.push(err(
                m.span,
                format!("method name `{}` is already taken", m.name),
            ));
        }
    }
}

/// client-gen's tags are all written `+genclient:<tag>`: such a line that rkb-markers cannot read is a tag gone
/// wrong. (The lines it reads are known by their effect.)
fn in_genclient_namespace(line: &MarkerLine) -> bool {
    line.text.starts_with("+genclient:")
}

/// A `+genclient:<tag>` line whose tag the vocabulary does not have, quoted as written, with the known tags listed
/// from the vocabulary. A near miss never gets here: rkb-markers makes it an error with its did-you-mean.
fn unknown_tag(line: &MarkerLine) -> syn::Error {
    let known: Vec<&str> = Registry::get()
        .all()
        .iter()
        .filter(|d| d.family == Family::Derive)
        .filter_map(|d| d.name.strip_prefix("genclient:"))
        .collect();
    err(
        line.span,
        format!("unknown tag `{}`; known: {}", line.text, known.join(", ")),
    )
}

fn parse_method(line: &MarkerLine, raw: &str) -> Result<Method, syn::Error> {
    // The vocabulary takes the value as raw text: its `Name,key=value,...` list is client-gen's, read here.
    let mut parts = raw.split(',').map(str::trim);
    let name = parts.next().unwrap_or("").to_string();
    let ok_name = name.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && name.chars().all(|c| c.is_ascii_alphanumeric());
    if !ok_name {
        return Err(err(
            line.span,
            format!(
                "`{}`: expected `+genclient:method=Name,verb=...` with a CamelCase Name",
                line.text
            ),
        ));
    }
    let mut m = Method {
        name,
        verb: "",
        subresource: None,
        input: None,
        result: None,
        span: line.span,
    };
    for part in parts {
        let Some((k, v)) = part.split_once('=') else {
            return Err(err(
                line.span,
                format!("`{}`: `{part}` is not `key=value`", line.text),
            ));
        };
        let v = v.trim();
        match k.trim() {
            "verb" => {
                m.verb = METHOD_VERBS.iter().find(|x| **x == v).copied().ok_or_else(|| {
                    err(
                        line.span,
                        format!(
                            "`{}`: verb `{v}` is not supported by +genclient:method here; use one of {}",
                            line.text,
                            METHOD_VERBS.join(", ")
                        ),
                    )
                })?
            }
            "subresource" => m.subresource = Some(v.to_string()),
            "input" => m.input = Some(rust_type(line, v)?),
            "result" => m.result = Some(rust_type(line, v)?),
            other => {
                return Err(err(
                    line.span,
                    format!(
                        "`{}`: unknown key `{other}`; +genclient:method takes verb, subresource, input, result",
                        line.text
                    ),
                ));
            }
        }
    }
    if m.verb.is_empty() {
        return Err(err(line.span, format!("`{}` needs `verb=`", line.text)));
    }
    check_method_shape(&m, line)?;
    Ok(m)
}

/// What a verb's method cannot use: a subresource for the verbs kube addresses to the whole resource, an input for
/// those that send none, a result for the deletes (they return nothing).
fn check_method_shape(m: &Method, line: &MarkerLine) -> Result<(), syn::Error> {
    let refuse = |what: &str, why: &str| {
        Err(err(
            line.span,
            format!(
                "`{}`: `{what}` does not go with verb={}: {why}",
                line.text, m.verb
            ),
        ))
    };
    if m.subresource.is_some() && NO_SUBRESOURCE_VERBS.contains(&m.verb) {
        return refuse(
            "subresource",
            "it addresses the resource itself (subresources take get, create, update, patch, apply)",
        );
    }
    if m.input.is_some() && ["get", "list", "watch", "delete", "deleteCollection"].contains(&m.verb)
    {
        return refuse("input", "it sends no body");
    }
    if m.result.is_some() && ["delete", "deleteCollection"].contains(&m.verb) {
        return refuse("result", "it returns nothing");
    }
    Ok(())
}

fn rust_type(line: &MarkerLine, v: &str) -> Result<syn::Type, syn::Error> {
    if v.contains('/') {
        return Err(err(
            line.span,
            format!(
                "`{}`: `{v}` is a Go import path; name the Rust type, e.g. `k8s_openapi::api::autoscaling::v1::Scale`",
                line.text
            ),
        ));
    }
    syn::parse_str(v).map_err(|e| {
        err(
            line.span,
            format!("`{}`: `{v}` is not a Rust type: {e}", line.text),
        )
    })
}

/// `updateStatus` -> `update_status`, `GetScale` -> `get_scale`.
pub fn snake_case(s: &str) -> String {
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags(lines: &[&str]) -> Result<GenClient, syn::Error> {
        let lines: Vec<MarkerLine> = lines
            .iter()
            .map(|t| MarkerLine {
                text: t.to_string(),
                span: Span::call_site(),
            })
            .collect();
        parse(&lines)
    }

    fn verbs(lines: &[&str]) -> Vec<&'static str> {
        let mut v: Vec<_> = tags(lines).unwrap().verbs.into_iter().collect();
        v.sort_by_key(|x| SUPPORTED_VERBS.iter().position(|s| s == x));
        v
    }

    #[test]
    fn verb_sets_follow_client_gen() {
        assert_eq!(verbs(&["+genclient"]), SUPPORTED_VERBS);
        assert!(verbs(&[]).is_empty(), "no +genclient, no client");
        assert!(verbs(&["+genclient", "+genclient:noVerbs"]).is_empty());
        assert_eq!(
            verbs(&["+genclient", "+genclient:readonly"]),
            ["get", "list", "watch"]
        );
        assert_eq!(
            verbs(&[
                "+genclient",
                "+genclient:readonly",
                "+genclient:onlyVerbs=create"
            ]),
            ["create", "get", "list", "watch"]
        );
        assert_eq!(
            verbs(&["+genclient", "+genclient:onlyVerbs=get,update,updateStatus"]),
            ["update", "updateStatus", "get"]
        );
        assert_eq!(
            verbs(&[
                "+genclient",
                "+genclient:noStatus",
                "+genclient:skipVerbs=watch,apply"
            ]),
            [
                "create",
                "update",
                "delete",
                "deleteCollection",
                "get",
                "list",
                "patch"
            ]
        );
    }

    #[test]
    fn status_source_names_the_line_that_brings_status_verbs() {
        assert!(tags(&["+genclient"]).unwrap().status_source.is_some());
        assert!(
            tags(&["+genclient", "+genclient:noStatus"])
                .unwrap()
                .status_source
                .is_none()
        );
        assert!(
            tags(&["+genclient", "+genclient:readonly"])
                .unwrap()
                .status_source
                .is_none()
        );
    }

    #[test]
    fn an_unknown_tag_lists_the_known_ones() {
        // A near miss gets the vocabulary's did-you-mean; anything else this.
        let Err(e) = tags(&["+genclient", "+genclient:frobnicate"]) else {
            panic!("an unknown tag is an error");
        };
        assert_eq!(
            e.to_string(),
            "unknown tag `+genclient:frobnicate`; known: \
             nonNamespaced, noVerbs, noStatus, readonly, onlyVerbs, skipVerbs, method"
        );
    }

    #[test]
    fn methods_parse_and_conflicts_fail() {
        let g = tags(&[
            "+genclient",
            "+genclient:method=GetScale,verb=get,subresource=scale,result=k8s_openapi::api::autoscaling::v1::Scale",
        ])
        .unwrap();
        assert_eq!(g.methods[0].name, "GetScale");
        assert_eq!(g.methods[0].subresource.as_deref(), Some("scale"));
        // Every verb client-gen allows a method; the status verbs and unknown ones are refused.
        for verb in METHOD_VERBS {
            let line = format!("+genclient:method=Custom,verb={verb}");
            assert!(tags(&["+genclient", &line]).is_ok(), "{verb}");
        }
        for verb in ["updateStatus", "evict"] {
            let line = format!("+genclient:method=Custom,verb={verb}");
            assert!(tags(&["+genclient", &line]).is_err(), "{verb}");
        }
        let shape = "+genclient:method=Evict,verb=delete,subresource=eviction";
        assert!(tags(&["+genclient", shape]).is_err());
        assert!(tags(&["+genclient", "+genclient:method=lower,verb=get"]).is_err());
        assert!(
            tags(&[
                "+genclient",
                "+genclient:noVerbs",
                "+genclient:skipVerbs=get"
            ])
            .is_err()
        );
        assert_eq!(snake_case("deleteCollection"), "delete_collection");
        assert_eq!(snake_case("GetScale"), "get_scale");
    }
}
