# bench_languages: the sieve of Eratosthenes with plain loops.
read -r n
declare -a composite
count=0
for ((i = 2; i <= n; i++)); do
    if [[ -z ${composite[i]} ]]; then
        ((count++))
        for ((j = i * i; j <= n; j += i)); do composite[j]=1; done
    fi
done
echo "$count"
