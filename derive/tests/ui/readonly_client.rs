// +genclient:readonly: get, list and watch only; +genclient:nonNamespaced: no namespace argument.
use rkb_fixture_operator::api::testing::v1::{Sensor, SensorClient};
use rkb_runtime::client::{DeleteParams, PostParams};

async fn writes(client: rkb_runtime::kube::Client, s: Sensor) {
    let sensors = SensorClient::new(client.clone(), "default");
    let sensors = SensorClient::new(client);
    let _ = sensors.create(&s, &PostParams::default()).await;
    let _ = sensors.delete("s", &DeleteParams::default()).await;
}

fn main() {}
