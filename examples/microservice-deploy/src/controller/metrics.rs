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

//! The controller's own metrics, next to controller-runtime's on /metrics: how many child writes were sent and how
//! many the child index spared.

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use rkb_runtime::Context;

/// `microservicedeploy_child_writes_total{kind, outcome}`, outcome "applied", "skipped" or "deleted".
#[derive(Clone, Default)]
pub struct ChildWrites {
    family: Family<Vec<(String, String)>, Counter>,
}

impl ChildWrites {
    /// Registers the counter with the manager's metrics.
    pub fn registered(ctx: &Context) -> Self {
        let writes = Self::default();
        ctx.metrics().register(
            "microservicedeploy_child_writes",
            "Child object writes of the MicroServiceDeploy controller, by kind and outcome",
            writes.family.clone(),
        );
        writes
    }

    /// Counts one write of `kind`.
    pub fn inc(&self, kind: &str, outcome: &str) {
        let labels = vec![
            ("kind".to_string(), kind.to_string()),
            ("outcome".to_string(), outcome.to_string()),
        ];
        self.family.get_or_create(&labels).inc();
    }
}
