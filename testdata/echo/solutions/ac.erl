%% Expected: AC. The first line of the input (Erlang).
-module(main).
-export([main/0]).

main() ->
    io:put_chars(io:get_line("")).
