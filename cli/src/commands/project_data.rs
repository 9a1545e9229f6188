//! The values templates are filled with. Everything a template shows is computed here, once.

use std::path::Path;

use serde::Serialize;

use super::runtime_source;
use crate::args::License;
use crate::civil;
use crate::names;
use crate::project_config::ProjectConfig;

/// Project-wide values, available to every template.
#[derive(Debug, Clone, Serialize)]
pub struct ProjectData {
    pub project_name: String,
    pub crate_ident: String,
    pub domain: String,
    pub leader_election_id: String,
    /// The version requirement on rkb's crates (this CLI's major.minor), as published on crates.io.
    pub rkb_requirement: String,
    /// The exact CLI version, which scaffolded CI installs.
    pub rkb_version: String,
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
    /// `rkb init --sharded`: replicas share the objects of sharded controllers (manager flag, Lease rights,
    /// `.sharded()` in scaffolded controllers).
    pub sharded: bool,
}

impl ProjectData {
    pub fn new(config: &ProjectConfig, license: License, owner: Option<&str>) -> Self {
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
            rkb_requirement: runtime_source::version_requirement(),
            rkb_version: env!("CARGO_PKG_VERSION").to_string(),
            boilerplate,
            boilerplate_text,
            license_apache2: license == License::Apache2,
            owner,
            year,
            namespaced_manager: config.namespaced,
            multigroup: config.multigroup,
            sharded: config.sharded,
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
            rkb_requirement: runtime_source::version_requirement(),
            rkb_version: env!("CARGO_PKG_VERSION").to_string(),
            license_apache2: !header.is_empty(),
            boilerplate,
            boilerplate_text: header,
            owner: String::new(),
            year: current_year(),
            namespaced_manager: config.namespaced,
            multigroup: config.multigroup,
            sharded: config.sharded,
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

/// The year for license headers; SOURCE_DATE_EPOCH pins it.
fn current_year() -> u32 {
    let (year, _, _) = civil::civil_from_days((civil::unix_now() / 86_400) as i64);
    year as u32
}
