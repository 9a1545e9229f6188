// Copyright 2026 The microservice-deploy Authors.
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

//! The microservice-deploy manager: runs every controller of this project.

use clap::Parser;
use microservice_deploy::controller::microservicedeploy_controller::{Settings, controller_with};
use microservice_deploy::controller::namespace_defaults::NamespaceDefaults;

#[derive(Parser)]
#[command(name = "manager", about = "Runs the microservice-deploy controllers")]
struct Args {
    #[command(flatten)]
    manager: rkb_runtime::ManagerOptions,

    #[command(flatten)]
    namespace_defaults: NamespaceDefaults,

    /// How many MicroServiceDeploys reconcile at once (controller-runtime's MaxConcurrentReconciles).
    #[arg(long, default_value_t = 1)]
    max_concurrent_reconciles: u16,
}

// mimalloc in place of the C library's malloc: an operator allocates many small strings and maps per watch event
// (rkb_runtime::allocator says why and what it saves).
#[global_allocator]
static ALLOCATOR: rkb_runtime::Allocator = rkb_runtime::Allocator;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    rkb_runtime::logging::init(args.manager.log_format);
    let mgr = rkb_runtime::Manager::builder("microservice-deploy.ops")
        .options(args.manager)
        .build()
        .await?;
    let settings = Settings {
        namespace_defaults: args.namespace_defaults,
        concurrency: args.max_concurrent_reconciles,
    };
    mgr.add(move |ctx| controller_with(ctx, settings));
    // rkb:scaffold:controllers (rkb create api registers each controller above this line)
    mgr.run().await?;
    Ok(())
}
