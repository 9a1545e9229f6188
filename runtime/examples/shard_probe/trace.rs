//! The reconcile log the shard probe writes and the sharding test reads: one line per event, `start <replica>
//! <namespace>/<name> <unix ms>`, `end <replica> <namespace>/<name> <unix ms>`, and `killed <replica> - <unix ms>`,
//! which the harness appends after it SIGKILLed a replica and reaped it (a killed process writes no `end`; from that
//! line on it acts no more).
//!
//! Contract: each line is one `write(2)` of a few dozen bytes to a file opened with O_APPEND, so lines of several
//! processes land whole and the file's order is the order the events happened in (a start is written before the
//! reconcile acts, an end after it stopped acting). Two reconciles of one object overlap exactly when one starts
//! while the other's interval is open in that order; no clock is read for that (the wall-clock milliseconds are
//! for people reading a failed run's log).

use std::collections::{BTreeMap, BTreeSet};
use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::path::Path;
use std::sync::Mutex;

/// Appends this replica's lines to the shared log.
pub struct Writer {
    file: Mutex<File>,
    replica: String,
}

impl Writer {
    /// Opens (or creates) the log at `path` for appending, as `replica`.
    pub fn open(path: &Path, replica: &str) -> std::io::Result<Self> {
        let file = OpenOptions::new().create(true).append(true).open(path)?;
        Ok(Self {
            file: Mutex::new(file),
            replica: replica.to_string(),
        })
    }

    /// Writes `start` for `key` now and `end` when the returned guard drops (the reconcile returned or was
    /// cancelled).
    pub fn interval(&self, key: &str) -> Interval<'_> {
        self.write("start", key);
        Interval {
            writer: self,
            key: key.to_string(),
        }
    }

    fn write(&self, event: &str, key: &str) {
        let line = format!("{event} {} {key} {}\n", self.replica, unix_ms());
        let mut file = self.file.lock().unwrap_or_else(|p| p.into_inner());
        // A probe that cannot write its witness must not go on reconciling: the proof would have a hole.
        if let Err(e) = file.write_all(line.as_bytes()) {
            eprintln!("shard probe: cannot write the reconcile log: {e}");
            std::process::abort();
        }
    }
}

/// An open `[start, end]` interval of one reconcile; dropping it writes the end.
pub struct Interval<'a> {
    writer: &'a Writer,
    key: String,
}

impl Drop for Interval<'_> {
    fn drop(&mut self) {
        self.writer.write("end", &self.key);
    }
}

/// Appends `killed <replica> -` (the harness, after the replica's process was reaped).
pub fn append_killed(path: &Path, replica: &str) -> std::io::Result<()> {
    let mut file = OpenOptions::new().create(true).append(true).open(path)?;
    file.write_all(format!("killed {replica} - {}\n", unix_ms()).as_bytes())
}

fn unix_ms() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis())
}

/// One line of the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub event: Event,
    pub replica: String,
    pub key: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    Start,
    End,
    Killed,
}

/// The log's lines in order. A line that does not parse is an error naming it (a torn write would be one).
pub fn read(path: &Path) -> Result<Vec<Line>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    text.lines()
        .enumerate()
        .map(|(n, l)| {
            parse(l).ok_or_else(|| format!("{}:{}: not a log line: {l:?}", path.display(), n + 1))
        })
        .collect()
}

fn parse(line: &str) -> Option<Line> {
    let mut words = line.split(' ');
    let event = match words.next()? {
        "start" => Event::Start,
        "end" => Event::End,
        "killed" => Event::Killed,
        _ => return None,
    };
    let replica = words.next()?.to_string();
    let key = words.next()?.to_string();
    let _unix_ms: u128 = words.next()?.parse().ok()?;
    words.next().is_none().then_some(Line {
        event,
        replica,
        key,
    })
}

/// Every place where a replica started reconciling an object while another replica's reconcile of it was open
/// (also a replica starting one it already runs, which the controller's queue must never do), described with the
/// lines involved (1-based).
pub fn overlaps(lines: &[Line]) -> Vec<String> {
    // key -> replica -> line of its open start
    let mut open: BTreeMap<&str, BTreeMap<&str, usize>> = BTreeMap::new();
    let mut found = Vec::new();
    for (n, line) in lines.iter().enumerate() {
        let at = n + 1;
        match line.event {
            Event::Start => {
                let holders = open.entry(&line.key).or_default();
                for (other, since) in holders.iter() {
                    found.push(format!(
                        "{}: {} started at line {at} while {other}'s reconcile from line {since} was open",
                        line.key, line.replica
                    ));
                }
                holders.insert(&line.replica, at);
            }
            Event::End => {
                if let Some(holders) = open.get_mut(line.key.as_str()) {
                    holders.remove(line.replica.as_str());
                }
            }
            Event::Killed => {
                for holders in open.values_mut() {
                    holders.remove(line.replica.as_str());
                }
            }
        }
    }
    found
}

/// The objects each replica finished a reconcile of at or after line `from` (0-based index into `lines`).
pub fn finished_since(lines: &[Line], from: usize) -> BTreeMap<String, BTreeSet<String>> {
    let mut done: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in lines.iter().skip(from).filter(|l| l.event == Event::End) {
        done.entry(line.replica.clone())
            .or_default()
            .insert(line.key.clone());
    }
    done
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<Line> {
        text.lines()
            .map(|l| parse(&format!("{l} 1")).unwrap())
            .collect()
    }

    #[test]
    fn a_start_inside_another_replicas_interval_is_an_overlap() {
        let log =
            lines("start a ns/x\nstart b ns/y\nstart b ns/x\nend a ns/x\nend b ns/x\nend b ns/y\n");
        assert_eq!(
            overlaps(&log),
            ["ns/x: b started at line 3 while a's reconcile from line 1 was open"]
        );
    }

    #[test]
    fn back_to_back_and_after_a_kill_are_not() {
        let log = lines(
            "start a ns/x\nend a ns/x\nstart b ns/x\nstart c ns/y\nkilled c -\nstart b ns/y\nend b ns/y\n",
        );
        assert_eq!(overlaps(&log), Vec::<String>::new());
        assert_eq!(
            finished_since(&log, 2)["b"],
            BTreeSet::from(["ns/y".to_string()])
        );
    }
}
