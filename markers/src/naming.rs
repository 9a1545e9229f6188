//! Kind -> plural resource name, as controller-gen computes it: `strings.ToLower(flect.Pluralize(kind))`.
//! The word lists are gobuffalo/flect v1.0.3's (data in `flect_data.rs`); the lookup order follows flect's
//! Pluralize: whole-word dictionary, then suffix rules on the last word, then `+s`.

use std::collections::HashMap;
use std::sync::OnceLock;

#[path = "flect_data.rs"]
mod data;

struct Tables {
    single_to_plural: HashMap<&'static str, &'static str>,
    plural_to_single: HashMap<&'static str, &'static str>,
    /// (suffix, replacement); `None` keeps the word (it already is a plural).
    rules: Vec<(&'static str, Option<&'static str>)>,
    acronyms: std::collections::HashSet<&'static str>,
}

/// Built once from const data and never changed: one copy for the process.
fn tables() -> &'static Tables {
    static T: OnceLock<Tables> = OnceLock::new();
    T.get_or_init(|| {
        let mut single_to_plural = HashMap::new();
        let mut plural_to_single = HashMap::new();
        for &(s, p, alt, unidirectional, uncountable, _) in data::DICTIONARY {
            let p = if uncountable && p.is_empty() { s } else { p };
            single_to_plural.insert(s, p);
            if !unidirectional {
                plural_to_single.insert(p, s);
                if !alt.is_empty() {
                    plural_to_single.insert(alt, s);
                }
            }
        }
        // flect prepends each rule (and a keep-rule for its plural), suffix list first (in reverse), then the
        // dictionary: record insertions in order and read them backwards.
        let mut inserted: Vec<(&'static str, Option<&'static str>)> = Vec::new();
        for &(s, p) in data::SUFFIXES.iter().rev() {
            inserted.push((s, Some(p)));
            inserted.push((p, None));
        }
        for &(s, p, _, _, uncountable, exact) in data::DICTIONARY {
            if exact {
                continue;
            }
            let p = if uncountable && p.is_empty() { s } else { p };
            inserted.push((s, Some(p)));
            inserted.push((p, None));
        }
        inserted.reverse();
        Tables {
            single_to_plural,
            plural_to_single,
            rules: inserted,
            acronyms: data::ACRONYMS.iter().copied().collect(),
        }
    })
}

/// The words of an identifier, split as flect does (at a lower->upper change, or after a known acronym).
fn last_part(s: &str, acronyms: &std::collections::HashSet<&'static str>) -> String {
    if acronyms.contains(s.to_uppercase().as_str()) {
        return s.to_uppercase();
    }
    let mut parts: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut prev = '\0';
    for c in s.trim().chars() {
        let split = c.is_whitespace()
            || (c.is_uppercase() && !prev.is_uppercase())
            || (c.is_uppercase() && acronyms.contains(cur.to_uppercase().as_str()));
        if split {
            if !cur.is_empty() {
                parts.push(std::mem::take(&mut cur));
            }
            if !c.is_whitespace() {
                cur.push(c);
            }
            prev = c;
            continue;
        }
        if c.is_alphanumeric() || c.is_ascii_punctuation() {
            cur.push(c);
        } else if !cur.is_empty() {
            parts.push(std::mem::take(&mut cur));
        }
        prev = c;
    }
    if !cur.is_empty() {
        parts.push(cur);
    }
    parts.pop().unwrap_or_default()
}

/// flect.Pluralize, keeping the case of the input.
pub fn pluralize(word: &str) -> String {
    let t = tables();
    let s = last_part(word, &t.acronyms);
    if s.is_empty() {
        return String::new();
    }
    if let Some(p) = t.single_to_plural.get(word) {
        return p.to_string();
    }
    if t.plural_to_single.contains_key(word) {
        return word.to_string();
    }
    let ls = s.to_lowercase();
    if t.plural_to_single.contains_key(ls.as_str()) {
        return word.to_string();
    }
    let stem = word.strip_suffix(s.as_str()).unwrap_or(word);
    if let Some(p) = t.single_to_plural.get(ls.as_str()) {
        return format!("{stem}{p}");
    }
    for (suffix, repl) in &t.rules {
        if s.ends_with(suffix) {
            return match repl {
                Some(r) => format!("{stem}{}{r}", &s[..s.len() - suffix.len()]),
                None => word.to_string(),
            };
        }
    }
    if ls.ends_with('s') {
        return word.to_string();
    }
    format!("{word}s")
}

/// The plural resource name of a kind, lowercased: controller-gen's default `spec.names.plural`.
pub fn plural_of(kind: &str) -> String {
    pluralize(kind).to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::plural_of;

    #[test]
    fn plurals_match_flect() {
        for (kind, plural) in [
            ("DemoMicroService", "demomicroservices"),
            ("Policy", "policies"),
            ("NetworkPolicy", "networkpolicies"),
            ("Ingress", "ingresses"),
            ("Proxy", "proxies"),
            ("Memcached", "memcacheds"),
            ("Gateway", "gateways"),
            ("Status", "statuses"),
            ("Endpoints", "endpoints"),
            ("Child", "children"),
            ("Leaf", "leaves"),
            ("Index", "indices"),
            ("Bus", "buses"),
            ("Box", "boxes"),
            ("Cache", "caches"),
            ("Database", "databases"),
            ("Person", "people"),
            ("Alias", "aliases"),
        ] {
            assert_eq!(plural_of(kind), plural, "{kind}");
        }
    }
}
