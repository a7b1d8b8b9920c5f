// SPDX-License-Identifier: GPL-2.0
//! The culprit's container: the module gives each record the cgroup v2 id of its task
//! (the inode number of the cgroup's directory on a cgroup2 mount); this resolves the id
//! to the cgroup's path ([`Resolver`]) and recognises what the path says the task ran in
//! ([`classify`]): a systemd service, scope or slice, a container of docker, containerd,
//! CRI-O or podman, a Kubernetes pod and its container.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::model::snapshot::Record;

pub use crate::model::cgroup_class::Class;

/// Whether `s` is a full container id: 64 hex digits.
fn is_container_id(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Whether `s` is a pod UID as the API writes it (8-4-4-4-12 hex digits).
fn is_uid(s: &str) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    parts.iter().map(|p| p.len()).eq([8, 4, 4, 4, 12])
        && parts
            .iter()
            .all(|p| p.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The runtime and container id a cgroup directory name carries: `docker-ID.scope`,
/// `cri-containerd-ID.scope`, `crio-ID.scope`, `libpod-ID.scope` (systemd driver),
/// `RUNTIME:PREFIX:ID` (containerd's systemd form inside a slice), or the bare id
/// (cgroupfs driver; its runtime from the parent directory, where that names one).
fn container_in(name: &str, parent: Option<&str>) -> Option<(String, String)> {
    const PREFIXES: [(&str, &str); 5] = [
        ("docker-", "docker"),
        ("cri-containerd-", "containerd"),
        ("crio-", "cri-o"),
        ("libpod-", "podman"),
        ("nerdctl-", "containerd"),
    ];
    let runtime_of = |prefix: &str| {
        PREFIXES
            .iter()
            .find(|(p, _)| p.trim_end_matches('-') == prefix)
            .map(|(_, r)| r.to_string())
    };
    if let Some(stem) = name.strip_suffix(".scope") {
        for (prefix, runtime) in PREFIXES {
            if let Some(id) = stem.strip_prefix(prefix).filter(|id| is_container_id(id)) {
                return Some((runtime.to_string(), id.to_string()));
            }
        }
        return None;
    }
    let parts: Vec<&str> = name.split(':').collect();
    if let [_, prefix, id] = parts[..] {
        if is_container_id(id) {
            return Some((
                runtime_of(prefix).unwrap_or_else(|| prefix.to_string()),
                id.to_string(),
            ));
        }
    }
    if is_container_id(name) {
        let runtime = match parent {
            Some("docker") => "docker",
            Some("libpod_parent") => "podman",
            _ => "containerd",
        };
        return Some((runtime.to_string(), name.to_string()));
    }
    None
}

/// The pod UID a cgroup directory name carries: `podUID` (cgroupfs driver) or
/// `kubepods[-QOS]-podUID_WITH_UNDERSCORES.slice` (systemd driver).
fn pod_in(name: &str) -> Option<String> {
    let name = name.split(':').next().unwrap_or(name);
    if let Some(uid) = name.strip_prefix("pod").filter(|u| is_uid(u)) {
        return Some(uid.to_string());
    }
    let stem = name.strip_prefix("kubepods")?.strip_suffix(".slice")?;
    let (_, uid) = stem.rsplit_once("-pod")?;
    let uid = uid.replace('_', "-");
    is_uid(&uid).then_some(uid)
}

/// What the cgroup at `path` (relative to the cgroup2 root, `/` first) holds.
pub fn classify(path: &str) -> Class {
    let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    if parts.is_empty() {
        return Class::Root;
    }
    if let Some(i) = parts.iter().position(|p| pod_in(p).is_some()) {
        let pod_uid = pod_in(parts[i]).unwrap_or_default();
        let qos = ["besteffort", "burstable"]
            .into_iter()
            .find(|q| {
                parts[..=i]
                    .iter()
                    .any(|p| *p == *q || p.starts_with(&format!("kubepods-{q}")))
            })
            .unwrap_or("guaranteed")
            .to_string();
        // The container: below the pod, or in the pod's own name (`pod.slice:cri-containerd:ID`).
        let container = parts[i..]
            .iter()
            .enumerate()
            .find_map(|(k, p)| container_in(p, (k > 0).then(|| parts[i + k - 1])));
        let (runtime, container_id) = container.map_or((None, None), |(r, c)| (Some(r), Some(c)));
        return Class::Kubernetes {
            pod_uid,
            qos,
            runtime,
            container_id,
        };
    }
    let last = parts.len() - 1;
    if let Some((runtime, container_id)) =
        container_in(parts[last], last.checked_sub(1).map(|i| parts[i]))
    {
        return Class::Container {
            runtime,
            container_id,
        };
    }
    if let Some(name) = parts.iter().rev().find(|p| p.ends_with(".service")) {
        return Class::Service {
            name: name.to_string(),
        };
    }
    if parts[last].ends_with(".scope") {
        return Class::Scope {
            name: parts[last].to_string(),
        };
    }
    if let Some(name) = parts.iter().rev().find(|p| p.ends_with(".slice")) {
        return Class::Slice {
            name: name.to_string(),
        };
    }
    Class::Other
}

/// The cgroup2 mount in a mountinfo text: where it is mounted, and the cgroup path of
/// its root (not `/` in a cgroup namespace or for a bind mount of a subtree).
pub fn cgroup2_mount(mountinfo: &str) -> Option<(String, String)> {
    mountinfo.lines().find_map(|l| {
        let (left, right) = l.split_once(" - ")?;
        if right.split(' ').next() != Some("cgroup2") {
            return None;
        }
        let f: Vec<&str> = left.split(' ').collect();
        Some((unescape_octal(f.get(4)?), unescape_octal(f.get(3)?)))
    })
}

/// Undoes mountinfo's `\040`-style escapes of space, tab, newline and backslash.
fn unescape_octal(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let oct = b
            .get(i + 1..i + 4)
            .filter(|d| b[i] == b'\\' && d.iter().all(|c| (b'0'..=b'7').contains(c)));
        match oct {
            Some(d) => {
                out.push(
                    d.iter()
                        .fold(0u8, |a, c| a.wrapping_mul(8).wrapping_add(c - b'0')),
                );
                i += 4;
            }
            None => {
                out.push(b[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Cgroup ids to paths, by the inode numbers of the cgroup2 mount's directories.
pub struct Resolver {
    /// The mount's directory, and the cgroup path of its root.
    mount: PathBuf,
    base: String,
    /// Paths by id, filled by one walk, when first asked.
    paths: Option<HashMap<u64, String>>,
}

impl Resolver {
    /// The cgroup2 mount of the system whose proc file system is at `proc_root` (its
    /// `self/mountinfo`; the mount point is taken under the proc root's parent, `/` for
    /// `/proc`, so a fake tree in tests has its own). `None` without such a mount.
    pub fn new(proc_root: &Path) -> Option<Self> {
        let text = std::fs::read_to_string(proc_root.join("self/mountinfo")).ok()?;
        let (point, base) = cgroup2_mount(&text)?;
        let system = proc_root.parent().unwrap_or(Path::new("/"));
        Some(Self {
            mount: system.join(point.trim_start_matches('/')),
            base,
            paths: None,
        })
    }

    /// The path of cgroup `id`, `/` first; `None` if no directory has it (the cgroup
    /// was removed since).
    pub fn path(&mut self, id: u64) -> Option<String> {
        let (mount, base) = (&self.mount, &self.base);
        let paths = self.paths.get_or_insert_with(|| walk(mount, base));
        paths.get(&id).cloned()
    }
}

/// Every directory under `mount` by inode number, as cgroup paths under `base`.
fn walk(mount: &Path, base: &str) -> HashMap<u64, String> {
    use std::os::unix::fs::MetadataExt;
    let mut paths = HashMap::new();
    let mut todo = vec![(mount.to_path_buf(), base.trim_end_matches('/').to_string())];
    while let Some((dir, path)) = todo.pop() {
        let Ok(meta) = std::fs::metadata(&dir) else {
            continue;
        };
        paths.insert(
            meta.ino(),
            if path.is_empty() {
                "/".into()
            } else {
                path.clone()
            },
        );
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                let name = e.file_name().to_string_lossy().into_owned();
                todo.push((e.path(), format!("{path}/{name}")));
            }
        }
    }
    paths
}

/// Fills in the path, class and gone-ness of each record's cgroup id not looked up yet,
/// looked up on the system of `proc_root` (nothing without a cgroup2 mount there).
pub fn resolve(proc_root: &Path, records: &mut [Record]) {
    let todo = |r: &Record| r.cgroup_id.is_some() && r.cgroup.is_none() && !r.cgroup_gone;
    if !records.iter().any(todo) {
        return;
    }
    let Some(mut resolver) = Resolver::new(proc_root) else {
        return;
    };
    for r in records.iter_mut().filter(|r| todo(r)) {
        let Some(id) = r.cgroup_id.filter(|&id| id != 0) else {
            continue;
        };
        match resolver.path(id) {
            Some(p) => {
                r.cgroup_class = Some(classify(&p));
                r.cgroup = Some(p);
            }
            None => r.cgroup_gone = true,
        }
    }
}

/// How the views name a record's cgroup: its path, `cgroup N (gone)` when it was looked
/// up and no longer exists, `cgroup N` when it could not be looked up (no cgroup2 mount,
/// or a file read elsewhere); `None` when the module gave none.
pub fn shown(r: &Record) -> Option<String> {
    let id = r.cgroup_id?;
    Some(match (&r.cgroup, r.cgroup_gone) {
        (Some(p), _) => p.clone(),
        (None, true) => format!("cgroup {id} (gone)"),
        (None, false) => format!("cgroup {id}"),
    })
}

/// A record's cgroup in a few words, for one-line views: what its path says
/// (`nginx.service`, `docker 0123456789ab`, the pod and container), the path where it
/// says nothing known, else as [`shown`].
pub fn short(r: &Record) -> Option<String> {
    match (&r.cgroup, &r.cgroup_class) {
        (Some(p), Some(c)) => Some(c.label(p)),
        _ => shown(r),
    }
}

/// [`shown`] with what the path says, for the views: `/system.slice/nginx.service
/// (nginx.service)`; the path alone where the label would repeat it.
pub fn described(r: &Record) -> Option<String> {
    let text = shown(r)?;
    Some(match (&r.cgroup, &r.cgroup_class) {
        (Some(p), Some(c)) if !matches!(c, Class::Root | Class::Other) => {
            format!("{p} ({})", c.label(p))
        }
        _ => text,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A Kubernetes class, as the assertions below spell it.
    fn k8s(pod_uid: &str, qos: &str, runtime: Option<&str>, container_id: Option<&str>) -> Class {
        Class::Kubernetes {
            pod_uid: pod_uid.into(),
            qos: qos.into(),
            runtime: runtime.map(Into::into),
            container_id: container_id.map(Into::into),
        }
    }

    const ID: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    /// Claim: systemd units are named by the unit that holds the task: its service, its
    /// scope, else its slice; the root is the root.
    #[test]
    fn systemd_units() {
        assert_eq!(
            classify("/system.slice/nginx.service"),
            Class::Service {
                name: "nginx.service".into()
            }
        );
        assert_eq!(
            classify("/user.slice/user-1000.slice/session-3.scope"),
            Class::Scope {
                name: "session-3.scope".into()
            }
        );
        assert_eq!(
            classify("/user.slice/user-1000.slice"),
            Class::Slice {
                name: "user-1000.slice".into()
            }
        );
        // A service's delegated subtree is still the service.
        assert_eq!(
            classify("/user.slice/user-1000.slice/user@1000.service/app.slice/foo.service"),
            Class::Service {
                name: "foo.service".into()
            }
        );
        assert_eq!(classify("/"), Class::Root);
        assert_eq!(
            classify("/init.scope"),
            Class::Scope {
                name: "init.scope".into()
            }
        );
        assert_eq!(classify("/my/own/group"), Class::Other);
    }

    /// Claim: docker containers are recognised with the systemd driver and with cgroupfs,
    /// with their full id; the label shows its first 12 digits.
    #[test]
    fn docker_both_drivers() {
        let want = Class::Container {
            runtime: "docker".into(),
            container_id: ID.into(),
        };
        assert_eq!(classify(&format!("/system.slice/docker-{ID}.scope")), want);
        assert_eq!(classify(&format!("/docker/{ID}")), want);
        assert_eq!(want.label(""), "docker 0123456789ab");
        // Not a full id: not a container.
        assert_eq!(
            classify("/system.slice/docker-0123.scope"),
            Class::Scope {
                name: "docker-0123.scope".into()
            }
        );
    }

    /// Claim: containerd's own service is a service; a container under it, or its scope
    /// outside Kubernetes, or its cgroupfs namespace directory, is a containerd container.
    #[test]
    fn containerd() {
        assert_eq!(
            classify("/system.slice/containerd.service"),
            Class::Service {
                name: "containerd.service".into()
            }
        );
        let want = Class::Container {
            runtime: "containerd".into(),
            container_id: ID.into(),
        };
        assert_eq!(
            classify(&format!("/system.slice/containerd.service/default/{ID}")),
            want
        );
        assert_eq!(
            classify(&format!("/system.slice/cri-containerd-{ID}.scope")),
            want
        );
        assert_eq!(classify(&format!("/k8s.io/{ID}")), want);
        assert_eq!(
            classify(&format!("/machine.slice/libpod-{ID}.scope")),
            Class::Container {
                runtime: "podman".into(),
                container_id: ID.into()
            }
        );
    }

    /// Claim: Kubernetes pods are recognised with the systemd driver (UID with
    /// underscores, turned back into dashes) and with cgroupfs, with QoS class, runtime
    /// and container id; a pod's own cgroup has no container.
    #[test]
    fn kubernetes_pods() {
        let uid = "1234abcd-0000-4000-8000-000000000001";
        let systemd = format!(
            "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1234abcd_0000_4000_8000_000000000001.slice/cri-containerd-{ID}.scope"
        );
        let c = classify(&systemd);
        assert_eq!(c, k8s(uid, "burstable", Some("containerd"), Some(ID)));
        assert_eq!(
            c.label(&systemd),
            format!("pod {uid} container 0123456789ab")
        );
        assert_eq!(
            classify(&format!("/kubepods/besteffort/pod{uid}/{ID}")),
            k8s(uid, "besteffort", Some("containerd"), Some(ID))
        );
        // Guaranteed pods sit right under kubepods; the pod's own cgroup.
        assert_eq!(
            classify(&format!("/kubepods/pod{uid}")),
            k8s(uid, "guaranteed", None, None)
        );
        // containerd's systemd form: slice:prefix:id in one name.
        assert_eq!(
            classify(&format!(
                "/system.slice/containerd.service/kubepods-besteffort-pod1234abcd_0000_4000_8000_000000000001.slice:cri-containerd:{ID}"
            )),
            k8s(uid, "besteffort", Some("containerd"), Some(ID))
        );
        assert_eq!(
            classify(&format!("/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod{}.slice/crio-{ID}.scope", uid.replace('-', "_"))),
            k8s(uid, "besteffort", Some("cri-o"), Some(ID))
        );
    }

    /// Claim: the class serialises as an object with its kind, as the JSON shows it.
    #[test]
    fn json_shape() {
        let s = serde_json::to_string(&Class::Service {
            name: "foo.service".into(),
        })
        .unwrap();
        assert_eq!(s, r#"{"kind":"service","name":"foo.service"}"#);
    }

    /// Claim: the cgroup2 line of a mountinfo is found among others, its escapes undone,
    /// and its root kept (a cgroup namespace's).
    #[test]
    fn mountinfo() {
        let text = "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n\
                    35 22 0:30 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate\n";
        assert_eq!(
            cgroup2_mount(text),
            Some(("/sys/fs/cgroup".into(), "/".into()))
        );
        let odd = "40 22 0:30 /kubepods /mnt/my\\040cg rw - cgroup2 none rw\n";
        assert_eq!(
            cgroup2_mount(odd),
            Some(("/mnt/my cg".into(), "/kubepods".into()))
        );
        assert_eq!(cgroup2_mount("22 1 8:1 / / rw - ext4 /dev/sda1 rw\n"), None);
    }
}
