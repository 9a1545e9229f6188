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
//! The raw-client rounds of the default benchmark: the same children written by a plain client (POST, or
//! server-side apply), and the requests an operator of this API adds, against which the rkb operator is set.

use std::time::{Duration, Instant};

use microservice_deploy::api::v1::{MicroServiceDeploy, MicroServiceDeployStatus};
use microservice_deploy::controller::microservicedeploy_controller::READY;
use rkb_runtime::kube::api::PostParams;
use rkb_runtime::{Api, Client};

use crate::operator::operator_round;
use crate::procfs::ControlPlaneCpu;
use crate::workload::{
    NamespacedKind, children_of, create, create_namespace, for_each_instance, instance,
    steady_state, warm_up,
};
use crate::{Impl, MANAGER, Reconciles, control_plane, median, verdict};

/// How the raw client writes.
#[derive(Clone, Copy)]
pub enum Write {
    /// POST: the cheapest way to make an object.
    Create,
    /// Server-side apply with the operator's field manager: what the operator sends.
    Apply,
}

pub async fn write<K>(client: &Client, namespace: &str, obj: &K, how: Write) -> anyhow::Result<()>
where
    K: NamespacedKind,
{
    match how {
        Write::Create => create(client, namespace, obj).await,
        Write::Apply => {
            let api = Api::<K>::namespaced(client.clone(), namespace);
            rkb_runtime::apply::apply(&api, obj, MANAGER).await?;
            Ok(())
        }
    }
}

/// The raw client: writes every child of every instance itself; returns the time to steady state.
pub async fn raw_round(
    client: &Client,
    count: usize,
    concurrency: usize,
    namespace: &str,
    how: Write,
) -> anyhow::Result<Duration> {
    create_namespace(client, namespace).await?;
    let cpu = ControlPlaneCpu::now();
    let started = Instant::now();
    let watch = steady_state(client, count, namespace);
    // `concurrency` instances at once, each writing its five objects together: what the operator does with
    // `concurrency` reconciles applying five children each.
    let creates = for_each_instance(count, concurrency, |i| async move {
        let c = children_of(i, namespace);
        tokio::try_join!(
            write(client, namespace, &c.service, how),
            write(client, namespace, &c.account, how),
            write(client, namespace, &c.config, how),
            write(client, namespace, &c.deployment, how),
            write(client, namespace, &c.hpa, how),
        )?;
        Ok(())
    });
    tokio::try_join!(watch, creates)?;
    let elapsed = started.elapsed();
    cpu.trace(namespace, None);
    Ok(elapsed)
}

/// What any operator of this API must send besides the children, without the children: each MicroServiceDeploy
/// POSTed (by its user) and its status written once (by the operator, as the operator writes it). Added to the raw
/// client's time it is a lower bound for the operator's.
pub async fn own_requests_round(
    client: &Client,
    count: usize,
    concurrency: usize,
    namespace: &str,
) -> anyhow::Result<Duration> {
    create_namespace(client, namespace).await?;
    warm_up(client, count).await?;
    let cpu = ControlPlaneCpu::now();
    let started = Instant::now();
    for_each_instance(count, concurrency, |i| async move {
        let created: MicroServiceDeploy = Api::namespaced(client.clone(), namespace)
            .create(&PostParams::default(), &instance(i, namespace))
            .await?;
        let ready = rkb_runtime::conditions::new_condition(
            READY,
            rkb_runtime::conditions::TRUE,
            "Reconciled",
            "Service, ServiceAccount, ConfigMap and Deployment applied, HPA applied",
            created.metadata.generation,
        );
        let mut status = MicroServiceDeployStatus {
            observed_generation: created.metadata.generation,
            ..MicroServiceDeployStatus::default()
        };
        status.conditions.push(ready);
        let patch = MicroServiceDeploy {
            status: Some(status),
            ..created
        };
        let api = Api::namespaced(client.clone(), namespace);
        rkb_runtime::apply::apply_status(&api, &patch, MANAGER).await?;
        Ok(())
    })
    .await?;
    let elapsed = started.elapsed();
    cpu.trace(namespace, None);
    Ok(elapsed)
}

pub async fn bench(
    count: usize,
    rounds: usize,
    concurrency: usize,
    reconciles: Reconciles,
) -> anyhow::Result<()> {
    println!(
        "{count} MicroServiceDeploys (5 children each), concurrency {concurrency}, {rounds} rounds"
    );
    println!(
        "raw create = POST each child; raw apply = server-side apply each child (what the operator sends);"
    );
    println!(
        "own = only the MicroServiceDeploy POSTs and status writes; floor = (raw create + own) / raw create"
    );
    println!(
        "round  raw create  raw apply      own  operator  operator/create  operator/apply  floor  operator peak RSS"
    );
    let (mut created, mut applied, mut own, mut op, mut rss) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for round in 0..rounds {
        let env = control_plane().await?;
        let c = raw_round(
            &env.client(),
            count,
            concurrency,
            "raw-create",
            Write::Create,
        )
        .await?;
        env.stop().await?;
        let env = control_plane().await?;
        let a = raw_round(&env.client(), count, concurrency, "raw-apply", Write::Apply).await?;
        env.stop().await?;
        let env = control_plane().await?;
        let w = own_requests_round(&env.client(), count, concurrency, "own").await?;
        env.stop().await?;
        let mut env = control_plane().await?;
        let sizes = (count, concurrency);
        let (measured, running) =
            operator_round(&mut env, sizes, (Impl::Rkb, reconciles), None, "operator").await?;
        running.stop().await?;
        let (o, peak) = (measured.wall, measured.peak_rss);
        env.stop().await?;
        let (c, a, w, o) = (
            c.as_secs_f64(),
            a.as_secs_f64(),
            w.as_secs_f64(),
            o.as_secs_f64(),
        );
        let mib = peak as f64 / (1024.0 * 1024.0);
        println!(
            "{round:>5}  {c:>9.2}s  {a:>8.2}s  {w:>6.2}s  {o:>7.2}s  {:>15.2}  {:>14.2}  {:>5.2}  {mib:>13.1} MiB",
            o / c,
            o / a,
            (c + w) / c
        );
        created.push(c);
        applied.push(a);
        own.push(w);
        op.push(o);
        rss.push(mib);
    }
    let ratios = |base: &[f64]| -> Vec<f64> { base.iter().zip(&op).map(|(b, o)| o / b).collect() };
    let floors: Vec<f64> = created.iter().zip(&own).map(|(c, w)| (c + w) / c).collect();
    let (rc, ra, rf) = (
        median(ratios(&created)),
        median(ratios(&applied)),
        median(floors),
    );
    let (c, a, w, o) = (median(created), median(applied), median(own), median(op));
    let peak = rss.iter().copied().fold(0.0, f64::max);
    let mib = median(rss);

    println!(
        "median {c:>9.2}s  {a:>8.2}s  {w:>6.2}s  {o:>7.2}s  {rc:>15.2}  {ra:>14.2}  {rf:>5.2}  {mib:>13.1} MiB (max {peak:.1})"
    );
    println!(
        "targets: operator <= 1.30 x raw create {}, <= 1.30 x raw apply {}, peak RSS <= 40 MB {}",
        verdict(rc <= 1.3),
        verdict(ra <= 1.3),
        verdict(peak * 1.048_576 <= 40.0)
    );
    Ok(())
}
