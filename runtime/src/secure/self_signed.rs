//! Self-signed certificates rkb makes itself, and the directories it writes them to.
//!
//! Contract:
//! - A certificate rkb generates is valid for [`VALIDITY`] (one year) from the moment it is made, with its
//!   not-before set [`BACKDATE`] earlier so a client whose clock is a little behind still accepts it.
//! - One rkb wrote to disk is recorded next to it in [`MARKER`] (its not-after time and its PEM). A certificate
//!   is rkb's only while its file holds exactly the recorded PEM; a user's or cert-manager's certificate, or one
//!   written by an rkb without this marker, is never rewritten. rkb's own is regenerated when less than
//!   [`RENEW_BEFORE`] (30 days) of it is left: when the manager starts and when a TLS handshake finds it due.
//! - Directories rkb creates for certificates are created 0700. A directory it is about to write a key into must
//!   be owned by the process's effective uid and not writable by group or others (a symbolic link to it too),
//!   otherwise it is refused: someone else could read or replace the key.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::Error;

/// How long a generated certificate is valid.
pub(crate) const VALIDITY: Duration = Duration::from_secs(365 * 24 * 60 * 60);
/// How far in the past a generated certificate's validity starts, for clock skew between manager and clients.
pub(crate) const BACKDATE: Duration = Duration::from_secs(60 * 60);
/// A generated certificate with less than this left is replaced.
pub(crate) const RENEW_BEFORE: Duration = Duration::from_secs(30 * 24 * 60 * 60);
/// The file, in the certificate directory, recording the certificate rkb generated there.
pub(crate) const MARKER: &str = ".rkb-self-signed";

/// The names a generated certificate serves: a local run's webhook configuration or scraper calls one of them.
const NAMES: [&str; 2] = ["localhost", "127.0.0.1"];

/// A freshly generated certificate and key.
pub(crate) struct Generated {
    pub(crate) cert_pem: String,
    pub(crate) key_pem: String,
    pub(crate) cert_der: Vec<u8>,
    pub(crate) key_der: Vec<u8>,
    pub(crate) not_after: SystemTime,
}

/// A self-signed certificate for localhost and 127.0.0.1, valid from `now - BACKDATE` to `now + VALIDITY`.
pub(crate) fn generate(now: SystemTime) -> Result<Generated, Error> {
    let tls = |e: rcgen::Error| Error::Tls(e.to_string());
    let names: Vec<String> = NAMES.iter().map(|n| n.to_string()).collect();
    let mut params = rcgen::CertificateParams::new(names).map_err(tls)?;
    let not_before = now.checked_sub(BACKDATE).unwrap_or(UNIX_EPOCH);
    let not_after = now + VALIDITY;
    // rcgen takes `time` dates; counting from its own 1970-01-01 spares this crate a dependency on `time`.
    let epoch = rcgen::date_time_ymd(1970, 1, 1);
    params.not_before = epoch + since_epoch(not_before);
    params.not_after = epoch + since_epoch(not_after);
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "rkb self-signed certificate");
    let key = rcgen::KeyPair::generate().map_err(tls)?;
    let cert = params.self_signed(&key).map_err(tls)?;
    Ok(Generated {
        cert_pem: cert.pem(),
        key_pem: key.serialize_pem(),
        cert_der: cert.der().to_vec(),
        key_der: key.serialize_der(),
        not_after,
    })
}

fn since_epoch(t: SystemTime) -> Duration {
    t.duration_since(UNIX_EPOCH).unwrap_or_default()
}

/// Whether a certificate valid until `not_after` is to be replaced at `now`.
pub(crate) fn renewal_due(not_after: SystemTime, now: SystemTime) -> bool {
    not_after
        .duration_since(now)
        .map_or(true, |left| left < RENEW_BEFORE)
}

/// The not-after time of the certificate at `cert_path` when rkb generated it (see [`MARKER`]), else None.
pub(crate) fn own_expiry(dir: &Path, cert_path: &Path) -> Option<SystemTime> {
    let marker = std::fs::read_to_string(dir.join(MARKER)).ok()?;
    let (first, recorded_pem) = marker.split_once('\n')?;
    let secs: u64 = first.strip_prefix("not-after ")?.parse().ok()?;
    let current_pem = std::fs::read_to_string(cert_path).ok()?;
    (current_pem == recorded_pem).then(|| UNIX_EPOCH + Duration::from_secs(secs))
}

/// Creates `dir` (and missing parents) with mode 0700 when it does not exist.
pub(crate) fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    if dir.exists() {
        return Ok(());
    }
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// Refuses a directory a key is about to be written to when another user owns it (or the link to it) or when
/// group or others may write to it.
pub(crate) fn check_private_dir(dir: &Path) -> Result<(), Error> {
    use std::os::unix::fs::MetadataExt as _;
    let refuse = |why: String| {
        Error::Tls(format!(
            "refusing to write a certificate key into {}: {why}; remove it, or point --webhook-cert-path at a \
             directory of your own",
            dir.display()
        ))
    };
    let io = |e: std::io::Error| Error::Tls(format!("{}: {e}", dir.display()));
    let euid = effective_uid().map_err(io)?;
    let link = std::fs::symlink_metadata(dir).map_err(io)?;
    let target = std::fs::metadata(dir).map_err(io)?;
    for meta in [&link, &target] {
        if meta.uid() != euid {
            return Err(refuse(format!(
                "it is owned by uid {}, not by this process's uid {euid}",
                meta.uid()
            )));
        }
    }
    let mode = target.mode() & 0o777;
    if mode & 0o022 != 0 {
        return Err(refuse(format!(
            "group or others may write to it (mode {mode:04o})"
        )));
    }
    Ok(())
}

/// The process's effective uid, without unsafe code: from /proc/self/status on Linux, elsewhere the owner of a
/// file this process creates (a new file belongs to the creator's effective uid).
fn effective_uid() -> std::io::Result<u32> {
    if let Ok(status) = std::fs::read_to_string("/proc/self/status") {
        // "Uid:\treal\teffective\tsaved\tfilesystem"
        let effective = status
            .lines()
            .find_map(|l| l.strip_prefix("Uid:"))
            .and_then(|ids| ids.split_whitespace().nth(1))
            .and_then(|id| id.parse().ok());
        if let Some(uid) = effective {
            return Ok(uid);
        }
    }
    use std::os::unix::fs::MetadataExt as _;
    let probe = std::env::temp_dir().join(format!(
        "rkb-uid-probe-{}-{}",
        std::process::id(),
        since_epoch(SystemTime::now()).as_nanos()
    ));
    let uid = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)?
        .metadata()?
        .uid();
    std::fs::remove_file(&probe)?;
    Ok(uid)
}

/// Writes a generated pair and its [`MARKER`] into a directory checked by [`check_private_dir`]: the key first
/// (mode 0600), so a reader that sees the new certificate finds its key; each file through a rename, so a reader
/// never sees half of one.
pub(crate) fn write_generated(
    dir: &Path,
    cert_path: &Path,
    key_path: &Path,
    generated: &Generated,
) -> std::io::Result<()> {
    replace_file(key_path, generated.key_pem.as_bytes())?;
    replace_file(cert_path, generated.cert_pem.as_bytes())?;
    let marker = format!(
        "not-after {}\n{}",
        since_epoch(generated.not_after).as_secs(),
        generated.cert_pem
    );
    replace_file(&dir.join(MARKER), marker.as_bytes())
}

fn replace_file(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".rkb-new");
    let staged: PathBuf = path.with_file_name(name);
    match std::fs::remove_file(&staged) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(&staged)?.write_all(contents)?;
    std::fs::rename(&staged, path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt as _;

    const DAY: Duration = Duration::from_secs(24 * 60 * 60);

    #[test]
    fn renewal_is_due_only_in_the_last_thirty_days() {
        let now = UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        assert!(!renewal_due(now + VALIDITY, now));
        assert!(!renewal_due(now + 31 * DAY, now));
        assert!(!renewal_due(now + 30 * DAY, now));
        assert!(renewal_due(now + 29 * DAY, now));
        assert!(renewal_due(now, now));
        assert!(renewal_due(now - DAY, now), "an expired one");
    }

    #[test]
    fn a_generated_certificate_is_valid_for_one_year_from_an_hour_ago() {
        let now = UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        let generated = generate(now).unwrap();
        assert_eq!(generated.not_after, now + VALIDITY);
        // Read the dates back from the certificate itself: UTCTime YYMMDDHHMMSSZ.
        // 1_800_000_000 is 2027-01-15T08:00:00Z.
        let der = &generated.cert_der;
        let contains = |t: &[u8]| der.windows(t.len()).any(|w| w == t);
        assert!(contains(b"270115070000Z"), "not-before an hour ago");
        assert!(contains(b"280115080000Z"), "not-after a year later");
    }

    #[test]
    fn only_the_certificate_rkb_recorded_is_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let (cert, key) = (dir.path().join("tls.crt"), dir.path().join("tls.key"));
        let now = UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        write_generated(dir.path(), &cert, &key, &generate(now).unwrap()).unwrap();
        assert_eq!(own_expiry(dir.path(), &cert), Some(now + VALIDITY));
        // A user (or cert-manager) puts a certificate of their own there: it is theirs, never renewed.
        let theirs = generate(now).unwrap();
        std::fs::write(&cert, theirs.cert_pem).unwrap();
        assert_eq!(own_expiry(dir.path(), &cert), None);
        assert_eq!(
            std::fs::metadata(&key).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }

    #[test]
    fn directories_are_created_0700() {
        let base = tempfile::tempdir().unwrap();
        let dir = base.path().join("k8s-webhook-server/serving-certs");
        create_private_dir(&dir).unwrap();
        for created in [&dir, &base.path().join("k8s-webhook-server")] {
            let mode = std::fs::metadata(created).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o700, "{}", created.display());
        }
        check_private_dir(&dir).unwrap();
    }

    #[test]
    fn a_directory_others_may_write_to_is_refused() {
        let base = tempfile::tempdir().unwrap();
        std::fs::set_permissions(base.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
        let err = check_private_dir(base.path()).unwrap_err().to_string();
        assert_eq!(
            err,
            format!(
                "TLS: refusing to write a certificate key into {}: group or others may write to it (mode \
                 0777); remove it, or point --webhook-cert-path at a directory of your own",
                base.path().display()
            )
        );
    }

    #[test]
    fn a_directory_owned_by_another_user_is_refused() {
        // Root makes one for another user; anyone else finds one in `/`, which belongs to root.
        let base = tempfile::tempdir().unwrap();
        let (dir, owner) = if effective_uid().unwrap() == 0 {
            std::os::unix::fs::chown(base.path(), Some(65534), None).unwrap();
            (base.path().to_path_buf(), 65534)
        } else {
            (PathBuf::from("/"), 0)
        };
        let uid = effective_uid().unwrap();
        let err = check_private_dir(&dir).unwrap_err().to_string();
        assert_eq!(
            err,
            format!(
                "TLS: refusing to write a certificate key into {}: it is owned by uid {owner}, not by this \
                 process's uid {uid}; remove it, or point --webhook-cert-path at a directory of your own",
                dir.display()
            )
        );
    }
}
