# Expected: AC. A+B in Elixir: module Main, main/0 (elixirc main.ex; the run
# calls Main.main()).
defmodule Main do
  def main do
    [a, b] =
      IO.read(:eof)
      |> String.split()
      |> Enum.map(&String.to_integer/1)

    IO.puts(a + b)
  end
end
