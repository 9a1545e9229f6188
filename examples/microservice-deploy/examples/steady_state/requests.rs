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
//! What kube-apiserver counted (`apiserver_request_total`), by "VERB resource[/subresource]", and which of those
//! requests are the operators' writes, which the two operators must send alike.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use rkb_runtime::Client;

/// kube-apiserver's `apiserver_request_total`, summed by "VERB resource[/subresource]".
pub async fn request_counts(client: &Client) -> anyhow::Result<BTreeMap<String, f64>> {
    let request = rkb_runtime::kube::core::Request::new("")
        .get("metrics", &rkb_runtime::kube::api::GetParams::default())?;
    let text = client.request_text(request).await?;
    let mut counts = BTreeMap::new();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("apiserver_request_total{") else {
            continue;
        };
        let Some((labels, value)) = rest.rsplit_once("} ") else {
            continue;
        };
        let label = |name: &str| {
            labels
                .split(',')
                .find_map(|pair| pair.strip_prefix(name)?.strip_prefix("=\""))
                .map(|v| v.trim_end_matches('"'))
                .unwrap_or_default()
        };
        let mut key = format!("{} {}", label("verb"), label("resource"));
        if !label("subresource").is_empty() {
            key = format!("{key}/{}", label("subresource"));
        }
        *counts.entry(key).or_default() += value.trim().parse::<f64>().unwrap_or(0.0);
    }
    Ok(counts)
}

/// kube-apiserver's request counts once the operator's writes have stopped: the same for two reads 500 ms apart
/// (at most 30 s).
pub async fn quiet_request_counts(client: &Client) -> anyhow::Result<BTreeMap<String, f64>> {
    let writes = |counts: &BTreeMap<String, f64>| -> Vec<(String, f64)> {
        counts
            .iter()
            .filter(|(k, _)| is_write(k))
            .map(|(k, v)| (k.clone(), *v))
            .collect()
    };
    let give_up = Instant::now() + Duration::from_secs(30);
    let mut last = request_counts(client).await?;
    loop {
        tokio::time::sleep(Duration::from_millis(500)).await;
        let now = request_counts(client).await?;
        if writes(&now) == writes(&last) || Instant::now() > give_up {
            return Ok(now);
        }
        last = now;
    }
}

pub fn difference(
    after: BTreeMap<String, f64>,
    before: &BTreeMap<String, f64>,
) -> BTreeMap<String, f64> {
    after
        .into_iter()
        .map(|(k, v)| {
            let was = before.get(&k).copied().unwrap_or(0.0);
            (k, v - was)
        })
        .filter(|(_, v)| *v > 0.0)
        .collect()
}

/// The kinds the operators read and write (the children, their owner, the namespace defaults).
pub const OPERATOR_RESOURCES: [&str; 8] = [
    "microservicedeploys",
    "services",
    "serviceaccounts",
    "configmaps",
    "deployments",
    "horizontalpodautoscalers",
    "resourcequotas",
    "limitranges",
];

/// Whether a "VERB resource[/subresource]" key counts requests on one of the operator's kinds.
pub fn is_operator_request(key: &str) -> bool {
    let resource = key.split_once(' ').map_or("", |(_, r)| r);
    OPERATOR_RESOURCES.contains(&resource.split('/').next().unwrap_or_default())
}

/// The verbs that write: these must be the same for both operators (reads and watches differ by design: the rkb
/// operator's child index has watches of its own).
pub fn is_write(key: &str) -> bool {
    let verb = key.split_once(' ').map_or(key, |(v, _)| v);
    matches!(verb, "POST" | "PUT" | "PATCH" | "APPLY" | "DELETE") && is_operator_request(key)
}

/// The write counts that differ by more than 1% (at least 2 requests) between two rounds.
pub fn differing_writes(a: &BTreeMap<String, f64>, b: &BTreeMap<String, f64>) -> Vec<String> {
    let keys: std::collections::BTreeSet<&String> =
        a.keys().chain(b.keys()).filter(|k| is_write(k)).collect();
    keys.into_iter()
        .filter_map(|k| {
            let (x, y) = (
                a.get(k).copied().unwrap_or(0.0),
                b.get(k).copied().unwrap_or(0.0),
            );
            ((x - y).abs() > (x.max(y) * 0.01).max(2.0)).then(|| format!("{k}: {x} vs {y}"))
        })
        .collect()
}
