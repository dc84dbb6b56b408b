# Expected: TLE. A loop without end (Elixir).
defmodule Main do
  def main, do: spin(0)

  defp spin(n), do: spin(n + 1)
end
