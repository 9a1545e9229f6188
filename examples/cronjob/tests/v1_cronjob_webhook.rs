// Copyright 2026 The rkb authors.
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

//! The v1 CronJob webhooks against a real kube-apiserver (`make test` runs `rkb manifests` first): defaults and
//! refusals of v1 objects, and v1 objects read as v2 through the conversion webhook.

mod common;

use common::{TIMEOUT, hello_job, serve_webhooks};
use rkb_runtime::envtest::eventually;
use rkb_runtime::kube::api::{ListParams, PostParams};
use rkb_runtime::{Api, ResourceExt};

use cronjob::api::v1::{ConcurrencyPolicy, CronJob, CronJobSpec};
use cronjob::api::v2;

fn v1_cronjob(name: &str, schedule: &str) -> CronJob {
    let spec = CronJobSpec {
        schedule: schedule.into(),
        job_template: hello_job(),
        ..CronJobSpec::default()
    };
    CronJob::new(name, spec)
}

/// The error text of a refused request.
fn refusal<T: std::fmt::Debug>(result: Result<T, rkb_runtime::kube::Error>) -> String {
    result
        .expect_err("the API server should refuse this")
        .to_string()
}

#[tokio::test]
async fn v1_defaults_refusals_and_reads_in_v2() -> anyhow::Result<()> {
    let (env, running) = serve_webhooks().await?;
    let v1: Api<CronJob> = Api::namespaced(env.client(), "default");
    let v2: Api<v2::CronJob> = Api::namespaced(env.client(), "default");

    // Defaults: what the create leaves out comes back set. Until the server listens, the API server's calls
    // fail (failurePolicy: Fail), so poll.
    let sample = v1_cronjob("every-five", "*/5 * * * *");
    let created = eventually("a create passes the webhooks", TIMEOUT, || async {
        v1.create(&PostParams::default(), &sample).await.map(Some)
    })
    .await?;
    let spec = &created.spec;
    assert_eq!(spec.concurrency_policy, Some(ConcurrencyPolicy::Allow));
    assert_eq!(spec.suspend, Some(false));
    assert_eq!(spec.successful_jobs_history_limit, Some(3));
    assert_eq!(spec.failed_jobs_history_limit, Some(1));

    // Refusals name every problem, for a create and for an update.
    let too_long = "c".repeat(53);
    let refused = refusal(
        v1.create(&PostParams::default(), &v1_cronjob(&too_long, "61 * * * *"))
            .await,
    );
    assert!(refused.contains("denied the request"), "{refused}");
    assert!(
        refused.contains(&format!(
            "metadata.name: Invalid value: \"{too_long}\": must be no more than 52 characters"
        )),
        "{refused}"
    );
    assert!(
        refused.contains("spec.schedule: Invalid value: \"61 * * * *\""),
        "{refused}"
    );
    let mut broken = created.clone();
    broken.spec.schedule = "* * *".into();
    let refused = refusal(
        v1.replace("every-five", &PostParams::default(), &broken)
            .await,
    );
    assert!(
        refused.contains("spec.schedule: Invalid value: \"* * *\": expected 5 fields"),
        "{refused}"
    );

    // Stored as v1, read as v2: the schedule split into its fields, everything else as written.
    let read = v2.get("every-five").await?;
    assert_eq!(read.spec.schedule.minute, Some(v2::CronField("*/5".into())));
    assert_eq!(read.spec.schedule.hour, None);
    assert_eq!(read.spec.successful_jobs_history_limit, Some(3));
    assert_eq!(read.spec.job_template, created.spec.job_template);

    // A descriptor reads in v2 as its five fields; a list in v2 converts every item.
    v1.create(&PostParams::default(), &v1_cronjob("hourly", "@hourly"))
        .await?;
    let listed = v2.list(&ListParams::default()).await?.items;
    let mut schedules: Vec<(String, String)> = listed
        .iter()
        .map(|c| (c.name_any(), c.spec.schedule.expression()))
        .collect();
    schedules.sort();
    let expected = [("every-five", "*/5 * * * *"), ("hourly", "0 * * * *")]
        .map(|(n, s)| (n.to_string(), s.to_string()));
    assert_eq!(schedules, expected);

    running.stop().await?;
    Ok(())
}
