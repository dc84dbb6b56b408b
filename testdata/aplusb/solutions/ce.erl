%% Expected: CE. A variable that is never bound (Erlang).
-module(main).
-export([main/0]).

main() ->
    io:format("~B~n", [Total]).
