//! Rebuilds this crate when a template changes: `include_dir!` embeds the files, but on stable Rust cargo does not
//! learn of them, so an edited template would otherwise leave a stale `rkb` binary (and golden tests that pass on
//! the old text). A directory given to rerun-if-changed is scanned as a whole.

fn main() {
    for dir in ["init", "api", "webhook", "assets", "grafana", "helm"] {
        println!("cargo::rerun-if-changed={dir}");
    }
}
