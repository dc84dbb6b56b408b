(* bench_languages: the sieve of Eratosthenes with plain loops. *)
let () =
  let n = Scanf.scanf " %d" (fun x -> x) in
  let composite = Bytes.make (n + 1) '\000' in
  let count = ref 0 in
  for i = 2 to n do
    if Bytes.get composite i = '\000' then begin
      incr count;
      let j = ref (i * i) in
      while !j <= n do
        Bytes.set composite !j '\001';
        j := !j + i
      done
    end
  done;
  Printf.printf "%d\n" !count
