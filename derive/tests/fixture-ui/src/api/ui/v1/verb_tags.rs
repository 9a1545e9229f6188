// skipVerbs, onlyVerbs and noVerbs: the client lacks exactly the verbs the tags leave out.
use rkb_runtime::client::{DeleteParams, ListParams, PostParams};
use rkb_runtime::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::kube::Client;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// +genclient
/// +genclient:noStatus
/// +genclient:skipVerbs=watch,deleteCollection
/// +kubebuilder:object:root=true
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Skipped {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
}

/// +genclient
/// +genclient:onlyVerbs=get,create
/// +kubebuilder:object:root=true
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Only {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
}

/// +genclient
/// +genclient:noVerbs
/// +kubebuilder:object:root=true
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct NoVerbs {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
}

async fn calls(client: Client, s: Skipped, o: Only) {
    let (pp, dp, lp) = (
        PostParams::default(),
        DeleteParams::default(),
        ListParams::default(),
    );
    // The verbs left in compile.
    let skipped = SkippedClient::new(client.clone(), "default");
    let _ = skipped.create(&s, &pp).await;
    let _ = skipped.list(&lp).await;
    let _ = skipped.delete("s", &dp).await;
    let only = OnlyClient::new(client.clone(), "default");
    let _ = only.get("o").await;
    let _ = only.create(&o, &pp).await;
    // The verbs left out do not; without list and watch there is no lister or informer.
    let _ = skipped.delete_collection(&dp, &lp).await;
    let _ = SkippedLister::list;
    let _ = only.list(&lp).await;
    let _ = only.delete_collection(&dp, &lp).await;
    let _ = NoVerbsClient::new(client, "default");
}

fn main() {}
