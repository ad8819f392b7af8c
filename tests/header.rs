//! include/blasst.h is what cbindgen generates from the source (CI fails on any difference),
//! and its version macros equal Cargo.toml's version.

use std::path::PathBuf;

fn generate() -> String {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut config =
        cbindgen::Config::from_file(root.join("cbindgen.toml")).expect("cbindgen.toml");
    config.after_includes = Some(format!(
        "\n#define BLASST_VERSION_MAJOR {}\n#define BLASST_VERSION_MINOR {}\n#define BLASST_VERSION_PATCH {}",
        env!("CARGO_PKG_VERSION_MAJOR"),
        env!("CARGO_PKG_VERSION_MINOR"),
        env!("CARGO_PKG_VERSION_PATCH")
    ));
    let mut out = Vec::new();
    cbindgen::Builder::new()
        .with_crate(&root)
        .with_config(config)
        .generate()
        .expect("cbindgen failed")
        .write(&mut out);
    String::from_utf8(out).unwrap()
}

#[test]
fn header_matches_source() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("include/blasst.h");
    let generated = generate();
    if std::env::var_os("BLASST_UPDATE_HEADER").is_some() {
        std::fs::write(&path, &generated).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "include/blasst.h differs from what the source generates; run BLASST_UPDATE_HEADER=1 cargo test --test header"
    );
}

#[test]
fn version_macros_match_cargo() {
    let h =
        std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("include/blasst.h"))
            .unwrap();
    for (name, v) in [
        ("BLASST_VERSION_MAJOR", env!("CARGO_PKG_VERSION_MAJOR")),
        ("BLASST_VERSION_MINOR", env!("CARGO_PKG_VERSION_MINOR")),
        ("BLASST_VERSION_PATCH", env!("CARGO_PKG_VERSION_PATCH")),
    ] {
        assert!(
            h.contains(&format!("#define {name} {v}\n")),
            "{name} != {v}"
        );
    }
    assert!(h.contains("#define BLASST_ABI_VERSION 1\n"));
}
