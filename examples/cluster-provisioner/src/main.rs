// Copyright 2026 The cluster-provisioner Authors.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

//! The cluster-provisioner manager: runs every controller of this project.

use std::path::PathBuf;
use std::time::Duration;

use clap::Parser;
use cluster_provisioner::controller::cluster_controller;
use cluster_provisioner::provisioner::Provisioner;

#[derive(Parser)]
#[command(name = "manager", about = "Runs the cluster-provisioner controllers")]
struct Args {
    #[command(flatten)]
    manager: rkb_runtime::ManagerOptions,

    /// The provisioner, run as `<command> up <configPath>` and `<command> remove <configPath>`
    /// (hack/fake-rke.sh to try it out).
    #[arg(long, env = "PROVISIONER_COMMAND", default_value = "rke")]
    provisioner_command: PathBuf,

    /// A provisioner run taking longer is killed and counts as failed.
    #[arg(long, default_value = "30m", value_parser = humantime::parse_duration)]
    provisioner_timeout: Duration,

    /// Clusters synced concurrently.
    #[arg(long, default_value_t = 1)]
    workers: usize,

    /// First retry delay of a failing Cluster; it doubles with each further failure.
    #[arg(long, default_value = "1s", value_parser = humantime::parse_duration)]
    retry_base_delay: Duration,

    /// Longest retry delay.
    #[arg(long, default_value = "5m", value_parser = humantime::parse_duration)]
    retry_max_delay: Duration,
}

// mimalloc in place of the C library's malloc (rkb_runtime::allocator says why). To use the system allocator,
// delete these lines and the `mimalloc` feature in Cargo.toml.
#[global_allocator]
static ALLOCATOR: rkb_runtime::Allocator = rkb_runtime::Allocator;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    rkb_runtime::logging::init(args.manager.log_format);
    let mut options = cluster_controller::Options::new(Provisioner::new(
        args.provisioner_command,
        args.provisioner_timeout,
    ));
    options.workers = args.workers;
    options.retry_base_delay = args.retry_base_delay;
    options.retry_max_delay = args.retry_max_delay;

    let mgr = rkb_runtime::Manager::builder("cluster-provisioner.rke.io")
        .options(args.manager)
        .build()
        .await?;
    mgr.add(move |ctx| cluster_controller::run(ctx, options));
    // rkb:scaffold:controllers (rkb create api registers each controller above this line)
    mgr.run().await?;
    Ok(())
}
