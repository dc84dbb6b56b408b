%% bench_languages: the sieve of Eratosthenes with plain loops (Erlang).
%% The array is an atomics array: Erlang's only mutable array of integers
%% (8 bytes an entry); the loops are tail-recursive functions.
-module(main).
-export([main/0]).

main() ->
    {ok, [N]} = io:fread("", "~d"),
    Composite = atomics:new(N + 1, []),
    io:format("~B~n", [outer(2, N, Composite, 0)]).

outer(I, N, _, Count) when I > N -> Count;
outer(I, N, C, Count) ->
    case atomics:get(C, I) of
        0 -> inner(I * I, I, N, C), outer(I + 1, N, C, Count + 1);
        _ -> outer(I + 1, N, C, Count)
    end.

inner(J, _, N, _) when J > N -> ok;
inner(J, I, N, C) -> atomics:put(C, J, 1), inner(J + I, I, N, C).
