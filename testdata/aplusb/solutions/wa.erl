%% Expected: WA. a * b instead of a + b (Erlang).
-module(main).
-export([main/0]).

main() ->
    {ok, [A, B]} = io:fread("", "~d ~d"),
    io:format("~B~n", [A * B]).
