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

//! The v2 CronJob webhooks against a real kube-apiserver (`make test` runs `rkb manifests` first): defaults and
//! refusals of v2 objects, and v2 objects stored as v1 and read back with nothing lost.

mod common;

use common::{TIMEOUT, hello_job, serve_webhooks};
use rkb_runtime::envtest::eventually;
use rkb_runtime::kube::api::PostParams;
use rkb_runtime::{Api, ResourceExt};

use cronjob::api::v1;
use cronjob::api::v2::{ConcurrencyPolicy, CronField, CronJob, CronJobSpec, CronSchedule};

fn weekdays_at(name: &str, minute: &str) -> CronJob {
    let schedule = CronSchedule {
        minute: Some(CronField(minute.into())),
        hour: Some(CronField("9".into())),
        day_of_week: Some(CronField("MON-FRI".into())),
        ..CronSchedule::default()
    };
    let spec = CronJobSpec {
        schedule,
        job_template: hello_job(),
        starting_deadline_seconds: Some(60),
        ..CronJobSpec::default()
    };
    CronJob::new(name, spec)
}

#[tokio::test]
async fn v2_defaults_refusals_and_round_trip_through_v1() -> anyhow::Result<()> {
    let (env, running) = serve_webhooks().await?;
    let v1: Api<v1::CronJob> = Api::namespaced(env.client(), "default");
    let v2: Api<CronJob> = Api::namespaced(env.client(), "default");

    // Defaults, set in v2's terms. Until the server listens, the API server's calls fail (failurePolicy: Fail).
    let sample = weekdays_at("weekdays", "30");
    let written = eventually("a create passes the webhooks", TIMEOUT, || async {
        v2.create(&PostParams::default(), &sample).await.map(Some)
    })
    .await?;
    assert_eq!(
        written.spec.concurrency_policy,
        Some(ConcurrencyPolicy::Allow)
    );
    assert_eq!(written.spec.suspend, Some(false));
    assert_eq!(written.spec.successful_jobs_history_limit, Some(3));
    assert_eq!(written.spec.failed_jobs_history_limit, Some(1));

    // Stored as v1 (one cron expression), read back in v2 with every field as written.
    assert_eq!(v1.get("weekdays").await?.spec.schedule, "30 9 * * MON-FRI");
    let back = v2.get("weekdays").await?;
    assert_eq!(back.spec, written.spec);
    assert_eq!(back.spec.schedule, sample.spec.schedule);

    // A schedule whose fields do not make a valid expression is refused, naming the expression.
    let refused = v2
        .create(&PostParams::default(), &weekdays_at("bad-minute", "61"))
        .await
        .expect_err("minute 61 should be refused")
        .to_string();
    assert!(
        refused.contains("spec.schedule: Invalid value: \"61 9 * * MON-FRI\""),
        "{refused}"
    );
    assert!(v2.get_opt("bad-minute").await?.is_none());

    // The samples (`kubectl apply -k config/samples`) pass, in their own versions.
    let sample = |file: &str| {
        let path = format!("{}/config/samples/{file}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(&path).map_err(|e| anyhow::anyhow!("{path}: {e}"))
    };
    let v1_sample: v1::CronJob = serde_saphyr::from_str(&sample("batch_v1_cronjob.yaml")?)?;
    let v2_sample: CronJob = serde_saphyr::from_str(&sample("batch_v2_cronjob.yaml")?)?;
    v1.create(&PostParams::default(), &v1_sample).await?;
    let created = v2.create(&PostParams::default(), &v2_sample).await?;
    assert_eq!(created.spec.schedule.expression(), "*/1 * * * *");
    assert_eq!(
        v1.get(&created.name_any()).await?.spec.schedule,
        "*/1 * * * *"
    );

    running.stop().await?;
    Ok(())
}
