# Expected: CE. A call of a function that does not exist (Elixir).
defmodule Main do
  def main do
    IO.puts(solve(1, 2))
  end
end
