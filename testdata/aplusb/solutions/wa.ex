# Expected: WA. a * b instead of a + b (Elixir).
defmodule Main do
  def main do
    [a, b] =
      IO.read(:eof)
      |> String.split()
      |> Enum.map(&String.to_integer/1)

    IO.puts(a * b)
  end
end
