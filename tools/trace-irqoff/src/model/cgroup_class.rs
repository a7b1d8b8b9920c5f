// SPDX-License-Identifier: GPL-2.0
//! What a record's cgroup path says its task ran in ([`Class`]), as the model keeps it;
//! `cgroup` (beside the model) resolves ids to paths and classifies them.

use serde::{Deserialize, Serialize};

/// What a cgroup path says its tasks run in.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Class {
    /// The root cgroup (kernel threads, and everything on a machine without a manager).
    Root,
    /// A systemd service (`nginx.service`), or a cgroup it delegates below it.
    Service { name: String },
    /// A systemd scope that is no container: a login session (`session-3.scope`), a
    /// transient unit.
    Scope { name: String },
    /// A systemd slice with no unit below it recognised (`user-1000.slice`).
    Slice { name: String },
    /// A container outside Kubernetes: `runtime` is docker, containerd, cri-o or podman.
    Container {
        runtime: String,
        container_id: String,
    },
    /// A Kubernetes pod (its UID, dashed as the API shows it), its QoS class
    /// (guaranteed, burstable, besteffort), and its container where the path goes down to
    /// one (the pod's own cgroup holds none).
    Kubernetes {
        pod_uid: String,
        qos: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        runtime: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        container_id: Option<String>,
    },
    /// None of the layouts above.
    Other,
}

impl Class {
    /// A short name for the views: the unit's name, the runtime and the container id's
    /// first 12 digits (as `docker ps` shows it), the pod's UID and its container's.
    pub fn label(&self, path: &str) -> String {
        match self {
            Class::Root => "/".to_string(),
            Class::Service { name } | Class::Scope { name } | Class::Slice { name } => name.clone(),
            Class::Container {
                runtime,
                container_id,
            } => format!("{runtime} {}", short_id(container_id)),
            Class::Kubernetes {
                pod_uid,
                container_id,
                ..
            } => match container_id {
                Some(id) => format!("pod {pod_uid} container {}", short_id(id)),
                None => format!("pod {pod_uid}"),
            },
            Class::Other => path.to_string(),
        }
    }
}

/// A container id's first 12 digits.
fn short_id(id: &str) -> &str {
    id.get(..12).unwrap_or(id)
}
