# bench_languages: the sieve of Eratosthenes with plain loops (Elixir). The
# array is an atomics array (Erlang's only mutable array of integers); the
# loops are tail-recursive functions.
defmodule Main do
  def main do
    n = IO.read(:line) |> String.trim() |> String.to_integer()
    composite = :atomics.new(n + 1, [])
    IO.puts(outer(2, n, composite, 0))
  end

  defp outer(i, n, _, count) when i > n, do: count

  defp outer(i, n, c, count) do
    if :atomics.get(c, i) == 0 do
      inner(i * i, i, n, c)
      outer(i + 1, n, c, count + 1)
    else
      outer(i + 1, n, c, count)
    end
  end

  defp inner(j, _, n, _) when j > n, do: :ok

  defp inner(j, i, n, c) do
    :atomics.put(c, j, 1)
    inner(j + i, i, n, c)
  end
end
