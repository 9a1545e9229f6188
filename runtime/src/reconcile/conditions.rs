//! Status condition helpers with apimachinery's `meta.SetStatusCondition` semantics: a condition is keyed by type,
//! `lastTransitionTime` moves only when the status changes, reason/message/observedGeneration are kept current.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use k8s_openapi::jiff::Timestamp;

/// `status` value of a condition that holds.
pub const TRUE: &str = "True";
/// `status` value of a condition that does not hold.
pub const FALSE: &str = "False";
/// `status` value of a condition whose state is not known.
pub const UNKNOWN: &str = "Unknown";

/// The current time at the precision Kubernetes stores (`metav1.Time` serialises whole seconds), so a condition
/// compares equal before and after a round trip through the API server.
pub fn now() -> Time {
    let secs = Timestamp::now().as_second();
    Time(Timestamp::from_second(secs).unwrap_or(Timestamp::UNIX_EPOCH))
}

/// A condition stamped with the current time; `observed_generation` is usually `obj.metadata.generation`.
pub fn new_condition(
    type_: impl Into<String>,
    status: impl Into<String>,
    reason: impl Into<String>,
    message: impl Into<String>,
    observed_generation: Option<i64>,
) -> Condition {
    Condition {
        type_: type_.into(),
        status: status.into(),
        reason: reason.into(),
        message: message.into(),
        observed_generation,
        last_transition_time: now(),
    }
}

/// Sets `new` in `conditions`, returning whether anything changed. An existing condition of the same type keeps its
/// `lastTransitionTime` unless its status changes; a new condition (or a status change) takes `new`'s time, or now
/// when that is the zero time (the Unix epoch).
pub fn set_condition(conditions: &mut Vec<Condition>, new: Condition) -> bool {
    let transition_time = if new.last_transition_time.0 == Timestamp::UNIX_EPOCH {
        now()
    } else {
        new.last_transition_time.clone()
    };
    let Some(existing) = conditions.iter_mut().find(|c| c.type_ == new.type_) else {
        conditions.push(Condition {
            last_transition_time: transition_time,
            ..new
        });
        return true;
    };
    let mut changed = false;
    if existing.status != new.status {
        existing.status = new.status;
        existing.last_transition_time = transition_time;
        changed = true;
    }
    if existing.reason != new.reason {
        existing.reason = new.reason;
        changed = true;
    }
    if existing.message != new.message {
        existing.message = new.message;
        changed = true;
    }
    if existing.observed_generation != new.observed_generation {
        existing.observed_generation = new.observed_generation;
        changed = true;
    }
    changed
}

/// The condition of the given type, if present.
pub fn find_condition<'a>(conditions: &'a [Condition], type_: &str) -> Option<&'a Condition> {
    conditions.iter().find(|c| c.type_ == type_)
}

/// Removes the condition of the given type, returning whether it was present.
pub fn remove_condition(conditions: &mut Vec<Condition>, type_: &str) -> bool {
    let before = conditions.len();
    conditions.retain(|c| c.type_ != type_);
    conditions.len() != before
}

/// Whether the condition of the given type is present with status "True".
pub fn is_condition_true(conditions: &[Condition], type_: &str) -> bool {
    find_condition(conditions, type_).is_some_and(|c| c.status == TRUE)
}

/// Whether the condition of the given type is present with status "False".
pub fn is_condition_false(conditions: &[Condition], type_: &str) -> bool {
    find_condition(conditions, type_).is_some_and(|c| c.status == FALSE)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(secs: i64) -> Time {
        Time(Timestamp::from_second(secs).unwrap())
    }

    fn cond(status: &str, reason: &str, generation: i64, time: i64) -> Condition {
        Condition {
            last_transition_time: at(time),
            ..new_condition("Available", status, reason, "msg", Some(generation))
        }
    }

    #[test]
    fn setting_the_same_condition_twice_keeps_the_transition_time() {
        let mut cs = vec![];
        assert!(set_condition(&mut cs, cond(TRUE, "Ready", 1, 100)));
        assert!(!set_condition(&mut cs, cond(TRUE, "Ready", 1, 200)));
        assert_eq!(cs.len(), 1);
        assert_eq!(cs[0].last_transition_time, at(100));
    }

    #[test]
    fn reason_and_generation_update_without_a_transition() {
        let mut cs = vec![];
        set_condition(&mut cs, cond(TRUE, "Ready", 1, 100));
        assert!(set_condition(&mut cs, cond(TRUE, "StillReady", 2, 200)));
        let c = find_condition(&cs, "Available").unwrap();
        assert_eq!(
            (c.reason.as_str(), c.observed_generation),
            ("StillReady", Some(2))
        );
        assert_eq!(c.last_transition_time, at(100));
    }

    #[test]
    fn a_status_change_moves_the_transition_time() {
        let mut cs = vec![];
        set_condition(&mut cs, cond(TRUE, "Ready", 1, 100));
        assert!(set_condition(&mut cs, cond(FALSE, "Broken", 1, 300)));
        assert_eq!(cs[0].last_transition_time, at(300));
        assert!(is_condition_false(&cs, "Available"));
        assert!(!is_condition_true(&cs, "Available"));
    }

    #[test]
    fn zero_time_means_now() {
        let mut cs = vec![];
        set_condition(&mut cs, cond(TRUE, "Ready", 1, 0));
        assert!(cs[0].last_transition_time.0 > Timestamp::UNIX_EPOCH);
        assert_eq!(cs[0].last_transition_time.0.subsec_nanosecond(), 0);
    }

    #[test]
    fn remove_and_find() {
        let mut cs = vec![];
        set_condition(&mut cs, new_condition("A", TRUE, "R", "", None));
        set_condition(&mut cs, new_condition("B", UNKNOWN, "R", "", None));
        assert!(remove_condition(&mut cs, "A"));
        assert!(!remove_condition(&mut cs, "A"));
        assert!(find_condition(&cs, "A").is_none());
        assert_eq!(find_condition(&cs, "B").unwrap().status, UNKNOWN);
    }
}
