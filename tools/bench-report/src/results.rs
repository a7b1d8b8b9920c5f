// SPDX-License-Identifier: GPL-2.0
//! The fields of a kernel's results as the sections read them: numbers and lists, the
//! module's config line, the irqsoff precheck's state, and the kernel's names.

use serde_json::Value;

/// A JSON number as f64; 0 when it is not one.
pub fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or(0.0)
}

/// A JSON array of numbers as f64s (empty when it is not an array).
pub fn nums(v: &Value) -> Vec<f64> {
    v.as_array()
        .map(|a| a.iter().map(num).collect())
        .unwrap_or_default()
}

/// The strings of a JSON array (empty when it is not an array).
pub fn strings(v: &Value) -> Vec<String> {
    items(v)
        .iter()
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect()
}

/// The elements of a JSON array (none when it is not an array).
pub fn items(v: &Value) -> &[Value] {
    v.as_array().map_or(&[], Vec::as_slice)
}

/// `key=value` from the module's records `config` line.
pub fn config_num(line: &str, key: &str) -> Option<f64> {
    line.split(' ')
        .find_map(|w| w.strip_prefix(key))
        .and_then(|v| v.parse().ok())
}

/// The irqsoff column's state on this kernel: Ok(()) when the precheck passed.
pub fn irqsoff_state(k: &Value) -> std::result::Result<(), String> {
    let pc = &k["precheck"];
    if pc["passed"] == true {
        Ok(())
    } else if pc.is_null() {
        Err("not measured (no precheck in these results)".into())
    } else {
        Err(pc["reason"]
            .as_str()
            .unwrap_or("precheck failed")
            .to_string())
    }
}

fn short_kernel(k: &Value) -> String {
    let v = k["guest"]["kernel"]
        .as_str()
        .or(k["kernel"].as_str())
        .unwrap_or("?");
    v.split_whitespace().nth(2).unwrap_or(v).to_string()
}

/// The guest's HZ, from the module's config line at P = 10 ms; None when the results
/// have no such line.
pub fn hz_num(k: &Value) -> Option<f64> {
    k["guest"]["config_p10"]
        .as_str()
        .and_then(|l| config_num(l, "hz="))
}

/// The guest's HZ as the titles write it: "?" when the results do not say.
pub fn hz(k: &Value) -> String {
    hz_num(k).map_or("?".into(), |v| format!("{v:.0}"))
}

/// The title of a kernel's sections.
pub fn kernel_title(k: &Value) -> String {
    match k["name"].as_str().unwrap_or("bench") {
        "bench" => format!("Bench kernel ({}, HZ {})", short_kernel(k), hz(k)),
        _ => format!("Debian's stock kernel ({}, HZ {})", short_kernel(k), hz(k)),
    }
}

/// What a kernel's plots add to their names: nothing for the bench kernel, -NAME else.
pub fn suffix(k: &Value) -> String {
    match k["name"].as_str().unwrap_or("bench") {
        "bench" => String::new(),
        n => format!("-{n}"),
    }
}
