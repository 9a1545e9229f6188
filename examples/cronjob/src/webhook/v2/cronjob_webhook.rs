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

//! The webhooks of CronJob (batch.tutorial.kubebuilder.io/v2), served through `webhook::webhooks()`: the defaults
//! and the checks of v1 (crate::webhook::v1::cronjob_webhook), applied to v2's fields. The API server also converts
//! v2 objects to v1 for v1's webhooks (their matchPolicy is Equivalent), which always works. These webhooks take
//! only v2 requests (`matchPolicy=Exact`): otherwise a v1 request with a schedule v2 cannot spell (`* * *`) would
//! be converted to v2 for them and fail in conversion, with a 500, before v1's validator could refuse it by name.
//! `rkb manifests` turns the `+kubebuilder:webhook` markers below into config/webhook/manifests.yaml; the API
//! server calls the paths they name.

use rkb_runtime::ResourceExt;
use rkb_runtime::webhook::{Defaulter, Denied, Validator, Verdict, Webhooks};

use crate::api::v2::CronJob;
use crate::webhook::v1::cronjob_webhook::{self as hub, validate};

/// The webhooks of CronJob v2, for `mgr.serve_webhooks(..)`.
pub fn webhooks() -> Webhooks {
    Webhooks::new()
        .defaulter::<CronJob, _>(CronJobCustomDefaulter::default())
        .validator::<CronJob, _>(CronJobCustomValidator)
}

/// Sets what a user may leave out, with v1's values.
/// +kubebuilder:webhook:path=/mutate-batch-tutorial-kubebuilder-io-v2-cronjob,mutating=true,failurePolicy=fail,sideEffects=None,groups=batch.tutorial.kubebuilder.io,resources=cronjobs,verbs=create;update,versions=v2,matchPolicy=Exact,name=mcronjob-v2.kb.io,admissionReviewVersions=v1
#[derive(Default)]
pub struct CronJobCustomDefaulter(hub::CronJobCustomDefaulter);

impl Defaulter<CronJob> for CronJobCustomDefaulter {
    async fn set_defaults(&self, cronjob: &mut CronJob) -> Result<(), Denied> {
        let defaults = &self.0;
        let spec = &mut cronjob.spec;
        spec.concurrency_policy
            .get_or_insert(defaults.concurrency_policy.into());
        spec.suspend.get_or_insert(defaults.suspend);
        spec.successful_jobs_history_limit
            .get_or_insert(defaults.successful_jobs_history_limit);
        spec.failed_jobs_history_limit
            .get_or_insert(defaults.failed_jobs_history_limit);
        Ok(())
    }
}

/// Refuses CronJobs whose schedule, put together from its fields, does not parse, or whose name is too long.
/// +kubebuilder:webhook:path=/validate-batch-tutorial-kubebuilder-io-v2-cronjob,mutating=false,failurePolicy=fail,sideEffects=None,groups=batch.tutorial.kubebuilder.io,resources=cronjobs,verbs=create;update,versions=v2,matchPolicy=Exact,name=vcronjob-v2.kb.io,admissionReviewVersions=v1
pub struct CronJobCustomValidator;

impl Validator<CronJob> for CronJobCustomValidator {
    async fn validate_create(&self, cronjob: &CronJob) -> Verdict {
        validate(&cronjob.name_any(), &cronjob.spec.schedule.expression())
    }

    async fn validate_update(&self, _old: &CronJob, new: &CronJob) -> Verdict {
        validate(&new.name_any(), &new.spec.schedule.expression())
    }
}
