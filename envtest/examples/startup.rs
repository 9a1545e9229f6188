//! Start-to-ready benchmark: starts and stops an environment N times, prints each time and the
//! median. `cargo run -p rkb-envtest --example startup -- [N] [--controller-manager]`

use std::time::{Duration, Instant};

use rkb_envtest::Environment;

#[tokio::main]
async fn main() {
    if let Err(e) = run().await {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

async fn run() -> Result<(), rkb_envtest::Error> {
    let mut runs = 10usize;
    let mut with_kcm = false;
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--controller-manager" => with_kcm = true,
            n => {
                runs = n
                    .parse()
                    .expect("usage: startup [N] [--controller-manager]")
            }
        }
    }
    let mut times = Vec::with_capacity(runs);
    for i in 1..=runs {
        let mut builder = Environment::builder();
        if with_kcm {
            builder = builder.with_controller_manager();
        }
        let start = Instant::now();
        let env = builder.start().await?;
        let ready = start.elapsed();
        let stop = Instant::now();
        env.stop().await?;
        println!(
            "run {i}: ready in {:.2}s, stopped in {:.2}s",
            ready.as_secs_f64(),
            stop.elapsed().as_secs_f64()
        );
        times.push(ready);
    }
    times.sort();
    let median = times[times.len() / 2];
    let min = times.first().copied().unwrap_or(Duration::ZERO);
    let max = times.last().copied().unwrap_or(Duration::ZERO);
    println!(
        "start-to-ready over {runs} runs{}: median {:.2}s (min {:.2}s, max {:.2}s)",
        if with_kcm {
            " with kube-controller-manager"
        } else {
            ""
        },
        median.as_secs_f64(),
        min.as_secs_f64(),
        max.as_secs_f64()
    );
    Ok(())
}
