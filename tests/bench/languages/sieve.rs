// bench_languages: the sieve of Eratosthenes with plain loops.
use std::io::Read;

fn main() {
    let mut s = String::new();
    std::io::stdin().read_to_string(&mut s).unwrap();
    let n: usize = s.trim().parse().unwrap();
    let mut composite = vec![false; n + 1];
    let mut count = 0u64;
    for i in 2..=n {
        if !composite[i] {
            count += 1;
            let mut j = i * i;
            while j <= n {
                composite[j] = true;
                j += i;
            }
        }
    }
    println!("{}", count);
}
