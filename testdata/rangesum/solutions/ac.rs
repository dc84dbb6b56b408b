use std::io::{self, Read, Write};

fn main() {
    let mut s = String::new();
    io::stdin().read_to_string(&mut s).unwrap();
    let mut it = s.split_ascii_whitespace().map(|x| x.parse::<i64>().unwrap());
    let n = it.next().unwrap() as usize;
    let q = it.next().unwrap() as usize;
    let mut pre = vec![0i64; n + 1];
    for i in 1..=n {
        pre[i] = pre[i - 1] + it.next().unwrap();
    }
    let out = io::stdout();
    let mut out = io::BufWriter::new(out.lock());
    for _ in 0..q {
        let l = it.next().unwrap() as usize;
        let r = it.next().unwrap() as usize;
        writeln!(out, "{}", pre[r] - pre[l - 1]).unwrap();
    }
}
