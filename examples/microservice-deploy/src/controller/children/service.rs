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

//! The Service `<msName>`: port 9898 named http, selecting every pod of the microservice (app=<msName>).

use std::collections::BTreeMap;

use rkb_runtime::k8s_openapi::api::core::v1::{Service, ServicePort, ServiceSpec};
use rkb_runtime::k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use rkb_runtime::k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use super::{APP_LABEL, child_meta, labels};
use crate::api::v1::MicroServiceDeploy;

/// The port the microservice serves HTTP on (container and Service).
pub const HTTP_PORT: i32 = 9898;

/// Tells the gateway in front of the Service whether callers need tenant authentication ("true" / "false").
/// An annotation on the Service, because the Service is what the gateway routes to and reads.
pub const NEED_AUTH_ANNOTATION: &str = "app.ops.my.domain/need-auth";

/// The Service of `msd`, controlled by `owner`.
pub fn service(msd: &MicroServiceDeploy, owner: &OwnerReference) -> Service {
    let spec = &msd.spec;
    let mut metadata = child_meta(
        &spec.ms_name,
        msd.metadata.namespace.as_deref(),
        labels(Some(&spec.ms_name)),
        owner,
    );
    metadata.annotations = Some(BTreeMap::from([(
        NEED_AUTH_ANNOTATION.to_string(),
        spec.need_auth.to_string(),
    )]));
    Service {
        metadata,
        spec: Some(ServiceSpec {
            ports: Some(vec![ServicePort {
                name: Some("http".into()),
                port: HTTP_PORT,
                protocol: Some("TCP".into()),
                target_port: Some(IntOrString::Int(HTTP_PORT)),
                ..ServicePort::default()
            }]),
            selector: Some(BTreeMap::from([(
                APP_LABEL.to_string(),
                spec.ms_name.clone(),
            )])),
            ..ServiceSpec::default()
        }),
        status: None,
    }
}
