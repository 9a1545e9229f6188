//! The scaffold templates, embedded into the `rkb` binary so it runs without its source tree.
//!
//! `init/` holds the files `rkb init` writes; `api/` the ones `rkb create api` writes, split into
//! `version/` (once per group/version), `resource/` (with `--resource`) and `controller/` (with `--controller`);
//! `webhook/` the ones `rkb create webhook` writes (the kind's webhooks and test, and the kustomize pieces the
//! first webhook of a project adds; the config/certmanager files `rkb init` writes too are rendered from `init/`, see
//! [`init_file`]).
//! File names are fixed here; the CLI maps each template to its destination path.

use include_dir::{Dir, include_dir};

static INIT: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/init");
static API: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/api");
static WEBHOOK: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/webhook");

/// The envtest build script. This package holds the one copy; the repository's hack/setup-envtest.sh is a
/// symlink to it, so the script rkb scaffolds is the one rkb's own tests run.
pub const SETUP_ENVTEST_SH: &str = include_str!("../assets/setup-envtest.sh");

/// The files `rkb edit --plugins grafana` writes, by their path in the project. They are plain files, not
/// handlebars: Grafana's legend formats use `{{label}}` themselves.
pub const GRAFANA: [(&str, &str); 3] = [
    (
        "grafana/controller-runtime-metrics.json",
        include_str!("../grafana/controller-runtime-metrics.json"),
    ),
    (
        "grafana/controller-resources-metrics.json",
        include_str!("../grafana/controller-resources-metrics.json"),
    ),
    (
        "grafana/custom-metrics/config.yaml",
        include_str!("../grafana/custom-metrics/config.yaml"),
    ),
];

/// The files of `rkb edit --plugins helm` that are not generated from the kustomize render, by their path in the
/// project; written when missing and then the user's. Plain files, not handlebars (Helm's templates use `{{`):
/// `__PROJECT__` stands for the project's name, which names the chart.
pub const HELM_CHART: [(&str, &str); 5] = [
    (
        "dist/chart/Chart.yaml",
        include_str!("../helm/chart/Chart.yaml"),
    ),
    (
        "dist/chart/.helmignore",
        include_str!("../helm/chart/helmignore"),
    ),
    (
        "dist/chart/README.md",
        include_str!("../helm/chart/README.md"),
    ),
    (
        "dist/chart/templates/_helpers.tpl",
        include_str!("../helm/chart/_helpers.tpl"),
    ),
    (
        "dist/chart/templates/NOTES.txt",
        include_str!("../helm/chart/NOTES.txt"),
    ),
];

/// The Makefile targets `rkb edit --plugins helm` appends (`__PROJECT__` as in [`HELM_CHART`]).
pub const HELM_MAKEFILE: &str = include_str!("../helm/Makefile.helm");

/// `.github/workflows/test-chart.yml`: `__RKB_VERSION__` and `__HELM_VERSION__` stand for the versions to install;
/// the lines between `# [CERTMANAGER]` and `# [/CERTMANAGER]` (marker lines dropped) are for projects with cert-manager
/// objects.
pub const HELM_WORKFLOW: &str = include_str!("../helm/github/test-chart.yml");

/// A template: its path below `init/` or `api/` (without `.hbs`) and its handlebars source.
#[derive(Debug, Clone, Copy)]
pub struct Template {
    pub path: &'static str,
    pub source: &'static str,
}

fn collect(dir: &'static Dir<'static>, out: &mut Vec<Template>) {
    for file in dir.files() {
        let path = file.path().to_str().expect("template paths are UTF-8");
        if let (Some(path), Some(source)) = (path.strip_suffix(".hbs"), file.contents_utf8()) {
            out.push(Template { path, source });
        }
    }
    for sub in dir.dirs() {
        collect(sub, out);
    }
}

/// Every template `rkb init` renders, in a stable order.
pub fn init() -> Vec<Template> {
    let mut out = Vec::new();
    collect(&INIT, &mut out);
    out.sort_by_key(|t| t.path);
    out
}

/// One template of `rkb init`, by its path below `init/` (e.g. `config/certmanager/issuer.yaml`): for
/// `rkb create webhook`, which writes the files of config/certmanager an older rkb's `rkb init` did not.
pub fn init_file(path: &str) -> Option<Template> {
    find(&INIT, path)
}

/// One template of `rkb create api`, by its path below `api/` (e.g. `resource/types.rs`).
pub fn api(path: &str) -> Option<Template> {
    find(&API, path)
}

/// One template of `rkb create webhook`, by its path below `webhook/` (e.g. `src/webhook.rs`).
pub fn webhook(path: &str) -> Option<Template> {
    find(&WEBHOOK, path)
}

fn find(dir: &'static Dir<'static>, path: &str) -> Option<Template> {
    let file = dir.get_file(format!("{path}.hbs"))?;
    Some(Template {
        path: file.path().to_str()?.strip_suffix(".hbs")?,
        source: file.contents_utf8()?,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn init_templates_are_embedded() {
        let paths: Vec<_> = super::init().iter().map(|t| t.path).collect();
        for expected in [
            "Cargo.toml",
            "Makefile",
            "Dockerfile",
            "src/main.rs",
            "config/default/kustomization.yaml",
        ] {
            assert!(
                paths.contains(&expected),
                "{expected} missing from {paths:?}"
            );
        }
    }

    #[test]
    fn api_templates_are_found_by_path() {
        assert!(super::api("resource/types.rs").is_some());
        assert!(super::api("controller/controller.rs").is_some());
        assert!(super::api("no/such").is_none());
        assert!(super::webhook("src/webhook.rs").is_some());
        assert!(super::init_file("config/certmanager/issuer.yaml").is_some());
    }
}
