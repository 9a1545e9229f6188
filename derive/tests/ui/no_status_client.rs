// +genclient:noStatus: the typed client has no status verbs (Gadget and Cluster in the fixture).
use rkb_fixture_operator::api::clusterprovisioner::v1alpha1::{Cluster, ClusterClient};
use rkb_fixture_operator::api::testing::v1::{Gadget, GadgetClient};
use rkb_runtime::client::{ApplyOptions, PostParams};

async fn status_verbs(gadgets: GadgetClient, clusters: ClusterClient, g: Gadget, c: Cluster) {
    let _ = gadgets.update_status(&g, &PostParams::default()).await;
    let _ = gadgets.apply_status(&g, &ApplyOptions::default()).await;
    let _ = clusters.update_status(&c, &PostParams::default()).await;
}

fn main() {}
