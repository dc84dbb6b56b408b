// Expected: RE. rustc links a shared library as ./main: an ELF file the
// kernel does start, at entry address 0, so it dies of SIGSEGV at once.
// Something runnable came out of the compile, so it is RE, not CE (compare
// ce_rlib.rs, which leaves an archive nothing can start).
#![crate_type = "cdylib"]

#[no_mangle]
pub extern "C" fn add(a: i64, b: i64) -> i64 {
    a + b
}
