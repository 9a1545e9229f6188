//! One module per command; `run` dispatches.

mod alpha;
mod api_conflicts;
mod completion;
mod core_kinds;
mod create_api;
mod create_webhook;
mod e2e_reconciled;
mod edit;
mod init;
mod listed_kinds;
mod manifests;
mod project_data;
mod runtime_source;
pub mod version;
mod webhook_files;

use std::process::ExitCode;

use anyhow::Result;

use crate::args::{AlphaCommand, Cli, Command, CreateCommand};

pub fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Init(args) => init::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Create(CreateCommand::Api(args)) => {
            create_api::run(&args).map(|()| ExitCode::SUCCESS)
        }
        Command::Create(CreateCommand::Webhook(args)) => {
            create_webhook::run(&args).map(|()| ExitCode::SUCCESS)
        }
        Command::Edit(args) => edit::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Manifests(args) => manifests::run(&args),
        Command::Alpha(AlphaCommand::Generate(args)) => {
            alpha::generate::run(&args).map(|()| ExitCode::SUCCESS)
        }
        Command::Alpha(AlphaCommand::Update(args)) => alpha::update::run(&args),
        Command::Version => {
            version::run(std::path::Path::new("."));
            Ok(ExitCode::SUCCESS)
        }
        Command::Completion { shell } => completion::run(shell).map(|()| ExitCode::SUCCESS),
    }
}
