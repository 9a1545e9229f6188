//! The manager's Deployment as a template: kustomize's text with the values users tune put in (replicas, image,
//! leader election, the metrics and webhook flags, resources and security contexts, scheduling, env, extra flags)
//! and cert-manager's certificate flags and volumes behind `certManager.enabled`. Each value read out of the
//! Deployment becomes its default in values.yaml, so the chart's defaults install what `make deploy` does.

use anyhow::{Result, bail};

use super::template::{Chart, add_helm_labels, wrap_lines};
use super::yaml_lines::{block_end, find_key, indent_of, key_indent};

/// What the Deployment says, as values.yaml's defaults.
#[derive(Debug, Default)]
pub(super) struct ManagerValues {
    pub replicas: String,
    pub image_repository: String,
    pub image_tag: String,
    pub image_pull_policy: String,
    pub leader_election: bool,
    pub metrics_enabled: bool,
    pub metrics_port: String,
    pub metrics_secure: bool,
    pub webhook_port: Option<String>,
    /// Blocks handed to `toYaml` (resources, securityContext, ...): the values key and its YAML lines, indented
    /// from zero; None when the Deployment has none.
    pub blocks: Vec<(&'static str, Option<Vec<String>>)>,
}

/// The pod spec's and container's blocks that become values: (key in the Deployment, key in values, indent).
const BLOCKS: [(&str, &str, usize); 8] = [
    ("env", "env", 8),
    ("resources", "resources", 8),
    ("securityContext", "securityContext", 8),
    ("securityContext", "podSecurityContext", 6),
    ("nodeSelector", "nodeSelector", 6),
    ("tolerations", "tolerations", 6),
    ("affinity", "affinity", 6),
    ("imagePullSecrets", "imagePullSecrets", 6),
];

/// The manager's flags the values set, read from the rendered args before templating them.
pub(super) fn read_values(text: &str) -> Result<ManagerValues> {
    let lines: Vec<String> = text.lines().map(str::to_string).collect();
    let container = manager_container(&lines)?;
    let mut values = ManagerValues {
        metrics_port: "8443".into(),
        metrics_secure: true,
        ..ManagerValues::default()
    };
    for line in &lines[container.clone()] {
        let Some(flag) = line.trim_start().strip_prefix("- --") else {
            continue;
        };
        let (name, value) = flag.split_once('=').unwrap_or((flag, "true"));
        match name {
            "metrics-bind-address" if value != "0" => {
                values.metrics_enabled = true;
                values.metrics_port = value.rsplit(':').next().unwrap_or(value).to_string();
            }
            "metrics-secure" => values.metrics_secure = value != "false",
            "leader-elect" => values.leader_election = value != "false",
            "webhook-port" => values.webhook_port = Some(value.to_string()),
            _ => {}
        }
    }
    for line in &lines[container.clone()] {
        if key_indent(line) != 8 {
            continue;
        }
        if let Some(image) = line.trim_start().strip_prefix("image: ") {
            let image = image.trim_matches('"');
            let (repository, tag) = split_image(image);
            values.image_repository = repository.into();
            values.image_tag = tag.into();
        }
        if let Some(policy) = line.trim_start().strip_prefix("imagePullPolicy: ") {
            values.image_pull_policy = policy.into();
        }
    }
    values.replicas = lines
        .iter()
        .find_map(|line| line.strip_prefix("  replicas: "))
        .unwrap_or("1")
        .to_string();
    let pod = pod_spec(&lines)?;
    for (key, value_key, indent) in BLOCKS {
        let range = if indent == 8 {
            container.clone()
        } else {
            pod.clone()
        };
        let block = find_key(&lines, range.start, range.end, indent, key).map(|at| {
            let body = &lines[at + 1..block_end(&lines, at)];
            let outer = body
                .iter()
                .filter(|line| !line.trim().is_empty())
                .map(|line| indent_of(line))
                .min()
                .unwrap_or(0);
            body.iter()
                .map(|line| line.get(outer..).unwrap_or("").to_string())
                .collect()
        });
        values.blocks.push((value_key, block));
    }
    Ok(values)
}

/// `repo:tag` (a registry port is not a tag; a digest keeps its `@`).
fn split_image(image: &str) -> (&str, &str) {
    match image.rsplit_once(':') {
        Some((repository, tag)) if !tag.contains('/') && !repository.contains('@') => {
            (repository, tag)
        }
        _ => (image, ""),
    }
}

/// The manager Deployment's template; `cert_volumes` are the volumes holding cert-manager's Secrets.
pub(super) fn template(text: &str, chart: &Chart, cert_volumes: &[String]) -> Result<Vec<String>> {
    let mut lines: Vec<String> = text.lines().map(|line| chart.replace_names(line)).collect();
    add_helm_labels(&mut lines, chart);
    if let Some(line) = lines.iter_mut().find(|l| l.starts_with("  replicas: ")) {
        *line = "  replicas: {{ .Values.manager.replicas }}".into();
    }
    template_blocks(&mut lines)?;
    template_image(&mut lines)?;
    template_args(&mut lines, chart)?;
    if chart.cert_manager {
        wrap_cert_volumes(&mut lines, cert_volumes)?;
    }
    if let Some(port) = &chart.webhook_port {
        let container_port = format!("- containerPort: {port}");
        for line in lines
            .iter_mut()
            .filter(|l| l.trim_start() == container_port)
        {
            *line = line.replace(
                &container_port,
                "- containerPort: {{ .Values.webhook.port }}",
            );
        }
    }
    Ok(lines)
}

/// The lines of the first container (the manager: `rkb init` scaffolds one).
fn manager_container(lines: &[String]) -> Result<std::ops::Range<usize>> {
    let pod = pod_spec(lines)?;
    let Some(containers) = find_key(lines, pod.start, pod.end, 6, "containers") else {
        bail!("the manager Deployment has no containers");
    };
    let start = containers + 1;
    if !lines.get(start).is_some_and(|l| l.starts_with("      - ")) {
        bail!("the manager Deployment's containers are not a list kustomize printed");
    }
    let end = (start + 1..lines.len())
        .find(|&i| indent_of(&lines[i]) <= 6 && !lines[i].trim().is_empty())
        .unwrap_or(lines.len());
    Ok(start..end)
}

/// The lines of the pod spec (`spec.template.spec`, keys at indent 6).
fn pod_spec(lines: &[String]) -> Result<std::ops::Range<usize>> {
    let spec = find_key(lines, 0, lines.len(), 0, "spec");
    let template = spec.and_then(|s| find_key(lines, s, block_end(lines, s), 2, "template"));
    let pod = template.and_then(|t| find_key(lines, t, block_end(lines, t), 4, "spec"));
    match pod {
        Some(at) => Ok(at + 1..block_end(lines, at)),
        None => bail!("the manager Deployment has no spec.template.spec"),
    }
}

/// Each of [`BLOCKS`] as `toYaml` of its value, where the Deployment had it or, when it had none, before the
/// container's `name` (container blocks) or `containers` (pod blocks).
fn template_blocks(lines: &mut Vec<String>) -> Result<()> {
    for (key, value_key, indent) in BLOCKS {
        let range = if indent == 8 {
            manager_container(lines)?
        } else {
            pod_spec(lines)?
        };
        let pad = " ".repeat(indent);
        let templated = vec![
            format!("{pad}{{{{- with .Values.manager.{value_key} }}}}"),
            format!("{pad}{key}: {{{{- toYaml . | nindent {} }}}}", indent + 2),
            format!("{pad}{{{{- end }}}}"),
        ];
        if let Some(at) = find_key(lines, range.start, range.end, indent, key) {
            let end = block_end(lines, at);
            if key_indent(&lines[at]) != indent_of(&lines[at]) {
                bail!(
                    "the manager container's first key is `{key}`; rkb expects `args` there, as rkb init writes it"
                );
            }
            lines.splice(at..end, templated);
        } else {
            let anchor = if indent == 8 { "name" } else { "containers" };
            let Some(at) = find_key(lines, range.start, range.end, indent, anchor) else {
                bail!("the manager Deployment has no `{anchor}` at the place rkb init writes it");
            };
            lines.splice(at..at, templated);
        }
    }
    Ok(())
}

fn template_image(lines: &mut Vec<String>) -> Result<()> {
    let container = manager_container(lines)?;
    if let Some(at) = find_key(lines, container.start, container.end, 8, "imagePullPolicy") {
        lines.remove(at);
    }
    let container = manager_container(lines)?;
    let Some(at) = find_key(lines, container.start, container.end, 8, "image") else {
        bail!("the manager container has no image");
    };
    lines.splice(
        at..=at,
        [
            "        image: \"{{ .Values.manager.image.repository }}{{ with .Values.manager.image.tag | default .Chart.AppVersion }}:{{ . }}{{ end }}\"".to_string(),
            "        {{- with .Values.manager.image.pullPolicy }}".to_string(),
            "        imagePullPolicy: {{ . }}".to_string(),
            "        {{- end }}".to_string(),
        ],
    );
    Ok(())
}

/// The flags values set; the others stay as config/default has them, and `manager.extraArgs` follow.
fn template_args(lines: &mut Vec<String>, chart: &Chart) -> Result<()> {
    let container = manager_container(lines)?;
    let Some(args) = find_key(lines, container.start, container.end, 8, "args") else {
        bail!("the manager container has no args");
    };
    let end = block_end(lines, args);
    let mut templated = Vec::new();
    let mut leader_election = false;
    for line in &lines[args + 1..end] {
        let pad = " ".repeat(indent_of(line));
        let flag = line.trim_start().strip_prefix("- --").unwrap_or("");
        let name = flag.split('=').next().unwrap_or("");
        match name {
            "metrics-bind-address" => templated.extend([
                format!("{pad}{{{{- if .Values.metrics.enabled }}}}"),
                format!("{pad}- --metrics-bind-address=:{{{{ .Values.metrics.port }}}}"),
                format!("{pad}{{{{- if not .Values.metrics.secure }}}}"),
                format!("{pad}- --metrics-secure=false"),
                format!("{pad}{{{{- end }}}}"),
                format!("{pad}{{{{- else }}}}"),
                format!("{pad}- --metrics-bind-address=0"),
                format!("{pad}{{{{- end }}}}"),
            ]),
            "metrics-secure" => {}
            "leader-elect" => {
                leader_election = true;
                templated.extend([
                    format!("{pad}{{{{- if .Values.manager.leaderElection.enabled }}}}"),
                    format!("{pad}- --leader-elect"),
                    format!("{pad}{{{{- end }}}}"),
                ]);
            }
            "webhook-port" => templated.push(format!(
                "{pad}- --webhook-port={{{{ .Values.webhook.port }}}}"
            )),
            _ => templated.push(line.clone()),
        }
    }
    let pad = "        ";
    if !leader_election {
        templated.extend([
            format!("{pad}{{{{- if .Values.manager.leaderElection.enabled }}}}"),
            format!("{pad}- --leader-elect"),
            format!("{pad}{{{{- end }}}}"),
        ]);
    }
    templated.extend([
        format!("{pad}{{{{- range .Values.manager.extraArgs }}}}"),
        format!("{pad}- {{{{ . | quote }}}}"),
        format!("{pad}{{{{- end }}}}"),
    ]);
    if chart.cert_manager {
        wrap_lines(
            &mut templated,
            |line| {
                let flag = line.trim_start();
                flag.starts_with("- --webhook-cert-path=")
                    || flag.starts_with("- --metrics-cert-path=")
            },
            "certManager.enabled",
        );
    }
    lines.splice(args + 1..end, templated);
    Ok(())
}

/// The volumes of cert-manager's Secrets, and their mounts, behind `certManager.enabled`.
fn wrap_cert_volumes(lines: &mut Vec<String>, cert_volumes: &[String]) -> Result<()> {
    for (key, indent) in [("volumeMounts", 8), ("volumes", 6)] {
        let range = if indent == 8 {
            manager_container(lines)?
        } else {
            pod_spec(lines)?
        };
        let Some(at) = find_key(lines, range.start, range.end, indent, key) else {
            continue;
        };
        let end = block_end(lines, at);
        let mut items: Vec<Vec<String>> = Vec::new();
        for line in &lines[at + 1..end] {
            if indent_of(line) == indent && line.trim_start().starts_with("- ") || items.is_empty()
            {
                items.push(Vec::new());
            }
            items.last_mut().expect("pushed above").push(line.clone());
        }
        let pad = " ".repeat(indent);
        let mut templated = Vec::new();
        for item in items {
            let is_cert = item.iter().any(|line| {
                let field = line.trim_start().trim_start_matches("- ");
                field
                    .strip_prefix("name: ")
                    .is_some_and(|name| cert_volumes.iter().any(|v| v == name))
            });
            if is_cert {
                templated.push(format!("{pad}{{{{- if .Values.certManager.enabled }}}}"));
                templated.extend(item);
                templated.push(format!("{pad}{{{{- end }}}}"));
            } else {
                templated.extend(item);
            }
        }
        lines.splice(at + 1..end, templated);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_image_splits_at_its_tag_not_at_a_registry_port() {
        assert_eq!(split_image("controller:latest"), ("controller", "latest"));
        assert_eq!(
            split_image("localhost:5000/demo"),
            ("localhost:5000/demo", "")
        );
        assert_eq!(
            split_image("localhost:5000/demo:v1"),
            ("localhost:5000/demo", "v1")
        );
    }
}
