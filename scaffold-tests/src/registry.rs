//! rkb's crates as crates.io would serve them, on loopback: `cargo package` output behind a sparse registry.
//!
//! Contract:
//! - [`LocalRegistry::publish_workspace`] packages every publishable crate of the workspace with `cargo package`
//!   (which also builds each one from its .crate, as `cargo publish` does), writes their index entries as crates.io
//!   would (every dependency, rkb's own included, names crates.io as its registry), and serves index and crates on
//!   `127.0.0.1` until the test process ends. Nothing leaves the machine but crates.io requests for other crates.
//! - [`LocalRegistry::cargo_config`] is the `.cargo/config.toml` that makes cargo take rkb's crates from here:
//!   `[patch.crates-io]` entries naming this registry. Put it in a parent directory of a scaffolded project, so the
//!   project's own files stay exactly as `rkb init` wrote them.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use serde_json::{Value, json};

use crate::{run, target_dir, workspace_root};

const CRATES_IO_INDEX: &str = "https://github.com/rust-lang/crates.io-index";
/// The name projects use for this registry in their cargo configuration.
pub const REGISTRY_NAME: &str = "rkb-local";

/// A publishable crate: its name, version and `.crate` file.
#[derive(Debug, Clone)]
pub struct Packaged {
    pub name: String,
    pub version: String,
    pub file: PathBuf,
}

#[derive(Debug)]
pub struct LocalRegistry {
    pub crates: Vec<Packaged>,
    port: u16,
}

/// What the server answers with: path -> body.
type Files = BTreeMap<String, Vec<u8>>;

impl LocalRegistry {
    /// Packages the workspace's publishable crates (verified) and starts serving them.
    pub fn publish_workspace() -> Self {
        let metadata = workspace_metadata();
        let publishable: Vec<&Value> = metadata["packages"]
            .as_array()
            .expect("cargo metadata lists packages")
            .iter()
            .filter(|p| p["publish"].is_null())
            .collect();
        forget_cached_copies(&publishable);
        package(&publishable);
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
        let port = listener.local_addr().expect("bound").port();
        let mut files = Files::new();
        files.insert(
            "/index/config.json".into(),
            json!({ "dl": format!("http://127.0.0.1:{port}/crates/{{crate}}-{{version}}.crate") })
                .to_string()
                .into_bytes(),
        );
        let mut crates = Vec::new();
        for package in publishable {
            let packaged = Packaged {
                name: package["name"].as_str().expect("name").to_string(),
                version: package["version"].as_str().expect("version").to_string(),
                file: PathBuf::new(),
            };
            let file = package_dir()
                .join("package")
                .join(format!("{}-{}.crate", packaged.name, packaged.version));
            let bytes = std::fs::read(&file)
                .unwrap_or_else(|e| panic!("cargo package wrote no {}: {e}", file.display()));
            let entry = index_entry(package, &sha256(&file));
            files.insert(
                index_path(&packaged.name),
                format!("{entry}\n").into_bytes(),
            );
            files.insert(
                format!("/crates/{}-{}.crate", packaged.name, packaged.version),
                bytes,
            );
            crates.push(Packaged { file, ..packaged });
        }
        serve(listener, Arc::new(files));
        Self { crates, port }
    }

    /// Cargo configuration that takes every rkb crate from this registry instead of crates.io.
    pub fn cargo_config(&self) -> String {
        let mut config = format!(
            "[registries.{REGISTRY_NAME}]\nindex = \"sparse+http://127.0.0.1:{}/index/\"\n\n[patch.crates-io]\n",
            self.port
        );
        for c in &self.crates {
            config.push_str(&format!(
                "{} = {{ version = \"={}\", registry = \"{REGISTRY_NAME}\" }}\n",
                c.name, c.version
            ));
        }
        config
    }
}

fn workspace_metadata() -> Value {
    let out = run(Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--no-deps", "--locked"])
        .current_dir(workspace_root()));
    serde_json::from_str(&out).expect("cargo metadata prints JSON")
}

/// Removes the copies of these exact versions that earlier runs left in cargo's registry caches. cargo never
/// refreshes an extracted crate of the same name and version, so `cargo package`'s verification (which resolves the
/// workspace's crates through a local registry of its own) would compile yesterday's sources.
fn forget_cached_copies(packages: &[&Value]) {
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").expect("HOME is set")).join(".cargo")
        });
    for kind in ["src", "cache"] {
        let Ok(registries) = std::fs::read_dir(cargo_home.join("registry").join(kind)) else {
            continue;
        };
        for registry in registries.flatten() {
            for p in packages {
                let stem = format!(
                    "{}-{}",
                    p["name"].as_str().expect("name"),
                    p["version"].as_str().expect("version")
                );
                let _ = std::fs::remove_dir_all(registry.path().join(&stem));
                let _ = std::fs::remove_file(registry.path().join(format!("{stem}.crate")));
            }
        }
    }
}

/// Where `cargo package` verifies (builds each .crate alone) and leaves the .crate files.
fn package_dir() -> PathBuf {
    target_dir().join("package-verify")
}

/// `cargo package` for the given packages, verifying each builds from its .crate alone. The verification resolves
/// rkb's crates through a local registry of cargo's own, and cargo never rebuilds a registry crate it compiled
/// before (their sources are taken to be immutable), while ours change under the same name and version from run to
/// run: so verification gets a target dir of its own, and rkb's crates are cleaned out of it first (the crates.io
/// dependencies stay compiled there).
fn package(packages: &[&Value]) {
    let names: Vec<&str> = packages
        .iter()
        .map(|p| p["name"].as_str().expect("name"))
        .collect();
    let mut clean = Command::new(env!("CARGO"));
    clean
        .args(["clean", "--quiet", "--target-dir"])
        .arg(package_dir())
        .current_dir(workspace_root());
    let mut cmd = Command::new(env!("CARGO"));
    // --allow-dirty: the test checks what the working tree would publish, committed or not.
    cmd.args(["package", "--locked", "--allow-dirty", "--quiet"])
        .current_dir(workspace_root())
        .env("CARGO_TARGET_DIR", package_dir());
    for name in names {
        clean.args(["-p", name]);
        cmd.args(["-p", name]);
    }
    run(&mut clean);
    run(&mut cmd);
}

fn sha256(file: &Path) -> String {
    let out = run(Command::new("sha256sum").arg(file));
    out.split_whitespace().next().expect("a digest").to_string()
}

/// The index line crates.io would hold for `package` (cargo metadata's view of it). Dev-dependencies are left
/// out: dependents never resolve them.
fn index_entry(package: &Value, checksum: &str) -> Value {
    let deps: Vec<Value> = package["dependencies"]
        .as_array()
        .expect("dependencies")
        .iter()
        .filter(|d| d["kind"].as_str() != Some("dev"))
        .map(|d| {
            let renamed = d["rename"].as_str();
            json!({
                "name": renamed.unwrap_or_else(|| d["name"].as_str().expect("dep name")),
                "package": renamed.map(|_| d["name"].clone()),
                "req": d["req"],
                "features": d["features"],
                "optional": d["optional"],
                "default_features": d["uses_default_features"],
                "target": d["target"],
                "kind": d["kind"].as_str().unwrap_or("normal"),
                "registry": d["registry"].as_str().unwrap_or(CRATES_IO_INDEX),
            })
        })
        .collect();
    json!({
        "name": package["name"],
        "vers": package["version"],
        "deps": deps,
        "cksum": checksum,
        "features": {},
        // Version 2 entries carry `dep:` and `?` feature syntax in features2.
        "features2": package["features"],
        "v": 2,
        "yanked": false,
        "links": package["links"],
        "rust_version": package["rust_version"],
    })
}

/// Where the sparse protocol looks for a crate's index file.
fn index_path(name: &str) -> String {
    let name = name.to_lowercase();
    let prefix = match name.len() {
        1 => "1".to_string(),
        2 => "2".to_string(),
        3 => format!("3/{}", &name[..1]),
        _ => format!("{}/{}", &name[..2], &name[2..4]),
    };
    format!("/index/{prefix}/{name}")
}

/// Answers GET requests for `files` on `listener`, one thread per connection, until the process exits.
fn serve(listener: TcpListener, files: Arc<Files>) {
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let files = Arc::clone(&files);
            std::thread::spawn(move || answer(stream, &files));
        }
    });
}

fn answer(mut stream: TcpStream, files: &Files) {
    let mut reader = BufReader::new(&stream);
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).is_err() {
        return;
    }
    // Read the headers to their end; none of them matter here.
    let mut header = String::new();
    while reader.read_line(&mut header).is_ok_and(|n| n > 2) {
        header.clear();
    }
    let path = request_line.split_whitespace().nth(1).unwrap_or("/");
    let (status, body): (&str, &[u8]) = match files.get(path) {
        Some(body) => ("200 OK", body),
        None => ("404 Not Found", b"not found"),
    };
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body);
}

#[cfg(test)]
mod tests {
    use super::index_path;

    #[test]
    fn sparse_index_paths() {
        assert_eq!(index_path("a"), "/index/1/a");
        assert_eq!(index_path("ab"), "/index/2/ab");
        assert_eq!(index_path("rkb"), "/index/3/r/rkb");
        assert_eq!(index_path("rkb-runtime"), "/index/rk/b-/rkb-runtime");
        assert_eq!(index_path("Serde"), "/index/se/rd/serde");
    }
}
