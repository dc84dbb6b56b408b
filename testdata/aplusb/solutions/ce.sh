# Expected: CE (bash -n: a syntax error).
read -r a b
if [ "$a" ]; then echo $((a + b))
