# Expected: AC. The first line of the input (Elixir).
defmodule Main do
  def main, do: IO.write(IO.read(:line))
end
