//! Command-line options of a manager, with kubebuilder v4's flag names so operators feel familiar.
//!
//! Each flag is one entry of [`FLAGS`]: its name, the placeholder of its value, its default, its help line and
//! how it sets [`ManagerOptions`]. Parsing, `--help`, the defaults and the optional clap integration all read
//! that table, so a flag is added in one place.
//!
//! [`ManagerOptions::parse`] reads the process's arguments with both Go's and GNU's spellings: `--flag=value`,
//! `--flag value`, `-flag`, and booleans bare (`--leader-elect`) or with `=true`/`=false` (also Go's `1`, `t`,
//! `F`, ...). `-h`/`--help` prints the flags and exits 0; a bad flag prints one line with a hint and exits 2.
//!
//! With the `clap` feature, `ManagerOptions` is a `clap::Args` made from the same table, so an operator with
//! flags of its own flattens it into its clap parser (`#[command(flatten)] manager: ManagerOptions`). Without
//! it, nothing of clap is compiled into the operator.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use crate::Error;

/// The flags every rkb operator accepts. Build with [`ManagerOptions::parse`] (the process's arguments),
/// [`ManagerOptions::try_parse_from`], or `..ManagerOptions::default()` in code.
#[derive(Clone, Debug)]
pub struct ManagerOptions {
    /// `--metrics-bind-address`: where /metrics listens; "0" disables it.
    pub metrics_bind_address: String,
    /// `--metrics-secure`: HTTPS with TokenReview/SubjectAccessReview; false serves plain HTTP.
    pub metrics_secure: bool,
    /// `--metrics-cert-path`: directory of the metrics certificate; without it a self-signed one is made.
    pub metrics_cert_path: Option<PathBuf>,
    /// `--metrics-cert-name`: the certificate's file name in the directory.
    pub metrics_cert_name: String,
    /// `--metrics-cert-key`: the key's file name in the directory.
    pub metrics_cert_key: String,
    /// `--health-probe-bind-address`: where /healthz and /readyz listen; "0" disables them.
    pub health_probe_bind_address: String,
    /// `--leader-elect`: only the Lease holder reconciles.
    pub leader_elect: bool,
    /// `--leader-election-id`: the Lease name (default: the name given to `Manager::builder`).
    pub leader_election_id: Option<String>,
    /// `--leader-election-namespace`: the Lease's namespace (default: the pod's, else the kubeconfig's).
    pub leader_election_namespace: Option<String>,
    /// `--leader-elect-lease-duration`.
    pub leader_elect_lease_duration: Duration,
    /// `--leader-elect-renew-deadline`.
    pub leader_elect_renew_deadline: Duration,
    /// `--leader-elect-retry-period`.
    pub leader_elect_retry_period: Duration,
    /// `--sharded`: the controllers built with `ControllerBuilder::sharded` run on every replica, each reconciling
    /// the objects of its shard (see the `shard` module); the others still run on the leader only.
    pub sharded: bool,
    /// `--shard-lease-duration`: how long a replica's shard Lease stays valid after its last renewal.
    pub shard_lease_duration: Duration,
    /// `--shard-identity`: this replica's name in the shard ring (default: POD_NAME, else the host name plus a
    /// random suffix).
    pub shard_identity: Option<String>,
    /// `--namespaced`: watch only WATCH_NAMESPACE's namespaces (a comma-separated list; see
    /// [`ManagerOptions::watch_namespaces`]).
    pub namespaced: bool,
    /// `--log-format`.
    pub log_format: LogFormat,
    /// `--webhook-port`: the port the webhook server listens on (all interfaces), when webhooks are served.
    pub webhook_port: u16,
    /// `--webhook-cert-path`: directory of the webhook server's certificate.
    pub webhook_cert_path: PathBuf,
    /// `--webhook-cert-name`: the certificate's file name in the directory.
    pub webhook_cert_name: String,
    /// `--webhook-cert-key`: the key's file name in the directory.
    pub webhook_cert_key: String,
    /// `--webhook-cert-secret`: the Secret in which the manager keeps a CA and serving certificate it makes, injects
    /// and rotates itself (see [`crate::webhook_certs`]); None: serve the files in --webhook-cert-path.
    pub webhook_cert_secret: Option<String>,
    /// `--webhook-ca-mutating`: MutatingWebhookConfigurations that get the CA bundle (with --webhook-cert-secret).
    pub webhook_ca_mutating: Vec<String>,
    /// `--webhook-ca-validating`: ValidatingWebhookConfigurations that get the CA bundle.
    pub webhook_ca_validating: Vec<String>,
    /// `--webhook-ca-crds`: CRDs whose conversion webhook gets the CA bundle.
    pub webhook_ca_crds: Vec<String>,
    /// `--webhook-cert-validity`: how long a CA and certificate the manager makes are valid.
    pub webhook_cert_validity: Duration,
    /// `--webhook-cert-renew-before`: a rotation starts when less than this is left.
    pub webhook_cert_renew_before: Duration,
    /// `--webhook-max-request-bytes`: the largest webhook request body read; a larger one gets 413.
    pub webhook_max_request_bytes: usize,
    /// `--webhook-max-in-flight-bytes`: what the webhook request bodies being read and decoded at once may total; a
    /// request that does not fit gets 429.
    pub webhook_max_in_flight_bytes: usize,
    /// `--enable-http2`: accepted for kubebuilder's command line; rkb serves HTTP/1.1 (and warns when true).
    pub enable_http2: bool,
    /// `--http-read-header-timeout`: how long a client of any listener may take to send a request's headers (and,
    /// over TLS, to finish the handshake).
    pub http_read_header_timeout: Duration,
    /// `--http-read-body-timeout`: how long a request body may take to arrive, where one is read (webhooks); 408
    /// after it.
    pub http_read_body_timeout: Duration,
    /// `--http-idle-timeout`: how long a keep-alive connection may wait for its next request.
    pub http_idle_timeout: Duration,
    /// `--http-max-header-bytes`: the largest request line and headers any listener reads; 431 beyond.
    pub http_max_header_bytes: usize,
    /// `--http-max-connections`: how many connections each listener holds at once; more are closed as accepted.
    pub http_max_connections: usize,
}

/// How log lines are rendered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LogFormat {
    /// Human-readable lines.
    #[default]
    Text,
    /// One JSON object per line.
    Json,
}

/// One command-line flag: everything about it in one place.
pub struct Flag {
    /// The name, without dashes.
    pub name: &'static str,
    /// The placeholder of its value in --help (`None`: a boolean, which may stand alone).
    pub value: Option<&'static str>,
    /// The value it has when not given ("" for none).
    pub default: &'static str,
    /// One line for --help.
    pub help: &'static str,
    /// Stores a value in the options, or says why it is not one.
    pub set: fn(&mut ManagerOptions, &str) -> Result<(), String>,
}

/// Every flag of [`ManagerOptions`], in --help order.
pub const FLAGS: &[Flag] = &[
    Flag {
        name: "metrics-bind-address",
        value: Some("ADDR"),
        default: "0",
        help: "The address the metrics endpoint binds to, e.g. \":8443\" or \"127.0.0.1:8080\"; \"0\" disables it.",
        set: |o, v| store(&mut o.metrics_bind_address, v),
    },
    Flag {
        name: "metrics-secure",
        value: None,
        default: "true",
        help: "Serve metrics over HTTPS to requests whose bearer token passes a TokenReview and a SubjectAccessReview; false serves plain HTTP to anyone.",
        set: |o, v| put(&mut o.metrics_secure, parse_bool(v)),
    },
    Flag {
        name: "metrics-cert-path",
        value: Some("DIR"),
        default: "",
        help: "Directory holding the metrics server's certificate and key; without it a self-signed one is made.",
        set: |o, v| {
            put(
                &mut o.metrics_cert_path,
                Ok((!v.is_empty()).then(|| PathBuf::from(v))),
            )
        },
    },
    Flag {
        name: "metrics-cert-name",
        value: Some("FILE"),
        default: "tls.crt",
        help: "File name of the metrics server's certificate (PEM) in --metrics-cert-path.",
        set: |o, v| store(&mut o.metrics_cert_name, v),
    },
    Flag {
        name: "metrics-cert-key",
        value: Some("FILE"),
        default: "tls.key",
        help: "File name of the metrics server's private key (PEM) in --metrics-cert-path.",
        set: |o, v| store(&mut o.metrics_cert_key, v),
    },
    Flag {
        name: "health-probe-bind-address",
        value: Some("ADDR"),
        default: ":8081",
        help: "The address the /healthz and /readyz endpoints bind to; \"0\" disables them.",
        set: |o, v| store(&mut o.health_probe_bind_address, v),
    },
    Flag {
        name: "leader-elect",
        value: None,
        default: "false",
        help: "Enable leader election, ensuring only one active manager reconciles.",
        set: |o, v| put(&mut o.leader_elect, parse_bool(v)),
    },
    Flag {
        name: "leader-election-id",
        value: Some("NAME"),
        default: "",
        help: "Name of the Lease used for leader election (default: the manager's name).",
        set: |o, v| {
            put(
                &mut o.leader_election_id,
                Ok((!v.is_empty()).then(|| v.to_string())),
            )
        },
    },
    Flag {
        name: "leader-election-namespace",
        value: Some("NAMESPACE"),
        default: "",
        help: "Namespace of the leader election Lease (default: the pod's namespace, else the kubeconfig's).",
        set: |o, v| {
            put(
                &mut o.leader_election_namespace,
                Ok((!v.is_empty()).then(|| v.to_string())),
            )
        },
    },
    Flag {
        name: "leader-elect-lease-duration",
        value: Some("DURATION"),
        default: "15s",
        help: "How long followers wait after the last observed renewal before taking the lease over.",
        set: |o, v| put(&mut o.leader_elect_lease_duration, parse_duration(v)),
    },
    Flag {
        name: "leader-elect-renew-deadline",
        value: Some("DURATION"),
        default: "10s",
        help: "How long the leader keeps retrying to renew before it gives leadership up.",
        set: |o, v| put(&mut o.leader_elect_renew_deadline, parse_duration(v)),
    },
    Flag {
        name: "leader-elect-retry-period",
        value: Some("DURATION"),
        default: "2s",
        help: "How often candidates try to acquire and the leader renews.",
        set: |o, v| put(&mut o.leader_elect_retry_period, parse_duration(v)),
    },
    Flag {
        name: "sharded",
        value: None,
        default: "false",
        help: "Split the objects of sharded controllers across all replicas (each holds a shard Lease; the leader assigns objects by consistent hashing); other controllers still run on the leader only.",
        set: |o, v| put(&mut o.sharded, parse_bool(v)),
    },
    Flag {
        name: "shard-lease-duration",
        value: Some("DURATION"),
        default: "15s",
        help: "With --sharded: how long a replica's shard Lease counts as held after its last renewal; a replica that stops renewing loses its objects after it.",
        set: |o, v| put(&mut o.shard_lease_duration, parse_duration(v)),
    },
    Flag {
        name: "shard-identity",
        value: Some("NAME"),
        default: "",
        help: "With --sharded: this replica's name in the shard ring (default: the POD_NAME environment variable, else the host name plus a random suffix).",
        set: |o, v| {
            put(
                &mut o.shard_identity,
                Ok((!v.is_empty()).then(|| v.to_string())),
            )
        },
    },
    Flag {
        name: "namespaced",
        value: None,
        default: "false",
        help: "Watch only the namespaces named by the WATCH_NAMESPACE environment variable (one, or several separated by commas).",
        set: |o, v| put(&mut o.namespaced, parse_bool(v)),
    },
    Flag {
        name: "log-format",
        value: Some("text|json"),
        default: "text",
        help: "Log output format.",
        set: |o, v| {
            o.log_format = match v {
                "text" => LogFormat::Text,
                "json" => LogFormat::Json,
                _ => return Err("expected text or json".into()),
            };
            Ok(())
        },
    },
    Flag {
        name: "webhook-port",
        value: Some("PORT"),
        default: "9443",
        help: "The port the webhook server listens on, when the operator serves webhooks.",
        set: |o, v| {
            put(
                &mut o.webhook_port,
                v.parse().map_err(|_| "expected a port number".to_string()),
            )
        },
    },
    Flag {
        name: "webhook-cert-path",
        value: Some("DIR"),
        default: "/tmp/k8s-webhook-server/serving-certs",
        help: "Directory holding the webhook server's certificate and key (reloaded when they change); without them, outside a pod a self-signed one (one year, renewed) is written there, and in a pod the manager does not start.",
        set: |o, v| put(&mut o.webhook_cert_path, Ok(PathBuf::from(v))),
    },
    Flag {
        name: "webhook-cert-name",
        value: Some("FILE"),
        default: "tls.crt",
        help: "File name of the webhook server's certificate (PEM) in --webhook-cert-path.",
        set: |o, v| store(&mut o.webhook_cert_name, v),
    },
    Flag {
        name: "webhook-cert-key",
        value: Some("FILE"),
        default: "tls.key",
        help: "File name of the webhook server's private key (PEM) in --webhook-cert-path.",
        set: |o, v| store(&mut o.webhook_cert_key, v),
    },
    Flag {
        name: "webhook-cert-secret",
        value: Some("NAME"),
        default: "",
        help: "Make, serve and rotate the webhook certificate in this Secret of the manager's namespace instead of reading --webhook-cert-path: the leader issues a CA and certificate, injects the CA into the objects named by --webhook-ca-*, and rotates both before expiry; every replica serves from the Secret.",
        set: |o, v| {
            put(
                &mut o.webhook_cert_secret,
                Ok((!v.is_empty()).then(|| v.to_string())),
            )
        },
    },
    Flag {
        name: "webhook-ca-mutating",
        value: Some("NAME[,NAME]"),
        default: "",
        help: "MutatingWebhookConfigurations whose webhooks get the CA bundle of --webhook-cert-secret (repeatable).",
        set: |o, v| append_names(&mut o.webhook_ca_mutating, v),
    },
    Flag {
        name: "webhook-ca-validating",
        value: Some("NAME[,NAME]"),
        default: "",
        help: "ValidatingWebhookConfigurations whose webhooks get the CA bundle of --webhook-cert-secret (repeatable).",
        set: |o, v| append_names(&mut o.webhook_ca_validating, v),
    },
    Flag {
        name: "webhook-ca-crds",
        value: Some("NAME[,NAME]"),
        default: "",
        help: "CustomResourceDefinitions whose conversion webhook gets the CA bundle of --webhook-cert-secret (repeatable).",
        set: |o, v| append_names(&mut o.webhook_ca_crds, v),
    },
    Flag {
        name: "webhook-cert-validity",
        value: Some("DURATION"),
        default: "8760h",
        help: "How long a CA and certificate made for --webhook-cert-secret are valid.",
        set: |o, v| put(&mut o.webhook_cert_validity, parse_duration(v)),
    },
    Flag {
        name: "webhook-cert-renew-before",
        value: Some("DURATION"),
        default: "720h",
        help: "How long before expiry the certificate of --webhook-cert-secret is rotated (new CA trusted first, then served, then the old one dropped).",
        set: |o, v| put(&mut o.webhook_cert_renew_before, parse_duration(v)),
    },
    Flag {
        name: "webhook-max-request-bytes",
        value: Some("BYTES"),
        default: "8Mi",
        help: "The largest webhook request body read (the API server sends objects of at most 3Mi); larger ones are answered 413 unread.",
        set: |o, v| put(&mut o.webhook_max_request_bytes, parse_bytes(v)),
    },
    Flag {
        name: "webhook-max-in-flight-bytes",
        value: Some("BYTES"),
        default: "16Mi",
        help: "What the webhook request bodies being read and decoded at once may total; a request that does not fit is answered 429.",
        set: |o, v| put(&mut o.webhook_max_in_flight_bytes, parse_bytes(v)),
    },
    Flag {
        name: "enable-http2",
        value: None,
        default: "false",
        help: "Accepted for kubebuilder's command line; the metrics and webhook servers speak HTTP/1.1 only.",
        set: |o, v| put(&mut o.enable_http2, parse_bool(v)),
    },
    Flag {
        name: "http-read-header-timeout",
        value: Some("DURATION"),
        default: "32s",
        help: "How long a client of the metrics, health and webhook servers may take to send a request's headers (and to finish a TLS handshake); the connection is closed after it.",
        set: |o, v| put(&mut o.http_read_header_timeout, parse_duration(v)),
    },
    Flag {
        name: "http-read-body-timeout",
        value: Some("DURATION"),
        default: "30s",
        help: "How long a webhook request's body may take to arrive (the API server waits at most 30s for a webhook); answered 408 after it.",
        set: |o, v| put(&mut o.http_read_body_timeout, parse_duration(v)),
    },
    Flag {
        name: "http-idle-timeout",
        value: Some("DURATION"),
        default: "90s",
        help: "How long a keep-alive connection to the metrics, health and webhook servers may wait for its next request.",
        set: |o, v| put(&mut o.http_idle_timeout, parse_duration(v)),
    },
    Flag {
        name: "http-max-header-bytes",
        value: Some("BYTES"),
        default: "1Mi",
        help: "The largest request line and headers the metrics, health and webhook servers read; larger ones are answered 431.",
        set: |o, v| put(&mut o.http_max_header_bytes, parse_bytes(v)),
    },
    Flag {
        name: "http-max-connections",
        value: Some("N"),
        default: "1024",
        help: "How many connections each of the metrics, health and webhook servers holds at once, TLS handshakes included. At the cap, the connection waiting longest without a request in progress is closed to admit a new one; when all are mid-request, new ones are closed as accepted.",
        set: |o, v| {
            put(
                &mut o.http_max_connections,
                v.parse()
                    .map_err(|_| "expected a number of connections".to_string()),
            )
        },
    },
];

/// Stores a parsed value in its field.
fn put<T>(field: &mut T, value: Result<T, String>) -> Result<(), String> {
    *field = value?;
    Ok(())
}

fn store(field: &mut String, value: &str) -> Result<(), String> {
    put(field, Ok(value.to_string()))
}

/// Adds the comma-separated names of a repeatable flag (an empty value adds none).
fn append_names(field: &mut Vec<String>, value: &str) -> Result<(), String> {
    field.extend(
        value
            .split(',')
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(String::from),
    );
    Ok(())
}

/// Go's strconv.ParseBool, which kubebuilder's flags use.
fn parse_bool(v: &str) -> Result<bool, String> {
    match v {
        "1" | "t" | "T" | "true" | "TRUE" | "True" => Ok(true),
        "0" | "f" | "F" | "false" | "FALSE" | "False" => Ok(false),
        _ => Err("expected true or false".into()),
    }
}

fn parse_duration(v: &str) -> Result<Duration, String> {
    humantime::parse_duration(v).map_err(|e| format!("{e} (write e.g. 15s, 500ms, 1m30s)"))
}

/// A size in bytes, plain or with a binary suffix as Kubernetes quantities write them: `1048576`, `512Ki`, `8Mi`,
/// `1Gi`.
fn parse_bytes(v: &str) -> Result<usize, String> {
    let (digits, unit) = match v.find(|c: char| !c.is_ascii_digit()) {
        Some(at) => v.split_at(at),
        None => (v, ""),
    };
    let shift = match unit {
        "" => Some(0),
        "Ki" => Some(10),
        "Mi" => Some(20),
        "Gi" => Some(30),
        _ => None,
    };
    shift
        .zip(digits.parse::<usize>().ok())
        .and_then(|(shift, n)| n.checked_mul(1 << shift))
        .ok_or_else(|| "expected a number of bytes, e.g. 1048576, 512Ki, 8Mi or 1Gi".into())
}

impl Default for ManagerOptions {
    /// Every flag at its default: the table's, so defaults live in one place.
    fn default() -> Self {
        let mut options = Self {
            metrics_bind_address: String::new(),
            metrics_secure: false,
            metrics_cert_path: None,
            metrics_cert_name: String::new(),
            metrics_cert_key: String::new(),
            health_probe_bind_address: String::new(),
            leader_elect: false,
            leader_election_id: None,
            leader_election_namespace: None,
            leader_elect_lease_duration: Duration::ZERO,
            leader_elect_renew_deadline: Duration::ZERO,
            leader_elect_retry_period: Duration::ZERO,
            sharded: false,
            shard_lease_duration: Duration::ZERO,
            shard_identity: None,
            namespaced: false,
            log_format: LogFormat::Text,
            webhook_port: 0,
            webhook_cert_path: PathBuf::new(),
            webhook_cert_name: String::new(),
            webhook_cert_key: String::new(),
            webhook_cert_secret: None,
            webhook_ca_mutating: Vec::new(),
            webhook_ca_validating: Vec::new(),
            webhook_ca_crds: Vec::new(),
            webhook_cert_validity: Duration::ZERO,
            webhook_cert_renew_before: Duration::ZERO,
            webhook_max_request_bytes: 0,
            webhook_max_in_flight_bytes: 0,
            enable_http2: false,
            http_read_header_timeout: Duration::ZERO,
            http_read_body_timeout: Duration::ZERO,
            http_idle_timeout: Duration::ZERO,
            http_max_header_bytes: 0,
            http_max_connections: 0,
        };
        for flag in FLAGS {
            (flag.set)(&mut options, flag.default).expect("every default parses");
        }
        options
    }
}

/// Why the command line gave no options ([`ManagerOptions::try_parse_from`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    /// `-h`/`--help`: the text to print (then exit 0).
    Help(String),
    /// A flag that does not exist, lacks its value or has a bad one: the message (then exit 2).
    Invalid(String),
}

impl std::fmt::Display for ParseError {
    /// The help text as it is; a bad flag as its message (which [`ManagerOptions::parse`] prints after `error: `).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParseError::Help(text) => f.write_str(text),
            ParseError::Invalid(message) => write!(f, "{message}"),
        }
    }
}

impl std::error::Error for ParseError {}

impl ManagerOptions {
    /// The options the process was started with. Prints the flags and exits 0 on `--help`; prints the problem
    /// and exits 2 on a bad flag. `about` heads the --help text.
    pub fn parse(about: &str) -> Self {
        let args: Vec<String> = std::env::args().collect();
        match Self::try_parse_from(about, args) {
            Ok(options) => options,
            Err(ParseError::Help(text)) => {
                print!("{text}");
                std::process::exit(0)
            }
            Err(ParseError::Invalid(message)) => {
                eprintln!("error: {message}\n\nFor the list of flags, try '--help'.");
                std::process::exit(2)
            }
        }
    }

    /// Parses `args` (the program name first).
    pub fn try_parse_from<I, T>(about: &str, args: I) -> Result<Self, ParseError>
    where
        I: IntoIterator<Item = T>,
        T: Into<String>,
    {
        let mut args = args.into_iter().map(Into::into);
        let program = args.next().unwrap_or_else(|| "manager".into());
        let mut options = Self::default();
        while let Some(arg) = args.next() {
            if matches!(arg.as_str(), "-h" | "--help" | "-help") {
                return Err(ParseError::Help(help(about, &program)));
            }
            let Some(spelled) = arg.strip_prefix("--").or_else(|| arg.strip_prefix('-')) else {
                return Err(ParseError::Invalid(format!(
                    "unexpected argument {arg:?}: the manager takes flags only"
                )));
            };
            let (name, inline) = match spelled.split_once('=') {
                Some((name, value)) => (name, Some(value.to_string())),
                None => (spelled, None),
            };
            let flag = find(name).map_err(ParseError::Invalid)?;
            let value = match (inline, flag.value) {
                (Some(value), _) => value,
                (None, None) => "true".to_string(),
                (None, Some(placeholder)) => args.next().ok_or_else(|| {
                    ParseError::Invalid(format!("--{name} needs a value: --{name} {placeholder}"))
                })?,
            };
            (flag.set)(&mut options, &value).map_err(|why| {
                ParseError::Invalid(format!("invalid value {value:?} for --{name}: {why}"))
            })?;
        }
        Ok(options)
    }
}

/// The flag called `name`, or an error that suggests the closest one.
fn find(name: &str) -> Result<&'static Flag, String> {
    if let Some(flag) = FLAGS.iter().find(|f| f.name == name) {
        return Ok(flag);
    }
    let closest = FLAGS
        .iter()
        .map(|f| (edit_distance(f.name, name), f.name))
        .min()
        .filter(|(distance, _)| *distance <= name.len().max(3) / 3);
    Err(match closest {
        Some((_, suggestion)) => format!("unknown flag --{name}; did you mean --{suggestion}?"),
        None => format!("unknown flag --{name}"),
    })
}

/// Levenshtein distance, for did-you-mean.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let next = (diagonal + usize::from(ca != *cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            diagonal = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// The --help text: `about`, usage, then one entry per flag with its default.
fn help(about: &str, program: &str) -> String {
    let program = std::path::Path::new(program)
        .file_name()
        .map_or_else(|| program.to_string(), |n| n.to_string_lossy().into_owned());
    let mut text = format!("{about}\n\nUsage: {program} [FLAGS]\n\nFlags:\n");
    for flag in FLAGS {
        let spelled = match flag.value {
            Some(placeholder) => format!("--{} {placeholder}", flag.name),
            None => format!("--{}[=true|false]", flag.name),
        };
        let default = if flag.default.is_empty() {
            String::new()
        } else {
            format!(" [default: {}]", flag.default)
        };
        text.push_str(&format!("  {spelled}\n          {}{default}\n", flag.help));
    }
    text.push_str("  -h, --help\n          Print this help.\n");
    text
}

#[cfg(feature = "clap")]
mod clap_args {
    //! `ManagerOptions` as clap arguments, built from [`super::FLAGS`].

    use clap::{Arg, ArgMatches, Command, FromArgMatches};

    use super::{FLAGS, ManagerOptions};

    impl FromArgMatches for ManagerOptions {
        fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
            let mut options = Self::default();
            options.update_from_arg_matches(matches)?;
            Ok(options)
        }

        fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
            for flag in FLAGS {
                if let Some(value) = matches.get_one::<String>(flag.name) {
                    (flag.set)(self, value).map_err(|why| {
                        clap::Error::raw(
                            clap::error::ErrorKind::InvalidValue,
                            format!("invalid value {value:?} for --{}: {why}\n", flag.name),
                        )
                    })?;
                }
            }
            Ok(())
        }
    }

    impl clap::Args for ManagerOptions {
        fn augment_args(command: Command) -> Command {
            FLAGS.iter().fold(command, |command, flag| {
                let mut arg = Arg::new(flag.name).long(flag.name).help(flag.help);
                arg = match flag.value {
                    Some(placeholder) => arg.value_name(placeholder),
                    None => arg
                        .num_args(0..=1)
                        .require_equals(true)
                        .default_missing_value("true"),
                };
                if !flag.default.is_empty() {
                    arg = arg.default_value(flag.default);
                }
                command.arg(arg)
            })
        }

        fn augment_args_for_update(command: Command) -> Command {
            Self::augment_args(command)
        }
    }
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
        self.validate_server_limits()?;
        if self.sharded {
            self.validate_sharding()?;
        }
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

    /// --sharded's settings: a Lease counts whole seconds, and the identity is part of a Lease name and a label
    /// value.
    fn validate_sharding(&self) -> Result<(), Error> {
        if self.shard_lease_duration < Duration::from_secs(1) {
            return Err(Error::InvalidOptions(
                "--shard-lease-duration must be at least 1s (a Lease counts whole seconds)".into(),
            ));
        }
        match &self.shard_identity {
            Some(identity) if !is_dns_label(identity) => Err(Error::InvalidOptions(format!(
                "--shard-identity={identity:?} is not a valid shard name: it names a Lease and is a label value, \
                 so write lowercase letters, digits and '-', at most 63, starting and ending with a letter or digit"
            ))),
            _ => Ok(()),
        }
    }

    /// The listeners' limits: each must allow something, and the webhook budget must hold its largest request.
    fn validate_server_limits(&self) -> Result<(), Error> {
        let invalid = |message: &str| Err(Error::InvalidOptions(message.into()));
        let timeouts = [
            ("--http-read-header-timeout", self.http_read_header_timeout),
            ("--http-read-body-timeout", self.http_read_body_timeout),
            ("--http-idle-timeout", self.http_idle_timeout),
        ];
        if let Some((flag, _)) = timeouts.iter().find(|(_, timeout)| timeout.is_zero()) {
            return invalid(&format!("{flag} must be positive"));
        }
        let counts = [
            ("--http-max-connections", self.http_max_connections),
            ("--http-max-header-bytes", self.http_max_header_bytes),
            (
                "--webhook-max-request-bytes",
                self.webhook_max_request_bytes,
            ),
        ];
        if let Some((flag, _)) = counts.iter().find(|(_, count)| *count == 0) {
            return invalid(&format!("{flag} must be positive"));
        }
        if self.webhook_max_request_bytes > self.webhook_max_in_flight_bytes {
            return invalid(
                "--webhook-max-in-flight-bytes must be at least --webhook-max-request-bytes, or the largest requests never fit",
            );
        }
        // The budget is a semaphore whose requests are counted in u32 permits.
        if u32::try_from(self.webhook_max_in_flight_bytes).is_err() {
            return invalid("--webhook-max-in-flight-bytes must be below 4Gi");
        }
        Ok(())
    }

    /// The certificates of --webhook-cert-secret and --webhook-ca-*, when the Secret is named.
    pub fn webhook_certificates(&self) -> Option<crate::webhook_certs::WebhookCertificates> {
        let secret = self.webhook_cert_secret.as_ref()?;
        Some(crate::webhook_certs::WebhookCertificates {
            mutating_configurations: self.webhook_ca_mutating.clone(),
            validating_configurations: self.webhook_ca_validating.clone(),
            crds: self.webhook_ca_crds.clone(),
            validity: self.webhook_cert_validity,
            renew_before: self.webhook_cert_renew_before,
            ..crate::webhook_certs::WebhookCertificates::new(secret)
        })
    }

    /// The namespaces to watch: WATCH_NAMESPACE's comma-separated list when --namespaced is set (one namespace or
    /// several, as controller-runtime's cache takes DefaultNamespaces); empty for all namespaces. An empty item, a
    /// name listed twice or a name that is no namespace name is an error that names the item.
    ///
    /// With several namespaces each controller runs one watch per namespace and kind (scope_watch.rs), and the
    /// manager needs list/watch rights in each namespace only: a Role and RoleBinding per namespace, no
    /// ClusterRole. Cluster-scoped kinds are still watched cluster-wide, with a ClusterRole.
    pub fn watch_namespaces(&self) -> Result<Vec<String>, Error> {
        if !self.namespaced {
            return Ok(Vec::new());
        }
        match std::env::var("WATCH_NAMESPACE") {
            Ok(list) if !list.trim().is_empty() => parse_namespace_list(&list),
            _ => Err(Error::InvalidOptions(
                "--namespaced needs the WATCH_NAMESPACE environment variable (one namespace, or several separated by commas)"
                    .into(),
            )),
        }
    }
}

/// WATCH_NAMESPACE's value as namespaces, in order: each item trimmed, none empty, none twice.
pub(crate) fn parse_namespace_list(list: &str) -> Result<Vec<String>, Error> {
    let invalid = |problem: String| {
        Err(Error::InvalidOptions(format!(
            "WATCH_NAMESPACE={list:?}: {problem}; write each namespace once, separated by commas (e.g. WATCH_NAMESPACE=team-a,team-b)"
        )))
    };
    let mut namespaces: Vec<String> = Vec::new();
    for (i, item) in list.split(',').map(str::trim).enumerate() {
        if item.is_empty() {
            return invalid(format!("item {} is empty", i + 1));
        }
        if let Some(first) = namespaces.iter().position(|ns| ns == item) {
            return invalid(format!(
                "namespace {item:?} is listed twice (items {} and {})",
                first + 1,
                i + 1
            ));
        }
        if !is_dns_label(item) {
            return invalid(format!(
                "item {} ({item:?}) is not a namespace name (lowercase letters, digits and '-', at most 63, starting and ending with a letter or digit)",
                i + 1
            ));
        }
        namespaces.push(item.to_string());
    }
    Ok(namespaces)
}

/// An RFC 1123 label, which every namespace name is.
pub(crate) fn is_dns_label(name: &str) -> bool {
    let alphanumeric = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit();
    name.len() <= 63
        && name.starts_with(alphanumeric)
        && name.ends_with(alphanumeric)
        && name.chars().all(|c| alphanumeric(c) || c == '-')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<ManagerOptions, ParseError> {
        ManagerOptions::try_parse_from("about", std::iter::once("m").chain(args.iter().copied()))
    }

    /// A bad command line's error, as it displays (its message).
    fn invalid(args: &[&str]) -> String {
        match parse(args) {
            Err(e @ ParseError::Invalid(_)) => e.to_string(),
            other => panic!("{args:?} parsed: {other:?}"),
        }
    }

    #[test]
    fn watch_namespace_lists_refuse_empty_items_duplicates_and_bad_names() {
        let message = |list: &str| match parse_namespace_list(list) {
            Err(Error::InvalidOptions(message)) => message,
            other => panic!("{list:?} parsed: {other:?}"),
        };
        assert_eq!(
            parse_namespace_list(" team-a, team-b ").unwrap(),
            ["team-a", "team-b"]
        );
        assert_eq!(parse_namespace_list("solo").unwrap(), ["solo"]);
        let hint =
            "write each namespace once, separated by commas (e.g. WATCH_NAMESPACE=team-a,team-b)";
        assert_eq!(
            message("a,,b"),
            format!("WATCH_NAMESPACE=\"a,,b\": item 2 is empty; {hint}")
        );
        assert_eq!(
            message("a,b,"),
            format!("WATCH_NAMESPACE=\"a,b,\": item 3 is empty; {hint}")
        );
        assert_eq!(
            message("a,b, a"),
            format!(
                "WATCH_NAMESPACE=\"a,b, a\": namespace \"a\" is listed twice (items 1 and 3); {hint}"
            )
        );
        assert_eq!(
            message("a,Team_B"),
            format!(
                "WATCH_NAMESPACE=\"a,Team_B\": item 2 (\"Team_B\") is not a namespace name (lowercase letters, digits and '-', at most 63, starting and ending with a letter or digit); {hint}"
            )
        );
    }

    #[test]
    fn defaults_match_kubebuilder() {
        let o = ManagerOptions::default();
        assert_eq!(o.metrics_bind_address, "0");
        assert!(o.metrics_secure);
        assert_eq!(o.metrics_cert_path, None);
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
        let o = parse(&[
            "--metrics-bind-address=:8443",
            "--leader-elect",
            "--leader-elect-lease-duration",
            "4s",
            "-leader-elect-renew-deadline=3s",
            "--leader-elect-retry-period=500ms",
            "--log-format=json",
            "--metrics-cert-path=/certs",
        ])
        .unwrap();
        assert!(o.leader_elect);
        assert_eq!(o.leader_elect_lease_duration, Duration::from_secs(4));
        assert_eq!(o.leader_elect_retry_period, Duration::from_millis(500));
        assert_eq!(o.log_format, LogFormat::Json);
        assert_eq!(o.metrics_cert_path, Some(PathBuf::from("/certs")));
        assert_eq!(
            parse_bind_address("x", &o.metrics_bind_address).unwrap(),
            Some("0.0.0.0:8443".parse().unwrap())
        );
        o.validate().unwrap();
    }

    #[test]
    fn booleans_take_go_style_values() {
        assert!(!parse(&["--metrics-secure=false"]).unwrap().metrics_secure);
        assert!(parse(&["--metrics-secure"]).unwrap().metrics_secure);
        assert!(parse(&["--leader-elect"]).unwrap().leader_elect);
        assert!(parse(&["--leader-elect=true"]).unwrap().leader_elect);
        assert!(parse(&["--leader-elect=T"]).unwrap().leader_elect);
        assert!(!parse(&["--leader-elect=0"]).unwrap().leader_elect);
        assert!(parse(&["-namespaced"]).unwrap().namespaced);
    }

    #[test]
    fn bad_flags_say_what_and_how() {
        assert_eq!(
            invalid(&["--leader-elct"]),
            "unknown flag --leader-elct; did you mean --leader-elect?"
        );
        assert_eq!(invalid(&["--verbose"]), "unknown flag --verbose");
        assert_eq!(
            invalid(&["--leader-elect-lease-duration"]),
            "--leader-elect-lease-duration needs a value: --leader-elect-lease-duration DURATION"
        );
        assert_eq!(
            invalid(&["--log-format=yaml"]),
            "invalid value \"yaml\" for --log-format: expected text or json"
        );
        assert_eq!(
            invalid(&["--leader-elect=maybe"]),
            "invalid value \"maybe\" for --leader-elect: expected true or false"
        );
        assert!(
            invalid(&["--leader-elect-retry-period=soon"])
                .starts_with("invalid value \"soon\" for --leader-elect-retry-period: ")
        );
        assert_eq!(
            invalid(&["extra"]),
            "unexpected argument \"extra\": the manager takes flags only"
        );
    }

    #[test]
    fn help_lists_every_flag_with_its_default() {
        let Err(ParseError::Help(text)) = parse(&["--leader-elect", "--help"]) else {
            panic!("--help gives the help text");
        };
        assert!(text.starts_with("about\n\nUsage: m [FLAGS]\n"), "{text}");
        for flag in FLAGS {
            assert!(
                text.contains(&format!("--{}", flag.name)),
                "{} missing:\n{text}",
                flag.name
            );
        }
        assert!(
            text.contains("--health-probe-bind-address ADDR\n"),
            "{text}"
        );
        assert!(text.contains("[default: :8081]"), "{text}");
        assert!(text.contains("--leader-elect[=true|false]\n"), "{text}");
    }

    #[cfg(feature = "clap")]
    #[test]
    fn flattens_into_an_operator_s_own_arguments() {
        use clap::Parser;

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
            "--leader-elect-retry-period=1s",
        ])
        .unwrap();
        assert!(a.extra && a.manager.leader_elect);
        assert_eq!(a.manager.health_probe_bind_address, ":9000");
        assert_eq!(a.manager.leader_elect_retry_period, Duration::from_secs(1));
        assert_eq!(
            a.manager.metrics_cert_name, "tls.crt",
            "defaults come from the table"
        );
        let defaults = Args::try_parse_from(["op"]).unwrap().manager;
        assert_eq!(
            format!("{defaults:?}"),
            format!("{:?}", ManagerOptions::default())
        );
        assert!(Args::try_parse_from(["op", "--log-format=yaml"]).is_err());
    }

    #[test]
    fn server_limits_default_to_controller_runtime_s_and_are_checked() {
        let o = ManagerOptions::default();
        assert_eq!(o.http_read_header_timeout, Duration::from_secs(32));
        assert_eq!(o.http_idle_timeout, Duration::from_secs(90));
        assert_eq!(o.http_max_header_bytes, 1 << 20);
        assert_eq!(o.http_read_body_timeout, Duration::from_secs(30));
        assert_eq!(o.http_max_connections, 1024);
        assert_eq!(
            (o.webhook_max_request_bytes, o.webhook_max_in_flight_bytes),
            (8 << 20, 16 << 20)
        );
        let o = parse(&[
            "--http-max-header-bytes=64Ki",
            "--webhook-max-request-bytes",
            "3145728",
            "--webhook-max-in-flight-bytes=1Gi",
            "--http-idle-timeout=5s",
        ])
        .unwrap();
        assert_eq!(o.http_max_header_bytes, 64 << 10);
        assert_eq!(o.webhook_max_request_bytes, 3 << 20);
        assert_eq!(o.webhook_max_in_flight_bytes, 1 << 30);
        assert_eq!(o.http_idle_timeout, Duration::from_secs(5));
        o.validate().unwrap();
        assert_eq!(
            invalid(&["--http-max-header-bytes=1MB"]),
            "invalid value \"1MB\" for --http-max-header-bytes: expected a number of bytes, e.g. 1048576, 512Ki, 8Mi or 1Gi"
        );
        let refused = |args: &[&str]| parse(args).unwrap().validate().unwrap_err().to_string();
        assert!(refused(&["--webhook-max-in-flight-bytes=4Mi"]).contains(
            "--webhook-max-in-flight-bytes must be at least --webhook-max-request-bytes"
        ));
        assert!(
            refused(&["--http-idle-timeout=0s"]).contains("--http-idle-timeout must be positive")
        );
        assert!(
            refused(&["--http-max-connections=0"])
                .contains("--http-max-connections must be positive")
        );
        assert!(
            refused(&["--webhook-max-in-flight-bytes=4Gi"])
                .contains("--webhook-max-in-flight-bytes must be below 4Gi")
        );
    }

    #[test]
    fn webhook_certificates_are_opt_in_and_checked() {
        assert_eq!(ManagerOptions::default().webhook_certificates(), None);
        // As config/webhook-certs passes them: each name a separate argument, kustomize's prefix applied.
        let o = parse(&[
            "--webhook-cert-secret",
            "cronjob-webhook-server-cert",
            "--webhook-ca-mutating",
            "cronjob-mutating-webhook-configuration",
            "--webhook-ca-crds=cronjobs.batch.tutorial.kubebuilder.io,other.example.com",
            "--webhook-ca-crds=third.example.com",
        ])
        .unwrap();
        let c = o.webhook_certificates().unwrap();
        assert_eq!(c.secret, "cronjob-webhook-server-cert");
        assert_eq!(
            c.mutating_configurations,
            ["cronjob-mutating-webhook-configuration"]
        );
        assert!(c.validating_configurations.is_empty());
        assert_eq!(
            c.crds,
            [
                "cronjobs.batch.tutorial.kubebuilder.io",
                "other.example.com",
                "third.example.com"
            ]
        );
        assert_eq!(
            (c.validity, c.renew_before),
            (
                Duration::from_secs(365 * 24 * 3600),
                Duration::from_secs(30 * 24 * 3600)
            )
        );
        c.validate().unwrap();
        let refused = |args: &[&str]| {
            parse(args)
                .unwrap()
                .webhook_certificates()
                .unwrap()
                .validate()
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            refused(&["--webhook-cert-secret=s"]),
            "invalid options: --webhook-cert-secret needs the objects to inject the CA into: --webhook-ca-mutating, \
             --webhook-ca-validating or --webhook-ca-crds"
        );
        assert_eq!(
            refused(&[
                "--webhook-cert-secret=s",
                "--webhook-ca-crds=c",
                "--webhook-cert-renew-before=1m"
            ]),
            "invalid options: --webhook-cert-renew-before must be below --webhook-cert-validity and leave time for \
             a rotation (propagation + grace + 4 resyncs)"
        );
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
    fn sharding_is_off_by_default_and_its_flags_are_checked() {
        let o = ManagerOptions::default();
        assert!(!o.sharded);
        assert_eq!(
            (o.shard_lease_duration, o.shard_identity),
            (Duration::from_secs(15), None)
        );
        let o = parse(&[
            "--sharded",
            "--leader-elect",
            "--shard-lease-duration=4s",
            "--shard-identity",
            "operator-7d9f-abcde",
        ])
        .unwrap();
        assert!(o.sharded && o.leader_elect);
        assert_eq!(o.shard_lease_duration, Duration::from_secs(4));
        assert_eq!(o.shard_identity.as_deref(), Some("operator-7d9f-abcde"));
        o.validate().unwrap();
        let refused = |args: &[&str]| parse(args).unwrap().validate().unwrap_err().to_string();
        assert_eq!(
            refused(&["--sharded", "--shard-lease-duration=500ms"]),
            "invalid options: --shard-lease-duration must be at least 1s (a Lease counts whole seconds)"
        );
        assert_eq!(
            refused(&["--sharded", "--shard-identity=Node_1"]),
            "invalid options: --shard-identity=\"Node_1\" is not a valid shard name: it names a Lease and is a \
             label value, so write lowercase letters, digits and '-', at most 63, starting and ending with a letter \
             or digit"
        );
        // Without --sharded the shard flags are not used, so not checked.
        parse(&["--shard-identity=Node_1"])
            .unwrap()
            .validate()
            .unwrap();
    }

    #[test]
    fn leader_timings_are_checked() {
        let o = parse(&[
            "--leader-elect",
            "--leader-elect-lease-duration=2s",
            "--leader-elect-renew-deadline=3s",
        ])
        .unwrap();
        assert!(o.validate().is_err());
    }
}
