// The shared library's soname carries the major version (libblasst.so.0), so an
// incompatible release can be installed beside this one.
fn main() {
    let major = std::env::var("CARGO_PKG_VERSION_MAJOR").unwrap();
    let target_os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if target_os == "linux" {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libblasst.so.{major}");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
