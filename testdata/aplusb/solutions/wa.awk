# Expected: WA: a - b.
{ print $1 - $2 }
