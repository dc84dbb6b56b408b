// Expected: CE. rustc builds a library (an ar archive) as ./main: nothing
// to run.
#![crate_type = "rlib"]

pub fn add(a: i64, b: i64) -> i64 {
    a + b
}
