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

//! Cron schedules: the expressions the validating webhooks accept and the run times the controller starts Jobs at.
//!
//! The grammar is the one of Kubernetes' own CronJob: five fields (minute, hour, day of month, month, day of
//! week) with values, names (JAN-DEC, SUN-SAT), ranges, lists and steps, or a descriptor (@yearly, @annually,
//! @monthly, @weekly, @daily, @midnight, @hourly). When both day fields are restricted a day matching either runs,
//! as in cron. Times are UTC. Expressions with seconds or years are refused. Beyond Kubernetes, croner also
//! accepts Quartz's `L`, `W` and `#`; Kubernetes' `@every <duration>` is refused.

use croner::Cron;
use croner::parser::{CronParser, Seconds, Year};
use jiff::Timestamp;
use jiff::tz::TimeZone;

/// A parsed cron expression.
#[derive(Clone, Debug)]
pub struct Schedule {
    cron: Cron,
}

/// Why an expression is not a schedule, with the expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScheduleError {
    pub expression: String,
    pub reason: String,
}

impl std::fmt::Display for ScheduleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "unparseable schedule {:?}: {}",
            self.expression, self.reason
        )
    }
}

impl std::error::Error for ScheduleError {}

impl Schedule {
    pub fn parse(expression: &str) -> Result<Self, ScheduleError> {
        let error = |reason: String| ScheduleError {
            expression: expression.to_string(),
            reason,
        };
        let fields = expression.split_whitespace().count();
        if !expression.trim_start().starts_with('@') && fields != 5 {
            return Err(error(format!(
                "expected 5 fields (minute hour day-of-month month day-of-week), found {fields}"
            )));
        }
        let parser = CronParser::builder()
            .seconds(Seconds::Disallowed)
            .year(Year::Disallowed)
            // `0/10` (from 0 in steps of 10) is valid for Kubernetes' parser.
            .sloppy_ranges(true)
            .build();
        let cron = parser.parse(expression).map_err(|e| error(e.to_string()))?;
        Ok(Schedule { cron })
    }

    /// The first run strictly after `t`; `None` when there is none (such as February 30).
    pub fn next_after(&self, t: Timestamp) -> Option<Timestamp> {
        let start = t.to_zoned(TimeZone::UTC);
        let next = self.cron.find_next_occurrence(&start, false).ok()?;
        Some(next.timestamp())
    }

    /// The last run at or before `t`.
    pub fn latest_at_or_before(&self, t: Timestamp) -> Option<Timestamp> {
        let start = t.to_zoned(TimeZone::UTC);
        let previous = self.cron.find_previous_occurrence(&start, true).ok()?;
        Some(previous.timestamp())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    #[test]
    fn five_fields_names_steps_and_descriptors_parse() {
        for ok in [
            "*/1 * * * *",
            "0 0 1 1 *",
            "0/10 9-17 * JAN-MAR mon,wed",
            "@hourly",
            "@daily",
        ] {
            assert!(Schedule::parse(ok).is_ok(), "{ok} refused");
        }
    }

    #[test]
    fn what_kubernetes_refuses_is_refused_with_the_expression() {
        let err = Schedule::parse("* * * *").unwrap_err();
        assert_eq!(
            err.to_string(),
            "unparseable schedule \"* * * *\": expected 5 fields (minute hour day-of-month month day-of-week), found 4"
        );
        for bad in [
            "0 * * * * *",
            "61 * * * *",
            "* 25 * * *",
            "not a schedule",
            "",
            "@every 1m",
        ] {
            assert!(Schedule::parse(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn run_times_are_utc_minutes() {
        let hourly = Schedule::parse("@hourly").unwrap();
        let t = at("2026-11-25T10:15:30Z");
        assert_eq!(hourly.next_after(t), Some(at("2026-11-25T11:00:00Z")));
        assert_eq!(
            hourly.latest_at_or_before(t),
            Some(at("2026-11-25T10:00:00Z"))
        );
        // At a run time exactly: that run is the latest, the next is an hour on.
        let on = at("2026-11-25T10:00:00Z");
        assert_eq!(hourly.latest_at_or_before(on), Some(on));
        assert_eq!(hourly.next_after(on), Some(at("2026-11-25T11:00:00Z")));
        let weekdays = Schedule::parse("30 9 * * MON-FRI").unwrap();
        // 2026-11-28 is a Saturday.
        assert_eq!(
            weekdays.next_after(at("2026-11-27T10:00:00Z")),
            Some(at("2026-11-30T09:30:00Z"))
        );
    }
}
