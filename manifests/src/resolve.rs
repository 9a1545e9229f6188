//! Stages 4 and 5 for one CRD: each version's `openAPIV3Schema` resolved from its root type (schema/mod.rs does the
//! types), descriptions truncated as `--max-desc-len` asks, then checked (check/mod.rs), version after version.

use crate::check::{Checker, Version, check_version};
use crate::model::TypeId;
use crate::plan::CrdPlan;
use crate::schema::node::Node;
use crate::schema::{Schema, SchemaGen, TypeRef, flatten_all_of};
use serde_json::{Value, json};

/// The full `openAPIV3Schema` of a root type.
pub fn root_schema(sg: &mut SchemaGen<'_>, ty: TypeId, max_desc_len: Option<usize>) -> Schema {
    let mut s = sg.take_flattened(&TypeRef::Local(ty));
    flatten_all_of(&mut s, sg.shared);
    let props = s.properties.get_or_insert_with(Default::default);
    if props.contains_key("metadata") {
        let mut object = Schema::new();
        object.insert("type".into(), json!("object"));
        props.insert("metadata".into(), Node::Own(object));
    }
    let type_meta = crate::schema::type_meta_schema().properties;
    for (k, v) in type_meta.into_iter().flatten() {
        props.entry(k).or_insert(v);
    }
    if let Some(n) = max_desc_len {
        truncate_descriptions(&mut s, n);
    }
    s
}

fn truncate_descriptions(s: &mut Schema, max: usize) {
    if max == 0 {
        s.remove("description");
    } else if let Some(Value::String(d)) = s.get_mut("description")
        && d.len() > max
    {
        *d = truncate(d, max);
    }
    // Descriptions are cut only in a run that copies k8s types instead of sharing them: every node is the run's own.
    s.for_each_own_mut(&mut |c| truncate_descriptions(c, max));
}

/// controller-gen's truncateString: cut at `max` bytes, then back to the last sentence end, else the last
/// blank (adding "..."), else just "...".
fn truncate(desc: &str, max: usize) -> String {
    let mut cut = max.min(desc.len());
    while !desc.is_char_boundary(cut) {
        cut -= 1;
    }
    let d = &desc[..cut];
    if let Some((i, c)) = d
        .char_indices()
        .rev()
        .find(|(_, c)| is_sentence_terminal(*c))
        && i > 0
    {
        return d[..i + c.len_utf8()].to_string();
    }
    if let Some((i, _)) = d.char_indices().rev().find(|(_, c)| c.is_whitespace())
        && i > 0
    {
        return format!("{}...", &d[..i]);
    }
    format!("{d}...")
}

fn is_sentence_terminal(c: char) -> bool {
    matches!(
        c,
        '.' | '!'
            | '?'
            | '\u{589}'
            | '\u{61f}'
            | '\u{6d4}'
            | '\u{964}'
            | '\u{965}'
            | '\u{3002}'
            | '\u{ff01}'
            | '\u{ff0e}'
            | '\u{ff1f}'
    )
}

/// Stages 4 and 5 for one CRD, one version after the other. Resolve: the version's `openAPIV3Schema`, reporting
/// what resolving finds (types, markers that do not fit their types). Then check: the rules of check/mod.rs on it,
/// before the next version is resolved, so an error in a later version does not hide the problems of an earlier
/// one. Both report into the generator's diagnostics; the schemas come back in plan order.
pub fn resolve_and_check(
    sg: &mut SchemaGen<'_>,
    plan: &CrdPlan,
    max_desc_len: Option<usize>,
) -> Vec<Schema> {
    let mut schemas = Vec::with_capacity(plan.versions.len());
    for v in &plan.versions {
        let schema = root_schema(sg, v.ty, max_desc_len);
        let version = Version {
            ty: v.ty,
            name: &v.name,
            schema: &schema,
        };
        check_version(
            &mut Checker::new(
                sg.model,
                sg.shared,
                &sg.recursive,
                sg.earlier_errors,
                &mut sg.diags,
            ),
            &version,
        );
        schemas.push(schema);
    }
    schemas
}

#[cfg(test)]
mod tests {
    use super::truncate;

    #[test]
    fn truncates_like_controller_gen() {
        assert_eq!(truncate("One. Two three four.", 12), "One.");
        assert_eq!(truncate("alpha beta gamma", 12), "alpha beta...");
        assert_eq!(truncate("abcdefghijkl", 5), "abcde...");
    }
}
