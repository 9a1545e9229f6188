// Copyright 2026 The microservice-deploy Authors.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

//! The namespace-wide resource limits the seed's controller creates once at start (section 3.3): a ResourceQuota
//! capping the namespace's total and a LimitRange giving containers without resources their defaults (so their
//! pods are not BestEffort). Values are the seed's; each has a flag.

use std::collections::BTreeMap;
use std::time::Duration;

use rkb_runtime::k8s_openapi::api::core::v1::{
    LimitRange, LimitRangeItem, LimitRangeSpec, ResourceQuota, ResourceQuotaSpec,
};
use rkb_runtime::k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use rkb_runtime::{Context, ObjectMeta, apply};

use super::children::labels;

/// The ResourceQuota's name.
pub const RESOURCE_QUOTA_NAME: &str = "default-resource-quota";
/// The LimitRange's name.
pub const LIMIT_RANGE_NAME: &str = "default-limit-range";
/// Where they go when the manager watches every namespace (the seed's choice).
pub const DEFAULT_NAMESPACE: &str = "default";

/// Flags of the namespace defaults (`--quota-*`, `--limit-*`); the defaults are the seed's values.
#[derive(Clone, Debug, PartialEq, Eq, clap::Args)]
pub struct NamespaceDefaults {
    /// Skip creating the ResourceQuota and LimitRange.
    #[arg(long)]
    pub skip_namespace_defaults: bool,
    /// The namespace to create them in [default: the watched namespace, else "default"].
    #[arg(long)]
    pub defaults_namespace: Option<String>,
    /// ResourceQuota hard requests.cpu.
    #[arg(long, default_value = "88")]
    pub quota_requests_cpu: String,
    /// ResourceQuota hard limits.cpu.
    #[arg(long, default_value = "352")]
    pub quota_limits_cpu: String,
    /// ResourceQuota hard requests.memory.
    #[arg(long, default_value = "112Gi")]
    pub quota_requests_memory: String,
    /// ResourceQuota hard limits.memory.
    #[arg(long, default_value = "448Gi")]
    pub quota_limits_memory: String,
    /// LimitRange default (limit) cpu of a container.
    #[arg(long, default_value = "400m")]
    pub limit_default_cpu: String,
    /// LimitRange default (limit) memory of a container.
    #[arg(long, default_value = "2Gi")]
    pub limit_default_memory: String,
    /// LimitRange default request cpu of a container.
    #[arg(long, default_value = "100m")]
    pub limit_default_request_cpu: String,
    /// LimitRange default request memory of a container.
    #[arg(long, default_value = "500Mi")]
    pub limit_default_request_memory: String,
    /// LimitRange max cpu of a container.
    #[arg(long, default_value = "2")]
    pub limit_max_cpu: String,
    /// LimitRange max memory of a container.
    #[arg(long, default_value = "8Gi")]
    pub limit_max_memory: String,
}

impl Default for NamespaceDefaults {
    fn default() -> Self {
        #[derive(clap::Parser)]
        struct Flags {
            #[command(flatten)]
            defaults: NamespaceDefaults,
        }
        // Parsing an empty command line keeps the defaults in one place (the attributes above).
        <Flags as clap::Parser>::parse_from(["manager"]).defaults
    }
}

fn resources(pairs: [(&str, &str); 2]) -> BTreeMap<String, Quantity> {
    pairs
        .into_iter()
        .map(|(k, v)| (k.to_string(), Quantity(v.to_string())))
        .collect()
}

impl NamespaceDefaults {
    /// The namespace they go to, given the manager's watched namespace.
    pub fn namespace(&self, watched: Option<&str>) -> String {
        self.defaults_namespace
            .as_deref()
            .or(watched)
            .unwrap_or(DEFAULT_NAMESPACE)
            .to_string()
    }

    /// The ResourceQuota for `namespace`.
    pub fn resource_quota(&self, namespace: &str) -> ResourceQuota {
        let mut hard = resources([
            ("requests.cpu", &self.quota_requests_cpu),
            ("limits.cpu", &self.quota_limits_cpu),
        ]);
        hard.extend(resources([
            ("requests.memory", &self.quota_requests_memory),
            ("limits.memory", &self.quota_limits_memory),
        ]));
        ResourceQuota {
            metadata: meta(RESOURCE_QUOTA_NAME, namespace),
            spec: Some(ResourceQuotaSpec {
                hard: Some(hard),
                ..ResourceQuotaSpec::default()
            }),
            status: None,
        }
    }

    /// The LimitRange for `namespace`.
    pub fn limit_range(&self, namespace: &str) -> LimitRange {
        LimitRange {
            metadata: meta(LIMIT_RANGE_NAME, namespace),
            spec: Some(LimitRangeSpec {
                limits: vec![LimitRangeItem {
                    type_: "Container".into(),
                    default: Some(resources([
                        ("cpu", &self.limit_default_cpu),
                        ("memory", &self.limit_default_memory),
                    ])),
                    default_request: Some(resources([
                        ("cpu", &self.limit_default_request_cpu),
                        ("memory", &self.limit_default_request_memory),
                    ])),
                    max: Some(resources([
                        ("cpu", &self.limit_max_cpu),
                        ("memory", &self.limit_max_memory),
                    ])),
                    ..LimitRangeItem::default()
                }],
            }),
        }
    }

    /// Applies both (server-side, as the manager), once this manager leads, retrying until the API server accepts
    /// them or the manager stops. They are namespace settings, not children of any MicroServiceDeploy: nothing
    /// owns them and deleting MicroServiceDeploys leaves them in place.
    pub async fn ensure(&self, ctx: &Context) {
        if self.skip_namespace_defaults || !ctx.wait_for_leadership().await {
            return;
        }
        let namespace = self.namespace(ctx.namespace());
        let mut delay = Duration::from_millis(100);
        loop {
            match self.apply(ctx, &namespace).await {
                Ok(()) => {
                    tracing::info!(%namespace, "namespace ResourceQuota and LimitRange applied");
                    return;
                }
                Err(e) => {
                    tracing::warn!(%namespace, error = %e, retry_in = ?delay, "cannot apply namespace defaults")
                }
            }
            tokio::select! {
                () = tokio::time::sleep(delay) => {}
                () = ctx.shutdown_signal() => return,
            }
            delay = (delay * 2).min(Duration::from_secs(60));
        }
    }

    async fn apply(&self, ctx: &Context, namespace: &str) -> Result<(), rkb_runtime::Error> {
        let quota = self.resource_quota(namespace);
        apply::apply(
            &ctx.api_in::<ResourceQuota>(namespace),
            &quota,
            ctx.field_manager(),
        )
        .await?;
        let limits = self.limit_range(namespace);
        apply::apply(
            &ctx.api_in::<LimitRange>(namespace),
            &limits,
            ctx.field_manager(),
        )
        .await?;
        Ok(())
    }
}

fn meta(name: &str, namespace: &str) -> ObjectMeta {
    ObjectMeta {
        name: Some(name.to_string()),
        namespace: Some(namespace.to_string()),
        labels: Some(labels(None)),
        ..ObjectMeta::default()
    }
}
