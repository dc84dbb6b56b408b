(* Expected: CE: a string is not an int. *)
let () = print_int ("1" + 2)
