// Copyright 2026 The kinds Authors.
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

//! The webhooks of Pod (k8s_openapi::api::core::v1::Pod, a kind this project does not define), served through
//! `webhook::webhooks()`.
//! `rkb manifests` turns the `+kubebuilder:webhook` markers below into config/webhook/manifests.yaml; the API
//! server calls the paths they name. `rkb create webhook` adds webhook types to this file at its
//! `rkb:scaffold:` lines and leaves the rest as you wrote it.

use rkb_runtime::webhook::Webhooks;
use rkb_runtime::webhook::{Defaulter, Denied};
// rkb:scaffold:webhook-imports (rkb create webhook adds the imports of new webhooks above this line)

use k8s_openapi::api::core::v1::Pod;

/// The webhooks of Pod, for `mgr.serve_webhooks(..)`.
pub fn webhooks() -> Webhooks {
    Webhooks::new().defaulter::<Pod, _>(PodCustomDefaulter)
    // rkb:scaffold:webhook-builders (rkb create webhook registers new webhooks above this line)
}

/// Sets defaults on Pod objects as they are created and updated: every Pod the API server admits passes
/// here, this operator's own included (narrow them with a kustomize patch adding a namespaceSelector or an
/// objectSelector to the configuration in config/webhook).
/// +kubebuilder:webhook:path=/mutate--v1-pod,mutating=true,failurePolicy=fail,sideEffects=None,groups="",resources=pods,verbs=create;update,versions=v1,name=mpod-v1.kb.io,admissionReviewVersions=v1
pub struct PodCustomDefaulter;

impl Defaulter<Pod> for PodCustomDefaulter {
    async fn set_defaults(&self, pod: &mut Pod) -> Result<(), Denied> {
        // TODO(user): set the fields a user may leave empty; what changes here is sent back as a JSON patch.
        let _ = pod;
        Ok(())
    }
}
// rkb:scaffold:webhook-impls (rkb create webhook adds new webhook types above this line)
