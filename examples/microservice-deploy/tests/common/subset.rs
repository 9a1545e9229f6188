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

//! "The live object holds everything we applied": a JSON containment check. The API server adds defaults
//! (terminationMessagePath, clusterIP, ...), so live objects are compared with what was applied field by field:
//! every field of `expected` must be in `actual` with the same value, and lists must have the same length
//! (no extra containers, env vars, volumes or ports) with each item contained in its counterpart.

use serde_json::Value;

/// Ok when `actual` contains `expected`; otherwise the JSON path of the first difference and both values.
pub fn contains(actual: &Value, expected: &Value) -> Result<(), String> {
    walk(actual, expected, "")
}

fn walk(actual: &Value, expected: &Value, path: &str) -> Result<(), String> {
    match (actual, expected) {
        (Value::Object(a), Value::Object(e)) => {
            for (key, want) in e {
                let here = format!("{path}.{key}");
                match a.get(key) {
                    Some(got) => walk(got, want, &here)?,
                    None => return Err(format!("{here}: missing, want {want}")),
                }
            }
            Ok(())
        }
        (Value::Array(a), Value::Array(e)) => {
            if a.len() != e.len() {
                return Err(format!(
                    "{path}: {} items, want {}: got {actual}, want {expected}",
                    a.len(),
                    e.len()
                ));
            }
            for (i, (got, want)) in a.iter().zip(e).enumerate() {
                walk(got, want, &format!("{path}[{i}]"))?;
            }
            Ok(())
        }
        _ if actual == expected => Ok(()),
        _ => Err(format!("{path}: got {actual}, want {expected}")),
    }
}
