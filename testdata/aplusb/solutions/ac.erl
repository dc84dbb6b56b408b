%% Expected: AC. A+B in Erlang: module main, main/0 (erlc main.erl; the run
%% calls main:main() and then init:stop()).
-module(main).
-export([main/0]).

main() ->
    {ok, [A, B]} = io:fread("", "~d ~d"),
    io:format("~B~n", [A + B]).
