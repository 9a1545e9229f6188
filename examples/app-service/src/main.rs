// Copyright 2026 The app-service Authors.
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

//! The app-service manager: runs every controller of this project.

// mimalloc in place of the C library's malloc (rkb_runtime::allocator says why). To use the system allocator,
// delete these lines and the `mimalloc` feature in Cargo.toml.
#[global_allocator]
static ALLOCATOR: rkb_runtime::Allocator = rkb_runtime::Allocator;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    // kubebuilder's manager flags (--help lists them). For flags of your own, enable rkb-runtime's `clap`
    // feature and flatten `rkb_runtime::ManagerOptions` into a clap parser.
    let options = rkb_runtime::ManagerOptions::parse("Runs the app-service controllers");
    rkb_runtime::logging::init(options.log_format);
    let mgr = rkb_runtime::Manager::builder("app-service.example.com")
        .options(options)
        .build()
        .await?;
    mgr.add(app_service::controller::appservice_controller::controller);
    // rkb:scaffold:controllers (rkb create api registers each controller above this line)
    mgr.run().await?;
    Ok(())
}
