// Copyright 2026 The demo Authors.
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

//! The webhooks of DemoMicroService (devops.my.domain/v1), served through `webhook::webhooks()`.
//! `rkb manifests` turns the `+kubebuilder:webhook` markers below into config/webhook/manifests.yaml; the API
//! server calls the paths they name. `rkb create webhook` adds webhook types to this file at its
//! `rkb:scaffold:` lines and leaves the rest as you wrote it.

use rkb_runtime::webhook::Webhooks;
use rkb_runtime::webhook::{Defaulter, Denied};
use rkb_runtime::webhook::{Validator, Verdict};
// rkb:scaffold:webhook-imports (rkb create webhook adds the imports of new webhooks above this line)

use crate::api::v1::DemoMicroService;

/// The webhooks of DemoMicroService, for `mgr.serve_webhooks(..)`.
pub fn webhooks() -> Webhooks {
    Webhooks::new()
        .defaulter::<DemoMicroService, _>(DemoMicroServiceCustomDefaulter)
        .validator::<DemoMicroService, _>(DemoMicroServiceCustomValidator)
    // rkb:scaffold:webhook-builders (rkb create webhook registers new webhooks above this line)
}

/// Sets defaults on DemoMicroService objects as they are created and updated.
/// +kubebuilder:webhook:path=/mutate-devops-my-domain-v1-demomicroservice,mutating=true,failurePolicy=fail,sideEffects=None,groups=devops.my.domain,resources=demomicroservices,verbs=create;update,versions=v1,name=mdemomicroservice-v1.kb.io,admissionReviewVersions=v1
pub struct DemoMicroServiceCustomDefaulter;

impl Defaulter<DemoMicroService> for DemoMicroServiceCustomDefaulter {
    async fn set_defaults(&self, demomicroservice: &mut DemoMicroService) -> Result<(), Denied> {
        // TODO(user): set the fields a user may leave empty; what changes here is sent back as a JSON patch.
        let _ = demomicroservice;
        Ok(())
    }
}

/// Validates DemoMicroService objects as they are created, updated and deleted. Warnings reach the client (kubectl prints
/// them); an `Err` refuses the request with its message.
/// +kubebuilder:webhook:path=/validate-devops-my-domain-v1-demomicroservice,mutating=false,failurePolicy=fail,sideEffects=None,groups=devops.my.domain,resources=demomicroservices,verbs=create;update,versions=v1,name=vdemomicroservice-v1.kb.io,admissionReviewVersions=v1
pub struct DemoMicroServiceCustomValidator;

impl Validator<DemoMicroService> for DemoMicroServiceCustomValidator {
    async fn validate_create(&self, demomicroservice: &DemoMicroService) -> Verdict {
        // TODO(user): refuse what must not be created, e.g. `return Err(Denied::new("spec.x must be set"));`
        let _ = demomicroservice;
        Ok(Vec::new())
    }

    async fn validate_update(&self, old: &DemoMicroService, new: &DemoMicroService) -> Verdict {
        // TODO(user): refuse changes that are not allowed, e.g. to immutable fields.
        let _ = (old, new);
        Ok(Vec::new())
    }

    async fn validate_delete(&self, demomicroservice: &DemoMicroService) -> Verdict {
        // Add `delete` to the marker's verbs for the API server to ask about deletes.
        let _ = demomicroservice;
        Ok(Vec::new())
    }
}
// rkb:scaffold:webhook-impls (rkb create webhook adds new webhook types above this line)
