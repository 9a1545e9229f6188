//! The values templates are filled with. Everything a template shows is computed here, once.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::args::License;
use crate::names;
use crate::project_config::ProjectConfig;

/// Project-wide values, available to every template.
#[derive(Debug, Clone, Serialize)]
pub struct ProjectData {
    pub project_name: String,
    pub crate_ident: String,
    pub domain: String,
    pub leader_election_id: String,
    /// The inside of the `rkb-runtime = { ... }` dependency table.
    pub runtime_dep: String,
    /// Where CI installs rkb from: rkb is not on crates.io, so its git repository.
    pub rkb_git: String,
    /// License header for `.rs` files, with a trailing blank line (empty without a license).
    pub boilerplate: String,
    /// The header without comment markers' trailing blank line, for hack/boilerplate.rs.txt.
    pub boilerplate_text: String,
    pub license_apache2: bool,
    pub owner: String,
    pub year: u32,
    /// The manager watches one namespace (WATCH_NAMESPACE) and gets a Role rather than a ClusterRole.
    pub namespaced_manager: bool,
    pub multigroup: bool,
}

impl ProjectData {
    pub fn new(
        config: &ProjectConfig,
        dir: &Path,
        license: License,
        owner: Option<&str>,
        rkb_source: Option<&Path>,
    ) -> Self {
        let year = current_year();
        let owner = owner
            .unwrap_or("The {project} Authors")
            .replace("{project}", &config.project_name);
        let boilerplate_text = match license {
            License::Apache2 => apache2_header(year, &owner),
            License::None => String::new(),
        };
        let boilerplate = if boilerplate_text.is_empty() {
            String::new()
        } else {
            format!("{boilerplate_text}\n\n")
        };
        Self {
            project_name: config.project_name.clone(),
            crate_ident: names::crate_ident(&config.project_name),
            domain: config.domain.clone(),
            leader_election_id: format!("{}.{}", config.project_name, config.domain),
            runtime_dep: runtime_dependency(dir, rkb_source),
            rkb_git: env!("CARGO_PKG_REPOSITORY").to_string(),
            boilerplate,
            boilerplate_text,
            license_apache2: license == License::Apache2,
            owner,
            year,
            namespaced_manager: config.namespaced,
            multigroup: config.multigroup,
        }
    }

    /// Values for `create api`, read back from the files `init` wrote.
    pub fn load(config: &ProjectConfig, dir: &Path) -> Self {
        let header =
            std::fs::read_to_string(dir.join("hack/boilerplate.rs.txt")).unwrap_or_default();
        let header = header.trim_end().to_string();
        let boilerplate = if header.is_empty() {
            String::new()
        } else {
            format!("{header}\n\n")
        };
        Self {
            project_name: config.project_name.clone(),
            crate_ident: names::crate_ident(&config.project_name),
            domain: config.domain.clone(),
            leader_election_id: format!("{}.{}", config.project_name, config.domain),
            runtime_dep: String::new(),
            rkb_git: env!("CARGO_PKG_REPOSITORY").to_string(),
            license_apache2: !header.is_empty(),
            boilerplate,
            boilerplate_text: header,
            owner: String::new(),
            year: current_year(),
            namespaced_manager: config.namespaced,
            multigroup: config.multigroup,
        }
    }
}

fn apache2_header(year: u32, owner: &str) -> String {
    format!(
        "// Copyright {year} {owner}.\n\
         //\n\
         // Licensed under the Apache License, Version 2.0 (the \"License\");\n\
         // you may not use this file except in compliance with the License.\n\
         // You may obtain a copy of the License at\n\
         //\n\
         //     http://www.apache.org/licenses/LICENSE-2.0\n\
         //\n\
         // Unless required by applicable law or agreed to in writing, software\n\
         // distributed under the License is distributed on an \"AS IS\" BASIS,\n\
         // WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.\n\
         // See the License for the specific language governing permissions and\n\
         // limitations under the License."
    )
}

/// The year for license headers; SOURCE_DATE_EPOCH (the reproducible-builds convention) pins it.
fn current_year() -> u32 {
    let secs = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0)
        });
    year_of_unix_days((secs / 86_400) as i64)
}

/// Civil year of a day count since 1970-01-01 (Howard Hinnant's days-to-civil algorithm).
fn year_of_unix_days(days: i64) -> u32 {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2)) as u32
}

/// The rkb source tree this binary was built from, when it is still there.
fn built_from_source() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()?
        .to_path_buf();
    root.join("runtime/Cargo.toml").is_file().then_some(root)
}

/// How the project depends on rkb-runtime: a path into an rkb checkout when one is known (relative when the
/// project lives inside it, as examples/ do), else the crates.io release.
fn runtime_dependency(project_dir: &Path, rkb_source: Option<&Path>) -> String {
    let source = rkb_source.map(Path::to_path_buf).or_else(built_from_source);
    let Some(source) = source.and_then(|s| std::fs::canonicalize(s).ok()) else {
        return format!("version = \"{}\"", env!("CARGO_PKG_VERSION"));
    };
    let runtime = source.join("runtime");
    let project = std::fs::canonicalize(project_dir).unwrap_or_else(|_| project_dir.to_path_buf());
    let path = if project.starts_with(&source) {
        pathdiff::diff_paths(&runtime, &project).unwrap_or(runtime)
    } else {
        runtime
    };
    format!("path = \"{}\"", path.display())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn years_from_day_counts() {
        assert_eq!(year_of_unix_days(0), 1970);
        assert_eq!(year_of_unix_days(365), 1971);
        assert_eq!(year_of_unix_days(20_454), 2026); // 2026-01-01
        assert_eq!(year_of_unix_days(20_453), 2025); // 2025-12-31
    }
}
