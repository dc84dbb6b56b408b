# Expected: CE (a rule without its closing brace).
{ print $1 + $2
