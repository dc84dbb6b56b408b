(* Expected: TLE. Busy loop. *)
let () = let x = ref 0 in while true do x := !x * 31 + 7 done
