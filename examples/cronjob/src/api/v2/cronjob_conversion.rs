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

//! Conversion of CronJob between v2 (a spoke) and v1 (the hub): the API server stores v1 and asks the manager's
//! conversion webhook (registered in crate::webhook::v1::cronjob_webhook) for v2.
//!
//! The versions differ in one field: v1's `schedule` is a cron expression, v2's a [`CronSchedule`] with one
//! field per part of it. v2 -> v1 joins the parts (a missing part is `*`); v1 -> v2 splits the expression, so
//! the round trip keeps every field. A v1 schedule that is not five fields cannot be spelled in v2: descriptors
//! (`@hourly`..) are written as their five fields; anything else refuses the conversion, naming the schedule
//! (the validating webhook lets no such schedule in). Unlike kubebuilder's tutorial, status conditions are
//! converted too.
//!
//! When the storage version moves, crate::webhook::storage_migration() rewrites every stored CronJob (a paged list,
//! an update per object, a get when one conflicts) so that etcd holds it in the new version:
//!
//! +kubebuilder:rbac:groups=batch.tutorial.kubebuilder.io,resources=cronjobs,verbs=get;list;update

use super::{ConcurrencyPolicy, CronField, CronJob, CronJobSpec, CronJobStatus, CronSchedule};
use crate::api::v1 as hub;

impl From<CronJob> for hub::CronJob {
    fn from(spoke: CronJob) -> Self {
        let spec = spoke.spec;
        hub::CronJob {
            metadata: spoke.metadata,
            spec: hub::CronJobSpec {
                schedule: spec.schedule.expression(),
                starting_deadline_seconds: spec.starting_deadline_seconds,
                concurrency_policy: spec.concurrency_policy.map(Into::into),
                suspend: spec.suspend,
                job_template: spec.job_template,
                successful_jobs_history_limit: spec.successful_jobs_history_limit,
                failed_jobs_history_limit: spec.failed_jobs_history_limit,
            },
            status: spoke.status.map(|s| hub::CronJobStatus {
                active: s.active,
                last_schedule_time: s.last_schedule_time,
                conditions: s.conditions,
            }),
            ..Default::default()
        }
    }
}

impl TryFrom<hub::CronJob> for CronJob {
    type Error = String;

    fn try_from(stored: hub::CronJob) -> Result<Self, String> {
        let spec = stored.spec;
        Ok(CronJob {
            metadata: stored.metadata,
            spec: CronJobSpec {
                schedule: CronSchedule::from_expression(&spec.schedule)?,
                starting_deadline_seconds: spec.starting_deadline_seconds,
                concurrency_policy: spec.concurrency_policy.map(Into::into),
                suspend: spec.suspend,
                job_template: spec.job_template,
                successful_jobs_history_limit: spec.successful_jobs_history_limit,
                failed_jobs_history_limit: spec.failed_jobs_history_limit,
            },
            status: stored.status.map(|s| CronJobStatus {
                active: s.active,
                last_schedule_time: s.last_schedule_time,
                conditions: s.conditions,
            }),
            ..Default::default()
        })
    }
}

impl From<ConcurrencyPolicy> for hub::ConcurrencyPolicy {
    fn from(policy: ConcurrencyPolicy) -> Self {
        match policy {
            ConcurrencyPolicy::Allow => hub::ConcurrencyPolicy::Allow,
            ConcurrencyPolicy::Forbid => hub::ConcurrencyPolicy::Forbid,
            ConcurrencyPolicy::Replace => hub::ConcurrencyPolicy::Replace,
        }
    }
}

impl From<hub::ConcurrencyPolicy> for ConcurrencyPolicy {
    fn from(policy: hub::ConcurrencyPolicy) -> Self {
        match policy {
            hub::ConcurrencyPolicy::Allow => ConcurrencyPolicy::Allow,
            hub::ConcurrencyPolicy::Forbid => ConcurrencyPolicy::Forbid,
            hub::ConcurrencyPolicy::Replace => ConcurrencyPolicy::Replace,
        }
    }
}

/// The five fields of each descriptor, as cron defines them.
const DESCRIPTORS: [(&str, &str); 7] = [
    ("@yearly", "0 0 1 1 *"),
    ("@annually", "0 0 1 1 *"),
    ("@monthly", "0 0 1 * *"),
    ("@weekly", "0 0 * * 0"),
    ("@daily", "0 0 * * *"),
    ("@midnight", "0 0 * * *"),
    ("@hourly", "0 * * * *"),
];

impl CronSchedule {
    /// The cron expression: the five fields in order, `*` for each one left out.
    pub fn expression(&self) -> String {
        [
            &self.minute,
            &self.hour,
            &self.day_of_month,
            &self.month,
            &self.day_of_week,
        ]
        .map(|field| field.as_ref().map_or("*", |f| f.0.as_str()))
        .join(" ")
    }

    /// The fields of a five-field expression or a descriptor; `*` becomes a field left out.
    pub fn from_expression(expression: &str) -> Result<Self, String> {
        let trimmed = expression.trim();
        let expanded = DESCRIPTORS
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(trimmed))
            .map_or(trimmed, |(_, fields)| fields);
        let fields: Vec<&str> = expanded.split_whitespace().collect();
        let [minute, hour, day_of_month, month, day_of_week] = fields[..] else {
            return Err(format!(
                "schedule {expression:?} has {} fields; v2 spells five (minute hour day-of-month month day-of-week)",
                fields.len()
            ));
        };
        let field = |raw: &str| (raw != "*").then(|| CronField(raw.to_string()));
        Ok(CronSchedule {
            minute: field(minute),
            hour: field(hour),
            day_of_month: field(day_of_month),
            month: field(month),
            day_of_week: field(day_of_week),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_schedule_splits_and_joins_back() {
        let parts = CronSchedule::from_expression("*/5 9-17 * * MON-FRI").unwrap();
        assert_eq!(parts.minute, Some(CronField("*/5".into())));
        assert_eq!(parts.day_of_month, None);
        assert_eq!(parts.expression(), "*/5 9-17 * * MON-FRI");
        assert_eq!(CronSchedule::default().expression(), "* * * * *");
    }

    #[test]
    fn descriptors_become_their_fields_and_other_shapes_are_refused() {
        let hourly = CronSchedule::from_expression("@hourly").unwrap();
        assert_eq!(hourly.expression(), "0 * * * *");
        assert_eq!(
            CronSchedule::from_expression("0 * * *").unwrap_err(),
            "schedule \"0 * * *\" has 4 fields; v2 spells five (minute hour day-of-month month day-of-week)"
        );
    }
}
