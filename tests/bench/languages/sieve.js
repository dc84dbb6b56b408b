// bench_languages: the sieve of Eratosthenes with plain loops.
const n = parseInt(require('fs').readFileSync(0, 'utf8').trim(), 10);
const composite = new Uint8Array(n + 1);
let count = 0;
for (let i = 2; i <= n; i++)
    if (!composite[i]) {
        count++;
        for (let j = i * i; j <= n; j += i)
            composite[j] = 1;
    }
console.log(count);
