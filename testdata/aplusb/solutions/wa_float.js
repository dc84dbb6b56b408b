// Expected: WA. Number loses precision past 2^53.
const [a, b] = require('fs').readFileSync(0, 'utf8').trim().split(/\s+/).map(Number);
console.log(String(a + b));
