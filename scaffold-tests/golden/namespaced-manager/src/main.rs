//! The app-operator manager: runs every controller of this project.

use clap::Parser;

#[derive(Parser)]
#[command(name = "manager", about = "Runs the app-operator controllers")]
struct Args {
    #[command(flatten)]
    manager: rkb_runtime::ManagerOptions,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    rkb_runtime::logging::init(args.manager.log_format);
    let mgr = rkb_runtime::Manager::builder("app-operator.example.com")
        .options(args.manager)
        .build()
        .await?;
    mgr.add(app_operator::controller::appservice_controller::controller);
    // rkb:scaffold:controllers (rkb create api registers each controller above this line)
    mgr.run().await?;
    Ok(())
}
