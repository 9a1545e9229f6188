//! Parsing label selectors written the way kubectl and client-go's `labels.Parse` take them
//! (`app=web,tier!=db,env in (prod,staging),!legacy`), into kube's `Selector`.

use std::collections::BTreeSet;

use kube::core::{Expression, Selector};

/// A label selector string that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid label selector {input:?}: {reason}")]
pub struct SelectorError {
    /// The whole selector.
    pub input: String,
    /// What is wrong.
    pub reason: String,
}

/// Parses `s`; the empty string selects everything.
pub fn parse_selector(s: &str) -> Result<Selector, SelectorError> {
    let err = |reason: String| SelectorError {
        input: s.to_string(),
        reason,
    };
    let mut exprs = Vec::new();
    for term in split_terms(s).map_err(err)? {
        exprs.push(parse_term(term).map_err(err)?);
    }
    Ok(exprs.into_iter().collect())
}

/// Splits at commas that are not inside a `( ... )` set.
fn split_terms(s: &str) -> Result<Vec<&str>, String> {
    let mut terms = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth < 0 {
                    return Err("unbalanced ')'".into());
                }
            }
            ',' if depth == 0 => {
                terms.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if depth != 0 {
        return Err("unbalanced '('".into());
    }
    terms.push(&s[start..]);
    let terms: Vec<&str> = terms.into_iter().map(str::trim).collect();
    if terms.len() == 1 && terms[0].is_empty() {
        return Ok(Vec::new());
    }
    if terms.iter().any(|t| t.is_empty()) {
        return Err("empty term".into());
    }
    Ok(terms)
}

fn parse_term(term: &str) -> Result<Expression, String> {
    if let Some(key) = term.strip_prefix('!') {
        return Ok(Expression::DoesNotExist(label_key(key)?));
    }
    if let Some((key, value)) = term.split_once("!=") {
        return Ok(Expression::NotEqual(label_key(key)?, label_value(value)?));
    }
    if let Some((key, value)) = term.split_once("==").or_else(|| term.split_once('=')) {
        return Ok(Expression::Equal(label_key(key)?, label_value(value)?));
    }
    if let Some(open) = term.find('(') {
        let head = term[..open].trim_end();
        let set = term[open..]
            .strip_prefix('(')
            .and_then(|r| r.strip_suffix(')'))
            .ok_or_else(|| format!("{term:?}: a set must end with ')'"))?;
        let values = set
            .split(',')
            .map(|v| label_value(v.trim()))
            .collect::<Result<BTreeSet<_>, _>>()?;
        if let Some(key) = head.strip_suffix(" notin") {
            return Ok(Expression::NotIn(label_key(key)?, values));
        }
        if let Some(key) = head.strip_suffix(" in") {
            return Ok(Expression::In(label_key(key)?, values));
        }
        return Err(format!("{term:?}: expected 'in' or 'notin' before '('"));
    }
    Ok(Expression::Exists(label_key(term)?))
}

/// A qualified name with an optional DNS prefix (`example.com/name`), as labels allow.
fn label_key(key: &str) -> Result<String, String> {
    let key = key.trim();
    let name = key.rsplit_once('/').map_or(key, |(_, n)| n);
    let ok = !name.is_empty()
        && name.len() <= 63
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
        && name.starts_with(|c: char| c.is_ascii_alphanumeric())
        && name.ends_with(|c: char| c.is_ascii_alphanumeric());
    if ok {
        Ok(key.to_string())
    } else {
        Err(format!("{key:?} is not a valid label key"))
    }
}

fn label_value(value: &str) -> Result<String, String> {
    let value = value.trim();
    let ok = value.len() <= 63
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
        && (value.is_empty()
            || (value.starts_with(|c: char| c.is_ascii_alphanumeric())
                && value.ends_with(|c: char| c.is_ascii_alphanumeric())));
    if ok {
        Ok(value.to_string())
    } else {
        Err(format!("{value:?} is not a valid label value"))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use kube::core::SelectorExt;

    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn parses_every_operator() {
        let sel = parse_selector("app=web, tier!=db,env in (prod, staging),!legacy,team").unwrap();
        assert_eq!(
            sel.to_string(),
            "app=web,tier!=db,env in (prod,staging),!legacy,team"
        );
        let hit = labels(&[("app", "web"), ("env", "prod"), ("team", "a")]);
        assert!(sel.matches(&hit));
        let miss = labels(&[("app", "web"), ("env", "dev"), ("team", "a")]);
        assert!(!sel.matches(&miss));
        let legacy = labels(&[
            ("app", "web"),
            ("env", "prod"),
            ("team", "a"),
            ("legacy", ""),
        ]);
        assert!(!sel.matches(&legacy));
    }

    #[test]
    fn empty_selects_all_and_bad_input_is_rejected() {
        assert!(parse_selector("").unwrap().selects_all());
        assert!(parse_selector("a=b,,c").is_err());
        assert!(parse_selector("env in (a,b").is_err());
        assert!(parse_selector("env within (a)").is_err());
        assert!(parse_selector("-bad=x").is_err());
        assert!(
            parse_selector("example.com/app notin (x)")
                .unwrap()
                .matches(&labels(&[]))
        );
    }
}
