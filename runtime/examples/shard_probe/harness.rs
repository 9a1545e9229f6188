//! Running shard probe replicas as processes against one API server, and reading what they did: shared by
//! runtime/tests/sharding.rs and the probe's `--bench` mode.
//!
//! Contract: a [`Replica`] is one operator process (the shard probe binary) with its own shard identity, plain-HTTP
//! metrics on a loopback port it picks and prints, and its output in `<dir>/<name>.out`; dropping it kills the
//! process. Waits poll with deadlines ([`rkb_envtest::eventually`]); nothing sleeps a fixed time.

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::Duration;

use futures::{StreamExt as _, TryStreamExt as _};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{ListParams, PostParams};
use kube::{Api, Client, ResourceExt};
use rkb_envtest::eventually;

use crate::api::v1::{Probe, ProbeSpec};

/// The probe manager's name, which names the shard ring (its label is `shard.rkb.dev/shard-probe`) and the
/// leader-election Lease, unless `--leader-election-id` names them.
pub const RING: &str = "shard-probe";

/// Timing flags every replica of one run gets: short leases so a dead replica's objects move within seconds.
#[derive(Debug, Clone)]
pub struct Timing {
    pub lease: Duration,
    pub renew_deadline: Duration,
    pub retry: Duration,
}

impl Timing {
    fn flags(&self) -> Vec<String> {
        let ms = |d: Duration| format!("{}ms", d.as_millis());
        vec![
            format!("--leader-elect-lease-duration={}", ms(self.lease)),
            format!("--leader-elect-renew-deadline={}", ms(self.renew_deadline)),
            format!("--leader-elect-retry-period={}", ms(self.retry)),
            format!("--shard-lease-duration={}", ms(self.lease)),
        ]
    }
}

/// What all replicas of one run share.
#[derive(Debug, Clone)]
pub struct Fleet {
    /// The shard probe binary.
    pub binary: PathBuf,
    pub kubeconfig: PathBuf,
    /// Where the reconcile log and each replica's output go.
    pub dir: PathBuf,
    pub timing: Timing,
    /// `--work` of every replica.
    pub work: Duration,
    /// `--concurrency` of every replica.
    pub concurrency: u16,
}

impl Fleet {
    /// The shared reconcile log.
    pub fn log(&self) -> PathBuf {
        self.dir.join("reconciles.log")
    }
}

/// One operator process.
pub struct Replica {
    pub name: String,
    pub metrics: SocketAddr,
    child: Child,
}

impl Replica {
    /// Starts replica `name` and waits until it serves /metrics.
    pub async fn start(fleet: &Fleet, name: &str) -> Result<Self, String> {
        Self::start_with(fleet, name, &[]).await
    }

    /// [`Replica::start`] with further manager flags.
    pub async fn start_with(fleet: &Fleet, name: &str, flags: &[&str]) -> Result<Self, String> {
        let out_path = fleet.dir.join(format!("{name}.out"));
        let out =
            std::fs::File::create(&out_path).map_err(|e| format!("{}: {e}", out_path.display()))?;
        let err = out.try_clone().map_err(|e| e.to_string())?;
        let child = Command::new(&fleet.binary)
            .arg("--log-file")
            .arg(fleet.log())
            .arg(format!("--work={}ms", fleet.work.as_millis()))
            .arg(format!("--concurrency={}", fleet.concurrency))
            .args([
                "--sharded",
                "--leader-elect",
                "--leader-election-namespace=default",
                "--metrics-bind-address=127.0.0.1:0",
                "--metrics-secure=false",
                "--health-probe-bind-address=0",
            ])
            .arg(format!("--shard-identity={name}"))
            .args(fleet.timing.flags())
            .args(flags)
            .env("KUBECONFIG", &fleet.kubeconfig)
            .env(
                "RUST_LOG",
                std::env::var("RUST_LOG").unwrap_or_else(|_| "info".into()),
            )
            .stdout(Stdio::from(out))
            .stderr(Stdio::from(err))
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", fleet.binary.display()))?;
        let mut replica = Replica {
            name: name.to_string(),
            metrics: SocketAddr::from(([127, 0, 0, 1], 0)),
            child,
        };
        let started = eventually(
            &format!("{name} to print its metrics address"),
            Duration::from_secs(60),
            || {
                let text = std::fs::read_to_string(&out_path).unwrap_or_default();
                let exited = replica.child.try_wait();
                async move {
                    if let Ok(Some(status)) = exited {
                        return Err(format!("exited with {status}:\n{text}"));
                    }
                    Ok(text
                        .lines()
                        .find_map(|l| l.strip_prefix("metrics: "))
                        .and_then(|a| a.trim().parse::<SocketAddr>().ok()))
                }
            },
        )
        .await
        .map_err(|e| e.to_string())?;
        replica.metrics = started;
        Ok(replica)
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends `signal` (TERM, KILL, ...) with kill(1).
    pub fn signal(&self, signal: &str) -> Result<(), String> {
        let status = Command::new("kill")
            .args([format!("-{signal}"), self.pid().to_string()])
            .status()
            .map_err(|e| format!("kill: {e}"))?;
        status
            .success()
            .then_some(())
            .ok_or_else(|| format!("kill -{signal} {} failed", self.pid()))
    }

    /// Waits, at most `within`, for the process to end.
    pub async fn exit_status(&mut self, within: Duration) -> Result<ExitStatus, String> {
        let what = format!("{} to exit", self.name);
        let child = &mut self.child;
        eventually(&what, within, || {
            let exited = child.try_wait();
            async move { exited }
        })
        .await
        .map_err(|e| e.to_string())
    }

    /// SIGKILLs the process and reaps it: when this returns, it acts no more.
    pub async fn kill(&mut self) -> Result<(), String> {
        self.signal("KILL")?;
        self.exit_status(Duration::from_secs(10)).await.map(|_| ())
    }

    /// The replica's /metrics.
    pub async fn scrape(&self) -> Result<Scrape, String> {
        http_get(self.metrics, "/metrics").await.map(Scrape)
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A Prometheus text exposition.
#[derive(Debug, Clone)]
pub struct Scrape(pub String);

impl Scrape {
    /// The value of the sample `name` whose labels include every pair of `labels`.
    pub fn value(&self, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
        self.0.lines().find_map(|line| {
            let rest = line.strip_prefix(name)?;
            let (labels_text, value) = match rest.strip_prefix('{') {
                Some(rest) => rest.split_once("} ")?,
                None => ("", rest.strip_prefix(' ')?),
            };
            labels
                .iter()
                .all(|(k, v)| labels_text.contains(&format!("{k}=\"{v}\"")))
                .then(|| value.trim().parse().ok())?
        })
    }
}

impl Scrape {
    /// The sum of every sample of `name`, whatever its labels (0 without any).
    pub fn sum(&self, name: &str) -> f64 {
        self.0
            .lines()
            .filter(|line| {
                line.strip_prefix(name)
                    .is_some_and(|rest| rest.starts_with(['{', ' ']))
            })
            .filter_map(|line| line.rsplit_once(' ')?.1.parse::<f64>().ok())
            .sum()
    }
}

/// A plain HTTP/1.1 GET: the body of a 200 answer.
pub async fn http_get(addr: SocketAddr, path: &str) -> Result<String, String> {
    let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    let path = path.to_string();
    // Blocking std I/O on a blocking thread: a scrape is rare and small.
    tokio::task::spawn_blocking(move || {
        use std::io::{Read, Write};
        let mut stream = std::net::TcpStream::connect(addr).map_err(|e| format!("{addr}: {e}"))?;
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .map_err(|e| e.to_string())?;
        stream
            .write_all(request.as_bytes())
            .map_err(|e| e.to_string())?;
        let mut response = String::new();
        stream
            .read_to_string(&mut response)
            .map_err(|e| format!("{addr}{path}: {e}"))?;
        match response.split_once("\r\n\r\n") {
            Some((head, body)) if head.starts_with("HTTP/1.1 200") => Ok(body.to_string()),
            _ => Err(format!(
                "{addr}{path}: {}",
                response.lines().next().unwrap_or("")
            )),
        }
    })
    .await
    .map_err(|e| e.to_string())?
}

/// Probe `probe-<n>` in `namespace` (`new` fills in apiVersion and kind, which a create needs).
pub fn probe(namespace: &str, n: usize) -> Probe {
    let mut probe = Probe::new(
        &format!("probe-{n}"),
        ProbeSpec {
            payload: "0".to_string(),
        },
    );
    probe.metadata.namespace = Some(namespace.to_string());
    probe
}

/// Creates Probes `probe-0` .. `probe-<count - 1>`, 32 requests at a time.
pub async fn create_probes(
    client: &Client,
    namespace: &str,
    count: usize,
) -> Result<(), kube::Error> {
    let api: Api<Probe> = Api::namespaced(client.clone(), namespace);
    futures::stream::iter(0..count)
        .map(|n| {
            let api = api.clone();
            async move {
                api.create(&PostParams::default(), &probe(namespace, n))
                    .await
                    .map(|_| ())
            }
        })
        .buffer_unordered(32)
        .try_collect()
        .await
}

/// Each Probe's `namespace/name` and the replica its shard label names (None: unassigned), from the API server;
/// and the Probes the sharder asked to drain.
pub async fn assignments(
    client: &Client,
    namespace: &str,
) -> Result<(BTreeMap<String, Option<String>>, usize), kube::Error> {
    let api: Api<Probe> = Api::namespaced(client.clone(), namespace);
    let shard = rkb_runtime::shard::shard_label(RING);
    let drain = rkb_runtime::shard::drain_label(RING);
    let listed = api.list_metadata(&ListParams::default()).await?;
    let draining = listed
        .items
        .iter()
        .filter(|p| p.labels().contains_key(&drain))
        .count();
    let owners = listed
        .items
        .iter()
        .map(|p| {
            let key = format!("{namespace}/{}", p.name_any());
            (key, p.labels().get(&shard).cloned())
        })
        .collect();
    Ok((owners, draining))
}

/// How many child ConfigMaps the Probes have in `namespace`.
pub async fn children(client: &Client, namespace: &str) -> Result<usize, kube::Error> {
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), namespace);
    let listed = api.list_metadata(&ListParams::default()).await?;
    Ok(listed
        .items
        .iter()
        .filter(|c| c.owner_references().iter().any(|r| r.kind == "Probe"))
        .count())
}

/// Waits, at most `within`, until the ring is at rest on `members`: every Probe labelled with the member consistent
/// hashing over exactly these members gives it (the runtime's own `Ring`), none draining, and each member's
/// `rkb_shard_objects` equal to the Probes labelled with it. Returns the per-member counts.
pub async fn wait_balanced(
    client: &Client,
    namespace: &str,
    members: &[&Replica],
    within: Duration,
) -> Result<BTreeMap<String, usize>, String> {
    let names: Vec<&str> = members.iter().map(|r| r.name.as_str()).collect();
    let ring = rkb_runtime::shard::ring::Ring::new(&names);
    eventually(
        &format!("the ring to settle on {names:?}"),
        within,
        || async {
            let (owners, draining) = assignments(client, namespace)
                .await
                .map_err(|e| e.to_string())?;
            let misplaced = owners
                .iter()
                .filter(|(key, owner)| owner.is_none() || owner.as_deref() != ring.assign(key))
                .count();
            if draining > 0 || misplaced > 0 {
                // Not yet; the reason is what a timeout reports.
                return Err(format!(
                    "{misplaced} of {} Probes not where the ring puts them, {draining} draining",
                    owners.len()
                ));
            }
            let mut cached = BTreeMap::new();
            for replica in members {
                let scrape = replica.scrape().await?;
                let objects = scrape
                    .value("rkb_shard_objects", &[("shard", &replica.name)])
                    .unwrap_or(0.0);
                cached.insert(replica.name.clone(), objects as usize);
            }
            let assigned = |name: &str| {
                owners
                    .values()
                    .filter(|o| o.as_deref() == Some(name))
                    .count()
            };
            match cached.iter().find(|(name, n)| **n != assigned(name)) {
                Some((name, n)) => Err(format!(
                    "{name} caches {n} Probes but {} are labelled with it",
                    assigned(name)
                )),
                None => Ok(Some(cached)),
            }
        },
    )
    .await
    .map_err(|e| e.to_string())
}

/// Waits, at most `within`, until every Probe has its child.
pub async fn wait_children(
    client: &Client,
    namespace: &str,
    count: usize,
    within: Duration,
) -> Result<(), String> {
    eventually(&format!("{count} child ConfigMaps"), within, || async {
        Ok::<_, kube::Error>((children(client, namespace).await? == count).then_some(()))
    })
    .await
    .map_err(|e| e.to_string())
}

/// The holder of the leader-election Lease (the replica running the sharder).
pub async fn leader(client: &Client) -> Option<String> {
    let leases: Api<k8s_openapi::api::coordination::v1::Lease> =
        Api::namespaced(client.clone(), "default");
    leases
        .get_opt(RING)
        .await
        .ok()
        .flatten()?
        .spec?
        .holder_identity
}

/// Waits until some replica leads; its name.
pub async fn wait_leader(client: &Client, within: Duration) -> Result<String, String> {
    eventually("a leader", within, || async {
        Ok::<_, Infallible>(leader(client).await)
    })
    .await
    .map_err(|e| e.to_string())
}
