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

//! The webhooks of CronJob (batch.tutorial.kubebuilder.io/v1), which main.rs serves: defaults for the optional
//! fields, validation of the schedule and the name, and conversion to and from v2 through this version (the hub).
//! `rkb manifests` turns the `+kubebuilder:webhook` markers below into config/webhook/manifests.yaml; the API
//! server calls the paths they name.

use rkb_runtime::ResourceExt;
use rkb_runtime::webhook::{Defaulter, Denied, Validator, Verdict, Webhooks};

use crate::api::v1::{ConcurrencyPolicy, CronJob};
use crate::schedule::Schedule;

/// The webhooks of CronJob v1, for `mgr.serve_webhooks(..)`.
pub fn webhooks() -> Webhooks {
    Webhooks::new()
        .defaulter::<CronJob, _>(CronJobCustomDefaulter::default())
        .validator::<CronJob, _>(CronJobCustomValidator)
        .conversion::<CronJob, crate::api::v2::CronJob>()
}

/// Sets what a user may leave out, with kubebuilder's tutorial's values.
/// +kubebuilder:webhook:path=/mutate-batch-tutorial-kubebuilder-io-v1-cronjob,mutating=true,failurePolicy=fail,sideEffects=None,groups=batch.tutorial.kubebuilder.io,resources=cronjobs,verbs=create;update,versions=v1,name=mcronjob-v1.kb.io,admissionReviewVersions=v1
pub struct CronJobCustomDefaulter {
    pub concurrency_policy: ConcurrencyPolicy,
    pub suspend: bool,
    pub successful_jobs_history_limit: i32,
    pub failed_jobs_history_limit: i32,
}

impl Default for CronJobCustomDefaulter {
    fn default() -> Self {
        CronJobCustomDefaulter {
            concurrency_policy: ConcurrencyPolicy::Allow,
            suspend: false,
            successful_jobs_history_limit: 3,
            failed_jobs_history_limit: 1,
        }
    }
}

impl Defaulter<CronJob> for CronJobCustomDefaulter {
    async fn set_defaults(&self, cronjob: &mut CronJob) -> Result<(), Denied> {
        let spec = &mut cronjob.spec;
        spec.concurrency_policy
            .get_or_insert(self.concurrency_policy);
        spec.suspend.get_or_insert(self.suspend);
        spec.successful_jobs_history_limit
            .get_or_insert(self.successful_jobs_history_limit);
        spec.failed_jobs_history_limit
            .get_or_insert(self.failed_jobs_history_limit);
        Ok(())
    }
}

/// Refuses CronJobs whose schedule does not parse or whose name leaves no room for a Job's.
/// +kubebuilder:webhook:path=/validate-batch-tutorial-kubebuilder-io-v1-cronjob,mutating=false,failurePolicy=fail,sideEffects=None,groups=batch.tutorial.kubebuilder.io,resources=cronjobs,verbs=create;update,versions=v1,name=vcronjob-v1.kb.io,admissionReviewVersions=v1
pub struct CronJobCustomValidator;

impl Validator<CronJob> for CronJobCustomValidator {
    async fn validate_create(&self, cronjob: &CronJob) -> Verdict {
        validate(&cronjob.name_any(), &cronjob.spec.schedule)
    }

    async fn validate_update(&self, _old: &CronJob, new: &CronJob) -> Verdict {
        validate(&new.name_any(), &new.spec.schedule)
    }
}

/// A Job is named `<cronjob>-<unix seconds of its run>` (11 characters more) and must fit a DNS label (63).
pub const MAX_NAME_LENGTH: usize = 63 - 11;

/// Every problem of a CronJob at once, as the API server's own field errors read, or no warnings.
pub fn validate(name: &str, schedule: &str) -> Verdict {
    let mut problems = Vec::new();
    if name.len() > MAX_NAME_LENGTH {
        problems.push(format!(
            "metadata.name: Invalid value: {name:?}: must be no more than {MAX_NAME_LENGTH} characters"
        ));
    }
    if let Err(e) = Schedule::parse(schedule) {
        problems.push(format!(
            "spec.schedule: Invalid value: {schedule:?}: {}",
            e.reason
        ));
    }
    if problems.is_empty() {
        return Ok(Vec::new());
    }
    Err(Denied::new(format!(
        "CronJob.batch.tutorial.kubebuilder.io {name:?} is invalid: {}",
        problems.join(", ")
    )))
}
