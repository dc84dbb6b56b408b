// Expected: RE. unwrap() on a parse error panics (exit status 101).
fn main() {
    let n: i64 = "not a number".parse().unwrap();
    println!("{}", n);
}
