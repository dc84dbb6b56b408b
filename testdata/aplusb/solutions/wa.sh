# Expected: WA: a - b.
read -r a b
echo $((a - b))
