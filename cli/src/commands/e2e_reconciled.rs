//! The e2e test's list of reconciled kinds: `RECONCILED_KINDS` in tests/e2e/main.rs, whose samples its check waits
//! for. `rkb create api` lists a kind of the project when it scaffolds a controller for it; a kind scaffolded with
//! `--controller=false` stays out, so its sample is applied but not waited for (nothing in the project reconciles
//! it). Kinds the project does not define are never listed: they have no sample in config/samples, and their
//! controllers add no finalizer.
//!
//! The entries hold names only, one line each (`GroupKind { group: "...", kind: "..." },`), so that adding one twice
//! (a second, named controller of the kind; `--force`) changes nothing.
//!
//! Choices where the file is not what `rkb init` writes today:
//! - no tests/e2e/main.rs (the user deleted the suite): nothing to add to; a note says so.
//! - a file without the list (scaffolded before it existed): its check waits for every sample, and it has no line
//!   to add to. Refusing would block every `create api` of such a project over a test file, so the file is left as
//!   it is, with a note saying what its check does and how to get the list (`rkb alpha update` merges it in).
//! - a file with the list but without the marker line: refused like any missing marker (nothing is written), since
//!   leaving the kind out would silently stop the check from waiting for its samples.

use std::path::Path;

use anyhow::Result;

use super::create_api::insert;
use crate::scaffold::Plan;

/// The e2e test `rkb init` writes.
const FILE: &str = "tests/e2e/main.rs";
/// The line above which each kind is listed.
const MARKER: &str = "rkb:scaffold:e2e-reconciled";
/// The list's name: a file that mentions it has the list (its marker line may be lost).
const LIST: &str = "RECONCILED_KINDS";

/// Lists `kind` of `full_group` in the e2e test's reconciled kinds. Returns a note for the user when the project's
/// e2e test has no list to add it to; an error when the list lost its marker line.
pub fn add(plan: &mut Plan, full_group: &str, kind: &str) -> Result<Option<String>> {
    let file = Path::new(FILE);
    if !plan.exists(file) {
        return Ok(Some(format!(
            "note: there is no {FILE}, so no e2e test waits for the samples of {kind} to be reconciled"
        )));
    }
    let text = plan.read(file)?;
    if !text.contains(MARKER) && !text.contains(LIST) {
        return Ok(Some(format!(
            "note: {FILE} predates its list of reconciled kinds ({LIST}), so {kind} was not added to one: its check \
             waits for every sample in config/samples, also those of kinds without a controller \
             (`rkb create api --controller=false`). To get the list, copy GroupKind, {LIST} and samples_are_reconciled \
             from the {FILE} of a new `rkb init`, or merge the new scaffold in with `rkb alpha update`"
        )));
    }
    insert(
        plan,
        file,
        MARKER,
        &[format!(
            "GroupKind {{ group: \"{full_group}\", kind: \"{kind}\" }},"
        )],
    )?;
    Ok(None)
}
