//! values.yaml: written with the defaults read from config/default on the first run, and the user's afterwards.
//!
//! A later run keeps the user's file as it is (values, comments, order) and only adds the keys the templates use
//! that it lacks, each with its comment, at the end of its parent's block (so a project that gains webhooks gets
//! `webhook:` and `certManager:`). Keys the user removed inside the blocks handed to `toYaml` (resources, env,
//! ...) are the user's choice and are not added back. Keys the templates no longer use are left in place.

use anyhow::Result;
use serde_json::Value;

use super::manager::ManagerValues;
use super::yaml_lines::{block_end, find_key, indent_of, is_blank, key_indent};

/// The chart's optional pieces, which decide the sections values.yaml has and their defaults.
#[derive(Debug)]
pub(super) struct Features {
    pub webhooks: bool,
    pub cert_manager: bool,
    /// Whether config/default installs them (their default); None when the project has none.
    pub prometheus: Option<bool>,
    pub network_policy: Option<bool>,
}

/// Keys whose value is handed to `toYaml` whole: the user's content, not merged key by key.
const OPAQUE: [&str; 9] = [
    "env",
    "resources",
    "securityContext",
    "podSecurityContext",
    "nodeSelector",
    "tolerations",
    "affinity",
    "imagePullSecrets",
    "extraArgs",
];

/// The values.yaml of this render, with its defaults.
pub(super) fn generate(chart: &str, manager: &ManagerValues, features: &Features) -> String {
    let mut out = format!(
        "# Values of the {chart} chart. `rkb edit --plugins helm` (make helm-chart) wrote this file from config/default and\n\
         # keeps it as you edit it: a later run only adds the keys a newer template needs.\n\
         \n\
         ## Names: objects are named <fullname>-<suffix> (e.g. -controller-manager). The fullname is the release name when\n\
         ## it contains the chart's name (release {chart}: the names `make deploy` gives), else <release>-{chart}.\n\
         # nameOverride: \"\"\n\
         # fullnameOverride: \"\"\n\n"
    );
    out.push_str(&manager_section(manager));
    let sections: [(bool, String); 7] = [
        (
            true,
            "## The admin/editor/viewer ClusterRoles of each kind (config/rbac), for people who use the CRDs.\nrbac:\n  helpers:\n    enabled: true\n".into(),
        ),
        (
            true,
            "## The CRDs (config/crd).\ncrd:\n  ## Install them with the chart.\n  enabled: true\n  ## Keep them on `helm uninstall` (helm.sh/resource-policy: keep): deleting a CRD deletes every object of its kind.\n  keep: true\n".into(),
        ),
        (
            true,
            format!(
                "## The metrics endpoint (--metrics-bind-address) and its Service.\nmetrics:\n  enabled: {}\n  port: {}\n  ## HTTPS, and only for tokens allowed `get` on /metrics (TokenReview and SubjectAccessReview); false: plain HTTP.\n  secure: {}\n",
                manager.metrics_enabled, manager.metrics_port, manager.metrics_secure
            ),
        ),
        (
            features.webhooks,
            format!(
                "## The webhook server, its Service and the webhook configurations (config/webhook).\nwebhook:\n  enabled: true\n  port: {}\n",
                manager.webhook_port.as_deref().unwrap_or("9443")
            ),
        ),
        (
            features.cert_manager,
            "## Certificates from cert-manager (config/certmanager; cert-manager must be installed). false: the manager's\n## own self-signed certificates, and no CA injected into the webhook configurations.\ncertManager:\n  enabled: true\n".into(),
        ),
        (
            features.prometheus.is_some(),
            format!(
                "## A prometheus-operator ServiceMonitor for the metrics (config/prometheus; needs its CRDs).\nprometheus:\n  enabled: {}\n",
                features.prometheus.unwrap_or(false)
            ),
        ),
        (
            features.network_policy.is_some(),
            format!(
                "## NetworkPolicies letting only labelled namespaces reach metrics and webhooks (config/network-policy).\nnetworkPolicy:\n  enabled: {}\n",
                features.network_policy.unwrap_or(false)
            ),
        ),
    ];
    for (wanted, section) in sections {
        if wanted {
            out.push('\n');
            out.push_str(&section);
        }
    }
    out
}

fn manager_section(manager: &ManagerValues) -> String {
    let mut out = format!(
        "## The controller manager (config/manager).\nmanager:\n  replicas: {}\n  image:\n    repository: {}\n    ## Empty: the chart's appVersion.\n    tag: {}\n    ## Empty: the cluster's default (Always for :latest, else IfNotPresent).\n    pullPolicy: {}\n  leaderElection:\n    ## --leader-elect: one replica at a time runs the controllers.\n    enabled: {}\n  ## Further manager flags (`<manager> --help` lists them), after those config/default sets.\n  extraArgs: []\n",
        manager.replicas,
        quoted(&manager.image_repository),
        quoted(&manager.image_tag),
        quoted(&manager.image_pull_policy),
        manager.leader_election,
    );
    for (key, block) in &manager.blocks {
        let empty = if matches!(*key, "env" | "tolerations" | "imagePullSecrets") {
            "[]"
        } else {
            "{}"
        };
        match block {
            Some(lines) if !lines.is_empty() => {
                out.push_str(&format!("  {key}:\n"));
                for line in lines {
                    out.push_str(&format!("    {line}\n").replace("    \n", "\n"));
                }
            }
            _ => out.push_str(&format!("  {key}: {empty}\n")),
        }
    }
    out
}

/// A scalar as YAML: plain when that reads back as the same string, else double-quoted.
fn quoted(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:@".contains(c))
        && !matches!(text, "true" | "false" | "null" | "yes" | "no")
        && text.parse::<f64>().is_err();
    if plain {
        text.to_string()
    } else {
        format!("{text:?}")
    }
}

/// The user's values.yaml with the keys of `generated` it lacks added.
pub(super) fn merge(user: &str, generated: &str) -> Result<String> {
    let parsed: Value = if user.trim().is_empty() {
        Value::Object(Default::default())
    } else {
        serde_saphyr::from_str(user).map_err(|err| unreadable(user, &err))?
    };
    let mut lines: Vec<String> = user.lines().map(str::to_string).collect();
    let generated: Vec<String> = generated.lines().map(str::to_string).collect();
    add_missing(&mut lines, &parsed, &generated, 0..generated.len(), 0, &[])?;
    Ok(lines.join("\n") + "\n")
}

const VALUES: &str = "dist/chart/values.yaml";

/// A values.yaml serde-saphyr cannot read, rustc-style at the place it names.
fn unreadable(text: &str, err: &serde_saphyr::Error) -> anyhow::Error {
    let (message, (line, column)) = crate::project_config::yaml_error_parts(err);
    // A place past the last line (an unclosed quote at the end of the file) is left out, as values.yaml's errors
    // always did; PROJECT's errors keep it.
    let (line, column) = if line > text.lines().count() {
        (0, 0)
    } else {
        (line, column)
    };
    diagnostic(
        format!("{VALUES} is not YAML rkb can read: {message}"),
        text,
        line,
        column,
        "fix the YAML (or delete the file to have it written anew) and run again",
    )
}

/// An error at `line`:`column` of values.yaml (1-based; 0 when unknown), with the line and a caret.
fn diagnostic(
    message: String,
    text: &str,
    line: usize,
    column: usize,
    hint: &str,
) -> anyhow::Error {
    crate::project_config::error_at(
        rkb_markers::Diagnostic::error(message).with_hint(hint),
        std::path::Path::new(VALUES),
        text,
        line,
        column,
    )
}

/// Adds to `lines` each key of the generated block `range` (keys at `indent`) missing below `path`.
fn add_missing(
    lines: &mut Vec<String>,
    parsed: &Value,
    generated: &[String],
    range: std::ops::Range<usize>,
    indent: usize,
    path: &[&str],
) -> Result<()> {
    let mut at = range.start;
    while at < range.end {
        let line = &generated[at];
        if is_blank(line) || key_indent(line) != indent {
            at += 1;
            continue;
        }
        let key = line[indent..].split(':').next().unwrap_or("");
        let end = block_end(generated, at);
        let mut key_path = path.to_vec();
        key_path.push(key);
        match lookup(parsed, &key_path) {
            None => {
                let comments = (range.start..at)
                    .rev()
                    .take_while(|&i| generated[i].trim_start().starts_with("##"))
                    .count();
                insert(lines, &key_path, &generated[at - comments..end])?;
            }
            Some(value) if !OPAQUE.contains(&key) && end > at + 1 => {
                if !value.is_object() {
                    let (line, column) = key_position(lines, &key_path);
                    return Err(diagnostic(
                        format!(
                            "`{}` is a mapping the chart's templates read keys of, not {value}",
                            key_path.join(".")
                        ),
                        &lines.join("\n"),
                        line,
                        column,
                        &format!(
                            "write it as the chart does:\n{}",
                            generated[at..end].join("\n")
                        ),
                    ));
                }
                add_missing(lines, parsed, generated, at + 1..end, indent + 2, &key_path)?;
            }
            Some(_) => {}
        }
        at = end;
    }
    Ok(())
}

fn lookup<'a>(value: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter().try_fold(value, |v, key| v.get(key))
}

/// Inserts the generated `block` of the key at `path` at the end of its parent's block in the user's file,
/// indented as the user indents that parent's keys.
fn insert(lines: &mut Vec<String>, path: &[&str], block: &[String]) -> Result<()> {
    let (parent, key) = path.split_at(path.len() - 1);
    let generated_indent = 2 * parent.len();
    let (at, indent) = if parent.is_empty() {
        if lines.last().is_some_and(|l| !l.trim().is_empty()) {
            lines.push(String::new());
        }
        (lines.len(), 0)
    } else {
        let Some((start, end, indent)) = locate(lines, parent) else {
            let text = lines.join("\n");
            let (line, column) = key_position(lines, parent);
            return Err(diagnostic(
                format!(
                    "the chart's templates need `{}`, which {VALUES} lacks, and rkb cannot add it inside `{}`: rkb adds keys to block mappings only",
                    path.join("."),
                    parent.join(".")
                ),
                &text,
                line,
                column,
                &format!(
                    "write `{}` as a block mapping (one key per line) and run again, or add `{}` yourself",
                    parent.join("."),
                    key[0]
                ),
            ));
        };
        let last = (start..end)
            .rev()
            .find(|&i| !is_blank(&lines[i]))
            .unwrap_or(start);
        (last + 1, indent)
    };
    let shifted: Vec<String> = block
        .iter()
        .map(|line| {
            let text = line
                .get(generated_indent.min(indent_of(line))..)
                .unwrap_or("");
            if text.is_empty() {
                String::new()
            } else {
                format!("{}{text}", " ".repeat(indent))
            }
        })
        .collect();
    lines.splice(at..at, shifted);
    Ok(())
}

/// Where the deepest key of `path` the user's lines have is (1-based line and column; 0 when none is).
fn key_position(lines: &[String], path: &[&str]) -> (usize, usize) {
    let mut found = (0, 0);
    let (mut from, mut to, mut indent) = (0, lines.len(), 0);
    for (depth, key) in path.iter().enumerate() {
        if depth > 0 {
            let Some((at, end, child_indent)) = locate(lines, &path[..depth]) else {
                break;
            };
            (from, to, indent) = (at + 1, end, child_indent);
        }
        let Some(at) = find_key(lines, from, to, indent, key) else {
            break;
        };
        found = (at + 1, indent + 1);
    }
    found
}

/// The block of the key at `path` in the user's lines: (key line, block end, the indent of its keys).
fn locate(lines: &[String], path: &[&str]) -> Option<(usize, usize, usize)> {
    let (mut from, mut to, mut indent) = (0, lines.len(), 0);
    let mut key_line = 0;
    for key in path {
        key_line = find_key(lines, from, to, indent, key)?;
        if !lines[key_line].trim_end().ends_with(':') {
            return None; // a flow mapping (`manager: {}`) or a scalar
        }
        let end = block_end(lines, key_line);
        let child = (key_line + 1..end).find(|&i| !is_blank(&lines[i]))?;
        (from, to, indent) = (key_line + 1, end, indent_of(&lines[child]));
    }
    Some((key_line, to, indent))
}

#[cfg(test)]
mod tests {
    use super::*;

    const GENERATED: &str = "## The manager.\nmanager:\n  replicas: 1\n  image:\n    repository: controller\n    ## The pull policy.\n    pullPolicy: \"\"\n  resources:\n    limits:\n      cpu: 500m\n\n## Webhooks.\nwebhook:\n  enabled: true\n";

    #[test]
    fn the_users_values_and_comments_stay_and_missing_keys_come_with_their_comment() {
        let user = "# mine\nmanager:\n    replicas: 3   # three\n    image:\n        repository: ghcr.io/me/demo\n    resources: {}\n";
        assert_eq!(
            merge(user, GENERATED).unwrap(),
            "# mine\nmanager:\n    replicas: 3   # three\n    image:\n        repository: ghcr.io/me/demo\n        ## The pull policy.\n        pullPolicy: \"\"\n    resources: {}\n\n## Webhooks.\nwebhook:\n  enabled: true\n"
        );
    }

    #[test]
    fn a_complete_file_is_kept_byte_for_byte() {
        assert_eq!(merge(GENERATED, GENERATED).unwrap(), GENERATED);
    }

    #[test]
    fn a_scalar_where_the_templates_read_keys_is_refused_showing_the_block() {
        let err = merge("manager:\n  image: ghcr.io/me/demo\n", GENERATED)
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "`manager.image` is a mapping the chart's templates read keys of, not \"ghcr.io/me/demo\"\n --> dist/chart/values.yaml:2:3\n  |\n2 |   image: ghcr.io/me/demo\n  |   ^^^^^^\n  = help: write it as the chart does:\n  image:\n    repository: controller\n    ## The pull policy.\n    pullPolicy: \"\""
        );
    }

    #[test]
    fn yaml_serde_saphyr_cannot_read_is_refused_at_its_place_or_without_one_past_the_end() {
        let err = merge("manager:\n  replicas: [1\n", GENERATED)
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "dist/chart/values.yaml is not YAML rkb can read: unclosed bracket '['\n --> dist/chart/values.yaml:2:13\n  |\n2 |   replicas: [1\n  |             ^^\n  = help: fix the YAML (or delete the file to have it written anew) and run again"
        );
        // serde-saphyr places an unclosed quote on the line after the last one.
        let err = merge("manager:\n  replicas: \"1\n", GENERATED)
            .unwrap_err()
            .to_string();
        assert!(
            err.ends_with(
                "\n  --> dist/chart/values.yaml\n   = help: fix the YAML (or delete the file to have it written anew) and run again"
            ),
            "{err}"
        );
    }

    #[test]
    fn a_parent_in_flow_style_is_refused_naming_the_key() {
        let err = merge("manager: {replicas: 2}\n", GENERATED)
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "the chart's templates need `manager.image`, which dist/chart/values.yaml lacks, and rkb cannot add it inside `manager`: rkb adds keys to block mappings only\n --> dist/chart/values.yaml:1:1\n  |\n1 | manager: {replicas: 2}\n  | ^^^^^^^^\n  = help: write `manager` as a block mapping (one key per line) and run again, or add `image` yourself"
        );
    }
}
