%% Expected: TLE. A loop without end (Erlang).
-module(main).
-export([main/0]).

main() -> spin(0).

spin(N) -> spin(N + 1).
