// SPDX-License-Identifier: GPL-2.0
//! Cgroups: ids resolved to paths, what they say, and the views that show them.

use crate::util::*;

/// Claim: a record's cgroup id resolves to its path on the cgroup2 mount that the proc
/// root's mountinfo names, by inode number, with what the path says (here a Kubernetes
/// pod's container: UID with dashes, QoS, runtime, container id); an id no directory has
/// is gone; records of a module that gives no id have no cgroup fields at all.
#[test]
fn cgroup_ids_resolve_to_paths_and_pods() {
    let (_dir, proc, id) = cgroup_system();
    let v: Vec<serde_json::Value> =
        serde_json::from_str(&stdout(&proc, &["records", "--json"])).unwrap();
    let on = |cpu: u64| v.iter().find(|r| r["cpu"] == cpu).unwrap();
    let pod = on(0);
    assert_eq!(pod["cgroup_id"], id);
    assert_eq!(
        pod["cgroup"],
        format!("{POD}/cri-containerd-{CONTAINER}.scope")
    );
    assert_eq!(
        pod["cgroup_class"],
        serde_json::json!({
            "kind": "kubernetes",
            "pod_uid": "1234abcd-0000-4000-8000-000000000001",
            "qos": "burstable",
            "runtime": "containerd",
            "container_id": CONTAINER,
        })
    );
    let gone = on(1);
    assert_eq!(
        (gone["cgroup_id"].as_u64(), gone["cgroup_gone"].as_bool()),
        (Some(999_999_999_999), Some(true))
    );
    assert!(gone.get("cgroup").is_none(), "{gone}");
    for r in v.iter().filter(|r| r["cpu"] == 2 || r["cpu"] == 3) {
        for key in ["cgroup_id", "cgroup", "cgroup_class", "cgroup_gone"] {
            assert!(r.get(key).is_none(), "{key} in {r}");
        }
    }
}

/// Claim: the one-line view ends a window's line with its task's cgroup in a few words
/// (the pod and container, or the id and "(gone)"), and says nothing for records without
/// one; the stacked view gives the path and what it is under the record's first line.
#[test]
fn records_views_show_the_cgroup() {
    let (_dir, proc, _) = cgroup_system();
    let text = stdout(&proc, &["records", "--oneline"]);
    let line = |cpu: &str| {
        text.lines()
            .find(|l| l.split_whitespace().nth(2) == Some(cpu))
            .unwrap_or_else(|| panic!("no cpu {cpu} line in\n{text}"))
            .to_string()
    };
    assert!(
        line("0").ends_with(
            " sh[79] in pod 1234abcd-0000-4000-8000-000000000001 container 0123456789ab"
        ),
        "{text}"
    );
    assert!(
        line("1").ends_with(" irq_test[90] in cgroup 999999999999 (gone)"),
        "{text}"
    );
    assert!(!line("2").contains(" in "), "{text}");
    let text = stdout(&proc, &["records", "--cpu", "0"]);
    let second = text.lines().nth(1).unwrap_or_default();
    assert_eq!(
        second,
        format!("  cgroup of sh: {POD}/cri-containerd-{CONTAINER}.scope (pod 1234abcd-0000-4000-8000-000000000001 container 0123456789ab)")
    );
    let text = stdout(&proc, &["records", "--cpu", "2"]);
    assert!(!text.contains("cgroup"), "{text}");
}

/// Claim: without a cgroup2 mount to look in (a proc root with no mountinfo, as for a
/// file read on another machine) the id is shown as it is, neither resolved nor gone.
#[test]
fn unresolved_cgroup_ids_are_shown_as_ids() {
    let root = proc_root(&[
        ("enable", "enabled\n"),
        ("sampling_period", "10ms\n"),
        ("records", RECORDS_CGROUP),
    ]);
    let text = stdout(root.path(), &["records", "--oneline"]);
    assert!(
        text.lines().any(|l| l.ends_with(" sh[79] in cgroup 4242")),
        "{text}"
    );
    let v: Vec<serde_json::Value> =
        serde_json::from_str(&stdout(root.path(), &["records", "--json"])).unwrap();
    let r = v.iter().find(|r| r["cpu"] == 0).unwrap();
    assert_eq!(r["cgroup_id"], 4242);
    assert!(
        r.get("cgroup").is_none() && r.get("cgroup_gone").is_none(),
        "{r}"
    );
}

/// Claim: `top --by cgroup` has one row per cgroup (kind and cause apart, as for
/// culprits): the path with what it is, the gone id, and `-` for records without one;
/// its JSON names the path and the class; `--stack` is still `--by stack`.
#[test]
fn top_groups_by_cgroup() {
    let (_dir, proc, _) = cgroup_system();
    let text = stdout(&proc, &["top", "--by", "cgroup"]);
    let mut lines = text.lines();
    assert!(
        lines.next().unwrap_or_default().ends_with(" cgroup"),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "{POD}/cri-containerd-{CONTAINER}.scope (pod 1234abcd-0000-4000-8000-000000000001 container 0123456789ab)\n"
        )),
        "{text}"
    );
    assert!(text.contains(" cgroup 999999999999 (gone)\n"), "{text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with("softirq-off") && l.ends_with(" -")),
        "{text}"
    );
    let v: Vec<serde_json::Value> =
        serde_json::from_str(&stdout(&proc, &["top", "--by", "cgroup", "--json"])).unwrap();
    let pod = v
        .iter()
        .find(|c| c["cgroup_class"]["kind"] == "kubernetes")
        .unwrap();
    assert_eq!(
        (pod["culprit"].as_str(), pod["count"].as_u64()),
        (
            Some(format!("{POD}/cri-containerd-{CONTAINER}.scope").as_str()),
            Some(1)
        )
    );
    assert_eq!(
        stdout(&proc, &["top", "--stack"]),
        stdout(&proc, &["top", "--by", "stack"])
    );
    cli(&proc)
        .args(["top", "--stack", "--by", "cgroup"])
        .assert()
        .code(2);
}
