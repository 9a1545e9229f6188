//! Command-line options of a manager, with kubebuilder v4's flag names so operators feel familiar.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::{ArgAction, Parser, ValueEnum};

use crate::Error;

/// The flags every rkb operator accepts. Embed with `#[command(flatten)]` or call `ManagerOptions::parse()`.
#[derive(Clone, Debug, Parser)]
#[command(about = "A Kubernetes operator built with rkb")]
pub struct ManagerOptions {
    /// The address the metrics endpoint binds to, e.g. ":8443" or "127.0.0.1:8080"; "0" disables it.
    #[arg(long, default_value = "0")]
    pub metrics_bind_address: String,

    /// Serve metrics over HTTPS, allowing only requests whose bearer token passes a TokenReview and a
    /// SubjectAccessReview for the URL; --metrics-secure=false serves plain HTTP to anyone.
    #[arg(long, default_value_t = true, action = ArgAction::Set, num_args = 0..=1, default_missing_value = "true")]
    pub metrics_secure: bool,

    /// Directory holding the metrics server's certificate and key; without it a self-signed one is made.
    #[arg(long)]
    pub metrics_cert_path: Option<PathBuf>,

    /// File name of the metrics server's certificate (PEM) in --metrics-cert-path.
    #[arg(long, default_value = "tls.crt")]
    pub metrics_cert_name: String,

    /// File name of the metrics server's private key (PEM) in --metrics-cert-path.
    #[arg(long, default_value = "tls.key")]
    pub metrics_cert_key: String,

    /// The address the /healthz and /readyz endpoints bind to; "0" disables them.
    #[arg(long, default_value = ":8081")]
    pub health_probe_bind_address: String,

    /// Enable leader election, ensuring only one active manager reconciles.
    #[arg(long, default_value_t = false, action = ArgAction::Set, num_args = 0..=1, default_missing_value = "true")]
    pub leader_elect: bool,

    /// Name of the Lease used for leader election (defaults to the name given to `Manager::builder`).
    #[arg(long)]
    pub leader_election_id: Option<String>,

    /// Namespace of the leader election Lease (defaults to the pod's namespace, else the kubeconfig's).
    #[arg(long)]
    pub leader_election_namespace: Option<String>,

    /// How long followers wait after the last observed renewal before taking the lease over.
    #[arg(long, default_value = "15s", value_parser = parse_duration)]
    pub leader_elect_lease_duration: Duration,

    /// How long the leader keeps retrying to renew before it gives leadership up.
    #[arg(long, default_value = "10s", value_parser = parse_duration)]
    pub leader_elect_renew_deadline: Duration,

    /// How often candidates try to acquire and the leader renews.
    #[arg(long, default_value = "2s", value_parser = parse_duration)]
    pub leader_elect_retry_period: Duration,

    /// Watch only the namespace named by the WATCH_NAMESPACE environment variable.
    #[arg(long, default_value_t = false, action = ArgAction::Set, num_args = 0..=1, default_missing_value = "true")]
    pub namespaced: bool,

    /// Log output format.
    #[arg(long, value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
}

impl Default for ManagerOptions {
    fn default() -> Self {
        // Parsing an empty command line keeps the defaults in one place (the attributes above).
        <Self as Parser>::parse_from(["manager"])
    }
}

/// How log lines are rendered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    #[default]
    Text,
    /// One JSON object per line.
    Json,
}

fn parse_duration(s: &str) -> Result<Duration, humantime::DurationError> {
    humantime::parse_duration(s)
}

/// Parses a bind address the way controller-runtime does: "0" (or empty) disables the listener, ":8080" binds every
/// interface, "host:port" binds that address.
pub fn parse_bind_address(flag: &'static str, s: &str) -> Result<Option<SocketAddr>, Error> {
    let s = s.trim();
    if s.is_empty() || s == "0" {
        return Ok(None);
    }
    let full = if s.starts_with(':') {
        format!("0.0.0.0{s}")
    } else {
        s.to_string()
    };
    full.parse().map(Some).map_err(|_| Error::BindAddress {
        flag,
        value: s.to_string(),
    })
}

impl ManagerOptions {
    /// Checks cross-flag invariants (client-go's leader election rules) before anything starts.
    pub fn validate(&self) -> Result<(), Error> {
        parse_bind_address("--metrics-bind-address", &self.metrics_bind_address)?;
        parse_bind_address(
            "--health-probe-bind-address",
            &self.health_probe_bind_address,
        )?;
        if self.leader_elect {
            if self.leader_elect_lease_duration <= self.leader_elect_renew_deadline {
                return Err(Error::InvalidOptions(
                    "--leader-elect-lease-duration must be greater than --leader-elect-renew-deadline".into(),
                ));
            }
            if self.leader_elect_renew_deadline <= self.leader_elect_retry_period {
                return Err(Error::InvalidOptions(
                    "--leader-elect-renew-deadline must be greater than --leader-elect-retry-period".into(),
                ));
            }
            if self.leader_elect_retry_period.is_zero() {
                return Err(Error::InvalidOptions(
                    "--leader-elect-retry-period must be positive".into(),
                ));
            }
        }
        Ok(())
    }

    /// The namespace to watch: WATCH_NAMESPACE when --namespaced is set.
    pub fn watch_namespace(&self) -> Result<Option<String>, Error> {
        if !self.namespaced {
            return Ok(None);
        }
        match std::env::var("WATCH_NAMESPACE") {
            Ok(ns) if !ns.trim().is_empty() => Ok(Some(ns.trim().to_string())),
            _ => Err(Error::InvalidOptions(
                "--namespaced needs the WATCH_NAMESPACE environment variable".into(),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_match_kubebuilder() {
        let o = ManagerOptions::default();
        assert_eq!(o.metrics_bind_address, "0");
        assert!(o.metrics_secure);
        assert_eq!(
            (o.metrics_cert_name.as_str(), o.metrics_cert_key.as_str()),
            ("tls.crt", "tls.key")
        );
        assert_eq!(o.health_probe_bind_address, ":8081");
        assert!(!o.leader_elect);
        assert_eq!(o.leader_elect_lease_duration, Duration::from_secs(15));
        assert_eq!(o.leader_elect_renew_deadline, Duration::from_secs(10));
        assert_eq!(o.leader_elect_retry_period, Duration::from_secs(2));
        assert_eq!(o.log_format, LogFormat::Text);
        o.validate().unwrap();
    }

    #[test]
    fn flags_parse() {
        let o = <ManagerOptions as Parser>::try_parse_from([
            "m",
            "--metrics-bind-address=:8443",
            "--leader-elect",
            "--leader-elect-lease-duration=4s",
            "--leader-elect-renew-deadline=3s",
            "--leader-elect-retry-period=500ms",
            "--log-format=json",
        ])
        .unwrap();
        assert!(o.leader_elect);
        assert_eq!(o.leader_elect_retry_period, Duration::from_millis(500));
        assert_eq!(o.log_format, LogFormat::Json);
        assert_eq!(
            parse_bind_address("x", &o.metrics_bind_address).unwrap(),
            Some("0.0.0.0:8443".parse().unwrap())
        );
        o.validate().unwrap();
    }

    #[test]
    fn booleans_take_go_style_values() {
        let parse = |args: &[&str]| {
            let mut all = vec!["m"];
            all.extend_from_slice(args);
            <ManagerOptions as Parser>::try_parse_from(all).unwrap()
        };
        assert!(!parse(&["--metrics-secure=false"]).metrics_secure);
        assert!(parse(&["--metrics-secure"]).metrics_secure);
        assert!(parse(&["--leader-elect"]).leader_elect);
        assert!(parse(&["--leader-elect=true"]).leader_elect);
        assert!(!parse(&["--leader-elect=false"]).leader_elect);
        assert!(parse(&["--namespaced"]).namespaced);
    }

    #[test]
    fn flattens_into_an_operator_s_own_arguments() {
        #[derive(Parser)]
        struct Args {
            #[command(flatten)]
            manager: ManagerOptions,
            #[arg(long)]
            extra: bool,
        }
        let a = Args::try_parse_from([
            "op",
            "--leader-elect",
            "--extra",
            "--health-probe-bind-address=:9000",
        ])
        .unwrap();
        assert!(a.extra && a.manager.leader_elect);
        assert_eq!(a.manager.health_probe_bind_address, ":9000");
    }

    #[test]
    fn bind_address_forms() {
        assert_eq!(parse_bind_address("x", "0").unwrap(), None);
        assert_eq!(parse_bind_address("x", "").unwrap(), None);
        assert_eq!(
            parse_bind_address("x", "127.0.0.1:9000").unwrap(),
            Some("127.0.0.1:9000".parse().unwrap())
        );
        assert!(parse_bind_address("x", "nonsense").is_err());
    }

    #[test]
    fn leader_timings_are_checked() {
        let o = <ManagerOptions as Parser>::try_parse_from([
            "m",
            "--leader-elect",
            "--leader-elect-lease-duration=2s",
            "--leader-elect-renew-deadline=3s",
        ])
        .unwrap();
        assert!(o.validate().is_err());
    }
}
