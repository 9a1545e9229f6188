//! Prints what `rkb manifests` would write for a project: `cargo run -p rkb-manifests --example gen -- <root>`.
fn main() {
    let root = std::env::args().nth(1).unwrap_or_else(|| ".".into());
    let root = std::path::Path::new(&root);
    match rkb_manifests::generate(root, &rkb_manifests::Options::default()) {
        Ok(out) => {
            for w in &out.warnings {
                eprint!("{w}");
            }
            for c in &out.crds {
                println!("# {}", c.file_name);
                print!("{}", c.yaml);
            }
            if let Some(r) = &out.rbac {
                println!("# role.yaml");
                print!("{r}");
            }
        }
        Err(e) => {
            eprint!("{e}");
            std::process::exit(1);
        }
    }
}
