# Expected: WA: Numbers, doubles, round past 2^53.
[a, b] = require('fs').readFileSync(0, 'utf8').trim().split(/\s+/).map(Number)
console.log String(a + b)
