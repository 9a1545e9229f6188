//! The app-operator manager: runs every controller of this project.

// mimalloc in place of the C library's malloc (rkb_runtime::allocator says why). To use the system allocator,
// delete these lines and the `mimalloc` feature in Cargo.toml.
#[global_allocator]
static ALLOCATOR: rkb_runtime::Allocator = rkb_runtime::Allocator;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    // kubebuilder's manager flags (--help lists them). For flags of your own, enable rkb-runtime's `clap`
    // feature and flatten `rkb_runtime::ManagerOptions` into a clap parser.
    let options = rkb_runtime::ManagerOptions::parse("Runs the app-operator controllers");
    rkb_runtime::logging::init(options.log_format);
    let mgr = rkb_runtime::Manager::builder("app-operator.example.com")
        .options(options)
        .build()
        .await?;
    mgr.add(app_operator::controller::appservice_controller::controller);
    // rkb:scaffold:controllers (rkb create api registers each controller above this line)
    mgr.run().await?;
    Ok(())
}
