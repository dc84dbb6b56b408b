# Expected: AC (-M: exact integers).
{ print $1 + $2 }
