//! The API server's rule for the names markers give that must be DNS labels: a CRD version's name is a DNS-1035
//! label (k8s.io/apiextensions-apiserver's CRD validation applies k8s.io/apimachinery's `IsDNS1035Label` to each
//! `spec.versions[].name`): `[a-z]([-a-z0-9]*[a-z0-9])?`, at most 63 characters.

/// The longest DNS-1035 label.
const DNS1035_LABEL_MAX_LEN: usize = 63;

/// What the rule asks, for hints.
pub const DNS1035_LABEL_RULE: &str = "a DNS-1035 label (lower-case letters, digits and '-', starting with a letter and ending with a letter or a digit, at most 63 characters)";

/// Why `name` is not a DNS-1035 label, if it is not: the first part of the rule it breaks.
pub fn dns1035_label_problem(name: &str) -> Option<String> {
    let allowed = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-';
    let len = name.chars().count();
    let problem = if let Some(c) = name.chars().find(|&c| !allowed(c)) {
        format!("it holds `{c}`")
    } else if let Some(c) = name.chars().next().filter(|c| !c.is_ascii_lowercase()) {
        format!("it starts with `{c}`, not a letter")
    } else if name.is_empty() {
        "it is empty".to_string()
    } else if name.ends_with('-') {
        "it ends with `-`".to_string()
    } else if len > DNS1035_LABEL_MAX_LEN {
        format!("it is {len} characters long")
    } else {
        return None;
    };
    Some(problem)
}

/// The DNS-1035 label closest to `name`, for a hint: lower case, without the characters a label cannot hold,
/// from its first letter, at most 63 characters; `None` when nothing is left.
pub fn dns1035_label_like(name: &str) -> Option<String> {
    let kept: String = name
        .to_ascii_lowercase()
        .chars()
        .filter(|&c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        .skip_while(|c| !c.is_ascii_lowercase())
        .take(DNS1035_LABEL_MAX_LEN)
        .collect();
    let label = kept.trim_end_matches('-');
    (!label.is_empty()).then(|| label.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_names_follow_the_api_servers_rule() {
        for ok in [
            "v1",
            "v1alpha1",
            "v2beta3",
            "a",
            "my-version-2",
            &"v".repeat(63),
        ] {
            assert_eq!(dns1035_label_problem(ok), None, "{ok}");
        }
        for (bad, why) in [
            ("", "it is empty"),
            ("v1_alpha1", "it holds `_`"),
            ("V1", "it holds `V`"),
            ("1v", "it starts with `1`, not a letter"),
            ("-v1", "it starts with `-`, not a letter"),
            ("v1-", "it ends with `-`"),
            (&"v".repeat(64), "it is 64 characters long"),
        ] {
            assert_eq!(dns1035_label_problem(bad).as_deref(), Some(why), "{bad:?}");
        }
    }

    #[test]
    fn the_closest_label_is_offered() {
        assert_eq!(dns1035_label_like("v1_alpha1").as_deref(), Some("v1alpha1"));
        assert_eq!(dns1035_label_like("V1").as_deref(), Some("v1"));
        assert_eq!(dns1035_label_like("_1-v2-").as_deref(), Some("v2"));
        assert_eq!(dns1035_label_like(&"v".repeat(70)), Some("v".repeat(63)));
        assert_eq!(dns1035_label_like("_1"), None);
        for name in ["v1_alpha1", "V1", "_1-v2-", "x__"] {
            let label = dns1035_label_like(name).unwrap();
            assert_eq!(dns1035_label_problem(&label), None, "{name} -> {label}");
        }
    }
}
