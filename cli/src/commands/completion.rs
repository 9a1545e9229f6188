//! `rkb completion bash|zsh|fish|powershell` (kubebuilder's four shells).

use anyhow::Result;
use clap::CommandFactory;
use clap_complete::{Shell as Target, generate};

use crate::args::{Cli, Shell};

pub fn run(shell: Shell) -> Result<()> {
    let target = match shell {
        Shell::Bash => Target::Bash,
        Shell::Zsh => Target::Zsh,
        Shell::Fish => Target::Fish,
        Shell::Powershell => Target::PowerShell,
    };
    generate(target, &mut Cli::command(), "rkb", &mut std::io::stdout());
    Ok(())
}
